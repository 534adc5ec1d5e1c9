"""Shared by the Python echo servers: the command line. ``--http HOST:PORT``
serves Streamable HTTP (stdio without it); the bench driver passes a free
port it picked (``{port}`` in its command) and waits until it accepts
connections. Port 0 picks a free port here, for running a server by hand."""

from __future__ import annotations

import argparse
import socket

#: What every server's echo tool says about itself.
DESCRIPTION = "Returns its text argument as one text item"


def parse(prog: str, *, variants: tuple[str, ...] = ()) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog=prog, description="an MCP server with one echo tool")
    p.add_argument("--http", metavar="HOST:PORT",
                   help="serve Streamable HTTP on HOST:PORT (port 0: any free port) instead of stdio")
    p.add_argument("--path", default="/mcp", help="the HTTP endpoint's path (default /mcp)")
    p.add_argument("--stateless", action="store_true",
                   help="HTTP: no sessions (a fresh transport per request)")
    p.add_argument("--json", action="store_true",
                   help="HTTP: answer POSTs with a JSON body instead of an SSE stream")
    if variants:
        p.add_argument("--handler", choices=variants, default=variants[0],
                       help="which echo handler to register")
    args = p.parse_args()
    if args.http is not None:
        host, sep, port = args.http.rpartition(":")
        if not sep or not port.isdigit():
            p.error(f"--http wants HOST:PORT, got {args.http!r}")
        args.host, args.port = host.strip("[]") or "127.0.0.1", int(port)
    return args


def free_port(host: str) -> int:
    """A port nothing listens on right now, for a server that binds it itself."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])
