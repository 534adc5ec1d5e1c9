// Client's oauth option (HttpTarget.oauth, the C ABI's "oauth") against an
// OAuth-protected MCP server of this process: an McpServer's httpHandler()
// behind a bearer check, next to a small authorization server of its own
// (discovery, dynamic registration, an authorization endpoint that consents
// at once, a token endpoint), all on one node:http listener.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, it } from "node:test";

import { Client, ConnectionClosedError, McpServer, NativeError } from "polymcp";

const info = { name: "oauth-test", version: "1.0.0" };
const PKG = fileURLToPath(new URL("..", import.meta.url));
// A failure bound only: a loaded 2-core machine may be slow, never this slow.
const BOUND_MS = 30_000;

const tracked = [];
const track = (x) => (tracked.push(x), x);
afterEach(async () => {
  await Promise.all(tracked.splice(0).map((x) => x.close()));
});
const text = (r) => r.content.map((c) => c.text).join("");

/** Reads a request's body as text. */
async function body(req) {
  let s = "";
  for await (const chunk of req.setEncoding("utf8")) s += chunk;
  return s;
}

/**
 * An MCP server (an echo tool) at <base>/mcp that answers 401 with a
 * challenge unless the request carries "Bearer tok-1" (guarded: false lets
 * everything in), and the authorization server that issues that token.
 * Resolves to { url, base, seen, close }: seen records what each endpoint
 * was asked.
 */
async function guardedServer({ guarded = true, deny = false } = {}) {
  const server = new McpServer({ name: "guarded", version: "1" });
  server.registerTool(
    "echo",
    { inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } },
    ({ text }) => text,
  );
  const mcp = server.httpHandler();
  const seen = { unauthorized: 0, metadata: [], register: [], authorize: [], token: [] };
  let base;
  const reply = (res, v) => res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(v));
  const web = http.createServer(async (req, res) => {
    const url = new URL(req.url, base);
    switch (url.pathname) {
      case "/mcp":
        if (guarded && req.headers.authorization !== "Bearer tok-1") {
          seen.unauthorized++;
          res.writeHead(401, {
            "WWW-Authenticate": `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
          });
          res.end();
          return;
        }
        mcp(req, res);
        return;
      case "/.well-known/oauth-protected-resource/mcp":
        seen.metadata.push(url.pathname);
        reply(res, { resource: `${base}/mcp`, authorization_servers: [base] });
        return;
      case "/.well-known/oauth-authorization-server":
        seen.metadata.push(url.pathname);
        reply(res, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          code_challenge_methods_supported: ["S256"],
        });
        return;
      case "/register":
        seen.register.push(JSON.parse(await body(req)));
        res.writeHead(201, { "Content-Type": "application/json" }).end(JSON.stringify({ client_id: "registered" }));
        return;
      case "/authorize": {
        seen.authorize.push(Object.fromEntries(url.searchParams));
        const back = new URL(url.searchParams.get("redirect_uri"));
        const state = url.searchParams.get("state") ?? "";
        back.search = new URLSearchParams(deny ? { error: "access_denied", state } : { code: "code-1", state }).toString();
        res.writeHead(302, { Location: back.href }).end();
        return;
      }
      case "/token":
        seen.token.push({
          params: Object.fromEntries(new URLSearchParams(await body(req))),
          authorization: req.headers.authorization,
        });
        reply(res, { access_token: "tok-1", token_type: "bearer", expires_in: 3600 });
        return;
      default:
        res.writeHead(404).end();
    }
  });
  await new Promise((resolve) => web.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${web.address().port}`;
  return {
    url: `${base}/mcp`,
    base,
    seen,
    close: async () => {
      await server.close();
      web.closeAllConnections();
      await new Promise((resolve) => web.close(resolve));
    },
  };
}

/** The client_id a token request carried: in its body, or as HTTP Basic credentials. */
function tokenClientId(t) {
  if (t.params.client_id !== undefined) return t.params.client_id;
  const basic = /^Basic (.+)$/.exec(t.authorization ?? "");
  return basic ? decodeURIComponent(Buffer.from(basic[1], "base64").toString().split(":")[0]) : undefined;
}

describe("Client oauth", () => {
  it("authorizes through the loopback listener, onAuthorize being the browser", async () => {
    const srv = track(await guardedServer());
    const asked = [];
    const client = track(
      new Client(info, {
        // Not set: the oauth/authorize question goes to oauth.onAuthorize only.
        onElicitation: () => assert.fail("no elicitation here"),
      }),
    );
    const result = await client.connect({
      url: srv.url,
      oauth: {
        onAuthorize: async (url, extra) => {
          assert.ok(url instanceof URL);
          asked.push({ url, redirectUrl: extra.redirectUrl });
          // The browser: follows the authorization server's redirect to the
          // client's loopback listener, which takes the code.
          const res = await fetch(url);
          assert.equal(res.status, 200);
          await res.text();
        },
      },
    });
    assert.equal(result.serverInfo.name, "guarded");
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "let in" } })), "let in");

    assert.equal(asked.length, 1, "one authorization serves the connection");
    const [{ url, redirectUrl }] = asked;
    assert.equal(url.origin + url.pathname, `${srv.base}/authorize`);
    assert.match(redirectUrl, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.equal(url.searchParams.get("redirect_uri"), redirectUrl);
    assert.equal(url.searchParams.get("client_id"), "registered");
    assert.equal(url.searchParams.get("code_challenge_method"), "S256");
    assert.ok(url.searchParams.get("code_challenge"));
    assert.ok(srv.seen.unauthorized >= 1);
    assert.ok(srv.seen.metadata.includes("/.well-known/oauth-protected-resource/mcp"));
    assert.equal(srv.seen.register.length, 1);
    assert.equal(srv.seen.register[0].client_name, "oauth-test", "dynamic registration as clientInfo's name by default");
    assert.deepEqual(
      srv.seen.token.map((t) => t.params.grant_type),
      ["authorization_code"],
    );
    assert.equal(srv.seen.token[0].params.code, "code-1");
    assert.ok(srv.seen.token[0].params.code_verifier);
  });

  it("hands back where the browser came back to with redirectUrl", async () => {
    const srv = track(await guardedServer());
    const client = track(new Client(info));
    const asked = [];
    await client.connect({
      url: new URL(srv.url),
      oauth: {
        clientName: "My App",
        redirectUrl: "https://app.example/callback",
        onAuthorize: async (url, { redirectUrl }) => {
          asked.push(redirectUrl);
          // The browser stops at the application's redirect; the
          // application hands the URL it landed on back.
          const res = await fetch(url, { redirect: "manual" });
          assert.equal(res.status, 302);
          return res.headers.get("location");
        },
      },
    });
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "back" } })), "back");
    assert.deepEqual(asked, ["https://app.example/callback"]);
    assert.equal(srv.seen.authorize[0].redirect_uri, "https://app.example/callback");
    assert.equal(srv.seen.register[0].client_name, "My App");
    assert.deepEqual(srv.seen.register[0].redirect_uris, ["https://app.example/callback"]);
    assert.equal(srv.seen.token[0].params.grant_type, "authorization_code");
    assert.equal(srv.seen.token[0].params.redirect_uri, "https://app.example/callback");
  });

  it("by default prints the URL on stderr and opens the system browser", async () => {
    const srv = track(await guardedServer());
    // The system browser: an xdg-open (open on macOS) first on PATH that
    // follows the redirects to the client's loopback listener.
    const bin = mkdtempSync(join(tmpdir(), "polymcp-browser-"));
    try {
      const browser = `#!/bin/sh\nexec "${process.execPath}" -e 'fetch(process.argv[1]).then((r) => r.text(), () => process.exit(1))' "$1"\n`;
      for (const name of ["xdg-open", "open"]) {
        writeFileSync(join(bin, name), browser);
        chmodSync(join(bin, name), 0o755);
      }
      const program = `
        import { Client } from "polymcp";
        const client = new Client({ name: "cli", version: "1" });
        await client.connect({ url: ${JSON.stringify(srv.url)}, oauth: true });
        const r = await client.callTool({ name: "echo", arguments: { text: "opened" } });
        console.log(r.content[0].text);
        await client.close();`;
      const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", program], {
        cwd: PKG,
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
        timeout: BOUND_MS,
      });
      assert.equal(stdout.trim(), "opened");
      assert.match(stderr, new RegExp(`open this URL in a browser:\\n  ${srv.base}/authorize\\?`));
      assert.equal(srv.seen.authorize.length, 1);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it("rejects the connect when onAuthorize refuses", async () => {
    for (const redirectUrl of [undefined, "https://app.example/callback"]) {
      const srv = track(await guardedServer());
      const client = new Client(info);
      let closed = false;
      client.onclose = () => (closed = true);
      await assert.rejects(
        client.connect({
          url: srv.url,
          oauth: {
            redirectUrl,
            onAuthorize: () => {
              throw new Error("the user said no");
            },
          },
        }),
        (err) => {
          assert.ok(err instanceof NativeError, `${err}`);
          assert.match(err.message, /refused the authorization: the user said no/);
          return true;
        },
      );
      await client.close();
      assert.ok(closed);
      assert.equal(srv.seen.token.length, 0, "no token without consent");
    }
  });

  it("rejects the connect when the authorization server denies it", async () => {
    const denials = [];
    for (const redirectUrl of [undefined, "https://app.example/callback"]) {
      const srv = track(await guardedServer({ deny: true }));
      const client = track(new Client(info));
      await assert.rejects(
        client.connect({
          url: srv.url,
          oauth: {
            redirectUrl,
            onAuthorize: async (url) => {
              const res = await fetch(url, { redirect: redirectUrl === undefined ? "follow" : "manual" });
              await res.text();
              return res.headers.get("location") ?? undefined;
            },
          },
        }),
        (err) => {
          assert.ok(err instanceof NativeError, `${err}`);
          assert.match(err.message, /access_denied/);
          denials.push(err.message);
          return true;
        },
      );
      assert.equal(srv.seen.token.length, 0);
    }
    assert.equal(denials.length, 2);
  });

  it("ends an authorization under way when the client closes", async () => {
    for (const redirectUrl of [undefined, "https://app.example/callback"]) {
      const srv = track(await guardedServer());
      const client = new Client(info);
      let signal;
      let asked;
      const shown = new Promise((resolve) => (asked = resolve));
      const connecting = client.connect({
        url: srv.url,
        oauth: {
          redirectUrl,
          // The user never comes back.
          onAuthorize: (_url, extra) => {
            signal = extra.signal;
            asked();
            return new Promise(() => {});
          },
        },
      });
      const outcome = connecting.then(
        () => assert.fail("connected without authorization"),
        (err) => err,
      );
      await shown;
      await client.close();
      assert.ok((await outcome) instanceof ConnectionClosedError, `${await outcome}`);
      assert.ok(signal.aborted, "onAuthorize's signal aborts");
    }
  });

  it("rejects the connect when onAuthorize gives no redirect URL in redirectUrl mode", async () => {
    const srv = track(await guardedServer());
    const client = track(new Client(info));
    await assert.rejects(
      client.connect({ url: srv.url, oauth: { redirectUrl: "https://app.example/callback", onAuthorize: async () => {} } }),
      /onAuthorize gave no redirect URL/,
    );
    assert.equal(srv.seen.token.length, 0);
  });

  it("uses client_credentials with a pre-registered client, asking nothing", async () => {
    const srv = track(await guardedServer());
    const client = track(new Client(info));
    await client.connect({
      url: srv.url,
      oauth: {
        grant: "client_credentials",
        clientId: "pre-registered",
        clientSecret: "s3cret",
        issuer: srv.base,
        onAuthorize: () => assert.fail("client_credentials asks nothing"),
      },
    });
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "machine" } })), "machine");
    assert.equal(srv.seen.token.length, 1);
    assert.equal(srv.seen.token[0].params.grant_type, "client_credentials");
    assert.equal(tokenClientId(srv.seen.token[0]), "pre-registered");
    assert.equal(srv.seen.register.length, 0, "a pre-registered client is not registered");
    assert.equal(srv.seen.authorize.length, 0);
  });

  it("connects as without it to a server that asks for nothing (oauth: true)", async () => {
    const srv = track(await guardedServer({ guarded: false }));
    const client = track(new Client(info));
    await client.connect({ url: srv.url, oauth: true });
    assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "open" } })), "open");
    assert.deepEqual(srv.seen.metadata, []);
    assert.equal(srv.seen.token.length + srv.seen.register.length + srv.seen.authorize.length, 0);
  });

  it("keeps the tokens in tokenStore for the next connection, which asks nothing", async () => {
    const srv = track(await guardedServer());
    const dir = mkdtempSync(join(tmpdir(), "polymcp-oauth-"));
    try {
      const store = join(dir, "state", "oauth.json");
      let asked = 0;
      for (const tokenStore of [store, new URL(`file://${store}`)]) {
        const client = track(new Client(info));
        await client.connect({
          url: srv.url,
          oauth: {
            tokenStore,
            onAuthorize: async (url) => {
              asked++;
              await (await fetch(url)).text();
            },
          },
        });
        assert.equal(text(await client.callTool({ name: "echo", arguments: { text: "kept" } })), "kept");
        await client.close();
      }
      assert.equal(asked, 1, "the second connection used the stored token");
      assert.equal(srv.seen.register.length, 1);
      assert.equal(statSync(store).mode & 0o777, 0o600);
      const stored = JSON.parse(readFileSync(store, "utf8"));
      assert.deepEqual(Object.keys(stored), [srv.url]);
      assert.equal(stored[srv.url].access_token, "tok-1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses options that cannot work before connecting", async () => {
    const cases = [
      [{ grant: "client_credentials" }, /client_credentials grant needs a pre-registered clientId/],
      [{ grant: "implicit" }, /oauth.grant is/],
      [{ clientSecret: "s" }, /give its clientId too/],
      [{ redirectUrl: "https://app.example/callback" }, /redirectUrl needs an onAuthorize/],
      [{ onAuthorize: "https://example.test" }, /onAuthorize is a function/],
      [{ tokenStore: "" }, /tokenStore is the path/],
      ["yes", /oauth is true or/],
    ];
    for (const [oauth, message] of cases) {
      const client = new Client(info);
      await assert.rejects(client.connect({ url: "http://127.0.0.1:1/mcp", oauth }), (err) => {
        assert.ok(err instanceof TypeError, `${err}`);
        assert.match(err.message, message);
        return true;
      });
      await client.close();
    }
  });
});
