"""Errors a handler raises to choose its answer.

A :class:`ToolError` (or any other exception) raised by a tool becomes an
``isError: true`` result carrying only the message, so the model can read
it; an :class:`McpError` becomes a JSON-RPC error with its code instead.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ClientClosed",
    "ClientError",
    "INTERNAL_ERROR",
    "OutputValidationError",
    "RequestCancelled",
    "RequestTimeout",
    "ToolCallError",
    "TransportError",
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


class ClientError(Exception):
    """A :class:`polymcp.Client` request failed on the client's side;
    ``status`` is the POLYMCP_E_* code. (A JSON-RPC error of the server is
    an :class:`McpError` instead.)"""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class ClientClosed(ClientError, ConnectionError):
    """The connection ended, or the client is closing or closed."""


class TransportError(ClientError, ConnectionError):
    """The transport failed: a refused connection, an HTTP status without
    an answer, a server command that would not start."""


class RequestTimeout(ClientError, TimeoutError):
    """The request's timeout passed (the server was told)."""


class RequestCancelled(ClientError):
    """The request was cancelled by the client (polymcp_client_cancel)."""


class OutputValidationError(ClientError, ValueError):
    """A tool's result does not match the outputSchema it listed;
    ``result`` is the result as received."""

    def __init__(self, status: int, message: str, result: Any = None) -> None:
        super().__init__(status, message)
        self.result = result


class ToolCallError(ToolError):
    """Raised by ``Client.call_tool`` for a result with ``isError: true``
    (unless ``raise_on_error=False``); ``result`` is the CallToolResult."""

    def __init__(self, message: str, result: Any = None) -> None:
        super().__init__(message)
        self.result = result


def error_message(err: BaseException) -> str:
    """The text the client sees for a failure: the message, never a traceback."""
    text = str(err)
    return text if text else type(err).__name__
