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
  /** Client side: the connection ended before the answer (the TypeScript SDK's code). */
  ConnectionClosed: -32000,
  /** Client side: the request's timeout passed (the TypeScript SDK's code). */
  RequestTimeout: -32001,
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

/** A Client's request outlived its timeout; the server was told to stop. */
export class RequestTimeoutError extends McpError {
  constructor(message: string) {
    super(ErrorCode.RequestTimeout, message);
    this.name = "RequestTimeoutError";
  }
}

/** A Client's request ended because the connection did (or the client closed). */
export class ConnectionClosedError extends McpError {
  constructor(message: string) {
    super(ErrorCode.ConnectionClosed, message);
    this.name = "ConnectionClosedError";
  }
}

/**
 * A tool's result that does not match the tool's outputSchema (the client
 * checks every structured result); result is the result as received.
 */
export class OutputSchemaError extends McpError {
  readonly result: unknown;

  constructor(message: string, result: unknown) {
    super(ErrorCode.InvalidParams, message, result);
    this.name = "OutputSchemaError";
    this.result = result;
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
