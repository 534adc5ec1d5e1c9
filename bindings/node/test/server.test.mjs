// McpServer over a JS stand-in for the addon: what it registers, how it
// answers each call (exactly once), cancellation, notifications and close.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { z } from "zod";

import { McpError, McpServer, ResourceTemplate, Server } from "../dist/index.js";
import { CallKind, FakeNative } from "./fake_native.mjs";

const fake = new FakeNative();
let restore;
before(() => (restore = fake.install()));
after(() => restore());

function newServer(options) {
  const server = new McpServer({ name: "t", version: "1.0.0" }, options);
  return { server, core: fake.servers.at(-1) };
}

describe("registration", () => {
  it("sends the server info and options", () => {
    const { core } = newServer({ instructions: "use it", maxConcurrency: 4 });
    assert.deepEqual(core.options, { name: "t", version: "1.0.0", instructions: "use it", max_concurrency: 4 });
  });

  it("takes identity and options in one object as Server, with the short method names", async () => {
    const server = new Server({ name: "s", version: "2.0.0", title: "S", instructions: "short", pageSize: 10 });
    const core = fake.servers.at(-1);
    assert.deepEqual(core.options, { name: "s", version: "2.0.0", title: "S", instructions: "short", page_size: 10 });
    assert.deepEqual(server.serverInfo, { name: "s", version: "2.0.0", title: "S" });
    server.tool("t", { description: "d" }, () => "ok");
    server.resource("test://r", { mimeType: "text/plain" }, () => "r");
    server.resource("test://named/{id}", { name: "named" }, () => "n");
    server.prompt("p", {}, () => "hi");
    assert.deepEqual([...core.catalogue.values()], [
      JSON.parse('{"kind":"tool","name":"t","description":"d","inputSchema":{"type":"object","properties":{}}}'),
      JSON.parse('{"kind":"resource","uri":"test://r","name":"test://r","mimeType":"text/plain"}'),
      JSON.parse('{"kind":"template","uriTemplate":"test://named/{id}","name":"named"}'),
      JSON.parse('{"kind":"prompt","name":"p"}'),
    ]);
    await server.serveStdio();
    assert.equal(core.serving, "stdio");
  });

  it("sends tools as the protocol's Tool objects", () => {
    const { server, core } = newServer();
    server.registerTool("plain", { description: "d", inputSchema: { type: "object", properties: { a: { type: "string" } } } }, () => "");
    server.registerTool(
      "typed",
      { title: "T", inputSchema: { text: z.string() }, outputSchema: { n: z.number() }, annotations: { readOnlyHint: true } },
      () => "",
    );
    server.registerTool("bare", {}, () => "");
    assert.deepEqual([...core.catalogue.values()], [
      JSON.parse('{"kind":"tool","name":"plain","description":"d","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}'),
      JSON.parse('{"kind":"tool","name":"typed","title":"T","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},' +
        '"outputSchema":{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]},"annotations":{"readOnlyHint":true}}'),
      JSON.parse('{"kind":"tool","name":"bare","inputSchema":{"type":"object","properties":{}}}'),
    ]);
  });

  it("tells fixed resources from templates", () => {
    const { server, core } = newServer();
    server.registerResource("a", "test://a", { mimeType: "text/plain", size: 3 }, () => "abc");
    server.registerResource("b", "test://b/{id}", { description: "by id" }, () => "");
    server.registerResource("c", new ResourceTemplate("test://c{?q}"), {}, () => "");
    server.registerResource("d", new ResourceTemplate("test://d/{x}", { complete: { x: () => [] } }), {}, () => "");
    assert.deepEqual([...core.catalogue.values()], [
      JSON.parse('{"kind":"resource","uri":"test://a","name":"a","mimeType":"text/plain","size":3}'),
      JSON.parse('{"kind":"template","uriTemplate":"test://b/{id}","name":"b","description":"by id"}'),
      JSON.parse('{"kind":"template","uriTemplate":"test://c{?q}","name":"c"}'),
      JSON.parse('{"kind":"template","uriTemplate":"test://d/{x}","name":"d"}'),
      JSON.parse('{"kind":"completer","type":"ref/resource","uri":"test://d/{x}"}'),
    ]);
  });

  it("lists prompt arguments from a schema shape", () => {
    const { server, core } = newServer();
    server.registerPrompt("p", { argsSchema: { city: z.string().describe("where"), day: z.string().optional() } }, () => "");
    server.registerPrompt("q", { arguments: [{ name: "x", required: true }] }, () => "");
    assert.deepEqual([...core.catalogue.values()], [
      JSON.parse('{"kind":"prompt","name":"p","arguments":[{"name":"city","description":"where","required":true},{"name":"day"}]}'),
      JSON.parse('{"kind":"prompt","name":"q","arguments":[{"name":"x","required":true}]}'),
    ]);
  });

  it("removes a prompt together with its completer", () => {
    const { server, core } = newServer();
    const prompt = server.registerPrompt("p", { complete: { a: () => [] } }, () => "");
    assert.equal(core.catalogue.size, 2);
    prompt.remove();
    assert.equal(core.catalogue.size, 0);
  });

  it("removes, disables and enables under fresh tags", () => {
    const { server, core } = newServer();
    const tool = server.registerTool("x", {}, () => "");
    const first = core.tagOf("tool", "x");
    tool.disable();
    assert.equal(tool.enabled, false);
    assert.equal(core.catalogue.size, 0);
    tool.enable();
    assert.equal(tool.enabled, true);
    assert.notEqual(core.tagOf("tool", "x"), first);
    tool.remove();
    tool.remove();
    assert.equal(core.catalogue.size, 0);
  });

  it("refuses bad input", () => {
    const { server } = newServer();
    assert.throws(() => new McpServer({ name: "t" }), TypeError);
    assert.throws(() => server.registerTool("", {}, () => ""), TypeError);
    assert.throws(() => server.registerTool("x", { inputSchema: "nope" }, () => ""), TypeError);
    assert.throws(() => new ResourceTemplate("test://{x}", { list: () => [] }), TypeError);
  });
});

describe("tool calls", () => {
  const { server, core } = newServer();
  server.registerTool("echo", { inputSchema: { text: z.string().min(1) } }, ({ text }) => text);
  server.registerTool("fail", {}, () => {
    throw new Error("it broke");
  });
  server.registerTool("rpc", {}, async () => {
    throw new McpError(-32042, "needs a url");
  });
  server.registerTool("meta", {}, (_args, extra) => ({ meta: extra._meta, revision: extra.revision }));
  const call = (name, args, meta) =>
    core.call(CallKind.Tool, core.tagOf("tool", name), { name, arguments: args, ...(meta && { _meta: meta }) }).done;

  const cases = [
    ["a string result", "echo", { text: "hi" }, '{"result":{"content":[{"type":"text","text":"hi"}]}}'],
    ["a thrown Error is an isError result", "fail", {}, '{"result":{"content":[{"type":"text","text":"it broke"}],"isError":true}}'],
    ["an McpError is a JSON-RPC error", "rpc", {}, '{"error":{"code":-32042,"message":"needs a url"}}'],
    ["a zod refinement failure is an isError result", "echo", { text: "" }, null],
  ];
  for (const [name, tool, args, want] of cases) {
    it(name, async () => {
      const got = await call(tool, args);
      if (want === null) {
        assert.equal(got.result.isError, true);
        assert.match(got.result.content[0].text, /^invalid arguments of tool echo: text: /);
      } else {
        assert.deepEqual(got, JSON.parse(want));
      }
    });
  }

  it("gives _meta and the revision from the params", async () => {
    const params = { name: "meta", arguments: {}, revision: "2025-06-18", _meta: { progressToken: 7 } };
    assert.deepEqual(await core.call(CallKind.Tool, core.tagOf("tool", "meta"), params).done, JSON.parse(
      '{"result":{"content":[{"type":"text","text":"{\\"meta\\":{\\"progressToken\\":7},\\"revision\\":\\"2025-06-18\\"}"}],' +
        '"structuredContent":{"meta":{"progressToken":7},"revision":"2025-06-18"}}}'));
  });

  it("sends a tool's one text item as its text, and any other result as JSON", async () => {
    server.registerTool("full", {}, () => ({ content: [{ type: "text", text: "x" }], isError: true }));
    server.registerTool("surrogate", {}, () => "lone \ud800");
    const before = fake.texts.length;
    assert.deepEqual(await call("echo", { text: 'q " é \u0000' }), { result: { content: [{ type: "text", text: 'q " é \u0000' }] } });
    assert.equal(fake.texts.length, before + 1);
    assert.deepEqual(await call("full", {}), { result: { content: [{ type: "text", text: "x" }], isError: true } });
    // UTF-8 cannot carry a lone surrogate: JSON escapes it.
    assert.deepEqual(await call("surrogate", {}), { result: { content: [{ type: "text", text: "lone \ud800" }] } });
    assert.equal(fake.texts.length, before + 1);
  });

  it("answers a call for a removed entry as unknown", async () => {
    const got = await core.call(CallKind.Tool, 9999, { name: "gone" }).done;
    assert.deepEqual(got, { error: { code: -32602, message: 'unknown tool "gone"' } });
  });

  it("answers a handler's plain value in the same turn, and a promise once it settles", async () => {
    server.registerTool("plain", {}, () => "now");
    server.registerTool("later", {}, async () => "later");
    const deliver = (name) => core.call(CallKind.Tool, core.tagOf("tool", name), { name, arguments: {} }, true);
    // Checked right after the event callback returned, before any microtask ran.
    assert.deepEqual(deliver("plain").state.answer, { result: { content: [{ type: "text", text: "now" }] } });
    const later = deliver("later");
    assert.equal(later.state.answer, undefined);
    assert.deepEqual(await later.done, { result: { content: [{ type: "text", text: "later" }] } });
  });

  it("answers 1,000 concurrent calls, each once", async () => {
    const answers = await Promise.all(Array.from({ length: 1000 }, (_, i) => call("echo", { text: `m${i}` })));
    answers.forEach((a, i) => assert.equal(a.result.content[0].text, `m${i}`));
  });
});

describe("notifications and cancellation", () => {
  const { server, core } = newServer();
  let started;
  server.registerTool("wait", {}, (_args, extra) => {
    started();
    return new Promise((_resolve, reject) => extra.signal.addEventListener("abort", () => reject(extra.signal.reason)));
  });
  server.registerTool("notify", {}, (_args, extra) => {
    extra.sendProgress(1, 2, "half");
    extra.sendProgress(2);
    extra.log("info", { step: 1 }, "me");
    assert.throws(() => extra.log("loud", "x"), TypeError);
    assert.throws(() => extra.sendProgress(Number.NaN), TypeError);
    return "ok";
  });

  it("aborts the signal on cancel and still answers once", async () => {
    const running = new Promise((resolve) => (started = resolve));
    const c = core.call(CallKind.Tool, core.tagOf("tool", "wait"), { name: "wait" });
    await running;
    core.cancel(c.id);
    const got = await c.done;
    assert.equal(got.result.isError, true);
  });

  it("sends progress and log through the call", async () => {
    const c = core.call(CallKind.Tool, core.tagOf("tool", "notify"), { name: "notify" });
    await c.done;
    assert.deepEqual(c.state.progress, [
      { progress: 1, total: 2, message: "half" },
      { progress: 2 },
      { level: "info", logger: "me", data: { step: 1 } },
    ]);
  });

  it("passes core diagnostics to onLog", async () => {
    const seen = [];
    const { core: logged } = newServer({ onLog: (level, msg) => seen.push([level, msg]) });
    logged.log(8, "disk full");
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(seen, [[8, "disk full"]]);
  });
});

describe("questions to the client", () => {
  const { server, core } = newServer();
  let outcome;
  server.registerTool("ask", {}, async (_args, extra) => {
    try {
      return (await extra.elicit("Name?", { type: "object", properties: {} }, { key: "k" })).action;
    } catch (err) {
      outcome = err;
      throw err;
    }
  });
  const asked = async () => {
    const n = fake.inputs.length;
    while (fake.inputs.length === n) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    return fake.inputs.at(-1);
  };

  it("hands the question to the core and resolves with its answer", async () => {
    const c = core.call(CallKind.Tool, core.tagOf("tool", "ask"), { name: "ask", revision: "2025-11-25" });
    const input = await asked();
    assert.deepEqual(input.requests, { k: { method: "elicitation/create", params: { message: "Name?", requestedSchema: { type: "object", properties: {} } } } });
    assert.equal(input.call, c.id);
    fake.answerInput(input, 0, '{"k":{"action":"decline"}}');
    assert.deepEqual((await c.done).result, { content: [{ type: "text", text: "decline" }] });
  });

  it("rejects with an AbortError as soon as the call is cancelled, before the core gives up the question", async () => {
    const c = core.call(CallKind.Tool, core.tagOf("tool", "ask"), { name: "ask", revision: "2025-11-25" });
    const input = await asked();
    core.cancel(c.id);
    const got = await c.done;
    assert.equal(outcome.name, "AbortError");
    assert.equal(got.result.isError, true);
    fake.answerInput(input, -10, "the call ended while waiting for input"); // late: ignored
    await new Promise((resolve) => setImmediate(resolve));
  });

  it("sends nothing when the core ended the call with input_required", async () => {
    const c = core.call(CallKind.Tool, core.tagOf("tool", "ask"), { name: "ask", revision: "2026-07-28" });
    fake.answerInput(await asked(), -8, "the client has yet to answer");
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(c.state.answer, undefined, "no answer: the core gave one");
    assert.equal(String(outcome), "polymcp: the call already ended (input_required)");
  });
});

describe("resources, prompts and completions", () => {
  const { server, core } = newServer();
  server.registerResource("fixed", "test://fixed", { mimeType: "text/plain" }, (uri) => `read ${uri.href}`);
  server.registerResource(
    "item",
    new ResourceTemplate("test://items/{id}", { complete: { id: (v) => ["a1", "a2", "b1"].filter((x) => x.startsWith(v)) } }),
    {},
    (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${id}` }] }),
  );
  server.registerResource("broken", "test://broken", {}, () => {
    throw new Error("disk gone");
  });
  server.registerPrompt(
    "greet",
    { argsSchema: { name: z.string() }, complete: { name: (v, ctx) => [`${v}-${ctx.arguments.lang ?? "en"}`] } },
    ({ name }) => `Hello ${name}`,
  );

  const cases = [
    ["a fixed resource", CallKind.Resource, ["resource", "test://fixed"], { uri: "test://fixed" },
      '{"result":{"contents":[{"uri":"test://fixed","text":"read test://fixed","mimeType":"text/plain"}]}}'],
    ["a template with its variables", CallKind.Resource, ["template", "test://items/{id}"], { uri: "test://items/7", variables: { id: "7" } },
      '{"result":{"contents":[{"uri":"test://items/7","text":"item 7"}]}}'],
    ["a failing resource is a JSON-RPC error", CallKind.Resource, ["resource", "test://broken"], { uri: "test://broken" },
      '{"error":{"code":-32603,"message":"disk gone"}}'],
    ["a prompt", CallKind.Prompt, ["prompt", "greet"], { name: "greet", arguments: { name: "Ada" } },
      '{"result":{"messages":[{"role":"user","content":{"type":"text","text":"Hello Ada"}}]}}'],
    ["a prompt argument's completion", CallKind.Complete, ["completer", "ref/prompt:greet"],
      { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "name", value: "x" }, context: { arguments: { lang: "fr" } } },
      '{"result":{"completion":{"values":["x-fr"]}}}'],
    ["a template variable's completion", CallKind.Complete, ["completer", "ref/resource:test://items/{id}"],
      { ref: { type: "ref/resource", uri: "test://items/{id}" }, argument: { name: "id", value: "a" } },
      '{"result":{"completion":{"values":["a1","a2"]}}}'],
    ["no completer completes nothing", CallKind.Complete, ["completer", "ref/prompt:greet"],
      { ref: { type: "ref/prompt", name: "greet" }, argument: { name: "other", value: "" } },
      '{"result":{"completion":{"values":[]}}}'],
  ];
  for (const [name, kind, [what, key], params, want] of cases) {
    it(name, async () => assert.deepEqual(await core.call(kind, core.tagOf(what, key), params).done, JSON.parse(want)));
  }
});

describe("close", () => {
  it("cancels calls in flight, frees the server and resolves", async () => {
    const { server, core } = newServer();
    let aborted = false;
    server.registerTool("wait", {}, (_args, extra) =>
      new Promise((resolve) => extra.signal.addEventListener("abort", () => resolve((aborted = true) && "stopped"))));
    await server.connectStdio();
    assert.equal(core.serving, "stdio");
    const c = core.call(CallKind.Tool, core.tagOf("tool", "wait"), { name: "wait" });
    await new Promise((resolve) => setImmediate(resolve));
    await server.close();
    assert.equal(aborted, true);
    assert.equal(core.freed, true);
    assert.ok((await c.done).result);
    await server.close();
    assert.throws(() => server.registerTool("late", {}, () => ""), /closed/);
    await assert.rejects(server.listen(), /closed/);
  });

  it("is async-disposable (await using)", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    const core = fake.servers.at(-1);
    await server.connectStdio();
    await server[Symbol.asyncDispose]();
    assert.equal(core.freed, true);
  });
});
