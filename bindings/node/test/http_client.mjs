// Helpers for the HTTP tests: literal JSON over fetch and node:http, SSE
// parsing, and a node:http server around a handler on 127.0.0.1 port 0.
import { once } from "node:events";
import http from "node:http";

export const ACCEPT = "application/json, text/event-stream";

/** The _meta every 2026-07-28 request carries. */
export const META_2026 =
  '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}';

/** The headers of a 2026-07-28 request for method and name. */
export function headers2026(method, name) {
  const h = { "content-type": "application/json", accept: ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": method };
  if (name !== undefined) {
    h["mcp-name"] = name;
  }
  return h;
}

/** A 2026-07-28 tools/call of name with arguments (JSON text) and extra _meta members. */
export function call2026(id, name, args = "{}", meta = "") {
  const m = meta ? META_2026.replace(/}$/, `,${meta}}`) : META_2026;
  return `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":${args},${m}}}`;
}

/** POSTs body (a JSON text) and reads the whole answer. */
export async function post(url, body, headers) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: ACCEPT, ...headers }, body });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** The data of each SSE event, parsed. */
export function sseMessages(text) {
  return text
    .split("\n\n")
    .map((block) => block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"))
    .filter((d) => d !== "")
    .map((d) => JSON.parse(d));
}

/** Runs a node:http server on 127.0.0.1 port 0; returns it and its base URL. */
export async function serve(listener) {
  const server = http.createServer(listener);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

/** Closes a node:http server and its idle keep-alive connections. */
export async function stop(server) {
  server.closeAllConnections();
  server.close();
  await once(server, "close");
}

/** Resolves when signal aborts, or rejects after ms (a failure bound, never a timing assertion). */
export function aborted(signal, ms, what = "the signal to abort") {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    if (signal.aborted) {
      done();
    } else {
      signal.addEventListener("abort", done, { once: true });
    }
  });
}

/** Polls pred every 10 ms until it holds, failing after ms. */
export async function eventually(pred, ms, what) {
  const until = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > until) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}
