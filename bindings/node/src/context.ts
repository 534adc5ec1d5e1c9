// The second argument of every handler: the request's cancellation signal,
// its metadata, the notifications it may send while it runs, and the
// questions it may ask the client (elicitation, sampling, roots).

import { McpError, NativeError, errorMessage } from "./errors";
import {
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitResult,
  INPUT_METHODS,
  type InputMethod,
  type InputRequest,
  type JsonSchema,
  LOGGING_LEVELS,
  type ListRootsResult,
  type LoggingLevel,
  type Meta,
} from "./types";

/** Options of the single-question helpers. */
export interface AskOptions {
  /**
   * The question's name: on 2026-07-28 the key of inputRequests (and of the
   * retry's inputResponses). Default q0, q1, … in the order the handler
   * asks, which is the same on every round since the handler runs again
   * from the start.
   */
  key?: string;
}

export interface RequestExtra {
  /** Aborted when the client cancels the request, its deadline passes or the server closes. */
  readonly signal: AbortSignal;
  /** The request's params._meta (empty when it sent none). */
  readonly _meta: Meta;
  /** The protocol revision the request speaks, e.g. "2025-06-18". */
  readonly revision: string;
  /**
   * Reports progress. It is sent only when the client asked (a progressToken
   * in _meta) and only while progress increases; otherwise it does nothing.
   */
  sendProgress(progress: number, total?: number, message?: string): void;
  /** Sends a log message about this request, if the client's log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;

  /**
   * Asks the user for input through the client (elicitation/create; the
   * TypeScript SDK's `server.elicitInput`), with a flat object schema of
   * the form. Resolves to the user's answer: action accept, decline or
   * cancel, and content when accepted.
   *
   * How the question travels depends on the revision; the handler is the
   * same for all of them:
   * - up to 2025-11-25 a request goes to the client now and the promise
   *   waits for its response;
   * - on 2026-07-28 the server never sends requests: when the client's
   *   retry does not carry the answer yet, the call ends with
   *   `input_required` (listing every question asked so far) and this
   *   promise rejects with an internal signal that unwinds the handler —
   *   let it through (do not catch everything); nothing else is sent for
   *   this call. The client retries with the answers and the handler runs
   *   again from the start, when the same question resolves at once.
   *
   * Rejects with an AbortError when the call is cancelled while waiting, an
   * McpError (-32602) when the answer is malformed, and an Error when the
   * client refused (legacy revisions: its JSON-RPC error) or did not
   * declare the capability (legacy revisions; on 2026-07-28 the core
   * answers -32021 and the handler unwinds as above). A tool that lets an
   * Error escape answers it as an isError result.
   */
  elicit(message: string, requestedSchema: JsonSchema, options?: AskOptions): Promise<ElicitResult>;
  /**
   * Asks the client's model for a message (sampling/createMessage; the
   * TypeScript SDK's `server.createMessage`). Outcomes as for elicit.
   */
  sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult>;
  /** The client's roots (roots/list; the TypeScript SDK's `server.listRoots`). Outcomes as for elicit. */
  roots(options?: AskOptions): Promise<ListRootsResult>;
  /**
   * Asks several questions in one round, {key: {method, params}}, and
   * resolves to the client's results by key. On 2026-07-28 they go out
   * together in one input_required; before, one request each (sent in key
   * order), all awaited. The answers are the client's result objects as
   * they came (not checked as elicit, sample and roots check theirs).
   */
  ask<K extends string>(requests: { [key in K]: InputRequest }): Promise<{ [key in K]: { [member: string]: unknown } }>;
  /**
   * What setInputState kept in an earlier round of this request (2026-07-28,
   * where it travels signed in requestState) or earlier in this call; ""
   * when nothing was kept.
   */
  readonly inputState: string;
  /**
   * Keeps state (a few KiB of text at most; JSON.stringify structured
   * data) for the request's next round. Signed, not encrypted: the client
   * can read it, so keep no secrets in it.
   */
  setInputState(state: string): void;
  /**
   * Whether the client declared the capability a question of that method
   * needs (elicitation, sampling, roots; the top level only), so a handler
   * can ask only what the client can answer.
   */
  declared(method: InputMethod): boolean;
  /** The client's declared capabilities (from initialize, or the request's _meta on 2026-07-28). */
  readonly clientCapabilities: { [key: string]: unknown };
  /**
   * Turns this call into a task (the 2026-07-28 tasks extension), for a
   * tool registered with `task: { support, start: "handler" }` once the
   * questions it must settle first were answered: the client gets its task
   * handle now and polls for what the handler returns later. True when the
   * call is a task now (or already was); false when it cannot become one
   * (not a task tool, a revision before 2026-07-28, a request that did not
   * declare the extension, or the server's task limits reached), when it
   * simply goes on as an ordinary call: a handler that must run as a task
   * may fail it then, say with McpError(-32603, "overloaded"), which is
   * how the core answers a required task past the limits. Throws the
   * signal's AbortError for a call already over (cancelled).
   *
   * From then on questions (elicit, sample, roots, ask) wait for the
   * client's tasks/update instead of ending the call with input_required,
   * progress messages become the task's statusMessage, log messages are
   * dropped, and tasks/cancel aborts `signal`.
   */
  startTask(): boolean;
}

/**
 * What a RequestExtra needs from the server that created it, each by call
 * handle (one host for every call, so a call allocates no closures).
 */
export interface CallHost {
  progress(call: bigint, json: string): void;
  log(call: bigint, json: string): void;
  /** polymcp_call_info's JSON, undefined once the call is gone. */
  info(call: bigint): string | undefined;
  /** polymcp_call_input off the JS thread: resolves to its status and payload (answers, or the message). */
  input(call: bigint, requestsJson: string): Promise<[status: number, payload: string]>;
  inputState(call: bigint): string | undefined;
  setInputState(call: bigint, state: string): number;
  /** polymcp_call_start_task: its status. */
  startTask(call: bigint): number;
}

const LEVELS: ReadonlySet<string> = new Set(LOGGING_LEVELS);
const METHODS: ReadonlySet<string> = new Set(INPUT_METHODS);

/** The progress notification payload, checked here so a bad value fails in the handler that sent it. */
export function progressJson(progress: number, total?: number, message?: string): string {
  if (!Number.isFinite(progress)) {
    throw new TypeError("progress must be a finite number");
  }
  if (total !== undefined && !Number.isFinite(total)) {
    throw new TypeError("total must be a finite number");
  }
  return JSON.stringify({ progress, total, message });
}

export function logJson(level: LoggingLevel, data: unknown, logger?: string): string {
  if (!LEVELS.has(level)) {
    throw new TypeError(`unknown log level ${JSON.stringify(level)}; one of ${LOGGING_LEVELS.join(", ")}`);
  }
  return JSON.stringify({ level, logger, data: data === undefined ? null : data });
}

/**
 * Thrown through a handler when its call is already over: on 2026-07-28
 * the core answered input_required (or -32021 for a capability the client
 * did not declare) while the handler asked. The server sends nothing more
 * for the call. Not an Error, so `catch (e) { if (e instanceof Error) … }`
 * lets it through.
 */
export class CallEnded {
  readonly reason: string;
  constructor(reason: string) {
    this.reason = reason;
  }
  toString(): string {
    return `polymcp: the call already ended (${this.reason})`;
  }
}

// polymcp.h's codes, as callInput and callStartTask report them.
const OK = 0;
const E_INVALID = -1;
const E_UNKNOWN_CALL = -3;
const E_CLOSED = -4;
const E_INPUT_REQUIRED = -8;
const E_CAPABILITY = -9;
const E_CANCELLED = -10;
const E_LIMIT = -11;

const MODERN = "2026-07-28";

// The _meta of requests that sent none (frozen: shared by every such call).
const EMPTY_META: Meta = Object.freeze({});

/**
 * The RequestExtra of one call, and its cancellation: the one object a
 * call allocates besides its params. The AbortController is made only when
 * the handler reads `signal` (one per call was an eighth of a small call's
 * JavaScript time, and most handlers never look).
 */
export class CallContext implements RequestExtra {
  readonly _meta: Meta;
  readonly revision: string;
  readonly #call: bigint;
  readonly #host: CallHost;
  #controller: AbortController | undefined = undefined;
  #aborted = false;
  #info: { [key: string]: unknown } | undefined = undefined;
  #asked = 0;
  #ended: CallEnded | undefined = undefined;

  constructor(call: bigint, host: CallHost, params: { _meta?: unknown; revision?: unknown }) {
    this.#call = call;
    this.#host = host;
    this._meta = (params._meta ?? EMPTY_META) as Meta;
    this.revision = typeof params.revision === "string" ? params.revision : "";
  }

  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      this.#controller = new AbortController();
      if (this.#aborted) {
        this.#controller.abort();
      }
    }
    return this.#controller.signal;
  }

  /** Whether the call was cancelled. */
  get aborted(): boolean {
    return this.#aborted;
  }

  /** The call was cancelled (on_cancel, or the server closed): aborts the signal, once. */
  abort(): void {
    if (!this.#aborted) {
      this.#aborted = true;
      this.#controller?.abort();
    }
  }

  /** Whether the core ended the call while the handler asked (nothing more may be sent). */
  get ended(): boolean {
    return this.#ended !== undefined;
  }

  sendProgress(progress: number, total?: number, message?: string): void {
    this.#host.progress(this.#call, progressJson(progress, total, message));
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    this.#host.log(this.#call, logJson(level, data, logger));
  }

  get clientCapabilities(): { [key: string]: unknown } {
    const caps = this.#details().clientCapabilities;
    return isObject(caps) ? caps : {};
  }

  declared(method: InputMethod): boolean {
    const caps = this.clientCapabilities;
    const kind = method === "elicitation/create" ? "elicitation" : method === "sampling/createMessage" ? "sampling" : method === "roots/list" ? "roots" : undefined;
    return kind !== undefined && isObject(caps[kind]);
  }

  get inputState(): string {
    return this.#host.inputState(this.#call) ?? "";
  }

  setInputState(state: string): void {
    if (typeof state !== "string") {
      throw new TypeError("setInputState takes a string (JSON.stringify structured state)");
    }
    this.#host.setInputState(this.#call, state);
  }

  startTask(): boolean {
    if (this.#ended) {
      throw this.#ended;
    }
    this.#abortIfCancelled();
    const status = this.#host.startTask(this.#call);
    switch (status) {
      case OK:
        return true;
      case E_INVALID:
      case E_LIMIT:
        return false; // not a task: the call goes on as an ordinary one
      case E_UNKNOWN_CALL:
      case E_CLOSED:
        this.abort(); // the call is over: cancelled, and on_cancel is on its way
        throw this.signal.reason;
      default:
        throw new NativeError(status, `polymcp_call_start_task failed with status ${status}`);
    }
  }

  async elicit(message: string, requestedSchema: JsonSchema, options?: AskOptions): Promise<ElicitResult> {
    const key = this.#key(options);
    const answer = await this.#one(key, "elicitation/create", { message, requestedSchema });
    if (answer.action !== "accept" && answer.action !== "decline" && answer.action !== "cancel") {
      throw invalid(`${key}: the answer to elicitation/create has no valid action (accept, decline or cancel)`);
    }
    if (answer.content !== undefined && !isObject(answer.content)) {
      throw invalid(`the answer to elicitation/create is malformed: inputResponses.${key}.content must be an object`);
    }
    return answer as unknown as ElicitResult;
  }

  async sample(params: CreateMessageParams, options?: AskOptions): Promise<CreateMessageResult> {
    const key = this.#key(options);
    const answer = await this.#one(key, "sampling/createMessage", params as { [key: string]: unknown });
    const content = answer.content;
    if (content === undefined || content === null || (Array.isArray(content) && content.length === 0)) {
      throw invalid(`${key}: the answer to sampling/createMessage has no content`);
    }
    return answer as unknown as CreateMessageResult;
  }

  async roots(options?: AskOptions): Promise<ListRootsResult> {
    const key = this.#key(options);
    const answer = await this.#one(key, "roots/list", {});
    if (!Array.isArray(answer.roots)) {
      throw invalid(`${key}: the answer to roots/list has no roots array`);
    }
    return answer as unknown as ListRootsResult;
  }

  async ask<K extends string>(requests: { [key in K]: InputRequest }): Promise<{ [key in K]: { [member: string]: unknown } }> {
    if (!isObject(requests) || Object.keys(requests).length === 0) {
      throw new TypeError("ask needs at least one request: {key: {method, params}}");
    }
    const asked: { [key: string]: { method: string; params: unknown } } = {};
    for (const [key, request] of Object.entries(requests) as [string, InputRequest][]) {
      if (key === "" || !isObject(request) || !METHODS.has(request.method)) {
        throw new TypeError(`ask: request ${JSON.stringify(key)} needs a key and a method of ${INPUT_METHODS.join(", ")}`);
      }
      asked[key] = { method: request.method, params: request.params ?? {} };
    }
    const answers = await this.#send(asked);
    for (const [key, { method }] of Object.entries(asked)) {
      if (!isObject(answers[key])) {
        throw invalid(`the client's answer to ${method} (${key}) is not an object`);
      }
    }
    return answers as { [key in K]: { [member: string]: unknown } };
  }

  #key(options: AskOptions | undefined): string {
    const key = options?.key ?? `q${this.#asked}`;
    this.#asked++;
    return key;
  }

  async #one(key: string, method: InputMethod, params: { [key: string]: unknown }): Promise<{ [member: string]: unknown }> {
    const answers = await this.ask({ [key]: { method, params } });
    return answers[key] as { [member: string]: unknown };
  }

  async #send(asked: { [key: string]: { method: string; params: unknown } }): Promise<{ [key: string]: unknown }> {
    if (this.#ended) {
      throw this.#ended;
    }
    this.#abortIfCancelled();
    const [status, payload] = await this.#whileNotCancelled(this.#host.input(this.#call, JSON.stringify(asked)));
    switch (status) {
      case OK: {
        const answers = JSON.parse(payload) as unknown;
        return isObject(answers) ? answers : {};
      }
      case E_INPUT_REQUIRED:
        throw this.#end("input_required");
      case E_CAPABILITY:
        if (this.revision >= MODERN) {
          throw this.#end("-32021: a capability the client did not declare");
        }
        throw new Error(payload);
      case E_CANCELLED:
      case E_UNKNOWN_CALL:
      case E_CLOSED:
        this.abort();
        throw this.signal.reason;
      default:
        // The client answered with an error, or the request was refused.
        throw new Error(payload);
    }
  }

  #end(reason: string): CallEnded {
    this.#ended = new CallEnded(reason);
    return this.#ended;
  }

  #abortIfCancelled(): void {
    if (this.#aborted) {
      throw this.signal.reason;
    }
  }

  // Rejects with the signal's AbortError as soon as the call is cancelled,
  // without waiting for the core to give up on the question.
  #whileNotCancelled<T>(p: Promise<T>): Promise<T> {
    const signal = this.signal;
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e: unknown) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  #details(): { [key: string]: unknown } {
    if (this.#info === undefined) {
      const json = this.#host.info(this.#call);
      let info: unknown;
      try {
        info = json === undefined ? {} : JSON.parse(json);
      } catch (err) {
        throw new Error(`polymcp: call info: ${errorMessage(err)}`);
      }
      this.#info = isObject(info) ? info : {};
    }
    return this.#info;
  }
}

function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(message: string): McpError {
  return new McpError(-32602, message);
}
