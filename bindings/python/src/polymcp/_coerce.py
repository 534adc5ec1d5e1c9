"""JSON arguments to the Python values a handler's hints ask for.

A converter is compiled once per parameter when the handler is registered;
``None`` means the JSON value is already right (str, bool, Any, list[str]
...), which keeps the common call path free of work. Converters raise
TypeError or ValueError on a value of the wrong shape.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import uuid
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Any, get_args, get_origin

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

__all__ = ["Converter", "converter_for"]

Converter = Callable[[Any], Any]


def converter_for(tp: Any) -> Converter | None:
    """The converter for values of type ``tp``, or None for identity."""
    tp, _ = peel(tp)
    if tp is Any or tp is object or tp is str or tp is bool or tp is NONE_TYPE or tp is None:
        return None
    if is_literal(tp):
        return None
    simple = _SIMPLE.get(tp)
    if simple is not None:
        return simple
    if is_union(tp):
        return _union(get_args(tp))
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return tp
    if is_pydantic_model(tp):
        validate: Converter = tp.model_validate
        return validate
    if is_typeddict(tp):
        return _typeddict(tp)
    if is_dataclass_type(tp):
        return _dataclass(tp)
    return _generic(tp)


def _to_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError("expected an integer, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise TypeError(f"expected an integer, got {type(value).__name__}")


def _to_float(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return float(value)


def _to_bytes(value: Any) -> bytes:
    if not isinstance(value, str):
        raise TypeError("expected base64 text")
    return base64.b64decode(value, validate=True)


_SIMPLE: dict[Any, Converter] = {
    int: _to_int,
    float: _to_float,
    bytes: _to_bytes,
    datetime.datetime: datetime.datetime.fromisoformat,
    datetime.date: datetime.date.fromisoformat,
    datetime.time: datetime.time.fromisoformat,
    uuid.UUID: uuid.UUID,
}


def _union(members: tuple[Any, ...]) -> Converter | None:
    nullable = any(peel(m)[0] in (NONE_TYPE, None) for m in members)
    rest = [m for m in members if peel(m)[0] not in (NONE_TYPE, None)]
    convs = [converter_for(m) for m in rest]
    if all(c is None for c in convs):
        return None
    if len(convs) == 1:
        only = convs[0]
        assert only is not None
        return lambda v: None if v is None and nullable else only(v)

    def first_fit(value: Any) -> Any:
        if value is None and nullable:
            return None
        errors: list[str] = []
        for conv in convs:
            if conv is None:
                return value  # a member taking the JSON value as it is
            try:
                return conv(value)
            except (TypeError, ValueError) as err:
                errors.append(str(err))
        raise TypeError("no member of the union accepts the value: " + "; ".join(errors))

    return first_fit


def _generic(tp: Any) -> Converter | None:
    origin = get_origin(tp) or tp
    args = get_args(tp)
    if origin is tuple:
        return _tuple(args)
    if origin in (list, Sequence, set, frozenset, AbstractSet):
        item = converter_for(args[0]) if args else None
        build: Callable[[Any], Any] = set if origin in (set, AbstractSet) else (
            frozenset if origin is frozenset else list)
        if item is None and build is list:
            return _check_list
        return lambda v: build(_check_list(v) if item is None else [item(x) for x in _check_list(v)])
    if origin in (dict, Mapping):
        value = converter_for(args[1]) if len(args) == 2 else None
        if value is None:
            return _check_dict
        return lambda v: {k: value(x) for k, x in _check_dict(v).items()}
    raise TypeError(f"cannot convert arguments to {tp!r}")


def _tuple(args: tuple[Any, ...]) -> Converter:
    if len(args) == 2 and args[1] is Ellipsis:
        item = converter_for(args[0])
        return lambda v: tuple(_check_list(v) if item is None else (item(x) for x in _check_list(v)))
    convs = [converter_for(a) for a in args]

    def fixed(value: Any) -> tuple[Any, ...]:
        items = _check_list(value)
        if args and len(items) != len(convs):
            raise ValueError(f"expected {len(convs)} items, got {len(items)}")
        return tuple(x if c is None else c(x) for c, x in zip(convs, items)) if args else tuple(items)

    return fixed


def _check_list(value: Any) -> list[Any]:
    if not isinstance(value, list):
        raise TypeError(f"expected an array, got {type(value).__name__}")
    return value


def _check_dict(value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"expected an object, got {type(value).__name__}")
    return value


def _fields(hints: dict[str, Any]) -> dict[str, Converter]:
    convs: dict[str, Converter] = {}
    for name, hint in hints.items():
        conv = converter_for(strip_required(hint))
        if conv is not None:
            convs[name] = conv
    return convs


def _typeddict(tp: type) -> Converter | None:
    convs = _fields(type_hints(tp))
    if not convs:
        return _check_dict
    return lambda v: {k: (convs[k](x) if k in convs else x) for k, x in _check_dict(v).items()}


def _dataclass(tp: type) -> Converter:
    hints = type_hints(tp)
    names = {f.name for f in dataclasses.fields(tp) if f.init}
    convs = _fields({n: hints.get(n, Any) for n in names})

    def build(value: Any) -> Any:
        data = _check_dict(value)
        unknown = data.keys() - names
        if unknown:
            raise TypeError(f"unexpected field {sorted(unknown)[0]!r} for {tp.__name__}")
        return tp(**{k: (convs[k](x) if k in convs else x) for k, x in data.items()})

    return build
