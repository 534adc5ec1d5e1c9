"""Calls from the core to Python handlers, whatever carries them.

``on_call`` and ``on_cancel`` run on the core's threads. A sync handler
runs right there and its answer is sent before on_call returns (no event
loop, no thread hop: the fast path). An async handler becomes a Task on
the binding's loop (or the caller's); cancelling the call cancels the Task
and nothing is answered.

A sync handler of a tool registered with task support runs on a thread of
its own instead: a task is long work, which must not hold one of the
core's callback threads. The core reports a cancellation (tasks/cancel
among them) with on_cancel only once on_call has returned; a sync handler
still inside on_call sees it through ``ctx.cancelled``, which then asks the
core (polymcp_call_cancelled).
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections import deque
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

from ._context import Context, InputRequired
from ._convert import decode_params, dumps, single_text
from ._errors import INVALID_PARAMS, McpError, error_message
from ._handlers import Entry, Outcome
from ._jsonable import to_jsonable
from ._native import E_INVALID
from ._registry import Registry

__all__ = ["Bridge", "NativeCalls"]

#: polymcp_call_fail's code for "a handler failure" (isError for tools, -32603 otherwise).
HANDLER_FAILURE = 0


class NativeCalls(Protocol):
    """The call half of the native library; every method may be called from
    any thread and returns a POLYMCP status (0 is OK)."""

    def complete(self, call: int, result: bytes) -> int: ...

    def complete_text(self, call: int, text: bytes) -> int:
        """polymcp_call_complete_text; E_INVALID when the library lacks it."""
        ...

    def fail(self, call: int, code: int, message: bytes, data: bytes | None = None) -> int: ...

    def progress(self, call: int, payload: bytes) -> int: ...

    def log(self, call: int, payload: bytes) -> int: ...

    def info(self, call: int) -> bytes | None: ...

    def has_input(self) -> bool: ...

    def input(self, call: int, requests: bytes) -> tuple[int, bytes]: ...

    def start_task(self, call: int) -> tuple[int, str]:
        """polymcp_call_start_task: the status and, unless OK, the message."""
        ...

    def cancelled(self, call: int) -> bool:
        """polymcp_call_cancelled: the call's context ended while it runs."""
        ...

    def has_input_state(self) -> bool: ...

    def input_state(self, call: int) -> bytes: ...

    def set_input_state(self, call: int, state: bytes) -> int: ...


class _Pending:
    """One call in flight; it is also the CallPort of the call's Context."""

    __slots__ = ("calls", "call", "tag", "ctx", "task", "cancelled", "task_support")

    def __init__(self, calls: NativeCalls, call: int, tag: int = 0) -> None:
        self.calls = calls
        self.call = call
        self.tag = tag
        self.ctx: Context | None = None
        self.task: asyncio.Task[Any] | None = None  # the asyncio task of an async handler
        self.cancelled = False
        # The call is of a tool registered with task support: it is, or may
        # become, an MCP task (whose questions wait for tasks/update).
        self.task_support = False

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        payload: dict[str, Any] = {"progress": progress}
        if total is not None:
            payload["total"] = total
        if message:
            payload["message"] = message
        self.calls.progress(self.call, dumps(payload).encode())

    def log(self, level: str, data: Any, logger: str | None) -> None:
        payload: dict[str, Any] = {"level": level, "data": to_jsonable(data)}
        if logger:
            payload["logger"] = logger
        self.calls.log(self.call, dumps(payload).encode())

    def info(self) -> dict[str, Any]:
        raw = self.calls.info(self.call)
        if not raw:
            return {}
        value = json.loads(raw)
        return value if isinstance(value, dict) else {}

    def supports_input(self) -> bool:
        return self.calls.has_input()

    def ask(self, requests: dict[str, dict[str, Any]]) -> tuple[int, bytes]:
        return self.calls.input(self.call, dumps(requests).encode())

    def may_be_task(self) -> bool:
        return self.task_support

    def start_task(self) -> tuple[int, str]:
        return self.calls.start_task(self.call)

    def ended(self) -> bool:
        return self.calls.cancelled(self.call)

    def input_state(self) -> bytes:
        return self.calls.input_state(self.call) if self.calls.has_input_state() else b""

    def set_input_state(self, state: bytes) -> bool:
        if not self.calls.has_input_state():
            return False
        self.calls.set_input_state(self.call, state)
        return True


class Bridge:
    """Answers the calls of one native server from a Registry."""

    def __init__(self, registry: Registry, calls: NativeCalls,
                 loop: Callable[[], asyncio.AbstractEventLoop]) -> None:
        self._registry = registry
        self._calls = calls
        self._loop_source = loop
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: dict[int, _Pending] = {}
        # Async calls on their way to the loop, and whether a drain is due.
        self._queue: deque[tuple[_Pending, Coroutine[Any, Any, dict[str, Any]] | bytes]] = deque()
        self._armed = False

    @property
    def in_flight(self) -> int:
        return len(self._pending)

    def on_call(self, call: int, kind: int, tag: int, params: bytes) -> None:
        """Never raises: every failure is answered on the call."""
        pending = _Pending(self._calls, call, tag)
        entry = self._registry.entries.get(tag)
        if entry is not None and entry.is_async and entry.kind == kind:
            # Only queued here: decoding and binding run on the loop's
            # thread, so this Go thread holds the GIL as briefly as it can.
            self._pending[call] = pending
            self._schedule(pending, params)
            return
        if entry is not None and entry.kind == kind and getattr(entry, "task", None) is not None:
            self._pending[call] = pending
            try:
                threading.Thread(target=self._answer_sync, args=(pending, entry, kind, params),
                                 name="polymcp-task", daemon=True).start()
                return
            except RuntimeError:
                pass  # no thread to be had (interpreter exit): answer right here
        self._answer_sync(pending, entry, kind, params)

    def _answer_sync(self, pending: _Pending, entry: Entry | None, kind: int,
                     params: bytes) -> None:
        """Runs a sync handler to its answer (or to the coroutine it returned,
        which goes to the loop), on the calling thread."""
        call = pending.call
        try:
            args = decode_params(params)
            if entry is None or entry.kind != kind:
                raise McpError(INVALID_PARAMS, f"{_what(args)} is no longer registered")
            self._pending[call] = pending
            outcome = self._run(pending, entry, args)
        except BaseException as err:  # noqa: BLE001 - a callback must not raise
            self._pending.pop(call, None)
            self._fail(call, err)
            return
        if isinstance(outcome, dict):
            self._pending.pop(call, None)
            self._complete(call, outcome)
        else:
            self._schedule(pending, outcome)

    def _run(self, pending: _Pending, entry: Entry, args: dict[str, Any]) -> Outcome:
        ctx = Context(pending, args.get("_meta"), args.get("revision"), args.get("inputResponses"))
        pending.ctx = ctx
        pending.task_support = getattr(entry, "task", None) is not None
        if pending.cancelled:
            ctx._cancel()
        return entry.run(args, ctx)

    def on_cancel(self, call: int) -> None:
        pending = self._pending.get(call)
        if pending is None:
            return
        pending.cancelled = True
        if pending.ctx is not None:
            pending.ctx._cancel()
        loop = self._loop
        if loop is not None and not loop.is_closed():
            # A call still queued is dropped by _start (pending.cancelled);
            # a started one has its task cancelled here.
            loop.call_soon_threadsafe(_cancel_task, pending)

    def _schedule(self, pending: _Pending, work: Coroutine[Any, Any, dict[str, Any]] | bytes) -> None:
        """Queues work for the loop: a coroutine, or the params of an async
        entry's call, still to be decoded there. The loop is woken
        (call_soon_threadsafe: a lock and a self-pipe write) only when no
        drain is due yet, so calls arriving together cost one wakeup."""
        self._queue.append((pending, work))
        loop = self._loop
        if self._armed and loop is not None and not loop.is_closed():
            return
        self._armed = True
        try:
            if loop is None or loop.is_closed():
                loop = self._loop = self._loop_source()
            loop.call_soon_threadsafe(self._drain)
        except BaseException as err:  # noqa: BLE001 - the loop is gone: answer anyway
            self._armed = False
            self._abandon(err)

    def _abandon(self, err: BaseException) -> None:
        """Answers every queued call with err (no loop to run them on)."""
        while True:
            try:
                pending, work = self._queue.popleft()
            except IndexError:
                return
            if not isinstance(work, bytes):
                work.close()
            self._pending.pop(pending.call, None)
            self._fail(pending.call, err)

    def _drain(self) -> None:
        # Disarmed before popping: a call queued after the last pop sees
        # _armed false and schedules the next drain itself.
        self._armed = False
        queue = self._queue
        while queue:
            pending, work = queue.popleft()
            if isinstance(work, bytes):
                self._begin(pending, work)
            else:
                self._start(pending, work)

    def _begin(self, pending: _Pending, params: bytes) -> None:
        """Starts a queued async call, on the loop's thread."""
        if pending.cancelled:
            self._pending.pop(pending.call, None)
            return
        pending.task = asyncio.get_running_loop().create_task(self._answer(pending, params))

    async def _answer(self, pending: _Pending, params: bytes) -> None:
        """Runs a queued async call to its answer: decoding, binding, the
        handler, then complete or fail from inside the task (no done
        callback, no extra turn of the loop)."""
        call = pending.call
        try:
            args = decode_params(params)
            entry = self._registry.entries.get(pending.tag)
            if entry is None:
                raise McpError(INVALID_PARAMS, f"{_what(args)} is no longer registered")
            outcome = self._run(pending, entry, args)
            result = outcome if isinstance(outcome, dict) else await outcome
        except asyncio.CancelledError:
            self._pending.pop(call, None)
            if not pending.cancelled:  # the handler cancelled itself: still answer once
                self._fail(call, McpError(HANDLER_FAILURE, "the handler was cancelled"))
            raise
        except BaseException as err:  # noqa: BLE001 - answered on the call
            self._pending.pop(call, None)
            self._fail(call, err)
            return
        self._pending.pop(call, None)
        self._complete(call, result)

    def _start(self, pending: _Pending, coro: Coroutine[Any, Any, dict[str, Any]]) -> None:
        if pending.cancelled:
            coro.close()
            self._pending.pop(pending.call, None)
            return
        task = asyncio.get_running_loop().create_task(coro)
        pending.task = task
        task.add_done_callback(lambda t: self._finished(pending, t))

    def _finished(self, pending: _Pending, task: asyncio.Task[dict[str, Any]]) -> None:
        self._pending.pop(pending.call, None)
        if task.cancelled():
            if not pending.cancelled:  # the handler cancelled itself: still answer once
                self._fail(pending.call, McpError(HANDLER_FAILURE, "the handler was cancelled"))
            return
        err = task.exception()
        if err is not None:
            self._fail(pending.call, err)
        else:
            self._complete(pending.call, task.result())

    def _complete(self, call: int, result: dict[str, Any]) -> None:
        text = single_text(result)
        if text is not None and self._calls.complete_text(call, text) != E_INVALID:
            return
        # Not one text item (or a library before ABI 1.3): the result's JSON.
        try:
            body = dumps(result).encode()
        except (TypeError, ValueError) as err:
            self._fail(call, err)
            return
        self._calls.complete(call, body)

    def _fail(self, call: int, err: BaseException) -> None:
        data: bytes | None = None
        if isinstance(err, McpError):
            code, message = err.code, err.message
            if err.data is not None:
                try:
                    data = dumps(to_jsonable(err.data)).encode()
                except (TypeError, ValueError):
                    data = None  # data that is not JSON: the error still goes
        elif isinstance(err, InputRequired):
            return  # the core has answered the call (input_required, or -32021)
        else:
            code, message = HANDLER_FAILURE, error_message(err)
        if self._calls.fail(call, code, message.encode(), data) == E_INVALID and data is not None:
            # No JSON-RPC error to carry it (code 0 on a tool is an isError
            # result, a resource's -32002 is the revision's not-found).
            self._calls.fail(call, code, message.encode())


def _cancel_task(pending: _Pending) -> None:
    if pending.task is not None:
        pending.task.cancel()


def _what(args: Any) -> str:
    if isinstance(args, dict):
        for key in ("name", "uri"):
            if isinstance(args.get(key), str):
                return repr(args[key])
    return "the handler"
