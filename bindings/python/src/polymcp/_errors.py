"""Errors a handler raises to choose its answer.

A :class:`ToolError` (or any other exception) raised by a tool becomes an
``isError: true`` result carrying only the message, so the model can read
it; an :class:`McpError` becomes a JSON-RPC error with its code instead.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "INTERNAL_ERROR",
    "INVALID_PARAMS",
    "InputRequiredUnsupported",
    "McpError",
    "NativeError",
    "ToolError",
    "error_message",
]

#: JSON-RPC error codes a handler is most likely to need.
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603


class ToolError(Exception):
    """A deliberate tool failure: the client gets ``isError: true`` and the message."""


class McpError(Exception):
    """Answered as a JSON-RPC error with this code, message and optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        if isinstance(code, bool) or not isinstance(code, int):
            raise TypeError(f"McpError code must be an int, got {code!r}")
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class NativeError(RuntimeError):
    """The native library refused a call; ``status`` is the POLYMCP_E_* code."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class InputRequiredUnsupported(McpError):
    """Raised by ``Context.elicit``/``sample``/``roots`` while the core cannot
    carry input-required outcomes; the request is answered with an internal error."""

    def __init__(self, what: str) -> None:
        super().__init__(INTERNAL_ERROR, f"{what} is not supported by this server yet")


def error_message(err: BaseException) -> str:
    """The text the client sees for a failure: the message, never a traceback."""
    text = str(err)
    return text if text else type(err).__name__
