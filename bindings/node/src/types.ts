// The MCP objects handlers build and return, as they appear on the wire.
// Field names follow the protocol's schema; every object may carry _meta.

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON Schema document (any dialect the core accepts; 2020-12 by default). */
export type JsonSchema = { [key: string]: unknown };

/** Protocol metadata attached to requests and results. */
export type Meta = { [key: string]: unknown };

/** Names a server or a client in initialize and server/discover. */
export interface Implementation {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
}

/** Hints on content: who it is for and how important it is. */
export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: "text";
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ImageContent {
  type: "image";
  /** base64 */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface AudioContent {
  type: "audio";
  /** base64 */
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}

export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  /** base64 */
  blob: string;
  _meta?: Meta;
}

export type ResourceContents = TextResourceContents | BlobResourceContents;

export interface EmbeddedResource {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  _meta?: Meta;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** The result of tools/call. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Meta;
}

/** The result of resources/read. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

/** The result of prompts/get. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
}

/** The completion inside a completion/complete result. */
export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** Untrusted hints about a tool's behaviour. */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** RFC 5424 severities, in increasing order. */
export const LOGGING_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

// ---- Input from the client (elicitation, sampling, roots) ----

/** The methods a handler may ask the client for. */
export const INPUT_METHODS = ["elicitation/create", "sampling/createMessage", "roots/list"] as const;
export type InputMethod = (typeof INPUT_METHODS)[number];

/** One question for the client: what ctx.ask takes under each key. */
export interface InputRequest {
  method: InputMethod;
  /** The request's params (roots/list has none). */
  params?: { [key: string]: unknown };
}

/** The user's answer to elicitation/create. */
export interface ElicitResult {
  action: "accept" | "decline" | "cancel";
  /** The form's values, when accepted. */
  content?: { [key: string]: string | number | boolean | string[] };
  _meta?: Meta;
}

/** A message of a sampling conversation. */
export interface SamplingMessage {
  role: "user" | "assistant";
  content: ContentBlock | ContentBlock[];
  _meta?: Meta;
}

/** The params of sampling/createMessage. */
export interface CreateMessageParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  includeContext?: "none" | "thisServer" | "allServers";
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: { [key: string]: unknown };
  metadata?: { [key: string]: unknown };
  [key: string]: unknown;
}

/** The client model's answer to sampling/createMessage. */
export interface CreateMessageResult {
  role: "user" | "assistant";
  content: ContentBlock | ContentBlock[];
  model: string;
  stopReason?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** A directory or file the client exposes. */
export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

/** The client's answer to roots/list. */
export interface ListRootsResult {
  roots: Root[];
  _meta?: Meta;
}
