"""The echo tool on the ``fastmcp`` package, default settings.

    python fastmcp_echo.py                                # stdio
    python fastmcp_echo.py --http 127.0.0.1:0 [--stateless] [--json]

Over HTTP this is ``FastMCP.run("http")`` (uvicorn, default settings,
INFO access log included) on the port given, a free one for port 0.
"""

from __future__ import annotations

import sys

from fastmcp import FastMCP

from _common import DESCRIPTION, free_port, parse


def build() -> FastMCP:
    server = FastMCP("fastmcp-echo")

    @server.tool(name="echo", description=DESCRIPTION)
    async def echo(text: str) -> str:
        return text

    return server


def main() -> int:
    args = parse("fastmcp_echo.py")
    server = build()
    if args.http is None:
        server.run(show_banner=False)
        return 0
    server.run("http", show_banner=False, host=args.host, port=args.port or free_port(args.host),
               path=args.path, stateless_http=args.stateless, json_response=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
