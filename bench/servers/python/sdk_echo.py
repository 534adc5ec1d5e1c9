"""The echo tool on the official Python SDK's high-level server: ``mcp``
2.x's MCPServer (the class that was ``mcp.server.fastmcp.FastMCP`` in 1.x),
default settings.

    python sdk_echo.py                                   # stdio
    python sdk_echo.py --http 127.0.0.1:0 [--stateless] [--json]

Over HTTP this is ``MCPServer.run("streamable-http")`` (its Starlette app
under uvicorn, default settings, INFO access log included) on the port
given, a free one for port 0. (An earlier version bound the socket itself
and handed it to uvicorn: that cost every answer a ~40 ms stall.)
"""

from __future__ import annotations

import sys

from mcp.server.mcpserver import MCPServer

from _common import DESCRIPTION, free_port, parse


def build() -> MCPServer:
    server: MCPServer = MCPServer("mcp-sdk-echo")

    @server.tool(name="echo", description=DESCRIPTION)
    async def echo(text: str) -> str:
        return text

    return server


def main() -> int:
    args = parse("sdk_echo.py")
    server = build()
    if args.http is None:
        server.run()
        return 0
    # What MCPServer.run("streamable-http") runs: its Starlette app under uvicorn.
    server.run("streamable-http", host=args.host, port=args.port or free_port(args.host),
               streamable_http_path=args.path, stateless_http=args.stateless, json_response=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
