"""The echo tool on polymcp's Python binding (bindings/python), taken from
this checkout's sources and build/libpolymcp.so.

    python polymcp_echo.py [--handler sync|async] [--http HOST:PORT]

With POLYMCP_BENCH_PROFILE=FILE in the environment, the threads that run
the handler are profiled with cProfile and the merged stats written to FILE
at exit (bench/lang/profile.sh uses it).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(_ROOT / "bindings" / "python" / "src"))

import polymcp  # noqa: E402

from _common import DESCRIPTION, parse  # noqa: E402


def build(handler: str, profile: str | None = None) -> polymcp.Server:
    server = polymcp.Server("polymcp-echo", version=polymcp.__version__)
    seen = _profiler(profile) if profile else (lambda: None)
    if handler == "sync":
        def echo(text: str) -> str:
            seen()
            return text
    else:
        async def echo(text: str) -> str:  # type: ignore[misc]
            seen()
            return text
    echo.__doc__ = DESCRIPTION
    server.tool(name="echo")(echo)
    return server


def _profiler(path: str) -> Callable[[], None]:
    """cProfile for the threads the calls arrive on. The library calls back
    on Go threads whose Python thread states stay pinned, so a profiler
    enabled from inside the handler sees every later callback on that
    thread. All of them are merged into path at exit (pstats format)."""
    import atexit
    import cProfile
    import pstats
    import threading

    profiles: dict[int, cProfile.Profile] = {}
    lock = threading.Lock()

    def seen() -> None:
        ident = threading.get_ident()
        if ident not in profiles:
            with lock:
                prof = profiles[ident] = cProfile.Profile()
            prof.enable()

    def dump() -> None:
        with lock:
            profs = list(profiles.values())
        for prof in profs:
            prof.disable()
        print(f"polymcp_echo: profiled {len(profs)} threads", file=sys.stderr)
        if profs:
            stats = pstats.Stats(profs[0])
            for prof in profs[1:]:
                stats.add(prof)
            stats.dump_stats(path)

    atexit.register(dump)
    # Async handlers run on the binding's loop thread; the calls arrive on Go
    # threads first: profile those from their first callback on too.
    from polymcp import _bridge

    on_call = _bridge.Bridge.on_call

    def profiled_on_call(self: _bridge.Bridge, *args: Any) -> None:
        seen()
        on_call(self, *args)

    _bridge.Bridge.on_call = profiled_on_call  # type: ignore[method-assign]
    return seen


def _hold_gil_on_complete() -> None:
    """Experiment (POLYMCP_BENCH_EXPERIMENT=hold-gil), for the profile notes
    only: polymcp_call_complete and _fail through ctypes.PyDLL, which keeps
    the GIL across the call instead of dropping and re-taking it. Safe for
    these two because they never block and never call back."""
    import ctypes

    from polymcp import _native

    lib = _native.library()
    held = ctypes.PyDLL(str(lib.path))
    complete, fail = held.polymcp_call_complete, held.polymcp_call_fail
    complete.argtypes = [ctypes.c_uint64, ctypes.c_char_p, ctypes.c_size_t]
    fail.argtypes = [ctypes.c_uint64, ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t]
    complete.restype = fail.restype = ctypes.c_int
    lib._complete, lib._fail = complete, fail  # type: ignore[attr-defined]  # noqa: SLF001


def main() -> int:
    args = parse("polymcp_echo.py", variants=("sync", "async"))
    if os.environ.get("POLYMCP_BENCH_EXPERIMENT") == "hold-gil":
        _hold_gil_on_complete()
    server = build(args.handler, os.environ.get("POLYMCP_BENCH_PROFILE"))
    if args.http is None:
        server.run()
        return 0
    # polymcp binds the port itself and writes "... serving ... at <url>" on stderr.
    server.run(transport="http", host=args.host, port=args.port, path=args.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
