"""An MCP server on the official Python SDK (``mcp``'s MCPServer), for the
interop tests of polymcp's client (client/interop_test.go).

    python sdk_server.py                      # stdio
    python sdk_server.py --http 127.0.0.1:0   # Streamable HTTP; prints its URL on stderr

Tools: echo {text}, count {n} (progress 1..n, then "counted n"), ask
{prompt} (asks the client's model: sampling/createMessage), sleep {ms}.
Resource interop://hello, prompt greet {name}.
"""

from __future__ import annotations

import anyio
import socket
import sys
import threading
import time

import mcp.types as types
from mcp.server.mcpserver import Context, MCPServer


def build() -> MCPServer:
    server: MCPServer = MCPServer("py-sdk-interop")

    @server.tool(description="Echo the text")
    async def echo(text: str) -> str:
        return text

    @server.tool(description="Report progress 1..n")
    async def count(n: int, ctx: Context) -> str:
        for i in range(1, n + 1):
            await ctx.report_progress(i, n)
        return f"counted {n}"

    @server.tool(description="Ask the client's model")
    async def ask(prompt: str, ctx: Context) -> str:
        res = await ctx.session.create_message(
            messages=[types.SamplingMessage(role="user", content=types.TextContent(type="text", text=prompt))],
            max_tokens=50,
        )
        return f"model said: {res.content.text}"

    @server.tool(description="Wait ms milliseconds")
    async def sleep(ms: int) -> str:
        await anyio.sleep(ms / 1000)
        return "slept"

    @server.resource("interop://hello", mime_type="text/plain")
    def hello() -> str:
        return "hello from the Python SDK"

    @server.prompt(description="Greet someone")
    def greet(name: str) -> str:
        return f"Say hello to {name}"

    return server


def free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def announce(host: str, port: int) -> None:
    """Print the URL once uvicorn accepts connections on it."""
    while True:
        try:
            socket.create_connection((host, port), timeout=1).close()
            break
        except OSError:
            time.sleep(0.02)
    print(f"serving http://{host}:{port}/mcp", file=sys.stderr, flush=True)


def main() -> int:
    server = build()
    if "--http" not in sys.argv:
        server.run()
        return 0
    host, port = sys.argv[sys.argv.index("--http") + 1].rsplit(":", 1)
    port = int(port) or free_port(host)
    threading.Thread(target=announce, args=(host, port), daemon=True).start()
    server.run("streamable-http", host=host, port=port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
