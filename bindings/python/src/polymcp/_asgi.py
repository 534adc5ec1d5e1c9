"""``Server.asgi_app()``: an ASGI 3 application over libpolymcp's host-owned
HTTP entry point (polymcp_server_http / polymcp_http_cancel).

The ASGI server owns the sockets; the core judges and answers each request
through the same checks and dispatcher as its own listener. The response
comes back through four callbacks on the library's threads (or inline,
inside polymcp_server_http, for a request answered at once). They follow
the discipline of on_call: keep the Go thread's Python thread state
(_native._pin), copy the bytes, append them to the exchange's queue and
wake the event loop only when the coroutine is actually waiting — one
``call_soon_threadsafe`` per batch, none for a request answered inline.
The coroutine then sends what is queued as one ``http.response.body``.

A client that goes away (``http.disconnect``) cancels the exchange: at
2026-07-28 the core cancels the handler, at the legacy revisions it keeps
the answer for a Last-Event-ID resumption; nothing more is written either
way.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from ._convert import dumps
from ._errors import NativeError
from ._native import E_CLOSED, OK

if TYPE_CHECKING:
    from ._serve import NativeServer
    from ._server import Server

__all__ = ["ASGIApp", "MAX_BACKLOG_BYTES"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: The core's default bound of a request body (413 beyond it).
DEFAULT_MAX_BODY_BYTES = 2_000_000
#: Response bytes that may wait for a slow client. Beyond it the exchange is
#: cancelled, as the core ends a stream whose client falls that far behind;
#: one chunk larger than this still goes out when nothing else waits.
MAX_BACKLOG_BYTES = 4 << 20

_START, _WRITE, _END = 1, 2, 3


class _Exchange:
    """One request's response, moved from the library's threads to the loop."""

    __slots__ = ("loop", "items", "lock", "waiter", "wake_pending", "backlog", "handle",
                 "overflow", "app")

    def __init__(self, app: ASGIApp, loop: asyncio.AbstractEventLoop) -> None:
        self.app = app
        self.loop = loop
        self.items: deque[tuple[int, Any]] = deque()
        self.lock = threading.Lock()
        self.waiter: asyncio.Future[None] | None = None
        self.wake_pending = False
        self.backlog = 0
        self.handle = 0
        self.overflow = False

    # ---- HTTPTarget: library threads -------------------------------------

    def on_start(self, status: int, headers: bytes) -> None:
        self._push(_START, (status, headers))

    def on_write(self, chunk: bytes) -> None:
        with self.lock:
            if self.overflow:
                return
            if self.backlog and self.backlog + len(chunk) > MAX_BACKLOG_BYTES:
                self.overflow = True
                handle = self.handle
            else:
                self.backlog += len(chunk)
                handle = 0
        if handle:
            self.app.cancel(handle)  # the client is too slow: end its response
            return
        self._push(_WRITE, chunk)

    def on_flush(self) -> None:
        pass  # every batch the loop takes is sent at once

    def on_end(self, rc: int) -> None:
        self._push(_END, rc)

    def _push(self, kind: int, value: Any) -> None:
        with self.lock:
            self.items.append((kind, value))
            if self.waiter is None or self.wake_pending:
                return  # the coroutine is busy, or a wake-up is on its way
            self.wake_pending = True
        try:
            self.loop.call_soon_threadsafe(self._wake)
        except RuntimeError:
            pass  # the loop is closed: nobody is left to answer

    # ---- the loop ---------------------------------------------------------

    def _wake(self) -> None:
        with self.lock:
            self.wake_pending = False
            waiter, self.waiter = self.waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def batch(self) -> list[tuple[int, Any]]:
        """Everything queued so far, waiting for at least one item."""
        while True:
            with self.lock:
                if self.items:
                    items = list(self.items)
                    self.items.clear()
                    self.backlog = 0
                    return items
                waiter = self.waiter = self.loop.create_future()
            await waiter


class ASGIApp:
    """An ASGI 3 app serving a :class:`polymcp.Server` (see ``Server.asgi_app``)."""

    def __init__(self, server: Server, *, path: str = "/",
                 http_options: dict[str, Any] | None = None) -> None:
        if not path.startswith("/"):
            raise ValueError(f"asgi_app: path {path!r} must start with /")
        options = dict(http_options or {})
        if "addr" in options:
            raise TypeError("asgi_app() takes no addr: the ASGI server binds the socket")
        options["path"] = path
        self.server = server
        self.path = path
        limit = options.get("max_body_bytes")
        self.max_body_bytes = int(limit) if isinstance(limit, int) and limit > 0 else \
            DEFAULT_MAX_BODY_BYTES
        self._options = options
        self._lock = threading.Lock()
        self._native: NativeServer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.native()  # bad options fail here, not at the first request

    # ---- the native server ------------------------------------------------

    def native(self) -> NativeServer:
        """The native server behind the app, opened if needed."""
        with self._lock:
            native = self._native
            if native is None or native.closed:
                native = self._native = self.server.serve(self._handler_loop, http=self._options)
            return native

    def _handler_loop(self) -> asyncio.AbstractEventLoop:
        loop = self._loop
        if loop is None or loop.is_closed():
            from ._loop import shared_loop

            return shared_loop()
        return loop

    def cancel(self, handle: int) -> None:
        native = self._native
        if native is not None:
            native.lib.http_cancel(handle)

    def close(self, timeout: float = 5.0) -> None:
        """Closes the native server: open streams end, calls in flight are cancelled."""
        with self._lock:
            native, self._native = self._native, None
        if native is not None:
            native.close(timeout)

    # ---- ASGI -----------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "http":
            await self._http(scope, receive, send)
        elif kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1000})
        else:
            raise ValueError(f"polymcp asgi_app: unsupported ASGI scope type {kind!r}")

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._loop = asyncio.get_running_loop()
                try:
                    self.native()
                except NativeError as err:
                    await send({"type": "lifespan.startup.failed", "message": str(err)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                # Off the loop: closing waits for on_closed, while the
                # exchanges still open on this loop receive their end.
                await asyncio.get_running_loop().run_in_executor(None, self.close)
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        loop = asyncio.get_running_loop()
        if self._loop is None or self._loop.is_closed():
            self._loop = loop
        headers: dict[str, list[str]] = {}
        length = -1
        for raw_name, raw_value in scope.get("headers", ()):
            name, value = _text(raw_name), _text(raw_value)
            headers.setdefault(name, []).append(value)
            if name.lower() == "content-length" and value.strip().isdigit():
                length = int(value)
        body = await self._body(receive, length)
        if body is None:
            return  # the client left before its request was complete
        request = {
            "method": scope.get("method", "GET"),
            "path": _relative_path(scope),
            "query": _text(scope.get("query_string", b"")),
            "headers": headers,
            "host": (headers.get("host") or [""])[0],
            "local_addr": _address(scope.get("server")),
        }
        native = self.native()
        exchange = _Exchange(self, loop)
        try:
            exchange.handle = native.lib.server_http(native.handle, dumps(request).encode(), body,
                                                     exchange)
        except NativeError as err:
            status = 503 if err.status == E_CLOSED else 500
            await _error(send, status, "shutdown" if status == 503 else "internal", str(err))
            return
        await self._respond(exchange, request, scope, receive, send)

    async def _body(self, receive: Receive, length: int) -> bytes | None:
        """The whole request body; past the limit, its first limit+1 bytes
        (the core answers 413). None when the client disconnected."""
        limit = self.max_body_bytes
        if length > limit:
            return bytes(limit + 1)  # answered 413 without reading it
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            if message["type"] != "http.request":
                continue
            chunk = message.get("body", b"")
            if chunk:
                chunks.append(chunk)
                size += len(chunk)
                if size > limit:
                    return b"".join(chunks)[: limit + 1]
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _respond(self, exchange: _Exchange, request: dict[str, Any], scope: Scope,
                       receive: Receive, send: Send) -> None:
        prefix = _text(scope.get("root_path", b"")).rstrip("/").encode()
        rewrite_endpoint = bool(prefix) and request["method"] == "GET" and \
            request["path"] == "/sse" and self._options.get("disable_sse") is not True
        gone = False
        head: tuple[int, list[tuple[bytes, bytes]]] | None = None
        started = stream = False
        data = bytearray()
        watcher: asyncio.Task[None] | None = None

        async def watch() -> None:
            nonlocal gone
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone = True
                    self.cancel(exchange.handle)
                    return

        try:
            while True:
                ended, rc = False, OK
                for kind, value in await exchange.batch():
                    if kind == _START:
                        status, raw = value
                        head = (status, _header_list(raw))
                        stream = any(n == b"content-type" and v.startswith(b"text/event-stream")
                                     for n, v in head[1])
                    elif kind == _WRITE:
                        if rewrite_endpoint:
                            value = _prefix_endpoint(value, prefix)
                            rewrite_endpoint = False
                        data += value
                    elif kind == _END:
                        ended, rc = True, value
                if not gone:
                    try:
                        if head is not None and not started and (stream or ended):
                            # A JSON answer is held until it is whole, then sent
                            # with its length; a stream starts at once.
                            status, header_list = head
                            if ended and not any(n == b"content-length" for n, _ in header_list):
                                header_list.append((b"content-length", str(len(data)).encode()))
                            await send({"type": "http.response.start", "status": status,
                                        "headers": header_list})
                            started = True
                        if started and (data or ended):
                            chunk = bytes(data)
                            data.clear()
                            await send({"type": "http.response.body", "body": chunk,
                                        "more_body": not ended})
                        elif ended and head is None:
                            await _error(send, 503 if rc == E_CLOSED else 500,
                                         "shutdown" if rc == E_CLOSED else "internal",
                                         "the server closed before answering")
                    except Exception:  # noqa: BLE001 - the connection is gone
                        gone = True
                        self.cancel(exchange.handle)
                if gone:
                    data.clear()
                if ended:
                    return
                if watcher is None:
                    # A response still running: watch for the client leaving.
                    watcher = asyncio.ensure_future(watch())
        except asyncio.CancelledError:
            self.cancel(exchange.handle)  # the ASGI server gave up on the request
            raise
        finally:
            if watcher is not None:
                watcher.cancel()


def _text(raw: bytes | str) -> str:
    if isinstance(raw, str):
        return raw
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _relative_path(scope: Scope) -> str:
    """The request path after the mount point (ASGI: path includes root_path)."""
    path = str(scope.get("path", "/"))
    root = str(scope.get("root_path", ""))
    if root and path.startswith(root):
        path = path[len(root):]
    return path if path.startswith("/") else "/" + path


def _address(server: Any) -> str:
    if not server or server[1] is None:
        return ""
    host, port = server[0], server[1]
    return f"[{host}]:{port}" if ":" in str(host) else f"{host}:{port}"


def _header_list(raw: bytes) -> list[tuple[bytes, bytes]]:
    value = json.loads(raw)
    out: list[tuple[bytes, bytes]] = []
    if isinstance(value, dict):
        for name, values in value.items():
            for v in values if isinstance(values, list) else [values]:
                out.append((str(name).lower().encode("latin-1"), str(v).encode("latin-1")))
    return out


def _prefix_endpoint(chunk: bytes, prefix: bytes) -> bytes:
    """The 2024-11-05 endpoint event names the message path from the app's
    root; behind a mount point the client needs the mount's prefix too."""
    if chunk.startswith(b"event: endpoint\n"):
        return chunk.replace(b"\ndata: /", b"\ndata: " + prefix + b"/", 1)
    return chunk


async def _error(send: Send, status: int, reason: str, message: str) -> None:
    body = dumps({"jsonrpc": "2.0", "id": None,
                  "error": {"code": -32603, "message": message, "data": {"reason": reason}}})
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body.encode()})
