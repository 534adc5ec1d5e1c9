// The task API over a JS stand-in for the addon: what server.tool(..., {task})
// registers, the task options of the server, and what ctx.startTask()
// makes of the core's answers.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { McpServer, NativeError, Server } from "../dist/index.js";
import { CallKind, FakeNative } from "./fake_native.mjs";

const fake = new FakeNative();
let restore;
before(() => (restore = fake.install()));
after(() => restore());

function newServer(options) {
  const server = new McpServer({ name: "t", version: "1.0.0" }, options);
  return { server, core: fake.servers.at(-1) };
}

describe("task tools: registration", () => {
  it("registers task support with polymcp_server_add_task_tool, and no task with polymcp_server_add_tool", () => {
    const { server, core } = newServer();
    server.tool("plain", { description: "d" }, () => "");
    server.tool("opt", { description: "o", task: "optional" }, () => "");
    server.registerTool("req", { task: "required" }, () => "");
    server.tool("late", { task: { support: "required", start: "handler" } }, () => "");
    server.tool("early", { task: { support: "optional", start: "call" } }, () => "");
    assert.deepEqual([...core.catalogue.values()], [
      JSON.parse('{"kind":"tool","name":"plain","description":"d","inputSchema":{"type":"object","properties":{}}}'),
      JSON.parse('{"kind":"tool","name":"opt","description":"o","inputSchema":{"type":"object","properties":{}},"task":{"support":"optional"}}'),
      JSON.parse('{"kind":"tool","name":"req","inputSchema":{"type":"object","properties":{}},"task":{"support":"required"}}'),
      JSON.parse('{"kind":"tool","name":"late","inputSchema":{"type":"object","properties":{}},"task":{"support":"required","start":"handler"}}'),
      JSON.parse('{"kind":"tool","name":"early","inputSchema":{"type":"object","properties":{}},"task":{"support":"optional","start":"call"}}'),
    ]);
  });

  it("keeps the task support when a tool is enabled again", () => {
    const { server, core } = newServer();
    const item = server.tool("t", { task: "optional" }, () => "");
    item.disable();
    item.enable();
    assert.deepEqual([...core.catalogue.values()], [
      JSON.parse('{"kind":"tool","name":"t","inputSchema":{"type":"object","properties":{}},"task":{"support":"optional"}}'),
    ]);
  });

  it("refuses a task setting it does not know", () => {
    const { server, core } = newServer();
    for (const task of ["always", "forbidden", null, 1, {}, { support: "maybe" }, { support: "optional", start: "later" }, { support: "optional", strat: "handler" }]) {
      assert.throws(() => server.tool("bad", { task }, () => ""), (err) => err instanceof TypeError && /^tool bad: task must be /.test(err.message), JSON.stringify(task));
    }
    assert.equal(core.catalogue.size, 0);
  });

  it("sends the task options of the server", () => {
    const { core } = newServer({ taskTtlMs: 60000, maxTasks: 10, maxRunningTasks: 2, taskPollIntervalMs: 500 });
    assert.deepEqual(core.options, JSON.parse(
      '{"name":"t","version":"1.0.0","task_ttl_ms":60000,"max_tasks":10,"max_running_tasks":2,"task_poll_interval_ms":500}'));
    new Server({ name: "s", version: "1", taskTtlMs: 1000, maxRunningTasks: 1 });
    assert.deepEqual(fake.servers.at(-1).options, JSON.parse('{"name":"s","version":"1","task_ttl_ms":1000,"max_running_tasks":1}'));
  });
});

describe("ctx.startTask()", () => {
  const { server, core } = newServer();
  const seen = [];
  server.tool("late", { task: { support: "optional", start: "handler" } }, async (_args, ctx) => {
    await null;
    seen.push(ctx.startTask(), ctx.startTask());
    return "ok";
  });
  server.tool("plain", {}, (_args, ctx) => String(ctx.startTask()));
  let cancelled;
  server.tool("cancelled", { task: "optional" }, (_args, ctx) => {
    cancelled = ctx;
    return new Promise(() => {});
  });
  const call = (name, params = {}) => core.call(CallKind.Tool, core.tagOf("tool", name), { name, arguments: {}, ...params });

  it("is true when the call became a task (or already was one)", async () => {
    const c = call("late", { taskable: true });
    assert.deepEqual(await c.done, { result: { content: [{ type: "text", text: "ok" }] } });
    assert.deepEqual(seen.splice(0), [true, true]);
    assert.deepEqual(fake.tasks.slice(-2), [c.id, c.id]);
  });

  it("is false when the call cannot become one, which goes on as an ordinary call", async () => {
    assert.deepEqual(await call("late").done, { result: { content: [{ type: "text", text: "ok" }] } });
    assert.deepEqual(seen.splice(0), [false, false]);
    assert.deepEqual(await call("plain", { taskable: true }).done, { result: { content: [{ type: "text", text: "false" }] } });
  });

  it("throws the signal's AbortError once the call was cancelled", async () => {
    const c = call("cancelled", { taskable: true });
    await new Promise((resolve) => setImmediate(resolve));
    core.cancel(c.id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.throws(() => cancelled.startTask(), (err) => err.name === "AbortError");
  });

  it("is false at the server's task limits (POLYMCP_E_LIMIT)", async () => {
    const original = fake.callStartTask;
    fake.callStartTask = () => -11;
    try {
      assert.deepEqual(await call("late", { taskable: true }).done, { result: { content: [{ type: "text", text: "ok" }] } });
    } finally {
      fake.callStartTask = original;
    }
    assert.deepEqual(seen.splice(0), [false, false]);
  });

  it("throws a NativeError for a status the ABI does not give it", () => {
    const { server: s, core: k } = newServer();
    let ctx;
    s.tool("t", { task: "optional" }, (_args, extra) => {
      ctx = extra;
      return new Promise(() => {});
    });
    k.call(CallKind.Tool, k.tagOf("tool", "t"), { name: "t", arguments: {} }, true);
    const original = fake.callStartTask;
    fake.callStartTask = () => -99;
    try {
      assert.throws(() => ctx.startTask(), (err) => err instanceof NativeError && err.status === -99);
    } finally {
      fake.callStartTask = original;
    }
  });
});
