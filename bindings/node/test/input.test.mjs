// Handlers asking the client for input (ctx.elicit, ctx.sample, ctx.roots,
// ctx.ask, the input state, ctx.declared) over stdio, with literal JSON for
// both models: server-to-client requests the test answers (2025-11-25) and
// 2026-07-28's input_required results with retries.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { INITIALIZED, StdioClient } from "./stdio_client.mjs";

const ASK = fileURLToPath(new URL("./fixtures/ask.mjs", import.meta.url));

const legacyInit = (caps) =>
  `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${caps},"clientInfo":{"name":"t","version":"1"}}}`;

async function legacy(caps = '{"elicitation":{},"sampling":{},"roots":{}}') {
  const c = new StdioClient(ASK);
  c.send(legacyInit(caps), INITIALIZED);
  await c.answer(0);
  return c;
}

const ALL = '{"elicitation":{},"sampling":{},"roots":{}}';
const meta = (caps = ALL) => `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":${caps}}`;
const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "ask", version: "1.0.0" } };
const NAME_FORM = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const COLOR_FORM = { type: "object", properties: { color: { type: "string" } }, required: ["color"] };

/** An input_required answer: requestState is opaque, so it is checked for its form and returned. */
function inputRequired(got, id, inputRequests) {
  const state = got.result?.requestState;
  assert.match(state, /^v1\.[\w-]+\.[\w-]+$/, JSON.stringify(got));
  assert.deepEqual(got, { jsonrpc: "2.0", id, result: { resultType: "input_required", _meta: SERVER_META, inputRequests, requestState: state } });
  return state;
}

const complete = (id, text) => ({ jsonrpc: "2.0", id, result: { resultType: "complete", _meta: SERVER_META, content: [{ type: "text", text }] } });

describe("input on 2025-11-25: server-to-client requests", () => {
  it("elicits, samples and lists roots through requests the client answers", async () => {
    const c = await legacy();
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{}}}');
    assert.deepEqual(JSON.parse(await c.next((l) => l.includes("elicitation/create"))),
      { jsonrpc: "2.0", id: "polymcp:1", method: "elicitation/create", params: { message: "Your name?", requestedSchema: NAME_FORM } });
    c.send('{"jsonrpc":"2.0","id":"polymcp:1","result":{"action":"accept","content":{"name":"Ann"}}}');
    assert.deepEqual(await c.answer(1), { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "Hello, Ann!" }] } });

    c.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}');
    assert.deepEqual(JSON.parse(await c.next((l) => l.includes("sampling/createMessage"))), {
      jsonrpc: "2.0", id: "polymcp:2", method: "sampling/createMessage",
      params: { messages: [{ role: "user", content: { type: "text", text: "Say hi" } }], maxTokens: 10 },
    });
    c.send('{"jsonrpc":"2.0","id":"polymcp:2","result":{"role":"assistant","content":{"type":"text","text":"hi"},"model":"m"}}');
    assert.deepEqual(await c.answer(2), { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "model said hi" }] } });

    c.send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"roots","arguments":{}}}');
    assert.deepEqual(JSON.parse(await c.next((l) => l.includes("roots/list"))), { jsonrpc: "2.0", id: "polymcp:3", method: "roots/list", params: {} });
    c.send('{"jsonrpc":"2.0","id":"polymcp:3","result":{"roots":[{"uri":"file:///a"},{"uri":"file:///b"}]}}');
    assert.deepEqual(await c.answer(3), { jsonrpc: "2.0", id: 3, result: { content: [{ type: "text", text: "file:///a,file:///b" }] } });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("asks several questions at once, keeps state within the call, and reports refusals as tool errors", async () => {
    const c = await legacy();
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"several","arguments":{}}}');
    // One request per key, in key order: dirs, model, name.
    const asked = await Promise.all(["polymcp:1", "polymcp:2", "polymcp:3"].map((id) => c.next((l) => JSON.parse(l).id === id).then(JSON.parse)));
    assert.deepEqual(asked.map((m) => m.method), ["roots/list", "sampling/createMessage", "elicitation/create"]);
    c.send(
      '{"jsonrpc":"2.0","id":"polymcp:3","result":{"action":"accept","content":{"name":"Bo"}}}',
      '{"jsonrpc":"2.0","id":"polymcp:1","result":{"roots":[{"uri":"file:///w"}]}}',
      '{"jsonrpc":"2.0","id":"polymcp:2","result":{"role":"assistant","content":{"type":"text","text":"yo"},"model":"m"}}',
    );
    assert.deepEqual(await c.answer(1), { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "Bo; yo; file:///w" }] } });

    // Both questions of rounds go out in one call; the state set before the first is there.
    c.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rounds","arguments":{}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:4");
    c.send('{"jsonrpc":"2.0","id":"polymcp:4","result":{"action":"accept","content":{"name":"Cy"}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:5");
    c.send('{"jsonrpc":"2.0","id":"polymcp:5","result":{"action":"accept","content":{"color":"red"}}}');
    assert.deepEqual(await c.answer(2), { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "Cy likes red; state (none)" }] } });

    c.send('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sample","arguments":{}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:6");
    c.send('{"jsonrpc":"2.0","id":"polymcp:6","error":{"code":-1,"message":"User rejected sampling request"}}');
    assert.deepEqual(await c.answer(3), {
      jsonrpc: "2.0", id: 3,
      result: { content: [{ type: "text", text: "the client answered sampling/createMessage with error -1: User rejected sampling request" }], isError: true },
    });

    // An elicitation answer without a valid action is -32602.
    c.send('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"greet","arguments":{}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:7");
    c.send('{"jsonrpc":"2.0","id":"polymcp:7","result":{"action":"maybe"}}');
    assert.deepEqual(await c.answer(4), {
      jsonrpc: "2.0", id: 4, error: { code: -32602, message: "who: the answer to elicitation/create has no valid action (accept, decline or cancel)" },
    });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("says what the client declared, and refuses an undeclared kind without asking", async () => {
    const c = await legacy('{"roots":{}}');
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"declared","arguments":{}}}');
    assert.deepEqual(await c.answer(1), { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "roots/list" }] } });
    c.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{}}}');
    assert.deepEqual(await c.answer(2), {
      jsonrpc: "2.0", id: 2,
      result: { content: [{ type: "text", text: 'the client did not declare the capability sampling/createMessage needs: {"sampling":{}}' }], isError: true },
    });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.ok(!c.pending.some((l) => l.includes("sampling/createMessage")), "no request was sent");
  });

  it("rejects a waiting question with an AbortError when the call is cancelled", async () => {
    const c = await legacy();
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"patient","arguments":{}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:1");
    c.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user"}}');
    assert.deepEqual(JSON.parse(await c.next((l) => l.includes("notifications/cancelled"))), {
      jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "polymcp:1", reason: "polymcp: request cancelled by the client" },
    });
    c.send('{"jsonrpc":"2.0","id":"polymcp:1","result":{"role":"assistant","content":{"type":"text","text":"late"},"model":"m"}}');
    c.send('{"jsonrpc":"2.0","id":2,"method":"ping"}');
    assert.deepEqual(await c.answer(2), { jsonrpc: "2.0", id: 2, result: {} });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.match(c.stderr, /^patient: AbortError signal\.aborted=true$/m);
    assert.ok(!c.pending.some((l) => JSON.parse(l).id === 1), "the cancelled call was answered");
  });

  it("cancels the questions of calls in flight when stdin ends, then exits", async () => {
    const c = await legacy();
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"patient","arguments":{}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:1");
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.match(c.stderr, /^patient: AbortError signal\.aborted=true$/m);
  });
});

describe("input on 2026-07-28: input_required and retries", () => {
  async function modern() {
    return new StdioClient(ASK);
  }

  it("ends the call with input_required, and the retry gets the answer", async () => {
    const c = await modern();
    c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"greet","arguments":{},${meta()}}}`);
    inputRequired(await c.answer(1), 1, { who: { method: "elicitation/create", params: { message: "Your name?", requestedSchema: NAME_FORM } } });
    c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{},"inputResponses":{"who":{"action":"accept","content":{"name":"Ann"}}},${meta()}}}`);
    assert.deepEqual(await c.answer(2), complete(2, "Hello, Ann!"));
    // prompts/get asks the same way
    c.send(`{"jsonrpc":"2.0","id":3,"method":"prompts/get","params":{"name":"ask_prompt",${meta()}}}`);
    inputRequired(await c.answer(3), 3, {
      ctx: { method: "elicitation/create", params: { message: "Context?", requestedSchema: { type: "object", properties: { context: { type: "string" } }, required: ["context"] } } },
    });
    c.send(`{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"ask_prompt","inputResponses":{"ctx":{"action":"accept","content":{"context":"tests"}}},${meta()}}}`);
    assert.deepEqual(await c.answer(4), {
      jsonrpc: "2.0", id: 4, result: { resultType: "complete", _meta: SERVER_META, messages: [{ role: "user", content: { type: "text", text: "Use tests" } }] },
    });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("asks over several rounds, carrying answers and the input state in requestState", async () => {
    const c = await modern();
    c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rounds","arguments":{},${meta()}}}`);
    const s1 = inputRequired(await c.answer(1), 1, { q0: { method: "elicitation/create", params: { message: "Your name?", requestedSchema: NAME_FORM } } });
    c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"rounds","arguments":{},"inputResponses":{"q0":{"action":"accept","content":{"name":"Di"}}},"requestState":"${s1}",${meta()}}}`);
    const s2 = inputRequired(await c.answer(2), 2, { q1: { method: "elicitation/create", params: { message: "Your color?", requestedSchema: COLOR_FORM } } });
    c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rounds","arguments":{},"inputResponses":{"q1":{"action":"accept","content":{"color":"blue"}}},"requestState":"${s2}",${meta()}}}`);
    assert.deepEqual(await c.answer(3), complete(3, 'Di likes blue; state {"round":2}'));
    // A requestState the server did not sign is refused.
    c.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"rounds","arguments":{},"requestState":"v1.e30.AAAA",${meta()}}}`);
    assert.deepEqual(await c.answer(4), { jsonrpc: "2.0", id: 4, error: { code: -32602, message: "params.requestState is invalid: integrity check failed" } });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("asks several kinds in one round", async () => {
    const c = await modern();
    c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"several","arguments":{},${meta()}}}`);
    const state = inputRequired(await c.answer(1), 1, {
      dirs: { method: "roots/list", params: {} },
      model: { method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text: "Hi?" } }], maxTokens: 5 } },
      name: { method: "elicitation/create", params: { message: "Your name?", requestedSchema: NAME_FORM } },
    });
    c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"several","arguments":{},"requestState":"${state}","inputResponses":{` +
      '"dirs":{"roots":[]},"model":{"role":"assistant","content":{"type":"text","text":"hey"},"model":"m"},"name":{"action":"accept","content":{"name":"Ed"}}},' +
      `${meta()}}}`);
    assert.deepEqual(await c.answer(2), complete(2, "Ed; hey; "));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("answers -32021 for an undeclared kind, reads declared from _meta, and sends nothing for a handler that swallowed the end", async () => {
    const c = await modern();
    c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sample","arguments":{},${meta('{"elicitation":{}}')}}}`);
    assert.deepEqual(await c.answer(1), {
      jsonrpc: "2.0", id: 1,
      error: { code: -32021, message: "the client did not declare the capability sampling/createMessage needs", data: { requiredCapabilities: { sampling: {} } } },
    });
    c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"declared","arguments":{},${meta('{"sampling":{},"roots":{}}')}}}`);
    assert.deepEqual(await c.answer(2), complete(2, "sampling/createMessage,roots/list"));
    c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"swallow","arguments":{},${meta()}}}`);
    inputRequired(await c.answer(3), 3, { n: { method: "elicitation/create", params: { message: "Your name?", requestedSchema: NAME_FORM } } });
    c.send('{"jsonrpc":"2.0","id":4,"method":"ping"}');
    assert.deepEqual(await c.answer(4), { jsonrpc: "2.0", id: 4, result: {} });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.deepEqual(c.pending, [], "nothing but the answers");
  });
});
