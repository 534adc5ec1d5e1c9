// The registration side: what registerTool, registerResource and
// registerPrompt accept, and the catalogue entries they become. Entries
// are plain data plus a handler; the server owns the native handle.

import type { RequestExtra } from "./context";
import type { CompletionReturn, PromptReturn, ResourceReturn, ToolReturn } from "./results";
import { compileSchema, type CompiledSchema, type InferArgs, type SchemaInput } from "./schema";
import type { Annotations, Icon, JsonSchema, Meta, PromptArgument, ToolAnnotations } from "./types";

type Awaitable<T> = T | Promise<T>;

/**
 * Whether a tool's calls may become tasks (the 2026-07-28 tasks extension,
 * io.modelcontextprotocol/tasks): "optional", a call whose request declares
 * the extension becomes a task and any other runs as an ordinary call;
 * "required", a 2026-07-28 request without the extension is refused with
 * -32021 before the handler runs. The older revisions have no tasks: there
 * every call is ordinary.
 */
export type TaskSupport = "optional" | "required";

/** A tool's task settings (ToolConfig.task). */
export interface TaskOptions {
  support: TaskSupport;
  /**
   * When the call becomes a task: "call" (the default) before the handler
   * runs; "handler" when the handler calls ctx.startTask(), after settling
   * the questions it asks first (input_required rounds, answered by the
   * client's retries as for any call).
   */
  start?: "call" | "handler";
}

export interface ToolConfig<I extends SchemaInput | undefined = undefined> {
  title?: string;
  description?: string;
  /** JSON Schema of the arguments, a Standard Schema (zod) or a shape of them. */
  inputSchema?: I;
  /** JSON Schema of structuredContent (root type object), or a schema library's. */
  outputSchema?: SchemaInput;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
  /**
   * Task support (2026-07-28 tasks extension): "optional", "required" or
   * { support, start }; absent, the tool's calls never become tasks. A
   * call that is a task is answered at once with a task handle the client
   * polls (tasks/get); the handler runs as for any call, and what it
   * returns or throws becomes the task's outcome. tasks/cancel aborts
   * ctx.signal; ctx.elicit and the other questions wait for the client's
   * tasks/update.
   */
  task?: TaskSupport | TaskOptions;
}

export type ToolHandler<I extends SchemaInput | undefined> = (
  args: I extends SchemaInput ? InferArgs<I> : { [key: string]: unknown },
  extra: RequestExtra,
) => Awaitable<ToolReturn>;

/** Context of a completion request: the other arguments already chosen. */
export interface CompleteContext {
  arguments: { [name: string]: string };
}

export type CompleteCallback = (value: string, context: CompleteContext) => Awaitable<CompletionReturn>;

export interface ResourceMetadata {
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

export type ReadResourceCallback = (uri: URL, extra: RequestExtra) => Awaitable<ResourceReturn>;
export type ReadResourceTemplateCallback = (
  uri: URL,
  variables: { [name: string]: string },
  extra: RequestExtra,
) => Awaitable<ResourceReturn>;

/** An RFC 6570 URI template with optional completion of its variables. */
export class ResourceTemplate {
  readonly uriTemplate: string;
  readonly complete: { [variable: string]: CompleteCallback };

  constructor(uriTemplate: string, options: { list?: undefined; complete?: { [variable: string]: CompleteCallback } } = {}) {
    if (options.list !== undefined) {
      throw new TypeError("ResourceTemplate: listing the resources of a template is not supported; register them with registerResource");
    }
    this.uriTemplate = uriTemplate;
    this.complete = { ...options.complete };
  }
}

/** A URI with an RFC 6570 expression is a template ("{" may not appear in a URI). */
export function isUriTemplate(uri: string): boolean {
  return /\{[^}]*\}/.test(uri);
}

export interface PromptConfig<A extends SchemaInput | undefined = undefined> {
  title?: string;
  description?: string;
  /** A shape of string schemas (zod), or a JSON Schema object whose properties are the arguments. */
  argsSchema?: A;
  /** The arguments spelled out, when no argsSchema is given. */
  arguments?: PromptArgument[];
  /** Completion of argument values, by argument name. */
  complete?: { [argument: string]: CompleteCallback };
  icons?: Icon[];
  _meta?: Meta;
}

export type PromptHandler<A extends SchemaInput | undefined> = (
  args: A extends SchemaInput ? InferArgs<A> : { [name: string]: string },
  extra: RequestExtra,
) => Awaitable<PromptReturn>;

/** A catalogue entry, what the core knows under one tag. */
export type Entry =
  | {
      readonly kind: "tool";
      readonly name: string;
      readonly json: JsonSchema;
      /** The task definition of polymcp_server_add_task_tool, when the tool has task support. */
      readonly task: TaskOptions | undefined;
      readonly input: CompiledSchema;
      readonly handler: ToolHandler<SchemaInput>;
    }
  | {
      readonly kind: "resource";
      readonly uri: string;
      readonly template: boolean;
      readonly json: JsonSchema;
      readonly mimeType: string | undefined;
      readonly handler: ReadResourceTemplateCallback;
      readonly complete: { [variable: string]: CompleteCallback };
    }
  | {
      readonly kind: "prompt";
      readonly name: string;
      readonly json: JsonSchema;
      readonly args: CompiledSchema | undefined;
      readonly handler: PromptHandler<SchemaInput>;
      readonly complete: { [argument: string]: CompleteCallback };
    }
  | { readonly kind: "completion"; readonly complete: { [argument: string]: CompleteCallback } };

/** The completion/complete reference naming an entry's completer, if it has any. */
export function completionRef(entry: Entry): { [key: string]: string } | undefined {
  if (entry.kind === "prompt" && Object.keys(entry.complete).length > 0) {
    return { type: "ref/prompt", name: entry.name };
  }
  if (entry.kind === "resource" && entry.template && Object.keys(entry.complete).length > 0) {
    return { type: "ref/resource", uri: entry.uri };
  }
  return undefined;
}

function defined(obj: { [key: string]: unknown }): JsonSchema {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

export function toolEntry(name: string, config: ToolConfig<SchemaInput | undefined>, handler: ToolHandler<SchemaInput>): Entry {
  checkName(name, "tool");
  const input = compileSchema(config.inputSchema, `arguments of tool ${name}`);
  const output = config.outputSchema === undefined ? undefined : compileSchema(config.outputSchema, `output of tool ${name}`);
  const json = defined({
    name,
    title: config.title,
    description: config.description,
    inputSchema: input.json,
    outputSchema: output?.json,
    annotations: config.annotations,
    icons: config.icons,
    _meta: config._meta,
  });
  return { kind: "tool", name, json, task: taskOptions(config.task, name), input, handler };
}

const SUPPORTS: ReadonlySet<unknown> = new Set(["optional", "required"]);
const STARTS: ReadonlySet<unknown> = new Set([undefined, "call", "handler"]);

/** ToolConfig.task checked and spelled out as the C ABI's task definition. */
function taskOptions(task: ToolConfig<undefined>["task"], name: string): TaskOptions | undefined {
  if (task === undefined) {
    return undefined;
  }
  const options = typeof task === "string" ? { support: task } : task;
  const known = (key: string) => key === "support" || key === "start";
  if (
    typeof options !== "object" ||
    options === null ||
    !SUPPORTS.has(options.support) ||
    !STARTS.has(options.start) ||
    !Object.keys(options).every(known)
  ) {
    throw new TypeError(
      `tool ${name}: task must be "optional", "required" or { support: "optional" | "required", start?: "call" | "handler" }, got ${JSON.stringify(task)}`,
    );
  }
  return options.start === undefined ? { support: options.support } : { support: options.support, start: options.start };
}

export function resourceEntry(
  name: string,
  uriOrTemplate: string | ResourceTemplate,
  metadata: ResourceMetadata,
  handler: ReadResourceCallback | ReadResourceTemplateCallback,
): Entry {
  checkName(name, "resource");
  const isTemplate = uriOrTemplate instanceof ResourceTemplate || isUriTemplate(uriOrTemplate);
  const uri = uriOrTemplate instanceof ResourceTemplate ? uriOrTemplate.uriTemplate : uriOrTemplate;
  if (typeof uri !== "string" || uri === "") {
    throw new TypeError(`resource ${name}: the uri must be a non-empty string`);
  }
  const json = defined({
    [isTemplate ? "uriTemplate" : "uri"]: uri,
    name,
    title: metadata.title,
    description: metadata.description,
    mimeType: metadata.mimeType,
    size: isTemplate ? undefined : metadata.size,
    annotations: metadata.annotations,
    icons: metadata.icons,
    _meta: metadata._meta,
  });
  const read: ReadResourceTemplateCallback = isTemplate
    ? (handler as ReadResourceTemplateCallback)
    : (url, _vars, extra) => (handler as ReadResourceCallback)(url, extra);
  const complete = uriOrTemplate instanceof ResourceTemplate ? uriOrTemplate.complete : {};
  return { kind: "resource", uri, template: isTemplate, json, mimeType: metadata.mimeType, handler: read, complete };
}

export function promptEntry(name: string, config: PromptConfig<SchemaInput | undefined>, handler: PromptHandler<SchemaInput>): Entry {
  checkName(name, "prompt");
  const args = config.argsSchema === undefined ? undefined : compileSchema(config.argsSchema, `arguments of prompt ${name}`);
  const list = config.arguments ?? (args === undefined ? undefined : promptArguments(args));
  const json = defined({
    name,
    title: config.title,
    description: config.description,
    arguments: list,
    icons: config.icons,
    _meta: config._meta,
  });
  return { kind: "prompt", name, json, args, handler, complete: { ...config.complete } };
}

/** The prompt's argument list, read off its schema's properties. */
function promptArguments(compiled: CompiledSchema | undefined): PromptArgument[] {
  const json = compiled?.json ?? {};
  const properties = (json.properties ?? {}) as { [name: string]: { description?: unknown; title?: unknown } };
  const required = new Set(Array.isArray(json.required) ? (json.required as string[]) : []);
  return Object.entries(properties).map(([argName, prop]) =>
    defined({
      name: argName,
      title: typeof prop.title === "string" ? prop.title : undefined,
      description: typeof prop.description === "string" ? prop.description : undefined,
      required: required.has(argName) ? true : undefined,
    }) as unknown as PromptArgument,
  );
}

function checkName(name: string, what: string): void {
  if (typeof name !== "string" || name === "") {
    throw new TypeError(`a ${what} needs a non-empty name`);
  }
}
