// What a Client sends and gets back: the protocol's objects as they appear
// on the wire, for the methods the Client has typed helpers for.

import type {
  Completion,
  Icon,
  Implementation,
  JsonSchema,
  LoggingLevel,
  Meta,
  PromptArgument,
  ToolAnnotations,
} from "./types";

/** What the server can do, from initialize or server/discover. */
export interface ServerCapabilities {
  experimental?: { [key: string]: unknown };
  logging?: { [key: string]: unknown };
  completions?: { [key: string]: unknown };
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  extensions?: { [key: string]: unknown };
  [key: string]: unknown;
}

/**
 * What this client declares it can do (ClientOptions.capabilities), over
 * what the handlers given imply. Sent as it is.
 */
export interface ClientCapabilities {
  /** Needs onSampling. {} (the default), {tools: {}} for tool use, {context: {}} for includeContext. */
  sampling?: { tools?: object; context?: object; [key: string]: unknown };
  /** Needs onElicitation. {} (form mode, the default), {form: {}, url: {}} for URL mode too. */
  elicitation?: { form?: object; url?: object; [key: string]: unknown };
  /** Needs roots. The default is {listChanged: true}. */
  roots?: { listChanged?: boolean; [key: string]: unknown };
  experimental?: { [key: string]: object };
  /** Extensions by name ("io.modelcontextprotocol/tasks" is added by ClientOptions.tasks). */
  extensions?: { [key: string]: object };
  /** The 2025-11-25 tasks capability. */
  tasks?: { [key: string]: unknown };
}

/** The outcome of connect(). */
export interface InitializeResult {
  protocolVersion: string;
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  instructions?: string;
}

/** A tool, as tools/list lists it. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  execution?: { [key: string]: unknown };
  _meta?: Meta;
}

/** A resource, as resources/list lists it. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
  _meta?: Meta;
}

/** A resource template, as resources/templates/list lists it. */
export interface ResourceTemplateInfo {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  icons?: Icon[];
  _meta?: Meta;
}

/** A prompt, as prompts/list lists it. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

/** A list's result: every page when no cursor was given, else one page and nextCursor. */
export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  _meta?: Meta;
}
export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
  _meta?: Meta;
}
export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplateInfo[];
  nextCursor?: string;
  _meta?: Meta;
}
export interface ListPromptsResult {
  prompts: Prompt[];
  nextCursor?: string;
  _meta?: Meta;
}

/** The params of a list request; without cursor the client fetches every page. */
export interface ListParams {
  cursor?: string;
  _meta?: Meta;
}

export interface CallToolParams {
  name: string;
  arguments?: { [key: string]: unknown };
  _meta?: Meta;
}

export interface ReadResourceParams {
  uri: string;
  _meta?: Meta;
}

export interface GetPromptParams {
  name: string;
  arguments?: { [key: string]: string };
  _meta?: Meta;
}

export interface CompleteParams {
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };
  argument: { name: string; value: string };
  context?: { arguments?: { [key: string]: string } };
  _meta?: Meta;
}

export interface CompleteResult {
  completion: Completion;
  _meta?: Meta;
}

export interface SetLevelParams {
  level: LoggingLevel;
  _meta?: Meta;
}

/** A notifications/progress of one request. */
export interface Progress {
  progress: number;
  total?: number;
  message?: string;
}

/** A notifications/message the server sent. */
export interface LoggingMessage {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
  _meta?: Meta;
}

/**
 * What a 2026-07-28 subscriptions/listen asks for (its params.notifications),
 * and what the server agreed to send (the Subscription's `honoured`).
 */
export interface ListenFilter {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** notifications/resources/updated for these resources. */
  resourceSubscriptions?: string[];
  /** notifications/tasks for these tasks (the tasks extension). */
  taskIds?: string[];
  [key: string]: unknown;
}

/** A notification of the server, as a Subscription yields it. */
export interface ServerNotification {
  method: string;
  params: { [key: string]: unknown };
}
