"""The bridge from the library's client callbacks, which arrive on Go
threads, to ``polymcp.Client`` on its event loop (``call_soon_threadsafe``
is the only thing a callback does besides copying its bytes)."""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ._client_types import JSON, ProgressHandler

if TYPE_CHECKING:
    from ._client import Client

__all__ = ["_Request", "_Target"]

log = logging.getLogger("polymcp.client")


class _Request:
    __slots__ = ("future", "progress")

    def __init__(self, future: asyncio.Future[JSON], progress: ProgressHandler | None) -> None:
        self.future = future
        self.progress = progress


class _Target:
    """The library's callbacks for one connection. Runs on Go threads: it
    copies nothing more than _native did and posts to the client's loop.

    Callbacks queue (a deque: appends are atomic) and the loop is woken
    only when no drain is scheduled yet, so calls in flight that end
    together cost one wake-up (call_soon_threadsafe writes to the loop's
    self-pipe) and one loop iteration, not one each. Order is kept."""

    __slots__ = ("client", "loop", "queue", "scheduled")

    def __init__(self, client: Client, loop: asyncio.AbstractEventLoop) -> None:
        self.client = client
        self.loop = loop
        self.queue: collections.deque[tuple[Callable[..., None], tuple[Any, ...]]] = \
            collections.deque()
        self.scheduled = False

    def _post(self, fn: Callable[..., None], *args: Any) -> None:
        self.queue.append((fn, args))
        if self.scheduled:
            return  # the drain scheduled will see it: it clears the flag before popping
        self.scheduled = True
        try:
            self.loop.call_soon_threadsafe(self._drain)
        except RuntimeError:
            pass  # the loop is closed: nobody is left to tell

    def _drain(self) -> None:
        self.scheduled = False
        queue = self.queue
        while queue:
            fn, args = queue.popleft()
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - the others still run
                log.exception("polymcp.Client: %r failed", fn)

    def on_response(self, tag: int, rc: int, data: bytes) -> None:
        self._post(self.client._on_response, tag, rc, data)

    def on_notification(self, method: str, params: bytes) -> None:
        self._post(self.client._on_notification, method, params)

    def on_progress(self, tag: int, params: bytes) -> None:
        self._post(self.client._on_progress, tag, params)

    def on_question(self, question: int, method: str, params: bytes) -> None:
        self._post(self.client._on_question, question, method, params)

    def on_question_cancel(self, question: int) -> None:
        self._post(self.client._on_question_cancel, question)

    def on_closed(self, rc: int, message: str) -> None:
        self._post(self.client._on_closed, self, rc, message)
