"""Shared by the Python echo servers: the command line (``--http HOST:PORT``
for Streamable HTTP, stdio without it) and the readiness line the HTTP
servers write to stderr, ``serving <url>``, once their socket listens."""

from __future__ import annotations

import argparse
import socket
import sys

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


def listen(host: str, port: int) -> socket.socket:
    """A listening TCP socket, so port 0 works and the URL can be told
    before the ASGI server starts accepting (connections wait in the backlog)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


def announce(sock: socket.socket, path: str) -> None:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    print(f"serving http://{shown}:{port}{path}", file=sys.stderr, flush=True)
