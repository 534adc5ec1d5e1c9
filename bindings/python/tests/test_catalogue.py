"""Resources, templates, prompts and completions: definitions and answers."""

import base64
from typing import Annotated, Any

import pytest

import polymcp
from polymcp import Completion, Image, Message, PromptResult, ResourceContents
from polymcp._handlers import template_variables

from .helpers import answer


def only(server: polymcp.Server) -> Any:
    (entry,) = server.registry.entries.values()
    return entry


def test_static_resource() -> None:
    server = polymcp.Server("t")

    @server.resource("test://static-text", title="Static", mime_type="text/plain")
    def static_text() -> str:
        """A static text resource."""
        return "hello"

    entry = only(server)
    assert entry.definition() == {"uri": "test://static-text", "name": "static_text",
                                  "title": "Static", "description": "A static text resource.",
                                  "mimeType": "text/plain"}
    assert answer(entry, {"uri": "test://static-text"}) == {"contents": [
        {"uri": "test://static-text", "mimeType": "text/plain", "text": "hello"}]}


@pytest.mark.parametrize(("value", "contents"), [
    ("t", [{"uri": "u://x", "mimeType": "text/plain", "text": "t"}]),
    (b"\x00\x01", [{"uri": "u://x", "mimeType": "application/octet-stream", "blob": "AAE="}]),
    ({"a": 1}, [{"uri": "u://x", "mimeType": "application/json", "text": '{"a":1}'}]),
    ([ResourceContents("u://a", text="1"), ResourceContents("u://b", blob=b"\x02",
                                                             mime_type="image/png")],
     [{"uri": "u://a", "text": "1"}, {"uri": "u://b", "mimeType": "image/png", "blob": "Ag=="}]),
], ids=["str", "bytes", "dict", "contents list"])
def test_resource_return_conversion(value: Any, contents: list[Any]) -> None:
    server = polymcp.Server("t")
    server.resource("u://x")(lambda: value)
    assert answer(only(server), {"uri": "u://x"}) == {"contents": contents}


def test_template_variables_become_parameters() -> None:
    server = polymcp.Server("t")

    @server.resource("test://template/{id}/data{?page}", mime_type="application/json")
    async def template(id: int, page: int = 1) -> dict[str, Any]:
        return {"id": id, "page": page}

    entry = only(server)
    assert entry.definition() == {"uriTemplate": "test://template/{id}/data{?page}",
                                  "name": "template", "mimeType": "application/json"}
    assert answer(entry, {"uri": "test://template/7/data", "variables": {"id": "7"}}) == {
        "contents": [{"uri": "test://template/7/data", "mimeType": "application/json",
                      "text": '{"id":7,"page":1}'}]}
    with pytest.raises(polymcp.McpError, match="argument 'id'"):
        answer(entry, {"uri": "test://template/x/data", "variables": {"id": "x"}})


def test_template_parameters_must_match_variables() -> None:
    server = polymcp.Server("t")
    with pytest.raises(TypeError, match="variable 'id' has no parameter"):
        server.resource("test://{id}")(lambda: "x")
    with pytest.raises(TypeError, match="'other' is not a variable"):
        server.resource("test://{id}")(lambda id, other: "x")


@pytest.mark.parametrize(("template", "names"), [
    ("a://{x}", ["x"]), ("a://{+path}/{x,y}", ["path", "x", "y"]),
    ("a://b{?q,lang}{&more*}", ["q", "lang", "more"]), ("a://{x:3}/{x}", ["x"]), ("a://b", []),
])
def test_template_variables(template: str, names: list[str]) -> None:
    assert template_variables(template) == names


def test_prompt_definition_and_messages() -> None:
    server = polymcp.Server("t")

    @server.prompt(title="Greeting")
    def greet(name: Annotated[str, "who to greet"], times: int = 1) -> list[Message]:
        """Greets someone."""
        return [Message(f"hello {name} " * times), Message("hi!", role="assistant")]

    entry = only(server)
    assert entry.definition() == {"name": "greet", "title": "Greeting",
                                  "description": "Greets someone.", "arguments": [
                                      {"name": "name", "description": "who to greet",
                                       "required": True}, {"name": "times"}]}
    assert answer(entry, {"name": "greet", "arguments": {"name": "Ann", "times": "2"}}) == {
        "messages": [{"role": "user", "content": {"type": "text", "text": "hello Ann hello Ann "}},
                     {"role": "assistant", "content": {"type": "text", "text": "hi!"}}]}
    with pytest.raises(polymcp.McpError, match="missing required argument 'name'"):
        answer(entry, {"name": "greet", "arguments": {}})


@pytest.mark.parametrize(("value", "messages"), [
    ("plain", [{"role": "user", "content": {"type": "text", "text": "plain"}}]),
    (Image(b"\x01"), [{"role": "user", "content": {"type": "image", "data": "AQ==",
                                                   "mimeType": "image/png"}}]),
    ([{"role": "assistant", "content": {"type": "text", "text": "raw"}}, "next"],
     [{"role": "assistant", "content": {"type": "text", "text": "raw"}},
      {"role": "user", "content": {"type": "text", "text": "next"}}]),
], ids=["str", "image", "raw dict and str"])
def test_prompt_return_conversion(value: Any, messages: list[Any]) -> None:
    server = polymcp.Server("t")
    server.prompt(lambda: value)
    assert answer(only(server), {"arguments": {}}) == {"messages": messages}


def test_prompt_result_passes_through() -> None:
    server = polymcp.Server("t")
    server.prompt("p")(lambda: PromptResult([Message("x")], description="d"))
    assert answer(only(server), {}) == {"description": "d", "messages": [
        {"role": "user", "content": {"type": "text", "text": "x"}}]}


def test_prompt_rejects_other_values() -> None:
    server = polymcp.Server("t")
    server.prompt("p")(lambda: 42)
    with pytest.raises(TypeError, match="not int"):
        answer(only(server), {})


def test_completions() -> None:
    server = polymcp.Server("t")

    @server.completion(prompt="greet")
    def names(argument: str, value: str) -> list[str]:
        return [n for n in ("paris", "park", "hello") if n.startswith(value)]

    @server.completion(resource="test://{a}/{b}")
    def parts(argument: str, value: str, arguments: dict[str, str]) -> Completion:
        return Completion([f"{argument}={value}|{arguments.get('a', '')}"], total=9, has_more=True)

    first, second = server.registry.entries.values()
    assert first.definition() == {"ref": {"type": "ref/prompt", "name": "greet"}}
    assert answer(first, {"argument": {"name": "arg1", "value": "pa"}}) == {
        "completion": {"values": ["paris", "park"]}}
    assert answer(second, {"argument": {"name": "b", "value": "v"},
                           "context": {"arguments": {"a": "A"}}}) == {
        "completion": {"values": ["b=v|A"], "total": 9, "hasMore": True}}
    with pytest.raises(TypeError, match="exactly one of"):
        server.completion()


def test_replacing_and_removing_keeps_tags_unique() -> None:
    server = polymcp.Server("t")
    server.tool("a")(lambda: "1")
    first = next(iter(server.registry.entries))
    server.tool("a")(lambda: "2")
    (second,) = server.registry.entries
    assert second > first
    assert server.remove_tool("a") is True
    assert server.remove_tool("a") is False
    assert server.registry.entries == {}


def test_content_helpers_validate() -> None:
    with pytest.raises(ValueError):
        ResourceContents("u://x")
    with pytest.raises(ValueError):
        Image()
    assert Image(b"\x01") == Image(b"\x01", mime_type="image/png")
    assert base64.b64decode(Image(b"\x05").to_json()["data"]) == b"\x05"


def test_image_from_path_guesses_the_mime_type(tmp_path: Any) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"\xff\xd8\xff")
    assert Image(path=path).mime_type == "image/jpeg"

