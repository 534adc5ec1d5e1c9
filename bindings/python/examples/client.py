"""A polymcp.Client: starts the MCP server whose command follows "--",
prints what it offers, calls its echo tool and, if it has one, its
test_sampling tool, whose question this client answers itself.

    python client.py -- node ../../node/examples/everything.mjs
"""

import asyncio
import sys

import polymcp


def sample(params: dict) -> str:
    """The client's model: a canned reply to the server's sampling/createMessage."""
    return "a reply from Python"


async def main(command: list[str]) -> None:
    async with polymcp.Client(command, sampling_handler=sample) as client:
        print(f"connected to {client.server_info['name']} ({client.protocol_version})")
        tools = {tool["name"] for tool in await client.list_tools()}
        print(f"{len(tools)} tools")
        echo = await client.call_tool("echo", {"text": "hello from Python"})
        print(f"echo: {echo.text}")
        if "test_sampling" in tools:
            sampled = await client.call_tool("test_sampling", {"prompt": "hi"})
            print(f"sampling: {sampled.text}")


if __name__ == "__main__":
    if "--" not in sys.argv or sys.argv.index("--") == len(sys.argv) - 1:
        sys.exit("usage: client.py -- COMMAND [ARGS...]")
    asyncio.run(main(sys.argv[sys.argv.index("--") + 1:]))
