"""polymcp.Client's auth=: OAuth 2.1 against a server that asks for it.

The fixture is an MCP server behind OAuth, in Python: /mcp answers 401 with
a challenge unless the request carries the token its own authorization
server issues, and otherwise forwards the request, and streams back the
answer, to the Go everything server (`build/polymcp everything --http`).
The same host serves the protected resource's and the authorization
server's metadata, dynamic registration, /authorize (a 302 back to the
redirect_uri with a code) and /token. The library does the flow; these
tests check what the binding adds: showing the user the URL (on_authorize,
or webbrowser.open), handing back the redirect, refusing, the options."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import urllib.parse
import urllib.request
import webbrowser
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import polymcp

from .test_client import REVISIONS, WAIT, go_everything_http, run

#: Headers a proxy does not pass on (hop-by-hop, or redone by http.server).
HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade",
       "proxy-authorization", "proxy-authenticate", "host", "server", "date"}
TOKEN = "tok-1"
APP_REDIRECT = "https://app.example/callback"


@pytest.fixture(scope="module")
def upstream() -> Iterator[str]:
    """`polymcp everything --http 127.0.0.1:0`: the MCP server behind the guard."""
    with go_everything_http() as url:
        yield url


class Guarded:
    """The OAuth-protected server, and what it saw."""

    def __init__(self, upstream: str) -> None:
        self.upstream = urllib.parse.urlsplit(upstream)
        self.lock = threading.Lock()
        self.challenged = 0                           # 401s of /mcp
        self.mcp_headers: list[dict[str, str]] = []   # the authorized /mcp requests'
        self.registrations: list[dict[str, Any]] = []
        self.authorizations: list[dict[str, str]] = []  # /authorize's queries
        self.token_requests: list[tuple[dict[str, str], str]] = []  # (form, Authorization)
        self.forwarded: list[str] = []                # "METHOD status content-type"
        guard = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                guard.serve(self)

            def do_POST(self) -> None:
                guard.serve(self)

            def do_DELETE(self) -> None:
                guard.serve(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.url = self.base + "/mcp"
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # ---- the endpoints -----------------------------------------------------------

    def serve(self, h: BaseHTTPRequestHandler) -> None:
        path, _, query = h.path.partition("?")
        body = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        base = self.base
        if path == "/mcp":
            self.mcp(h, body)
        elif path == "/.well-known/oauth-protected-resource/mcp":
            self.reply(h, {"resource": base + "/mcp", "authorization_servers": [base]})
        elif path == "/.well-known/oauth-authorization-server":
            self.reply(h, {"issuer": base, "authorization_endpoint": base + "/authorize",
                           "token_endpoint": base + "/token",
                           "registration_endpoint": base + "/register",
                           "code_challenge_methods_supported": ["S256"]})
        elif path == "/register" and h.command == "POST":
            with self.lock:
                self.registrations.append(json.loads(body))
            self.reply(h, {"client_id": "registered"}, 201)
        elif path == "/authorize":
            q = dict(urllib.parse.parse_qsl(query))
            with self.lock:
                self.authorizations.append(q)
            back = q["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"code": "code-1", "state": q.get("state", "")})
            h.send_response(302)
            h.send_header("Location", back)
            h.send_header("Content-Length", "0")
            h.end_headers()
        elif path == "/token" and h.command == "POST":
            form = dict(urllib.parse.parse_qsl(body.decode()))
            with self.lock:
                self.token_requests.append((form, h.headers.get("Authorization", "")))
            self.reply(h, {"access_token": TOKEN, "token_type": "bearer", "expires_in": 3600})
        else:
            self.reply(h, {"error": "not found"}, 404)

    def reply(self, h: BaseHTTPRequestHandler, value: Any, status: int = 200) -> None:
        data = json.dumps(value).encode()
        h.send_response(status)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)

    def mcp(self, h: BaseHTTPRequestHandler, body: bytes) -> None:
        if h.headers.get("Authorization") != f"Bearer {TOKEN}":
            with self.lock:
                self.challenged += 1
            h.send_response(401)
            h.send_header("WWW-Authenticate", f'Bearer resource_metadata="{self.base}'
                                              '/.well-known/oauth-protected-resource/mcp"')
            h.send_header("Content-Length", "0")
            h.end_headers()
            return
        with self.lock:
            self.mcp_headers.append(dict(h.headers.items()))
        # Forwarded as it comes: JSON, or an SSE stream written as it is read.
        up = http.client.HTTPConnection(self.upstream.hostname or "127.0.0.1",
                                        self.upstream.port, timeout=WAIT)
        try:
            headers = {k: v for k, v in h.headers.items() if k.lower() not in HOP}
            up.request(h.command, self.upstream.path or "/mcp", body=body or None,
                       headers=headers)
            resp = up.getresponse()
            with self.lock:
                self.forwarded.append(f"{h.command} {resp.status} "
                                      f"{resp.getheader('Content-Type', '')}")
            h.send_response(resp.status)
            for k, v in resp.getheaders():
                if k.lower() not in HOP:
                    h.send_header(k, v)
            h.end_headers()  # HTTP/1.0: the body ends when the connection does
            while True:
                chunk = resp.read1(65536)
                if not chunk:
                    break
                h.wfile.write(chunk)
                h.wfile.flush()
        except (OSError, http.client.HTTPException):
            pass  # the client went away (a stream it closed)
        finally:
            up.close()


@pytest.fixture
def guarded(upstream: str) -> Iterator[Guarded]:
    server = Guarded(upstream)
    yield server
    server.close()


# ---- the user's browser -----------------------------------------------------------

def browse(url: str) -> tuple[int, str]:
    """A browser: follows the redirects (to the library's loopback listener)."""
    with urllib.request.urlopen(url, timeout=WAIT) as resp:
        return resp.status, resp.geturl()


def browse_once(url: str) -> str:
    """A browser whose redirect the application catches: the Location of
    the authorization server's answer."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=WAIT)
    try:
        conn.request("GET", parts.path + "?" + parts.query)
        resp = conn.getresponse()
        resp.read()
        assert resp.status == 302, resp.status
        return resp.getheader("Location") or ""
    finally:
        conn.close()


async def echo_through(client: polymcp.Client, text: str = "let in") -> None:
    assert (await client.call_tool("echo", {"text": text})).text == text
    assert any(t["name"] == "echo" for t in await client.list_tools())


# ---- authorization_code -----------------------------------------------------------

@pytest.mark.parametrize("revision", [None, *REVISIONS])
def test_loopback_with_on_authorize_as_the_browser(guarded: Guarded,
                                                   revision: str | None) -> None:
    shown: list[str] = []
    landed: list[tuple[int, str]] = []
    progress: list[float] = []

    async def on_authorize(url: str) -> None:
        shown.append(url)
        landed.append(await asyncio.to_thread(browse, url))

    async def main() -> None:
        async with polymcp.Client(guarded.url, auth=polymcp.OAuth(on_authorize=on_authorize),
                                  headers={"X-Trace": "t-1"}, revision=revision) as client:
            await echo_through(client)
            await client.ping()
            assert revision is None or client.protocol_version == revision
            # progress: an SSE answer on the legacy revisions, streamed by the proxy
            got = await client.call_tool("sleep", {"ms": 50},
                                         progress_handler=lambda p, t, m: progress.append(p))
            assert got.text == "slept"

    run(main())
    assert len(shown) == 1, "one authorization serves the connection"
    assert shown[0].startswith(guarded.base + "/authorize?")
    [(status, where)] = landed
    assert status == 200 and where.startswith("http://127.0.0.1:"), landed
    [q] = guarded.authorizations
    assert q["client_id"] == "registered" and q["code_challenge_method"] == "S256"
    assert q["response_type"] == "code" and q["code_challenge"]
    assert q["redirect_uri"].startswith("http://127.0.0.1:") and q["redirect_uri"] == \
        where.split("?")[0]
    [reg] = guarded.registrations
    assert reg["client_name"] == "polymcp" and reg["redirect_uris"] == [q["redirect_uri"]]
    [(form, _)] = guarded.token_requests
    assert form["grant_type"] == "authorization_code" and form["code"] == "code-1"
    assert form["code_verifier"] and form["redirect_uri"] == q["redirect_uri"]
    assert guarded.challenged >= 1
    assert guarded.mcp_headers and all(h.get("X-Trace") == "t-1" for h in guarded.mcp_headers), \
        "headers= still go with every request"
    assert len(progress) == 10, progress
    assert any(f.startswith("POST 200 text/event-stream") for f in guarded.forwarded), \
        guarded.forwarded


def test_auth_oauth_opens_the_system_browser(guarded: Guarded,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capfd: pytest.CaptureFixture[str]) -> None:
    opened: list[str] = []

    def fake_open(url: str, new: int = 0, autoraise: bool = True) -> bool:
        opened.append(url)
        browse(url)  # in a worker thread: the binding does not block its loop on it
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)

    async def main() -> None:
        async with polymcp.Client(guarded.url, auth="oauth") as client:
            await echo_through(client, "browser")

    run(main())
    assert len(opened) == 1 and opened[0].startswith(guarded.base + "/authorize?")
    assert opened[0] in capfd.readouterr().err, "the URL is printed for a user without a browser"


def test_redirect_url_of_the_application(guarded: Guarded) -> None:
    shown: list[str] = []

    def on_authorize(url: str) -> str:  # sync works too
        shown.append(url)
        return browse_once(url)

    async def main() -> None:
        oauth = polymcp.OAuth(redirect_url=APP_REDIRECT, client_name="my app",
                              on_authorize=on_authorize)
        async with polymcp.Client(guarded.url, auth=oauth) as client:
            await echo_through(client)

    run(main())
    assert len(shown) == 1
    [q] = guarded.authorizations
    assert q["redirect_uri"] == APP_REDIRECT
    [reg] = guarded.registrations
    assert reg["client_name"] == "my app" and reg["redirect_uris"] == [APP_REDIRECT]
    [(form, _)] = guarded.token_requests
    assert form["code"] == "code-1" and form["redirect_uri"] == APP_REDIRECT


def test_pre_registered_client(guarded: Guarded) -> None:
    async def on_authorize(url: str) -> str:
        return await asyncio.to_thread(browse_once, url)

    async def main() -> None:
        oauth = polymcp.OAuth(client_id="pre", issuer=guarded.base, redirect_url=APP_REDIRECT,
                              on_authorize=on_authorize)
        async with polymcp.Client(guarded.url, auth=oauth) as client:
            await echo_through(client)

    run(main())
    assert guarded.registrations == [], "a pre-registered client does not register"
    [q] = guarded.authorizations
    assert q["client_id"] == "pre"


@pytest.mark.parametrize("kind", ["async", "sync"])
def test_refused(guarded: Guarded, kind: str) -> None:
    def refuse(url: str) -> None:
        raise PermissionError("the user said no")

    async def refuse_async(url: str) -> None:
        await asyncio.sleep(0)
        refuse(url)

    async def main() -> None:
        client = polymcp.Client(guarded.url, auth=polymcp.OAuth(
            on_authorize=refuse_async if kind == "async" else refuse))
        with pytest.raises(polymcp.TransportError, match="the user said no") as err:
            await client.connect()
        assert "refused" in str(err.value)
        assert not client.is_connected()
        with pytest.raises(polymcp.ClientClosed):
            await client.list_tools()
        await client.close()

    run(main())
    assert guarded.token_requests == []
    assert guarded.mcp_headers == []


def test_abandoned(guarded: Guarded) -> None:
    """A user who never comes back: cancelling the connect closes the
    client and cancels on_authorize."""
    started = asyncio.Event()
    cancelled: list[bool] = []

    async def on_authorize(url: str) -> None:
        started.set()
        try:
            await asyncio.sleep(WAIT)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def main() -> None:
        client = polymcp.Client(guarded.url, auth=polymcp.OAuth(on_authorize=on_authorize))
        task = asyncio.ensure_future(client.connect())
        await asyncio.wait_for(started.wait(), WAIT)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not client.is_connected()
        await asyncio.sleep(0)

    run(main())
    assert cancelled == [True]
    assert guarded.token_requests == []


def test_redirect_url_without_an_answer(guarded: Guarded) -> None:
    async def main() -> None:
        oauth = polymcp.OAuth(redirect_url=APP_REDIRECT, on_authorize=lambda url: None)
        with pytest.raises(polymcp.TransportError, match="came back to"):
            async with polymcp.Client(guarded.url, auth=oauth):
                pass

    run(main())
    assert guarded.token_requests == []


def test_token_store(guarded: Guarded, tmp_path: Path) -> None:
    """A second client with the token_store of a first sends the stored
    token from its first request: nobody is asked, nothing registered."""
    store = tmp_path / "state" / "oauth.json"
    shown: list[str] = []

    async def on_authorize(url: str) -> None:
        shown.append(url)
        await asyncio.to_thread(browse, url)

    async def connect() -> None:
        oauth = polymcp.OAuth(on_authorize=on_authorize, token_store=store)
        async with polymcp.Client(guarded.url, auth=oauth) as client:
            await echo_through(client)

    run(connect())
    assert len(shown) == 1 and guarded.challenged >= 1
    challenged = guarded.challenged
    run(connect())
    assert len(shown) == 1, "the stored token served the second connection"
    assert guarded.challenged == challenged
    assert len(guarded.registrations) == 1 and len(guarded.token_requests) == 1
    assert store.stat().st_mode & 0o777 == 0o600
    [(key, grant)] = json.loads(store.read_text()).items()
    assert key == guarded.url and grant["access_token"] == TOKEN
    assert grant["client_id"] == "registered"


# ---- client_credentials, a bearer token, a server that asks nothing ----------------

def test_client_credentials(guarded: Guarded) -> None:
    def never(url: str) -> None:
        raise AssertionError(f"client_credentials asks nobody: {url}")

    async def main() -> None:
        oauth = polymcp.OAuth(client_id="machine", client_secret="s3cret",
                              grant="client_credentials", on_authorize=never)
        async with polymcp.Client(guarded.url, auth=oauth) as client:
            await echo_through(client)

    run(main())
    assert guarded.authorizations == [] and guarded.registrations == []
    [(form, authorization)] = guarded.token_requests
    assert form["grant_type"] == "client_credentials"
    assert form["resource"] == guarded.url
    # client_secret_basic or client_secret_post, as the metadata leaves it
    assert authorization.startswith("Basic ") or (form.get("client_id"), form.get(
        "client_secret")) == ("machine", "s3cret"), (form, authorization)


def test_bearer_token(guarded: Guarded) -> None:
    async def main() -> None:
        async with polymcp.Client(guarded.url, auth=TOKEN) as client:
            await echo_through(client)

    run(main())
    assert guarded.challenged == 0 and guarded.token_requests == []


def test_a_server_that_asks_nothing(upstream: str, monkeypatch: pytest.MonkeyPatch) -> None:
    def never(url: str, new: int = 0, autoraise: bool = True) -> bool:
        raise AssertionError(f"no authorization was asked for: {url}")

    monkeypatch.setattr(webbrowser, "open", never)

    async def main() -> None:
        async with polymcp.Client(upstream, auth="oauth") as client:
            await echo_through(client, "open door")

    run(main())


# ---- the options ------------------------------------------------------------------

def test_options() -> None:
    assert polymcp.OAuth().options() == {}
    oauth = polymcp.OAuth(client_id="id", client_secret="secret", issuer="https://as",
                          client_metadata_url="https://app/client.json", client_name="app",
                          redirect_url=APP_REDIRECT, on_authorize=lambda url: APP_REDIRECT)
    assert oauth.options() == {"client_id": "id", "client_secret": "secret", "issuer": "https://as",
                               "client_metadata_url": "https://app/client.json",
                               "client_name": "app", "redirect_url": APP_REDIRECT}
    assert "secret'" not in repr(oauth) and "***" in repr(oauth)
    assert polymcp.OAuth(client_id="m", grant="client_credentials").options() == \
        {"client_id": "m", "grant": "client_credentials"}
    assert polymcp.OAuth(token_store=Path("/tmp/t.json")).options() == {"token_store": "/tmp/t.json"}
    with pytest.raises(ValueError, match="token_store"):
        polymcp.OAuth(token_store="")
    with pytest.raises(ValueError, match="client_id"):
        polymcp.OAuth(grant="client_credentials")
    with pytest.raises(ValueError, match="grant"):
        polymcp.OAuth(grant="implicit")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="on_authorize"):
        polymcp.OAuth(redirect_url=APP_REDIRECT)
    with pytest.raises(ValueError, match="client_id"):
        polymcp.OAuth(client_secret="s")
    with pytest.raises(TypeError):
        polymcp.OAuth("id")  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="URL"):
        polymcp.Client(["server"], auth="oauth")
    with pytest.raises(ValueError, match="URL"):
        polymcp.Client(Path("server.py"), auth=polymcp.OAuth())
    with pytest.raises(TypeError):
        polymcp.Client("http://127.0.0.1:1/mcp", auth="")
    client = polymcp.Client("http://127.0.0.1:1/mcp", auth="Bearer abc")
    assert client._options["headers"] == {"Authorization": "Bearer abc"}
    client = polymcp.Client("http://127.0.0.1:1/mcp", auth="oauth", headers={"X": "1"})
    assert client._options["oauth"] == {} and client._options["headers"] == {"X": "1"}
    assert isinstance(client.oauth, polymcp.OAuth)
