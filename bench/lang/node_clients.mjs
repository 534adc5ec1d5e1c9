#!/usr/bin/env node
// polymcp's Node Client against the official TypeScript SDK's Client, both
// calling the echo tool of `build/polymcp everything` (the Go server) over
// stdio and Streamable HTTP, with C calls in flight and a payload of P
// bytes: calls/s, p50/p99 latency, and the client process's CPU per call
// (process.cpuUsage(): user + system of the Node process, which for polymcp
// includes the Go core running in it; the server is a child process or a
// process of its own, and not counted).
//
//   node bench/lang/node_clients.mjs [--rounds 3] [--window 2] [--warmup 0.5]
//        [-c 1,16] [--payloads 16,65536] [--transports stdio,http]
//        [--clients polymcp,polymcp-2025,ts-sdk] [--out bench/results] [--tag NAME]
//   node bench/lang/node_clients.mjs --profile [--client polymcp] [-c 16] [--payloads 16]
//
// Each client runs in a process of its own (one's garbage does not cost
// the other); the configurations are interleaved, the clients' order
// rotated each round, and the best round (highest calls/s) kept. Results
// go to <out>/<UTC date>-node-clients[-TAG].md and .json. --profile runs
// one configuration under node --cpu-prof and prints the functions with the
// most self time (the profile is kept in <out>/node-clients.cpuprofile).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const ROOT = resolve(HERE, "../..");
const POLYMCP_BIN = join(ROOT, "build/polymcp");
const NODE_PKG = join(ROOT, "bindings/node");
// The SDK the server benchmarks install (bench/servers/node), else the one
// the binding's tests use (the same pinned version).
const SDK_DIRS = [join(ROOT, "bench/servers/node/node_modules/@modelcontextprotocol/sdk"), join(NODE_PKG, "node_modules/@modelcontextprotocol/sdk")];
const SDK_DIR = SDK_DIRS.find((d) => existsSync(join(d, "package.json")));

const CLIENTS = {
  polymcp: "polymcp's Client (bindings/node, this checkout), negotiated revision (2026-07-28)",
  "polymcp-2025": "polymcp's Client pinned to 2025-11-25 (the revision the SDK speaks)",
  "ts-sdk": "@modelcontextprotocol/sdk Client + StdioClientTransport / StreamableHTTPClientTransport",
};

const { values: args } = parseArgs({
  options: {
    worker: { type: "boolean", default: false },
    profile: { type: "boolean", default: false },
    client: { type: "string", default: "polymcp" },
    transport: { type: "string", default: "stdio" },
    url: { type: "string" },
    concurrency: { type: "string", short: "c", default: "1,16" },
    payloads: { type: "string", default: "16,65536" },
    transports: { type: "string", default: "stdio,http" },
    clients: { type: "string", default: "polymcp,polymcp-2025,ts-sdk" },
    rounds: { type: "string", default: "3" },
    window: { type: "string", default: "2" },
    warmup: { type: "string", default: "0.5" },
    out: { type: "string", default: join(ROOT, "bench/results") },
    tag: { type: "string", default: "" },
  },
});

/* ---------------------------------------------------------------- worker */

async function makeClient(name, transport, url) {
  const target = transport === "stdio" ? { command: POLYMCP_BIN, args: ["everything"] } : { url };
  if (name === "polymcp" || name === "polymcp-2025") {
    const { Client } = createRequire(join(NODE_PKG, "package.json"))(NODE_PKG);
    const client = new Client({ name: "bench", version: "1" }, name === "polymcp-2025" ? { revision: "2025-11-25" } : {});
    await client.connect(target);
    return {
      revision: client.protocolVersion,
      call: (text) => client.callTool({ name: "echo", arguments: { text } }),
      close: () => client.close(),
    };
  }
  if (name === "ts-sdk") {
    if (SDK_DIR === undefined) throw new Error("no @modelcontextprotocol/sdk: npm ci in bench/servers/node or bindings/node");
    const esm = (p) => import(pathToFileURL(join(SDK_DIR, "dist/esm", p)).href);
    const { Client } = await esm("client/index.js");
    const client = new Client({ name: "bench", version: "1" });
    let t;
    if (transport === "stdio") {
      const { StdioClientTransport } = await esm("client/stdio.js");
      t = new StdioClientTransport({ command: target.command, args: target.args, stderr: "inherit" });
    } else {
      const { StreamableHTTPClientTransport } = await esm("client/streamableHttp.js");
      t = new StreamableHTTPClientTransport(new URL(url));
    }
    let revision = "";
    const setVersion = t.setProtocolVersion?.bind(t);
    t.setProtocolVersion = (v) => ((revision = v), setVersion?.(v));
    await client.connect(t);
    return {
      revision,
      call: (text) => client.callTool({ name: "echo", arguments: { text } }),
      close: () => client.close(),
    };
  }
  throw new Error(`unknown client ${name}`);
}

async function worker() {
  const c = Number(args.concurrency);
  const payload = Number(args.payloads);
  const text = "x".repeat(payload);
  const client = await makeClient(args.client, args.transport, args.url);
  const check = await client.call(text);
  if (check.content?.[0]?.text !== text) throw new Error(`echo answered ${JSON.stringify(check).slice(0, 200)}`);

  const warmupEnd = performance.now() + Number(args.warmup) * 1000;
  let windowStart = 0;
  let windowEnd = Infinity;
  let cpu0;
  const lat = [];
  let measuring = false;
  let stop = false;
  const loop = async () => {
    while (!stop) {
      const t0 = performance.now();
      await client.call(text);
      const t1 = performance.now();
      if (measuring && t0 >= windowStart && t1 <= windowEnd) lat.push(t1 - t0);
    }
  };
  const loops = Array.from({ length: c }, loop);
  await new Promise((r) => setTimeout(r, Math.max(0, warmupEnd - performance.now())));
  cpu0 = process.cpuUsage();
  windowStart = performance.now();
  windowEnd = windowStart + Number(args.window) * 1000;
  measuring = true;
  await new Promise((r) => setTimeout(r, Number(args.window) * 1000));
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - windowStart;
  stop = true;
  await Promise.all(loops);
  await client.close();
  lat.sort((a, b) => a - b);
  const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : NaN);
  const calls = lat.length;
  process.stdout.write(
    JSON.stringify({
      client: args.client,
      transport: args.transport,
      revision: client.revision,
      concurrency: c,
      payload_bytes: payload,
      calls,
      calls_per_s: calls / (wall / 1000),
      p50_ms: q(0.5),
      p99_ms: q(0.99),
      cpu_us_per_call: calls ? (cpu.user + cpu.system) / calls : NaN,
      cpu_user_us_per_call: calls ? cpu.user / calls : NaN,
      cpu_share: (cpu.user + cpu.system) / 1000 / wall,
    }) + "\n",
  );
}

/* ---------------------------------------------------------------- parent */

/** build/polymcp everything --http 127.0.0.1:0, which prints "serving <url>" on stderr. */
async function serveHttp() {
  const child = spawn(POLYMCP_BIN, ["everything", "--http", "127.0.0.1:0"], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  const url = await new Promise((res, rej) => {
    child.stderr.setEncoding("utf8").on("data", (d) => {
      err += d;
      const m = /serving (http:\/\/\S+)/.exec(err);
      if (m) res(m[1]);
    });
    child.on("exit", (code) => rej(new Error(`polymcp everything --http exited (${code}): ${err}`)));
  });
  return { url, stop: () => child.kill() };
}

function runWorker(extraNodeArgs, opts) {
  const argv = [...extraNodeArgs, fileURLToPath(import.meta.url), "--worker"];
  for (const [k, v] of Object.entries(opts)) if (v !== undefined) argv.push(`--${k}`, String(v));
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d) => (out += d));
    child.on("exit", (code) => {
      if (code !== 0) return rej(new Error(`worker ${JSON.stringify(opts)} exited ${code}: ${out}`));
      try {
        res(JSON.parse(out.trim().split("\n").pop()));
      } catch (e) {
        rej(new Error(`worker ${JSON.stringify(opts)}: ${out}`));
      }
    });
  });
}

const list = (s) => s.split(",").map((x) => x.trim()).filter(Boolean);
const fmt = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");
const size = (b) => (b >= 1024 ? `${b / 1024} KiB` : `${b} B`);

async function profile() {
  mkdirSync(args.out, { recursive: true });
  const dir = mkdtempSync(join(tmpdir(), "node-clients-prof-"));
  let http;
  const transport = list(args.transports)[0];
  if (transport === "http") http = await serveHttp();
  try {
    const r = await runWorker(["--cpu-prof", "--cpu-prof-dir", dir], {
      client: args.client,
      transport,
      url: http?.url,
      concurrency: list(args.concurrency)[0],
      payloads: list(args.payloads)[0],
      window: args.window,
      warmup: args.warmup,
    });
    console.log(JSON.stringify(r));
  } finally {
    http?.stop();
  }
  const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"));
  const prof = JSON.parse(readFileSync(join(dir, file), "utf8"));
  writeFileSync(join(args.out, "node-clients.cpuprofile"), JSON.stringify(prof));
  const self = new Map();
  const dt = new Map();
  prof.samples.forEach((id, i) => dt.set(id, (dt.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
  let total = 0;
  for (const n of prof.nodes) {
    const t = dt.get(n.id) ?? 0;
    total += t;
    const f = n.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.replace(/^.*\/(node_modules|bindings|lib)\//, "$1/")}:${f.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + t);
  }
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, 30);
  console.log(`self time, of ${(total / 1000).toFixed(0)} ms sampled:`);
  for (const [k, t] of top) console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`);
}

async function main() {
  const clients = list(args.clients);
  const transports = list(args.transports);
  const cs = list(args.concurrency).map(Number);
  const payloads = list(args.payloads).map(Number);
  const rounds = Number(args.rounds);
  const every = [];
  const best = new Map();
  let http;
  if (transports.includes("http")) http = await serveHttp();
  const started = new Date();
  try {
    for (let round = 0; round < rounds; round++) {
      for (const transport of transports) {
        for (const c of cs) {
          for (const payload of payloads) {
            // The clients take turns, their order rotated each round.
            const order = clients.map((_, i) => clients[(i + round) % clients.length]);
            for (const client of order) {
              const r = await runWorker([], {
                client,
                transport,
                url: transport === "http" ? http.url : undefined,
                concurrency: c,
                payloads: payload,
                window: args.window,
                warmup: args.warmup,
              });
              r.round = round + 1;
              every.push(r);
              const key = `${client}|${transport}|${c}|${payload}`;
              if (!best.has(key) || best.get(key).calls_per_s < r.calls_per_s) best.set(key, r);
              process.stderr.write(
                `round ${round + 1} ${transport} C=${c} ${size(payload)} ${client}: ${fmt(r.calls_per_s)} calls/s, p50 ${fmt(r.p50_ms, 3)} ms, ${fmt(r.cpu_us_per_call, 1)} µs CPU/call\n`,
              );
            }
          }
        }
      }
    }
  } finally {
    http?.stop();
  }
  const sdkVersion = SDK_DIR ? JSON.parse(readFileSync(join(SDK_DIR, "package.json"), "utf8")).version : "";
  const date = started.toISOString().slice(0, 10);
  const meta = {
    date,
    started: started.toISOString().replace(/\.\d+Z$/, "Z"),
    node: process.version,
    cpus: (await import("node:os")).cpus().length,
    "@modelcontextprotocol/sdk": sdkVersion,
    polymcp_commit: await gitHead(),
    rounds,
    window_s: Number(args.window),
    warmup_s: Number(args.warmup),
    server: "build/polymcp everything (Go), echo tool",
    clients: Object.fromEntries(clients.map((c) => [c, CLIENTS[c]])),
  };
  const results = [...best.values()];
  mkdirSync(args.out, { recursive: true });
  const stem = join(args.out, `${date}-node-clients${args.tag ? `-${args.tag}` : ""}`);
  writeFileSync(`${stem}.json`, JSON.stringify({ meta, results, all_rounds: every }, null, 1) + "\n");
  const md = [
    `# Node clients: polymcp's Client vs the TypeScript SDK's (${date})`,
    "",
    "`node bench/lang/node_clients.mjs" + process.argv.slice(2).map((a) => ` ${a}`).join("") + "`",
    "",
    ...Object.entries(meta)
      .filter(([k]) => k !== "clients")
      .map(([k, v]) => `- ${k}: ${v}`),
    ...clients.map((c) => `- \`${c}\`: ${CLIENTS[c]}`),
    "",
    `Best of ${rounds} interleaved rounds (highest calls/s); CPU is the client process's (user + system) per call, the server not counted. ratio: calls/s over ts-sdk's.`,
    "",
    "| transport | C | payload | client | revision | calls/s | ratio | p50 ms | p99 ms | CPU µs/call |",
    "| --- | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |",
  ];
  for (const transport of transports)
    for (const c of cs)
      for (const payload of payloads) {
        const peer = best.get(`ts-sdk|${transport}|${c}|${payload}`);
        for (const client of clients) {
          const r = best.get(`${client}|${transport}|${c}|${payload}`);
          if (!r) continue;
          const ratio = peer ? `${(r.calls_per_s / peer.calls_per_s).toFixed(2)}×` : "";
          md.push(
            `| ${transport} | ${c} | ${size(payload)} | ${client} | ${r.revision} | ${fmt(r.calls_per_s)} | ${ratio} | ${fmt(r.p50_ms, 3)} | ${fmt(r.p99_ms, 3)} | ${fmt(r.cpu_us_per_call, 1)} |`,
          );
        }
      }
  writeFileSync(`${stem}.md`, md.join("\n") + "\n");
  console.log(`${stem}.md`);
  console.log(`${stem}.json`);
}

async function gitHead() {
  return new Promise((res) => {
    const g = spawn("git", ["-C", ROOT, "rev-parse", "--short", "HEAD"], { stdio: ["ignore", "pipe", "ignore"] });
    let out = "";
    g.stdout.on("data", (d) => (out += d));
    g.on("exit", () => res(out.trim()));
    g.on("error", () => res(""));
  });
}

if (args.worker) await worker();
else if (args.profile) await profile();
else await main();
