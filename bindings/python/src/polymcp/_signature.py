"""A handler's parameters: their schemas, converters and the Context slot.

Built once when a handler is registered; ``bind`` then turns the JSON
arguments of each call into keyword arguments with no reflection."""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, get_args

from ._coerce import Converter, converter_for
from ._context import Context
from ._schema import SchemaBuilder, with_default
from ._types import is_union, peel, type_hints

__all__ = ["Param", "Signature", "description_of", "text_converter"]


@dataclass(frozen=True)
class Param:
    name: str
    annotation: Any
    required: bool
    default: Any
    convert: Converter | None
    description: str | None


def _is_context(tp: Any) -> bool:
    tp, _ = peel(tp)
    if tp is Context:
        return True
    return is_union(tp) and any(peel(a)[0] is Context for a in get_args(tp))


def description_of(tp: Any) -> str | None:
    """The description an ``Annotated`` hint carries, if any."""
    _, metadata = peel(tp)
    for item in metadata:
        if isinstance(item, str):
            return item
        text = getattr(item, "description", None)
        if isinstance(text, str) and text:
            return text
    return None


class Signature:
    """The parameters of one handler function."""

    def __init__(self, fn: Callable[..., Any], converter: Callable[[Any], Converter | None]
                 = converter_for) -> None:
        sig = inspect.signature(fn)
        hints = type_hints(fn)
        self.context: str | None = None
        self.params: list[Param] = []
        self.extra = False  # **kwargs takes arguments not declared
        for p in sig.parameters.values():
            hint = hints.get(p.name, Any)
            if p.kind is p.VAR_KEYWORD:
                self.extra = True
            elif p.kind in (p.VAR_POSITIONAL, p.POSITIONAL_ONLY):
                raise TypeError(f"{fn.__qualname__}: parameter {p.name!r} must be passable by name")
            elif _is_context(hint):
                self.context = p.name
            else:
                required = p.default is inspect.Parameter.empty
                self.params.append(Param(p.name, hint, required, None if required else p.default,
                                         converter(hint), description_of(hint)))
        self.has_return = sig.return_annotation is not inspect.Signature.empty
        self.returns: Any = hints.get("return", Any)
        self._by_name = {p.name: p for p in self.params}
        self._required = [p.name for p in self.params if p.required]

    def input_schema(self) -> dict[str, Any]:
        builder = SchemaBuilder()
        props: dict[str, Any] = {}
        for p in self.params:
            item = builder.of(p.annotation)
            props[p.name] = item if p.required else with_default(item, p.default)
        schema: dict[str, Any] = {"type": "object", "properties": props}
        if self._required:
            schema["required"] = self._required
        return builder.root(schema)

    def bind(self, args: dict[str, Any], ctx: Context | None) -> dict[str, Any]:
        """Keyword arguments for one call. Raises TypeError/ValueError naming
        the argument at fault."""
        kwargs: dict[str, Any] = {}
        for name, value in args.items():
            p = self._by_name.get(name)
            if p is None:
                if self.extra:
                    kwargs[name] = value
                continue
            if p.convert is None:
                kwargs[name] = value
                continue
            try:
                kwargs[name] = p.convert(value)
            except (TypeError, ValueError) as err:
                raise type(err)(f"argument {name!r}: {err}") from None
        for name in self._required:
            if name not in kwargs:
                raise TypeError(f"missing required argument {name!r}")
        if self.context is not None:
            kwargs[self.context] = ctx
        return kwargs


def text_converter(tp: Any) -> Converter | None:
    """Converts the strings of prompt arguments and URI template variables:
    str stays, int/float/bool are parsed, anything else is read as JSON."""
    base, _ = peel(tp)
    if base is str or base is Any:
        return None
    if base is bool:
        return _to_bool
    if base in (int, float):
        return base  # type: ignore[no-any-return]
    inner = converter_for(tp)

    def from_json(text: Any) -> Any:
        value = json.loads(text) if isinstance(text, str) else text
        return value if inner is None else inner(value)

    return from_json


def _to_bool(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    lowered = str(text).lower()
    if lowered in ("true", "1", "yes"):
        return True
    if lowered in ("false", "0", "no"):
        return False
    raise ValueError(f"expected true or false, got {text!r}")
