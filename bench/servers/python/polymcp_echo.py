"""The echo tool on polymcp's Python binding (bindings/python), taken from
this checkout's sources and build/libpolymcp.so.

    python polymcp_echo.py [--handler sync|async] [--http HOST:PORT]
"""

from __future__ import annotations

import sys
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(_ROOT / "bindings" / "python" / "src"))

import polymcp  # noqa: E402

from _common import DESCRIPTION, parse  # noqa: E402


def build(handler: str) -> polymcp.Server:
    server = polymcp.Server("polymcp-echo", version=polymcp.__version__)
    if handler == "sync":
        def echo(text: str) -> str:
            return text
    else:
        async def echo(text: str) -> str:  # type: ignore[misc]
            return text
    echo.__doc__ = DESCRIPTION
    server.tool(name="echo")(echo)
    return server


def main() -> int:
    args = parse("polymcp_echo.py", variants=("sync", "async"))
    server = build(args.handler)
    if args.http is None:
        server.run()
        return 0
    # polymcp binds the port itself and writes "... serving ... at <url>" on stderr.
    server.run(transport="http", host=args.host, port=args.port, path=args.path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
