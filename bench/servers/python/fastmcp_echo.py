"""The echo tool on the ``fastmcp`` package, default settings.

    python fastmcp_echo.py                                # stdio
    python fastmcp_echo.py --http 127.0.0.1:0 [--stateless] [--json]

Over HTTP this is ``FastMCP.run_http_async`` (uvicorn), on a socket bound
here so port 0 works.
"""

from __future__ import annotations

import sys

import anyio
from fastmcp import FastMCP

from _common import DESCRIPTION, announce, listen, parse


def build() -> FastMCP:
    server = FastMCP("fastmcp-echo")

    @server.tool(name="echo", description=DESCRIPTION)
    async def echo(text: str) -> str:
        return text

    return server


async def serve_http(server: FastMCP, host: str, port: int, path: str,
                     stateless: bool, json_response: bool) -> None:
    sock = listen(host, port)
    announce(sock, path)
    await server.run_http_async(show_banner=False, host=host, port=sock.getsockname()[1],
                                path=path, log_level="warning", stateless_http=stateless,
                                json_response=json_response, sockets=[sock])


def main() -> int:
    args = parse("fastmcp_echo.py")
    server = build()
    if args.http is None:
        server.run(show_banner=False)
        return 0
    anyio.run(serve_http, server, args.host, args.port, args.path, args.stateless, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
