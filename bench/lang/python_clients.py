"""polymcp.Client (the Python binding's client, over libpolymcp) side by side
with the official Python SDK's client (`mcp` 2.3.0: stdio_client /
streamable_http_client + ClientSession), both calling the echo tool of
`build/polymcp everything` (the pure-Go server, a child process).

    build/python-venv/bin/python bench/lang/python_clients.py [flags]

(`make -C . python-venv` makes that venv; it has `mcp` 2.3.0.) Every
measurement runs in a fresh process of this script (`--one ...`), which
starts the server, connects, warms up, then keeps C calls in flight
(asyncio tasks, each awaiting its call in a loop) for the window. calls/s
and p50/p99 latency are the window's; CPU µs/call is getrusage(RUSAGE_SELF)
of that client process over the window (user + system, every thread: the
Go threads of libpolymcp count, the server does not). Clients take turns
in each configuration, their order rotated each round; the best round (most
calls/s) is kept. Reports: bench/results/<UTC date>-python-clients.md/.json.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import platform
import resource
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
ROOT = HERE.parents[2]
POLYMCP = ROOT / "build" / "polymcp"
RESULTS = ROOT / "bench" / "results"

#: name -> what it is, for the report.
CLIENTS = {
    "polymcp": "`polymcp.Client` (this checkout's bindings/python/src over build/libpolymcp.so), "
               "revision negotiated: 2026-07-28 against this server",
    "polymcp-2025": "`polymcp.Client(..., revision=\"2025-11-25\")`: the SDK's handshake revision",
    "mcp-sdk": "`mcp` 2.3.0 `stdio_client` / `streamable_http_client` + `ClientSession.initialize()` "
               "(2025-11-25, the SDK's handshake)",
    "mcp-sdk-modern": "the same, `ClientSession.discover()` instead of initialize (2026-07-28)",
}

Call = Callable[[str], Awaitable[str]]


# ---- one measurement (in its own process) ------------------------------------------

@asynccontextmanager
async def http_server() -> AsyncIterator[str]:
    proc = subprocess.Popen([str(POLYMCP), "everything", "--http", "127.0.0.1:0"],
                            stderr=subprocess.PIPE)
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    if "serving http" not in line:
        proc.kill()
        raise RuntimeError(f"polymcp everything --http: {line!r}")
    threading.Thread(target=proc.stderr.read, daemon=True).start()
    try:
        yield line.split()[-1]
    finally:
        proc.terminate()
        proc.wait(10)


@asynccontextmanager
async def polymcp_client(transport: str, revision: str | None) -> AsyncIterator[tuple[Call, str]]:
    sys.path.insert(0, os.environ.get("POLYMCP_PY_SRC") or str(ROOT / "bindings" / "python" / "src"))
    import polymcp

    async def open_(target: Any) -> AsyncIterator[tuple[Call, str]]:
        async with polymcp.Client(target, revision=revision) as client:
            async def call(text: str) -> str:
                return (await client.call_tool("echo", {"text": text})).text
            yield call, str(client.protocol_version)

    if transport == "stdio":
        async for pair in open_([str(POLYMCP), "everything"]):
            yield pair
    else:
        async with http_server() as url:
            async for pair in open_(url):
                yield pair


@asynccontextmanager
async def sdk_client(transport: str, modern: bool) -> AsyncIterator[tuple[Call, str]]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.client.streamable_http import streamable_http_client

    @asynccontextmanager
    async def streams() -> AsyncIterator[Any]:
        if transport == "stdio":
            async with stdio_client(StdioServerParameters(command=str(POLYMCP),
                                                          args=["everything"])) as s:
                yield s
        else:
            async with http_server() as url, streamable_http_client(url) as s:
                yield s

    async with streams() as s:
        async with ClientSession(s[0], s[1]) as session:
            if modern:
                got = await session.discover()
                version = getattr(got, "protocol_version", None) or "2026-07-28"
            else:
                init = await session.initialize()
                version = init.protocol_version

            async def call(text: str) -> str:
                result = await session.call_tool("echo", {"text": text})
                return str(getattr(result.content[0], "text", ""))
            yield call, str(version)


def open_client(name: str, transport: str) -> Any:
    if name == "polymcp":
        return polymcp_client(transport, None)
    if name == "polymcp-2025":
        return polymcp_client(transport, "2025-11-25")
    if name == "mcp-sdk":
        return sdk_client(transport, False)
    if name == "mcp-sdk-modern":
        return sdk_client(transport, True)
    raise SystemExit(f"unknown client {name}")


def cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


async def measure(name: str, transport: str, c: int, payload: int, warmup: float,
                  duration: float) -> dict[str, Any]:
    text = "x" * payload
    async with open_client(name, transport) as (call, version):
        assert await call(text) == text, "echo answered something else"
        phase = {"record": False, "stop": False}
        lat: list[float] = []
        errors = 0

        async def worker() -> None:
            nonlocal errors
            while not phase["stop"]:
                t0 = time.perf_counter()
                try:
                    got = await call(text)
                    if len(got) != payload:
                        errors += 1
                except Exception:  # noqa: BLE001 - counted
                    errors += 1
                if phase["record"]:
                    lat.append(time.perf_counter() - t0)

        tasks = [asyncio.ensure_future(worker()) for _ in range(c)]
        await asyncio.sleep(warmup)
        errors = 0
        cpu0, t0 = cpu_s(), time.perf_counter()
        phase["record"] = True
        await asyncio.sleep(duration)
        phase["record"] = False
        n, elapsed, cpu = len(lat), time.perf_counter() - t0, cpu_s() - cpu0
        phase["stop"] = True
        await asyncio.gather(*tasks)
    lat.sort()
    pick = (lambda q: lat[min(n - 1, int(q * n))] * 1e6) if n else (lambda q: 0.0)
    return {"client": name, "transport": transport, "concurrency": c, "payload_bytes": payload,
            "protocol_version": version, "calls": n, "seconds": elapsed,
            "calls_per_sec": n / elapsed, "p50_us": pick(0.50), "p99_us": pick(0.99),
            "client_cpu_us_per_call": cpu / n * 1e6 if n else 0.0, "errors": errors}


# ---- the run ----------------------------------------------------------------------

def run_one(name: str, transport: str, c: int, payload: int, args: argparse.Namespace,
            rnd: int) -> dict[str, Any]:
    argv = [sys.executable, str(HERE), "--one", name, transport, str(c), str(payload),
            "--warmup", str(args.warmup), "--duration", str(args.duration)]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    res: dict[str, Any] | None = None
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            res = json.loads(line)
    if res is None:
        res = {"client": name, "transport": transport, "concurrency": c, "payload_bytes": payload,
               "failure": (p.stderr.strip().splitlines() or ["no result"])[-1]}
    res["round"] = rnd
    return res


def good(r: dict[str, Any]) -> bool:
    return not r.get("failure") and not r.get("errors")


def size(n: int) -> str:
    return f"{n // 1024} KiB" if n >= 1024 and n % 1024 == 0 else f"{n} B"


def line(r: dict[str, Any]) -> str:
    head = f"{r['client']:<15} {r['transport']:<5} C={r['concurrency']:<3} {size(r['payload_bytes']):<7}"
    if r.get("failure"):
        return head + " FAILED: " + r["failure"]
    return (head + f" {r['calls_per_sec']:8.0f} calls/s  p50 {r['p50_us']:8.0f} µs  "
            f"p99 {r['p99_us']:8.0f} µs  cpu {r['client_cpu_us_per_call']:7.1f} µs/call  "
            f"errors {r['errors']}")


def report(best: list[dict[str, Any]], everything: list[dict[str, Any]],
           args: argparse.Namespace) -> None:
    now = dt.datetime.now(dt.timezone.utc)
    stem = RESULTS / f"{now:%Y-%m-%d}-python-clients{args.suffix}"
    RESULTS.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "bindings/python"],
                           capture_output=True, text=True).stdout.strip()
    meta = {"date": now.isoformat(timespec="seconds"), "commit": commit + ("+dirty" if dirty else ""),
            "python": platform.python_version(), "machine": platform.machine(),
            "cpus": os.cpu_count(), "rounds": args.rounds, "warmup_s": args.warmup,
            "duration_s": args.duration, "clients": {c: CLIENTS[c] for c in args.clients},
            "note": args.note}
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "best": best,
                                                     "all": everything}, indent=1) + "\n")
    rows = [f"# Python clients: polymcp.Client vs the official SDK ({now:%Y-%m-%d})", "",
            f"Commit {meta['commit']}, Python {meta['python']}, {meta['cpus']} CPUs. "
            f"Server: `build/polymcp everything` (Go), a child process, `echo` tool. "
            f"Best of {args.rounds} interleaved rounds, {args.warmup} s warmup + {args.duration} s "
            "window each, every measurement in a fresh client process. CPU µs/call: the client "
            "process's getrusage(RUSAGE_SELF) over the window (all its threads; not the server).",
            ""]
    if args.note:
        rows += [args.note, ""]
    rows += [f"- `{c}`: {CLIENTS[c]}" for c in args.clients] + [""]
    index = {(r["client"], r["transport"], r["concurrency"], r["payload_bytes"]): r for r in best}
    ref = "mcp-sdk"
    for t in args.transports:
        rows += [f"## {t}", "", "| client | revision | C | payload | calls/s | p50 µs | p99 µs "
                 "| client CPU µs/call | calls/s ÷ mcp-sdk | CPU ÷ mcp-sdk | errors |",
                 "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
        for p in args.payloads:
            for c in args.c:
                peer = index.get((ref, t, c, p))
                for name in args.clients:
                    r = index.get((name, t, c, p))
                    if r is None:
                        continue
                    if r.get("failure"):
                        rows.append(f"| {name} | | {c} | {size(p)} | failed: {r['failure'][:100]} "
                                    "| | | | | | |")
                        continue
                    tr = cr = "–"
                    if peer and good(peer) and peer["calls_per_sec"]:
                        tr = f"{r['calls_per_sec'] / peer['calls_per_sec']:.2f}"
                        cr = f"{r['client_cpu_us_per_call'] / peer['client_cpu_us_per_call']:.2f}"
                    bold = f"**{name}**" if name.startswith("polymcp") else name
                    rows.append(f"| {bold} | {r['protocol_version']} | {c} | {size(p)} "
                                f"| {r['calls_per_sec']:,.0f} | {r['p50_us']:,.0f} "
                                f"| {r['p99_us']:,.0f} | {r['client_cpu_us_per_call']:,.1f} "
                                f"| {tr} | {cr} | {r['errors']} |".replace(",", " "))
        rows.append("")
    stem.with_suffix(".md").write_text("\n".join(rows))
    print(f"wrote {stem}.md and .json", file=sys.stderr)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", nargs=4, metavar=("CLIENT", "TRANSPORT", "C", "PAYLOAD"),
                    help="measure one configuration in this process and print its JSON")
    ap.add_argument("--clients", nargs="+", default=list(CLIENTS), choices=list(CLIENTS))
    ap.add_argument("--transports", nargs="+", default=["stdio", "http"], choices=["stdio", "http"])
    ap.add_argument("-c", nargs="+", type=int, default=[1, 16])
    ap.add_argument("--payloads", nargs="+", type=int, default=[16, 65536])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=float, default=0.5)
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--suffix", default="", help="added to the report's file name")
    ap.add_argument("--note", default="", help="a line for the report")
    args = ap.parse_args()
    if args.one:
        name, transport, c, payload = args.one
        res = asyncio.run(measure(name, transport, int(c), int(payload), args.warmup, args.duration))
        print(json.dumps(res), flush=True)
        return
    if not POLYMCP.is_file():
        raise SystemExit(f"{POLYMCP} is missing: run `make build`")
    plan = [(t, p, c) for t in args.transports for p in args.payloads for c in args.c]
    total, n = len(plan) * len(args.clients) * args.rounds, 0
    best: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    everything: list[dict[str, Any]] = []
    for t, p, c in plan:
        for rnd in range(1, args.rounds + 1):
            k = (rnd - 1) % len(args.clients)
            for name in args.clients[k:] + args.clients[:k]:
                n += 1
                r = run_one(name, t, c, p, args, rnd)
                everything.append(r)
                key = (name, t, c, p)
                old = best.get(key)
                if old is None or (good(r), r.get("calls_per_sec", 0)) > \
                        (good(old), old.get("calls_per_sec", 0)):
                    best[key] = r
                print(f"[{n}/{total}] {line(r)}", file=sys.stderr, flush=True)
    report(list(best.values()), everything, args)


if __name__ == "__main__":
    main()
