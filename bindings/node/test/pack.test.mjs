// The package as users get it: the npm pack tarball (build/polymcp-<version>.tgz,
// from make build, or packed here when POLYMCP_TARBALL is unset) installs
// into an empty project with npm's --offline (nothing fetched), with no
// compiler on PATH and no install script, and serves a call from there.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const PKG = fileURLToPath(new URL("..", import.meta.url));
const version = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8")).version;

// npm's own entry point, run with this node, so PATH can leave out
// everything else (gcc, cc, make, go).
function npmCli() {
  const candidates = [
    join(dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js"),
    "/usr/share/nodejs/npm/bin/npm-cli.js",
    "/usr/lib/node_modules/npm/bin/npm-cli.js",
  ];
  const found = candidates.find(existsSync);
  assert.ok(found, `npm-cli.js not found in ${candidates.join(", ")}`);
  return found;
}

describe("the packed tarball", () => {
  let dir;
  let tarball;
  let env;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "polymcp-pack-"));
    tarball = process.env.POLYMCP_TARBALL;
    if (!tarball) {
      await run(process.execPath, [npmCli(), "pack", "--pack-destination", dir, "--loglevel=error"], { cwd: PKG });
      tarball = join(dir, `polymcp-${version}.tgz`);
    }
    assert.ok(existsSync(tarball), `no tarball at ${tarball}`);
    // PATH holds node and nothing else: no compiler could run.
    const bin = join(dir, "bin");
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, "node"));
    env = { HOME: dir, PATH: bin, npm_config_cache: join(dir, "npm-cache"), npm_config_update_notifier: "false" };
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  it("has the addon and the library, and no install script", async () => {
    const { stdout } = await run("tar", ["-tzf", tarball]);
    const files = stdout.trim().split("\n");
    const platform = `${process.platform}-${process.arch}`;
    for (const f of [`prebuilds/${platform}/polymcp.node`, `prebuilds/${platform}/libpolymcp.so.1`, "dist/index.js", "dist/index.d.ts", "esm/index.mjs", "esm/index.d.mts", "examples/everything.mjs"]) {
      assert.ok(files.includes(`package/${f}`), `the tarball lacks ${f}`);
    }
    assert.ok(!files.some((f) => f.endsWith("binding.gyp") || f.endsWith(".c")), "the tarball carries sources to build");
    const { stdout: json } = await run("tar", ["-xzOf", tarball, "package/package.json"]);
    const pkg = JSON.parse(json);
    for (const s of ["preinstall", "install", "postinstall", "prepare"]) {
      assert.equal(pkg.scripts?.[s], undefined, `package.json has a ${s} script`);
    }
    assert.equal(pkg.dependencies, undefined, "runtime dependencies");
  });

  it("installs offline with no compiler and serves a call (ESM and CommonJS)", async () => {
    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(join(project, "package.json"), '{"name":"consumer","private":true,"version":"1.0.0"}\n');
    await run(process.execPath, [npmCli(), "install", "--offline", "--no-audit", "--no-fund", "--loglevel=error", tarball], { cwd: project, env });
    assert.ok(existsSync(join(project, "node_modules", "polymcp", "prebuilds")));
    const call =
      '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"from the tarball"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}';
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "echo" };
    const body = (load) => `
      ${load}
      const server = new McpServer({ name: "consumer", version: "1.0.0" });
      server.registerTool("echo", { inputSchema: { type: "object", properties: { text: { type: "string" } } } }, ({ text }) => text);
      (async () => {
        const url = await server.listen();
        const r = await fetch(url, { method: "POST", headers: ${JSON.stringify(headers)}, body: ${JSON.stringify(call)} });
        process.stdout.write(await r.text());
        await server.close();
      })();`;
    writeFileSync(join(project, "esm.mjs"), body('import { McpServer } from "polymcp";'));
    writeFileSync(join(project, "cjs.cjs"), body('const { McpServer } = require("polymcp");'));
    const want = {
      jsonrpc: "2.0",
      id: 1,
      result: {
        resultType: "complete",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "consumer", version: "1.0.0" } },
        content: [{ type: "text", text: "from the tarball" }],
      },
    };
    for (const script of ["esm.mjs", "cjs.cjs"]) {
      const { stdout } = await run(process.execPath, [script], { cwd: project, env, timeout: 30_000 });
      assert.deepEqual(JSON.parse(stdout), want, script);
    }
  });
});
