"""Serving a Server through libpolymcp: one NativeServer per native server
handle, kept in step with the Server's catalogue, closed at interpreter
exit."""

from __future__ import annotations

import asyncio
import atexit
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._bridge import Bridge
from ._convert import dumps
from ._errors import NativeError
from ._handlers import CompletionEntry, Entry, Kind, ResourceEntry, ToolEntry
from ._loop import shared_loop, stop_shared_loop
from ._native import E_TIMEOUT, OK, Library, library, new_key

if TYPE_CHECKING:
    from ._server import Server

__all__ = ["LoopSource", "NativeServer", "Session", "close_all"]

#: Where async handlers run: a loop, or a function returning one when the
#: first async call comes (None: the binding's own loop).
LoopSource = asyncio.AbstractEventLoop | Callable[[], asyncio.AbstractEventLoop]

#: How long polymcp_server_wait blocks before Python looks at signals again.
WAIT_SLICE_MS = 100
#: How long interpreter exit waits for each server's on_closed.
EXIT_WAIT_S = 5.0

_live: set[NativeServer] = set()
_live_lock = threading.Lock()


class NativeServer:
    """One polymcp_server_t serving a Server's catalogue."""

    def __init__(self, server: Server, loop: LoopSource | None = None,
                 lib: Library | None = None, http: dict[str, Any] | None = None) -> None:
        self.lib = lib or library()
        self.server = server
        self._closed = threading.Event()
        self._logs: list[tuple[int, str]] = []
        self.sessions: set[int] = set()
        source: Callable[[], asyncio.AbstractEventLoop]
        if loop is None:
            source = shared_loop
        elif isinstance(loop, asyncio.AbstractEventLoop):
            source = lambda: loop  # noqa: E731
        else:
            source = loop
        self.bridge = Bridge(server.registry, self.lib, source)
        options = server.options()
        if http:
            options["http"] = http  # host-owned HTTP (polymcp_server_http)
        self.handle = self.lib.server_new(dumps(options).encode(), new_key(), self)
        with _live_lock:
            _live.add(self)
        try:
            server.registry.attach(self)
        except BaseException:
            self.close()
            raise

    # ---- Handlers (called by the library on its threads) --------------------

    def on_call(self, call: int, kind: int, tag: int, params: bytes) -> None:
        self.bridge.on_call(call, kind, tag, params)

    def on_cancel(self, call: int) -> None:
        self.bridge.on_cancel(call)

    def on_log(self, level: int, message: str) -> None:
        self._logs.append((level, message))
        del self._logs[:-100]  # the newest diagnostics, for errors and tests

    def on_closed(self) -> None:
        for session in list(self.sessions):  # closing the server closed them
            self.lib.forget_session(session)
        self.sessions.clear()
        self.server.registry.detach(self)
        with _live_lock:
            _live.discard(self)
        self._closed.set()

    # ---- Sink (the catalogue) ------------------------------------------------

    def add(self, entry: Entry) -> None:
        c = self.lib.cdll
        if isinstance(entry, ToolEntry) and entry.task is not None:
            data, task = dumps(entry.definition()).encode(), dumps(entry.task).encode()
            self.lib.check(c.polymcp_server_add_task_tool(self.handle, data, len(data), task,
                                                          len(task), entry.tag),
                           f"registering tool {entry.key!r}")
            return
        if isinstance(entry, CompletionEntry):
            fn, body = c.polymcp_server_set_completer, entry.definition()["ref"]
        elif isinstance(entry, ResourceEntry):
            fn = c.polymcp_server_add_resource_template if entry.is_template else \
                c.polymcp_server_add_resource
            body = entry.definition()
        else:
            fn = c.polymcp_server_add_tool if entry.kind is Kind.TOOL else c.polymcp_server_add_prompt
            body = entry.definition()
        data = dumps(body).encode()
        self.lib.check(fn(self.handle, data, len(data), entry.tag),
                       f"registering {entry.kind.name.lower()} {entry.key!r}")

    def remove(self, tag: int) -> None:
        self.lib.check(self.lib.cdll.polymcp_server_remove(self.handle, tag), "polymcp_server_remove")

    # ---- serving -------------------------------------------------------------

    def serve_stdio(self, **options: Any) -> None:
        data = dumps(options).encode() if options else b""
        self.lib.check(self.lib.cdll.polymcp_server_serve_stdio(self.handle, data, len(data)),
                       "polymcp_server_serve_stdio")

    def serve_http(self, **options: Any) -> str:
        if not self.lib.has("polymcp_server_serve_http"):
            raise NativeError(-1, f"polymcp: libpolymcp ABI {self.lib.abi[0]}.{self.lib.abi[1]} "
                                  "cannot serve HTTP yet (no polymcp_server_serve_http)")
        data = dumps(options).encode()
        url = self.lib.take(self.lib.cdll.polymcp_server_serve_http, "polymcp_server_serve_http",
                            self.handle, data, len(data))
        return url.decode()

    def notify(self, method: str, params: dict[str, Any]) -> None:
        m, p = method.encode(), dumps(params).encode()
        self.lib.check(self.lib.cdll.polymcp_server_notify(self.handle, m, len(m), p, len(p)),
                       "polymcp_server_notify")

    def wait(self, timeout_ms: int) -> bool:
        """True when the server is idle (its transports ended), False on timeout."""
        status = int(self.lib.cdll.polymcp_server_wait(self.handle, timeout_ms))
        if status == E_TIMEOUT:
            return False
        self.lib.check(status, "polymcp_server_wait")
        return True

    def wait_forever(self) -> None:
        """Waits in slices so that Ctrl-C (KeyboardInterrupt) is seen at once."""
        while not self.wait(WAIT_SLICE_MS):
            pass

    def close(self, timeout: float | None = EXIT_WAIT_S) -> bool:
        """Closes and frees the server; True once on_closed has come."""
        self.server.registry.detach(self)  # no more add/remove on a freed handle
        if not self._closed.is_set():
            status = int(self.lib.cdll.polymcp_server_free(self.handle))
            if status != OK and not self._closed.is_set():
                raise self.lib.error(status, "polymcp_server_free")
        return self._closed.wait(timeout)

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def session(self, send: Callable[[bytes], None], **options: Any) -> Session:
        return Session(self, send, options)


class Session:
    """A host-owned connection: JSON-RPC messages in through ``dispatch``,
    everything the server sends out through ``send`` (on library threads)."""

    def __init__(self, native: NativeServer, send: Callable[[bytes], None],
                 options: dict[str, Any]) -> None:
        self.lib = native.lib
        self._native = native
        data = dumps(options).encode() if options else b""
        self.handle = self.lib.session_open(native.handle, data, send)
        native.sessions.add(self.handle)

    def dispatch(self, message: bytes) -> None:
        self.lib.check(self.lib.cdll.polymcp_session_dispatch(self.handle, message, len(message)),
                       "polymcp_session_dispatch")

    def close(self) -> None:
        self._native.sessions.discard(self.handle)
        self.lib.session_close(self.handle)

    def __enter__(self) -> Session:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def close_all(timeout: float = EXIT_WAIT_S) -> None:
    """Closes every live server and waits for each on_closed, then stops the
    binding's loop. Registered with atexit."""
    with _live_lock:
        servers = list(_live)
    for native in servers:
        try:
            native.close(timeout)
        except NativeError:
            pass  # after fork, or already freed: nothing left to wait for
    stop_shared_loop()


atexit.register(close_all)
