"""Test-only dependencies (uvicorn, starlette, the official mcp SDK), which
the interop venv of mk/python.mk provides (build/python-venv). Under
`make test-python` (POLYMCP_REQUIRE_INTEROP=1) a missing one is an error;
a plain `python3 -m pytest` without them skips those modules, saying why."""

from __future__ import annotations

import importlib
import os
from types import ModuleType

import pytest

REQUIRED = os.environ.get("POLYMCP_REQUIRE_INTEROP") == "1"


def need(name: str) -> ModuleType:
    if REQUIRED:
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=f"{name} is not installed: run `make test-python`, "
                                            "whose venv (build/python-venv) has it")
