// Conversion of handler return values into MCP results.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import {
  MAX_COMPLETION_VALUES,
  singleText,
  toCallToolResult,
  toCompletion,
  toGetPromptResult,
  toReadResourceResult,
  toolErrorResult,
} from "../dist/results.js";

describe("toCallToolResult", () => {
  const cases = [
    ["a string is one text item", "hi", '{"content":[{"type":"text","text":"hi"}]}'],
    ["undefined is empty content", undefined, '{"content":[]}'],
    ["null is empty content", null, '{"content":[]}'],
    ["a number is text", 42, '{"content":[{"type":"text","text":"42"}]}'],
    ["a boolean is text", false, '{"content":[{"type":"text","text":"false"}]}'],
    ["a content block is wrapped", { type: "image", data: "AA==", mimeType: "image/png" },
      '{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}]}'],
    ["an array of blocks is the content", [{ type: "text", text: "a" }, { type: "text", text: "b" }],
      '{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}'],
    ["an array of values is JSON text", [1, "x"], '{"content":[{"type":"text","text":"[1,\\"x\\"]"}]}'],
    ["a plain object is structured content", { sum: 5 },
      '{"content":[{"type":"text","text":"{\\"sum\\":5}"}],"structuredContent":{"sum":5}}'],
    ["a full result passes unchanged", { content: [{ type: "text", text: "x" }], isError: true, _meta: { k: 1 } },
      '{"content":[{"type":"text","text":"x"}],"isError":true,"_meta":{"k":1}}'],
    ["structuredContent alone gets its text copy", { structuredContent: { a: 1 } },
      '{"structuredContent":{"a":1},"content":[{"type":"text","text":"{\\"a\\":1}"}]}'],
    ["an object with type other than content is structured", { type: "person", name: "x" },
      '{"content":[{"type":"text","text":"{\\"type\\":\\"person\\",\\"name\\":\\"x\\"}"}],"structuredContent":{"type":"person","name":"x"}}'],
  ];
  for (const [name, value, want] of cases) {
    it(name, () => assert.deepEqual(toCallToolResult(value), JSON.parse(want)));
  }
  it("refuses a function", () => assert.throws(() => toCallToolResult(() => 1), TypeError));
});

describe("toolErrorResult", () => {
  const cases = [
    ["an Error's message", new Error("it broke"), "it broke"],
    ["a string", "plain", "plain"],
    ["an Error without message names its class", new RangeError(), "RangeError"],
    ["an object as JSON", { code: 7 }, '{"code":7}'],
  ];
  for (const [name, err, want] of cases) {
    it(name, () => assert.deepEqual(toolErrorResult(err), { content: [{ type: "text", text: want }], isError: true }));
  }
});

describe("toReadResourceResult", () => {
  const cases = [
    ["a string is text contents", "hello", "text/plain",
      '{"contents":[{"uri":"test://r","text":"hello","mimeType":"text/plain"}]}'],
    ["bytes are a base64 blob", new Uint8Array([1, 2, 3]), undefined, '{"contents":[{"uri":"test://r","blob":"AQID"}]}'],
    ["one contents object is wrapped", { uri: "test://x", text: "t" }, undefined, '{"contents":[{"uri":"test://x","text":"t"}]}'],
    ["a list of contents", [{ uri: "test://a", blob: "AA==" }], undefined, '{"contents":[{"uri":"test://a","blob":"AA=="}]}'],
    ["a full result", { contents: [{ uri: "test://a", text: "" }] }, "text/plain", '{"contents":[{"uri":"test://a","text":""}]}'],
  ];
  for (const [name, value, mime, want] of cases) {
    it(name, () => assert.deepEqual(toReadResourceResult(value, "test://r", mime), JSON.parse(want)));
  }
  it("refuses a number", () => assert.throws(() => toReadResourceResult(3, "test://r"), TypeError));
});

describe("toGetPromptResult", () => {
  const cases = [
    ["a string is one user message", "hi", '{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}]}'],
    ["a content block is one user message", { type: "image", data: "AA==", mimeType: "image/png" },
      '{"messages":[{"role":"user","content":{"type":"image","data":"AA==","mimeType":"image/png"}}]}'],
    ["a mixed list", ["a", { role: "assistant", content: { type: "text", text: "b" } }],
      '{"messages":[{"role":"user","content":{"type":"text","text":"a"}},{"role":"assistant","content":{"type":"text","text":"b"}}]}'],
    ["a full result", { description: "d", messages: [] }, '{"description":"d","messages":[]}'],
  ];
  for (const [name, value, want] of cases) {
    it(name, () => assert.deepEqual(toGetPromptResult(value), JSON.parse(want)));
  }
  it("refuses a message with a bad role", () =>
    assert.throws(() => toGetPromptResult([{ role: "system", content: { type: "text", text: "x" } }]), TypeError));
});

describe("toCompletion", () => {
  it("takes a list of strings", () => assert.deepEqual(toCompletion(["a", "b"]), { values: ["a", "b"] }));
  it("cuts a long list at the protocol's limit", () => {
    const values = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const got = toCompletion(values);
    assert.equal(got.values.length, MAX_COMPLETION_VALUES);
    assert.equal(got.total, 150);
    assert.equal(got.hasMore, true);
  });
  it("takes a completion object", () => assert.deepEqual(toCompletion({ values: ["x"], total: 9 }), { values: ["x"], total: 9 }));
  it("takes a full result", () => assert.deepEqual(toCompletion({ completion: { values: [] } }), { values: [] }));
  it("refuses non-strings", () => assert.throws(() => toCompletion([1]), TypeError));
});

describe("singleText", () => {
  const text = (t) => ({ type: "text", text: t });
  const cases = [
    ["one text item", { content: [text("hi")] }, "hi"],
    ["an empty text", { content: [text("")] }, ""],
    ["a result with more members", { content: [text("hi")], isError: true }, undefined],
    ["two items", { content: [text("a"), text("b")] }, undefined],
    ["an item with annotations", { content: [{ ...text("a"), annotations: { priority: 1 } }] }, undefined],
    ["an image", { content: [{ type: "image", data: "AA==", mimeType: "image/png" }] }, undefined],
    ["a text that is not a string", { content: [{ type: "text", text: 1 }] }, undefined],
    ["a lone surrogate", { content: [text("x \ud800")] }, undefined],
    ["an item with its own toJSON", { content: [Object.assign(Object.create({ toJSON: () => ({}) }), text("a"))] }, undefined],
    ["not an object", "hi", undefined],
  ];
  for (const [name, result, want] of cases) {
    it(name, () => assert.equal(singleText(result), want));
  }
});
