"""Content items and explicit results.

Handlers usually return plain values (see ``_convert``); these classes are
for what plain values cannot say: an image or audio clip, an embedded
resource, a result with ``isError`` or ``_meta``. Each has ``to_json``,
returning the wire form as a dict.
"""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeGuard, Union

__all__ = [
    "Audio",
    "Completion",
    "Content",
    "EmbeddedResource",
    "Image",
    "Message",
    "PromptResult",
    "ResourceContents",
    "ResourceLink",
    "Text",
    "ToolResult",
    "is_content",
]

Role = Literal["user", "assistant"]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _load(data: bytes | None, path: str | Path | None, kind: str) -> tuple[bytes, Path | None]:
    if (data is None) == (path is None):
        raise ValueError(f"{kind} needs exactly one of data or path")
    if path is not None:
        p = Path(path)
        return p.read_bytes(), p
    assert data is not None
    return data, None


def _guess(path: Path | None, default: str) -> str:
    if path is None:
        return default
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or default


@dataclass(frozen=True)
class Text:
    """A text content item."""

    text: str
    meta: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return _with_meta({"type": "text", "text": self.text}, self.meta)


class _Media:
    kind: str = ""
    default_mime: str = ""

    def __init__(self, data: bytes | None = None, *, path: str | Path | None = None,
                 mime_type: str | None = None) -> None:
        raw, p = _load(data, path, type(self).__name__)
        self.data = raw
        self.mime_type = mime_type or _guess(p, self.default_mime)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "data": _b64(self.data), "mimeType": self.mime_type}

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.data, self.mime_type) == (
            other.data, other.mime_type)

    def __hash__(self) -> int:
        return hash((type(self), self.data, self.mime_type))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({len(self.data)} bytes, mime_type={self.mime_type!r})"


class Image(_Media):
    """Image content from bytes or a file (``path``); the MIME type is guessed
    from the file name when not given."""

    kind = "image"
    default_mime = "image/png"


class Audio(_Media):
    """Audio content from bytes or a file (``path``)."""

    kind = "audio"
    default_mime = "audio/wav"


@dataclass(frozen=True)
class ResourceContents:
    """The contents of one resource: ``text`` or binary ``blob``."""

    uri: str
    text: str | None = None
    blob: bytes | None = None
    mime_type: str | None = None
    meta: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if (self.text is None) == (self.blob is None):
            raise ValueError("ResourceContents needs exactly one of text or blob")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri}
        if self.mime_type:
            out["mimeType"] = self.mime_type
        if self.blob is not None:
            out["blob"] = _b64(self.blob)
        else:
            out["text"] = self.text
        return _with_meta(out, self.meta)


@dataclass(frozen=True)
class EmbeddedResource:
    """A resource embedded in a tool result or prompt message."""

    resource: ResourceContents

    def to_json(self) -> dict[str, Any]:
        return {"type": "resource", "resource": self.resource.to_json()}


@dataclass(frozen=True)
class ResourceLink:
    """A link to a resource the client may read (``resource_link``)."""

    uri: str
    name: str
    title: str | None = None
    description: str | None = None
    mime_type: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "resource_link", "uri": self.uri, "name": self.name}
        for key, value in (("title", self.title), ("description", self.description),
                           ("mimeType", self.mime_type)):
            if value:
                out[key] = value
        return out


Content = Union[Text, Image, Audio, EmbeddedResource, ResourceLink]
CONTENT_TYPES: tuple[type, ...] = (Text, Image, Audio, EmbeddedResource, ResourceLink)


def is_content(value: object) -> TypeGuard[Content]:
    """Whether value is one of the content item classes."""
    return isinstance(value, CONTENT_TYPES)


@dataclass
class ToolResult:
    """An explicit tools/call result, sent as given."""

    content: list[Content] = field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False
    meta: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"content": [c.to_json() for c in self.content]}
        if self.structured_content is not None:
            out["structuredContent"] = self.structured_content
        if self.is_error:
            out["isError"] = True
        return _with_meta(out, self.meta)


@dataclass(frozen=True)
class Message:
    """One prompt message; ``content`` may be a str (text) or a content item."""

    content: Union[str, Content]
    role: Role = "user"

    def to_json(self) -> dict[str, Any]:
        item = Text(self.content) if isinstance(self.content, str) else self.content
        return {"role": self.role, "content": item.to_json()}


@dataclass
class PromptResult:
    """An explicit prompts/get result."""

    messages: list[Message]
    description: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"messages": [m.to_json() for m in self.messages]}
        if self.description:
            out["description"] = self.description
        return out


@dataclass
class Completion:
    """A completion/complete answer; a plain list of str is accepted too."""

    values: list[str]
    total: int | None = None
    has_more: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"values": list(self.values)}
        if self.total is not None:
            out["total"] = self.total
        if self.has_more:
            out["hasMore"] = True
        return out


def _with_meta(out: dict[str, Any], meta: dict[str, Any] | None) -> dict[str, Any]:
    if meta:
        out["_meta"] = meta
    return out
