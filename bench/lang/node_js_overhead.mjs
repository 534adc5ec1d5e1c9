#!/usr/bin/env node
// The Node binding's JavaScript cost per call, without the core: a stand-in
// for the addon delivers tools/call events of the echo tool in bursts of 16
// (what the addon hands over at C=16) and takes the answers, so only the
// binding's own work is timed (JSON.parse of the params, the handler, the
// result conversion, JSON.stringify). The addon, the Go core and the kernel
// are not in this number; bench/lang/run.sh node measures the whole.
//
//   node bench/lang/node_js_overhead.mjs [--dist DIR] [--handler sync|async] [--calls N]
//
// DIR is a build of bindings/node/dist (default this checkout's), so two
// builds can be compared side by side.
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    dist: { type: "string", default: new URL("../../bindings/node/dist/", import.meta.url).pathname },
    handler: { type: "string", default: "sync" },
    calls: { type: "string", default: "300000" },
  },
});
const require = createRequire(resolve(values.dist) + "/");
const { setNativeForTesting } = require("./native.js");
const { McpServer } = require("./index.js");

let onEvent;
let answered = 0;
let target = 0;
let finished;
setNativeForTesting({
  serverNew(_options, callback) {
    onEvent = callback;
    return {};
  },
  serverAddTool() {},
  callComplete(_call, json) {
    if (!json.startsWith('{"content"')) {
      throw new Error(`unexpected answer ${json}`);
    }
    return answer();
  },
  // A lone text block takes the binding's text path.
  callCompleteText(_call, text) {
    if (text !== "0123456789abcdef") {
      throw new Error(`unexpected text ${text}`);
    }
    return answer();
  },
  callFail(_call, code, message) {
    throw new Error(`failed: ${code} ${message}`);
  },
  callInfo() {
    return undefined;
  },
});

const server = new McpServer({ name: "overhead", version: "1" });
const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
server.registerTool("echo", { inputSchema: schema }, values.handler === "sync"
  ? ({ text }) => ({ content: [{ type: "text", text }] })
  : async ({ text }) => ({ content: [{ type: "text", text }] }));
const payload = JSON.stringify({ name: "echo", arguments: { text: "0123456789abcdef" }, revision: "2025-06-18" });

function answer() {
  if (++answered === target) {
    finished();
  }
  return 0;
}

let nextCall = 1n;
function run(count) {
  answered = 0;
  target = count;
  const done = new Promise((resolve) => (finished = resolve));
  let sent = 0;
  const burst = () => {
    for (let i = 0; i < 16 && sent < count; i++, sent++) {
      onEvent(1, nextCall++, 1, 1, payload, undefined);
    }
    if (sent < count) {
      setImmediate(burst);
    }
  };
  burst();
  return done;
}

const calls = Number(values.calls);
await run(Math.min(50_000, calls)); // warm up the JIT
const cpu0 = process.cpuUsage();
const wall0 = process.hrtime.bigint();
await run(calls);
const cpu = process.cpuUsage(cpu0);
const wall = Number(process.hrtime.bigint() - wall0);
console.log(JSON.stringify({
  dist: values.dist, handler: values.handler, calls,
  cpu_ns_per_call: Math.round(((cpu.user + cpu.system) * 1000) / calls),
  wall_ns_per_call: Math.round(wall / calls),
}));
