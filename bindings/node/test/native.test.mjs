// The real addon and library in this process: errors from the C ABI, and no
// leaks (handles, goroutines, event-loop handles) across many servers.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";

import { McpServer, NativeError, configure, version } from "polymcp";
import { native } from "../dist/native.js";

const stats = () => JSON.parse(native().stats());

describe("the native library", () => {
  it("reports its version", () => assert.match(version(), /^\d+\.\d+\.\d+/));

  it("refuses an invalid definition with POLYMCP_E_INVALID", async () => {
    const server = new McpServer({ name: "t", version: "1" });
    assert.throws(() => server.registerTool("bad", { inputSchema: { type: "string" } }, () => ""), (err) => {
      assert.equal(err.code, "POLYMCP_E_INVALID");
      assert.equal(err.status, -1);
      assert.match(err.message, /^polymcp_server_add_tool: /);
      return true;
    });
    await server.close();
  });

  it("refuses unknown options", () => {
    assert.throws(() => new McpServer({ name: "t", version: "1" }, { maxQueue: -5 }), /polymcp_server_new/);
  });

  it("leaks nothing over 100 start/stop cycles", async () => {
    const before = stats();
    for (let i = 0; i < 100; i++) {
      const server = new McpServer({ name: `s${i}`, version: "1" });
      server.registerTool("echo", {}, () => "x");
      server.registerPrompt("p", { complete: { a: () => ["b"] } }, () => "");
      await server.close();
    }
    const after = stats();
    assert.equal(after.servers, before.servers);
    assert.equal(after.calls, 0);
    assert.equal(after.sessions, 0);
    // Go parks a few goroutines lazily (timers, finalizers); a leak per cycle would show 100+.
    assert.ok(after.goroutines <= before.goroutines + 10, `goroutines ${before.goroutines} -> ${after.goroutines}`);
  });

  it("lets the process exit once servers are closed, and while none serves", async () => {
    const script = `
      const { McpServer } = require("polymcp");
      const a = new McpServer({ name: "a", version: "1" });
      a.registerTool("t", {}, () => "");
      new McpServer({ name: "never-served", version: "1" });
      a.close().then(() => console.log("closed"));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: new URL("..", import.meta.url), timeout: 30_000 });
    assert.equal(stdout, "closed\n");
  });
});

describe("configure", () => {
  it("sets the native runtime and refuses a bad setting with a NativeError", () => {
    configure({ gcPercent: 300, logLevel: "warn" });
    configure({ gcPercent: 200 }); // the library's default again
    assert.throws(() => configure({ gcPercent: 0 }), (err) => err instanceof NativeError && err.status === -1 && /gc_percent/.test(err.message));
    assert.throws(() => configure({ logLevel: "loud" }), (err) => err instanceof NativeError && /log_level/.test(err.message));
  });
});

describe("the library's errors", () => {
  it("are NativeErrors with the status, the code and the library's message", () => {
    assert.throws(() => new McpServer({ name: "t", version: "1" }, { maxConcurrency: -1 }),
      (err) => err instanceof NativeError && err.status === -1 && err.code === "POLYMCP_E_INVALID" && err.message.length > 0);
  });
});
