// polymcp for Node: Model Context Protocol servers (and a client) whose protocol work
// (every revision, stdio and HTTP, validation, limits) is done by the
// polymcp Go core through a small N-API addon.
//
//   import { McpServer } from "polymcp";
//   const server = new McpServer({ name: "demo", version: "1.0.0" });
//   server.registerTool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } },
//     async ({ text }) => String(text));
//   await server.connectStdio();

export { McpServer, Server, type ServerOptions, type ListenOptions, type RegisteredItem } from "./server";
export {
  ResourceTemplate,
  type ToolConfig,
  type ToolHandler,
  type TaskSupport,
  type TaskOptions,
  type PromptConfig,
  type PromptHandler,
  type ResourceMetadata,
  type ReadResourceCallback,
  type ReadResourceTemplateCallback,
  type CompleteCallback,
  type CompleteContext,
} from "./registry";
export type { RequestExtra, AskOptions } from "./context";
export { Client } from "./client";
export type {
  ClientOptions,
  ClientTarget,
  StdioTarget,
  HttpTarget,
  RequestOptions,
  QuestionExtra,
  ElicitRequestParams,
} from "./client_options";
export type { OAuthOptions, AuthorizeExtra } from "./client_oauth";
export { Subscription, type SubscriptionOptions } from "./subscription";
export type {
  ServerCapabilities,
  ClientCapabilities,
  InitializeResult,
  Tool,
  Resource,
  ResourceTemplateInfo,
  Prompt,
  ListToolsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListPromptsResult,
  ListParams,
  CallToolParams,
  ReadResourceParams,
  GetPromptParams,
  CompleteParams,
  CompleteResult,
  SetLevelParams,
  Progress,
  LoggingMessage,
  ListenFilter,
  ServerNotification,
} from "./client_types";
export { ErrorCode, McpError, NativeError, RequestTimeoutError, ConnectionClosedError, OutputSchemaError } from "./errors";
export { ValidationError, type StandardSchemaV1, type SchemaShape, type SchemaInput, type InferArgs } from "./schema";
export { DEFAULT_MAX_BODY_BYTES, type HttpHandler, type HttpOptions } from "./http";
export { MAX_COMPLETION_VALUES, type ToolReturn, type ResourceReturn, type PromptReturn, type CompletionReturn } from "./results";
export * from "./types";

import { native } from "./native";

/** The polymcp core's version (libpolymcp's polymcp_version). */
export function version(): string {
  return native().version();
}

/** Process-wide settings of the native library's Go runtime (polymcp_configure). */
export interface NativeSettings {
  /**
   * The Go collector's GOGC: positive, or -1 for off. Unless GOGC is set, the library's
   * default follows the live heap, from Go's 100 for a small one to 200 from 2.7 MiB (and
   * while collections come less than 5 ms apart).
   */
  gcPercent?: number;
  /** The Go runtime's soft memory limit (GOMEMLIMIT), in bytes. */
  memoryLimitBytes?: number;
  /** Threads running Go code at once (GOMAXPROCS); 0 leaves it as it is. */
  maxProcs?: number;
  /** Threshold of the native log: "debug", "info", "warn" (default) or "error". */
  logLevel?: "debug" | "info" | "warn" | "error";
}

/**
 * Tunes the native library for the whole process; only the settings given
 * change. A lower gcPercent trades CPU for memory. A refused setting throws
 * a NativeError and changes nothing.
 */
export function configure(settings: NativeSettings): void {
  const json: { [key: string]: unknown } = {};
  if (settings.gcPercent !== undefined) json.gc_percent = settings.gcPercent;
  if (settings.memoryLimitBytes !== undefined) json.memory_limit_bytes = settings.memoryLimitBytes;
  if (settings.maxProcs !== undefined) json.max_procs = settings.maxProcs;
  if (settings.logLevel !== undefined) json.log_level = settings.logLevel;
  native().configure(JSON.stringify(json));
}
