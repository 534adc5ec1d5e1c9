"""The echo tool on the official Python SDK's high-level server: ``mcp``
2.x's MCPServer (the class that was ``mcp.server.fastmcp.FastMCP`` in 1.x),
default settings.

    python sdk_echo.py                                   # stdio
    python sdk_echo.py --http 127.0.0.1:0 [--stateless] [--json]

Over HTTP this runs what ``MCPServer.run("streamable-http")`` runs (its
Starlette app under uvicorn), on a socket bound here so port 0 works.
"""

from __future__ import annotations

import sys

import anyio
from mcp.server.mcpserver import MCPServer

from _common import DESCRIPTION, announce, listen, parse


def build() -> MCPServer:
    server: MCPServer = MCPServer("mcp-sdk-echo")

    @server.tool(name="echo", description=DESCRIPTION)
    async def echo(text: str) -> str:
        return text

    return server


async def serve_http(server: MCPServer, host: str, port: int, path: str,
                     stateless: bool, json_response: bool) -> None:
    import uvicorn

    app = server.streamable_http_app(streamable_http_path=path, stateless_http=stateless,
                                     json_response=json_response, host=host)
    sock = listen(host, port)
    config = uvicorn.Config(app, log_level="warning")
    announce(sock, path)
    await uvicorn.Server(config).serve(sockets=[sock])


def main() -> int:
    args = parse("sdk_echo.py")
    server = build()
    if args.http is None:
        server.run()
        return 0
    anyio.run(serve_http, server, args.host, args.port, args.path, args.stateless, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
