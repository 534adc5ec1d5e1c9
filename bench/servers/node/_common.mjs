// Shared by the Node echo servers: the command line (--http HOST:PORT for
// Streamable HTTP, stdio without it) and the readiness line the HTTP servers
// write to stderr, "serving <url>", once they listen.
import { parseArgs } from "node:util";

export const DESCRIPTION = "Returns its text argument as one text item";

export function parse(variants = []) {
  const { values } = parseArgs({
    options: {
      http: { type: "string" }, // HOST:PORT, port 0 for any free port
      path: { type: "string", default: "/mcp" },
      stateless: { type: "boolean", default: false }, // no sessions: a fresh server per request
      json: { type: "boolean", default: false }, // answer POSTs with JSON, not an SSE stream
      handler: { type: "string", default: variants[0] },
    },
  });
  if (variants.length > 0 && !variants.includes(values.handler)) {
    throw new Error(`--handler wants one of ${variants.join(", ")}, got ${values.handler}`);
  }
  if (values.http !== undefined) {
    const i = values.http.lastIndexOf(":");
    const port = Number(values.http.slice(i + 1));
    if (i < 0 || !Number.isInteger(port)) {
      throw new Error(`--http wants HOST:PORT, got ${values.http}`);
    }
    values.host = values.http.slice(0, i).replace(/^\[|\]$/g, "") || "127.0.0.1";
    values.port = port;
  }
  return values;
}

export function announce(url) {
  process.stderr.write(`serving ${url}\n`);
}
