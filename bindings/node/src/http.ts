// The host-owned HTTP entry point: Node's http server reads the request,
// the core decides the answer (status, headers, a JSON body or an SSE
// stream) exactly as its own listener would, and the parts come back as
// events on the server's threadsafe function. Body bytes are acknowledged
// to the addon once the socket took them, which is the backpressure that
// slows a stream whose client stops reading.

import type { IncomingMessage, ServerResponse } from "node:http";

import type { NativeBinding, NativeExchange, NativeServer } from "./native";
import { Status } from "./native";

export type HttpHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/** The core's default bound on a POST body (413 past it), as for its own listener. */
export const DEFAULT_MAX_BODY_BYTES = 2_000_000;

/** The core's default Streamable HTTP endpoint. */
export const DEFAULT_PATH = "/mcp";

/**
 * Options of the core's HTTP transport, for `listen()` and (through
 * ServerOptions.http) for `httpHandler()`. Every member is optional; the
 * defaults are the core's (docs/transports.md).
 */
export interface HttpOptions {
  /** The Streamable HTTP endpoint (default "/mcp"). */
  path?: string;
  /** Turns off the 2024-11-05 HTTP+SSE transport (/sse and /message). */
  disableSse?: boolean;
  /** Origin hosts accepted besides loopback (others: 403). */
  allowedOriginHosts?: string[];
  /** Host header values accepted besides loopback (others: 421). */
  allowedHosts?: string[];
  disableHostCheck?: boolean;
  /** No CORS answers (preflight, Access-Control-*) to browser pages of the allowed origins. */
  disableCors?: boolean;
  /** Bound on a POST body (default 2,000,000 bytes; 413 past it). */
  maxBodyBytes?: number;
  /** Connections at once (listen only; default 1024, 503 past it). */
  maxConnections?: number;
  /** Legacy sessions at once (default 1024, 503 past it). */
  maxSessions?: number;
  sessionIdleTimeoutMs?: number;
  readTimeoutMs?: number;
  writeTimeoutMs?: number;
  /** SSE keep-alive comments (default 15000; -1: none). */
  keepAliveMs?: number;
  /** A reply taking longer turns into an SSE stream (default 1000; -1: only notifications do). */
  streamAfterMs?: number;
}

/** The C ABI's JSON for HttpOptions; undefined members are left out by JSON. */
export function httpOptionsJson(o: HttpOptions): { [key: string]: unknown } {
  return {
    path: o.path,
    disable_sse: o.disableSse,
    allowed_origin_hosts: o.allowedOriginHosts,
    allowed_hosts: o.allowedHosts,
    disable_host_check: o.disableHostCheck,
    disable_cors: o.disableCors,
    max_body_bytes: o.maxBodyBytes,
    max_connections: o.maxConnections,
    max_sessions: o.maxSessions,
    session_idle_timeout_ms: o.sessionIdleTimeoutMs,
    read_timeout_ms: o.readTimeoutMs,
    write_timeout_ms: o.writeTimeoutMs,
    keep_alive_ms: o.keepAliveMs,
    stream_after_ms: o.streamAfterMs,
  };
}

/** The request's headers by lower-case name, repeated names kept in order. */
export function headerMap(req: IncomingMessage): { [name: string]: string[] } {
  const out: { [name: string]: string[] } = {};
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    (out[name] ??= []).push(raw[i + 1]!);
  }
  return out;
}

function localAddr(req: IncomingMessage): string {
  const { localAddress, localPort } = req.socket;
  if (localAddress === undefined) {
    return "";
  }
  return localAddress.includes(":") ? `[${localAddress}]:${localPort}` : `${localAddress}:${localPort}`;
}

/** polymcp_server_http's request JSON, for a handler serving endpoint. */
export function requestJson(req: IncomingMessage, endpoint: string): string {
  const url = req.url ?? "/";
  const q = url.indexOf("?");
  return JSON.stringify({
    method: req.method ?? "GET",
    path: pathOf(req, q < 0 ? url : url.slice(0, q), endpoint),
    query: q < 0 ? "" : url.slice(q + 1),
    headers: headerMap(req),
    host: req.headers.host ?? "",
    local_addr: localAddr(req),
  });
}

/**
 * Reads the body, up to limit + 1 bytes: a longer one is handed over cut
 * there, so the core answers 413 in its own words. The rest is discarded.
 */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) {
        req.off("data", onData);
        req.off("end", onEnd);
        req.resume();
        resolve(Buffer.concat(chunks, size).subarray(0, limit + 1));
      }
    };
    const onEnd = () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", reject);
  });
}

type Binding = Pick<NativeBinding, "serverHttp" | "httpAck" | "httpCancel">;

// Body bytes written but not acknowledged to the addon yet; acknowledging
// in batches saves crossings while staying far below its high-water mark.
const ACK_BATCH = 64 << 10;

/** One response in progress. */
class Exchange {
  ex: NativeExchange | undefined;
  ended = false;
  #unacked = 0;
  #draining = false;

  constructor(
    readonly n: Binding,
    readonly res: ServerResponse,
  ) {}

  data(status: number, head: string | undefined, body: Buffer | undefined): void {
    const res = this.res;
    if (res.destroyed || res.writableEnded) {
      return;
    }
    if (status > 0 && !res.headersSent) {
      const headers = JSON.parse(head ?? "{}") as { [name: string]: string[] };
      for (const name in headers) {
        const values = headers[name]!;
        res.setHeader(name, values.length === 1 ? values[0]! : values);
      }
      res.writeHead(status);
      if (body === undefined) {
        res.flushHeaders();
      }
    }
    if (body === undefined) {
      return;
    }
    this.#unacked += body.length;
    if (res.write(body)) {
      if (!this.#draining && this.#unacked >= ACK_BATCH) {
        this.#ack();
      }
    } else if (!this.#draining) {
      this.#draining = true;
      res.once("drain", () => {
        this.#draining = false;
        this.#ack();
      });
    }
  }

  #ack(): void {
    if (this.ex !== undefined && this.#unacked > 0) {
      this.n.httpAck(this.ex, this.#unacked);
    }
    this.#unacked = 0;
  }

  end(code: number): void {
    this.ended = true;
    const res = this.res;
    if (res.destroyed || res.writableEnded) {
      return;
    }
    if (!res.headersSent) {
      // The core ended without an answer: it is closing (or failed).
      unavailable(res, code === Status.Closed ? 503 : 500);
      return;
    }
    res.end();
  }
}

// The core's answer to a request it cannot take because it is shutting
// down (streamhttp's 503), for requests arriving after close.
function unavailable(res: ServerResponse, status: number): void {
  const message = status === 503 ? "server is shutting down" : "internal error";
  const headers: { [name: string]: string } = { "content-type": "application/json" };
  if (status === 503) {
    headers["retry-after"] = "1";
  }
  res.writeHead(status, headers).end(jsonError(message));
}

function internalError(res: ServerResponse, message: string): void {
  res.writeHead(500, { "content-type": "application/json" }).end(jsonError(message));
}

function jsonError(message: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id: null, error: { code: -32603, message } });
}

const BODY_GONE =
  "polymcp: the request body was read before httpHandler() and req.body holds none; " +
  "mount the handler before body-parsing middleware, or let that middleware set req.body";

/**
 * The body a middleware read before the handler, from req.body: bytes and
 * strings as they are, a parsed value (express.json()) serialized again.
 * Undefined for a POST whose body is gone; an empty body for other methods.
 */
function bodyAlreadyRead(req: IncomingMessage): Buffer | undefined {
  const body: unknown = (req as IncomingMessage & { body?: unknown }).body;
  if (body === undefined || body === null) {
    return req.method === "POST" ? undefined : Buffer.alloc(0);
  }
  if (Buffer.isBuffer(body)) {
    return body;
  }
  if (body instanceof Uint8Array) {
    return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  }
  return Buffer.from(typeof body === "string" ? body : JSON.stringify(body), "utf8");
}

/**
 * The request's path as the core should see it: req.url's, unless a router
 * took the endpoint itself off it as its mount path (Express's
 * app.use("/mcp", handler) leaves req.baseUrl "/mcp" and req.url "/"); then
 * the two joined. A prefix the router strips in front of the endpoint
 * (app.use("/tenant", handler) for /tenant/mcp) leaves req.url's path the
 * endpoint already.
 */
function pathOf(req: IncomingMessage, path: string, endpoint: string): string {
  const base: unknown = (req as IncomingMessage & { baseUrl?: unknown }).baseUrl;
  if (path === endpoint || typeof base !== "string" || base === "") {
    return path;
  }
  const joined = path === "/" ? base : base + path;
  return joined === endpoint ? joined : path;
}

/** The open exchanges of one server, by the id the events carry. */
export class ExchangeTable {
  readonly #open = new Map<number, Exchange>();
  #nextId = 1;

  /** Starts an exchange; throws what serverHttp throws. */
  start(n: Binding, server: NativeServer, endpoint: string, req: IncomingMessage, res: ServerResponse, body: Buffer): void {
    const id = this.#nextId++;
    const x = new Exchange(n, res);
    x.ex = n.serverHttp(server, id, requestJson(req, endpoint), body);
    this.#open.set(id, x);
    res.on("close", () => {
      if (!x.ended && x.ex !== undefined) {
        // The client went away first: the core stops the exchange
        // (cancelling a 2026-07-28 handler), and HttpEnd follows.
        n.httpCancel(x.ex);
      }
    });
  }

  data(id: number, status: number, head: string | undefined, body: Buffer | undefined): void {
    this.#open.get(id)?.data(status, head, body);
  }

  end(id: number, code: number): void {
    const x = this.#open.get(id);
    this.#open.delete(id);
    x?.end(code);
  }

  /** Ends every open response (the server closed). */
  endAll(): void {
    for (const id of [...this.#open.keys()]) {
      this.end(id, Status.Closed);
    }
  }

  get size(): number {
    return this.#open.size;
  }
}

/** Builds the (req, res) handler over one server's exchanges. */
export function createHttpHandler(
  n: Binding,
  server: NativeServer,
  table: ExchangeTable,
  isOpen: () => boolean,
  maxBodyBytes: number,
  endpoint: string,
): HttpHandler {
  const start = (req: IncomingMessage, res: ServerResponse, body: Buffer, next?: (err?: unknown) => void) => {
    if (!isOpen()) {
      unavailable(res, 503);
      return;
    }
    try {
      table.start(n, server, endpoint, req, res, body);
    } catch (err) {
      if ((err as { status?: number }).status === Status.Closed) {
        unavailable(res, 503);
      } else if (next) {
        next(err);
      } else {
        unavailable(res, 500);
      }
    }
  };
  return (req, res, next) => {
    if (req.readableEnded) {
      // A body parser in front (express.json(), express.raw(), ...) has
      // read the stream; what it left in req.body is the body.
      const body = bodyAlreadyRead(req);
      if (body === undefined) {
        const err = new Error(BODY_GONE);
        if (next) {
          next(err);
        } else {
          internalError(res, BODY_GONE);
        }
        return;
      }
      if (body.length > maxBodyBytes) {
        res.shouldKeepAlive = false;
      }
      start(req, res, body.subarray(0, maxBodyBytes + 1), next);
      return;
    }
    const declared = Number(req.headers["content-length"]);
    if (declared > maxBodyBytes) {
      // Too large by its own account: the core answers 413 without it.
      req.resume();
      res.shouldKeepAlive = false;
      start(req, res, Buffer.alloc(0), next);
      return;
    }
    readBody(req, maxBodyBytes).then(
      (body) => {
        if (body.length > maxBodyBytes) {
          res.shouldKeepAlive = false;
        }
        start(req, res, body, next);
      },
      (err: unknown) => {
        if (next) {
          next(err);
        } else {
          res.destroy(err instanceof Error ? err : undefined);
        }
      },
    );
  };
}
