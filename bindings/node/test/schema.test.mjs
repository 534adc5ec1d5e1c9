// Schemas: JSON Schema passes through untouched; zod (Standard Schema)
// schemas and shapes become JSON Schema and validate in JS.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { z } from "zod";

import { ValidationError, compileSchema, isSchemaShape, isStandardSchema } from "../dist/schema.js";

// The everything fixture's 2020-12 schema: the core must see it byte for byte.
const SCHEMA_2020 =
  '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",' +
  '"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},' +
  '"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},' +
  '"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],' +
  '"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},' +
  '"additionalProperties":false}';

describe("compileSchema", () => {
  const cases = [
    ["no schema is an object without properties", undefined, '{"type":"object","properties":{}}'],
    ["an empty object is an object without properties", {}, '{"type":"object","properties":{}}'],
    ["JSON Schema passes through", JSON.parse(SCHEMA_2020), SCHEMA_2020],
    ["a zod shape", { text: z.string().describe("the text"), n: z.number().int().optional() },
      '{"type":"object","properties":{"text":{"type":"string","description":"the text"},"n":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}},"required":["text"]}'],
    ["a zod shape with a default is optional", { ms: z.number().default(5) },
      '{"type":"object","properties":{"ms":{"default":5,"type":"number"}}}'],
    ["a zod object", z.object({ a: z.string() }),
      '{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"a":{"type":"string"}},"required":["a"]}'],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => assert.equal(JSON.stringify(compileSchema(input, "arguments").json), want));
  }

  it("has no JS validation for plain JSON Schema", () => {
    assert.equal(compileSchema({ type: "object" }, "arguments").parse, undefined);
  });

  it("refuses a non-object", () => {
    assert.throws(() => compileSchema("string", "arguments"), TypeError);
    assert.throws(() => compileSchema([], "arguments"), TypeError);
  });

  it("refuses a Standard Schema without JSON Schema support", () => {
    const bare = { "~standard": { version: 1, vendor: "bare", validate: (v) => ({ value: v }) } };
    assert.throws(() => compileSchema(bare, "arguments"), /a bare schema cannot be turned into JSON Schema/);
  });
});

describe("shape validation", () => {
  const { parse } = compileSchema(
    { text: z.string().min(2), ms: z.number().default(7), tag: z.string().optional() },
    "arguments of tool t",
  );

  it("applies defaults and drops unknown keys", async () => {
    assert.deepEqual(await parse({ text: "hi", extra: 1 }), { text: "hi", ms: 7 });
  });

  it("keeps a given optional field", async () => {
    assert.deepEqual(await parse({ text: "hi", ms: 1, tag: "x" }), { text: "hi", ms: 1, tag: "x" });
  });

  it("names the field and the rule", async () => {
    await assert.rejects(parse({ text: "h" }), (err) => {
      assert.ok(err instanceof ValidationError);
      assert.match(err.message, /^invalid arguments of tool t: text: /);
      return true;
    });
  });

  it("validates a whole zod object with paths", async () => {
    const whole = compileSchema(z.object({ a: z.object({ b: z.string() }) }), "arguments");
    await assert.rejects(whole.parse({ a: { b: 1 } }), /invalid arguments: a\.b: /);
  });
});

describe("detection", () => {
  it("tells shapes from JSON Schema", () => {
    assert.equal(isSchemaShape({ a: z.string() }), true);
    assert.equal(isSchemaShape({ type: "object" }), false);
    assert.equal(isSchemaShape({}), false);
    assert.equal(isSchemaShape(z.object({})), false);
    assert.equal(isStandardSchema(z.string()), true);
    assert.equal(isStandardSchema({ type: "string" }), false);
  });
});
