"""Helpers shared by schema inference and argument conversion: what kind of
type a hint is, with ``Annotated`` metadata peeled off."""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from typing import Any, Literal, Union, get_args, get_origin

__all__ = [
    "NONE_TYPE",
    "is_dataclass_type",
    "is_pydantic_model",
    "is_typeddict",
    "is_union",
    "peel",
    "strip_required",
    "type_hints",
]

NONE_TYPE = type(None)


def peel(tp: Any) -> tuple[Any, list[Any]]:
    """Splits ``Annotated[T, m1, m2]`` into ``T`` and its metadata (nested
    Annotated flatten)."""
    metadata: list[Any] = []
    while get_origin(tp) is typing.Annotated:
        args = get_args(tp)
        tp = args[0]
        metadata = list(args[1:]) + metadata
    return tp, metadata


def is_union(tp: Any) -> bool:
    origin = get_origin(tp)
    return origin is Union or origin is types.UnionType


def is_literal(tp: Any) -> bool:
    return get_origin(tp) is Literal


def is_typeddict(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__")


def is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)


def is_pydantic_model(tp: Any) -> bool:
    """True for a pydantic v2 model class; pydantic is never imported here, so
    it stays optional."""
    if not isinstance(tp, type):
        return False
    pydantic = sys.modules.get("pydantic")
    if pydantic is None:
        return False
    base = getattr(pydantic, "BaseModel", None)
    return base is not None and issubclass(tp, base) and hasattr(tp, "model_json_schema")


def type_hints(obj: Any) -> dict[str, Any]:
    """The resolved hints of a function or class, keeping Annotated."""
    try:
        return typing.get_type_hints(obj, include_extras=True)
    except NameError as err:
        raise TypeError(f"cannot resolve the type hints of {obj!r}: {err}") from err


def strip_required(hint: Any) -> Any:
    """Required[T] / NotRequired[T] inside a TypedDict are markers, not types."""
    origin = get_origin(hint)
    name = getattr(origin, "_name", None) or getattr(origin, "__name__", None)
    if name in ("Required", "NotRequired", "ReadOnly"):
        return get_args(hint)[0]
    return hint
