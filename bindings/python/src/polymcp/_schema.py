"""JSON Schema (2020-12) inferred from Python type hints.

Supported: str, int, float, bool, None, bytes, Any, Optional/Union, list,
tuple, set, dict[str, T], Literal, Enum, TypedDict, dataclasses,
datetime/date/time/UUID, pydantic models (when pydantic is installed) and
``Annotated[T, ...]`` whose metadata is a description string, a dict of
extra schema keywords or a pydantic ``Field``. Anything else is refused
when the handler is registered, never at call time.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, get_args, get_origin

from ._jsonable import to_jsonable
from ._types import (
    NONE_TYPE,
    is_dataclass_type,
    is_literal,
    is_pydantic_model,
    is_typeddict,
    is_union,
    peel,
    strip_required,
    type_hints,
)

__all__ = ["SchemaBuilder", "schema_of", "with_default"]

_SCALARS: dict[Any, dict[str, Any]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
    NONE_TYPE: {"type": "null"},
    None: {"type": "null"},
    bytes: {"type": "string", "contentEncoding": "base64"},
    datetime.datetime: {"type": "string", "format": "date-time"},
    datetime.date: {"type": "string", "format": "date"},
    datetime.time: {"type": "string", "format": "time"},
    uuid.UUID: {"type": "string", "format": "uuid"},
}

_LISTS = (list, Sequence, AbstractSet, set, frozenset)


class SchemaBuilder:
    """Builds one root schema; pydantic's ``$defs`` are hoisted to the root so
    their ``$ref``s resolve wherever the model is nested."""

    def __init__(self) -> None:
        self.defs: dict[str, Any] = {}
        self._active: set[Any] = set()

    def root(self, schema: dict[str, Any]) -> dict[str, Any]:
        if self.defs:
            schema = {**schema, "$defs": {**schema.get("$defs", {}), **self.defs}}
        return schema

    def of(self, tp: Any) -> dict[str, Any]:
        base, metadata = peel(tp)
        schema = self._plain(base)
        for item in metadata:
            schema = _annotate(schema, item)
        return schema

    def _plain(self, tp: Any) -> dict[str, Any]:
        if tp is Any or tp is object:
            return {}
        if tp in _SCALARS:
            return dict(_SCALARS[tp])
        if is_union(tp):
            return self._union(get_args(tp))
        if is_literal(tp):
            return _enum_schema([to_jsonable(v) for v in get_args(tp)])
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return _enum_schema([to_jsonable(m.value) for m in tp])
        if is_pydantic_model(tp):
            return self._pydantic(tp)
        if is_typeddict(tp) or is_dataclass_type(tp):
            return self._guarded(tp)
        return self._generic(tp)

    def _union(self, members: tuple[Any, ...]) -> dict[str, Any]:
        options = [self.of(m) for m in members]
        return {"anyOf": options}

    def _generic(self, tp: Any) -> dict[str, Any]:
        origin = get_origin(tp) or tp
        args = get_args(tp)
        if origin is tuple:
            return self._tuple(args)
        if origin in _LISTS:
            schema: dict[str, Any] = {"type": "array"}
            if args:
                schema["items"] = self.of(args[0])
            if origin in (set, frozenset, AbstractSet):
                schema["uniqueItems"] = True
            return schema
        if origin in (dict, Mapping):
            if args and peel(args[0])[0] is not str:
                raise TypeError(f"dict keys must be str in a JSON schema, got {tp!r}")
            schema = {"type": "object"}
            if len(args) == 2 and peel(args[1])[0] is not Any:
                schema["additionalProperties"] = self.of(args[1])
            return schema
        raise TypeError(f"no JSON schema for type {tp!r}")

    def _tuple(self, args: tuple[Any, ...]) -> dict[str, Any]:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": self.of(args[0])}
        if not args:
            return {"type": "array"}
        return {"type": "array", "prefixItems": [self.of(a) for a in args],
                "minItems": len(args), "maxItems": len(args)}

    def _guarded(self, tp: type) -> dict[str, Any]:
        # Inlined schemas cannot express recursion; say so instead of looping.
        if tp in self._active:
            raise TypeError(f"recursive type {tp.__name__} has no inline JSON schema")
        self._active.add(tp)
        try:
            return self._typeddict(tp) if is_typeddict(tp) else self._dataclass(tp)
        finally:
            self._active.discard(tp)

    def _typeddict(self, tp: type) -> dict[str, Any]:
        hints = type_hints(tp)
        required_keys: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
        props = {name: self.of(strip_required(hint)) for name, hint in hints.items()}
        return _object(props, [n for n in hints if n in required_keys])

    def _dataclass(self, tp: type) -> dict[str, Any]:
        hints = type_hints(tp)
        props: dict[str, Any] = {}
        required: list[str] = []
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            schema = self.of(hints.get(f.name, Any))
            if f.default is not dataclasses.MISSING:
                schema = with_default(schema, f.default)
            elif f.default_factory is dataclasses.MISSING:
                required.append(f.name)
            props[f.name] = schema
        return _object(props, required)

    def _pydantic(self, tp: Any) -> dict[str, Any]:
        schema: dict[str, Any] = dict(tp.model_json_schema(ref_template="#/$defs/{model}"))
        self.defs.update(schema.pop("$defs", {}))
        return schema


def schema_of(tp: Any) -> dict[str, Any]:
    """The root schema of one type."""
    builder = SchemaBuilder()
    return builder.root(builder.of(tp))


def _object(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        schema["required"] = required
    return schema


def _enum_schema(values: list[Any]) -> dict[str, Any]:
    schema: dict[str, Any] = {"enum": values}
    kinds = {_json_type(v) for v in values}
    if len(kinds) == 1 and None not in kinds:
        schema = {"type": kinds.pop(), **schema}
    return schema


def _json_type(value: Any) -> str | None:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return None


def with_default(schema: dict[str, Any], default: Any) -> dict[str, Any]:
    try:
        return {**schema, "default": to_jsonable(default)}
    except TypeError:
        return schema  # a default JSON cannot show is simply not advertised


def _annotate(schema: dict[str, Any], item: Any) -> dict[str, Any]:
    if isinstance(item, str):
        return {**schema, "description": item}
    if isinstance(item, Mapping):
        return {**schema, **item}
    description = getattr(item, "description", None)  # pydantic.Field(...)
    if isinstance(description, str) and description:
        return {**schema, "description": description}
    return schema
