"""Python values to JSON-ready values (dataclasses, Enums, pydantic models,
dates, bytes) for structured content, defaults and arguments sent back."""

from __future__ import annotations

import base64
import dataclasses
import datetime
import enum
import uuid
from collections.abc import Mapping
from typing import Any

from ._types import is_pydantic_model

__all__ = ["to_jsonable"]

_PLAIN = (str, int, float, bool, type(None))


def to_jsonable(value: Any) -> Any:
    """A value made only of dict, list, str, int, float, bool and None.

    Raises TypeError for values JSON cannot carry (a set of objects is fine,
    an open file is not)."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, Mapping):
        return {_key(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if is_pydantic_model(type(value)):
        return value.model_dump(mode="json", by_alias=True)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, enum.Enum):
        return str(key.value)
    if isinstance(key, (int, float, bool)):
        return str(key)
    raise TypeError(f"dict key {key!r} is not a str")
