"""libpolymcp through ctypes: loading, prototypes, and the four server
callbacks.

Facts this file is built on (measured, see the architecture notes):
  - ``ctypes.CDLL`` releases the GIL around every call; ``PyDLL`` would
    deadlock when Go calls back while Python waits in a polymcp call.
  - A ctypes callback on a thread Python has not seen creates and destroys
    a thread state each time (~29 µs). Each Go thread's first callback
    therefore takes one extra PyGILState_Ensure that is never released, so
    the state stays and later callbacks cost ~3 µs.
  - The callbacks are module-level objects that live as long as the
    process, so a callback can never outlive the code it runs (on_closed
    returns through its thunk after the server is gone).
"""

from __future__ import annotations

import ctypes
import json
import threading
from collections.abc import Callable
from ctypes import POINTER, byref, c_char_p, c_int, c_int32, c_size_t, c_uint32, c_uint64, \
    c_void_p
from pathlib import Path
from typing import Any, Protocol

from ._errors import NativeError

__all__ = [
    "ABI_MAJOR",
    "HTTPTarget",
    "ABI_MINOR",
    "E_CLOSED",
    "E_INVALID",
    "E_TIMEOUT",
    "E_UNKNOWN_CALL",
    "Handlers",
    "Library",
    "OK",
    "library",
    "load_library",
]

ABI_MAJOR = 1
#: polymcp_server_add_task_tool and polymcp_call_start_task (the tasks extension) came with 1.4.
ABI_MINOR = 4

OK = 0
E_INVALID = -1
E_BADHANDLE = -2
E_UNKNOWN_CALL = -3
E_CLOSED = -4
E_FORKED = -5
E_TIMEOUT = -6
E_IO = -7
E_INPUT_REQUIRED = -8
E_CAPABILITY = -9
E_CANCELLED = -10
E_LIMIT = -11
E_RPC = -12  # client (ABI 1.8): the server answered with a JSON-RPC error
E_OUTPUT = -13  # client (ABI 1.8): a tool result does not match its outputSchema
E_INTERNAL = -99

_NAME = "libpolymcp.so"

ON_CALL = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_uint32, c_uint64, c_void_p, c_size_t)
ON_CANCEL = ctypes.CFUNCTYPE(None, c_void_p, c_uint64)
ON_LOG = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_void_p, c_size_t)
ON_CLOSED = ctypes.CFUNCTYPE(None, c_void_p)
SEND = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_size_t)
HTTP_START = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_void_p, c_size_t)
HTTP_WRITE = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_size_t)
HTTP_FLUSH = ctypes.CFUNCTYPE(None, c_void_p)
HTTP_END = ctypes.CFUNCTYPE(None, c_void_p, c_int)
# The client (ABI 1.8).
CLIENT_ON_RESPONSE = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_int, c_void_p, c_size_t)
CLIENT_ON_NOTIFICATION = ctypes.CFUNCTYPE(None, c_void_p, c_void_p, c_size_t, c_void_p, c_size_t)
CLIENT_ON_PROGRESS = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_void_p, c_size_t)
CLIENT_ON_QUESTION = ctypes.CFUNCTYPE(None, c_void_p, c_uint64, c_void_p, c_size_t, c_void_p,
                                      c_size_t)
CLIENT_ON_QUESTION_CANCEL = ctypes.CFUNCTYPE(None, c_void_p, c_uint64)
CLIENT_ON_CLOSED = ctypes.CFUNCTYPE(None, c_void_p, c_int, c_void_p, c_size_t)


class ServerCallbacks(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("user", c_void_p), ("on_call", ON_CALL),
                ("on_cancel", ON_CANCEL), ("on_log", ON_LOG), ("on_closed", ON_CLOSED)]


class HTTPCallbacks(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("user", c_void_p), ("on_start", HTTP_START),
                ("on_write", HTTP_WRITE), ("on_flush", HTTP_FLUSH), ("on_end", HTTP_END)]


class ClientCallbacks(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("user", c_void_p),
                ("on_response", CLIENT_ON_RESPONSE), ("on_notification", CLIENT_ON_NOTIFICATION),
                ("on_progress", CLIENT_ON_PROGRESS), ("on_question", CLIENT_ON_QUESTION),
                ("on_question_cancel", CLIENT_ON_QUESTION_CANCEL), ("on_closed", CLIENT_ON_CLOSED)]


class ClientTarget(Protocol):
    """What a client registers to receive its callbacks (by user key). Called
    on library threads; every bytes argument is a copy."""

    def on_response(self, tag: int, rc: int, data: bytes) -> None: ...

    def on_notification(self, method: str, params: bytes) -> None: ...

    def on_progress(self, tag: int, params: bytes) -> None: ...

    def on_question(self, question: int, method: str, params: bytes) -> None: ...

    def on_question_cancel(self, question: int) -> None: ...

    def on_closed(self, rc: int, message: str) -> None: ...


class HTTPTarget(Protocol):
    """What receives one host-owned HTTP exchange's response (by user key).
    Called on library threads, or inline inside polymcp_server_http."""

    def on_start(self, status: int, headers: bytes) -> None: ...

    def on_write(self, chunk: bytes) -> None: ...

    def on_flush(self) -> None: ...

    def on_end(self, rc: int) -> None: ...


class Handlers(Protocol):
    """What a server registers to receive its callbacks (by user key)."""

    def on_call(self, call: int, kind: int, tag: int, params: bytes) -> None: ...

    def on_cancel(self, call: int) -> None: ...

    def on_log(self, level: int, message: str) -> None: ...

    def on_closed(self) -> None: ...


# ---- callbacks -------------------------------------------------------------

_pinned: set[int] = set()
_ensure: Callable[[], int] = ctypes.pythonapi.PyGILState_Ensure
_targets: dict[int, Handlers] = {}
_senders: dict[int, Callable[[bytes], None]] = {}
_keys = iter(range(1, 1 << 62))
_keys_lock = threading.Lock()


def _pin() -> None:
    ident = threading.get_ident()
    if ident not in _pinned:
        _pinned.add(ident)
        _ensure()  # never released: keeps this Go thread's Python thread state


def _on_call(user: int | None, call: int, kind: int, tag: int, params: int | None,
             length: int) -> None:
    _pin()
    target = _targets.get(user or 0)
    if target is not None:
        target.on_call(call, kind, tag, ctypes.string_at(params, length) if params and length else b"{}")


def _on_cancel(user: int | None, call: int) -> None:
    _pin()
    target = _targets.get(user or 0)
    if target is not None:
        target.on_cancel(call)


def _on_log(user: int | None, level: int, msg: int | None, length: int) -> None:
    _pin()
    target = _targets.get(user or 0)
    if target is not None and msg:
        target.on_log(level, ctypes.string_at(msg, length).decode("utf-8", "replace"))


def _on_closed(user: int | None) -> None:
    _pin()
    target = _targets.pop(user or 0, None)
    if target is not None:
        target.on_closed()


def _send(user: int | None, msg: int | None, length: int) -> None:
    _pin()
    sender = _senders.get(user or 0)
    if sender is not None:
        sender(ctypes.string_at(msg, length) if msg else b"")


def _http_start(user: int | None, status: int, headers: int | None, length: int) -> None:
    _pin()
    target = _exchanges.get(user or 0)
    if target is not None:
        target.on_start(status, ctypes.string_at(headers, length) if headers and length else b"{}")


def _http_write(user: int | None, chunk: int | None, length: int) -> None:
    _pin()
    target = _exchanges.get(user or 0)
    if target is not None and chunk and length:
        target.on_write(ctypes.string_at(chunk, length))


def _http_flush(user: int | None) -> None:
    _pin()
    target = _exchanges.get(user or 0)
    if target is not None:
        target.on_flush()


def _http_end(user: int | None, rc: int) -> None:
    _pin()
    target = _exchanges.pop(user or 0, None)  # the exchange's last callback
    if target is not None:
        target.on_end(rc)


def _bytes(ptr: int | None, length: int) -> bytes:
    return ctypes.string_at(ptr, length) if ptr and length else b""


def _client_on_response(user: int | None, tag: int, rc: int, data: int | None,
                        length: int) -> None:
    _pin()
    target = _clients.get(user or 0)
    if target is not None:
        target.on_response(tag, rc, _bytes(data, length))


def _client_on_notification(user: int | None, method: int | None, mlen: int,
                            params: int | None, plen: int) -> None:
    _pin()
    target = _clients.get(user or 0)
    if target is not None:
        target.on_notification(_bytes(method, mlen).decode("utf-8", "replace"),
                               _bytes(params, plen))


def _client_on_progress(user: int | None, tag: int, params: int | None, plen: int) -> None:
    _pin()
    target = _clients.get(user or 0)
    if target is not None:
        target.on_progress(tag, _bytes(params, plen))


def _client_on_question(user: int | None, question: int, method: int | None, mlen: int,
                        params: int | None, plen: int) -> None:
    _pin()
    target = _clients.get(user or 0)
    if target is not None:
        target.on_question(question, _bytes(method, mlen).decode("utf-8", "replace"),
                           _bytes(params, plen))


def _client_on_question_cancel(user: int | None, question: int) -> None:
    _pin()
    target = _clients.get(user or 0)
    if target is not None:
        target.on_question_cancel(question)


def _client_on_closed(user: int | None, rc: int, msg: int | None, length: int) -> None:
    _pin()
    target = _clients.pop(user or 0, None)  # always the client's last callback
    if target is not None:
        target.on_closed(rc, _bytes(msg, length).decode("utf-8", "replace"))


_clients: dict[int, ClientTarget] = {}
# Module-level, so the thunks outlive every client (on_closed returns through
# its thunk after the client is gone).
_CLIENT_CALLBACKS = (CLIENT_ON_RESPONSE(_client_on_response),
                     CLIENT_ON_NOTIFICATION(_client_on_notification),
                     CLIENT_ON_PROGRESS(_client_on_progress),
                     CLIENT_ON_QUESTION(_client_on_question),
                     CLIENT_ON_QUESTION_CANCEL(_client_on_question_cancel),
                     CLIENT_ON_CLOSED(_client_on_closed))

_CALLBACKS = (ON_CALL(_on_call), ON_CANCEL(_on_cancel), ON_LOG(_on_log), ON_CLOSED(_on_closed))
_SEND = SEND(_send)
_HTTP_CALLBACKS = (HTTP_START(_http_start), HTTP_WRITE(_http_write), HTTP_FLUSH(_http_flush),
                   HTTP_END(_http_end))
_exchanges: dict[int, HTTPTarget] = {}


def new_key() -> int:
    with _keys_lock:
        return next(_keys)


# ---- the library -----------------------------------------------------------

def _prototypes(lib: ctypes.CDLL) -> None:
    u64, p_u64, sz = c_uint64, POINTER(c_uint64), c_size_t
    p_str, p_size = POINTER(c_char_p), POINTER(c_size_t)
    table: dict[str, tuple[Any, list[Any]]] = {
        "polymcp_abi_version": (c_uint32, []),
        "polymcp_version": (c_char_p, []),
        "polymcp_configure": (c_int, [c_char_p, sz]),
        "polymcp_last_error": (c_int, [p_str, p_size]),
        "polymcp_free": (None, [c_void_p]),
        "polymcp_stats": (c_int, [POINTER(c_void_p), p_size]),
        "polymcp_server_new": (c_int, [c_char_p, sz, POINTER(ServerCallbacks), p_u64]),
        "polymcp_server_add_tool": (c_int, [u64, c_char_p, sz, u64]),
        "polymcp_server_add_resource": (c_int, [u64, c_char_p, sz, u64]),
        "polymcp_server_add_resource_template": (c_int, [u64, c_char_p, sz, u64]),
        "polymcp_server_add_prompt": (c_int, [u64, c_char_p, sz, u64]),
        "polymcp_server_set_completer": (c_int, [u64, c_char_p, sz, u64]),
        "polymcp_server_remove": (c_int, [u64, u64]),
        "polymcp_server_notify": (c_int, [u64, c_char_p, sz, c_char_p, sz]),
        "polymcp_server_serve_stdio": (c_int, [u64, c_char_p, sz]),
        "polymcp_server_wait": (c_int, [u64, c_int32]),
        "polymcp_server_close": (c_int, [u64]),
        "polymcp_server_free": (c_int, [u64]),
        "polymcp_session_open": (c_int, [u64, c_char_p, sz, SEND, c_void_p, p_u64]),
        "polymcp_session_dispatch": (c_int, [u64, c_char_p, sz]),
        "polymcp_session_close": (c_int, [u64]),
        "polymcp_call_complete": (c_int, [u64, c_char_p, sz]),
        "polymcp_call_fail": (c_int, [u64, c_int32, c_char_p, sz]),
        "polymcp_call_progress": (c_int, [u64, c_char_p, sz]),
        "polymcp_call_log": (c_int, [u64, c_char_p, sz]),
        "polymcp_call_info": (c_int, [u64, POINTER(c_void_p), p_size]),
        # ABI 1.4: the tasks extension.
        "polymcp_server_add_task_tool": (c_int, [u64, c_char_p, sz, c_char_p, sz, u64]),
        "polymcp_call_start_task": (c_int, [u64]),
    }
    # Later minor versions add functions; these are used only when present.
    optional: dict[str, tuple[Any, list[Any]]] = {
        "polymcp_server_serve_http": (c_int, [u64, c_char_p, sz, POINTER(c_void_p), p_size]),
        "polymcp_server_http": (c_int, [u64, c_char_p, sz, c_char_p, sz, POINTER(HTTPCallbacks),
                                        p_u64]),
        "polymcp_http_cancel": (c_int, [u64]),
        "polymcp_call_input": (c_int, [u64, c_char_p, sz, POINTER(c_void_p), p_size]),
        "polymcp_call_input_state": (c_int, [u64, POINTER(c_void_p), p_size]),
        "polymcp_call_set_input_state": (c_int, [u64, c_char_p, sz]),
        "polymcp_call_fail_data": (c_int, [u64, c_int32, c_char_p, sz, c_char_p, sz]),
        "polymcp_call_complete_text": (c_int, [u64, c_char_p, sz]),
        "polymcp_call_cancelled": (c_int, [u64]),
        # ABI 1.8: the client.
        "polymcp_client_connect": (c_int, [c_char_p, sz, POINTER(ClientCallbacks), u64, p_u64]),
        "polymcp_client_request": (c_int, [u64, c_char_p, sz, c_char_p, sz, c_char_p, sz, u64]),
        "polymcp_client_cancel": (c_int, [u64, u64]),
        "polymcp_client_answer": (c_int, [u64, c_char_p, sz]),
        "polymcp_client_answer_error": (c_int, [u64, c_int32, c_char_p, sz]),
        "polymcp_client_close": (c_int, [u64]),
        "polymcp_client_free": (c_int, [u64]),
    }
    for name, (restype, argtypes) in table.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    for name, (restype, argtypes) in optional.items():
        if hasattr(lib, name):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = restype, argtypes


class Library:
    """One loaded libpolymcp. Methods raise NativeError on failure, except
    the call_* ones, which return the status (a late answer is normal)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.cdll = ctypes.CDLL(str(path))  # CDLL: releases the GIL (never PyDLL)
        # The version first: an older library lacks functions _prototypes binds.
        self.cdll.polymcp_abi_version.restype, self.cdll.polymcp_abi_version.argtypes = c_uint32, []
        version = int(self.cdll.polymcp_abi_version())
        major, minor = version >> 16, version & 0xFFFF
        if major != ABI_MAJOR or minor < ABI_MINOR:
            raise NativeError(E_INVALID, f"polymcp: {path} has ABI {major}.{minor}; this binding "
                                         f"needs {ABI_MAJOR}.{ABI_MINOR} or a later {ABI_MAJOR}.x")
        _prototypes(self.cdll)
        self.abi = (major, minor)
        c = self.cdll
        # Bound once: these run on every call.
        self._complete = c.polymcp_call_complete
        self._fail = c.polymcp_call_fail
        self._fail_data = getattr(c, "polymcp_call_fail_data", None)  # ABI 1.2
        self._complete_text = getattr(c, "polymcp_call_complete_text", None)  # ABI 1.3
        self._progress = c.polymcp_call_progress
        self._log = c.polymcp_call_log

    @property
    def version(self) -> str:
        raw: bytes = self.cdll.polymcp_version()
        return raw.decode()

    def has(self, name: str) -> bool:
        return hasattr(self.cdll, name)

    def last_error(self) -> str:
        """The calling thread's last error message (empty when none)."""
        msg, size = c_char_p(), c_size_t()
        self.cdll.polymcp_last_error(byref(msg), byref(size))
        return (msg.value or b"")[: size.value].decode("utf-8", "replace")

    def error(self, status: int, what: str) -> NativeError:
        text = self.last_error()
        return NativeError(status, f"{what}: {text or 'error ' + str(status)}")

    def check(self, status: int, what: str) -> None:
        if status != OK:
            raise self.error(status, what)

    def take(self, fn: Callable[..., int], what: str, *args: Any) -> bytes:
        """Calls fn(*args, &buf, &len) and returns the buffer, freed."""
        buf, size = c_void_p(), c_size_t()
        self.check(fn(*args, byref(buf), byref(size)), what)
        try:
            return ctypes.string_at(buf, size.value) if buf.value else b""
        finally:
            self.cdll.polymcp_free(buf)

    def configure(self, options: bytes) -> None:
        self.check(self.cdll.polymcp_configure(options, len(options)), "polymcp_configure")

    def stats(self) -> bytes:
        return self.take(self.cdll.polymcp_stats, "polymcp_stats")

    def server_new(self, options: bytes, key: int, target: Handlers) -> int:
        cb = ServerCallbacks(ctypes.sizeof(ServerCallbacks), c_void_p(key), *_CALLBACKS)
        out = c_uint64()
        _targets[key] = target
        status = self.cdll.polymcp_server_new(options, len(options), byref(cb), byref(out))
        if status != OK:
            _targets.pop(key, None)
            raise self.error(status, "polymcp_server_new")
        return int(out.value)

    def session_open(self, server: int, options: bytes, send: Callable[[bytes], None]) -> int:
        key = new_key()
        _senders[key] = send
        out = c_uint64()
        status = self.cdll.polymcp_session_open(server, options, len(options), _SEND,
                                                c_void_p(key), byref(out))
        if status != OK:
            _senders.pop(key, None)
            raise self.error(status, "polymcp_session_open")
        _session_keys[int(out.value)] = key
        return int(out.value)

    def session_close(self, session: int) -> None:
        status = self.cdll.polymcp_session_close(session)
        self.forget_session(session)  # send is never called again once close returned
        self.check(status, "polymcp_session_close")

    def forget_session(self, session: int) -> None:
        """Drops a session's send callback (after it closed, or its server did)."""
        key = _session_keys.pop(session, None)
        if key is not None:
            _senders.pop(key, None)

    def server_http(self, server: int, request: bytes, body: bytes, target: HTTPTarget) -> int:
        """Starts one host-owned HTTP exchange; target gets its response
        (maybe before this returns). Returns the exchange's handle."""
        if not self.has("polymcp_server_http"):
            raise NativeError(E_INVALID, f"polymcp: libpolymcp ABI {self.abi[0]}.{self.abi[1]} has "
                                         "no host-owned HTTP (polymcp_server_http)")
        key = new_key()
        cb = HTTPCallbacks(ctypes.sizeof(HTTPCallbacks), c_void_p(key), *_HTTP_CALLBACKS)
        out = c_uint64()
        _exchanges[key] = target
        status = self.cdll.polymcp_server_http(server, request, len(request), body, len(body),
                                               byref(cb), byref(out))
        if status != OK:
            _exchanges.pop(key, None)
            raise self.error(status, "polymcp_server_http")
        return int(out.value)

    def http_cancel(self, exchange: int) -> int:
        """The exchange's client went away; E_UNKNOWN_CALL once it ended."""
        status: int = self.cdll.polymcp_http_cancel(exchange)
        return status

    # NativeCalls for the bridge: statuses, never exceptions.
    def complete(self, call: int, result: bytes) -> int:
        status: int = self._complete(call, result, len(result))
        return status

    def complete_text(self, call: int, text: bytes) -> int:
        """polymcp_call_complete_text (ABI 1.3); E_INVALID from an older library."""
        if self._complete_text is None:
            return E_INVALID
        status: int = self._complete_text(call, text, len(text))
        return status

    def fail(self, call: int, code: int, message: bytes, data: bytes | None = None) -> int:
        """polymcp_call_fail, or polymcp_call_fail_data when there is data
        (JSON) and the library has it (ABI 1.2); an older library drops the
        data rather than the error."""
        status: int
        if data is not None and self._fail_data is not None:
            status = self._fail_data(call, code, message, len(message), data, len(data))
        else:
            status = self._fail(call, code, message, len(message))
        return status

    def progress(self, call: int, payload: bytes) -> int:
        status: int = self._progress(call, payload, len(payload))
        return status

    def log(self, call: int, payload: bytes) -> int:
        status: int = self._log(call, payload, len(payload))
        return status

    def info(self, call: int) -> bytes | None:
        try:
            return self.take(self.cdll.polymcp_call_info, "polymcp_call_info", c_uint64(call))
        except NativeError:
            return None

    def has_input(self) -> bool:
        return self.has("polymcp_call_input")

    def input(self, call: int, requests: bytes) -> tuple[int, bytes]:
        """Asks the client (polymcp_call_input; blocks on the legacy
        revisions): the status and, on OK, the answers by key, or else the
        library's message."""
        buf, size = c_void_p(), c_size_t()
        status: int = self.cdll.polymcp_call_input(c_uint64(call), requests, len(requests),
                                                   byref(buf), byref(size))
        if status != OK:
            # The library's own message: a tool shows it as its error result.
            text = self.last_error() or f"polymcp_call_input: error {status}"
            return status, text.encode()
        try:
            return status, ctypes.string_at(buf, size.value) if buf.value else b""
        finally:
            self.cdll.polymcp_free(buf)

    def start_task(self, call: int) -> tuple[int, str]:
        """polymcp_call_start_task: the status and, unless OK, the library's
        message (read here, on the thread that failed)."""
        status: int = self.cdll.polymcp_call_start_task(c_uint64(call))
        if status == OK:
            return status, ""
        return status, self.last_error() or f"polymcp_call_start_task: error {status}"

    def cancelled(self, call: int) -> bool:
        """polymcp_call_cancelled (ABI 1.5): whether the call's context has
        ended while the handler still runs (False once the call is over, or
        with an older library)."""
        fn = getattr(self.cdll, "polymcp_call_cancelled", None)
        return fn is not None and fn(c_uint64(call)) == 1

    def has_input_state(self) -> bool:
        return self.has("polymcp_call_set_input_state")

    def input_state(self, call: int) -> bytes:
        """polymcp_call_input_state: the state kept in an earlier round (b"" when none)."""
        buf, size = c_void_p(), c_size_t()
        if self.cdll.polymcp_call_input_state(c_uint64(call), byref(buf), byref(size)) != OK:
            return b""
        try:
            return ctypes.string_at(buf, size.value) if buf.value and size.value else b""
        finally:
            self.cdll.polymcp_free(buf)

    def set_input_state(self, call: int, state: bytes) -> int:
        status: int = self.cdll.polymcp_call_set_input_state(c_uint64(call), state, len(state))
        return status

    # ---- the client (ABI 1.8) ----------------------------------------------

    def has_client(self) -> bool:
        return self.has("polymcp_client_connect")

    def client_connect(self, options: bytes, target: ClientTarget, tag: int) -> tuple[int, int]:
        """Starts connecting (polymcp_client_connect); returns the client's
        handle and its callbacks' user key. The outcome comes to
        target.on_response(tag, ...)."""
        if not self.has_client():
            raise NativeError(E_INVALID, f"polymcp: {self.path} has ABI {self.abi[0]}.{self.abi[1]}"
                                         "; polymcp.Client needs libpolymcp ABI 1.8 or later "
                                         "(polymcp_client_connect)")
        key = new_key()
        cb = ClientCallbacks(ctypes.sizeof(ClientCallbacks), c_void_p(key), *_CLIENT_CALLBACKS)
        out = c_uint64()
        _clients[key] = target
        status = self.cdll.polymcp_client_connect(options, len(options), byref(cb), c_uint64(tag),
                                                  byref(out))
        if status != OK:
            _clients.pop(key, None)
            raise self.error(status, "polymcp_client_connect")
        return int(out.value), key

    def client_request(self, client: int, method: bytes, params: bytes, opts: bytes,
                       tag: int) -> tuple[int, str]:
        """polymcp_client_request: the status and, unless OK, the library's message."""
        # Plain ints: argtypes convert them (no c_uint64 objects per call).
        status: int = self.cdll.polymcp_client_request(client, method, len(method),
                                                       params, len(params), opts, len(opts), tag)
        if status == OK:
            return status, ""
        return status, self.last_error() or f"polymcp_client_request: error {status}"

    def client_cancel(self, client: int, tag: int) -> int:
        status: int = self.cdll.polymcp_client_cancel(c_uint64(client), c_uint64(tag))
        return status

    def client_answer(self, question: int, result: bytes) -> tuple[int, str]:
        status: int = self.cdll.polymcp_client_answer(c_uint64(question), result, len(result))
        if status == OK:
            return status, ""
        return status, self.last_error() or f"polymcp_client_answer: error {status}"

    def client_answer_error(self, question: int, code: int, message: bytes) -> int:
        status: int = self.cdll.polymcp_client_answer_error(c_uint64(question), code, message,
                                                            len(message))
        return status

    def client_close(self, client: int) -> int:
        status: int = self.cdll.polymcp_client_close(c_uint64(client))
        return status

    def client_free(self, client: int) -> int:
        status: int = self.cdll.polymcp_client_free(c_uint64(client))
        return status

    def forget_client(self, key: int) -> None:
        """Drops a client's target when on_closed can no longer come."""
        _clients.pop(key, None)


_session_keys: dict[int, int] = {}
_lock = threading.Lock()
_library: Library | None = None


def _candidates() -> list[Path]:
    here = Path(__file__).resolve().parent
    # Installed: next to this file. From a checkout (editable install, tests):
    # the repository's build/ directory, as `make build` leaves it.
    return [here / _NAME, here.parent.parent.parent.parent / "build" / _NAME]


def load_library(path: str | Path | None = None) -> Library:
    """Loads libpolymcp once per process: from ``path`` when given (before
    the first server starts), else from the package directory, else from
    the checkout's build/ directory."""
    global _library
    with _lock:
        if _library is not None:
            if path is not None and Path(path).resolve() != _library.path.resolve():
                raise NativeError(E_INVALID, f"polymcp: {_library.path} is already loaded")
            return _library
        tried = [Path(path)] if path is not None else _candidates()
        for candidate in tried:
            if candidate.is_file():
                _library = Library(candidate)
                return _library
        raise NativeError(E_INVALID, "polymcp: libpolymcp.so not found (looked in "
                          + ", ".join(str(p) for p in tried) + "); reinstall the package or "
                          "run `make build-capi`")


def library() -> Library:
    return load_library()


def configure(*, gc_percent: int | None = None, memory_limit_bytes: int | None = None,
              max_procs: int | None = None, log_level: str | None = None) -> None:
    """Process-wide settings of the native library (polymcp_configure):
    the Go collector's ``gc_percent`` (GOGC; default 200 unless GOGC is
    set, -1 for off), its soft ``memory_limit_bytes`` (GOMEMLIMIT), the
    Go threads running at once (``max_procs``) and the native log
    threshold (``"debug"``, ``"info"``, ``"warn"``, ``"error"``). Only the
    settings given change; a refused one raises NativeError and changes
    nothing."""
    settings = {"gc_percent": gc_percent, "memory_limit_bytes": memory_limit_bytes,
                "max_procs": max_procs, "log_level": log_level}
    given = {k: v for k, v in settings.items() if v is not None}
    library().configure(json.dumps(given).encode())

