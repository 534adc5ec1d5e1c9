// The host-owned HTTP entry point: Node's http server reads the request,
// the core decides the answer (status, headers, a JSON body or an SSE
// stream) exactly as its own listener would, and the parts come back as
// events on the server's threadsafe function.

import type { IncomingMessage, ServerResponse } from "node:http";

import type { NativeBinding, NativeServer } from "./native";

export type HttpHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/** The largest request body the handler buffers before answering 413 (4 MiB). */
export const DEFAULT_MAX_BODY_BYTES = 4 << 20;

/** Events of one exchange, routed by the server to its handler. */
export interface HttpExchanges {
  head(exchange: bigint, status: number, headersJson: string): void;
  body(exchange: bigint, chunk: Buffer): void;
  end(exchange: bigint): void;
}

/** Reads the whole body, refusing more than limit bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners("data");
        req.resume();
        resolve(undefined);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks, size)));
    req.on("error", reject);
  });
}

/** The request's headers as [name, value] pairs, repeated names kept in order. */
export function headerPairs(req: IncomingMessage): [string, string][] {
  const pairs: [string, string][] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    pairs.push([raw[i]!.toLowerCase(), raw[i + 1]!]);
  }
  return pairs;
}

/** Builds the (req, res) handler; exchanges are answered through the server's event stream. */
export function createHttpHandler(
  n: Required<Pick<NativeBinding, "serverHttp" | "httpCancel">>,
  server: NativeServer,
  register: (exchange: bigint, res: ServerResponse) => void,
  maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
): HttpHandler {
  return (req, res, next) => {
    readBody(req, maxBodyBytes).then(
      (body) => {
        if (body === undefined) {
          res.writeHead(413, { "content-type": "text/plain" }).end("request body too large\n");
          return;
        }
        const exchange = n.serverHttp(server, req.method ?? "GET", req.url ?? "/", JSON.stringify(headerPairs(req)), body);
        register(exchange, res);
        res.on("close", () => {
          if (!res.writableEnded) {
            n.httpCancel(exchange);
          }
        });
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

/** Writes the core's answer parts to the Node responses, by exchange. */
export class ResponseTable implements HttpExchanges {
  readonly #open = new Map<bigint, ServerResponse>();

  add(exchange: bigint, res: ServerResponse): void {
    this.#open.set(exchange, res);
  }

  head(exchange: bigint, status: number, headersJson: string): void {
    const res = this.#open.get(exchange);
    if (!res || res.headersSent) {
      return;
    }
    const headers = JSON.parse(headersJson) as [string, string][];
    for (const [name, value] of headers) {
      res.appendHeader(name, value);
    }
    res.writeHead(status);
    res.flushHeaders();
  }

  body(exchange: bigint, chunk: Buffer): void {
    this.#open.get(exchange)?.write(chunk);
  }

  end(exchange: bigint): void {
    const res = this.#open.get(exchange);
    this.#open.delete(exchange);
    res?.end();
  }

  /** Ends every open response (the server closed). */
  endAll(): void {
    for (const exchange of [...this.#open.keys()]) {
      this.end(exchange);
    }
  }

  get size(): number {
    return this.#open.size;
  }
}
