// polymcp's Client (the C ABI's client half, ABI 1.8) against real servers:
// the everything server (build/polymcp everything) over stdio and over
// HTTP, an McpServer of this process in memory, and the official
// TypeScript SDK's server (fixtures/sdk_server.mjs) over stdio and HTTP.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import http from "node:http";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, describe, it } from "node:test";
import { setTimeout as pause } from "node:timers/promises";
import { fileURLToPath } from "node:url";

import { FakeNative } from "./fake_native.mjs";
import { Status, native, setNativeForTesting } from "../dist/native.js";
import {
  Client,
  ConnectionClosedError,
  McpError,
  McpServer,
  NativeError,
  OutputSchemaError,
  RequestTimeoutError,
  Subscription,
} from "polymcp";

const POLYMCP = fileURLToPath(new URL("../../../build/polymcp", import.meta.url));
const SDK_SERVER = fileURLToPath(new URL("./fixtures/sdk_server.mjs", import.meta.url));
const PKG = fileURLToPath(new URL("..", import.meta.url));
// Failure bounds only: a loaded 2-core machine may be slow, never this slow.
const BOUND_MS = 10_000;

const info = { name: "client-test", version: "1.0.0" };

// Node 20 has no `await using`: clients made with track() close after each test.
const tracked = [];
const track = (client) => (tracked.push(client), client);
afterEach(async () => {
  await Promise.all(tracked.splice(0).map((c) => c.close()));
});
const text = (r) => r.content.map((c) => c.text).join("");

/** Starts a program that prints "serving <url>" on stderr; resolves to { url, stop }. */
async function serveHttp(cmd, args) {
  const child = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL from ${cmd} within ${BOUND_MS} ms: ${err}`)), BOUND_MS);
    child.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
      const m = /serving (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.on("exit", (code) => reject(new Error(`${cmd} exited (${code}): ${err}`)));
  });
  return {
    url,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill();
        await exited;
      }
    },
  };
}

/** An everything server over HTTP for the whole file. */
let everythingHttp;
before(async () => {
  assert.ok(existsSync(POLYMCP), `${POLYMCP} is missing: make build at the top first`);
  everythingHttp = await serveHttp(POLYMCP, ["everything", "--http", "127.0.0.1:0"]);
});
after(async () => {
  await everythingHttp?.stop();
});

const stdioEverything = () => ({ command: POLYMCP, args: ["everything"] });
const httpEverything = () => ({ url: everythingHttp.url });

/** The checks every connection to the everything server passes. */
async function exercise(client) {
  assert.equal(client.getServerVersion().name, "polymcp-everything");
  assert.ok(client.getServerCapabilities().tools, "tools capability");
  const { tools } = await client.listTools();
  assert.ok(tools.length > 30, `${tools.length} tools`);
  assert.ok(tools.some((t) => t.name === "echo" && t.inputSchema.required?.[0] === "text"));
  const echoed = await client.callTool({ name: "echo", arguments: { text: "hi" } });
  assert.deepEqual(echoed.content, [{ type: "text", text: "hi" }]);
  const failed = await client.callTool({ name: "test_error_handling" });
  assert.equal(failed.isError, true);

  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === "test://static-text"));
  const read = await client.readResource({ uri: "test://static-text" });
  assert.equal(read.contents[0].text, "This is the content of the static text resource.");
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((t) => t.uriTemplate), ["test://template/{id}/data"]);

  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === "test_prompt_with_arguments"));
  const prompt = await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } });
  assert.equal(prompt.messages[0].content.text, "Prompt with arguments: arg1='a', arg2='b'");
  const done = await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "pa" } });
  assert.deepEqual(done.completion.values, ["paris", "park", "party"]);

  if (client.protocolVersion < "2026-07-28") {
    // 2026-07-28 has no ping.
    assert.deepEqual(Object.keys(await client.ping()).filter((k) => k !== "_meta"), []);
  }
  const raw = await client.request("tools/list");
  assert.equal(raw.tools.length, tools.length);

  await assert.rejects(client.callTool({ name: "no_such_tool", arguments: {} }), (err) => {
    assert.ok(err instanceof McpError, String(err));
    assert.equal(err.code, -32602);
    return true;
  });
}

describe("Client against the everything server", () => {
  for (const [name, target] of [
    ["stdio", stdioEverything],
    ["HTTP", httpEverything],
  ]) {
    it(`uses every kind of request over ${name}`, async () => {
      const client = new Client(info);
      const result = await client.connect(target());
      try {
        assert.equal(result.protocolVersion, "2026-07-28");
        assert.equal(client.protocolVersion, "2026-07-28");
        await exercise(client);
      } finally {
        await client.close();
      }
    });
  }

  for (const revision of ["2025-03-26", "2025-11-25", "2026-07-28"]) {
    it(`speaks a pinned ${revision} over HTTP`, async () => {
      const client = track(new Client(info, { revision }));
      await client.connect(httpEverything());
      assert.equal(client.protocolVersion, revision);
      await exercise(client);
    });
  }

  it("speaks a pinned 2025-03-26 over stdio", async () => {
    const client = track(new Client(info, { revision: "2025-03-26" }));
    await client.connect(stdioEverything());
    assert.equal(client.protocolVersion, "2025-03-26");
    const r = await client.callTool({ name: "echo", arguments: { text: "old" } });
    assert.equal(text(r), "old");
  });

  it("reports progress of a call, in order, before its result", async () => {
    const client = track(new Client(info));
    await client.connect(httpEverything());
    const progress = [];
    const r = await client.callTool({ name: "sleep", arguments: { ms: 100 } }, { onprogress: (p) => progress.push(p) });
    assert.equal(text(r), "slept");
    assert.deepEqual(
      progress.map(({ progress, total }) => ({ progress, total })),
      Array.from({ length: 10 }, (_, i) => ({ progress: 10 * (i + 1), total: 100 })),
    );
  });

  it("cancels a call when its signal aborts, and goes on serving", async () => {
    const client = track(new Client(info));
    await client.connect(httpEverything());
    const controller = new AbortController();
    const started = Date.now();
    const call = client.callTool({ name: "sleep", arguments: { ms: 60_000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("test cancels")), 100);
    await assert.rejects(call, (err) => {
      assert.equal(err.name, "AbortError");
      assert.equal(err.cause?.message, "test cancels");
      return true;
    });
    assert.ok(Date.now() - started < BOUND_MS);
    // An already aborted signal sends nothing.
    await assert.rejects(client.ping({ signal: AbortSignal.abort() }), { name: "AbortError" });
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "after" } })), "after");
  });

  it("times a call out (RequestTimeoutError, -32001) and goes on serving", async () => {
    const client = track(new Client(info));
    await client.connect(httpEverything());
    await assert.rejects(client.callTool({ name: "sleep", arguments: { ms: 60_000 } }, { timeout: 200 }), (err) => {
      assert.ok(err instanceof RequestTimeoutError, String(err));
      assert.ok(err instanceof McpError);
      assert.equal(err.code, -32001);
      return true;
    });
    // The client-wide timeout applies too.
    const short = track(new Client(info, { timeout: 200 }));
    await short.connect(httpEverything());
    await assert.rejects(short.callTool({ name: "sleep", arguments: { ms: 60_000 } }), RequestTimeoutError);
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "still" } })), "still");
  });

  it("ends calls in flight with ConnectionClosedError on close", async () => {
    for (const target of [httpEverything(), stdioEverything()]) {
      const client = new Client(info);
      await client.connect(target);
      const calls = Array.from({ length: 5 }, () => client.callTool({ name: "sleep", arguments: { ms: 60_000 } }));
      await pause(50);
      const [settled] = await Promise.all([Promise.allSettled(calls), client.close()]);
      for (const s of settled) {
        assert.equal(s.status, "rejected");
        assert.ok(s.reason instanceof ConnectionClosedError, String(s.reason));
      }
      await assert.rejects(client.ping(), ConnectionClosedError);
      await client.close(); // a second close is fine
    }
  });

  for (const [transport, target] of [["HTTP", httpEverything], ["stdio", stdioEverything]]) {
    it(`makes 200 calls at once over ${transport}`, async () => {
      const client = track(new Client(info));
      await client.connect(target());
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => client.callTool({ name: "echo", arguments: { text: `m${i}` } })),
      );
      results.forEach((r, i) => assert.equal(text(r), `m${i}`));
    });
  }

  it("receives log messages and list_changed notifications", async () => {
    const logs = [];
    const notes = [];
    const client = track(new Client(info, {
      revision: "2025-11-25",
      onLog: (m) => logs.push(m),
      onNotification: (method) => notes.push(method),
    }));
    await client.connect(httpEverything());
    await client.setLoggingLevel("debug");
    const r = await client.callTool({ name: "test_tool_with_logging" });
    assert.equal(text(r), "Tool with logging executed successfully");
    assert.deepEqual(
      logs.map((m) => m.data),
      ["Tool execution started", "Tool processing data", "Tool execution completed"],
    );
    await client.callTool({ name: "test_trigger_tool_change" });
    const until = Date.now() + BOUND_MS;
    while (!notes.includes("notifications/tools/list_changed") && Date.now() < until) {
      await pause(10);
    }
    assert.ok(notes.includes("notifications/tools/list_changed"), notes.join());
    assert.ok(notes.includes("notifications/message"));
  });

  it("ends calls and reports the end when the server goes away by itself", async () => {
    const events = [];
    const client = track(new Client(info));
    client.onerror = (err) => events.push(`error ${err.name}`);
    client.onclose = () => events.push("close");
    // The server exits after 1 s, in the middle of a 60 s sleep.
    await client.connect({ command: "sh", args: ["-c", `exec timeout 1 '${POLYMCP}' everything`] });
    await assert.rejects(client.callTool({ name: "sleep", arguments: { ms: 60_000 } }), ConnectionClosedError);
    const until = Date.now() + BOUND_MS;
    while (!events.includes("close") && Date.now() < until) {
      await pause(10);
    }
    assert.deepEqual(events, ["error ConnectionClosedError", "close"]);
    await assert.rejects(client.ping(), ConnectionClosedError);
  });

  it("rejects a connection that cannot come up", async () => {
    const client = new Client(info);
    await assert.rejects(client.connect({ url: "http://127.0.0.1:1/mcp" }), (err) => {
      assert.ok(err instanceof NativeError, String(err));
      return true;
    });
    await client.close();
    await assert.rejects(new Client(info).callTool({ name: "echo" }), /not connected/);
    assert.throws(() => new Client({ name: "x" }), TypeError);
  });
});

// The server asks (sampling, elicitation, roots): on 2025-11-25 as requests
// during the call, on 2026-07-28 as input_required rounds the core answers
// with the same handlers.
describe("Client answers the server's questions", () => {
  const asked = [];
  const handlers = {
    onSampling: async (params, extra) => {
      asked.push(extra.method);
      assert.ok(extra.signal instanceof AbortSignal);
      const question = params.messages[0].content.text;
      return { role: "assistant", content: { type: "text", text: `answer to ${question}` }, model: "test-model" };
    },
    onElicitation: async (params) => {
      asked.push("elicitation/create");
      const props = Object.keys(params.requestedSchema?.properties ?? {});
      const content = {};
      for (const p of props) content[p] = p === "ok" ? true : `my ${p}`;
      return { action: "accept", content };
    },
    roots: async () => {
      asked.push("roots/list");
      return [{ uri: "file:///work", name: "work" }];
    },
  };

  for (const revision of ["2025-11-25", "2026-07-28"]) {
    for (const [name, target] of [
      ["HTTP", httpEverything],
      ["stdio", stdioEverything],
    ]) {
      it(`on ${revision} over ${name}`, async () => {
        asked.length = 0;
        const client = track(new Client(info, { revision, ...handlers }));
        await client.connect(target());
        if (revision !== "2026-07-28") {
          const sampled = await client.callTool({ name: "test_sampling", arguments: { prompt: "2+2?" } });
          assert.equal(text(sampled), "LLM response: answer to 2+2?");
          const elicited = await client.callTool({ name: "test_elicitation", arguments: { message: "who?" } });
          assert.match(text(elicited), /accept/);
          assert.match(text(elicited), /my username/);
        }
        const greeted = await client.callTool({ name: "test_input_required_result_elicitation" });
        assert.equal(text(greeted), "Hello, my name!");
        const sampled = await client.callTool({ name: "test_input_required_result_sampling" });
        assert.match(text(sampled), /^Sampled answer: answer to /);
        const roots = await client.callTool({ name: "test_input_required_result_list_roots" });
        assert.match(text(roots), /file:\/\/\/work/);
        const state = await client.callTool({ name: "test_input_required_result_request_state" });
        assert.equal(text(state), "state-ok: confirmed=true");
        assert.ok(asked.includes("sampling/createMessage") && asked.includes("elicitation/create") && asked.includes("roots/list"));
      });
    }
  }

  it("follows calls that became tasks (2026-07-28, tasks: true)", async () => {
    const client = track(new Client(info, { revision: "2026-07-28", tasks: true, ...handlers }));
    await client.connect(httpEverything());
    const computed = await client.callTool({ name: "slow_compute", arguments: { seconds: 0.1, label: "sum" } });
    assert.equal(text(computed), "Computed sum in 0.1s");
    const greeted = await client.callTool({ name: "test_tool_with_task" });
    assert.equal(text(greeted), "Hello, my name! (greeted by a task)");
    const failed = await client.callTool({ name: "failing_job" });
    assert.equal(failed.isError, true);
    assert.match(text(failed), /failing_job failed/);
    // Without the extension a required task is refused.
    const plain = track(new Client(info, { revision: "2026-07-28" }));
    await plain.connect(httpEverything());
    await assert.rejects(plain.callTool({ name: "failing_job" }), (err) => err instanceof McpError && err.code === -32021);
  });

  it("a handler's McpError reaches the server as a refusal", async () => {
    const client = track(new Client(info, {
      revision: "2025-11-25",
      onSampling: () => {
        throw new McpError(-32600, "no model here");
      },
      roots: [{ uri: "file:///static" }],
    }));
    await client.connect(httpEverything());
    const r = await client.callTool({ name: "test_sampling", arguments: { prompt: "x" } });
    assert.equal(r.isError, true);
    assert.match(text(r), /no model here/);
    const roots = await client.callTool({ name: "test_input_required_result_list_roots" });
    assert.match(text(roots), /file:\/\/\/static/);
  });
});

describe("Client declares its capabilities (ClientOptions.capabilities)", () => {
  const declared = {
    elicitation: { form: {}, url: {} },
    experimental: { "polymcp.test/probe": { level: 2 } },
  };
  const onElicitation = async () => ({ action: "accept", content: { name: "Ada" } });

  for (const revision of ["2025-11-25", "2026-07-28"]) {
    it(`the everything server asks for what was declared (${revision})`, async () => {
      const client = track(new Client(info, { revision, onElicitation, capabilities: declared }));
      await client.connect(httpEverything());
      // The tool asks only for the input kinds the client declared.
      const r = await client.callTool({ name: "test_input_required_result_capabilities" });
      assert.equal(text(r), "Received input for: user_name");
      const none = track(new Client(info, { revision, capabilities: { experimental: { x: {} } } }));
      await none.connect(httpEverything());
      const nothing = await none.callTool({ name: "test_input_required_result_capabilities" });
      assert.equal(text(nothing), "The client declared no input capability");
    });

    it(`an McpServer sees them as declared (${revision})`, async () => {
      const s = new McpServer({ name: "caps", version: "1" });
      s.registerTool("caps", {}, (_args, extra) => JSON.stringify(extra.clientCapabilities));
      const caps = async (options) => {
        const client = track(new Client(info, { revision, ...options }));
        await client.connect(s);
        return JSON.parse(text(await client.callTool({ name: "caps" })));
      };
      // Declared as they are, over the handlers' defaults; tasks adds its extension.
      assert.deepEqual(await caps({
        onElicitation,
        onSampling: async () => ({ role: "assistant", content: { type: "text", text: "x" }, model: "m" }),
        roots: [],
        tasks: true,
        capabilities: { ...declared, sampling: { tools: {} }, roots: { listChanged: false }, extensions: { "polymcp.test/ext": {} } },
      }), {
        elicitation: { form: {}, url: {} },
        sampling: { tools: {} },
        roots: { listChanged: false },
        experimental: { "polymcp.test/probe": { level: 2 } },
        extensions: { "polymcp.test/ext": {}, "io.modelcontextprotocol/tasks": {} },
      });
      // A handler alone declares its capability's default.
      assert.deepEqual(await caps({ onElicitation, roots: [] }), { elicitation: {}, roots: { listChanged: true } });
      assert.deepEqual(await caps({}), {});
    });
  }

  it("refuses sampling, elicitation or roots declared without its handler", async () => {
    for (const [name, handler] of [["sampling", "onSampling"], ["elicitation", "onElicitation"], ["roots", "roots"]]) {
      const client = track(new Client(info, { capabilities: { [name]: {} } }));
      await assert.rejects(client.connect(httpEverything()), (err) => {
        assert.ok(err instanceof TypeError, String(err));
        assert.match(err.message, new RegExp(`declares ${name}, which needs the ${handler} handler`));
        return true;
      });
    }
    // A member the protocol does not have is the core's to refuse.
    const odd = track(new Client(info, { capabilities: { telepathy: {} } }));
    await assert.rejects(odd.connect(httpEverything()), (err) => err instanceof NativeError && /unknown field "telepathy"/.test(err.message));
  });
});

describe("Client against an McpServer of this process (memory)", () => {
  function server() {
    const s = new McpServer({ name: "in-process", version: "2.0.0" }, { instructions: "be nice" });
    s.seen = [];
    s.registerTool(
      "echo",
      { inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
      ({ text }) => text,
    );
    s.registerTool("wait", {}, (_args, extra) => {
      s.seen.push(extra.signal);
      return new Promise((resolve) => extra.signal.addEventListener("abort", () => resolve("aborted"), { once: true }));
    });
    s.registerTool(
      "typed",
      {
        inputSchema: { type: "object", properties: { good: { type: "boolean" } } },
        outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
      },
      ({ good }) => ({ content: [{ type: "text", text: "{}" }], structuredContent: good ? { n: 1 } : { n: "one" } }),
    );
    s.registerTool("ask", {}, async (_args, extra) => {
      const res = await extra.elicit("name?", { type: "object", properties: { name: { type: "string" } }, required: ["name"] }, { key: "n" });
      return `hi ${res.content.name}`;
    });
    return s;
  }

  it("calls tools, cancels (the handler's signal aborts) and closes", async () => {
    const s = server();
    const client = new Client(info, { onElicitation: () => ({ action: "accept", content: { name: "ann" } }) });
    try {
      const r = await client.connect(s);
      assert.equal(r.serverInfo.name, "in-process");
      assert.equal(client.getInstructions(), "be nice");
      assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "mem" } })), "mem");
      assert.equal(text(await client.callTool({ name: "ask" })), "hi ann");

      const controller = new AbortController();
      const call = client.callTool({ name: "wait" }, { signal: controller.signal });
      const until = Date.now() + BOUND_MS;
      while (s.seen.length === 0 && Date.now() < until) {
        await pause(5);
      }
      assert.equal(s.seen.length, 1, "the wait handler never ran");
      controller.abort();
      await assert.rejects(call, { name: "AbortError" });
      while (!s.seen[0].aborted && Date.now() < until) {
        await pause(5);
      }
      assert.ok(s.seen[0].aborted, "the server's handler was not cancelled");
    } finally {
      await client.close();
      await s.close();
    }
  });

  it("ends when the server closes: a call in flight fails with ConnectionClosedError, then onclose", async () => {
    const s = server();
    const client = track(new Client(info));
    const events = [];
    client.onerror = (err) => events.push(`error ${err.name}`);
    client.onclose = () => events.push("close");
    await client.connect(s);
    const call = client.callTool({ name: "wait" });
    const until = Date.now() + BOUND_MS;
    while (s.seen.length === 0 && Date.now() < until) {
      await pause(5);
    }
    assert.equal(s.seen.length, 1, "the wait handler never ran");
    await s.close();
    await assert.rejects(call, ConnectionClosedError);
    while (!events.includes("close") && Date.now() < until) {
      await pause(5);
    }
    assert.equal(events.at(-1), "close", events.join());
    assert.deepEqual(events.filter((e) => e !== "close" && e !== "error ConnectionClosedError"), []);
    await assert.rejects(client.ping(), ConnectionClosedError);
    // A closed server takes no new connection.
    await assert.rejects(new Client(info).connect(s));
  });

});

// A bare JSON-RPC server over HTTP whose answers polymcp's server would
// never give: a structured result that breaks its own outputSchema, and an
// error with data.
describe("Client against a bare HTTP server", () => {
  let httpServer;
  let url;
  before(async () => {
    httpServer = http.createServer(async (req, res) => {
      if (req.method !== "POST") {
        res.writeHead(req.method === "DELETE" ? 200 : 405).end();
        return;
      }
      let body = "";
      for await (const chunk of req) body += chunk;
      const msg = JSON.parse(body);
      if (msg.id === undefined) {
        res.writeHead(202).end();
        return;
      }
      const answer = (member) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...member }));
      };
      switch (msg.method) {
        case "initialize":
          return answer({ result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "bare", version: "1" } } });
        case "tools/list":
          return answer({
            result: {
              tools: [
                { name: "typed", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } },
                { name: "fails", inputSchema: { type: "object" } },
              ],
            },
          });
        case "tools/call":
          if (msg.params.name === "typed") {
            const n = msg.params.arguments.good ? 1 : "one";
            return answer({ result: { content: [{ type: "text", text: String(n) }], structuredContent: { n } } });
          }
          return answer({ error: { code: -32050, message: "it failed", data: { why: "testing" } } });
        default:
          return answer({ error: { code: -32601, message: `no ${msg.method}` } });
      }
    });
    await new Promise((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${httpServer.address().port}/mcp`;
  });
  after(() => new Promise((resolve) => httpServer.close(resolve)));

  it("checks structured results against the output schema", async () => {
    const client = track(new Client(info));
    await client.connect({ url });
    assert.equal(client.getServerVersion().name, "bare");
    // As in the TypeScript SDK, the schemas are those of the last listTools().
    await client.listTools();
    const ok = await client.callTool({ name: "typed", arguments: { good: true } });
    assert.deepEqual(ok.structuredContent, { n: 1 });
    await assert.rejects(client.callTool({ name: "typed", arguments: { good: false } }), (err) => {
      assert.ok(err instanceof OutputSchemaError, String(err));
      assert.ok(err instanceof McpError);
      assert.match(err.message, /outputSchema/);
      // The result as received: POLYMCP_E_OUTPUT's error object carries it as data.
      assert.deepEqual(err.result?.structuredContent, { n: "one" });
      assert.deepEqual(err.data, err.result);
      return true;
    });
    // Unchecked when asked.
    const loose = track(new Client(info, { skipOutputValidation: true }));
    await loose.connect({ url });
    await loose.listTools();
    assert.deepEqual((await loose.callTool({ name: "typed", arguments: { good: false } })).structuredContent, { n: "one" });
  });

  it("gives a JSON-RPC error's code, message and data", async () => {
    const client = track(new Client(info));
    await client.connect({ url });
    await assert.rejects(client.callTool({ name: "fails" }), (err) => {
      assert.ok(err instanceof McpError, String(err));
      assert.equal(err.code, -32050);
      assert.equal(err.message, "it failed");
      assert.deepEqual(err.data, { why: "testing" });
      return true;
    });
  });
});

describe("Client against the TypeScript SDK's server", () => {
  const onSampling = (params) => ({
    role: "assistant",
    content: { type: "text", text: `echo ${params.messages[0].content.text}` },
    model: "m",
  });

  async function check(client) {
    assert.equal(client.getServerVersion().name, "ts-sdk-interop");
    assert.equal(client.protocolVersion, "2025-11-25");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["ask", "count", "echo", "sleep"]);
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "hey" } })), "hey");
    const progress = [];
    assert.equal(text(await client.callTool({ name: "count", arguments: { n: 3 } }, { onprogress: (p) => progress.push(p.progress) })), "counted 3");
    assert.deepEqual(progress, [1, 2, 3]);
    assert.equal(text(await client.callTool({ name: "ask", arguments: { prompt: "hello" } })), "model said: echo hello");
    const read = await client.readResource({ uri: "interop://hello" });
    assert.equal(read.contents[0].text, "hello from the TS SDK");
    const prompt = await client.getPrompt({ name: "greet", arguments: { name: "Ada" } });
    assert.equal(prompt.messages[0].content.text, "Say hello to Ada");
    const controller = new AbortController();
    const slow = client.callTool({ name: "sleep", arguments: { ms: 60_000 } }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(slow, { name: "AbortError" });
    // The SDK answers an unknown tool with a JSON-RPC error or, in newer
    // versions, an isError result.
    try {
      const r = await client.callTool({ name: "nope", arguments: {} });
      assert.equal(r.isError, true);
    } catch (err) {
      assert.ok(err instanceof McpError, String(err));
    }
    assert.deepEqual(await client.ping(), {});
  }

  it("over stdio", async () => {
    const client = track(new Client(info, { onSampling }));
    await client.connect({ command: process.execPath, args: [SDK_SERVER], cwd: PKG });
    await check(client);
  });

  it("over Streamable HTTP", async () => {
    const served = await serveHttp(process.execPath, [SDK_SERVER, "--http", "127.0.0.1:0"]);
    try {
      const client = track(new Client(info, { onSampling }));
      await client.connect({ url: served.url });
      await check(client);
    } finally {
      await served.stop();
    }
  });
});

/** Resolves to the first value of an async iterator; rejects after BOUND_MS (a failure bound, not a timing). */
async function first(iterable, what) {
  const it = iterable[Symbol.asyncIterator]();
  let timer;
  const bound = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${BOUND_MS} ms`)), BOUND_MS);
  });
  try {
    return await Promise.race([it.next(), bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** The real binding with clientCancel recorded: installed for the connects in fn. */
async function withCancelSpy(fn) {
  const real = native();
  const cancels = [];
  const spy = {
    ...real,
    clientCancel: (handle, tag) => {
      const rc = real.clientCancel(handle, tag);
      cancels.push({ handle, tag, rc });
      return rc;
    },
  };
  const previous = setNativeForTesting(spy);
  try {
    await fn();
  } finally {
    setNativeForTesting(previous);
  }
  return { real, cancels };
}

describe("Client subscriptions (subscriptions/listen, 2026-07-28)", () => {
  for (const [name, target] of [
    ["stdio", stdioEverything],
    ["HTTP", httpEverything],
  ]) {
    it(`gets tools/list_changed over ${name}, and lets go of the tag on close`, async () => {
      const seen = [];
      const client = track(new Client(info, { onNotification: (method) => seen.push(method) }));
      const { real, cancels } = await withCancelSpy(() => client.connect(target()));
      assert.equal(client.protocolVersion, "2026-07-28");

      const sub = await client.listen({ toolsListChanged: true, resourceSubscriptions: ["test://static-text"] });
      assert.ok(sub instanceof Subscription);
      assert.equal(sub.closed, false);
      assert.deepEqual(sub.requested, { toolsListChanged: true, resourceSubscriptions: ["test://static-text"] });
      assert.equal(sub.honoured.toolsListChanged, true);
      assert.deepEqual(sub.honoured.resourceSubscriptions, ["test://static-text"]);

      // The tool adds a tool: notifications/tools/list_changed.
      await client.callTool({ name: "test_trigger_tool_change" });
      const got = await first(sub, "notifications/tools/list_changed");
      assert.deepEqual(got, { done: false, value: { method: "notifications/tools/list_changed", params: {} } });
      assert.ok(seen.includes("notifications/tools/list_changed"), "the client's onNotification gets it too");

      await sub.close();
      assert.equal(sub.closed, true);
      assert.deepEqual(await sub[Symbol.asyncIterator]().next(), { value: undefined, done: true });
      await sub.close(); // a second close does nothing
      assert.equal(cancels.length, 1, "close cancels the listen request once");
      const [{ handle, tag, rc }] = cancels;
      assert.equal(rc, Status.OK);
      // The core lets go of the tag: cancelling it again finds no request.
      const until = Date.now() + BOUND_MS;
      let again;
      while ((again = real.clientCancel(handle, tag)) !== Status.UnknownCall && Date.now() < until) {
        await pause(10);
      }
      assert.equal(again, Status.UnknownCall);
      // The client goes on serving, and listens again.
      assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "after" } })), "after");
      const again2 = await client.listen({ promptsListChanged: true });
      await again2[Symbol.asyncDispose]();
      assert.equal(again2.closed, true);
    });
  }

  it("ends when its signal aborts, hands notifications to onNotification, and ends with the client", async () => {
    const client = new Client(info);
    await client.connect(httpEverything());
    const controller = new AbortController();
    const got = [];
    const sub = await client.listen({ toolsListChanged: true }, { signal: controller.signal, onNotification: (n) => got.push(n.method) });
    await client.callTool({ name: "test_trigger_tool_change" });
    const until = Date.now() + BOUND_MS;
    while (got.length === 0 && Date.now() < until) {
      await pause(10);
    }
    assert.deepEqual(got, ["notifications/tools/list_changed"]);
    controller.abort();
    assert.equal(sub.closed, true);

    // An aborted signal sends nothing.
    await assert.rejects(client.listen({ toolsListChanged: true }, { signal: AbortSignal.abort() }), { name: "AbortError" });

    // Closing the client ends its subscriptions; a waiting iteration finishes.
    const open = await client.listen({ toolsListChanged: true });
    const waiting = open[Symbol.asyncIterator]().next();
    await client.close();
    assert.deepEqual(await waiting, { value: undefined, done: true });
    assert.equal(open.closed, true);
    await open.close(); // nothing left to do
    await assert.rejects(client.listen({ toolsListChanged: true }), ConnectionClosedError);
  });

  it("ends when the server ends it, the client staying, with error when its stream broke", async () => {
    const server = new McpServer({ name: "ending", version: "1" });
    server.registerTool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, ({ text }) => text);
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    const client = track(new Client(info));
    await client.connect({ url });
    const sub = await client.listen({ toolsListChanged: true });
    const waiting = sub[Symbol.asyncIterator]().next();
    await server.close();
    assert.deepEqual(await waiting, { value: undefined, done: true });
    assert.equal(sub.closed, true);
    // Closing ends it gracefully, or cuts its stream first (E_IO).
    assert.ok(sub.error === undefined || sub.error instanceof NativeError, `${sub.error}`);
    await sub.close(); // nothing left to cancel
  });

  it("breaking out of for await closes the subscription", async () => {
    const client = track(new Client(info));
    await client.connect(stdioEverything());
    const sub = await client.listen({ toolsListChanged: true });
    await client.callTool({ name: "test_trigger_tool_change" });
    for await (const n of sub) {
      assert.equal(n.method, "notifications/tools/list_changed");
      break;
    }
    assert.equal(sub.closed, true);
  });

  it("is refused on a revision without it", async () => {
    const client = track(new Client(info, { revision: "2025-11-25" }));
    await client.connect(httpEverything());
    await assert.rejects(client.listen({ toolsListChanged: true }), (err) => {
      assert.ok(err instanceof NativeError || err instanceof McpError, String(err));
      return true;
    });
    // The refusal holds nothing: the client still serves.
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "ok" } })), "ok");
  });
});

describe("Client and the process", () => {
  it("lets the process exit by itself once closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polymcp-client-"));
    const script = join(dir, "exit.cjs");
    // CommonJS, through require: the other entry point.
    writeFileSync(
      script,
      `const { Client } = require(${JSON.stringify(PKG)});
(async () => {
  const client = new Client({ name: "exit", version: "1" });
  await client.connect(JSON.parse(process.argv[2]));
  const r = await client.callTool({ name: "echo", arguments: { text: "bye" } });
  await client.close();
  console.log(r.content[0].text);
})();
`,
    );
    for (const target of [{ url: everythingHttp.url }, stdioEverything()]) {
      const child = spawn(process.execPath, [script, JSON.stringify(target)], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
      const code = await new Promise((resolve) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve("hung");
        }, 5000);
        child.on("exit", (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      assert.equal(code, 0, `the child did not exit by itself (${JSON.stringify(target)})`);
      assert.equal(out, "bye\n");
    }
  });

  it("lets the process exit by itself once its subscription closed", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polymcp-client-"));
    const script = join(dir, "listen.mjs");
    // The client is left open (idle): only the subscription could hold the loop.
    writeFileSync(
      script,
      `import { Client } from ${JSON.stringify(PKG + "/esm/index.mjs")};
const client = new Client({ name: "exit", version: "1" });
await client.connect(JSON.parse(process.argv[2]));
const sub = await client.listen({ toolsListChanged: true });
await client.callTool({ name: "test_trigger_tool_change" });
for await (const n of sub) {
  console.log(n.method);
  break;
}
console.log(sub.closed);
`,
    );
    for (const target of [{ url: everythingHttp.url }, stdioEverything()]) {
      const child = spawn(process.execPath, [script, JSON.stringify(target)], { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
      const code = await new Promise((resolve) => {
        const timer = setTimeout(() => {
          child.kill("SIGKILL");
          resolve("hung");
        }, BOUND_MS);
        child.on("exit", (c) => {
          clearTimeout(timer);
          resolve(c);
        });
      });
      assert.equal(code, 0, `the child did not exit by itself (${JSON.stringify(target)}): ${out}`);
      assert.equal(out, "notifications/tools/list_changed\ntrue\n");
    }
  });

  it("refuses a library without the client half (ABI < 1.8)", async () => {
    const restore = new FakeNative().install(); // a binding over a library with no polymcp_client_*
    let connecting;
    try {
      connecting = new Client(info).connect({ url: "http://127.0.0.1:1/mcp" });
    } finally {
      restore();
    }
    await assert.rejects(connecting, (err) => err instanceof NativeError && /ABI 1\.8/.test(err.message));
  });

  it("is the same class from import and require", () => {
    const require = createRequire(import.meta.url);
    assert.equal(require("polymcp").Client, Client);
    assert.equal(require("polymcp").RequestTimeoutError, RequestTimeoutError);
  });
});
