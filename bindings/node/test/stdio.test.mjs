// End to end over stdio: the everything example in a child process, driven
// with literal JSON lines.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";

import { EVERYTHING, INIT, INITIALIZED, PROBE, StdioClient } from "./stdio_client.mjs";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

async function started(script = EVERYTHING) {
  const c = new StdioClient(script);
  c.send(INIT, INITIALIZED);
  await c.answer(0);
  return c;
}

describe("everything over stdio", () => {
  const transcript = [
    ['{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}',
      '{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"hi"}]}}'],
    ['{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_error_handling","arguments":{}}}',
      '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],"isError":true}}'],
    ['{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_image_content","arguments":{}}}',
      `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"image","data":"${PNG}","mimeType":"image/png"}]}}`],
    ['{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":-1}}}',
      '{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"ms must not be negative"}],"isError":true}}'],
    ['{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope","arguments":{}}}', null],
    ['{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"uri":"test://static-text"}}',
      '{"jsonrpc":"2.0","id":6,"result":{"contents":[{"uri":"test://static-text","mimeType":"text/plain","text":"This is the content of the static text resource."}]}}'],
    ['{"jsonrpc":"2.0","id":7,"method":"resources/read","params":{"uri":"test://template/42/data"}}',
      '{"jsonrpc":"2.0","id":7,"result":{"contents":[{"uri":"test://template/42/data","mimeType":"application/json","text":"{\\"id\\":\\"42\\",\\"templateTest\\":true,\\"data\\":\\"Data for ID: 42\\"}"}]}}'],
    ['{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}}}',
      '{"jsonrpc":"2.0","id":8,"result":{"messages":[{"role":"user","content":{"type":"text","text":"Prompt with arguments: arg1=\'a\', arg2=\'b\'"}}]}}'],
    ['{"jsonrpc":"2.0","id":9,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"pa"}}}',
      '{"jsonrpc":"2.0","id":9,"result":{"completion":{"values":["paris","park","party"]}}}'],
    ['{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":7}}}',
      '{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"argument \\"/text\\": must be string (type)"}],"isError":true}}'],
  ];

  it("answers the transcript", async () => {
    const c = await started();
    for (const [send, want] of transcript) {
      c.send(send);
      const id = JSON.parse(send).id;
      const got = await c.answer(id);
      if (want === null) {
        assert.equal(got.error.code, -32602, JSON.stringify(got));
      } else {
        assert.deepEqual(got, JSON.parse(want));
      }
    }
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("reports progress when asked, in order", async () => {
    const c = await started();
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":20},"_meta":{"progressToken":"p"}}}');
    assert.deepEqual(await c.answer(1), JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"slept"}]}}'));
    const progress = c.pending.map(JSON.parse).filter((m) => m.method === "notifications/progress");
    assert.deepEqual(progress.map((m) => m.params.progress), [2, 4, 6, 8, 10, 12, 14, 16, 18, 20]);
    assert.ok(progress.every((m) => m.params.progressToken === "p" && m.params.total === 20));
    await c.end();
  });

  it("answers every one of 1,000 pipelined calls: a result, or the defined overload error", async () => {
    const c = await started();
    const n = 1000;
    c.send(...Array.from({ length: n }, (_, i) =>
      `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"echo","arguments":{"text":"m${i + 1}"}}}`));
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => c.answer(i + 1)));
    let served = 0;
    answers.forEach((a, i) => {
      if (a.error) {
        assert.deepEqual(a.error.data, { reason: "overloaded" });
        assert.equal(a.error.code, -32603);
      } else {
        assert.equal(a.result.content[0].text, `m${i + 1}`);
        served++;
      }
    });
    // The core admits max_concurrency (32) + max_queue (256) at once at least.
    assert.ok(served >= 288, `served ${served}`);
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("serves the same catalogue as the Go fixture", async () => {
    const goBinary = fileURLToPath(new URL("../../../build/polymcp", import.meta.url));
    assert.ok(existsSync(goBinary), "build/polymcp is not built (make build, or make test-node, builds it)");
    const lists = ["tools/list", "resources/list", "resources/templates/list", "prompts/list"];
    const catalogue = async (c) => {
      c.send(INIT, INITIALIZED, ...lists.map((m, i) => `{"jsonrpc":"2.0","id":${i + 1},"method":"${m}"}`));
      const got = await Promise.all(lists.map((_, i) => c.answer(i + 1)));
      await c.end();
      return got;
    };
    const [node, go] = await Promise.all([catalogue(new StdioClient(EVERYTHING)), catalogue(new StdioClient(goBinary, ["everything"]))]);
    assert.deepEqual(node, go);
  });
});

describe("the interactive tools of the everything example", () => {
  const meta = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}';
  const serverMeta = { "io.modelcontextprotocol/serverInfo": { name: "polymcp-everything", title: "polymcp everything", version: "0.1.0" } };

  it("asks over two rounds and keeps its state in requestState (2026-07-28)", async () => {
    const c = new StdioClient(EVERYTHING);
    const call = (id, name, extra = "") =>
      c.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${name}","arguments":{}${extra},${meta}}}`);
    call(1, "test_input_required_result_multi_round");
    const r1 = (await c.answer(1)).result;
    assert.deepEqual(Object.keys(r1.inputRequests), ["user_name"]);
    call(2, "test_input_required_result_multi_round", `,"requestState":"${r1.requestState}","inputResponses":{"user_name":{"action":"accept","content":{"name":"Ann"}}}`);
    const r2 = (await c.answer(2)).result;
    assert.deepEqual(r2.inputRequests, JSON.parse('{"favorite_color":{"method":"elicitation/create","params":{"message":"What is your favorite color?",' +
      '"requestedSchema":{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}}}}'));
    call(3, "test_input_required_result_multi_round", `,"requestState":"${r2.requestState}","inputResponses":{"favorite_color":{"action":"accept","content":{"color":"teal"}}}`);
    assert.deepEqual(await c.answer(3), { jsonrpc: "2.0", id: 3, result: { resultType: "complete", _meta: serverMeta, content: [{ type: "text", text: "Ann likes teal" }] } });

    call(4, "test_input_required_result_request_state");
    const s = (await c.answer(4)).result.requestState;
    call(5, "test_input_required_result_request_state", `,"requestState":"${s}","inputResponses":{"confirm":{"action":"accept","content":{"ok":true}}}`);
    assert.deepEqual(await c.answer(5), { jsonrpc: "2.0", id: 5, result: { resultType: "complete", _meta: serverMeta, content: [{ type: "text", text: "state-ok: confirmed=true" }] } });
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("renders an elicitation's content as the Go fixture does (keys sorted)", async () => {
    const c = new StdioClient(EVERYTHING);
    c.send('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"1"}}}', INITIALIZED);
    await c.answer(0);
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation_sep1034_defaults","arguments":{}}}');
    await c.next((l) => JSON.parse(l).id === "polymcp:1");
    c.send('{"jsonrpc":"2.0","id":"polymcp:1","result":{"action":"accept","content":{"verified":false,"name":"A<b>","age":31,"score":1.5,"status":"inactive"}}}');
    assert.deepEqual(await c.answer(1), JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":' +
      '"Elicitation completed: action=accept, content={\\"age\\":31,\\"name\\":\\"A\\\\u003cb\\\\u003e\\",\\"score\\":1.5,\\"status\\":\\"inactive\\",\\"verified\\":false}"}]}}'));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });
});

describe("concurrency", () => {
  it("runs 1,000 async handlers at once", async () => {
    const c = await started(PROBE);
    const n = 1000;
    c.send(...Array.from({ length: n }, (_, i) =>
      `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"barrier","arguments":{"n":${n},"i":${i + 1}}}}`));
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => c.answer(i + 1)));
    answers.forEach((a, i) => assert.equal(a.result.content[0].text, `passed ${i + 1}`));
    c.send('{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"stats","arguments":{}}}');
    assert.equal((await c.answer(0)).result.structuredContent.calls, 1);
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });
});

describe("the JS thread reading stdio", () => {
  // Async handlers keep their executor slot until the JS thread, which
  // reads the input too, runs their answers: a call the core has to queue
  // must not be waited for on that thread.
  it("serves calls queued behind async handlers, one slot at a time", async () => {
    const c = new StdioClient(PROBE, ["--narrow"]);
    c.send(INIT, INITIALIZED);
    await c.answer(0);
    const n = 100;
    c.send(...Array.from({ length: n }, (_, i) =>
      `{"jsonrpc":"2.0","id":${i + 1},"method":"tools/call","params":{"name":"later","arguments":{"i":${i + 1}}}}`));
    const answers = await Promise.all(Array.from({ length: n }, (_, i) => c.answer(i + 1)));
    answers.forEach((a, i) => assert.equal(a.result.content[0].text, `later ${i + 1}`));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("reads input that arrives a byte at a time", async () => {
    const c = await started();
    const line = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"drip"}}}\n';
    for (const ch of line) {
      c.child.stdin.write(ch);
      await new Promise((resolve) => setImmediate(resolve));
    }
    assert.deepEqual(await c.answer(1), JSON.parse('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"drip"}]}}'));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });

  it("is read by the core when stdin cannot be polled (a regular file)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "polymcp-"));
    const input = join(dir, "in.jsonl");
    writeFileSync(input, [INIT, INITIALIZED, '{"jsonrpc":"2.0","id":1,"method":"ping"}'].join("\n") + "\n");
    const fd = openSync(input, "r");
    try {
      const child = spawn(process.execPath, [EVERYTHING], { stdio: [fd, "pipe", "inherit"] });
      let out = "";
      child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
      const [code] = await once(child, "exit");
      assert.equal(code, 0);
      const lines = out.trim().split("\n").map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((m) => m.id), [0, 1]);
      assert.deepEqual(lines[1], { jsonrpc: "2.0", id: 1, result: {} });
    } finally {
      closeSync(fd);
      rmSync(dir, { recursive: true });
    }
  });
});

describe("errors with data", () => {
  it("carries an McpError's data where the core has a JSON-RPC error for it", async () => {
    const c = await started(PROBE);
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"guarded","arguments":{}}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"failing","arguments":{}}}',
      '{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://gone"}}');
    assert.deepEqual(await c.answer(1), JSON.parse(
      '{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"outside the root","data":{"path":"/etc","roots":["/srv"]}}}'));
    // Code 0 on a tool is an isError result, and a not-found is the
    // revision's: both go without the handler's data.
    assert.deepEqual(await c.answer(2), JSON.parse(
      '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"a tool failure is a result"}],"isError":true}}'));
    assert.deepEqual(await c.answer(3), JSON.parse(
      '{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"resource not found: test://gone","data":{"uri":"test://gone"}}}'));
    assert.deepEqual(await c.end(), { code: 0, signal: null });
  });
});

describe("cancellation and close", () => {
  it("aborts the handler's signal and sends no answer", async () => {
    const c = await started(PROBE);
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}');
    c.send('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}');
    // stats answers after the cancel was handled: no call is left pending.
    let stats;
    do {
      c.send('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"stats","arguments":{}}}');
      stats = (await c.answer(2)).result.structuredContent;
    } while (!c.stderr.includes("aborted"));
    assert.equal(await c.end().then((r) => r.code), 0);
    assert.ok(!c.pending.some((l) => JSON.parse(l).id === 1), "the cancelled call was answered");
    assert.equal(stats.servers, 1);
  });

  it("exits once the server is closed, with stdin still open", async () => {
    const c = await started(PROBE);
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"close","arguments":{}}}');
    assert.equal((await c.answer(1)).result.content[0].text, "closing");
    const timer = setTimeout(() => c.child.kill("SIGKILL"), 10_000);
    assert.deepEqual(await c.exited, { code: 0, signal: null }, "nothing keeps the process alive");
    clearTimeout(timer);
    assert.equal(c.stderr, "closed\n");
  });

  it("closes from inside a handler, with other calls in flight, and exits", async () => {
    const c = await started(PROBE);
    c.send('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","arguments":{}}}',
      '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"close","arguments":{"now":true}}}');
    const timer = setTimeout(() => c.child.kill("SIGKILL"), 10_000);
    assert.deepEqual(await c.exited, { code: 0, signal: null });
    clearTimeout(timer);
    assert.equal(c.stderr, "aborted\nclosed\n", "the waiting call was cancelled, then the server closed");
    assert.ok(!c.pending.some((l) => JSON.parse(l).id === 1), "the cancelled call was answered");
  });

  it("cancels calls in flight when stdin ends, then exits", async () => {
    const c = await started(PROBE);
    c.send(...[1, 2, 3].map((id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"wait","arguments":{}}}`));
    // Calls are dispatched concurrently: ask until the three waits (and
    // this stats call) are all in flight.
    let calls = 0;
    for (let id = 4; calls !== 4; id++) {
      c.send(`{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"stats","arguments":{}}}`);
      calls = (await c.answer(id)).result.structuredContent.calls;
      assert.ok(calls <= 4, `calls ${calls}`);
    }
    assert.deepEqual(await c.end(), { code: 0, signal: null });
    assert.equal(c.stderr, "aborted\naborted\naborted\nclosed\n");
  });
});

describe("stdout of the host's own code", () => {
  it("goes to stderr while serving, never into the protocol stream, and back after close", async () => {
    const script = fileURLToPath(new URL("./fixtures/noisy.mjs", import.meta.url));
    const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d) => (err += d));
    child.stdin.end([INIT, INITIALIZED,
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"noisy","arguments":{}}}'].join("\n") + "\n");
    const [code] = await once(child, "exit");
    assert.equal(code, 0, err);
    const lines = out.trimEnd().split("\n");
    assert.equal(lines[0], "before serving");
    assert.equal(lines.at(-1), "after close");
    const protocol = lines.slice(1, -1);
    assert.equal(protocol.length, 2, out);
    assert.equal(JSON.parse(protocol[0]).id, 0);
    assert.deepEqual(JSON.parse(protocol[1]), { jsonrpc: "2.0", id: 1, result: { content: [{ type: "text", text: "ok" }] } });
    for (const stray of ["while serving", "log from a handler", "write from a handler"]) {
      assert.ok(err.includes(stray), `${stray} on stderr: ${err}`);
    }
  });
});

