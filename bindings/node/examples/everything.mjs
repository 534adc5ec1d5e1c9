#!/usr/bin/env node
// The everything example server, written with polymcp's public Node API:
// the same tools, resources, templates and prompts, with the same names and
// texts, as examples/everything/everything.go (the conformance fixture plus
// echo and sleep), examples/everything/interactive.go (the tools that ask
// the client for input) and examples/everything/tasks.go (the tools of the
// 2026-07-28 tasks extension).
//
//   node bindings/node/examples/everything.mjs                        # stdio
//   node bindings/node/examples/everything.mjs --http 127.0.0.1:8080  # Streamable HTTP
//
// With --http the endpoint's URL goes to stderr as "polymcp: serving <url>"
// (the line `polymcp everything --http` prints), and the server runs until
// SIGINT or SIGTERM, then exits 0.
import { realpathSync } from "node:fs";
import { setTimeout as pause } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

import { McpError, McpServer, ResourceTemplate, version } from "polymcp";

export const NAME = "polymcp-everything";

// Payloads the conformance scenarios check: a 1×1 PNG and a minimal WAV.
export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
export const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

// The inputSchema of a tool without arguments.
const NO_ARGS = { type: "object", properties: {} };

// The fixture's 2020-12 schema, which must reach clients unchanged.
const SCHEMA_2020 = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
};

// How many progress updates sleep sends when asked.
const PROGRESS_STEPS = 10;

// The trigger tools keep at most this many dynamic tools and prompts: each
// call past it replaces the oldest, so a busy client cannot grow the catalogue.
const MAX_DYNAMIC = 16;

const text = (s) => ({ content: [{ type: "text", text: s }] });

/** Builds the everything server; options go to McpServer. */
export function createServer(options = {}) {
  const server = new McpServer({ name: NAME, version: version(), title: "polymcp everything" }, options);
  addTools(server);
  addResources(server);
  addPrompts(server);
  addInteractive(server); // after the older catalogue, which keeps its order
  addTaskTools(server);
  return server;
}

/** Registers a tool without arguments. */
function fixed(server, name, description, handler) {
  return server.registerTool(name, { description, inputSchema: NO_ARGS }, (_args, extra) => handler(extra));
}

function addTools(server) {
  addEchoSleep(server);
  addContentTools(server);
  addNotifyingTools(server);
  addCatalogueTools(server);
  server.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "Takes input described by a JSON Schema 2020-12 document that must come back unchanged",
      inputSchema: SCHEMA_2020,
    },
    (args) => text("Received: " + JSON.stringify(args)),
  );
  server.registerTool(
    "test_custom_header",
    {
      description:
        "Returns its region argument, which HTTP clients also send as the Mcp-Param-Region header (x-mcp-header)",
      inputSchema: {
        type: "object",
        properties: { region: { type: "string", description: "a region name", "x-mcp-header": "Region" } },
        required: ["region"],
      },
    },
    ({ region }) => "Region: " + region,
  );
}

function addEchoSleep(server) {
  server.registerTool(
    "echo",
    {
      description: "Returns its text argument as one text item",
      inputSchema: {
        type: "object",
        properties: { text: { type: "string", description: "the text to return" } },
        required: ["text"],
        additionalProperties: false,
      },
    },
    ({ text: s }) => s,
  );
  server.registerTool(
    "sleep",
    {
      description: 'Waits ms milliseconds, reporting progress when asked, then returns "slept"',
      inputSchema: {
        type: "object",
        properties: { ms: { type: "integer", description: "how long to sleep, in milliseconds" } },
        required: ["ms"],
        additionalProperties: false,
      },
    },
    async ({ ms }, extra) => {
      if (ms < 0) {
        throw new Error("ms must not be negative");
      }
      for (let i = 1; i <= PROGRESS_STEPS; i++) {
        await pause(ms / PROGRESS_STEPS, undefined, { signal: extra.signal });
        extra.sendProgress((ms * i) / PROGRESS_STEPS, ms);
      }
      return "slept";
    },
  );
}

function addContentTools(server) {
  fixed(server, "test_simple_text", "Tests simple text content response", () =>
    text("This is a simple text response for testing."),
  );
  fixed(server, "test_image_content", "Tests image content response", () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  fixed(server, "test_audio_content", "Tests audio content response", () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  fixed(server, "test_embedded_resource", "Tests embedded resource content response", () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }));
  fixed(server, "test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
      },
    ],
  }));
  fixed(server, "test_error_handling", "Tests error response handling", () => ({
    ...text("This tool intentionally returns an error for testing"),
    isError: true,
  }));
}

/** Sends one notification per step, 50 ms apart, then returns done. */
async function steps(signal, send, n, done) {
  for (let i = 0; i < n; i++) {
    if (i > 0) {
      await pause(50, undefined, { signal });
    }
    send(i);
  }
  return text(done);
}

function addNotifyingTools(server) {
  const logLines = ["Tool execution started", "Tool processing data", "Tool execution completed"];
  const logStep = (extra) => (i) => extra.log("info", logLines[i], NAME);
  fixed(server, "test_tool_with_logging", "Tests tool that emits log messages during execution", (extra) =>
    steps(extra.signal, logStep(extra), logLines.length, "Tool with logging executed successfully"),
  );
  fixed(server, "test_logging_tool", "Sends log messages at the level the request's _meta asks for", (extra) =>
    steps(extra.signal, logStep(extra), logLines.length, "Logging tool completed"),
  );
  fixed(server, "test_tool_with_progress", "Tests tool that reports progress notifications", (extra) =>
    steps(
      extra.signal,
      (i) => extra.sendProgress(i * 50, 100, `Completed step ${i * 50} of 100`),
      3,
      "Progress tool completed",
    ),
  );
  fixed(server, "test_reconnection", "Tests SSE stream disconnection and client reconnection (SEP-1699)", async (extra) => {
    await pause(100, undefined, { signal: extra.signal });
    return text(
      "Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.",
    );
  });
}

// The tools that change the catalogue, so clients see
// notifications/tools/list_changed and prompts/list_changed.
function addCatalogueTools(server) {
  const tools = [];
  const prompts = [];
  let toolCount = 0;
  let promptCount = 0;
  fixed(server, "test_trigger_tool_change", "Adds a tool, which sends notifications/tools/list_changed", () => {
    const name = `test_dynamic_tool_${++toolCount}`;
    if (tools.length === MAX_DYNAMIC) {
      tools.shift().remove();
    }
    tools.push(fixed(server, name, "A tool added at run time", () => text("dynamic tool " + name)));
    return text("Added tool " + name);
  });
  fixed(server, "test_trigger_prompt_change", "Adds a prompt, which sends notifications/prompts/list_changed", () => {
    const name = `test_dynamic_prompt_${++promptCount}`;
    if (prompts.length === MAX_DYNAMIC) {
      prompts.shift().remove();
    }
    prompts.push(userPrompt(server, name, { description: "A prompt added at run time" }, "dynamic prompt " + name));
    return text("Added prompt " + name);
  });
}

function addResources(server) {
  const fixedResource = (name, uri, meta, contents) =>
    server.registerResource(name, uri, meta, () => ({ contents: [contents] }));
  fixedResource(
    "static-text",
    "test://static-text",
    { title: "Static Text Resource", description: "A static text resource for testing", mimeType: "text/plain" },
    { uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." },
  );
  fixedResource(
    "static-binary",
    "test://static-binary",
    { title: "Static Binary Resource", description: "A static binary resource (image) for testing", mimeType: "image/png" },
    { uri: "test://static-binary", mimeType: "image/png", blob: PNG },
  );
  fixedResource(
    "watched-resource",
    "test://watched-resource",
    { title: "Watched Resource", description: "A resource clients can subscribe to", mimeType: "text/plain" },
    { uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content" },
  );
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data"),
    { title: "Resource Template", description: "A resource template with parameter substitution", mimeType: "application/json" },
    (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
        },
      ],
    }),
  );
}

const user = (...items) => ({ messages: items.map((content) => ({ role: "user", content })) });

/** Registers a prompt answering one fixed user message. */
function userPrompt(server, name, config, message) {
  return server.registerPrompt(name, config, () => user({ type: "text", text: message }));
}

function addPrompts(server) {
  userPrompt(
    server,
    "test_simple_prompt",
    { title: "Simple Test Prompt", description: "A simple prompt without arguments" },
    "This is a simple prompt for testing.",
  );
  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      title: "Prompt With Arguments",
      description: "A prompt with required arguments",
      arguments: [
        { name: "arg1", description: "First test argument", required: true },
        { name: "arg2", description: "Second test argument", required: true },
      ],
      complete: {
        arg1: completeWords,
        arg2: completeWords,
      },
    },
    ({ arg1, arg2 }) => user({ type: "text", text: `Prompt with arguments: arg1='${arg1 ?? ""}', arg2='${arg2 ?? ""}'` }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      title: "Prompt With Embedded Resource",
      description: "A prompt that includes an embedded resource",
      arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
    },
    ({ resourceUri }) =>
      user(
        { type: "resource", resource: { uri: resourceUri ?? "", mimeType: "text/plain", text: "Embedded resource content for testing." } },
        { type: "text", text: "Please process the embedded resource above." },
      ),
  );
  server.registerPrompt(
    "test_prompt_with_image",
    { title: "Prompt With Image", description: "A prompt that includes image content" },
    () => user({ type: "image", data: PNG, mimeType: "image/png" }, { type: "text", text: "Please analyze the image above." }),
  );
}

// The Go fixture completes every argument of test_prompt_with_arguments
// from one word list.
function completeWords(value) {
  return ["paris", "park", "party", "hello", "world"].filter((w) => w.startsWith(value));
}

// ---- The interactive tools (examples/everything/interactive.go) ----------
// They ask the client for input through ctx.elicit, ctx.sample, ctx.roots
// and ctx.ask. The same handler serves every revision: up to 2025-11-25 the
// core sends server-to-client requests during the call; on 2026-07-28 it
// answers input_required and the handler runs again on the client's retry.

const ASK_NAME = "What is your name?";
const ASK_COLOR = "What is your favorite color?";
const ASK_CONFIRM = "Please confirm to continue";
const ASK_CONTEXT = "What context should the prompt use?";
const CAPITAL_QUESTION = "What is the capital of France?";
const GREETING_REQUEST = "Generate a greeting";
// What test_input_required_result_request_state keeps between its rounds;
// seeing it again proves the state round-tripped.
const CONFIRM_STATE = "awaiting-confirmation";

/** Elicits one required string property. */
const stringForm = (property) => ({ type: "object", properties: { [property]: { type: "string" } }, required: [property] });

const userText = (s) => ({ messages: [{ role: "user", content: { type: "text", text: s } }] });

const sampling = (prompt, maxTokens) => ({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens });

/** A value as Go's fmt %v prints what encoding/json decoded. */
function goValue(v) {
  if (Array.isArray(v)) {
    return `[${v.map(goValue).join(" ")}]`;
  }
  if (v !== null && typeof v === "object") {
    return `map[${Object.keys(v).sort().map((k) => `${k}:${goValue(v[k])}`).join(" ")}]`;
  }
  return v === null ? "<nil>" : String(v);
}

/** JSON as Go's encoding/json writes a decoded value: object keys sorted, HTML characters escaped. */
function goJson(v) {
  const sorted = (x) =>
    Array.isArray(x) ? x.map(sorted) : x !== null && typeof x === "object"
      ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sorted(x[k])]))
      : x;
  return JSON.stringify(sorted(v)).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** An accepted elicitation's property as text. */
function field(res, name) {
  if (res.action !== "accept") {
    return `(${res.action})`;
  }
  const v = res.content?.[name];
  return v === undefined ? "" : typeof v === "string" ? v : goValue(v);
}

/** An elicitation's action and content. */
const outcome = (res) => `action=${res.action}, content=${res.content == null ? "{}" : goJson(res.content)}`;

/** The text of a sampled message: its one content's text, or the text blocks joined. */
function sampledText(res) {
  const c = res.content;
  if (c !== null && typeof c === "object" && !Array.isArray(c)) {
    return typeof c.text === "string" ? c.text : "";
  }
  return Array.isArray(c) ? c.filter((b) => b?.type === "text" && typeof b.text === "string").map((b) => b.text).join("") : "";
}

function rootList(res) {
  const roots = res.roots ?? [];
  return roots.length === 0 ? "(none)" : roots.map((r) => (r.name ? `${r.uri} (${r.name})` : r.uri)).join(", ");
}

/**
 * A failed input step: the end of the call (input_required, or -32021 on
 * 2026-07-28) and cancellation unwind the handler; anything else (a
 * missing capability on the legacy revisions, the client's error, a
 * malformed answer) becomes an isError result.
 */
function toolFailure(err) {
  if (!(err instanceof Error) || err.name === "AbortError") {
    throw err;
  }
  const message = err instanceof McpError ? `jsonrpc error ${err.code}: ${err.message}` : err.message;
  return { ...text(message), isError: true };
}

/** Runs an input step, answering its failure as toolFailure says. */
const asking = (handler) => (extra) => handler(extra).catch(toolFailure);

function addInteractive(server) {
  addLegacyInteractive(server);
  addInputRequiredTools(server);
  addDiagnosticInputTools(server);
  server.registerPrompt(
    "test_input_required_result_prompt",
    { title: "Prompt Asking For Input", description: "A prompt that asks the user for context before it renders" },
    async (_args, extra) => {
      const res = await extra.elicit(ASK_CONTEXT, stringForm("context"), { key: "user_context" });
      return userText("Use this context: " + field(res, "context"));
    },
  );
}

function addLegacyInteractive(server) {
  server.registerTool(
    "test_sampling",
    {
      description: "Tests server-initiated sampling (LLM completion request)",
      inputSchema: {
        type: "object",
        properties: { prompt: { type: "string", description: "the prompt to send to the client's model" } },
        required: ["prompt"],
        additionalProperties: false,
      },
    },
    ({ prompt }, extra) =>
      asking(async () => text("LLM response: " + sampledText(await extra.sample(sampling(prompt, 100), { key: "sampling" }))))(extra),
  );
  server.registerTool(
    "test_elicitation",
    {
      description: "Tests server-initiated elicitation (user input request)",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", description: "the message to show the user" } },
        required: ["message"],
        additionalProperties: false,
      },
    },
    ({ message }, extra) =>
      asking(async () => {
        const res = await extra.elicit(
          message,
          {
            type: "object",
            properties: {
              username: { type: "string", description: "User's response" },
              email: { type: "string", description: "User's email address" },
            },
            required: ["username", "email"],
          },
          { key: "elicitation" },
        );
        return text("User response: " + outcome(res));
      })(extra),
  );
  fixed(server, "test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", asking(async (extra) => {
    const res = await extra.elicit(
      "Please review and update the form fields with defaults",
      {
        type: "object",
        properties: {
          name: { type: "string", description: "User name", default: "John Doe" },
          age: { type: "integer", description: "User age", default: 30 },
          score: { type: "number", description: "User score", default: 95.5 },
          status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", description: "Verification status", default: true },
        },
        required: [],
      },
      { key: "defaults" },
    );
    return text("Elicitation completed: " + outcome(res));
  }));
  fixed(server, "test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", asking(async (extra) => {
    const res = await extra.elicit(
      "Please select options from the enum fields",
      {
        type: "object",
        properties: {
          untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            description: "Select one option with titles",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: {
            type: "string",
            description: "Select one option (legacy)",
            enum: ["opt1", "opt2", "opt3"],
            enumNames: ["Option One", "Option Two", "Option Three"],
          },
          untitledMulti: {
            type: "array",
            description: "Select multiple options",
            minItems: 1,
            maxItems: 3,
            items: { type: "string", enum: ["option1", "option2", "option3"] },
          },
          titledMulti: {
            type: "array",
            description: "Select multiple options with titles",
            minItems: 1,
            maxItems: 3,
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
        required: [],
      },
      { key: "enums" },
    );
    return text("Elicitation completed: " + outcome(res));
  }));
}

function addInputRequiredTools(server) {
  fixed(server, "test_input_required_result_elicitation", "Asks for the user's name (elicitation), then greets them", asking(async (extra) => {
    const res = await extra.elicit(ASK_NAME, stringForm("name"), { key: "user_name" });
    return text("Hello, " + field(res, "name") + "!");
  }));
  fixed(server, "test_input_required_result_sampling", "Asks the client's model a question (sampling), then returns its answer", asking(async (extra) => {
    const res = await extra.sample(sampling(CAPITAL_QUESTION, 100), { key: "capital_question" });
    return text("Sampled answer: " + sampledText(res));
  }));
  fixed(server, "test_input_required_result_list_roots", "Asks the client for its roots, then lists them", asking(async (extra) => {
    return text("Client roots: " + rootList(await extra.roots({ key: "client_roots" })));
  }));
  const confirm = asking(async (extra) => {
    const kept = extra.inputState;
    extra.setInputState(CONFIRM_STATE);
    const res = await extra.elicit(ASK_CONFIRM, { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] }, { key: "confirm" });
    // On 2026-07-28 this is the retry: the state must have come back in
    // requestState. Earlier revisions answer within one run.
    const ok = kept === CONFIRM_STATE || (extra.revision < "2026-07-28" && extra.inputState === CONFIRM_STATE);
    return text(`${ok ? "state-ok" : "state-missing"}: confirmed=${field(res, "ok")}`);
  });
  fixed(server, "test_input_required_result_request_state", "Asks for a confirmation and keeps state between the rounds (requestState)", confirm);
  fixed(server, "test_input_required_result_tampered_state", "Like the request-state tool; a requestState changed by the client is refused", confirm);
  fixed(server, "test_input_required_result_multiple_inputs", "Asks for a name, a greeting and the roots in one round", asking(async (extra) => {
    const got = await extra.ask({
      user_name: { method: "elicitation/create", params: { message: ASK_NAME, requestedSchema: stringForm("name") } },
      greeting: { method: "sampling/createMessage", params: sampling(GREETING_REQUEST, 50) },
      client_roots: { method: "roots/list" },
    });
    const { user_name: name, greeting, client_roots: roots } = got;
    if (!isRecord(name.content ?? {}) || !(roots.roots === undefined || Array.isArray(roots.roots))) {
      return { ...text("the client's answers are malformed"), isError: true };
    }
    return text(`Name: ${field(name, "name")}; greeting: ${sampledText(greeting)}; roots: ${rootList(roots)}`);
  }));
  fixed(server, "test_input_required_result_multi_round", "Asks for a name, then for a favorite color, over two rounds", asking(async (extra) => {
    const name = await extra.elicit(ASK_NAME, stringForm("name"), { key: "user_name" });
    const color = await extra.elicit(ASK_COLOR, stringForm("color"), { key: "favorite_color" });
    return text(`${field(name, "name")} likes ${field(color, "color")}`);
  }));
  fixed(server, "test_input_required_result_capabilities", "Asks only for the input kinds the client declared (elicitation, sampling, roots)", asking(async (extra) => {
    const want = {};
    if (extra.declared("elicitation/create")) {
      want.user_name = { method: "elicitation/create", params: { message: ASK_NAME, requestedSchema: stringForm("name") } };
    }
    if (extra.declared("sampling/createMessage")) {
      want.capital_question = { method: "sampling/createMessage", params: sampling(CAPITAL_QUESTION, 100) };
    }
    if (extra.declared("roots/list")) {
      want.client_roots = { method: "roots/list" };
    }
    if (Object.keys(want).length === 0) {
      return text("The client declared no input capability");
    }
    const got = await extra.ask(want);
    return text("Received input for: " + Object.keys(got).sort().join(", "));
  }));
}

function addDiagnosticInputTools(server) {
  fixed(server, "test_missing_capability", "Needs sampling: a client that did not declare it gets -32021 (2026-07-28) or an error result", asking(async (extra) => {
    const res = await extra.sample(sampling("Say hello", 20), { key: "sampling" });
    return text("LLM response: " + sampledText(res));
  }));
  fixed(server, "test_streaming_elicitation", "Logs a message, then asks for the user's name; the answer stream never carries a request", asking(async (extra) => {
    extra.log("info", "asking for the user's name", NAME);
    const res = await extra.elicit(ASK_NAME, stringForm("name"), { key: "user_name" });
    return text("Hello, " + field(res, "name") + "!");
  }));
}

const isRecord = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

// ---- The task tools (examples/everything/tasks.go) -----------------------
// They exercise the 2026-07-28 tasks extension: a call whose request
// declares io.modelcontextprotocol/tasks is answered with a task handle, and
// the client polls tasks/get for the outcome. Everywhere else (older
// revisions, requests without the extension) the same handlers run as
// ordinary calls.

/** A number as Go's strconv.FormatFloat(x, 'f', -1, 64) writes it: shortest digits, never an exponent. */
export function goFloat(x) {
  if (Object.is(x, -0)) {
    return "-0";
  }
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(String(x));
  if (m === null) {
    return String(x);
  }
  const [, sign, lead, frac = "", exp] = m;
  const digits = lead + frac;
  const e = Number(exp);
  if (e < 0) {
    return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  }
  return e >= frac.length ? sign + digits + "0".repeat(e - frac.length) : `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
}

/** An answer of ctx.ask as Go decodes it into an ElicitResult, or undefined when that would fail. */
function elicitResult(answer) {
  const { action = "", content } = answer;
  if (typeof action !== "string" || !(content == null || isRecord(content))) {
    return undefined;
  }
  return { action, content: content ?? undefined };
}

function addTaskTools(server) {
  server.registerTool(
    "greet",
    {
      description: "Greets by name at once (never a task)",
      inputSchema: {
        type: "object",
        properties: { name: { type: "string", description: "who to greet" } },
        required: ["name"],
        additionalProperties: false,
      },
    },
    ({ name }) => `Hello, ${name}!`,
  );
  server.registerTool(
    "slow_compute",
    {
      description: "Works for the given seconds, as a task when the client takes tasks",
      inputSchema: {
        type: "object",
        properties: {
          seconds: { type: "number", description: "how long to work, in seconds (0: at once)" },
          label: { type: "string", description: "a name for the job, echoed in the result" },
        },
        required: ["seconds"],
        additionalProperties: false,
      },
      task: "optional",
    },
    async ({ seconds, label }, extra) => {
      if (seconds < 0 || seconds > 3600) {
        throw new Error("seconds must be between 0 and 3600");
      }
      await pause(seconds * 1000, undefined, { signal: extra.signal });
      return `Computed ${label || "job"} in ${goFloat(seconds)}s`;
    },
  );
  server.registerTool(
    "failing_job",
    { description: "A task that ends, after about a second, with a tool error", inputSchema: NO_ARGS, task: "required" },
    async (_args, extra) => {
      await pause(1000, undefined, { signal: extra.signal });
      throw new Error("failing_job failed, as it always does");
    },
  );
  server.registerTool(
    "protocol_error_job",
    { description: "A task whose handler panics: it fails with a JSON-RPC error", inputSchema: NO_ARGS, task: "optional" },
    () => {
      // Go's handler panics; the core answers a panicking handler with this
      // JSON-RPC error, which an McpError gives here.
      throw new McpError(-32603, "internal error: the handler failed", { reason: "panic" });
    },
  );
  server.registerTool(
    "confirm_delete",
    {
      description: "Asks the user to confirm (elicitation), then deletes the file",
      inputSchema: {
        type: "object",
        properties: { filename: { type: "string", description: "the file to delete once the user confirms" } },
        required: ["filename"],
        additionalProperties: false,
      },
      task: "optional",
    },
    ({ filename }, extra) =>
      asking(async () => {
        const res = await extra.elicit(
          `Delete ${filename}?`,
          { type: "object", properties: { confirm: { type: "boolean" } }, required: ["confirm"] },
          { key: "confirm" },
        );
        return text(res.action === "accept" && res.content?.confirm === true ? `Deleted ${filename}` : `Kept ${filename}`);
      })(extra),
  );
  server.registerTool(
    "multi_input",
    { description: "Asks two questions at once (elicitation), then joins the answers", inputSchema: NO_ARGS, task: "optional" },
    (_args, extra) =>
      asking(async () => {
        const got = await extra.ask({
          first: { method: "elicitation/create", params: { message: "What should the first item be called?", requestedSchema: stringForm("name") } },
          second: { method: "elicitation/create", params: { message: "What should the second item be called?", requestedSchema: stringForm("name") } },
        });
        const first = elicitResult(got.first);
        const second = elicitResult(got.second);
        if (first === undefined || second === undefined) {
          return { ...text("malformed answer: an elicitation result needs a string action and an object content"), isError: true };
        }
        return text(`Got ${field(first, "name")} and ${field(second, "name")}`);
      })(extra),
  );
  // Settles its question synchronously (input_required on 2026-07-28), as
  // the extension asks, and only then becomes a task.
  server.registerTool(
    "test_tool_with_task",
    {
      description: "Asks the user's name first, then goes on as a task that greets them",
      inputSchema: NO_ARGS,
      task: { support: "required", start: "handler" },
    },
    (_args, extra) =>
      asking(async () => {
        const res = await extra.elicit(ASK_NAME, stringForm("name"), { key: "user_name" });
        // Where the call cannot become a task (an older revision, the
        // server's task limits), it answers as an ordinary call.
        extra.startTask();
        await pause(200, undefined, { signal: extra.signal });
        return text(`Hello, ${field(res, "name")}! (greeted by a task)`);
      })(extra),
  );
}

async function main() {
  const { values } = parseArgs({ options: { http: { type: "string" } }, strict: true });
  const server = createServer();
  const stop = () => void server.close();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  if (values.http === undefined) {
    await server.connectStdio();
  } else {
    const at = values.http.lastIndexOf(":");
    if (at < 0) {
      throw new Error(`--http wants HOST:PORT, got ${JSON.stringify(values.http)}`);
    }
    const host = values.http.slice(0, at).replace(/^\[(.*)\]$/, "$1");
    const url = await server.listen({ host, port: Number(values.http.slice(at + 1)) });
    process.stderr.write(`polymcp: serving ${url}\n`);
  }
  await server.closed;
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main().catch((err) => {
    process.stderr.write(`everything: ${err.stack ?? err}\n`);
    process.exitCode = 1;
  });
}
