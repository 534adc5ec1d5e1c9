// How a Client's request fails: the Error made from the core's status and
// error object, and the AbortError of an aborted signal.

import {
  ConnectionClosedError,
  McpError,
  NativeError,
  OutputSchemaError,
  RequestTimeoutError,
} from "./errors";
import { Status } from "./native";

export function abortError(reason: unknown): Error {
  const err = new DOMException("The operation was aborted", "AbortError");
  if (reason !== undefined) {
    Object.defineProperty(err, "cause", { value: reason, configurable: true, writable: true });
  }
  return err;
}

export function parse(json: string): unknown {
  return json === "" ? undefined : JSON.parse(json);
}

/** The core's error object. */
export interface ErrorObject {
  message?: string;
  code?: number;
  data?: unknown;
}

/** The Error a request ends with, from the core's status and error object (JSON). */
export function failure(rc: number, json: string): Error {
  let body: ErrorObject = {};
  try {
    body = (parse(json) as ErrorObject | undefined) ?? {};
  } catch {
    body = { message: json };
  }
  return failureOf(rc, body);
}

/** failure of an error object already parsed. */
export function failureOf(rc: number, body: ErrorObject): Error {
  const message = body.message ?? `polymcp status ${rc}`;
  switch (rc) {
    case Status.RPC:
      return new McpError(typeof body.code === "number" ? body.code : -32603, message, body.data);
    case Status.Output:
      return new OutputSchemaError(message, body.data);
    case Status.Timeout:
      return new RequestTimeoutError(message);
    case Status.Cancelled:
      return abortError(undefined);
    case Status.Closed:
      return new ConnectionClosedError(message);
    default:
      return new NativeError(rc, message);
  }
}
