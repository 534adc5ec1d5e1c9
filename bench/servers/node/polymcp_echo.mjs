#!/usr/bin/env node
// The echo tool on polymcp's Node binding (bindings/node of this checkout,
// built by `make -C bindings/node build`).
//
//   node polymcp_echo.mjs [--handler async|sync]          # stdio
//   node polymcp_echo.mjs --http 127.0.0.1:0              # Streamable HTTP (every revision)
//
// --stateless and --json are accepted and ignored: polymcp's one endpoint
// serves sessions and stateless requests alike, as the client asks.
import { McpServer } from "../../../bindings/node/esm/index.mjs";

import { DESCRIPTION, announce, parse } from "./_common.mjs";

const args = parse(["async", "sync"]);
const server = new McpServer({ name: "polymcp-echo", version: "0.1.0" });
const schema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const echo = args.handler === "sync"
  ? ({ text }) => ({ content: [{ type: "text", text }] })
  : async ({ text }) => ({ content: [{ type: "text", text }] });
server.registerTool("echo", { description: DESCRIPTION, inputSchema: schema }, echo);

if (args.http === undefined) {
  await server.connectStdio();
} else {
  announce(await server.listen({ host: args.host, port: args.port, path: args.path }));
}
