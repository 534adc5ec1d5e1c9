"""Running entries without the native library: a CallPort that records."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

from polymcp import Context
from polymcp._handlers import Entry


class RecordingPort:
    """A CallPort that keeps what the handler sent."""

    def __init__(self, info: dict[str, Any] | None = None) -> None:
        self.sent: list[tuple[str, Any]] = []
        self._info = info or {}

    def progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.sent.append(("progress", (progress, total, message)))

    def log(self, level: str, data: Any, logger: str | None) -> None:
        self.sent.append(("log", (level, data, logger)))

    def info(self) -> dict[str, Any]:
        return self._info

    def supports_input(self) -> bool:
        return False

    def input_state(self) -> bytes:
        return b""

    def set_input_state(self, state: bytes) -> bool:
        return False

    def may_be_task(self) -> bool:
        return False

    def start_task(self) -> tuple[int, str]:
        return -1, "not a task tool"  # POLYMCP_E_INVALID: the call goes on as an ordinary one

    def ended(self) -> bool:
        return False


def answer(entry: Entry, params: dict[str, Any], port: RecordingPort | None = None) -> Any:
    """Runs one call to completion, awaiting async handlers."""
    ctx = Context(port or RecordingPort(), params.get("_meta"), params.get("revision"))
    outcome = entry.run(params, ctx)
    if inspect.iscoroutine(outcome):
        return asyncio.run(outcome)
    return outcome
