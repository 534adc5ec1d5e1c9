#!/usr/bin/env node
// The everything example server, written with polymcp's public Node API:
// the same tools, resources, templates and prompts, with the same names and
// texts, as examples/everything/everything.go (the conformance fixture plus
// echo and sleep).
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

import { McpServer, ResourceTemplate, version } from "polymcp";

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
      $anchor: "address",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    kind: { type: "string" },
    id: { anyOf: [{ type: "string" }, { type: "integer" }] },
  },
  allOf: [{ required: ["name"] }],
  if: { properties: { kind: { const: "business" } }, required: ["kind"] },
  then: { required: ["address"] },
  else: {},
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
