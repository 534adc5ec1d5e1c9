#!/usr/bin/env node
// The echo tool on the official TypeScript SDK (@modelcontextprotocol/sdk),
// McpServer with default options.
//
//   node sdk_echo.mjs                                   # stdio
//   node sdk_echo.mjs --http 127.0.0.1:0                # Streamable HTTP, sessions, SSE answers
//   node sdk_echo.mjs --http 127.0.0.1:0 --stateless --json
//
// HTTP follows the SDK's own examples: with sessions, one McpServer and
// StreamableHTTPServerTransport per session, found by Mcp-Session-Id;
// stateless, a fresh server and transport for every request.
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";

import { DESCRIPTION, announce, parse } from "./_common.mjs";

function build() {
  const server = new McpServer({ name: "ts-sdk-echo", version: "1.32.2" });
  server.registerTool("echo", { description: DESCRIPTION, inputSchema: { text: z.string() } },
    async ({ text }) => ({ content: [{ type: "text", text }] }));
  return server;
}

function readJson(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        resolve(chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : undefined);
      } catch (err) {
        reject(err);
      }
    });
    req.on("error", reject);
  });
}

function fail(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

function statefulHandler(json) {
  const sessions = new Map();
  return async (req, res) => {
    const id = req.headers["mcp-session-id"];
    const body = req.method === "POST" ? await readJson(req) : undefined;
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined) {
      if (id !== undefined || req.method !== "POST" || !isInitializeRequest(body)) {
        return fail(res, id === undefined ? 400 : 404, "no valid session");
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: json,
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await build().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  };
}

function statelessHandler(json) {
  return async (req, res) => {
    if (req.method !== "POST") return fail(res, 405, "method not allowed");
    const body = await readJson(req);
    const server = build();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: json });
    res.on("close", () => {
      transport.close();
      server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

async function main() {
  const args = parse();
  if (args.http === undefined) {
    await build().connect(new StdioServerTransport());
    return;
  }
  const handle = args.stateless ? statelessHandler(args.json) : statefulHandler(args.json);
  const http = createServer((req, res) => {
    if (new URL(req.url, "http://x").pathname !== args.path) return fail(res, 404, "not found");
    handle(req, res).catch((err) => {
      if (!res.headersSent) fail(res, 500, String(err?.message ?? err));
    });
  });
  http.listen(args.port, args.host, () => {
    const { address, port } = http.address();
    announce(`http://${address.includes(":") ? `[${address}]` : address}:${port}${args.path}`);
  });
}

await main();
