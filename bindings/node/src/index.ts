// polymcp for Node: Model Context Protocol servers whose protocol work
// (every revision, stdio and HTTP, validation, limits) is done by the
// polymcp Go core through a small N-API addon.
//
//   import { McpServer } from "polymcp";
//   const server = new McpServer({ name: "demo", version: "1.0.0" });
//   server.registerTool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } },
//     async ({ text }) => String(text));
//   await server.connectStdio();

export { McpServer, type ServerOptions, type ListenOptions, type RegisteredItem } from "./server";
export {
  ResourceTemplate,
  type ToolConfig,
  type ToolHandler,
  type PromptConfig,
  type PromptHandler,
  type ResourceMetadata,
  type ReadResourceCallback,
  type ReadResourceTemplateCallback,
  type CompleteCallback,
  type CompleteContext,
} from "./registry";
export type { RequestExtra, AskOptions } from "./context";
export { ErrorCode, McpError, NativeError } from "./errors";
export { ValidationError, type StandardSchemaV1, type SchemaShape, type SchemaInput, type InferArgs } from "./schema";
export { DEFAULT_MAX_BODY_BYTES, type HttpHandler, type HttpOptions } from "./http";
export { MAX_COMPLETION_VALUES, type ToolReturn, type ResourceReturn, type PromptReturn, type CompletionReturn } from "./results";
export * from "./types";

import { native } from "./native";

/** The polymcp core's version (libpolymcp's polymcp_version). */
export function version(): string {
  return native().version();
}
