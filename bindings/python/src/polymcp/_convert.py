"""What a handler returns, turned into the result the protocol sends.

Tools: ``str`` → one text item; ``bytes`` (PNG, JPEG, GIF, WebP, WAV, MP3,
Ogg, recognised by their first bytes), ``Image``, ``Audio`` and the other
content classes → that item; a list or tuple → one item per element;
dict, dataclass or pydantic model → ``structuredContent`` plus its JSON as
text; ``None`` → no content; ``ToolResult`` → sent as given. With a return
annotation that is not content (a dataclass, ``int``, ``list[float]``...)
the tool gets an ``outputSchema``; values whose schema is not an object
are wrapped as ``{"result": value}``, as the protocol requires an object.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, get_args, get_origin

from ._content import (
    CONTENT_TYPES,
    Audio,
    Completion,
    Image,
    Message,
    PromptResult,
    ResourceContents,
    ToolResult,
    is_content,
)
from ._jsonable import to_jsonable
from ._schema import SchemaBuilder
from ._types import NONE_TYPE, is_union, peel

__all__ = [
    "OutputPlan",
    "completion_result",
    "decode_params",
    "dumps",
    "single_text",
    "output_plan",
    "prompt_result",
    "resource_result",
    "tool_error_result",
    "tool_result",
]


#: One encoder for every call (json.dumps with options builds a new one each time).
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def dumps(value: Any) -> str:
    """Compact JSON text, UTF-8 kept as is."""
    return _ENCODER.encode(value)


#: Decodes JSON text (the core's is UTF-8: no encoding to detect).
_decode: Callable[[str], Any] = json.JSONDecoder().decode

#: decode_params takes out strings of at least this many bytes...
LONG_STRING = 1024
#: ...from params of at least this size with at most this many strings.
FAST_PARAMS_MIN = 4096
FAST_PARAMS_MAX_STRINGS = 32


def decode_params(raw: bytes) -> Any:
    """on_call's params as Python values. The JSON decoder reads a string
    one character at a time (~40-70 µs for a 64 KiB argument) while
    decoding UTF-8 bytes runs at memory speed, so long strings are taken
    out first and only the short rest is decoded as JSON. This needs
    params without a backslash: then every quote delimits a string (the
    next quote closes it), found with bytes.find. A long one is replaced
    by "\\u0000" and its number (a raw control character cannot occur in
    JSON text, so a decoded string starting with NUL is always one of
    these) and put back afterwards. The core has validated the JSON and
    its strings are UTF-8."""
    if len(raw) < FAST_PARAMS_MIN or b"\\" in raw:
        return _decode(raw.decode())
    view = memoryview(raw)
    rest: list[bytes] = []
    longs: list[str] = []
    copied = 0  # raw[:copied] is in rest
    strings = 0
    open_ = raw.find(b'"')
    while open_ >= 0:
        close = raw.find(b'"', open_ + 1)
        strings += 1
        if strings > FAST_PARAMS_MAX_STRINGS:  # putting back would walk a big tree
            return _decode(raw.decode())
        if close - open_ > LONG_STRING:
            rest += (raw[copied:open_ + 1], b"\\u0000%d" % len(longs))
            longs.append(str(view[open_ + 1:close], "utf-8"))
            copied = close
        open_ = raw.find(b'"', close + 1)
    if not longs:
        return _decode(raw.decode())
    rest.append(raw[copied:])
    return _put_back(_decode(b"".join(rest).decode()), longs)


def _put_back(value: Any, longs: list[str]) -> Any:
    if type(value) is str:
        return longs[int(value[1:])] if value[:1] == "\0" else value
    if type(value) is dict:
        return {_put_back(k, longs): _put_back(v, longs) for k, v in value.items()}
    if type(value) is list:
        return [_put_back(v, longs) for v in value]
    return value


def single_text(result: dict[str, Any]) -> bytes | None:
    """The UTF-8 text of a tool result that is exactly one text item (what a
    ``str`` return gives), for polymcp_call_complete_text: nothing to
    encode as JSON here, nothing to decode in the core. None when the
    result has another shape, or a text UTF-8 cannot carry (a lone
    surrogate: the encoder then says what is wrong)."""
    if len(result) != 1:
        return None
    content = result.get("content")
    if type(content) is not list or len(content) != 1:
        return None
    item = content[0]
    if type(item) is not dict or len(item) != 2 or item.get("type") != "text":
        return None
    text = item.get("text")
    if type(text) is not str:
        return None
    try:
        return text.encode()
    except UnicodeEncodeError:
        return None


_CONTENT_HINTS: tuple[Any, ...] = (str, bytes, bytearray, ToolResult, *CONTENT_TYPES)


def _is_content_hint(tp: Any) -> bool:
    tp, _ = peel(tp)
    if tp is Any or tp is None or tp is NONE_TYPE or tp in _CONTENT_HINTS:
        return True
    if is_union(tp):
        return any(_is_content_hint(a) for a in get_args(tp))
    if get_origin(tp) in (list, tuple):
        return any(_is_content_hint(a) for a in get_args(tp) if a is not Ellipsis)
    return False


class OutputPlan:
    """How one tool's return value becomes its result, fixed at registration."""

    __slots__ = ("schema", "wrap")

    def __init__(self, schema: dict[str, Any] | None, wrap: bool) -> None:
        self.schema = schema
        self.wrap = wrap

    def result(self, value: Any) -> dict[str, Any]:
        if self.schema is None or isinstance(value, ToolResult):
            return tool_result(value)
        data = to_jsonable(value)
        structured = {"result": data} if self.wrap else data
        return {"content": [{"type": "text", "text": dumps(data)}], "structuredContent": structured}


def output_plan(annotation: Any, has_annotation: bool) -> OutputPlan:
    """The plan for a return annotation (``has_annotation`` false: none given)."""
    if not has_annotation or _is_content_hint(annotation):
        return OutputPlan(None, False)
    builder = SchemaBuilder()
    schema = builder.of(annotation)
    if schema.get("type") == "object":
        return OutputPlan(builder.root(schema), False)
    wrapped = {"type": "object", "properties": {"result": schema}, "required": ["result"]}
    return OutputPlan(builder.root(wrapped), True)


def tool_result(value: Any) -> dict[str, Any]:
    """The tools/call result for a value returned without an output schema."""
    if isinstance(value, str):
        return {"content": [{"type": "text", "text": value}]}
    if isinstance(value, ToolResult):
        return value.to_json()
    if value is None:
        return {"content": []}
    if isinstance(value, (list, tuple)):
        return {"content": [_item(v) for v in value]}
    if is_content(value) or isinstance(value, (bytes, bytearray)):
        return {"content": [_item(value)]}
    data = to_jsonable(value)
    text = {"type": "text", "text": dumps(data)}
    if isinstance(data, dict):
        return {"content": [text], "structuredContent": data}
    return {"content": [text]}


def tool_error_result(message: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": message}], "isError": True}


def _item(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        return {"type": "text", "text": value}
    if is_content(value):
        return value.to_json()
    if isinstance(value, (bytes, bytearray)):
        return _sniffed(bytes(value)).to_json()
    return {"type": "text", "text": dumps(to_jsonable(value))}


_MAGIC: tuple[tuple[Callable[[bytes], bool], Callable[[bytes], Image | Audio]], ...] = (
    (lambda b: b.startswith(b"\x89PNG\r\n\x1a\n"), lambda b: Image(b, mime_type="image/png")),
    (lambda b: b.startswith(b"\xff\xd8\xff"), lambda b: Image(b, mime_type="image/jpeg")),
    (lambda b: b.startswith((b"GIF87a", b"GIF89a")), lambda b: Image(b, mime_type="image/gif")),
    (lambda b: b[:4] == b"RIFF" and b[8:12] == b"WEBP", lambda b: Image(b, mime_type="image/webp")),
    (lambda b: b[:4] == b"RIFF" and b[8:12] == b"WAVE", lambda b: Audio(b, mime_type="audio/wav")),
    (lambda b: b.startswith((b"ID3", b"\xff\xfb", b"\xff\xf3")), lambda b: Audio(b, mime_type="audio/mpeg")),
    (lambda b: b.startswith(b"OggS"), lambda b: Audio(b, mime_type="audio/ogg")),
)


def _sniffed(data: bytes) -> Image | Audio:
    for matches, build in _MAGIC:
        if matches(data):
            return build(data)
    raise TypeError("bytes that are not a known image or audio format: return polymcp.Image, "
                    "polymcp.Audio or polymcp.EmbeddedResource with a MIME type")


def resource_result(value: Any, uri: str, mime_type: str | None) -> dict[str, Any]:
    """The resources/read result: str → text, bytes → blob, JSON-able values
    → JSON text, ResourceContents (or a list of them) as given."""
    items = value if isinstance(value, (list, tuple)) and all(
        isinstance(v, ResourceContents) for v in value) and value else [value]
    return {"contents": [_contents(v, uri, mime_type) for v in items]}


def _contents(value: Any, uri: str, mime_type: str | None) -> dict[str, Any]:
    if isinstance(value, ResourceContents):
        return value.to_json()
    if isinstance(value, str):
        return ResourceContents(uri, text=value, mime_type=mime_type or "text/plain").to_json()
    if isinstance(value, (bytes, bytearray)):
        return ResourceContents(uri, blob=bytes(value),
                                mime_type=mime_type or "application/octet-stream").to_json()
    return ResourceContents(uri, text=dumps(to_jsonable(value)),
                            mime_type=mime_type or "application/json").to_json()


def prompt_result(value: Any) -> dict[str, Any]:
    """The prompts/get result: str or a content item → one user message; a
    Message as given; a list → one message per element; PromptResult as given."""
    if isinstance(value, PromptResult):
        return value.to_json()
    items = value if isinstance(value, (list, tuple)) else [value]
    return {"messages": [_message(v) for v in items]}


def _message(value: Any) -> dict[str, Any]:
    if isinstance(value, Message):
        return value.to_json()
    if isinstance(value, str) or is_content(value):
        return Message(value).to_json()
    if isinstance(value, dict) and "role" in value and "content" in value:
        return to_jsonable(value)  # type: ignore[no-any-return]
    raise TypeError(f"a prompt returns str, Message, content or a list of them, not "
                    f"{type(value).__name__}")


def completion_result(value: Any) -> dict[str, Any]:
    """The completion/complete result for a Completion or a list of str."""
    if isinstance(value, Completion):
        return {"completion": value.to_json()}
    if value is None:
        return {"completion": {"values": []}}
    values = list(value)
    if not all(isinstance(v, str) for v in values):
        raise TypeError("a completion handler returns Completion or a list of str")
    return {"completion": {"values": values}}
