"""The everything example plus ``hold``, a tool that waits until it is
cancelled and says so on stderr: the child server of the interop tests that
check that the handler itself sees the client's cancellation.

    python holdserver.py [--http HOST:PORT]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable

import polymcp
from polymcp import everything


def _say(event: str) -> None:
    print(f"hold: {event}", file=sys.stderr, flush=True)


def build(say: Callable[[str], None] = _say) -> polymcp.Server:
    server = everything.build()

    @server.tool()
    async def hold(ctx: polymcp.Context) -> str:
        """Reports progress once, then waits until cancelled"""
        await ctx.report_progress(1, 2, "holding")
        say("started")
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            say("cancelled")
            raise
        say("finished")
        return "finished"

    return server


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--http")
    args = parser.parse_args()
    if args.http:
        host, _, port = args.http.rpartition(":")
        build().run(transport="http", host=host, port=int(port))
    else:
        build().run()
