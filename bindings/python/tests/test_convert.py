"""The codec shortcuts of the call path: on_call's params and a one-text result."""

from __future__ import annotations

import json
from typing import Any

import pytest

from polymcp import _convert
from polymcp._convert import decode_params, text_result_body

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


@pytest.mark.parametrize("text", ["", "plain", 'quote " back \\ nl \n cr \r tab \t', "é✓" * 1000,
                                  LONG, LONG + '\\"\n\r\t'])
def test_text_result_body_is_the_json_of_the_result(text: str) -> None:
    result = {"content": [{"type": "text", "text": text}]}
    body = text_result_body(result)
    assert body is not None
    assert json.loads(body) == result


@pytest.mark.parametrize("result", [
    {"content": [{"type": "text", "text": "a"}], "isError": True},
    {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
    {"content": [{"type": "image", "data": "", "mimeType": "image/png"}]},
    {"content": [{"type": "text", "text": 1}]},
])
def test_text_result_body_leaves_other_shapes_to_the_encoder(result: dict[str, Any]) -> None:
    assert text_result_body(result) is None
