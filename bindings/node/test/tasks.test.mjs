// The 2026-07-28 tasks extension end to end, with literal JSON: task tools
// registered through the public API, over stdio (fixtures/tasks.mjs) and
// the host-owned HTTP handler, and the everything example's task tools,
// which must answer as the Go fixture's do.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { describe, it } from "node:test";
import { setTimeout as pause } from "node:timers/promises";
import { fileURLToPath } from "node:url";

import { McpServer } from "polymcp";
import { native } from "../dist/native.js";
import { aborted, headers2026, post, serve, stop } from "./http_client.mjs";
import { EVERYTHING, INITIALIZED, StdioClient } from "./stdio_client.mjs";

const TASKS = fileURLToPath(new URL("./fixtures/tasks.mjs", import.meta.url));
const GO = fileURLToPath(new URL("../../../build/polymcp", import.meta.url));

const EXT = '{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}';
const NO_EXT = '{"elicitation":{}}';
const SERVER_META = '{"io.modelcontextprotocol/serverInfo":{"name":"tasks","version":"1.0.0"}}';
// Only a failure bound, as StdioClient's.
const TIMEOUT_MS = 30_000;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A 2026-07-28 client: each request carries its revision and capabilities in _meta. */
class Session extends StdioClient {
  #id = 0;

  /** Sends method with params (a JSON object's members, without braces) and resolves to the answer. */
  request(method, params = "", caps = EXT) {
    const id = ++this.#id;
    const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":${caps}}`;
    this.send(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{${params ? `${params},` : ""}${meta}}}`);
    return this.answer(id);
  }

  call(name, args = "{}", caps = EXT, extra = "") {
    return this.request("tools/call", `"name":"${name}","arguments":${args}${extra}`, caps);
  }

  /** Polls tasks/get until the task's status is not "working" any more, or is one of until. */
  async poll(taskId, until = ["input_required", "completed", "failed", "cancelled"]) {
    for (const deadline = Date.now() + TIMEOUT_MS; ; ) {
      const got = await this.request("tasks/get", `"taskId":"${taskId}"`);
      if (got.error || until.includes(got.result.status)) {
        return got;
      }
      assert.ok(Date.now() < deadline, `task ${taskId} still ${got.result.status}; stderr: ${this.stderr}`);
      await pause(10);
    }
  }

  /** Resolves once stderr has a line matching re. */
  async stderrLine(re) {
    for (const deadline = Date.now() + TIMEOUT_MS; !re.test(this.stderr); ) {
      assert.ok(Date.now() < deadline, `no ${re} on stderr: ${this.stderr}`);
      await pause(10);
    }
  }
}

/**
 * The task's fields no test can know (taskId and times), checked for their
 * form, and the answer's JSON with them put back as "<taskId>",
 * "<createdAt>" and "<lastUpdatedAt>" so that it can be compared as a literal.
 */
function masked(got) {
  const r = got.result ?? {};
  if (r.taskId !== undefined) {
    assert.match(r.taskId, /^[\w-]{16,}$/);
    assert.match(r.createdAt, TIME);
    assert.match(r.lastUpdatedAt, TIME);
    assert.ok(r.lastUpdatedAt >= r.createdAt);
  }
  return JSON.parse(JSON.stringify(got), (key, value) =>
    key === "taskId" && value === r.taskId ? "<taskId>" : key === "createdAt" || key === "lastUpdatedAt" ? `<${key}>` : value);
}

const handle = (id, ttl = 60000, poll = 250) =>
  `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"task","_meta":${SERVER_META},"taskId":"<taskId>","status":"working",` +
  `"createdAt":"<createdAt>","lastUpdatedAt":"<lastUpdatedAt>","ttlMs":${ttl},"pollIntervalMs":${poll}}}`;

/**
 * A tasks/get answer: the task's status and what the status carries (rest:
 * more members, e.g. statusMessage; deepEqual does not mind their order).
 */
const detailed = (id, status, rest = "") =>
  `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","_meta":${SERVER_META},"taskId":"<taskId>","status":"${status}",` +
  `"createdAt":"<createdAt>","lastUpdatedAt":"<lastUpdatedAt>","ttlMs":60000,"pollIntervalMs":250${rest}}}`;

const ack = (id) => `{"jsonrpc":"2.0","id":${id},"result":{"resultType":"complete","_meta":${SERVER_META}}}`;
const textResult = (text) => `{"resultType":"complete","_meta":${SERVER_META},"content":[{"type":"text","text":${JSON.stringify(text)}}]}`;
const NAME_QUESTION = '{"who":{"method":"elicitation/create","params":{"message":"Your name?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}}}}';

describe("task tools over stdio (2026-07-28)", () => {
  it("registers them, and the server offers the extension", async () => {
    const c = new Session(TASKS);
    const tools = await c.request("tools/list");
    assert.deepEqual(tools.result.tools.map((t) => t.name), ["work", "must", "ask_in_task", "later", "plain", "report", "stats"]);
    // The task support is the server's business: tools/list shows nothing of it.
    assert.deepEqual(tools.result.tools[0], JSON.parse('{"name":"work","description":"works for ms","inputSchema":{"type":"object","properties":{"ms":{"type":"integer"}},"required":["ms"]}}'));
    assert.deepEqual(await c.request("server/discover"), JSON.parse(
      `{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","_meta":${SERVER_META},"supportedVersions":["2026-07-28"],` +
        '"capabilities":{"logging":{},"tools":{"listChanged":true},"extensions":{"io.modelcontextprotocol/tasks":{}}}}}'));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("answers a call that declares the extension with a task, whose result tasks/get inlines", async () => {
    const c = new Session(TASKS);
    const created = await c.call("work", '{"ms":50}');
    assert.deepEqual(masked(created), JSON.parse(handle(1)));
    const got = await c.poll(created.result.taskId, ["completed"]);
    assert.equal(got.result.createdAt, created.result.createdAt);
    assert.deepEqual(masked(got), JSON.parse(detailed(got.id, "completed", `,"result":${textResult("worked 50 ms")}`)));
    // Without the extension the same tool is an ordinary call.
    assert.deepEqual(await c.call("work", '{"ms":0}', NO_EXT), JSON.parse(`{"jsonrpc":"2.0","id":${got.id + 1},"result":${textResult("worked 0 ms")}}`));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("shows the handler's progress message as the task's statusMessage, and sends no notifications", async () => {
    const c = new Session(TASKS);
    const { result: task } = await c.call("report", '{"ms":60000}');
    let got;
    while ((got = await c.request("tasks/get", `"taskId":"${task.taskId}"`)).result.statusMessage === undefined) {
      await pause(10);
    }
    assert.deepEqual(masked(got), JSON.parse(detailed(got.id, "working", ',"statusMessage":"half way"')));
    await c.request("tasks/cancel", `"taskId":"${task.taskId}"`);
    assert.equal((await c.poll(task.taskId, ["cancelled"])).result.statusMessage, "cancelled by the client");
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.deepEqual(c.pending, [], "no progress or log notification");
  });

  it("aborts the handler's signal on tasks/cancel, and the task is cancelled", async () => {
    const c = new Session(TASKS);
    const { result: task } = await c.call("work", '{"ms":60000}');
    assert.deepEqual(await c.request("tasks/cancel", `"taskId":"${task.taskId}"`), JSON.parse(ack(2)));
    await c.stderrLine(/^work: AbortError signal\.aborted=true$/m);
    const got = await c.poll(task.taskId, ["cancelled"]);
    assert.deepEqual(masked(got), JSON.parse(detailed(got.id, "cancelled", ',"statusMessage":"cancelled by the client"')));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("refuses a required task tool without the extension (-32021), before the handler runs", async () => {
    const c = new Session(TASKS);
    assert.deepEqual(await c.call("must", "{}", NO_EXT), JSON.parse(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32021,"message":"the client did not declare the capability tools/call must needs",' +
        '"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}'));
    assert.deepEqual(await c.call("later", "{}", NO_EXT), JSON.parse(
      '{"jsonrpc":"2.0","id":2,"error":{"code":-32021,"message":"the client did not declare the capability tools/call later needs",' +
        '"data":{"requiredCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}}}'));
    const task = await c.call("must");
    const done = await c.poll(task.result.taskId);
    assert.deepEqual(masked(done), JSON.parse(detailed(done.id, "completed", `,"result":${textResult("done")}`)));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.equal(c.stderr.match(/must: ran/g)?.length, 1, c.stderr);
  });

  it("starts the task from the handler after an input_required round; its next question waits for tasks/update", async () => {
    const c = new Session(TASKS);
    const round1 = await c.call("later");
    const state = round1.result?.requestState;
    assert.match(state, /^v1\.[\w-]+\.[\w-]+$/);
    assert.deepEqual(round1, JSON.parse(
      `{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","_meta":${SERVER_META},"inputRequests":${NAME_QUESTION},"requestState":"${state}"}}`));
    const created = await c.call("later", "{}", EXT, `,"requestState":"${state}","inputResponses":{"who":{"action":"accept","content":{"name":"Ann"}}}`);
    assert.deepEqual(masked(created), JSON.parse(handle(2)));
    const waiting = await c.poll(created.result.taskId);
    assert.deepEqual(masked(waiting), JSON.parse(detailed(waiting.id, "input_required",
      ',"inputRequests":{"color":{"method":"elicitation/create","params":{"message":"Your color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}}')));
    const update = await c.request("tasks/update", `"taskId":"${created.result.taskId}","inputResponses":{"color":{"action":"accept","content":{"color":"teal"}}}`);
    assert.deepEqual(update, JSON.parse(ack(waiting.id + 1)));
    const done = await c.poll(created.result.taskId, ["completed"]);
    assert.deepEqual(masked(done), JSON.parse(detailed(done.id, "completed", `,"result":${textResult("Ann likes teal; startTask true then true")}`)));
    // A tool without task support cannot become a task.
    assert.deepEqual(await c.call("plain"), JSON.parse(`{"jsonrpc":"2.0","id":${done.id + 1},"result":${textResult("startTask false")}}`));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("waits for tasks/update inside a task without holding the JS thread", async () => {
    const c = new Session(TASKS);
    const created = [await c.call("ask_in_task"), await c.call("ask_in_task")];
    for (const task of created) {
      assert.deepEqual(masked(task), JSON.parse(handle(task.id)));
    }
    const [a, b] = created.map((task) => task.result.taskId);
    for (const id of [a, b]) {
      const waiting = await c.poll(id);
      assert.deepEqual(masked(waiting), JSON.parse(detailed(waiting.id, "input_required", `,"inputRequests":${NAME_QUESTION}`)));
    }
    // Both handlers wait for their answers; JS still runs other calls.
    const plain = await c.call("plain", "{}", NO_EXT);
    assert.deepEqual(plain, JSON.parse(`{"jsonrpc":"2.0","id":${plain.id},"result":${textResult("startTask false")}}`));
    const stats = await c.call("stats");
    assert.equal(stats.result.structuredContent.calls, 3, "two tasks and stats");
    // An update for another key leaves the task waiting.
    assert.deepEqual(await c.request("tasks/update", `"taskId":"${a}","inputResponses":{"other":{"action":"decline"}}`), JSON.parse(ack(stats.id + 1)));
    assert.equal((await c.poll(a)).result.status, "input_required");
    const update = await c.request("tasks/update", `"taskId":"${a}","inputResponses":{"who":{"action":"accept","content":{"name":"Bo"}}}`);
    assert.deepEqual(update, JSON.parse(ack(update.id)));
    const done = await c.poll(a, ["completed"]);
    assert.deepEqual(masked(done), JSON.parse(detailed(done.id, "completed", `,"result":${textResult("Hello, Bo!")}`)));
    // Cancelling the other ends its wait: its question rejects with an AbortError.
    await c.request("tasks/cancel", `"taskId":"${b}"`);
    await c.stderrLine(/^ask_in_task: AbortError signal\.aborted=true$/m);
    assert.equal((await c.poll(b, ["cancelled"])).result.status, "cancelled");
    const after = await c.call("stats");
    assert.equal(after.result.structuredContent.calls, 1, "only stats: no call left behind");
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("fails a task whose question needs a capability the client did not declare (-32021)", async () => {
    const c = new Session(TASKS);
    const { result: task } = await c.call("ask_in_task", "{}", '{"extensions":{"io.modelcontextprotocol/tasks":{}}}');
    const got = await c.poll(task.taskId, ["failed"]);
    const message = "the client did not declare the capability elicitation/create needs";
    assert.deepEqual(masked(got), JSON.parse(detailed(got.id, "failed",
      `,"statusMessage":"${message}","error":{"code":-32021,"message":"${message}","data":{"requiredCapabilities":{"elicitation":{}}}}`)));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    // The handler unwound with the binding's end-of-call value, not an Error.
    assert.equal(c.stderr, "ask_in_task: undefined signal.aborted=false\nclosed\n");
  });

  it("cancels a task waiting for input when stdin ends, then exits", async () => {
    const c = new Session(TASKS);
    const { result: task } = await c.call("ask_in_task");
    assert.equal((await c.poll(task.taskId)).result.status, "input_required");
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.equal(c.stderr, "ask_in_task: AbortError signal.aborted=true\nclosed\n");
  });

  it("applies the server's task options", async () => {
    const c = new Session(TASKS, ['{"taskTtlMs":300,"taskPollIntervalMs":40,"maxRunningTasks":1}']);
    const created = await c.call("work", '{"ms":60000}');
    assert.deepEqual(masked(created), JSON.parse(handle(1, 300, 40)));
    // Past maxRunningTasks an optional task runs as an ordinary call, a required one is refused.
    assert.deepEqual(await c.call("work", '{"ms":0}'), JSON.parse(`{"jsonrpc":"2.0","id":2,"result":${textResult("worked 0 ms")}}`));
    assert.deepEqual(await c.call("must"), JSON.parse(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"server overloaded: too many tasks; retry later","data":{"reason":"overloaded"}}}'));
    // So does one whose handler cannot start its task there (startTask is
    // false): its next question is another input_required round.
    const round1 = await c.call("later");
    const round2 = await c.call("later", "{}", EXT, `,"requestState":"${round1.result.requestState}","inputResponses":{"who":{"action":"accept","content":{"name":"Cy"}}}`);
    assert.deepEqual(round2.result.inputRequests, JSON.parse('{"color":{"method":"elicitation/create","params":{"message":"Your color?","requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}}'));
    const round3 = await c.call("later", "{}", EXT, `,"requestState":"${round2.result.requestState}","inputResponses":{"color":{"action":"accept","content":{"color":"red"}}}`);
    assert.deepEqual(round3, JSON.parse(`{"jsonrpc":"2.0","id":6,"result":${textResult("Cy likes red; startTask false then false")}}`));
    // At its TTL a running task is stopped: its signal aborts, and tasks/get says why.
    await c.stderrLine(/^work: AbortError signal\.aborted=true$/m);
    const expired = await c.request("tasks/get", `"taskId":"${created.result.taskId}"`);
    assert.deepEqual(masked(expired), JSON.parse(
      `{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","_meta":${SERVER_META},"taskId":"<taskId>","status":"failed","statusMessage":"task timed out after 300ms",` +
        '"createdAt":"<createdAt>","lastUpdatedAt":"<lastUpdatedAt>","ttlMs":300,"pollIntervalMs":40,"error":{"code":-32603,"message":"task timed out after 300ms","data":{"reason":"timeout"}}}}'));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.doesNotMatch(c.stderr, /must: ran/);
  });
});

describe("task tools over the host-owned HTTP handler", () => {
  it("keeps a task running after its POST answered, and cancels it with tasks/cancel", async () => {
    const before = JSON.parse(native().stats());
    const server = new McpServer({ name: "http-tasks", version: "1.0.0" }, { taskPollIntervalMs: 100 });
    const signals = [];
    server.tool("work", { inputSchema: { type: "object", properties: { ms: { type: "integer" } }, required: ["ms"] }, task: "required" },
      async ({ ms }, ctx) => {
        signals.push(ctx.signal);
        await pause(ms, undefined, { signal: ctx.signal });
        return `worked ${ms} ms`;
      });
    const { server: web, base } = await serve(server.httpHandler());
    const url = `${base}/mcp`;
    const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},' +
      '"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}';
    const rpc = async (id, method, name, params) => {
      const got = await post(url, `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":{${params},${meta}}}`, headers2026(method, name));
      assert.equal(got.status, 200, got.text);
      return JSON.parse(got.text);
    };
    const info = '"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"http-tasks","version":"1.0.0"}}';
    try {
      const created = await rpc(1, "tools/call", "work", '"name":"work","arguments":{"ms":200}');
      assert.deepEqual(masked(created), JSON.parse(`{"jsonrpc":"2.0","id":1,"result":{"resultType":"task",${info},"taskId":"<taskId>","status":"working",` +
        '"createdAt":"<createdAt>","lastUpdatedAt":"<lastUpdatedAt>","ttlMs":3600000,"pollIntervalMs":100}}'));
      const id = created.result.taskId;
      let got;
      for (let n = 2; (got = await rpc(n, "tasks/get", id, `"taskId":"${id}"`)).result.status === "working"; n++) {
        await pause(20);
      }
      assert.deepEqual(masked(got), JSON.parse(`{"jsonrpc":"2.0","id":${got.id},"result":{"resultType":"complete",${info},"taskId":"<taskId>","status":"completed",` +
        '"createdAt":"<createdAt>","lastUpdatedAt":"<lastUpdatedAt>","ttlMs":3600000,"pollIntervalMs":100,' +
        `"result":{"resultType":"complete",${info},"content":[{"type":"text","text":"worked 200 ms"}]}}}`));
      assert.equal(signals[0].aborted, false, "the end of the POST did not cancel the task");

      const long = await rpc(100, "tools/call", "work", '"name":"work","arguments":{"ms":60000}');
      assert.deepEqual(await rpc(101, "tasks/cancel", long.result.taskId, `"taskId":"${long.result.taskId}"`),
        JSON.parse(`{"jsonrpc":"2.0","id":101,"result":{"resultType":"complete",${info}}}`));
      await aborted(signals[1], TIMEOUT_MS, "tasks/cancel to abort the handler's signal");
      assert.equal((await rpc(102, "tasks/get", long.result.taskId, `"taskId":"${long.result.taskId}"`)).result.status, "cancelled");
    } finally {
      await server.close();
      await stop(web);
    }
    const after = JSON.parse(native().stats());
    assert.deepEqual([after.servers, after.calls, after.http], [before.servers, 0, 0]);
  });
});

describe("the everything example's task tools", () => {
  // One conversation, the same for both fixtures: every task tool with the
  // extension (answering its questions with tasks/update), without it, and
  // on 2025-11-25 (answering the server's requests). Task ids, times and
  // requestState differ between runs and are masked.
  async function transcript(program, args) {
    const c = new Session(program, args);
    const out = [];
    const record = (got) => {
      // How many polls a task took differs between runs, and so do the ids after them.
      out.push(JSON.parse(JSON.stringify(masked(got)), (key, value) => (key === "requestState" ? "<requestState>" : key === "id" ? "<id>" : value)));
      return got;
    };
    const task = async (name, args, answers = []) => {
      const { result } = record(await c.call(name, args));
      for (const answer of answers) {
        record(await c.poll(result.taskId));
        record(await c.request("tasks/update", `"taskId":"${result.taskId}","inputResponses":${answer}`));
      }
      return record(await c.poll(result.taskId, ["completed", "failed", "cancelled"]));
    };
    // The catalogue as raw text: the same bytes, so the same key order in every inputSchema.
    c.send('{"jsonrpc":"2.0","id":"list","method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}');
    out.push(await c.next((l) => JSON.parse(l).id === "list"));
    await task("slow_compute", '{"seconds":0.25,"label":"parity"}');
    await task("slow_compute", '{"seconds":0}');
    await task("slow_compute", '{"seconds":3601}');
    await task("failing_job", "{}");
    await task("protocol_error_job", "{}");
    await task("confirm_delete", '{"filename":"a.txt"}', ['{"confirm":{"action":"accept","content":{"confirm":true}}}']);
    await task("confirm_delete", '{"filename":"b.txt"}', ['{"confirm":{"action":"decline"}}']);
    await task("multi_input", "{}", ['{"first":{"action":"accept","content":{"name":"one"}}}', '{"second":{"action":"accept","content":{"name":"two"}}}']);
    const round1 = record(await c.call("test_tool_with_task"));
    const { result: late } = record(await c.call("test_tool_with_task", "{}", EXT,
      `,"requestState":"${round1.result.requestState}","inputResponses":{"user_name":{"action":"accept","content":{"name":"Zed"}}}`));
    record(await c.poll(late.taskId, ["completed"]));
    const { result: long } = record(await c.call("slow_compute", '{"seconds":60}'));
    record(await c.request("tasks/cancel", `"taskId":"${long.taskId}"`));
    record(await c.poll(long.taskId, ["cancelled"]));
    // Without the extension.
    record(await c.call("greet", '{"name":"you"}', NO_EXT));
    record(await c.call("slow_compute", '{"seconds":1.5e-7}', NO_EXT));
    record(await c.call("failing_job", "{}", NO_EXT));
    record(await c.call("test_tool_with_task", "{}", NO_EXT));
    record(await c.call("protocol_error_job", "{}", NO_EXT));
    const multi = record(await c.call("multi_input", "{}", NO_EXT));
    record(await c.call("multi_input", "{}", NO_EXT,
      `,"requestState":"${multi.result.requestState}","inputResponses":{"first":{"action":"cancel"},"second":{"action":"accept","content":{"name":"two"}}}`));
    // 2025-11-25: the questions are requests to the client, answered at once.
    c.send('{"jsonrpc":"2.0","id":1000,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}', INITIALIZED);
    await c.answer(1000);
    const legacy = [
      ["test_tool_with_task", "{}", ['{"action":"accept","content":{"name":"Old"}}']],
      ["confirm_delete", '{"filename":"c.txt"}', ['{"action":"accept","content":{"confirm":false}}']],
      ["multi_input", "{}", ['{"action":"accept","content":{"name":"x"}}', '{"action":"decline"}']],
      ["failing_job", "{}", []],
    ];
    for (const [i, [name, args, answers]] of legacy.entries()) {
      c.send(`{"jsonrpc":"2.0","id":${1001 + i},"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`);
      for (const answer of answers) {
        const asked = JSON.parse(await c.next((l) => JSON.parse(l).method === "elicitation/create"));
        out.push(asked);
        c.send(`{"jsonrpc":"2.0","id":${JSON.stringify(asked.id)},"result":${answer}}`);
      }
      out.push(await c.answer(1001 + i));
    }
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    return out;
  }

  it("answer as the Go fixture's do, on every path", async () => {
    assert.ok(existsSync(GO), "build/polymcp is not built (make build, or make test-node, builds it)");
    const [node, go] = await Promise.all([transcript(EVERYTHING), transcript(GO, ["everything"])]);
    assert.deepEqual(node, go);
    // The transcript is what it should be, not just the same twice.
    const tools = JSON.parse(node[0]).result.tools.map((t) => t.name);
    assert.deepEqual(tools.slice(-7), ["greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task"]);
    const texts = node.slice(1).map((m) => m.result?.result?.content?.[0]?.text ?? m.result?.content?.[0]?.text).filter(Boolean);
    assert.deepEqual(texts, [
      "Computed parity in 0.25s", "Computed job in 0s", "seconds must be between 0 and 3600", "failing_job failed, as it always does",
      "Deleted a.txt", "Kept b.txt", "Got one and two", "Hello, Zed! (greeted by a task)",
      "Hello, you!", "Computed job in 0.00000015s", "Got (cancel) and two",
      "Hello, Old! (greeted by a task)", "Kept c.txt", "Got x and (decline)", "failing_job failed, as it always does",
    ]);
    assert.deepEqual(node.filter((m) => m.result?.status === "failed").map((m) => m.result.error),
      [{ code: -32603, message: "internal error: the handler failed", data: { reason: "panic" } }]);
  });
});
