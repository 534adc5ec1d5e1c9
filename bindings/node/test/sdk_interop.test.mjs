// Interop with the official TypeScript SDK's client (@modelcontextprotocol/sdk,
// pinned in package.json): its Client, over StdioClientTransport spawning
// the everything example and over StreamableHTTPClientTransport against
// listen(), calls tools, reads resources and templates, gets prompts,
// completes, receives progress and cancels a slow call via AbortSignal.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

import { PNG, createServer } from "../examples/everything.mjs";
import { EVERYTHING, PROBE } from "./stdio_client.mjs";
import { aborted } from "./http_client.mjs";

const BOUND_MS = 2000; // a failure bound only

// Records the revision the server answered initialize with.
function recording(TransportClass) {
  return class extends TransportClass {
    negotiated = undefined;
    async start() {
      const deliver = this.onmessage;
      this.onmessage = (message, extra) => {
        if (message.id !== undefined && typeof message.result?.protocolVersion === "string") {
          this.negotiated = message.result.protocolVersion;
        }
        deliver?.(message, extra);
      };
      return super.start();
    }
  };
}
const RecordingStdio = recording(StdioClientTransport);
const RecordingHTTP = recording(StreamableHTTPClientTransport);

const newClient = () => new Client({ name: "sdk-interop", version: "1.0.0" });

// The checks both transports must pass, on a connected client.
async function exercise(client) {
  const { tools } = await client.listTools();
  assert.ok(tools.some((t) => t.name === "echo" && t.inputSchema.required?.[0] === "text"));

  assert.deepEqual(await client.callTool({ name: "echo", arguments: { text: "hi" } }), { content: [{ type: "text", text: "hi" }] });
  assert.deepEqual(await client.callTool({ name: "test_image_content", arguments: {} }), {
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  });
  assert.deepEqual(await client.callTool({ name: "test_error_handling", arguments: {} }), {
    content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
    isError: true,
  });

  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === "test://static-text" && r.mimeType === "text/plain"));
  assert.deepEqual(await client.readResource({ uri: "test://static-text" }), {
    contents: [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
  });
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(
    resourceTemplates.map((t) => t.uriTemplate),
    ["test://template/{id}/data"],
  );
  assert.deepEqual(await client.readResource({ uri: "test://template/42/data" }), {
    contents: [
      { uri: "test://template/42/data", mimeType: "application/json", text: '{"id":"42","templateTest":true,"data":"Data for ID: 42"}' },
    ],
  });

  const { prompts } = await client.listPrompts();
  assert.ok(prompts.some((p) => p.name === "test_prompt_with_arguments"));
  assert.deepEqual(await client.getPrompt({ name: "test_prompt_with_arguments", arguments: { arg1: "a", arg2: "b" } }), {
    messages: [{ role: "user", content: { type: "text", text: "Prompt with arguments: arg1='a', arg2='b'" } }],
  });
  assert.deepEqual(
    await client.complete({ ref: { type: "ref/prompt", name: "test_prompt_with_arguments" }, argument: { name: "arg1", value: "pa" } }),
    { completion: { values: ["paris", "park", "party"] } },
  );

  const progress = [];
  const slept = await client.callTool({ name: "sleep", arguments: { ms: 50 } }, undefined, { onprogress: (p) => progress.push(p) });
  assert.deepEqual(slept, { content: [{ type: "text", text: "slept" }] });
  // The server sends all ten before the answer (the stdio and HTTP tests
  // check the wire), but this SDK handles notifications a microtask later
  // than responses, so one read holding the last progress and the answer
  // loses that progress. What arrives is the sequence, in order.
  const all = Array.from({ length: 10 }, (_, i) => ({ progress: 5 * (i + 1), total: 50 }));
  assert.ok(progress.length >= 1, "no progress arrived");
  assert.deepEqual(progress, all.slice(0, progress.length));
}

// Cancels a call of tool through the SDK's AbortSignal once it is running.
async function cancelSlow(client, tool, running) {
  const controller = new AbortController();
  const call = client.callTool({ name: tool, arguments: {} }, undefined, { signal: controller.signal });
  await running();
  controller.abort("test cancels");
  await assert.rejects(call, (err) => /cancel/i.test(String(err)) || err?.name === "AbortError" || err === "test cancels");
  // The server goes on serving the client.
  assert.deepEqual(await client.callTool({ name: "echo", arguments: { text: "after" } }), { content: [{ type: "text", text: "after" }] });
}

describe("the TypeScript SDK's Client over stdio", () => {
  it("uses every feature of the everything example", async () => {
    const transport = new RecordingStdio({ command: process.execPath, args: [EVERYTHING], stderr: "pipe" });
    const client = newClient();
    await client.connect(transport);
    try {
      assert.equal(transport.negotiated, "2025-11-25");
      assert.equal(client.getServerVersion().name, "polymcp-everything");
      await exercise(client);
    } finally {
      await client.close();
    }
  });

  it("cancels a slow call: the handler's ctx.signal aborts", async () => {
    // The probe says "aborted" on stderr when its wait tool's signal fires.
    const transport = new RecordingStdio({ command: process.execPath, args: [PROBE], stderr: "pipe" });
    let stderr = "";
    transport.stderr.setEncoding("utf8").on("data", (d) => (stderr += d));
    const client = newClient();
    await client.connect(transport);
    try {
      const controller = new AbortController();
      const call = client.callTool({ name: "wait", arguments: {} }, undefined, { signal: controller.signal });
      // Wait until the core handed the call over (stats counts it).
      for (;;) {
        const s = await client.callTool({ name: "stats", arguments: {} });
        if (s.structuredContent.calls >= 2) {
          break;
        }
      }
      controller.abort("test cancels");
      await assert.rejects(call);
      const until = Date.now() + BOUND_MS;
      while (!stderr.includes("aborted") && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 10));
      }
      assert.equal(stderr, "aborted\n");
      const s = await client.callTool({ name: "stats", arguments: {} });
      assert.equal(s.structuredContent.calls, 1); // only this stats call
    } finally {
      await client.close();
    }
  });
});

describe("the TypeScript SDK's Client over Streamable HTTP", () => {
  async function started() {
    const server = createServer();
    const signals = [];
    server.registerTool("wait", { description: "waits until cancelled" }, (_args, extra) => {
      signals.push(extra.signal);
      return new Promise((resolve) => extra.signal.addEventListener("abort", () => resolve("aborted"), { once: true }));
    });
    const url = await server.listen({ host: "127.0.0.1", port: 0 });
    return { server, signals, url };
  }

  it("uses every feature of the everything example", async () => {
    const { server, url } = await started();
    const transport = new RecordingHTTP(new URL(url));
    const client = newClient();
    await client.connect(transport);
    try {
      assert.equal(transport.negotiated, "2025-11-25");
      assert.equal(transport.protocolVersion, "2025-11-25");
      assert.match(transport.sessionId, /^[A-Z2-7]{26}$/);
      await exercise(client);
    } finally {
      await transport.terminateSession();
      await client.close();
      await server.close();
    }
  });

  it("cancels a slow call: the handler's ctx.signal aborts", async () => {
    const { server, signals, url } = await started();
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      await cancelSlow(client, "wait", async () => {
        const until = Date.now() + 10 * BOUND_MS;
        while (signals.length === 0 && Date.now() < until) {
          await new Promise((r) => setTimeout(r, 10));
        }
        assert.equal(signals.length, 1, "the wait handler never ran");
      });
      await aborted(signals[0], BOUND_MS, "the handler's ctx.signal to abort");
    } finally {
      await client.close();
      await server.close();
    }
  });
});
