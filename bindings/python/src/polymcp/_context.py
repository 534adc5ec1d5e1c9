"""The ``Context`` a handler asks for by annotating a parameter with it.

Progress and log messages are handed to the core without blocking, so the
methods work the same from ``def`` and ``async def`` handlers: they send at
once and return an awaitable that is already done (``await`` it or not).
"""

from __future__ import annotations

import asyncio
import json
import math
import threading
from collections.abc import Callable, Generator
from typing import Any, Literal, Protocol, TypeVar

from ._errors import (INTERNAL_ERROR, INVALID_PARAMS, InputRequiredUnsupported, McpError,
                      NativeError, ToolError)
from ._native import E_CANCELLED, E_CAPABILITY, E_INPUT_REQUIRED, E_INVALID, E_LIMIT, OK

__all__ = ["CallPort", "Context", "InputRequired", "LogLevel", "LOG_LEVELS"]

LogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
LOG_LEVELS: tuple[str, ...] = ("debug", "info", "notice", "warning", "error", "critical", "alert",
                               "emergency")


class CallPort(Protocol):
    """What a Context needs from the call it belongs to. Each method may be
    called from any thread and must not block."""

    def progress(self, progress: float, total: float | None, message: str | None) -> None: ...

    def log(self, level: str, data: Any, logger: str | None) -> None: ...

    def info(self) -> dict[str, Any]:
        """The call's request details: ``method``, ``revision``, ``_meta``,
        ``clientInfo``, ``clientCapabilities`` (those the core knows)."""
        ...

    def supports_input(self) -> bool:
        """Whether the core can carry input-required outcomes for this call."""
        ...

    def ask(self, requests: dict[str, dict[str, Any]]) -> tuple[int, bytes]:
        """polymcp_call_input: the status and the answers (or the message).
        The one method that may block: on the revisions before 2026-07-28,
        and inside a task (until the client's tasks/update)."""
        ...

    def may_be_task(self) -> bool:
        """Whether the call is of a tool registered with task support, so that
        it is or may become a task, whose questions wait for tasks/update."""
        ...

    def start_task(self) -> tuple[int, str]:
        """polymcp_call_start_task: the status and, unless OK, the message."""
        ...

    def ended(self) -> bool:
        """Whether the core has ended the call (cancel, deadline, close)
        while the handler still runs."""
        ...

    def input_state(self) -> bytes:
        """polymcp_call_input_state (b"" when none, or when the core has no input state)."""
        ...

    def set_input_state(self, state: bytes) -> bool:
        """polymcp_call_set_input_state; False when the core has no input state."""
        ...


#: The client capability an input request of each method needs.
_CAPABILITIES = {"elicitation/create": "elicitation", "sampling/createMessage": "sampling",
                 "roots/list": "roots"}


class InputRequired(BaseException):
    """Raised inside a handler by ``elicit``/``sample``/``roots`` when the
    answer is not there yet. The binding turns it into the core's
    input-required outcome (MRTR on 2026-07-28, real server-to-client
    requests on older revisions); the core invokes the handler again with
    the answers, and the same call then returns instead of raising. It is a
    BaseException so that a handler's ``except Exception`` does not swallow it.
    """

    def __init__(self, requests: dict[str, dict[str, Any]]) -> None:
        super().__init__(sorted(requests))
        self.requests = requests


class Sent:
    """An awaitable that is already complete: the message went out when the
    method was called."""

    __slots__ = ()

    def __await__(self) -> Generator[Any, None, None]:
        return
        yield  # pragma: no cover - makes this a generator

    def __repr__(self) -> str:
        return "<sent>"


_SENT = Sent()


class Context:
    """One request as its handler sees it.

    ``meta`` is the request's ``params._meta``; ``revision`` the protocol
    revision it speaks; ``cancelled`` turns true when the client cancels
    (async handlers are cancelled with CancelledError as well)."""

    __slots__ = ("_port", "_meta", "_revision", "_info", "_cancelled", "_responses", "_asked")

    def __init__(self, port: CallPort, meta: dict[str, Any] | None = None,
                 revision: str | None = None,
                 input_responses: dict[str, Any] | None = None) -> None:
        self._port = port
        self._meta = meta
        self._revision = revision
        self._info: dict[str, Any] | None = None
        self._cancelled = False
        self._responses = input_responses or {}
        self._asked = 0

    @property
    def meta(self) -> dict[str, Any]:
        if self._meta is None:
            meta = self._details().get("_meta")
            self._meta = meta if isinstance(meta, dict) else {}
        return self._meta

    @property
    def revision(self) -> str:
        if self._revision is None:
            self._revision = str(self._details().get("revision", ""))
        return self._revision

    @property
    def client_info(self) -> dict[str, Any]:
        """The client's name and version (empty when the core does not know them)."""
        info = self._details().get("clientInfo")
        return info if isinstance(info, dict) else {}

    @property
    def client_capabilities(self) -> dict[str, Any]:
        caps = self._details().get("clientCapabilities")
        return caps if isinstance(caps, dict) else {}

    def declared(self, method: str) -> bool:
        """Whether the client declared the capability an input request of
        ``method`` needs: ``"elicitation/create"`` (elicitation),
        ``"sampling/createMessage"`` (sampling) or ``"roots/list"`` (roots).
        Top level only; the core applies the finer rules (elicitation modes,
        sampling tools) when asked. Use it to ask only for what the client
        can answer: a kind it did not declare fails (-32021 on 2026-07-28)."""
        capability = _CAPABILITIES.get(method)
        return capability is not None and isinstance(self.client_capabilities.get(capability), dict)

    @property
    def input_state(self) -> bytes:
        """What this handler kept with :meth:`set_input_state`: in an
        earlier round of the same request on 2026-07-28 (it came back in
        requestState), or earlier in this run on the older revisions.
        ``b""`` when nothing was kept."""
        return self._port.input_state()

    def set_input_state(self, state: bytes | str) -> None:
        """Keeps state (a few KiB at most; a str is kept as UTF-8) for the
        request's next round. On 2026-07-28 it travels in requestState,
        signed but not encrypted: the client can read it, so keep no
        secrets in it."""
        data = state.encode() if isinstance(state, str) else bytes(state)
        if not self._port.set_input_state(data):
            raise InputRequiredUnsupported("input state")

    @property
    def progress_token(self) -> str | int | None:
        token = self.meta.get("progressToken")
        return token if isinstance(token, (str, int)) else None

    @property
    def cancelled(self) -> bool:
        """True once the client cancelled the call, its deadline passed, or
        the server closed. A sync handler of an ordinary tool runs inside
        the core's callback, before any cancel could be delivered to it, so
        it is asked of the core each time it is read: a loop that checks
        ``ctx.cancelled`` stops on a cancel."""
        if not self._cancelled and self._port.ended():
            self._cancelled = True
        return self._cancelled

    def start_task(self) -> bool:
        """Turns this call into a task (the 2026-07-28 tasks extension), for a
        tool registered with ``task_start="handler"``: the client gets its
        task handle now, and what the handler returns or raises from here on
        becomes the task's outcome, which the client reads with
        ``tasks/get``. Ask the questions the task cannot go without first
        (on 2026-07-28 they are answered by input_required rounds, which
        run the handler again from the start); questions asked afterwards
        wait for the client's ``tasks/update``. ``tasks/cancel`` cancels the
        handler as any cancellation does.

        True when the call is now a task (also when it was one already);
        False when it cannot become one, and then it goes on as an ordinary
        call: the tool has no task support, the revision is before
        2026-07-28, the request did not declare the extension, or the
        server's task limits (``max_tasks``, ``max_running_tasks``) are
        reached. Raises NativeError when the call is over (answered,
        cancelled, or the server closed)."""
        status, message = self._port.start_task()
        if status == OK:
            return True
        if status in (E_INVALID, E_LIMIT):
            return False
        raise NativeError(status, message)

    def _cancel(self) -> None:
        self._cancelled = True

    def _details(self) -> dict[str, Any]:
        if self._info is None:
            self._info = self._port.info()
        return self._info

    def report_progress(self, progress: float, total: float | None = None,
                        message: str | None = None) -> Sent:
        """Reports progress. The core sends it only when the client asked (a
        progressToken) and progress increases; otherwise it is dropped."""
        _finite("progress", progress)
        if total is not None:
            _finite("total", total)
        self._port.progress(float(progress), None if total is None else float(total), message)
        return _SENT

    def log(self, level: LogLevel, data: Any, logger: str | None = None) -> Sent:
        """Sends a log message about this request, if the client's level lets it through."""
        if level not in LOG_LEVELS:
            raise ValueError(f"unknown log level {level!r}; one of {', '.join(LOG_LEVELS)}")
        self._port.log(level, data, logger)
        return _SENT

    def debug(self, data: Any, logger: str | None = None) -> Sent:
        return self.log("debug", data, logger)

    def info(self, data: Any, logger: str | None = None) -> Sent:
        return self.log("info", data, logger)

    def warning(self, data: Any, logger: str | None = None) -> Sent:
        return self.log("warning", data, logger)

    def error(self, data: Any, logger: str | None = None) -> Sent:
        return self.log("error", data, logger)

    async def elicit(self, message: str, requested_schema: dict[str, Any], *,
                     key: str | None = None) -> dict[str, Any]:
        """Asks the user for input described by a flat object schema; returns
        ``{"action": "accept"|"decline"|"cancel", "content": {...}}``. key
        names the question in 2026-07-28's inputRequests (default: q0, q1, …
        in the order the handler asks)."""
        key, answer = await self._ask("elicitation/create",
                                 {"message": message, "requestedSchema": requested_schema}, key)
        if answer.get("action") not in ("accept", "decline", "cancel"):
            raise McpError(INVALID_PARAMS, f"{key}: the answer to elicitation/create "
                                           "has no valid action (accept, decline or cancel)")
        return dict(answer)

    async def sample(self, messages: list[dict[str, Any]], max_tokens: int, *,
                     key: str | None = None, **options: Any) -> dict[str, Any]:
        """Asks the client's model for a completion (sampling/createMessage)."""
        key, answer = await self._ask("sampling/createMessage",
                                 {"messages": messages, "maxTokens": max_tokens, **options}, key)
        if not answer.get("content"):
            raise McpError(INVALID_PARAMS, f"{key}: the answer to "
                                           "sampling/createMessage has no content")
        return dict(answer)

    async def roots(self, *, key: str | None = None) -> list[dict[str, Any]]:
        """The client's roots (roots/list)."""
        key, answer = await self._ask("roots/list", {}, key)
        roots = answer.get("roots")
        if not isinstance(roots, list):
            raise McpError(INVALID_PARAMS, f"{key}: the answer to roots/list has no roots array")
        return list(roots)

    async def ask(self, requests: dict[str, tuple[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
        """Asks several questions in one round: {key: (method, params)} ->
        {key: the client's result}. On 2026-07-28 they go out together in
        one input_required; before, one server-to-client request each."""
        if not requests:
            raise ValueError("ask needs at least one request")
        if not self._port.supports_input():
            raise InputRequiredUnsupported(next(iter(requests.values()))[0])
        asked = {k: {"method": m, "params": p} for k, (m, p) in requests.items()}
        answers = await self._send(asked)
        out: dict[str, dict[str, Any]] = {}
        for k, (method, _) in requests.items():
            answer = answers.get(k)
            if not isinstance(answer, dict):
                raise McpError(INTERNAL_ERROR, f"the client's answer to {method} is not an object")
            out[k] = answer
        return out

    async def _ask(self, method: str, params: dict[str, Any], key: str | None) -> tuple[str, dict[str, Any]]:
        # Questions are keyed by their order in the handler, which re-runs
        # from the start on each 2026-07-28 retry and so asks them in the
        # same order. The core answers from the retry's inputResponses, or
        # (older revisions) sends the request to the client and waits, which
        # blocks a thread: not the event loop's.
        if key is None:
            key = f"q{self._asked}"
        self._asked += 1
        return key, (await self.ask({key: (method, params)}))[key]

    async def _send(self, asked: dict[str, dict[str, Any]]) -> dict[str, Any]:
        # polymcp_call_input blocks before 2026-07-28 and inside a task, so
        # it never runs on the event loop. A call that is or may become a
        # task can wait for tasks/update as long as the task lives
        # (task_ttl_ms): it waits on a thread of its own rather than one of
        # the loop's default executor, which asyncio.to_thread and the
        # application share (the core bounds the tasks running at once:
        # max_running_tasks).
        if self._port.may_be_task():
            status, body = await _on_own_thread(self._port.ask, asked)
        else:
            status, body = await asyncio.to_thread(self._port.ask, asked)
        if status == 0:
            answers = json.loads(body)
            return answers if isinstance(answers, dict) else {}
        if status == E_INPUT_REQUIRED or (status == E_CAPABILITY and (self._revision or "") >= "2026-07-28"):
            # The call is over: the core answered input_required (or -32021).
            raise InputRequired(asked)
        if status == E_CANCELLED:
            raise asyncio.CancelledError()
        # Before 2026-07-28: the client refused, or did not declare the
        # capability; a tool answers that as an error result.
        raise ToolError(body.decode("utf-8", "replace"))


T = TypeVar("T")


def _on_own_thread(fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
    """fn(*args) on a new daemon thread, awaited on the running loop.
    Cancelling the future leaves the thread to finish on its own (a
    cancelled call's polymcp_call_input returns at once)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # cancelled meanwhile
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def run() -> None:
        value: Any = None
        error: BaseException | None = None
        try:
            value = fn(*args)
        except BaseException as err:  # noqa: BLE001 - handed to the awaiting coroutine
            error = err
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:
            pass  # the loop is closed: nobody awaits the answer any more

    threading.Thread(target=run, name="polymcp-task-input", daemon=True).start()
    return future


def _finite(name: str, value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
