// Conversion of what handlers return into MCP result objects. Handlers may
// return the full result, or the short forms the Python binding accepts
// too: a string becomes text, a plain object becomes structured content,
// an array of content blocks becomes the content.

import { errorMessage } from "./errors";
import type {
  CallToolResult,
  Completion,
  ContentBlock,
  GetPromptResult,
  PromptMessage,
  ReadResourceResult,
  ResourceContents,
} from "./types";

/** What a tool handler may return. */
export type ToolReturn = CallToolResult | ContentBlock | ContentBlock[] | string | number | boolean | object | null | undefined;
/** What a resource handler may return. */
export type ResourceReturn = ReadResourceResult | ResourceContents | ResourceContents[] | string | Uint8Array;
/** What a prompt handler may return. */
export type PromptReturn = GetPromptResult | PromptMessage[] | ContentBlock | (string | ContentBlock | PromptMessage)[] | string;
/** What a completion handler may return. */
export type CompletionReturn = string[] | Completion | { completion: Completion };

/** The most values a completion result may hold (the protocol's limit). */
export const MAX_COMPLETION_VALUES = 100;

const CONTENT_TYPES = new Set(["text", "image", "audio", "resource", "resource_link"]);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function isContentBlock(value: unknown): value is ContentBlock {
  return isObject(value) && typeof value.type === "string" && CONTENT_TYPES.has(value.type);
}

function isCallToolResult(value: Record<string, unknown>): boolean {
  return Array.isArray(value.content) || "structuredContent" in value || typeof value.isError === "boolean";
}

/** The text of a JSON value, for the text content that mirrors structured content. */
function jsonText(value: unknown): string {
  return JSON.stringify(value) ?? "null";
}

export function text(value: string): ContentBlock {
  return { type: "text", text: value };
}

/**
 * The text of a tool result that is exactly {content: [{type: "text", text}]}
 * of plain objects (what a string return gives), to send as it is
 * (callCompleteText) instead of as JSON; undefined for any other result,
 * and for a text with a lone surrogate, which UTF-8 cannot carry (JSON
 * escapes it).
 */
export function singleText(result: unknown): string | undefined {
  if (!isPlain(result) || !hasOnlyKeys(result, "content")) {
    return undefined;
  }
  const content = result.content;
  if (!Array.isArray(content) || content.length !== 1) {
    return undefined;
  }
  const item: unknown = content[0];
  if (!isPlain(item) || item.type !== "text" || typeof item.text !== "string" || !hasOnlyKeys(item, "type", "text")) {
    return undefined;
  }
  return (item.text as WellFormed).isWellFormed() ? item.text : undefined;
}

// String.prototype.isWellFormed (Node 20), newer than the es2022 lib.
type WellFormed = string & { isWellFormed(): boolean };

// A plain object (no prototype of its own, so no toJSON) whose own keys are all in keys.
function isPlain(v: unknown): v is { [key: string]: unknown } {
  return typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
}

function hasOnlyKeys(o: object, ...keys: string[]): boolean {
  const own = Object.keys(o);
  return own.length === keys.length && own.every((k) => keys.includes(k));
}

export function toCallToolResult(value: unknown): CallToolResult {
  if (value === undefined || value === null) {
    return { content: [] };
  }
  if (typeof value === "string") {
    return { content: [text(value)] };
  }
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") {
    return { content: [text(String(value))] };
  }
  if (Array.isArray(value)) {
    if (value.every(isContentBlock)) {
      return { content: value };
    }
    return { content: [text(jsonText(value))] };
  }
  if (!isObject(value)) {
    throw new TypeError(`a tool cannot return a ${typeof value}`);
  }
  if (isContentBlock(value)) {
    return { content: [value] };
  }
  if (isCallToolResult(value)) {
    const result = value as unknown as CallToolResult;
    if (!Array.isArray(result.content)) {
      // The protocol asks for a text copy of structured content for
      // clients that do not read structuredContent.
      return { ...result, content: result.structuredContent === undefined ? [] : [text(jsonText(result.structuredContent))] };
    }
    return result;
  }
  return { content: [text(jsonText(value))], structuredContent: value };
}

/** The isError result for a handler that threw. */
export function toolErrorResult(err: unknown): CallToolResult {
  return { content: [text(errorMessage(err))], isError: true };
}

function isResourceContents(value: unknown): value is ResourceContents {
  return isObject(value) && typeof value.uri === "string" && (typeof value.text === "string" || typeof value.blob === "string");
}

export function toReadResourceResult(value: unknown, uri: string, mimeType?: string): ReadResourceResult {
  const withType = <T extends object>(c: T): T => (mimeType === undefined ? c : { ...c, mimeType });
  if (typeof value === "string") {
    return { contents: [withType({ uri, text: value })] };
  }
  if (value instanceof Uint8Array) {
    return { contents: [withType({ uri, blob: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64") })] };
  }
  if (Array.isArray(value) && value.every(isResourceContents)) {
    return { contents: value };
  }
  if (isResourceContents(value)) {
    return { contents: [value] };
  }
  if (isObject(value) && Array.isArray(value.contents)) {
    return value as unknown as ReadResourceResult;
  }
  throw new TypeError("a resource handler must return a string, bytes, resource contents or { contents }");
}

function isPromptMessage(value: unknown): value is PromptMessage {
  return isObject(value) && (value.role === "user" || value.role === "assistant") && isContentBlock(value.content);
}

function toPromptMessage(item: unknown): PromptMessage {
  if (typeof item === "string") {
    return { role: "user", content: text(item) };
  }
  if (isPromptMessage(item)) {
    return item;
  }
  if (isContentBlock(item)) {
    return { role: "user", content: item };
  }
  throw new TypeError("a prompt message must be a string, a content block or { role, content }");
}

export function toGetPromptResult(value: unknown): GetPromptResult {
  if (isObject(value) && Array.isArray(value.messages)) {
    return value as unknown as GetPromptResult;
  }
  if (Array.isArray(value)) {
    return { messages: value.map(toPromptMessage) };
  }
  return { messages: [toPromptMessage(value)] };
}

export function toCompletion(value: unknown): Completion {
  if (Array.isArray(value)) {
    if (!value.every((v) => typeof v === "string")) {
      throw new TypeError("completion values must be strings");
    }
    if (value.length <= MAX_COMPLETION_VALUES) {
      return { values: value };
    }
    return { values: value.slice(0, MAX_COMPLETION_VALUES), total: value.length, hasMore: true };
  }
  if (isObject(value) && isObject(value.completion)) {
    return toCompletion(value.completion);
  }
  if (isObject(value) && Array.isArray(value.values)) {
    const completion = value as unknown as Completion;
    if (completion.values.length > MAX_COMPLETION_VALUES) {
      return { ...completion, values: completion.values.slice(0, MAX_COMPLETION_VALUES), hasMore: true };
    }
    return completion;
  }
  throw new TypeError("a completion handler must return string[] or { values }");
}
