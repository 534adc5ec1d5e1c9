"""Literal HTTP for the HTTP tests: requests written by hand with
http.client (or a raw socket), answers parsed as the wire has them."""

from __future__ import annotations

import http.client
import json
import socket
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

TIMEOUT = 30.0  # a failure bound only, never a timing assertion

MODERN = "2026-07-28"
MODERN_META: dict[str, Any] = {"io.modelcontextprotocol/protocolVersion": MODERN,
                               "io.modelcontextprotocol/clientCapabilities": {}}
SERVER_INFO = {"name": "polymcp-everything", "title": "polymcp everything", "version": "0.1.0"}
ACCEPT = "application/json, text/event-stream"


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    raw_headers: list[tuple[str, str]] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.body)

    def events(self) -> list[dict[str, Any]]:
        """The SSE events of the body: {"event", "id", "data"} per event."""
        return sse_events(self.body)

    def messages(self) -> list[Any]:
        return [json.loads(e["data"]) for e in self.events() if e.get("data")]


def sse_events(body: bytes) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for block in body.decode().replace("\r\n", "\n").split("\n\n"):
        if not block.strip():
            continue
        event: dict[str, Any] = {}
        data: list[str] = []
        for line in block.split("\n"):
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            elif name:
                event[name] = value
        if data:
            event["data"] = "\n".join(data)
        if event:
            events.append(event)
    return events


def request(url: str, method: str = "POST", body: bytes | None = None,
            headers: dict[str, str] | None = None, path: str | None = None,
            chunked: bool = False) -> Reply:
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=TIMEOUT)
    try:
        target = path if path is not None else (parts.path or "/")
        if chunked:
            conn.request(method, target, body=iter([body or b""]), headers=headers or {},
                         encode_chunked=True)
        else:
            conn.request(method, target, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        raw = resp.getheaders()
        return Reply(resp.status, {k.lower(): v for k, v in raw}, data, raw)
    finally:
        conn.close()


def modern_call(url: str, id: Any, name: str, arguments: dict[str, Any],
                meta: dict[str, Any] | None = None, path: str | None = None) -> Reply:
    """A 2026-07-28 tools/call with the headers the revision requires."""
    body = {"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": name, "arguments": arguments, "_meta": {**MODERN_META,
                                                                       **(meta or {})}}}
    return request(url, body=json.dumps(body).encode(), path=path,
                   headers=modern_headers("tools/call", name))


def modern_headers(method: str, name: str | None = None) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": ACCEPT, "MCP-Protocol-Version": MODERN,
         "Mcp-Method": method}
    if name is not None:
        h["Mcp-Name"] = name
    return h


def legacy_headers(session: str | None = None, version: str | None = None) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": ACCEPT}
    if session:
        h["Mcp-Session-Id"] = session
    if version:
        h["MCP-Protocol-Version"] = version
    return h


def raw_post(url: str, body: bytes, headers: dict[str, str]) -> socket.socket:
    """Sends a POST on a socket of its own and returns the socket, for tests
    that read part of the answer and then go away."""
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80), TIMEOUT)
    lines = [f"POST {parts.path or '/'} HTTP/1.1", f"Host: {parts.hostname}:{parts.port}",
             f"Content-Length: {len(body)}", *(f"{k}: {v}" for k, v in headers.items())]
    sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    return sock


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise AssertionError(f"connection closed before {marker!r}; got {data!r}")
        data += chunk
    return data


def read_to_end(sock: socket.socket) -> bytes:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return data
        data += chunk
