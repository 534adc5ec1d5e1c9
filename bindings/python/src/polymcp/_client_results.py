"""What ``polymcp.Client`` gets and gives back as JSON: a tools/call result
(CallToolResult), the library's error bodies as exceptions, and the
answers to the server's questions (sampling, elicitation, roots) made from
what a handler returned."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._client_types import JSON
from ._errors import (ClientClosed, ClientError, McpError, OutputValidationError,
                      RequestCancelled, RequestTimeout, TransportError)
from ._jsonable import to_jsonable
from ._native import E_CANCELLED, E_CLOSED, E_IO, E_OUTPUT, E_RPC, E_TIMEOUT

__all__ = [
    "SAMPLING_MODEL",
    "CallToolResult",
    "_elicitation_result",
    "_error",
    "_is_wrapper",
    "_object",
    "_roots_result",
    "_sampling_result",
]

#: The model name given to a sampling answer made from a plain str.
SAMPLING_MODEL = "polymcp-client"


@dataclass
class CallToolResult:
    """A tools/call result. ``content`` holds the protocol's content items
    (dicts with ``type``, ``text``, ``data``, ...), ``structured_content``
    the ``structuredContent`` object, ``raw`` the whole result as received."""

    content: list[JSON] = field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False
    meta: JSON | None = None
    raw: JSON = field(default_factory=dict, repr=False)
    #: The listed outputSchema wraps a non-object return in {"result": ...}.
    wrapped: bool = field(default=False, repr=False)

    @property
    def data(self) -> Any:
        """The structured result: ``structuredContent``, unwrapped from
        ``{"result": x}`` when the tool's listed outputSchema is that
        wrapper (a polymcp or FastMCP tool returning a non-object); None
        when the result has no structured content."""
        sc = self.structured_content
        if self.wrapped and isinstance(sc, dict) and set(sc) == {"result"}:
            return sc["result"]
        return sc

    @property
    def text(self) -> str:
        """The text of the result's text items, joined by newlines."""
        return "\n".join(str(c.get("text", "")) for c in self.content if c.get("type") == "text")

    @classmethod
    def from_json(cls, raw: JSON, wrapped: bool = False) -> CallToolResult:
        content = raw.get("content")
        meta = raw.get("_meta")
        return cls(content=list(content) if isinstance(content, list) else [],
                   structured_content=raw.get("structuredContent"),
                   is_error=bool(raw.get("isError", False)),
                   meta=meta if isinstance(meta, dict) else None, raw=raw, wrapped=wrapped)



def _object(data: bytes) -> JSON:
    try:
        value = json.loads(data) if data else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _is_wrapper(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return False
    props = schema.get("properties")
    return isinstance(props, dict) and set(props) == {"result"} and \
        schema.get("required") == ["result"]


def _error(rc: int, data: bytes) -> Exception:
    """The exception of a library status rc and its error object, as JSON."""
    return _error_of(rc, _object(data))


def _error_of(rc: int, body: JSON) -> Exception:
    """The exception of a library status rc and its error object."""
    message = str(body.get("message") or f"polymcp client error {rc}")
    if rc == E_RPC:
        code = body.get("code")
        return McpError(code if isinstance(code, int) and not isinstance(code, bool) else -32603,
                        message, body.get("data"))
    if rc == E_OUTPUT:
        return OutputValidationError(rc, message, body.get("data"))
    kinds: dict[int, type[ClientError]] = {E_TIMEOUT: RequestTimeout, E_CLOSED: ClientClosed,
                                           E_IO: TransportError, E_CANCELLED: RequestCancelled}
    return kinds.get(rc, ClientError)(rc, message)


def _sampling_result(value: Any) -> JSON:
    if isinstance(value, str):
        return {"role": "assistant", "content": {"type": "text", "text": value},
                "model": SAMPLING_MODEL, "stopReason": "endTurn"}
    to_json = getattr(value, "to_json", None)
    if callable(to_json):  # a polymcp content item: the answer's content
        return {"role": "assistant", "content": to_json(), "model": SAMPLING_MODEL,
                "stopReason": "endTurn"}
    out = to_jsonable(value)
    if not isinstance(out, dict):
        raise TypeError(f"a sampling handler returns a str or a CreateMessageResult dict, "
                        f"not {type(value).__name__}")
    return out


def _elicitation_result(value: Any) -> JSON:
    if value is None:
        return {"action": "decline"}
    out = to_jsonable(value)
    if not isinstance(out, dict):
        raise TypeError(f"an elicitation handler returns a dict (an ElicitResult, or the content "
                        f"to accept) or None, not {type(value).__name__}")
    if out.get("action") in ("accept", "decline", "cancel"):
        return out
    return {"action": "accept", "content": out}



def _roots_result(value: Any) -> JSON:
    roots: list[JSON] = []
    for item in value or []:
        if isinstance(item, Path) or isinstance(item, str) and "://" not in item:
            roots.append({"uri": Path(item).resolve().as_uri()})
        elif isinstance(item, str):
            roots.append({"uri": item})
        elif isinstance(item, Mapping):
            roots.append(dict(item))
        else:
            raise TypeError(f"a root is a URI, a path or a Root dict, not {type(item).__name__}")
    return {"roots": roots}
