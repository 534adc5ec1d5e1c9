"""The codec shortcuts of the call path: on_call's params and a one-text result."""

from __future__ import annotations

import json
from typing import Any

import pytest

from polymcp import _convert
from polymcp._convert import decode_params, single_text

LONG = "abcdefghijklmnopqrstuvwxyz" * 2521  # 65 546 bytes


def params(arguments: Any, **extra: Any) -> bytes:
    return json.dumps({"name": "echo", "arguments": arguments, "revision": "2025-06-18", **extra},
                      ensure_ascii=False, separators=(",", ":")).encode()


@pytest.mark.parametrize("raw", [
    params({"text": "short"}),                                   # under FAST_PARAMS_MIN: the plain decoder
    params({"text": LONG}, _meta={"progressToken": 7}),          # one long string taken out
    params({"text": LONG, "more": [LONG, 1, None, True, {"k": LONG}]}),
    params({LONG: "a long member name", "é": "ü" * 3000}),      # long keys and UTF-8
    params({"edge": "x" * (_convert.LONG_STRING - 1), "at": "y" * _convert.LONG_STRING, "pad": LONG}),
    params({"text": "line\n" * 2000}),                           # a backslash: the plain decoder
    params({"text": LONG, "nul": "\x00" + "z" * 5000}),          # an escape: the plain decoder
    params({"many": ["s"] * (_convert.FAST_PARAMS_MAX_STRINGS + 1), "text": LONG}),  # too many strings
    params({"text": LONG, "": "", "n": -1.5e300}),
])
def test_decode_params_matches_json(raw: bytes) -> None:
    assert decode_params(raw) == json.loads(raw)


def test_decode_params_restores_strings_that_look_like_placeholders() -> None:
    # "\u0000..." can only come from an escape, which sends the params to the
    # plain decoder: a client's NUL string is never taken for a placeholder.
    raw = params({"text": LONG, "fake": "\x000"})
    assert b"\\u0000" in raw
    assert decode_params(raw)["arguments"]["fake"] == "\x000"


@pytest.mark.parametrize("result,want", [
    ({"content": [{"type": "text", "text": 'quote " nl \n é ✓ \x00'}]}, 'quote " nl \n é ✓ \x00'.encode()),
    ({"content": [{"type": "text", "text": ""}]}, b""),
    ({"content": [{"type": "text", "text": "a"}], "isError": True}, None),
    ({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}, None),
    ({"content": [{"type": "image", "data": "", "mimeType": "image/png"}]}, None),
    ({"content": [{"type": "text", "text": 1}]}, None),
    ({"content": [{"type": "text", "text": "lone \ud800"}]}, None),
])
def test_single_text(result: dict[str, Any], want: bytes | None) -> None:
    assert single_text(result) == want
