// Client: the TypeScript SDK's Client API over polymcp's Go client (the C
// ABI's polymcp_client_*, ABI 1.8). The core does the transports (a
// command over stdio, Streamable HTTP with the HTTP+SSE fallback, a server
// of this process in memory), the revision negotiation, paging, timeouts,
// output schema checks, input rounds and tasks; this class turns its
// callbacks into Promises and answers the server's questions with the
// handlers it was given.

import { ConnectionClosedError, McpError, NativeError, errorMessage } from "./errors";
import {
  ClientEventType,
  type NativeBinding,
  type NativeClient,
  Status,
  nativeClient,
} from "./native";
import { McpServer, nativeServers } from "./server";
import type {
  CompleteParams,
  CompleteResult,
  GetPromptParams,
  InitializeResult,
  ListParams,
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  ListenFilter,
  LoggingMessage,
  Progress,
  ReadResourceParams,
  CallToolParams,
  ServerCapabilities,
} from "./client_types";
import type {
  CallToolResult,
  CreateMessageParams,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ReadResourceResult,
} from "./types";
import { type ErrorObject, abortError, failure, failureOf, parse } from "./client_errors";
import { type Authorizer, authorize, oauthOption } from "./client_oauth";
import {
  type ClientOptions,
  type ClientTarget,
  type ElicitRequestParams,
  type QuestionExtra,
  type RequestOptions,
  capabilitiesOption,
} from "./client_options";
import { Subscription, type SubscriptionOptions, deliver, ended, wants } from "./subscription";

type ClientState = "new" | "connecting" | "connected" | "closing" | "closed";

interface Pending {
  resolve(value: unknown): void;
  reject(err: unknown): void;
  onprogress?: (progress: Progress) => void;
  /** Settled already (aborted): the core's late answer is dropped. */
  done: boolean;
  cleanup?: () => void;
  /** subscriptions/listen: the acknowledgement opens the Subscription, before anything else is delivered. */
  onAck?: (result: unknown, tag: number) => unknown;
}

/** The tag of the connect's on_response; requests count from 1. */
const CONNECT_TAG = 0;
/** The core's notification that a subscription this side did not end has ended. */
const SUBSCRIPTION_ENDED = "polymcp/subscription_ended";

/** A list request's params: {} for none (the core then fetches every page). */
function isSchemaLike(value: unknown): boolean {
  return (
    typeof value === "object" &&
    value !== null &&
    (typeof (value as { parse?: unknown }).parse === "function" || "~standard" in value)
  );
}

/**
 * An MCP client. connect() it to a server, then call the server's tools,
 * read its resources and get its prompts; close() it when done (or `await
 * using client = ...`). It keeps the event loop alive while requests are
 * pending, never while idle, and a closed client holds nothing.
 */
export class Client implements AsyncDisposable {
  readonly clientInfo: Implementation;
  /** Called once when the connection ends, by close() or by itself. */
  onclose?: () => void;
  /** Called when the connection ended by itself (rc and reason of the core), before onclose. */
  onerror?: (error: Error) => void;

  readonly #options: ClientOptions;
  /** Answers oauth/authorize, for a connect with the oauth option (authorization_code). */
  #authorizer: Authorizer | undefined;
  #native: NativeBinding | undefined;
  #handle: NativeClient | undefined;
  #state: ClientState = "new";
  #server: InitializeResult | undefined;
  readonly #pending = new Map<number, Pending>();
  readonly #questions = new Map<bigint, AbortController>();
  /** Open subscriptions by the tag of their listen request, which the core keeps taken. */
  readonly #subscriptions = new Map<number, Subscription>();
  #nextTag = 1;
  /** Whether the native client holds the event loop now. */
  #held = false;
  #closed: Promise<void>;
  #resolveClosed!: () => void;

  constructor(clientInfo: Implementation, options: ClientOptions = {}) {
    if (typeof clientInfo?.name !== "string" || typeof clientInfo.version !== "string") {
      throw new TypeError("Client needs { name, version }");
    }
    this.clientInfo = { ...clientInfo };
    this.#options = { ...options };
    this.#closed = new Promise((resolve) => (this.#resolveClosed = resolve));
  }

  /**
   * Connects and negotiates the revision; resolves once the server
   * answered. A Client connects once.
   */
  async connect(target: ClientTarget, options: { signal?: AbortSignal } = {}): Promise<InitializeResult> {
    if (this.#state !== "new") {
      throw new Error(`polymcp: this Client is ${this.#state === "connected" ? "already connected" : this.#state}; make a new one`);
    }
    const n = nativeClient();
    const json: { [key: string]: unknown } = {};
    let server: ReturnType<typeof nativeServers.get>;
    let authorizer: Authorizer | undefined;
    if (target instanceof McpServer) {
      server = nativeServers.get(target);
    } else if (typeof target === "object" && target !== null && "command" in target && typeof target.command === "string") {
      json.command = [target.command, ...(target.args ?? []).map(String)];
      if (target.env !== undefined) json.env = target.env;
      if (target.cwd !== undefined) json.cwd = target.cwd;
    } else if (typeof target === "object" && target !== null && "url" in target) {
      json.url = String(target.url);
      if (target.headers !== undefined) json.headers = target.headers;
      if (target.oauth !== undefined && target.oauth !== false) {
        [json.oauth, authorizer] = oauthOption(target.oauth, this.clientInfo);
      }
    } else {
      throw new TypeError("connect() takes { command, args? }, { url } or a polymcp McpServer");
    }
    Object.assign(json, this.#connectOptions());
    options.signal?.throwIfAborted();
    this.#native = n;
    this.#authorizer = authorizer;
    this.#state = "connecting";
    const connected = new Promise<unknown>((resolve, reject) => {
      this.#pending.set(CONNECT_TAG, { resolve, reject, done: false });
    });
    try {
      this.#handle = n.clientConnect(JSON.stringify(json), server, this.#onEvent);
    } catch (err) {
      this.#pending.delete(CONNECT_TAG);
      this.#state = "closed";
      this.#resolveClosed();
      throw err;
    }
    this.#held = true; // the addon holds the loop from the start: the connect is pending
    const onAbort = () => void this.close();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      const result = (await connected) as InitializeResult;
      this.#server = result;
      if (this.#state === "connecting") {
        this.#state = "connected";
      }
      return result;
    } catch (err) {
      if (options.signal?.aborted) {
        throw abortError(options.signal.reason);
      }
      throw err;
    } finally {
      options.signal?.removeEventListener("abort", onAbort);
    }
  }

  #connectOptions(): { [key: string]: unknown } {
    const o = this.#options;
    const json: { [key: string]: unknown } = { client_info: this.clientInfo };
    if (o.revision !== undefined) json.revision = o.revision;
    if (o.timeout !== undefined) json.timeout_ms = o.timeout;
    if (o.resetTimeoutOnProgress) json.reset_timeout_on_progress = true;
    if (o.probeTimeout !== undefined) json.probe_timeout_ms = o.probeTimeout;
    if (o.maxPages !== undefined) json.max_pages = o.maxPages;
    if (o.maxInputRounds !== undefined) json.max_input_rounds = o.maxInputRounds;
    if (o.maxQuestions !== undefined) json.max_questions = o.maxQuestions;
    if (o.tasks) json.tasks = true;
    if (o.skipOutputValidation) json.skip_output_validation = true;
    if (o.onSampling !== undefined) json.sampling = true;
    if (o.onElicitation !== undefined) json.elicitation = true;
    if (o.roots !== undefined) json.roots = true;
    const declared = capabilitiesOption(o.capabilities, o);
    if (declared !== undefined) json.capabilities = declared;
    return json;
  }

  /** The negotiated revision, once connected. */
  get protocolVersion(): string | undefined {
    return this.#server?.protocolVersion;
  }

  /** The server's name and version, once connected. */
  getServerVersion(): Implementation | undefined {
    return this.#server?.serverInfo;
  }

  getServerCapabilities(): ServerCapabilities | undefined {
    return this.#server?.capabilities;
  }

  getInstructions(): string | undefined {
    return this.#server?.instructions || undefined;
  }

  /**
   * Sends any request and resolves to its result: the escape hatch for
   * methods without a helper. The core adds the revision's _meta; a list
   * method without a cursor fetches every page.
   */
  request<T = { [key: string]: unknown }>(method: string, params?: object, options: RequestOptions = {}): Promise<T> {
    return this.#request(method, params, options) as Promise<T>;
  }

  #request(method: string, params: object | undefined, options: RequestOptions, onAck?: (result: unknown, tag: number) => unknown): Promise<unknown> {
    if (typeof method !== "string" || method === "") {
      return Promise.reject(new TypeError("request() needs a method"));
    }
    if (this.#state === "new") {
      return Promise.reject(new Error("polymcp: the Client is not connected; call connect() first"));
    }
    if (this.#state === "closing" || this.#state === "closed" || this.#handle === undefined) {
      return Promise.reject(new ConnectionClosedError("polymcp: the client is closed"));
    }
    const { signal } = options;
    if (signal?.aborted) {
      return Promise.reject(abortError(signal.reason));
    }
    // Most requests have no options: "" spares the stringify here and the
    // core's decoding of "{}".
    let opts = "";
    if (options.timeout !== undefined || options.onprogress !== undefined || options._meta !== undefined) {
      const o: { [key: string]: unknown } = {};
      if (options.timeout !== undefined) o.timeout_ms = options.timeout;
      if (options.onprogress !== undefined) o.progress = true;
      if (options._meta !== undefined) o.meta = options._meta;
      opts = JSON.stringify(o);
    }
    const tag = this.#nextTag++;
    const handle = this.#handle;
    const native = this.#native!;
    const promise = new Promise<unknown>((resolve, reject) => {
      const entry: Pending = { resolve, reject, onprogress: options.onprogress, done: false, onAck };
      if (signal !== undefined) {
        const onAbort = () => {
          if (entry.done) {
            return;
          }
          entry.done = true;
          // Still pending for the core: the tag stays taken (and the loop
          // held) until its on_response, which tells the server first.
          native.clientCancel(handle, tag);
          reject(abortError(signal.reason));
        };
        signal.addEventListener("abort", onAbort, { once: true });
        entry.cleanup = () => signal.removeEventListener("abort", onAbort);
      }
      this.#pending.set(tag, entry);
    });
    try {
      native.clientRequest(handle, method, params === undefined ? "" : JSON.stringify(params), opts, tag);
    } catch (err) {
      const entry = this.#pending.get(tag);
      this.#pending.delete(tag);
      entry?.cleanup?.();
      if (err instanceof NativeError && err.status === Status.Closed) {
        return Promise.reject(new ConnectionClosedError(err.message));
      }
      return Promise.reject(err);
    }
    this.#hold();
    return promise;
  }

  ping(options?: RequestOptions): Promise<{ [key: string]: unknown }> {
    return this.request("ping", undefined, options);
  }

  /** Every tool (all pages) without a cursor; one page with it. */
  listTools(params?: ListParams, options?: RequestOptions): Promise<ListToolsResult> {
    return this.request("tools/list", params, options);
  }

  /**
   * Calls a tool. A structured result is checked against the tool's
   * outputSchema (OutputSchemaError when it does not match); a tool's own
   * failure is a result with isError, a protocol error an McpError. The
   * TypeScript SDK's (params, resultSchema, options) form works too; the
   * schema is not used.
   */
  callTool(params: CallToolParams, options?: RequestOptions): Promise<CallToolResult>;
  callTool(params: CallToolParams, resultSchema: unknown, options?: RequestOptions): Promise<CallToolResult>;
  callTool(params: CallToolParams, second?: unknown, third?: RequestOptions): Promise<CallToolResult> {
    const options = third ?? (second === undefined || isSchemaLike(second) ? undefined : (second as RequestOptions));
    if (typeof params?.name !== "string") {
      return Promise.reject(new TypeError("callTool() needs { name }"));
    }
    return this.request("tools/call", params.arguments === undefined ? { ...params, arguments: {} } : params, options);
  }

  listResources(params?: ListParams, options?: RequestOptions): Promise<ListResourcesResult> {
    return this.request("resources/list", params, options);
  }

  listResourceTemplates(params?: ListParams, options?: RequestOptions): Promise<ListResourceTemplatesResult> {
    return this.request("resources/templates/list", params, options);
  }

  readResource(params: ReadResourceParams, options?: RequestOptions): Promise<ReadResourceResult> {
    return this.request("resources/read", params, options);
  }

  subscribeResource(params: { uri: string }, options?: RequestOptions): Promise<{ [key: string]: unknown }> {
    return this.request("resources/subscribe", params, options);
  }

  unsubscribeResource(params: { uri: string }, options?: RequestOptions): Promise<{ [key: string]: unknown }> {
    return this.request("resources/unsubscribe", params, options);
  }

  listPrompts(params?: ListParams, options?: RequestOptions): Promise<ListPromptsResult> {
    return this.request("prompts/list", params, options);
  }

  getPrompt(params: GetPromptParams, options?: RequestOptions): Promise<GetPromptResult> {
    return this.request("prompts/get", params, options);
  }

  complete(params: CompleteParams, options?: RequestOptions): Promise<CompleteResult> {
    return this.request("completion/complete", params, options);
  }

  setLoggingLevel(level: LoggingLevel, options?: RequestOptions): Promise<{ [key: string]: unknown }> {
    return this.request("logging/setLevel", { level }, options);
  }

  /**
   * Opens a 2026-07-28 subscription (subscriptions/listen) and resolves
   * once the server acknowledged it: `sub.honoured` is what it agreed to
   * send. The notifications come to options.onNotification, or to `for
   * await (const n of sub)`, and to the client's onNotification. Older
   * revisions have no subscriptions/listen (use subscribeResource and the
   * client's onNotification there).
   */
  listen(notifications: ListenFilter, options: SubscriptionOptions = {}): Promise<Subscription> {
    const requested: ListenFilter = { ...notifications };
    const { signal } = options;
    return this.#request("subscriptions/listen", { notifications: requested }, { signal }, (result, tag) => {
      const honoured = (result as { notifications?: ListenFilter }).notifications ?? {};
      const onAbort = () => void sub.close();
      const sub = new Subscription(
        requested,
        honoured,
        () => {
          signal?.removeEventListener("abort", onAbort);
          this.#unlisten(tag);
        },
        options,
      );
      this.#subscriptions.set(tag, sub);
      signal?.addEventListener("abort", onAbort, { once: true });
      return sub;
    }) as Promise<Subscription>;
  }

  /** The subscription of tag ended on this side: the core is told and lets go of the tag. */
  #unlisten(tag: number): void {
    if (!this.#subscriptions.delete(tag)) {
      return;
    }
    if (this.#state === "connected" || this.#state === "connecting") {
      // UnknownCall when the server ended it already; the core let go then.
      this.#native!.clientCancel(this.#handle!, tag);
    }
    this.#hold();
  }

  /** Tells the server the roots changed (notifications/roots/list_changed, on the revisions that have it). */
  async sendRootsListChanged(): Promise<void> {
    await this.request("notifications/roots/list_changed");
  }

  /**
   * Ends the connection: a started server gets EOF (and is killed 2 s
   * later), an HTTP session is deleted; requests in flight reject with
   * ConnectionClosedError. Resolves once the core let go of the client.
   */
  async close(): Promise<void> {
    if (this.#state === "new") {
      this.#state = "closed";
      this.#resolveClosed();
      return;
    }
    if (this.#state === "connecting" || this.#state === "connected") {
      this.#state = "closing";
      const rc = this.#native!.clientClose(this.#handle!);
      if (rc !== Status.OK) {
        // Already gone: the Closed event is on its way or was delivered.
      }
    }
    await this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** The native client keeps the loop alive exactly while something is pending. */
  #hold(): void {
    const want = this.#pending.size > 0 || this.#subscriptions.size > 0;
    if (want !== this.#held && this.#handle !== undefined && this.#state !== "closed" && this.#state !== "closing") {
      this.#native!.clientRef(this.#handle, want);
      this.#held = want;
    }
  }

  #onEvent = (type: number, id: number | bigint, rc: number, a: string, b: string): void => {
    switch (type) {
      case ClientEventType.Response:
        this.#settle(Number(id), rc, a);
        break;
      case ClientEventType.Progress: {
        const entry = this.#pending.get(Number(id));
        if (entry?.onprogress !== undefined && !entry.done) {
          this.#deliver(() => entry.onprogress!(parse(a) as Progress));
        }
        break;
      }
      case ClientEventType.Notification:
        this.#notification(a, b);
        break;
      case ClientEventType.Question:
        void this.#question(id as bigint, a, b);
        break;
      case ClientEventType.QuestionCancel:
        this.#questions.get(id as bigint)?.abort(new Error("polymcp: the server no longer wants this answer"));
        this.#questions.delete(id as bigint);
        break;
      case ClientEventType.Closed:
        this.#onClosed(rc, a);
        break;
    }
  };

  /** Runs a user callback; a throw is reported as an uncaught exception would be, on its own. */
  #deliver(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      queueMicrotask(() => {
        throw err;
      });
    }
  }

  #settle(tag: number, rc: number, json: string): void {
    const entry = this.#pending.get(tag);
    if (entry === undefined) {
      return;
    }
    this.#pending.delete(tag);
    try {
      if (entry.done) {
        return;
      }
      entry.done = true;
      entry.cleanup?.();
      if (rc !== Status.OK) {
        entry.reject(failure(rc, json));
        return;
      }
      const result = parse(json) ?? {};
      // A subscription opens here, before the next event (its first
      // notification perhaps) and before #hold counts it.
      entry.resolve(entry.onAck !== undefined ? entry.onAck(result, tag) : result);
    } catch (err) {
      entry.reject(err);
    } finally {
      this.#hold();
    }
  }

  #notification(method: string, paramsJson: string): void {
    let params: { [key: string]: unknown } = {};
    try {
      params = (parse(paramsJson) as typeof params | undefined) ?? {};
    } catch {
      return;
    }
    if (method === SUBSCRIPTION_ENDED) {
      // The server ended a subscription (or its stream broke); the core let go of its tag.
      const tag = params.tag as number;
      const sub = this.#subscriptions.get(tag);
      if (sub !== undefined) {
        this.#subscriptions.delete(tag);
        const code = params.code as number | undefined;
        sub[ended](code ? failureOf(code, (params.error ?? {}) as ErrorObject) : undefined);
        this.#hold();
      }
      return;
    }
    const { onLog, onNotification } = this.#options;
    if (method === "notifications/message" && onLog !== undefined) {
      this.#deliver(() => onLog(params as unknown as LoggingMessage));
    }
    if (onNotification !== undefined) {
      this.#deliver(() => onNotification(method, params));
    }
    for (const sub of this.#subscriptions.values()) {
      if (wants(sub.honoured, method, params)) {
        sub[deliver]({ method, params });
      }
    }
  }

  async #question(q: bigint, method: string, paramsJson: string): Promise<void> {
    const native = this.#native!;
    const controller = new AbortController();
    this.#questions.set(q, controller);
    const extra: QuestionExtra = { signal: controller.signal, method };
    try {
      const params = (parse(paramsJson) ?? {}) as { [key: string]: unknown };
      const { onSampling, onElicitation, roots } = this.#options;
      let result: unknown;
      if (method === "oauth/authorize" && this.#authorizer !== undefined) {
        result = await authorize(this.#authorizer, params, controller.signal);
      } else if (method === "sampling/createMessage" && onSampling !== undefined) {
        result = await onSampling(params as CreateMessageParams, extra);
      } else if (method === "elicitation/create" && onElicitation !== undefined) {
        result = await onElicitation(params as ElicitRequestParams, extra);
      } else if (method === "roots/list" && roots !== undefined) {
        const got = typeof roots === "function" ? await roots(extra) : roots;
        result = Array.isArray(got) ? { roots: got } : got;
      } else {
        throw new McpError(-32601, `this client does not answer ${method}`);
      }
      if (controller.signal.aborted) {
        return;
      }
      const rc = native.clientAnswer(q, JSON.stringify(result ?? {}));
      if (rc === Status.Invalid) {
        native.clientAnswerError(q, -32603, `the client's handler gave no valid ${method} result`);
      }
    } catch (err) {
      if (!controller.signal.aborted) {
        const code = err instanceof McpError ? err.code : -32603;
        native.clientAnswerError(q, code, errorMessage(err));
      }
    } finally {
      this.#questions.delete(q);
    }
  }


  #onClosed(rc: number, message: string): void {
    const byItself = this.#state !== "closing";
    this.#state = "closed";
    this.#held = false;
    for (const [, controller] of this.#questions) {
      controller.abort(new ConnectionClosedError("polymcp: the client closed"));
    }
    this.#questions.clear();
    // The core ended the subscriptions with the connection.
    for (const sub of this.#subscriptions.values()) {
      sub[ended]();
    }
    this.#subscriptions.clear();
    // The core ends every request before on_closed; anything left is ended here.
    for (const [tag, entry] of this.#pending) {
      this.#pending.delete(tag);
      if (!entry.done) {
        entry.done = true;
        entry.cleanup?.();
        entry.reject(new ConnectionClosedError(message || "polymcp: the connection closed"));
      }
    }
    if (this.#handle !== undefined) {
      this.#native!.clientFree(this.#handle);
    }
    if (byItself && rc !== Status.OK && this.onerror !== undefined) {
      const onerror = this.onerror;
      this.#deliver(() => onerror(new ConnectionClosedError(message || `polymcp: the connection ended (${rc})`)));
    }
    if (this.onclose !== undefined) {
      const onclose = this.onclose;
      this.#deliver(() => onclose());
    }
    this.#resolveClosed();
  }
}
