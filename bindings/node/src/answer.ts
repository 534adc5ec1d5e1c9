// One call from the core, answered: the params of tools/call,
// resources/read, prompts/get or completion/complete go to the entry's
// handler, and what it returns or throws becomes the result or error.

import type { RequestExtra } from "./context";
import { ErrorCode, McpError, errorMessage } from "./errors";
import { CallKind } from "./native";
import type { CompleteCallback, Entry } from "./registry";
import { toCallToolResult, toCompletion, toGetPromptResult, toReadResourceResult, toolErrorResult } from "./results";

type Params = { [key: string]: unknown };

/** A JSON-RPC error, or a result that reports the failure (tools' isError). */
export type Failure = { code: number; message: string; data?: unknown } | { result: unknown };

type Awaitable<T> = T | PromiseLike<T>;

/** Whether v is a promise (or any thenable), which the answer must wait for. */
export function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";
}

// f(v) at once when v is a plain value, else once it resolves: a handler
// that returns its result without awaiting anything is answered in the
// same turn, with no promise made for it.
function andThen<T, U>(v: Awaitable<T>, f: (value: T) => Awaitable<U>): Awaitable<U> {
  return isThenable(v) ? Promise.resolve(v).then(f) : f(v);
}

/**
 * The result object of one call: a plain value when the handler (and its
 * argument parsing) returned synchronously, else a promise of it. Throws,
 * or rejects, with the handler's error.
 */
export function answerFor(kind: number, entry: Entry | undefined, params: Params, extra: RequestExtra): Awaitable<unknown> {
  switch (kind) {
    case CallKind.Tool:
      return callTool(need(entry, "tool", params.name), params, extra);
    case CallKind.Resource:
      return readResource(need(entry, "resource", params.uri), params, extra);
    case CallKind.Prompt:
      return getPrompt(need(entry, "prompt", params.name), params, extra);
    case CallKind.Complete:
      return complete(entry, params);
    default:
      throw new McpError(ErrorCode.InternalError, `polymcp: unknown call kind ${kind}`);
  }
}

/** How a thrown error is answered: tools report it in the result, the rest as JSON-RPC errors. */
export function failureFor(kind: number, err: unknown): Failure {
  if (err instanceof McpError) {
    return err.data === undefined ? { code: err.code, message: err.message } : { code: err.code, message: err.message, data: err.data };
  }
  if (kind === CallKind.Tool) {
    return { result: toolErrorResult(err) };
  }
  return { code: ErrorCode.InternalError, message: errorMessage(err) };
}

// An entry removed while its call was on the way is answered like an unknown name.
function need<K extends Entry["kind"]>(entry: Entry | undefined, kind: K, name: unknown): Extract<Entry, { kind: K }> {
  if (entry?.kind !== kind) {
    throw new McpError(ErrorCode.InvalidParams, `unknown ${kind} ${JSON.stringify(name)}`);
  }
  return entry as Extract<Entry, { kind: K }>;
}

function callTool(entry: Extract<Entry, { kind: "tool" }>, params: Params, extra: RequestExtra): Awaitable<unknown> {
  const raw = params.arguments ?? {};
  const handler = entry.handler;
  if (!entry.input.parse) {
    return andThen(handler(raw as never, extra), toCallToolResult);
  }
  return entry.input.parse(raw).then((args) => andThen(handler(args as never, extra), toCallToolResult));
}

function readResource(entry: Extract<Entry, { kind: "resource" }>, params: Params, extra: RequestExtra): Awaitable<unknown> {
  const uri = String(params.uri);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `not a URI: ${JSON.stringify(uri)}`);
  }
  const vars = (params.variables ?? {}) as { [name: string]: string };
  return andThen(entry.handler(url, vars, extra), (value) => toReadResourceResult(value, uri, entry.mimeType));
}

function getPrompt(entry: Extract<Entry, { kind: "prompt" }>, params: Params, extra: RequestExtra): Awaitable<unknown> {
  const raw = params.arguments ?? {};
  const parse = entry.args?.parse;
  const run = (args: unknown) => andThen(entry.handler(args as never, extra), toGetPromptResult);
  return parse ? parse(raw).then(run) : run(raw);
}

function complete(entry: Entry | undefined, params: Params): Awaitable<unknown> {
  const argument = (params.argument ?? {}) as { name?: string; value?: string };
  const context = (params.context ?? {}) as { arguments?: { [name: string]: string } };
  const completer: CompleteCallback | undefined =
    entry?.kind === "completion" && argument.name !== undefined ? entry.complete[argument.name] : undefined;
  if (!completer) {
    return { completion: { values: [] } };
  }
  const value = typeof argument.value === "string" ? argument.value : "";
  return andThen(completer(value, { arguments: context.arguments ?? {} }), (got) => ({ completion: toCompletion(got) }));
}
