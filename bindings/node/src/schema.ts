// Input and output schemas: plain JSON Schema objects, or schemas from a
// validation library (zod 4, or any library implementing Standard Schema
// with its JSON Schema extension), given whole or as a shape of fields like
// the TypeScript SDK's `{ text: z.string() }`. No library is imported: the
// binding talks to schema objects through the Standard Schema interface, so
// zod stays an optional peer.

import type { JsonSchema } from "./types";

/** The Standard Schema v1 interface (standardschema.dev), trimmed to what is used. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
    readonly jsonSchema?: {
      readonly input: (options: { target: string }) => Record<string, unknown>;
      readonly output: (options: { target: string }) => Record<string, unknown>;
    };
  };
}

export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly StandardIssue[] };

export interface StandardIssue {
  readonly message: string;
  readonly path?: readonly (PropertyKey | { readonly key: PropertyKey })[] | undefined;
}

/** A shape of fields: `{ name: z.string(), age: z.number().optional() }`. */
export type SchemaShape = { [key: string]: StandardSchemaV1 };

/** What registerTool and registerPrompt accept as a schema. */
export type SchemaInput = JsonSchema | StandardSchemaV1 | SchemaShape;

type OutputOf<S> = S extends StandardSchemaV1<unknown, infer O> ? O : unknown;

/** The type of the arguments a handler receives for a schema. */
export type InferArgs<S> = S extends StandardSchemaV1
  ? OutputOf<S>
  : S extends SchemaShape
    ? { [K in keyof S]: OutputOf<S[K]> }
    : { [key: string]: unknown };

/** A schema ready for the wire, with the checks to run in JS before the handler. */
export interface CompiledSchema {
  /** The JSON Schema sent to the core, which validates arguments against it. */
  readonly json: JsonSchema;
  /** Library validation (refinements, transforms, defaults); absent for plain JSON Schema. */
  readonly parse?: (value: unknown) => Promise<unknown>;
}

/** Arguments that failed the schema library's validation. */
export class ValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ValidationError";
  }
}

const TARGET = "draft-2020-12";

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) {
    return false;
  }
  const std = (value as { "~standard"?: unknown })["~standard"];
  return typeof std === "object" && std !== null && typeof (std as { validate?: unknown }).validate === "function";
}

/** A non-empty object whose every value is a Standard Schema. */
export function isSchemaShape(value: unknown): value is SchemaShape {
  if (!isPlainObject(value) || isStandardSchema(value)) {
    return false;
  }
  const fields = Object.values(value);
  return fields.length > 0 && fields.every(isStandardSchema);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return false;
  }
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The JSON Schema of one library schema, without its $schema marker when nested. */
export function toJsonSchema(schema: StandardSchemaV1, nested = false): JsonSchema {
  const std = schema["~standard"];
  let json: Record<string, unknown> | undefined;
  if (std.jsonSchema) {
    json = std.jsonSchema.input({ target: TARGET });
  } else {
    const method = (schema as { toJSONSchema?: (opts?: unknown) => Record<string, unknown> }).toJSONSchema;
    if (typeof method === "function") {
      json = method.call(schema, { target: TARGET, io: "input" });
    }
  }
  if (!isPlainObject(json)) {
    throw new TypeError(
      `a ${std.vendor} schema cannot be turned into JSON Schema: pass a JSON Schema object or a library implementing Standard JSON Schema (zod >= 4.2)`,
    );
  }
  if (nested) {
    const { $schema: _drop, ...rest } = json;
    return rest;
  }
  return json;
}

/** Whether a field of a shape may be left out. */
function isOptionalField(schema: StandardSchemaV1): boolean {
  const zod = (schema as { _zod?: { optin?: unknown } })._zod;
  if (zod) {
    return zod.optin !== undefined;
  }
  const result = schema["~standard"].validate(undefined);
  return !(result instanceof Promise) && result.issues === undefined;
}

/** Compiles what a user passed as inputSchema or outputSchema. */
export function compileSchema(input: SchemaInput | undefined, what: string): CompiledSchema {
  if (input === undefined) {
    return { json: { type: "object", properties: {} } };
  }
  if (isStandardSchema(input)) {
    return { json: toJsonSchema(input), parse: (value) => validate(input, value, what) };
  }
  if (isSchemaShape(input)) {
    return compileShape(input, what);
  }
  if (!isPlainObject(input)) {
    throw new TypeError(`${what} must be a JSON Schema object, a Standard Schema or a shape of schemas`);
  }
  if (Object.keys(input).length === 0) {
    return { json: { type: "object", properties: {} } };
  }
  return { json: input };
}

function compileShape(shape: SchemaShape, what: string): CompiledSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [key, field] of Object.entries(shape)) {
    properties[key] = toJsonSchema(field, true);
    if (!isOptionalField(field)) {
      required.push(key);
    }
  }
  const json: JsonSchema = { type: "object", properties };
  if (required.length > 0) {
    json.required = required;
  }
  return {
    json,
    parse: async (value) => {
      const args = isPlainObject(value) ? value : {};
      const out: Record<string, unknown> = {};
      for (const [key, field] of Object.entries(shape)) {
        const parsed = await validate(field, args[key], what, key);
        if (parsed !== undefined || key in args) {
          out[key] = parsed;
        }
      }
      return out;
    },
  };
}

async function validate(schema: StandardSchemaV1, value: unknown, what: string, key?: string): Promise<unknown> {
  const result = await schema["~standard"].validate(value);
  if (result.issues === undefined) {
    return result.value;
  }
  throw new ValidationError(`invalid ${what}: ${formatIssues(result.issues, key)}`);
}

function formatIssues(issues: readonly StandardIssue[], key?: string): string {
  return issues
    .map((issue) => {
      const path = [...(key === undefined ? [] : [key]), ...(issue.path ?? []).map(pathKey)];
      return path.length > 0 ? `${path.join(".")}: ${issue.message}` : issue.message;
    })
    .join("; ");
}

function pathKey(segment: PropertyKey | { readonly key: PropertyKey }): string {
  return String(typeof segment === "object" ? segment.key : segment);
}
