"""A JSON-RPC peer for the end-to-end tests: literal messages out, answers
collected by id (from a host-owned session or a subprocess's stdout)."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

WAIT = 30.0  # a failure bound only, never a timing assertion


def until_cancelled(ctx: Any, timeout: float = WAIT, poll: float = 0.001) -> bool:
    """Polls ctx.cancelled, as a sync handler that honours cancellation
    does, until it turns true or timeout passes; whether it did."""
    deadline = time.monotonic() + timeout
    while not ctx.cancelled and time.monotonic() < deadline:
        time.sleep(poll)
    return bool(ctx.cancelled)

INIT = (b'{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":'
        b'"2025-06-18","capabilities":{},"clientInfo":{"name":"pytest","version":"1"}}}')
INITIALIZED = b'{"jsonrpc":"2.0","method":"notifications/initialized"}'


class Peer:
    """Collects every message the server sends."""

    def __init__(self) -> None:
        self.answers: dict[Any, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self._cond = threading.Condition()

    def receive(self, raw: bytes) -> None:
        msg = json.loads(raw)
        with self._cond:
            if "id" in msg and ("result" in msg or "error" in msg):
                assert msg["id"] not in self.answers, f"answered twice: {msg}"
                self.answers[msg["id"]] = msg
            else:
                self.notifications.append(msg)
            self._cond.notify_all()

    def answer(self, id: Any, timeout: float = WAIT) -> dict[str, Any]:
        with self._cond:
            assert self._cond.wait_for(lambda: id in self.answers, timeout), f"no answer for {id!r}"
            return self.answers[id]

    def wait_for(self, predicate: Any, timeout: float = WAIT) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: predicate(self), timeout)

    def methods(self) -> list[str]:
        with self._cond:
            return [n.get("method", "") for n in self.notifications]
