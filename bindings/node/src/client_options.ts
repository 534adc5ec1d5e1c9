// What a Client is given: the targets connect() takes, the ClientOptions
// (handlers of the server's questions included) and a request's options,
// and the "capabilities" connect option made from them.

import type { McpServer } from "./server";
import type { ClientCapabilities, LoggingMessage, Progress } from "./client_types";
import type { OAuthOptions } from "./client_oauth";
import type { CreateMessageParams, CreateMessageResult, ElicitResult, ListRootsResult, Meta, Root } from "./types";

export type Awaitable<T> = T | Promise<T>;

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
export function capabilitiesOption(capabilities: ClientCapabilities | undefined, handlers: ClientOptions): { [key: string]: unknown } | undefined {
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
