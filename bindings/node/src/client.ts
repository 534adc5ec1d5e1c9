// Client: the TypeScript SDK's Client API over polymcp's Go client (the C
// ABI's polymcp_client_*, ABI 1.8). The core does the transports (a
// command over stdio, Streamable HTTP with the HTTP+SSE fallback, a server
// of this process in memory), the revision negotiation, paging, timeouts,
// output schema checks, input rounds and tasks; this class turns its
// callbacks into Promises and answers the server's questions with the
// handlers it was given.

import { spawn } from "node:child_process";

import {
  ConnectionClosedError,
  McpError,
  NativeError,
  OutputSchemaError,
  RequestTimeoutError,
  errorMessage,
} from "./errors";
import {
  ClientEventType,
  type NativeBinding,
  type NativeClient,
  Status,
  nativeClient,
} from "./native";
import { McpServer, nativeServers } from "./server";
import type {
  ClientCapabilities,
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
  ServerNotification,
  ReadResourceParams,
  CallToolParams,
  ServerCapabilities,
} from "./client_types";
import type {
  CallToolResult,
  CreateMessageParams,
  CreateMessageResult,
  ElicitResult,
  GetPromptResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Meta,
  ReadResourceResult,
  Root,
} from "./types";

type Awaitable<T> = T | Promise<T>;

/** Start a server program and speak MCP over its stdin and stdout. Its stderr is this process's. */
export interface StdioTarget {
  command: string;
  args?: string[];
  /** Added to this process's environment. */
  env?: { [name: string]: string };
  cwd?: string;
}

/** A Streamable HTTP endpoint (the 2024-11-05 HTTP+SSE transport when the server refuses a POST). */
export interface HttpTarget {
  url: string | URL;
  /** Sent with every HTTP request (an Authorization header, say). */
  headers?: { [name: string]: string };
  /**
   * OAuth 2.1 when the server asks for it (a 401): the core discovers the
   * authorization server, registers, authorizes with PKCE, and refreshes and
   * steps up the token as needed. `true` means every default. A server that
   * asks for nothing is connected to as without it.
   */
  oauth?: OAuthOptions | boolean;
}

/** What onAuthorize gets besides the authorization URL. */
export interface AuthorizeExtra {
  /** Where the authorization server sends the browser back: the client's own loopback listener, or oauth.redirectUrl. */
  redirectUrl: string;
  /** Aborts when the authorization is no longer wanted (it completed through the loopback listener, or the client closes). */
  signal: AbortSignal;
}

/**
 * How the client authorizes itself (HttpTarget.oauth). The client is
 * registered as the first of these that applies: a pre-registered
 * clientId (and clientSecret, for issuer), the clientMetadataUrl document,
 * else dynamic registration as clientName.
 */
export interface OAuthOptions {
  /** A pre-registered client's id. */
  clientId?: string;
  /** Its secret, for a confidential client. */
  clientSecret?: string;
  /** The authorization server the pre-registered client belongs to (its issuer URL). */
  issuer?: string | URL;
  /** A client ID metadata document's URL, the client's id where the server supports them. */
  clientMetadataUrl?: string | URL;
  /** The client_name of dynamic registration; default the Client's clientInfo title or name. */
  clientName?: string;
  /**
   * Where the browser comes back to after the user's consent, a URL of the
   * application's: onAuthorize must then resolve to the URL the browser came
   * back to (with its code and state). Without it the browser comes back to
   * a loopback listener of the client's own, and onAuthorize only shows the
   * URL.
   */
  redirectUrl?: string | URL;
  /**
   * "authorization_code" (default): the user authorizes in a browser.
   * "client_credentials": the client authorizes as itself (needs clientId)
   * and onAuthorize is never called.
   */
  grant?: "authorization_code" | "client_credentials";
  /**
   * Shows the user the authorization URL (the TypeScript SDK's
   * redirectToAuthorization). By default the URL is printed on stderr and
   * the system browser is opened. Resolve to the URL the browser came back to
   * when redirectUrl is set; throw to refuse (connect() rejects).
   */
  onAuthorize?: (url: URL, extra: AuthorizeExtra) => Awaitable<void | string | URL>;
}

/** What connect() takes: a command, a URL, or a polymcp server of this process (in memory). */
export type ClientTarget = StdioTarget | HttpTarget | McpServer;

/** The params of elicitation/create, as the server sent them. */
export interface ElicitRequestParams {
  message: string;
  requestedSchema?: { [key: string]: unknown };
  mode?: "form" | "url";
  url?: string;
  elicitationId?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** What a handler of the server's questions gets besides the params. */
export interface QuestionExtra {
  /** Aborts when the answer is no longer wanted (the server cancelled, the call ended, the client closes). */
  signal: AbortSignal;
  /** The question's method. */
  method: string;
}

export interface ClientOptions {
  /**
   * Capabilities to declare, as they are, over what the handlers imply:
   * onSampling declares sampling {}, onElicitation elicitation {}, roots
   * roots {listChanged: true}; a member here replaces that default with the
   * sub-capabilities the handler supports (elicitation {form: {}, url: {}}
   * for URL-mode elicitation, sampling {tools: {}} for tool use in
   * sampling, roots {listChanged: false}), and experimental and extensions
   * members are added (tasks: true adds its extension to them). Declaring
   * sampling, elicitation or roots here without its handler makes
   * connect() reject with a TypeError, as the Go client's Connect fails.
   */
  capabilities?: ClientCapabilities;
  /** Pin a protocol revision ("2025-11-25"); by default the client negotiates the newest both speak. */
  revision?: string;
  /** Each request's timeout in ms (default 60000); a request's own `timeout` overrides it. */
  timeout?: number;
  /** A request's progress notification restarts its timeout. */
  resetTimeoutOnProgress?: boolean;
  /** The server/discover probe's timeout in ms (default 5000). */
  probeTimeout?: number;
  /**
   * Declare the 2026-07-28 tasks extension: a tools/call the server turns
   * into a task is followed to its end (polled, its questions answered with
   * the handlers here), and callTool resolves to its result.
   */
  tasks?: boolean;
  /** Do not check tool results against their outputSchema. */
  skipOutputValidation?: boolean;
  /** Pages fetched at most by a list without a cursor (default 1000). */
  maxPages?: number;
  /** 2026-07-28 input_required rounds per call (default 16), and questions per round (default 64). */
  maxInputRounds?: number;
  maxQuestions?: number;
  /** Answers sampling/createMessage. */
  onSampling?: (params: CreateMessageParams, extra: QuestionExtra) => Awaitable<CreateMessageResult>;
  /** Answers elicitation/create. */
  onElicitation?: (params: ElicitRequestParams, extra: QuestionExtra) => Awaitable<ElicitResult>;
  /** Answers roots/list: the roots, or a function that returns them (or a whole ListRootsResult). */
  roots?: Root[] | ((extra: QuestionExtra) => Awaitable<Root[] | ListRootsResult>);
  /** The server's log messages (notifications/message). */
  onLog?: (message: LoggingMessage) => void;
  /** Every notification of the server, log messages included. */
  onNotification?: (method: string, params: { [key: string]: unknown }) => void;
}

/** Options of one request. */
export interface RequestOptions {
  /** Aborting cancels the request: the server is told, and the promise rejects with an AbortError. */
  signal?: AbortSignal;
  /** This request's timeout in ms; past it the server is told and the promise rejects with RequestTimeoutError. */
  timeout?: number;
  /** The request's progress notifications (the client asks for them when this is given). */
  onprogress?: (progress: Progress) => void;
  /** Added to the request's params._meta. */
  _meta?: Meta;
}

/** Options of listen(). */
export interface SubscriptionOptions {
  /** Aborting cancels the listen request, or ends the subscription once it is open. */
  signal?: AbortSignal;
  /**
   * Called with each notification the subscription asked for. When given,
   * nothing is buffered for async iteration.
   */
  onNotification?: (notification: ServerNotification) => void;
  /** Notifications kept for async iteration before the oldest are dropped (default 1024). */
  maxBuffered?: number;
}

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

// The Client's side of a Subscription, out of users' sight.
const deliver = Symbol("deliver");
const ended = Symbol("ended");

/** Whether a subscription of filter f asked for this notification. */
function wants(f: ListenFilter, method: string, params: { [key: string]: unknown }): boolean {
  switch (method) {
    case "notifications/tools/list_changed":
      return f.toolsListChanged === true;
    case "notifications/prompts/list_changed":
      return f.promptsListChanged === true;
    case "notifications/resources/list_changed":
      return f.resourcesListChanged === true;
    case "notifications/resources/updated":
      return Array.isArray(f.resourceSubscriptions) && f.resourceSubscriptions.includes(params.uri as string);
    default:
      return (
        method.startsWith("notifications/tasks") &&
        Array.isArray(f.taskIds) &&
        f.taskIds.includes(params.taskId as string)
      );
  }
}

/**
 * An open 2026-07-28 subscriptions/listen (Client.listen). The
 * notifications it asked for go to its onNotification, or are buffered for
 * `for await (const n of sub)`; the client's own onNotification gets them
 * too. close() (or `await using`, or the listen signal's abort, or closing
 * the client) ends it; breaking out of a `for await` loop closes it as well.
 * While open it keeps the event loop alive, as a listening socket does.
 */
export class Subscription implements AsyncDisposable, AsyncIterable<ServerNotification> {
  /** What listen() asked for. */
  readonly requested: ListenFilter;
  /** What the server agreed to send: its acknowledgement's notifications. */
  readonly honoured: ListenFilter;
  #closed = false;
  readonly #end: () => void;
  readonly #onNotification: ((n: ServerNotification) => void) | undefined;
  readonly #max: number;
  readonly #queue: ServerNotification[] = [];
  #waiter: ((r: IteratorResult<ServerNotification>) => void) | undefined;

  /** @internal Made by Client.listen. */
  constructor(requested: ListenFilter, honoured: ListenFilter, end: () => void, options: SubscriptionOptions) {
    this.requested = requested;
    this.honoured = honoured;
    this.#end = end;
    this.#onNotification = options.onNotification;
    this.#max = options.maxBuffered ?? 1024;
  }

  /** Whether the subscription ended (close(), the signal, or the client's close). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Ends the subscription: the server is told, and the client lets go of it. */
  async close(): Promise<void> {
    if (!this.#closed) {
      this[ended]();
      this.#end();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  [Symbol.asyncIterator](): AsyncIterator<ServerNotification> {
    return {
      next: () => {
        const n = this.#queue.shift();
        if (n !== undefined) {
          return Promise.resolve({ value: n, done: false });
        }
        if (this.#closed) {
          return Promise.resolve({ value: undefined, done: true });
        }
        return new Promise((resolve) => (this.#waiter = resolve));
      },
      return: async () => {
        await this.close();
        return { value: undefined, done: true };
      },
    };
  }

  /** @internal A notification the filter wants. */
  [deliver](n: ServerNotification): void {
    if (this.#closed) {
      return;
    }
    if (this.#onNotification !== undefined) {
      const fn = this.#onNotification;
      try {
        fn(n);
      } catch (err) {
        queueMicrotask(() => {
          throw err;
        });
      }
      return;
    }
    const waiter = this.#waiter;
    if (waiter !== undefined) {
      this.#waiter = undefined;
      waiter({ value: n, done: false });
      return;
    }
    this.#queue.push(n);
    if (this.#queue.length > this.#max) {
      this.#queue.shift();
    }
  }

  /** @internal Ended: no more notifications; a waiting iteration finishes. */
  [ended](): void {
    this.#closed = true;
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.({ value: undefined, done: true });
  }
}

/** How the client answers oauth/authorize: the user's function, and whether it must give the redirect back. */
interface Authorizer {
  onAuthorize: (url: URL, extra: AuthorizeExtra) => Awaitable<void | string | URL>;
  /** oauth.redirectUrl is set: the answer carries where the browser came back to. */
  redirect: boolean;
}

/**
 * The default onAuthorize: prints the URL on stderr and asks the desktop to
 * open it (xdg-open, or open on macOS), without waiting and ignoring a
 * desktop that has no browser.
 */
function showAuthorization(url: URL): void {
  process.stderr.write(`polymcp: the server asks for authorization; open this URL in a browser:\n  ${url.href}\n`);
  const opener = process.platform === "darwin" ? "open" : "xdg-open";
  try {
    const child = spawn(opener, [url.href], { detached: true, stdio: "ignore" });
    child.on("error", () => {});
    child.unref();
  } catch {
    // No opener: the URL on stderr has to do.
  }
}

/** The "oauth" option of polymcp_client_connect, from HttpTarget.oauth. */
function oauthOption(oauth: OAuthOptions | true, clientInfo: Implementation): [{ [key: string]: unknown }, Authorizer | undefined] {
  const o: OAuthOptions = oauth === true ? {} : oauth;
  if (typeof o !== "object" || o === null) {
    throw new TypeError("polymcp: oauth is true or { clientId?, clientSecret?, issuer?, clientMetadataUrl?, clientName?, redirectUrl?, grant?, onAuthorize? }");
  }
  const grant = o.grant ?? "authorization_code";
  if (grant !== "authorization_code" && grant !== "client_credentials") {
    throw new TypeError(`polymcp: oauth.grant is "authorization_code" or "client_credentials", not ${JSON.stringify(o.grant)}`);
  }
  const json: { [key: string]: unknown } = {};
  if (o.clientId !== undefined) {
    json.client_id = o.clientId;
    if (o.clientSecret !== undefined) json.client_secret = o.clientSecret;
    if (o.issuer !== undefined) json.issuer = String(o.issuer);
  } else if (o.clientSecret !== undefined || o.issuer !== undefined) {
    throw new TypeError("polymcp: oauth.clientSecret and oauth.issuer belong to a pre-registered client: give its clientId too");
  }
  if (o.clientMetadataUrl !== undefined) json.client_metadata_url = String(o.clientMetadataUrl);
  json.client_name = o.clientName ?? clientInfo.title ?? clientInfo.name;
  if (o.onAuthorize !== undefined && typeof o.onAuthorize !== "function") {
    throw new TypeError("polymcp: oauth.onAuthorize is a function");
  }
  if (grant === "client_credentials") {
    if (o.clientId === undefined) {
      throw new TypeError("polymcp: oauth's client_credentials grant needs a pre-registered clientId");
    }
    json.grant = grant;
    return [json, undefined];
  }
  if (o.redirectUrl !== undefined) {
    if (o.onAuthorize === undefined) {
      throw new TypeError(
        "polymcp: oauth.redirectUrl needs an onAuthorize that resolves to the URL the browser came back to",
      );
    }
    json.redirect_url = String(o.redirectUrl);
  }
  return [json, { onAuthorize: o.onAuthorize ?? showAuthorization, redirect: o.redirectUrl !== undefined }];
}

/** The handler each capability that brings the server's questions needs. */
const HANDLED_CAPABILITIES = [
  ["sampling", "onSampling"],
  ["elicitation", "onElicitation"],
  ["roots", "roots"],
] as const;

/**
 * The C ABI's "capabilities" connect option: ClientOptions.capabilities
 * without its undefined or null members, once each capability it declares
 * that brings questions (sampling, elicitation, roots) has its handler.
 */
function capabilitiesOption(capabilities: ClientCapabilities | undefined, handlers: ClientOptions): { [key: string]: unknown } | undefined {
  if (capabilities === undefined || capabilities === null) {
    return undefined;
  }
  if (typeof capabilities !== "object" || Array.isArray(capabilities)) {
    throw new TypeError("ClientOptions.capabilities must be an object");
  }
  const out: { [key: string]: unknown } = {};
  for (const [name, value] of Object.entries(capabilities)) {
    if (value !== undefined && value !== null) out[name] = value;
  }
  for (const [name, handler] of HANDLED_CAPABILITIES) {
    if (out[name] !== undefined && handlers[handler] === undefined) {
      throw new TypeError(`ClientOptions.capabilities declares ${name}, which needs the ${handler} handler`);
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The tag of the connect's on_response; requests count from 1. */
const CONNECT_TAG = 0;

function abortError(reason: unknown): Error {
  const err = new DOMException("The operation was aborted", "AbortError");
  if (reason !== undefined) {
    Object.defineProperty(err, "cause", { value: reason, configurable: true, writable: true });
  }
  return err;
}

function parse(json: string): unknown {
  return json === "" ? undefined : JSON.parse(json);
}

/** The Error a request ends with, from the core's status and error object. */
function failure(rc: number, json: string): Error {
  let body: { message?: string; code?: number; data?: unknown } = {};
  try {
    body = (parse(json) as typeof body | undefined) ?? {};
  } catch {
    body = { message: json };
  }
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
        result = await this.#authorize(params, controller.signal);
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

  /** The answer to oauth/authorize: {} once the user was shown the URL, or where the browser came back to. */
  async #authorize(params: { [key: string]: unknown }, signal: AbortSignal): Promise<{ redirectUrl?: string }> {
    const { onAuthorize, redirect } = this.#authorizer!;
    const url = new URL(String(params.url));
    const back = await onAuthorize(url, { redirectUrl: String(params.redirectUrl ?? ""), signal });
    if (!redirect) {
      return {};
    }
    if (typeof back !== "string" && !(back instanceof URL)) {
      throw new Error("oauth.onAuthorize gave no redirect URL (with oauth.redirectUrl it resolves to the URL the browser came back to)");
    }
    return { redirectUrl: String(back) };
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
