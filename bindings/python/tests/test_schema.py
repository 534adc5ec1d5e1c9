"""Every supported type hint and the JSON Schema it becomes."""


import dataclasses
import datetime
import enum
import uuid
from typing import Annotated, Any, Literal, NotRequired, Optional, TypedDict, Union

import pytest

from polymcp import schema_of
from polymcp._handlers import ToolEntry


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Movie(TypedDict):
    title: str
    year: NotRequired[int]


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0
    tags: list[str] = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Node:
    value: int
    next: Optional["Node"] = None


CASES: list[tuple[str, Any, dict[str, Any]]] = [
    ("str", str, {"type": "string"}),
    ("int", int, {"type": "integer"}),
    ("float", float, {"type": "number"}),
    ("bool", bool, {"type": "boolean"}),
    ("None", None, {"type": "null"}),
    ("Any", Any, {}),
    ("bytes", bytes, {"type": "string", "contentEncoding": "base64"}),
    ("datetime", datetime.datetime, {"type": "string", "format": "date-time"}),
    ("date", datetime.date, {"type": "string", "format": "date"}),
    ("uuid", uuid.UUID, {"type": "string", "format": "uuid"}),
    ("Optional", Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
    ("pipe union", str | None, {"anyOf": [{"type": "string"}, {"type": "null"}]}),
    ("Union", Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ("list", list[int], {"type": "array", "items": {"type": "integer"}}),
    ("bare list", list, {"type": "array"}),
    ("set", set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    ("tuple ...", tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    ("tuple fixed", tuple[int, str], {"type": "array", "prefixItems": [
        {"type": "integer"}, {"type": "string"}], "minItems": 2, "maxItems": 2}),
    ("dict", dict[str, float], {"type": "object", "additionalProperties": {"type": "number"}}),
    ("dict Any", dict[str, Any], {"type": "object"}),
    ("Literal", Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    ("Literal mixed", Literal["a", 1], {"enum": ["a", 1]}),
    ("Enum", Color, {"type": "string", "enum": ["red", "green"]}),
    ("IntEnum", Level, {"type": "integer", "enum": [1, 2]}),
    ("Annotated str", Annotated[str, "the name"], {"type": "string", "description": "the name"}),
    ("Annotated dict", Annotated[int, {"minimum": 0}], {"type": "integer", "minimum": 0}),
    ("nested Annotated", list[Annotated[int, "n"]],
     {"type": "array", "items": {"type": "integer", "description": "n"}}),
    ("TypedDict", Movie, {"type": "object", "properties": {
        "title": {"type": "string"}, "year": {"type": "integer"}}, "required": ["title"]}),
    ("dataclass", Point, {"type": "object", "properties": {
        "x": {"type": "number"}, "y": {"type": "number", "default": 0.0},
        "tags": {"type": "array", "items": {"type": "string"}}}, "required": ["x"]}),
]


@pytest.mark.parametrize(("hint", "expected"), [(c[1], c[2]) for c in CASES],
                         ids=[c[0] for c in CASES])
def test_schema_of(hint: Any, expected: dict[str, Any]) -> None:
    assert schema_of(hint) == expected


@pytest.mark.parametrize("hint", [dict[int, str], complex, object.__class__],
                         ids=["int keys", "complex", "type"])
def test_unsupported_types_fail_at_registration(hint: Any) -> None:
    with pytest.raises(TypeError):
        schema_of(hint)


def test_recursive_dataclass_is_refused_not_looped() -> None:
    with pytest.raises(TypeError, match="recursive type Node"):
        schema_of(Node)


def test_pydantic_model_hoists_defs_to_the_root() -> None:
    pydantic = pytest.importorskip("pydantic")

    class Address(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        city: str

    class Person(pydantic.BaseModel):  # type: ignore[name-defined,misc]
        name: str = pydantic.Field(description="full name")
        home: Address

    def register(who: Person, note: str = "") -> str:
        return who.name

    schema = ToolEntry(register).definition()["inputSchema"]
    assert schema["required"] == ["who"]
    assert schema["properties"]["note"] == {"type": "string", "default": ""}
    person = schema["properties"]["who"]
    assert person["properties"]["name"]["description"] == "full name"
    assert person["properties"]["home"] == {"$ref": "#/$defs/Address"}
    assert schema["$defs"]["Address"]["properties"] == {"city": {"title": "City", "type": "string"}}


def test_pydantic_field_in_annotated_gives_the_description() -> None:
    pydantic = pytest.importorskip("pydantic")

    def search(query: Annotated[str, pydantic.Field(description="what to look for")]) -> str:
        return query

    props = ToolEntry(search).definition()["inputSchema"]["properties"]
    assert props == {"query": {"type": "string", "description": "what to look for"}}
