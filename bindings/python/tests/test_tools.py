"""Tools: definitions from functions, argument conversion, return
conversion, sync and async handlers, exceptions contained."""

import asyncio
import base64
import dataclasses
import datetime
import enum
from typing import Annotated, Any, Literal, Optional, TypedDict

import pytest

import polymcp
from polymcp import Audio, EmbeddedResource, Image, ResourceContents, ResourceLink, Text, \
    ToolError, ToolResult
from polymcp._handlers import ToolEntry

from .helpers import RecordingPort, answer

PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Stats(TypedDict):
    count: int
    mean: float


def call(fn: Any, arguments: dict[str, Any] | None = None) -> Any:
    return answer(ToolEntry(fn), {"name": fn.__name__, "arguments": arguments or {}})


def text(s: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": s}]}


def test_definition_from_function() -> None:
    def convert(value: Annotated[float, "degrees"], unit: Unit = Unit.C,
                ctx: Optional[polymcp.Context] = None) -> str:
        """Converts a temperature.

        Longer text."""
        return ""

    assert ToolEntry(convert).definition() == {
        "name": "convert",
        "description": "Converts a temperature.\n\nLonger text.",
        "inputSchema": {"type": "object", "properties": {
            "value": {"type": "number", "description": "degrees"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"},
        }, "required": ["value"]},
    }


def test_definition_overrides() -> None:
    server = polymcp.Server("t")

    @server.tool("renamed", title="Nice", description="given", annotations={"readOnlyHint": True})
    def f() -> None:
        """ignored"""

    (entry,) = server.registry.entries.values()
    assert entry.definition() == {"name": "renamed", "title": "Nice", "description": "given",
                                  "inputSchema": {"type": "object", "properties": {}},
                                  "annotations": {"readOnlyHint": True}}


@pytest.mark.parametrize(("returns", "schema"), [
    (Point, {"type": "object", "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
             "required": ["x", "y"]}),
    (Stats, {"type": "object", "properties": {"count": {"type": "integer"},
                                              "mean": {"type": "number"}},
             "required": ["count", "mean"]}),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (int, {"type": "object", "properties": {"result": {"type": "integer"}}, "required": ["result"]}),
    (list[float], {"type": "object", "properties": {"result": {"type": "array", "items": {
        "type": "number"}}}, "required": ["result"]}),
    (str, None), (None, None), (Image, None), (list[str | Image], None), (ToolResult, None),
    (Optional[str], None),
], ids=["dataclass", "TypedDict", "dict", "int", "list", "str", "None", "Image", "content list",
        "ToolResult", "Optional str"])
def test_output_schema_from_return_annotation(returns: Any, schema: Any) -> None:
    def f() -> None: ...
    f.__annotations__["return"] = returns
    assert ToolEntry(f).definition().get("outputSchema") == schema


@pytest.mark.parametrize(("value", "expected"), [
    ("hi", text("hi")),
    (None, {"content": []}),
    (PNG, {"content": [{"type": "image", "data": base64.b64encode(PNG).decode(),
                        "mimeType": "image/png"}]}),
    (WAV, {"content": [{"type": "audio", "data": base64.b64encode(WAV).decode(),
                        "mimeType": "audio/wav"}]}),
    (Image(b"\x01", mime_type="image/gif"), {"content": [{"type": "image", "data": "AQ==",
                                                          "mimeType": "image/gif"}]}),
    (Audio(b"\x01", mime_type="audio/ogg"), {"content": [{"type": "audio", "data": "AQ==",
                                                          "mimeType": "audio/ogg"}]}),
    (Text("t", meta={"k": 1}), {"content": [{"type": "text", "text": "t", "_meta": {"k": 1}}]}),
    (EmbeddedResource(ResourceContents("test://r", text="body", mime_type="text/plain")),
     {"content": [{"type": "resource", "resource": {"uri": "test://r", "mimeType": "text/plain",
                                                    "text": "body"}}]}),
    (ResourceLink("test://r", "r", mime_type="text/plain"),
     {"content": [{"type": "resource_link", "uri": "test://r", "name": "r",
                   "mimeType": "text/plain"}]}),
    (["a", Image(b"\x01"), {"k": 1}, 2],
     {"content": [{"type": "text", "text": "a"},
                  {"type": "image", "data": "AQ==", "mimeType": "image/png"},
                  {"type": "text", "text": '{"k":1}'}, {"type": "text", "text": "2"}]}),
    ({"a": [1, "é"]}, {"content": [{"type": "text", "text": '{"a":[1,"é"]}'}],
                       "structuredContent": {"a": [1, "é"]}}),
    (Point(1, 2), {"content": [{"type": "text", "text": '{"x":1,"y":2}'}],
                   "structuredContent": {"x": 1, "y": 2}}),
    (Unit.F, text('"fahrenheit"')),
    (3.5, text("3.5")),
    (ToolResult([Text("x")], structured_content={"a": 1}, is_error=True, meta={"m": True}),
     {"content": [{"type": "text", "text": "x"}], "structuredContent": {"a": 1},
      "isError": True, "_meta": {"m": True}}),
], ids=["str", "None", "png bytes", "wav bytes", "Image", "Audio", "Text", "embedded", "link",
        "list", "dict", "dataclass", "enum", "float", "ToolResult"])
def test_return_conversion_without_annotation(value: Any, expected: dict[str, Any]) -> None:
    def f():  # type: ignore[no-untyped-def]
        return value

    assert call(f) == expected


def test_structured_output_follows_the_annotation() -> None:
    def where() -> Point:
        return Point(1.5, -2)

    def count() -> int:
        return 7

    def stamp() -> datetime.date:
        return datetime.date(2026, 7, 28)

    assert call(where) == {"content": [{"type": "text", "text": '{"x":1.5,"y":-2}'}],
                           "structuredContent": {"x": 1.5, "y": -2}}
    assert call(count) == {"content": [{"type": "text", "text": "7"}],
                           "structuredContent": {"result": 7}}
    assert call(stamp) == {"content": [{"type": "text", "text": '"2026-07-28"'}],
                           "structuredContent": {"result": "2026-07-28"}}


def test_pydantic_return_is_structured() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Weather(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        city: str
        temp: float

    def weather() -> Weather:
        return Weather(city="Paris", temp=21.5)

    entry = ToolEntry(weather)
    assert entry.definition()["outputSchema"]["required"] == ["city", "temp"]
    assert answer(entry, {"arguments": {}})["structuredContent"] == {"city": "Paris", "temp": 21.5}


def test_arguments_are_converted_to_the_hinted_types() -> None:
    seen: dict[str, Any] = {}

    def f(unit: Unit, points: list[Point], when: datetime.datetime, ratio: float,
          count: int, mode: Literal["a", "b"], maybe: Optional[Point] = None,
          pair: tuple[int, str] = (0, ""), raw: bytes = b"") -> str:
        seen.update(locals())
        return "ok"

    assert call(f, {"unit": "fahrenheit", "points": [{"x": 1, "y": 2}],
                    "when": "2026-07-28T10:00:00", "ratio": 2, "count": 3.0, "mode": "b",
                    "pair": [1, "x"], "raw": "AQI=", "ignored": True}) == text("ok")
    assert seen["unit"] is Unit.F
    assert seen["points"] == [Point(1.0, 2.0)]
    assert seen["when"] == datetime.datetime(2026, 7, 28, 10)
    assert isinstance(seen["ratio"], float) and seen["count"] == 3 and isinstance(seen["count"], int)
    assert seen["maybe"] is None and seen["pair"] == (1, "x") and seen["raw"] == b"\x01\x02"


def test_pydantic_arguments_are_validated() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Query(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        text: str
        limit: int = 10

    def search(q: Query) -> str:
        return f"{q.text}:{q.limit}"

    assert call(search, {"q": {"text": "x"}}) == text("x:10")
    result = call(search, {"q": {"limit": 1}})
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith("invalid arguments: ")


@pytest.mark.parametrize(("arguments", "message"), [
    ({}, "invalid arguments: missing required argument 'p'"),
    ({"p": {"x": 1}}, "invalid arguments: argument 'p': "),
    ({"p": {"x": 1, "y": 2, "z": 3}}, "invalid arguments: argument 'p': unexpected field 'z'"),
    ({"p": "nope"}, "invalid arguments: argument 'p': expected an object, got str"),
])
def test_bad_arguments_give_an_error_result(arguments: dict[str, Any], message: str) -> None:
    def f(p: Point) -> str:
        return "never"

    result = call(f, arguments)
    assert result["isError"] is True
    assert result["content"][0]["text"].startswith(message)


def test_exceptions_become_error_results_with_the_message_only() -> None:
    def broken() -> str:
        raise ValueError("the disk is full")

    def deliberate() -> str:
        raise ToolError("no such city")

    def silent() -> str:
        raise KeyError

    assert call(broken) == {"content": [{"type": "text", "text": "the disk is full"}],
                            "isError": True}
    assert call(deliberate) == {"content": [{"type": "text", "text": "no such city"}],
                                "isError": True}
    assert call(silent)["content"][0]["text"] == "KeyError"


def test_mcp_error_is_not_contained() -> None:
    def protocol() -> str:
        raise polymcp.McpError(-32602, "bad")

    with pytest.raises(polymcp.McpError):
        call(protocol)


def test_async_tool_and_awaitable_results() -> None:
    async def slow(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    async def fails() -> str:
        await asyncio.sleep(0)
        raise RuntimeError("async failure")

    class Callable:
        async def __call__(self, n: int) -> int:
            return n * 2

    assert call(slow, {"text": "hi"}) == text("HI")
    assert call(fails) == {"content": [{"type": "text", "text": "async failure"}], "isError": True}
    entry = ToolEntry(Callable().__call__, name="double")
    assert answer(entry, {"arguments": {"n": 4}})["structuredContent"] == {"result": 8}


def test_context_parameter_reports_progress_and_logs() -> None:
    port = RecordingPort()

    async def work(steps: int, ctx: polymcp.Context) -> str:
        for i in range(steps):
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        ctx.info({"done": steps}, logger="work")
        return f"{ctx.revision} {ctx.progress_token}"

    entry = ToolEntry(work)
    assert "ctx" not in entry.definition()["inputSchema"]["properties"]
    result = answer(entry, {"arguments": {"steps": 2}, "revision": "2025-06-18",
                            "_meta": {"progressToken": "t1"}}, port)
    assert result == text("2025-06-18 t1")
    assert port.sent == [("progress", (1.0, 2.0, "step 1")), ("progress", (2.0, 2.0, "step 2")),
                         ("log", ("info", {"done": 2}, "work"))]


def test_strict_refuses_undeclared_arguments_in_the_schema() -> None:
    def add(a: int, b: int = 1) -> int:
        return a + b

    entry = ToolEntry(add, strict=True)
    assert entry.definition()["inputSchema"] == {
        "type": "object", "properties": {"a": {"type": "integer"},
                                         "b": {"type": "integer", "default": 1}},
        "required": ["a"], "additionalProperties": False}
    assert "additionalProperties" not in ToolEntry(add).definition()["inputSchema"]


def test_strict_takes_no_kwargs_nor_a_given_schema() -> None:
    def loose(**kwargs: Any) -> str:
        return ""

    with pytest.raises(TypeError, match="strict=True"):
        ToolEntry(loose, strict=True)
    with pytest.raises(TypeError, match="strict=True"):
        ToolEntry(lambda: "", strict=True, input_schema={"type": "object"})
