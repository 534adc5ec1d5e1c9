"""Cold start of an MCP server: spawn → initialize answered → first
tools/call answered, over stdio or Streamable HTTP. Standard library only.

An HTTP server's argv holds ``{port}`` (as the bench driver's does): a
free port is put there and the server is ready once that port accepts a
connection; its endpoint is http://127.0.0.1:PORT/mcp. Without ``{port}``,
the server must print its URL (``serving http://…``) on stderr. Either way
the time until then is part of its start ("listening").
"""

from __future__ import annotations

import http.client
import json
import os
import queue
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.parse
from dataclasses import asdict, dataclass, field
from statistics import median
from typing import Any

PROTOCOL = "2025-06-18"
INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": PROTOCOL, "capabilities": {},
                   "clientInfo": {"name": "coldstart", "version": "0.1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CALL = {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "cold"}}}
URL = re.compile(rb"https?://[^\s\"']+")
TIMEOUT = 30.0


@dataclass
class Sample:
    ready_ms: float | None  # HTTP: spawn → URL on stderr
    init_ms: float          # spawn → initialize answered
    first_call_ms: float    # spawn → first tools/call answered
    rss_mib: float          # VmRSS right after the first answer


@dataclass
class ColdStart:
    server: str
    transport: str
    samples: list[Sample] = field(default_factory=list)
    failure: str = ""

    def medians(self) -> dict[str, float | None]:
        if not self.samples:
            return {"ready_ms": None, "init_ms": None, "first_call_ms": None, "rss_mib": None}
        ready = [s.ready_ms for s in self.samples if s.ready_ms is not None]
        return {"ready_ms": median(ready) if ready else None,
                "init_ms": median(s.init_ms for s in self.samples),
                "first_call_ms": median(s.first_call_ms for s in self.samples),
                "rss_mib": median(s.rss_mib for s in self.samples)}

    def to_json(self) -> dict[str, Any]:
        return {"server": self.server, "transport": self.transport, "failure": self.failure,
                "median": self.medians(), "samples": [asdict(s) for s in self.samples]}


def rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _check_echo(msg: dict[str, Any]) -> None:
    try:
        text = msg["result"]["content"][0]["text"]
    except (KeyError, IndexError, TypeError):
        raise RuntimeError(f"bad tools/call answer: {json.dumps(msg)[:200]}") from None
    if text != "cold":
        raise RuntimeError(f"echo answered {text!r}")


class _Lines:
    """Reads a pipe on a thread, so the child never blocks on a full pipe."""

    def __init__(self, pipe: Any) -> None:
        self.q: queue.Queue[bytes | None] = queue.Queue()
        self.tail: list[bytes] = []
        threading.Thread(target=self._run, args=(pipe,), daemon=True).start()

    def _run(self, pipe: Any) -> None:
        for line in iter(pipe.readline, b""):
            self.q.put(line)
            self.tail = (self.tail + [line])[-5:]
        self.q.put(None)

    def next(self, deadline: float) -> bytes:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("no answer in time")
        try:
            line = self.q.get(timeout=left)
        except queue.Empty:
            raise TimeoutError("no answer in time") from None
        if line is None:
            raise EOFError("the server closed its output")
        return line


def _stop(proc: subprocess.Popen[bytes], http_server: bool) -> None:
    if proc.poll() is None:
        if http_server:
            proc.send_signal(signal.SIGTERM)
        elif proc.stdin:
            proc.stdin.close()
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def stdio_once(argv: list[str], env: dict[str, str] | None) -> Sample:
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    out, err = _Lines(proc.stdout), _Lines(proc.stderr)
    deadline = time.monotonic() + TIMEOUT
    try:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps(INIT).encode() + b"\n")
        proc.stdin.flush()

        def answer(want: int) -> dict[str, Any]:
            while True:
                msg = json.loads(out.next(deadline))
                if msg.get("id") == want and "method" not in msg:
                    if "error" in msg:
                        raise RuntimeError(f"error answer: {msg['error']}")
                    return msg

        answer(1)
        t_init = time.perf_counter()
        proc.stdin.write(json.dumps(INITIALIZED).encode() + b"\n" + json.dumps(CALL).encode() + b"\n")
        proc.stdin.flush()
        _check_echo(answer(2))
        t_call = time.perf_counter()
        rss = rss_mib(proc.pid)
    except Exception as e:
        raise RuntimeError(f"{e} (stderr: {b''.join(err.tail).decode(errors='replace').strip()[-300:]})") from e
    finally:
        _stop(proc, False)
    return Sample(None, (t_init - t0) * 1e3, (t_call - t0) * 1e3, rss)


class _HTTP:
    def __init__(self, url: str) -> None:
        u = urllib.parse.urlsplit(url)
        self.path = u.path or "/"
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=TIMEOUT)
        self.session: str | None = None
        self.initialized = False

    def post(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        if self.initialized:
            headers["MCP-Protocol-Version"] = PROTOCOL
        self.conn.request("POST", self.path, body=json.dumps(msg).encode(), headers=headers)
        resp = self.conn.getresponse()
        body = resp.read()
        if resp.status >= 300:
            raise RuntimeError(f"HTTP {resp.status}: {body[:200]!r}")
        if sid := resp.getheader("Mcp-Session-Id"):
            self.session = sid
        if "id" not in msg:
            return None
        frames: list[bytes]
        if "text/event-stream" in (resp.getheader("Content-Type") or ""):
            frames, data = [], []
            for line in body.splitlines() + [b""]:
                if line.startswith(b"data:"):
                    data.append(line[5:].strip())
                elif not line and data:
                    frames.append(b"\n".join(data))
                    data = []
        else:
            frames = [body]
        for frame in frames:
            m = json.loads(frame)
            if m.get("id") == msg["id"] and "method" not in m:
                if "error" in m:
                    raise RuntimeError(f"error answer: {m['error']}")
                return m
        raise RuntimeError(f"no answer to {msg['method']} in {body[:200]!r}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_port(proc: subprocess.Popen[bytes], port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise EOFError(f"the server exited ({proc.returncode}) before listening")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.002)
    raise TimeoutError(f"nothing listened on port {port}")


def http_once(argv: list[str], env: dict[str, str] | None) -> Sample:
    port = _free_port() if any("{port}" in a for a in argv) else 0
    argv = [a.replace("{port}", str(port)) for a in argv]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=env)
    err = _Lines(proc.stderr)
    deadline = time.monotonic() + TIMEOUT
    try:
        if port:
            _wait_port(proc, port, deadline)
            url = f"http://127.0.0.1:{port}/mcp"
        else:
            while True:
                m = URL.search(err.next(deadline))
                if m:
                    url = m.group(0).decode()
                    break
        t_ready = time.perf_counter()
        c = _HTTP(url)
        c.post(INIT)
        t_init = time.perf_counter()
        c.initialized = True
        c.post(INITIALIZED)
        ans = c.post(CALL)
        assert ans is not None
        _check_echo(ans)
        t_call = time.perf_counter()
        rss = rss_mib(proc.pid)
        c.conn.close()
    except Exception as e:
        raise RuntimeError(f"{e} (stderr: {b''.join(err.tail).decode(errors='replace').strip()[-300:]})") from e
    finally:
        _stop(proc, True)
    return Sample((t_ready - t0) * 1e3, (t_init - t0) * 1e3, (t_call - t0) * 1e3, rss)


def measure(server: str, transport: str, argv: list[str], n: int = 5,
            env: dict[str, str] | None = None) -> ColdStart:
    """n cold starts (plus one unmeasured, to warm the page cache)."""
    once = stdio_once if transport == "stdio" else http_once
    cs = ColdStart(server, transport)
    try:
        once(argv, env)
        for _ in range(n):
            cs.samples.append(once(argv, env))
    except Exception as e:  # noqa: BLE001 - reported, the run goes on
        cs.failure = str(e)
    return cs


if __name__ == "__main__":
    import sys
    transport, argv = sys.argv[1], sys.argv[2:]
    print(json.dumps(measure(os.path.basename(argv[-1]), transport, argv).to_json(), indent=1))
