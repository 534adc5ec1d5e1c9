"""HTTP through the core's own listener: start_http and run(transport="http"),
with literal requests on the wire (http.client, raw sockets)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import polymcp
from polymcp import _native, everything

from .httpwire import (MODERN_META, SERVER_INFO, legacy_headers, modern_call, modern_headers,
                       raw_post, read_to_end, read_until, request)

SRC = Path(__file__).resolve().parent.parent / "src"
#: Generous bound for "cancelled within 100 ms" on this shared 2-core machine.
CANCEL_BOUND_S = 2.0


@pytest.fixture()
def url() -> Iterator[str]:
    server = everything.build()
    yield server.start_http()
    server.close()


def test_start_http_answers_a_2026_07_28_tools_call(url: str) -> None:
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    reply = modern_call(url, 1, "echo", {"text": "hi"})
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    assert reply.json() == {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
        "content": [{"type": "text", "text": "hi"}]}}
    assert "mcp-session-id" not in reply.headers  # 2026-07-28 is stateless


def test_a_2026_07_28_header_mismatch_is_400(url: str) -> None:
    body = json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "x"}, "_meta": MODERN_META}}).encode()
    reply = request(url, body=body, headers=modern_headers("tools/call", "sleep"))
    assert reply.status == 400
    answer = reply.json()
    assert answer["id"] == 7 and answer["error"]["code"] == -32020
    assert answer["error"]["data"]["header"] == "Mcp-Name"


def legacy_session(url: str, path: str | None = None) -> str:
    init = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
            b'"2025-11-25","capabilities":{},"clientInfo":{"name":"pytest","version":"1"}}}')
    reply = request(url, body=init, headers=legacy_headers(), path=path)
    assert reply.status == 200, reply
    answer = reply.json()
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-11-25"
    assert answer["result"]["serverInfo"] == SERVER_INFO
    session = reply.headers["mcp-session-id"]
    assert len(session) == 26
    reply = request(url, body=b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
                    headers=legacy_headers(session, "2025-11-25"), path=path)
    assert (reply.status, reply.body) == (202, b"")
    return session


def check_legacy_session(url: str, path: str | None = None) -> None:
    session = legacy_session(url, path)
    headers = legacy_headers(session, "2025-11-25")
    reply = request(url, path=path, headers=headers, body=(
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo",'
        b'"arguments":{"text":"hi"}}}'))
    assert reply.status == 200
    assert reply.json() == {"jsonrpc": "2.0", "id": 2,
                            "result": {"content": [{"type": "text", "text": "hi"}]}}
    reply = request(url, path=path, headers=headers, body=(
        b'{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"test://static-text"}}'))
    assert reply.json() == {"jsonrpc": "2.0", "id": 3, "result": {"contents": [{
        "uri": "test://static-text", "mimeType": "text/plain",
        "text": "This is the content of the static text resource."}]}}
    reply = request(url, path=path, headers=headers, body=(
        b'{"jsonrpc":"2.0","id":4,"method":"nope"}'))
    assert reply.status == 200  # legacy JSON-RPC errors are HTTP 200
    assert reply.json()["error"]["code"] == -32601
    reply = request(url, "DELETE", path=path, headers=headers)
    assert reply.status == 200
    reply = request(url, path=path, headers=headers, body=b'{"jsonrpc":"2.0","id":5,"method":"ping"}')
    assert reply.status == 404


def test_start_http_serves_a_legacy_session(url: str) -> None:
    check_legacy_session(url)


def check_progress_as_sse(url: str, path: str | None = None) -> None:
    reply = modern_call(url, "p", "sleep", {"ms": 50}, {"progressToken": "tok"}, path=path)
    assert reply.status == 200
    assert reply.headers["content-type"] == "text/event-stream"
    messages = reply.messages()
    progress, answer = messages[:-1], messages[-1]
    assert [m["params"]["progress"] for m in progress] == [5.0 * i for i in range(1, 11)]
    assert all(m == {"jsonrpc": "2.0", "method": "notifications/progress", "params": {
        "progressToken": "tok", "progress": m["params"]["progress"], "total": 50}}
        for m in progress)
    assert answer == {"jsonrpc": "2.0", "id": "p", "result": {
        "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": SERVER_INFO},
        "content": [{"type": "text", "text": "slept"}]}}


def test_progress_arrives_as_sse(url: str) -> None:
    check_progress_as_sse(url)


class Holder:
    """A server whose ``hold`` tool reports progress once, then waits until
    cancelled; it records when the CancelledError came."""

    def __init__(self) -> None:
        self.server = polymcp.Server("holder")
        self.started = threading.Event()
        self.cancelled = threading.Event()
        self.finished = False

        @self.server.tool()
        async def hold(ctx: polymcp.Context) -> str:
            await ctx.report_progress(1, 2, "holding")
            self.started.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
            self.finished = True
            return "finished"

    def request(self) -> tuple[bytes, dict[str, str]]:
        body = json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
            "name": "hold", "arguments": {}, "_meta": {**MODERN_META, "progressToken": 1}}})
        return body.encode(), modern_headers("tools/call", "hold")


def test_client_disconnect_cancels_the_async_handler() -> None:
    holder = Holder()
    url = holder.server.start_http()
    try:
        sock = raw_post(url, *holder.request())
        head = read_until(sock, b"notifications/progress")
        assert head.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in head
        assert holder.started.wait(10)
        sock.shutdown(socket.SHUT_WR)  # the client is gone; we can still see what follows
        t0 = time.monotonic()
        assert holder.cancelled.wait(CANCEL_BOUND_S), "the handler was not cancelled"
        elapsed = time.monotonic() - t0
        rest = read_to_end(sock)
        sock.close()
        assert b"jsonrpc" not in rest, f"written after the disconnect: {rest!r}"
        assert not holder.finished
        assert elapsed < CANCEL_BOUND_S
    finally:
        holder.server.close()


def test_413_over_the_body_limit() -> None:
    server = everything.build()
    url = server.start_http(max_body_bytes=1000)
    try:
        big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": "x" * 2000}, "_meta": MODERN_META}}).encode()
        reply = request(url, body=big, headers=modern_headers("tools/call", "echo"))
        assert reply.status == 413
        assert reply.json()["error"]["code"] == -32600
        assert modern_call(url, 2, "echo", {"text": "small"}).status == 200
    finally:
        server.close()


def child_env() -> dict[str, str]:
    _native.load_library()  # the child finds the same library the same way
    return {**os.environ, "PYTHONPATH": str(SRC)}


def _sigint_default() -> None:
    # A shell's background job starts with SIGINT ignored, and Python then
    # keeps ignoring it; a user's terminal does not.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_run_http_in_a_subprocess_stops_on_a_signal(sig: int) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "polymcp.everything", "--http", "127.0.0.1:0"],
                            stderr=subprocess.PIPE, env=child_env(), preexec_fn=_sigint_default)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        assert line.startswith("polymcp: serving http://127.0.0.1:") and line.endswith("/mcp\n")
        url = line.split()[-1]
        assert modern_call(url, 1, "echo", {"text": "up"}).json()["result"]["content"] == [
            {"type": "text", "text": "up"}]
        proc.send_signal(sig)
        assert proc.wait(30) == 0
        assert proc.stderr.read() == b""  # no traceback
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_run_takes_fastmcp_transport_names(transport: str) -> None:
    code = ("import sys; from polymcp import everything; "
            f"everything.build().run(transport={transport!r}, port=0)")
    proc = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, env=child_env(),
                            preexec_fn=_sigint_default)
    try:
        assert proc.stderr is not None
        line = proc.stderr.readline().decode()
        assert line.startswith("polymcp: serving http://127.0.0.1:"), line
        url = line.split()[-1]
        assert modern_call(url, 1, "echo", {"text": "up"}).status == 200
        # The 2024-11-05 transport's stream opens at /sse beside it.
        port = int(url.split(":")[2].split("/")[0])
        with socket.create_connection(("127.0.0.1", port), 10) as sock:
            sock.sendall(f"GET /sse HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                         "Accept: text/event-stream\r\n\r\n".encode())
            head = read_until(sock, b"event: endpoint")
        assert head.startswith(b"HTTP/1.1 200 "), head
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


def stats() -> dict[str, int]:
    return dict(json.loads(_native.load_library().stats()))


def test_no_leak_after_100_start_http_close_cycles() -> None:
    server = everything.build()
    server.close()
    threads, before = threading.active_count(), stats()
    for i in range(100):
        url = server.start_http()
        if i % 10 == 0:
            assert modern_call(url, i, "echo", {"text": str(i)}).status == 200
        server.close()
    after = stats()
    assert threading.active_count() <= threads
    assert {k: after[k] for k in ("servers", "calls", "sessions", "http")} == \
        {k: before[k] for k in ("servers", "calls", "sessions", "http")}
    # Goroutines wind down asynchronously; a leak would grow with the cycles.
    assert after["goroutines"] < before["goroutines"] + 50, (before, after)
    assert not _native._exchanges and not _native._senders


def test_run_rejects_an_unknown_transport() -> None:
    with pytest.raises(ValueError, match="unknown transport"):
        everything.build().run(transport="carrier-pigeon")  # type: ignore[arg-type]


def test_start_http_with_a_bad_option_raises() -> None:
    server = everything.build()
    with pytest.raises(polymcp.NativeError, match="unknown|invalid|path"):
        server.start_http(path="no-slash")
    server.close()


PAGE = "http://localhost:6274"


def check_cors(url: str) -> None:
    """A browser page of a loopback origin gets CORS answers; others 403."""
    pre = request(url, "OPTIONS", headers={"Origin": PAGE, "Access-Control-Request-Method": "POST",
                                           "Access-Control-Request-Headers": "content-type,mcp-method"})
    assert pre.status == 204
    assert pre.headers["access-control-allow-origin"] == PAGE
    assert pre.headers["access-control-allow-methods"] == "GET, POST, DELETE"
    assert pre.headers["access-control-allow-headers"] == "content-type,mcp-method"
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "echo", "arguments": {"text": "hi"}, "_meta": MODERN_META}}).encode()
    reply = request(url, body=body, headers={**modern_headers("tools/call", "echo"), "Origin": PAGE})
    assert reply.status == 200
    assert reply.headers["access-control-allow-origin"] == PAGE
    assert reply.headers["access-control-expose-headers"] == "Mcp-Session-Id, Mcp-Protocol-Version"
    foreign = request(url, "OPTIONS", headers={"Origin": "http://evil.example",
                                               "Access-Control-Request-Method": "POST"})
    assert foreign.status == 403
    assert "access-control-allow-origin" not in foreign.headers


def test_a_browser_page_of_an_allowed_origin_gets_cors(url: str) -> None:
    check_cors(url)


def test_disable_cors() -> None:
    server = everything.build()
    try:
        url = server.start_http(disable_cors=True)
        reply = request(url, "OPTIONS", headers={"Origin": PAGE, "Access-Control-Request-Method": "POST"})
        assert reply.status == 405
        assert "access-control-allow-origin" not in reply.headers
    finally:
        server.close()
