"""server.asgi_app() under uvicorn, alone and mounted in Starlette, with
literal requests on the wire (the same checks as the core's own listener)."""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from polymcp import _native, everything

from .deps import need
from .httpwire import (MODERN_META, legacy_headers, modern_call, modern_headers, raw_post,
                       read_until, request)
from .test_http import CANCEL_BOUND_S, Holder, check_cors, check_legacy_session, check_progress_as_sse

uvicorn: Any = need("uvicorn")
routing: Any = need("starlette.routing")
applications: Any = need("starlette.applications")
responses: Any = need("starlette.responses")


class Served:
    """uvicorn serving an ASGI app on 127.0.0.1, port 0, in a thread."""

    def __init__(self, app: Any, lifespan: str = "on") -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                lifespan=lifespan, timeout_graceful_shutdown=5)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert self.thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.base = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(30)
        assert not self.thread.is_alive()


class Recording:
    """Wraps an ASGI app and keeps every message it sent."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.sent: list[dict[str, Any]] = []
        self.done = threading.Event()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def record(message: Any) -> None:
            self.sent.append(dict(message))
            await send(message)

        try:
            await self.app(scope, receive, record)
        finally:
            if scope["type"] == "http":
                self.done.set()


@pytest.fixture()
def alone() -> Iterator[str]:
    server = everything.build()
    app = server.asgi_app(path="/mcp")
    served = Served(app)
    yield served.base + "/mcp"
    served.stop()
    assert app._native is None, "lifespan shutdown closes the native server"
    server.close()


@pytest.fixture()
def mounted() -> Iterator[str]:
    server = everything.build()

    async def health(request: Any) -> Any:
        return responses.PlainTextResponse("ok")

    app = applications.Starlette(routes=[routing.Route("/health", health),
                                         routing.Mount("/mcp", app=server.asgi_app())])
    served = Served(app)
    yield served.base
    served.stop()
    server.close()


def test_uvicorn_answers_a_2026_07_28_call(alone: str) -> None:
    reply = modern_call(alone, 1, "echo", {"text": "hi"})
    assert reply.status == 200
    assert reply.headers["content-type"] == "application/json"
    assert reply.headers["content-length"] == str(len(reply.body))  # a whole answer, not chunked
    assert reply.json() == {"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "complete", "_meta": {"io.modelcontextprotocol/serverInfo": {
            "name": "polymcp-everything", "title": "polymcp everything", "version": "0.1.0"}},
        "content": [{"type": "text", "text": "hi"}]}}


def test_uvicorn_serves_a_legacy_session(alone: str) -> None:
    check_legacy_session(alone)


def test_uvicorn_streams_progress_as_sse(alone: str) -> None:
    check_progress_as_sse(alone)


def test_cors_for_a_browser_page(alone: str) -> None:
    check_cors(alone)


def test_other_paths_are_404(alone: str) -> None:
    reply = modern_call(alone, 1, "echo", {"text": "hi"}, path="/elsewhere")
    assert reply.status == 404
    assert reply.json()["error"]["code"] == -32600


def test_mounted_in_starlette(mounted: str) -> None:
    url = mounted + "/mcp/"
    assert request(mounted, "GET", path="/health").body == b"ok"
    reply = modern_call(url, 1, "echo", {"text": "mounted"})
    assert reply.json()["result"]["content"] == [{"type": "text", "text": "mounted"}]
    check_legacy_session(url)
    check_progress_as_sse(url)
    # Starlette sends /mcp to /mcp/ with a 307, which keeps the POST.
    reply = modern_call(mounted + "/mcp", 2, "echo", {"text": "x"})
    assert reply.status == 307 and reply.headers["location"].endswith("/mcp/")


def test_mounted_2024_11_05_sse_names_the_mounted_message_path(mounted: str) -> None:
    host = mounted.removeprefix("http://")
    sock = socket.create_connection(("127.0.0.1", int(host.split(":")[1])), 30)
    try:
        sock.sendall(f"GET /mcp/sse HTTP/1.1\r\nHost: {host}\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        data = read_until(sock, b"sessionId=")
        while b"\n\n" not in data.split(b"sessionId=", 1)[1]:
            data += sock.recv(65536)
        assert data.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in data
        event = re.search(rb"event: (\S+)\ndata: (\S+)\n\n", data)
        assert event is not None, data
        assert event.group(1) == b"endpoint"
        endpoint = {"data": event.group(2).decode()}
        assert endpoint["data"].startswith("/mcp/message?sessionId="), endpoint
        init = (b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
                b'"2024-11-05","capabilities":{},"clientInfo":{"name":"pytest","version":"1"}}}')
        path, _, query = endpoint["data"].partition("?")
        reply = request(mounted, body=init, path=f"{path}?{query}",
                        headers={"Content-Type": "application/json"})
        assert reply.status == 202
        answer = read_until(sock, b'"protocolVersion":"2024-11-05"')
        assert b'"id":1' in answer and b"event: message" in answer
    finally:
        sock.close()


def test_client_disconnect_cancels_the_handler_and_nothing_more_is_sent() -> None:
    holder = Holder()
    app = Recording(holder.server.asgi_app())
    served = Served(app)
    try:
        sock = raw_post(served.base + "/", *holder.request())
        head = read_until(sock, b"notifications/progress")
        assert head.startswith(b"HTTP/1.1 200 ") and b"text/event-stream" in head
        assert holder.started.wait(10)
        sent_before = len(app.sent)
        sock.close()  # the client goes away
        t0 = time.monotonic()
        assert holder.cancelled.wait(CANCEL_BOUND_S), "the handler was not cancelled"
        assert time.monotonic() - t0 < CANCEL_BOUND_S
        assert app.done.wait(10), "the ASGI call did not return"
        later = app.sent[sent_before:]
        assert not [m for m in later if m.get("body")], f"written after the disconnect: {later}"
        assert not holder.finished
    finally:
        served.stop()
        holder.server.close()


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_413_over_the_body_limit(chunked: bool) -> None:
    server = everything.build()
    served = Served(server.asgi_app(max_body_bytes=1000))
    try:
        big = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "echo", "arguments": {"text": "x" * 2000}, "_meta": MODERN_META}}).encode()
        reply = request(served.base, body=big, headers=modern_headers("tools/call", "echo"),
                        chunked=chunked)
        assert reply.status == 413
        assert reply.json()["error"]["code"] == -32600
        assert modern_call(served.base, 2, "echo", {"text": "small"}).status == 200
    finally:
        served.stop()
        server.close()


def test_lifespan_closes_and_a_new_server_reopens() -> None:
    server = everything.build()
    app = server.asgi_app()
    for round in range(2):
        served = Served(app)
        try:
            reply = modern_call(served.base, round, "echo", {"text": str(round)})
            assert reply.json()["result"]["content"] == [{"type": "text", "text": str(round)}]
        finally:
            served.stop()
        assert app._native is None
    server.close()


def test_without_lifespan_the_server_close_ends_it() -> None:
    server = everything.build()
    app = server.asgi_app()
    served = Served(app, lifespan="off")
    try:
        check_legacy_session(served.base)
    finally:
        served.stop()
        server.close()
    assert app._native is not None and app._native.closed


def test_no_exchange_is_left_behind() -> None:
    before = json.loads(_native.load_library().stats())
    server = everything.build()
    served = Served(server.asgi_app())
    try:
        for i in range(50):
            assert modern_call(served.base, i, "echo", {"text": "n"}).status == 200
        reply = request(served.base, body=b'{"jsonrpc":"2.0","id":1,"method":"initialize"}',
                        headers=legacy_headers())
        assert reply.status == 200
    finally:
        served.stop()
        server.close()
    after = json.loads(_native.load_library().stats())
    assert after["http"] == before["http"] == 0 and after["servers"] == before["servers"]
    assert not _native._exchanges


def test_asgi_app_refuses_addr_and_a_relative_path() -> None:
    server = everything.build()
    with pytest.raises(TypeError, match="addr"):
        server.asgi_app(addr="127.0.0.1:0")
    with pytest.raises(ValueError, match="must start with /"):
        server.asgi_app(path="mcp")
    server.close()
