// Errors a handler throws to choose its answer: an McpError becomes a
// JSON-RPC error; any other Error becomes an isError result with its
// message (the protocol's rule for tool failures).

/** JSON-RPC and MCP error codes. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Legacy revisions: the resource does not exist (2026-07-28 uses InvalidParams). */
  ResourceNotFound: -32002,
} as const;

/** An error answered as a JSON-RPC error with this code and message. */
export class McpError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    if (!Number.isSafeInteger(code)) {
      throw new TypeError(`McpError code must be an integer, got ${String(code)}`);
    }
    this.name = "McpError";
    this.code = code;
    this.data = data;
  }
}

/** Raised by the binding when the native library refuses a call. */
export class NativeError extends Error {
  /** The polymcp status code (POLYMCP_E_*), always negative. */
  readonly status: number;

  constructor(status: number, message: string) {
    super(message);
    this.name = "NativeError";
    this.status = status;
  }
}

/** The text of an error thrown by a handler, which may throw anything. */
export function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    return err.message || err.name;
  }
  if (typeof err === "string") {
    return err;
  }
  try {
    return JSON.stringify(err) ?? String(err);
  } catch {
    return String(err);
  }
}
