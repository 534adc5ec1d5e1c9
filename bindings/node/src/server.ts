// McpServer: the TypeScript SDK's server API over the polymcp core. The
// core (Go, in libpolymcp) does framing, protocol revisions, validation
// and transports; this class keeps the catalogue's handlers and answers the
// calls the core hands over, each exactly once.

import { CallContext, CallEnded, type CallHost } from "./context";
import { NativeError } from "./errors";
import { DEFAULT_MAX_BODY_BYTES, DEFAULT_PATH, ExchangeTable, type HttpHandler, type HttpOptions, createHttpHandler, httpOptionsJson } from "./http";
import { CallKind, EventType, type NativeBinding, type NativeServer, native } from "./native";
import {
  type Entry,
  type PromptConfig,
  type PromptHandler,
  type ReadResourceCallback,
  type ReadResourceTemplateCallback,
  type ResourceMetadata,
  ResourceTemplate,
  type ToolConfig,
  type ToolHandler,
  completionRef,
  promptEntry,
  resourceEntry,
  toolEntry,
} from "./registry";
import { answerFor, failureFor, isThenable } from "./answer";
import { singleText } from "./results";
import type { SchemaInput } from "./schema";
import type { Implementation, Meta } from "./types";

/** POLYMCP_E_INVALID: the library refused the arguments. */
const E_INVALID = -1;

export interface ServerOptions {
  /** Tell the client how to use the server (initialize and server/discover). */
  instructions?: string;
  /** Handlers running at once (core default 32). */
  maxConcurrency?: number;
  /** Requests waiting for a slot (core default 256); past it the core answers "overloaded". */
  maxQueue?: number;
  /** Each request's deadline in ms (core default 30000; negative: none); past it the signal aborts. */
  requestTimeoutMs?: number;
  /** Items per list page (core default 100). */
  pageSize?: number;
  /** Protocol revisions served; empty or absent serves all. */
  revisions?: string[];
  /**
   * How long a task (a call of a tool registered with `task`) is kept from
   * its creation and may run, in ms (core default 3600000); a task still
   * running then fails with -32603 "timeout" and its signal aborts.
   */
  taskTtlMs?: number;
  /** Tasks kept at once (core default 1000). */
  maxTasks?: number;
  /**
   * Tasks running at once (core default maxConcurrency / 2). Past this or
   * maxTasks a required task is refused as overloaded (-32603) and an
   * optional one runs as an ordinary call.
   */
  maxRunningTasks?: number;
  /** The pollIntervalMs suggested to clients polling tasks/get (core default 1000). */
  taskPollIntervalMs?: number;
  /** Options of the core's HTTP transport behind httpHandler() (listen() takes its own). */
  http?: Omit<HttpOptions, "maxConnections">;
  /**
   * Receives the core's diagnostics (slog levels: -4 debug, 0 info, 4 warn,
   * 8 error). By default warnings and errors go to stderr.
   */
  onLog?: (level: number, message: string) => void;
}

/** A tool, resource or prompt in the catalogue. Changes send list_changed. */
export interface RegisteredItem {
  readonly enabled: boolean;
  /** Takes the item out of the catalogue until enable(). */
  disable(): void;
  enable(): void;
  /** Takes the item out for good. */
  remove(): void;
}

export interface ListenOptions extends HttpOptions {
  /** Default 127.0.0.1 (loopback); "" also means loopback. */
  host?: string;
  /** Default 0: any free port (the URL tells which). */
  port?: number;
}

type State = "open" | "serving" | "closing" | "closed";

/** The native handle of each server, for a Client's in-memory connection to it (internal). */
export const nativeServers = new WeakMap<McpServer, NativeServer>();

function defaultLog(level: number, message: string): void {
  if (level >= 4) {
    process.stderr.write(`polymcp: ${message}\n`);
  }
}

export class McpServer implements AsyncDisposable {
  readonly serverInfo: Implementation;
  readonly #native: NativeBinding;
  readonly #handle: NativeServer;
  readonly #entries = new Map<number, Entry>();
  /** Calls whose handlers have not settled yet (those answered in their own turn never enter). */
  readonly #calls = new Map<bigint, CallContext>();
  /** Questions to the client in flight (callInput), by id: resolves to [status, payload]. */
  readonly #inputs = new Map<number, (answer: [number, string]) => void>();
  #nextInput = 1;
  readonly #exchanges = new ExchangeTable();
  readonly #maxBodyBytes: number;
  readonly #httpPath: string;
  readonly #onLog: (level: number, message: string) => void;
  readonly #closed: Promise<void>;
  #resolveClosed!: () => void;
  #nextTag = 1;
  #state: State = "open";
  #stdio = false;

  constructor(serverInfo: Implementation, options: ServerOptions = {}) {
    if (typeof serverInfo?.name !== "string" || typeof serverInfo.version !== "string") {
      throw new TypeError("McpServer needs { name, version }");
    }
    this.serverInfo = { ...serverInfo };
    this.#onLog = options.onLog ?? defaultLog;
    this.#maxBodyBytes = options.http?.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#httpPath = options.http?.path ?? DEFAULT_PATH;
    this.#closed = new Promise((resolve) => (this.#resolveClosed = resolve));
    this.#native = native();
    this.#handle = this.#native.serverNew(JSON.stringify(serverOptionsJson(serverInfo, options)), this.#onEvent);
    nativeServers.set(this, this.#handle);
  }

  /** Registers a tool; handler(args, extra) returns its result (see ToolReturn). */
  registerTool<I extends SchemaInput | undefined = undefined>(name: string, config: ToolConfig<I>, handler: ToolHandler<I>): RegisteredItem {
    return this.#register(toolEntry(name, config, handler as ToolHandler<SchemaInput>));
  }

  /**
   * Registers a resource at a fixed URI, or a URI template when uri holds an
   * RFC 6570 expression ("test://items/{id}") or is a ResourceTemplate.
   */
  registerResource<U extends string>(
    name: string,
    uri: U,
    metadata: ResourceMetadata,
    handler: U extends `${string}{${string}}${string}` ? ReadResourceTemplateCallback : ReadResourceCallback,
  ): RegisteredItem;
  registerResource(name: string, template: ResourceTemplate, metadata: ResourceMetadata, handler: ReadResourceTemplateCallback): RegisteredItem;
  registerResource(
    name: string,
    uriOrTemplate: string | ResourceTemplate,
    metadata: ResourceMetadata,
    handler: ReadResourceCallback | ReadResourceTemplateCallback,
  ): RegisteredItem {
    return this.#register(resourceEntry(name, uriOrTemplate, metadata, handler));
  }

  /** Registers a prompt; handler(args, extra) returns its messages (see PromptReturn). */
  registerPrompt<A extends SchemaInput | undefined = undefined>(name: string, config: PromptConfig<A>, handler: PromptHandler<A>): RegisteredItem {
    return this.#register(promptEntry(name, config, handler as PromptHandler<SchemaInput>));
  }

  /** registerTool under its short name. */
  tool<I extends SchemaInput | undefined = undefined>(name: string, config: ToolConfig<I>, handler: ToolHandler<I>): RegisteredItem {
    return this.registerTool(name, config, handler);
  }

  /**
   * registerResource with the name in the metadata, or the URI (template)
   * itself when there is none.
   */
  resource(
    uriOrTemplate: string | ResourceTemplate,
    metadata: ResourceMetadata & { name?: string },
    handler: ReadResourceCallback | ReadResourceTemplateCallback,
  ): RegisteredItem {
    const { name, ...rest } = metadata;
    const fallback = typeof uriOrTemplate === "string" ? uriOrTemplate : uriOrTemplate.uriTemplate;
    return this.#register(resourceEntry(name ?? fallback, uriOrTemplate, rest, handler));
  }

  /** registerPrompt under its short name. */
  prompt<A extends SchemaInput | undefined = undefined>(name: string, config: PromptConfig<A>, handler: PromptHandler<A>): RegisteredItem {
    return this.registerPrompt(name, config, handler);
  }

  /** connectStdio under its short name. */
  serveStdio(): Promise<void> {
    return this.connectStdio();
  }

  /**
   * Serves MCP on this process's stdin and stdout; resolves once serving.
   * While it serves, fd 1 points at stderr (the core's stdout_to_stderr):
   * a console.log or process.stdout.write goes there instead of into the
   * protocol stream, which the core writes to a duplicate of the real
   * stdout. Once the stdio transport ends, fd 1 is stdout again.
   */
  async connectStdio(): Promise<void> {
    this.#startServing();
    this.#stdio = true;
    this.#native.serveStdio(this.#handle, '{"stdout_to_stderr":true}', '{"pump":true,"stdout_to_stderr":true}', 0);
  }

  /**
   * Serves Streamable HTTP (every revision, at path, default "/mcp") and the
   * 2024-11-05 HTTP+SSE transport (/sse, /message) on host:port from the
   * core's own listener; resolves to the endpoint's URL with the real port.
   */
  async listen(options: ListenOptions = {}): Promise<string> {
    this.#checkOpen();
    const { host = "127.0.0.1", port = 0, ...http } = options;
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new RangeError(`listen: port must be an integer in 0..65535, got ${String(port)}`);
    }
    const addr = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
    const url = this.#native.serveHttp(this.#handle, JSON.stringify({ addr, ...httpOptionsJson(http) }));
    this.#state = "serving";
    return url;
  }

  /**
   * A (req, res) handler for node:http or Express over the core's HTTP entry
   * point: it reads the body (bounded by ServerOptions.http.maxBodyBytes)
   * and writes the core's answer, streaming SSE with backpressure. A client
   * that goes away before the end cancels its exchange. It answers the
   * paths of ServerOptions.http (default "/mcp"): mount it there (Express's
   * app.use("/mcp", handler) included), or under a prefix that strips
   * itself from req.url (app.use("/tenant", handler) for /tenant/mcp).
   */
  httpHandler(): HttpHandler {
    this.#checkOpen();
    return createHttpHandler(this.#native, this.#handle, this.#exchanges, () => this.#state === "open" || this.#state === "serving", this.#maxBodyBytes, this.#httpPath);
  }

  /** Resolves once the core has stopped: in-flight calls were cancelled and every callback has arrived. */
  get closed(): Promise<void> {
    return this.#closed;
  }

  /** Stops serving, cancels calls in flight and releases the native server. */
  async close(): Promise<void> {
    if (this.#state === "open" || this.#state === "serving") {
      this.#state = "closing";
      this.#native.serverClose(this.#handle);
    }
    return this.#closed;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  #startServing(): void {
    this.#checkOpen();
    this.#state = "serving";
  }

  #checkOpen(): void {
    if (this.#state === "closing" || this.#state === "closed") {
      throw new NativeError(-4, "polymcp: the server is closed");
    }
  }

  #register(entry: Entry): RegisteredItem {
    this.#checkOpen();
    let tags = this.#add(entry);
    const drop = () => {
      this.#remove(tags);
      tags = [];
    };
    return {
      get enabled() {
        return tags.length > 0;
      },
      disable: drop,
      enable: () => {
        if (tags.length === 0) {
          this.#checkOpen();
          tags = this.#add(entry);
        }
      },
      remove: drop,
    };
  }

  // Adds the entry under a fresh tag, and its completer under another.
  #add(entry: Entry): number[] {
    const n = this.#native;
    const tag = this.#nextTag++;
    const json = JSON.stringify("json" in entry ? entry.json : {});
    if (entry.kind === "tool") {
      if (entry.task === undefined) {
        n.serverAddTool(this.#handle, json, tag);
      } else {
        n.serverAddTaskTool(this.#handle, json, JSON.stringify(entry.task), tag);
      }
    } else if (entry.kind === "resource") {
      (entry.template ? n.serverAddResourceTemplate : n.serverAddResource).call(n, this.#handle, json, tag);
    } else if (entry.kind === "prompt") {
      n.serverAddPrompt(this.#handle, json, tag);
    }
    this.#entries.set(tag, entry);
    const ref = completionRef(entry);
    if (ref === undefined || entry.kind === "tool" || entry.kind === "completion") {
      return [tag];
    }
    const completer = this.#nextTag++;
    n.serverSetCompleter(this.#handle, JSON.stringify(ref), completer);
    this.#entries.set(completer, { kind: "completion", complete: entry.complete });
    return [completer, tag];
  }

  #remove(tags: number[]): void {
    for (const tag of tags) {
      this.#entries.delete(tag);
      if (this.#state === "open" || this.#state === "serving") {
        this.#native.serverRemove(this.#handle, tag);
      }
    }
  }

  // Runs on the JS thread for every callback Go made, in order.
  readonly #onEvent = (type: EventType, call: bigint, kind: number, tag: number, payload: string | undefined, body: Buffer | undefined): void => {
    switch (type) {
      case EventType.Call:
        this.#startCall(call, kind, tag, payload);
        break;
      case EventType.Cancel:
        this.#calls.get(call)?.abort();
        break;
      case EventType.HttpData:
        this.#exchanges.data(tag, kind, payload, body);
        break;
      case EventType.HttpEnd:
        this.#exchanges.end(tag, kind);
        break;
      case EventType.Input: {
        const resolve = this.#inputs.get(tag);
        this.#inputs.delete(tag);
        resolve?.([kind, payload ?? ""]);
        break;
      }
      case EventType.Log:
        this.#onLog(kind, payload ?? "");
        break;
      case EventType.Closed:
        this.#finish();
        break;
      case EventType.Idle:
        // stdin ended: like the TypeScript SDK, the server is done then.
        if (this.#stdio && this.#state === "serving") {
          void this.close();
        }
        break;
    }
  };

  // A handler that returns a plain value is answered in this same turn:
  // no promise, no entry in #calls. One that returns a promise is
  // answered when it settles, and can be cancelled meanwhile.
  #startCall(call: bigint, kind: number, tag: number, payload: string | undefined): void {
    let extra: CallContext | undefined;
    let out: unknown;
    try {
      const params = (payload ? JSON.parse(payload) : {}) as { [key: string]: unknown };
      extra = new CallContext(call, this.#host, params);
      out = answerFor(kind, this.#entries.get(tag), params, extra);
    } catch (err) {
      this.#failed(call, kind, extra, err);
      return;
    }
    if (!isThenable(out)) {
      this.#answer(call, kind, extra, out);
      return;
    }
    const ctx = extra;
    this.#calls.set(call, ctx);
    out.then(
      (value) => {
        this.#calls.delete(call);
        this.#answer(call, kind, ctx, value);
      },
      (err: unknown) => {
        this.#calls.delete(call);
        this.#failed(call, kind, ctx, err);
      },
    );
  }

  // Sends the result, exactly once; a handler that caught the end of its
  // call (input_required) has nothing left to answer. A tool's one text
  // item goes as its text, which neither side has to encode or decode.
  #answer(call: bigint, kind: number, extra: CallContext, value: unknown): void {
    const text = kind === CallKind.Tool ? singleText(value) : undefined;
    if (text !== undefined) {
      if (!extra.ended) {
        this.#native.callCompleteText(call, text);
      }
      return;
    }
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch (err) {
      this.#failed(call, kind, extra, err);
      return;
    }
    if (!extra.ended) {
      this.#native.callComplete(call, json);
    }
  }

  #failed(call: bigint, kind: number, extra: CallContext | undefined, err: unknown): void {
    if (err instanceof CallEnded || extra?.ended) {
      return; // the core answered already (input_required, or -32021)
    }
    const failure = failureFor(kind, err);
    if ("result" in failure) {
      this.#native.callComplete(call, JSON.stringify(failure.result));
    } else if (failure.data === undefined || !this.#failWithData(call, failure.code, failure.message, failure.data)) {
      this.#native.callFail(call, failure.code, failure.message);
    }
  }

  // The error with its data, if the data is JSON and the core has a
  // JSON-RPC error to carry it (not code 0 on a tool, nor a resource's
  // not-found, which the revision shapes): false leaves the call pending.
  #failWithData(call: bigint, code: number, message: string, data: unknown): boolean {
    let json: string | undefined;
    try {
      json = JSON.stringify(data);
    } catch {
      return false; // a cycle, a BigInt: the error still goes, without its data
    }
    return json !== undefined && this.#native.callFailData(call, code, message, json) !== E_INVALID;
  }

  // The calls' access to the core: one object for every call.
  readonly #host: CallHost = {
    progress: (call, json) => void this.#native.callProgress(call, json),
    log: (call, json) => void this.#native.callLog(call, json),
    info: (call) => this.#native.callInfo(call),
    input: (call, json) =>
      new Promise((resolve) => {
        const id = this.#nextInput++;
        this.#inputs.set(id, resolve);
        try {
          this.#native.callInput(this.#handle, call, id, json);
        } catch (err) {
          this.#inputs.delete(id);
          throw err;
        }
      }),
    inputState: (call) => this.#native.callInputState(call),
    setInputState: (call, state) => this.#native.callSetInputState(call, state),
    startTask: (call) => this.#native.callStartTask(call),
  };

  #finish(): void {
    if (this.#state === "closed") {
      return;
    }
    this.#state = "closed";
    for (const ctx of this.#calls.values()) {
      ctx.abort();
    }
    this.#entries.clear();
    this.#exchanges.endAll();
    this.#native.serverFree(this.#handle);
    this.#resolveClosed();
  }
}

const OPTION_KEYS = [
  "instructions",
  "maxConcurrency",
  "maxQueue",
  "requestTimeoutMs",
  "pageSize",
  "taskTtlMs",
  "maxTasks",
  "maxRunningTasks",
  "taskPollIntervalMs",
  "revisions",
  "http",
  "onLog",
] as const;

/**
 * McpServer with the server's identity and options in one object:
 * new Server({ name, version, instructions, ... }).
 */
export class Server extends McpServer {
  constructor(config: Implementation & ServerOptions) {
    const info: { [key: string]: unknown } = { ...config };
    const options: { [key: string]: unknown } = {};
    for (const key of OPTION_KEYS) {
      if (key in info) {
        options[key] = info[key];
        delete info[key];
      }
    }
    super(info as unknown as Implementation, options as ServerOptions);
  }
}

// The options of polymcp_server_new; undefined members are left out by JSON.
function serverOptionsJson(info: Implementation, options: ServerOptions): { [key: string]: unknown } {
  return {
    name: info.name,
    version: info.version,
    title: info.title,
    instructions: options.instructions,
    revisions: options.revisions,
    max_concurrency: options.maxConcurrency,
    max_queue: options.maxQueue,
    request_timeout_ms: options.requestTimeoutMs,
    page_size: options.pageSize,
    task_ttl_ms: options.taskTtlMs,
    max_tasks: options.maxTasks,
    max_running_tasks: options.maxRunningTasks,
    task_poll_interval_ms: options.taskPollIntervalMs,
    http: options.http === undefined ? undefined : httpOptionsJson(options.http),
  };
}
