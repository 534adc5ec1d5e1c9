// The native layer: the N-API addon (native/polymcp_node.c) over the C ABI
// of libpolymcp. The addon is a thin, synchronous mirror of polymcp.h; Go's
// callbacks reach JS through one threadsafe function per server as events.
// This file only types the addon and finds it on disk.

import { existsSync } from "node:fs";
import { join } from "node:path";

import { NativeError } from "./errors";

/** Event types the addon delivers, in the order of polymcp_server_callbacks. */
export const EventType = {
  Call: 1,
  Cancel: 2,
  Log: 3,
  Closed: 4,
  /** The stdio transport ended (its input closed): the server serves nothing now. */
  Idle: 5,
  /**
   * Part of a host-owned HTTP exchange (tag is its id): kind is the status
   * when the head comes with it (payload: headers as JSON {"Name":["v"]}),
   * else 0; body holds the bytes gathered since the last part.
   */
  HttpData: 6,
  /** The end of a host-owned HTTP exchange (tag is its id; kind is the end code). */
  HttpEnd: 7,
  /**
   * A callInput finished (tag is its id, kind its status): payload holds
   * the answers as JSON on OK, else the library's message.
   */
  Input: 8,
} as const;
export type EventType = (typeof EventType)[keyof typeof EventType];

/** What a Call event asks for (POLYMCP_KIND_*, the kind argument of on_call). */
export const CallKind = {
  Tool: 1,
  Resource: 2,
  Prompt: 3,
  Complete: 4,
} as const;
export type CallKind = (typeof CallKind)[keyof typeof CallKind];

/**
 * Called on the JS thread for each callback Go made. call is the call
 * handle (0n for events without one); tag the registration's tag or the
 * HTTP exchange's id; payload the callback's JSON or text; body the bytes
 * of an HttpData event.
 */
export type EventCallback = (
  type: EventType,
  call: bigint,
  kind: number,
  tag: number,
  payload: string | undefined,
  body: Buffer | undefined,
) => void;

/** Client events the addon delivers (polymcp_client_callbacks). */
export const ClientEventType = {
  /** on_response: id is the request's tag (0: the connect), rc its status, a the result or error JSON. */
  Response: 1,
  /** on_notification: a is the method, b the params JSON. */
  Notification: 2,
  /** on_progress: id is the request's tag, a the params JSON. */
  Progress: 3,
  /** on_question: id is the question (a bigint), a the method, b the params JSON. */
  Question: 4,
  /** on_question_cancel: id is the question. */
  QuestionCancel: 5,
  /** on_closed, the last: rc is OK after close(), else negative with a the reason. */
  Closed: 6,
} as const;
export type ClientEventType = (typeof ClientEventType)[keyof typeof ClientEventType];

/** Called on the JS thread for each client callback Go made. */
export type ClientEventCallback = (type: ClientEventType, id: number | bigint, rc: number, a: string, b: string) => void;

/** A native client: an opaque token owned by the addon. */
export type NativeClient = object & { readonly __polymcpClient: unique symbol };

/** A native server: an opaque token owned by the addon. */
export type NativeServer = object & { readonly __polymcpServer: unique symbol };

/** One host-owned HTTP exchange in progress: an opaque token owned by the addon. */
export type NativeExchange = object & { readonly __polymcpExchange: unique symbol };

/** The addon's exports. Management functions throw NativeError; call_* functions return a status. */
export interface NativeBinding {
  /** Loads libpolymcp from path; returns its (MAJOR<<16)|MINOR. The library's errors are thrown as errorClass. */
  load(path: string, errorClass: typeof NativeError): number;
  version(): string;
  serverNew(optionsJson: string, onEvent: EventCallback): NativeServer;
  serverAddTool(server: NativeServer, json: string, tag: number): void;
  serverAddResource(server: NativeServer, json: string, tag: number): void;
  serverAddResourceTemplate(server: NativeServer, json: string, tag: number): void;
  serverAddPrompt(server: NativeServer, json: string, tag: number): void;
  /**
   * A tool whose calls may become tasks (polymcp_server_add_task_tool, ABI
   * 1.4); taskJson is {"support":"optional"|"required","start"?:"call"|"handler"}.
   */
  serverAddTaskTool(server: NativeServer, json: string, taskJson: string, tag: number): void;
  /** refJson is a completion reference: {"type":"ref/prompt","name"} or {"type":"ref/resource","uri"}. */
  serverSetCompleter(server: NativeServer, refJson: string, tag: number): void;
  serverRemove(server: NativeServer, tag: number): void;
  serverNotify(server: NativeServer, method: string, paramsJson: string): void;
  /**
   * Starts serving stdio; an Idle event follows when its input ends. With
   * inFd >= 0 the JS thread reads inFd itself (polymcp_server_stdio_pump,
   * serving with pumpOptionsJson, which adds "pump": true) when libuv can
   * poll it; otherwise the core reads (optionsJson).
   */
  serveStdio(server: NativeServer, optionsJson: string, pumpOptionsJson: string, inFd: number): void;
  /** Listens for Streamable HTTP (polymcp_server_serve_http); returns the bound URL. */
  serveHttp(server: NativeServer, optionsJson: string): string;
  /**
   * Hands one HTTP request to the core (polymcp_server_http); its answer
   * arrives as HttpData and HttpEnd events carrying id.
   */
  serverHttp(server: NativeServer, id: number, requestJson: string, body: Buffer): NativeExchange;
  /** The socket took bytes of the exchange's body: the core may write more. */
  httpAck(exchange: NativeExchange, bytes: number): void;
  /** The client went away (polymcp_http_cancel); HttpEnd follows. Returns a status. */
  httpCancel(exchange: NativeExchange): number;
  serverClose(server: NativeServer): void;
  serverFree(server: NativeServer): void;
  callComplete(call: bigint, resultJson: string): number;
  /** polymcp_call_complete_text: a tool's result of one text item, the text as it is (ABI 1.3). */
  callCompleteText(call: bigint, text: string): number;
  callFail(call: bigint, code: number, message: string): number;
  /** callFail with the JSON-RPC error's data (ABI 1.2); POLYMCP_E_INVALID where the core has no error to carry it. */
  callFailData(call: bigint, code: number, message: string, dataJson: string): number;
  callProgress(call: bigint, progressJson: string): number;
  callLog(call: bigint, logJson: string): number;
  /** Live handle counts: {"servers","calls","sessions","http","goroutines"}. */
  stats(): string;
  /** polymcp_configure: process-wide settings as JSON; throws the library's error. */
  configure(settingsJson: string): void;
  /** The call's method, revision, _meta, clientInfo and clientCapabilities as JSON, or undefined once the call is gone. */
  callInfo(call: bigint): string | undefined;
  /**
   * Asks the client for input (polymcp_call_input) on a thread of the
   * addon's, since it blocks on the legacy revisions; an Input event with
   * this id follows. requestsJson is {key: {"method","params"}}.
   */
  callInput(server: NativeServer, call: bigint, id: number, requestsJson: string): void;
  /** The state kept by callSetInputState ("" when none), or undefined once the call is gone. */
  callInputState(call: bigint): string | undefined;
  callSetInputState(call: bigint, state: string): number;
  /**
   * Turns a pending call of a task tool into a task (polymcp_call_start_task,
   * ABI 1.4): OK when it is one now (or was already); Invalid when it cannot
   * become one, Limit at the server's task limits (either way it goes on as
   * an ordinary call); UnknownCall when the call is over. Never waits for
   * the client.
   */
  callStartTask(call: bigint): number;

  /** Whether the loaded library has the client half (ABI 1.8); the client functions throw otherwise. */
  clientSupported(): boolean;
  /**
   * polymcp_client_connect with the connect's tag 0; a server of this
   * process becomes the options' "server". Throws the library's refusal.
   * The client holds the event loop until clientRef(client, false).
   */
  clientConnect(optionsJson: string, server: NativeServer | undefined, onEvent: ClientEventCallback): NativeClient;
  /** polymcp_client_request; throws the library's refusal (POLYMCP_E_CLOSED once closing). */
  clientRequest(client: NativeClient, method: string, paramsJson: string, optsJson: string, tag: number): void;
  clientCancel(client: NativeClient, tag: number): number;
  clientAnswer(question: bigint, resultJson: string): number;
  clientAnswerError(question: bigint, code: number, message: string): number;
  /** Starts closing; the client holds the event loop until its Closed event. */
  clientClose(client: NativeClient): number;
  clientFree(client: NativeClient): number;
  /** Whether the client keeps the event loop alive (while requests are pending). */
  clientRef(client: NativeClient, hold: boolean): void;
}

/** polymcp status codes (polymcp.h). */
export const Status = {
  OK: 0,
  Invalid: -1,
  BadHandle: -2,
  UnknownCall: -3,
  Closed: -4,
  Forked: -5,
  Timeout: -6,
  IO: -7,
  /** callInput on 2026-07-28: the client has yet to answer; the core ended the call with input_required. */
  InputRequired: -8,
  /** callInput: the client did not declare the capability (on 2026-07-28 the core answered -32021). */
  Capability: -9,
  /** callInput: the call ended while waiting for the client. */
  Cancelled: -10,
  /** callStartTask: the server's task limits (maxTasks, maxRunningTasks) are reached. */
  Limit: -11,
  /** Client: the server answered with a JSON-RPC error. */
  RPC: -12,
  /** Client: a tool's result does not match its outputSchema. */
  Output: -13,
  Internal: -99,
} as const;

/** The ABI this binding was written against: it refuses another major or an older minor. */
export const ABI_MAJOR = 1;
// 1.1: polymcp_call_input and the input state; 1.2: polymcp_call_fail_data; 1.3: polymcp_call_complete_text;
// 1.4: the tasks extension (polymcp_server_add_task_tool, polymcp_call_start_task, the task options);
// 1.5: polymcp_server_batch (the addon brackets each run of events it delivers) and polymcp_call_cancelled;
// 1.6: polymcp_server_stdio_pump (the JS thread reads stdio)
export const ABI_MINOR = 7;
/**
 * The client half (polymcp_client_*) came with 1.8. The addon resolves it
 * only when present, so an older library still serves; Client refuses it.
 */
export const CLIENT_ABI_MINOR = 8;

/** The directory holding polymcp.node and libpolymcp.so.1 for this platform. */
export function prebuildDir(root = join(__dirname, "..")): string {
  return join(root, "prebuilds", `${process.platform}-${process.arch}`);
}

let loaded: NativeBinding | undefined;
/** polymcp_abi_version() of the loaded library. */
let loadedAbi = 0;

/**
 * Replaces the binding servers use; for tests of the JS layer only. It
 * returns the previous one (undefined when none was loaded yet).
 */
export function setNativeForTesting(binding: NativeBinding | undefined): NativeBinding | undefined {
  const previous = loaded;
  loaded = binding;
  return previous;
}

/** Loads the addon and the library once per process. */
export function native(): NativeBinding {
  if (loaded) {
    return loaded;
  }
  const dir = prebuildDir();
  const addon = join(dir, "polymcp.node");
  const lib = join(dir, "libpolymcp.so.1");
  if (!existsSync(addon) || !existsSync(lib)) {
    throw new NativeError(
      -1,
      `polymcp: no native build for ${process.platform}-${process.arch} in ${dir}; build it with make in bindings/node`,
    );
  }
  const binding = require(addon) as NativeBinding;
  const abi = binding.load(lib, NativeError);
  checkAbi(abi);
  loadedAbi = abi;
  loaded = binding;
  return binding;
}

/** The binding, if its library has the client (ABI >= 1.8); else throws a NativeError. */
export function nativeClient(): NativeBinding {
  const binding = native();
  const minor = loadedAbi & 0xffff;
  // loadedAbi is 0 under setNativeForTesting: the fake says what it has.
  if ((loadedAbi !== 0 && minor < CLIENT_ABI_MINOR) || typeof binding.clientSupported !== "function" || !binding.clientSupported()) {
    throw new NativeError(
      Status.Invalid,
      `polymcp: the loaded libpolymcp has no client (it needs ABI ${ABI_MAJOR}.${CLIENT_ABI_MINOR}); rebuild libpolymcp.so`,
    );
  }
  return binding;
}

export function checkAbi(version: number): void {
  const major = version >>> 16;
  const minor = version & 0xffff;
  if (major !== ABI_MAJOR || minor < ABI_MINOR) {
    throw new NativeError(
      Status.Invalid,
      `polymcp: libpolymcp ABI ${major}.${minor} does not match this binding (needs ${ABI_MAJOR}.>=${ABI_MINOR})`,
    );
  }
}
