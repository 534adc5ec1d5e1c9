"""polymcp's Python and Node bindings side by side with their languages'
official SDKs: the same echo tool over stdio and Streamable HTTP.

    python3 lang/bench.py python|node [flags]      (from bench/; run.sh sets it up)

The load itself is the bench driver's (cmd/mcpbench): one `mcpbench stdio`
(or `mcpbench http`) run per server and configuration, servers interleaved
and their order rotated each round, as the Go suite does. Cold start is
measured here (coldstart.py). The report goes to
results/<UTC date>-<language>.md and .json.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import coldstart

BENCH = Path(__file__).resolve().parents[1]  # bench/
ROOT = BENCH.parent
#: The driver (and coldstart.py) put a free port they picked in place of {port}.
HTTP_ARGS = ["--http", "127.0.0.1:{port}"]


@dataclass
class Server:
    name: str
    argv: list[str]                   # the stdio command; HTTP adds http_flags and HTTP_ARGS
    polymcp: bool = False
    transports: tuple[str, ...] = ("stdio", "http-session", "http-stateless")
    # Extra flags per HTTP mode. polymcp has one endpoint for every mode.
    http_flags: dict[str, list[str]] = field(default_factory=lambda: {
        "http-session": [], "http-stateless": ["--stateless", "--json"]})

    def command(self, transport: str) -> list[str]:
        if transport == "stdio":
            return self.argv
        return self.argv + self.http_flags.get(transport, []) + HTTP_ARGS


#: The HTTP modes, which --transports http stands for.
HTTP_MODES = ["http-session", "http-stateless", "http-modern"]

#: What each transport key means, for the report.
TRANSPORT_LEGEND = {
    "stdio": "newline-delimited JSON-RPC over the child's stdin/stdout",
    "http-session": "Streamable HTTP, the driver's session-shape client (`mcpbench http`: initialize asking "
                    "for 2025-11-25, then Mcp-Session-Id on every POST when the server mints one). "
                    "Peers run their defaults (stateful, each answer an SSE stream); polymcp runs its one "
                    "endpoint (it mints a session and answers with JSON bodies)",
    "http-stateless": "Streamable HTTP, same client, peers started stateless with JSON answers "
                      "(`stateless_http=True, json_response=True` / `sessionIdGenerator: undefined, "
                      "enableJsonResponse: true`, a fresh server per request as the SDK's example does); "
                      "polymcp has no separate mode for this",
    "http-modern": "Streamable HTTP, 2026-07-28 (`mcpbench http-modern`): no initialize, each POST carries "
                   "its _meta. The Python peers serve it (mcp 2.3.0; started with stateless_http + "
                   "json_response, their faster setting); the TS SDK 1.32.2 does not",
}


def python_servers(py: str) -> list[Server]:
    d = str(BENCH / "servers" / "python")
    modern = ("stdio", "http-session", "http-stateless", "http-modern")
    flags = {"http-session": [], "http-stateless": ["--stateless", "--json"],
             "http-modern": ["--stateless", "--json"]}
    return [
        Server("polymcp-sync", [py, f"{d}/polymcp_echo.py", "--handler", "sync"], polymcp=True, transports=POLYMCP_TRANSPORTS),
        Server("polymcp-async", [py, f"{d}/polymcp_echo.py", "--handler", "async"], polymcp=True, transports=POLYMCP_TRANSPORTS),
        Server("mcp-sdk", [py, f"{d}/sdk_echo.py"], transports=modern, http_flags=flags),
        Server("fastmcp", [py, f"{d}/fastmcp_echo.py"], transports=modern, http_flags=flags),
    ]


def node_servers(node: str) -> list[Server]:
    d = str(BENCH / "servers" / "node")
    return [
        Server("polymcp-async", [node, f"{d}/polymcp_echo.mjs", "--handler", "async"], polymcp=True, transports=POLYMCP_TRANSPORTS),
        Server("polymcp-sync", [node, f"{d}/polymcp_echo.mjs", "--handler", "sync"], polymcp=True, transports=POLYMCP_TRANSPORTS),
        Server("ts-sdk", [node, f"{d}/sdk_echo.mjs"]),
    ]


#: The driver's command for each transport: the legacy client (initialize,
#: then Mcp-Session-Id when the server mints one) serves both peer modes.
DRIVER_COMMAND = {"stdio": "stdio", "http-session": "http", "http-stateless": "http", "http-modern": "http-modern"}

POLYMCP_TRANSPORTS = ("stdio", "http-session", "http-modern")


# ---- the driver --------------------------------------------------------------

class Driver:
    def __init__(self, binary: Path, log: Any) -> None:
        self.binary = binary
        self.log = log
        self.commands = {c for c in set(DRIVER_COMMAND.values()) if self._has(c)}

    def _has(self, command: str) -> bool:
        p = subprocess.run([str(self.binary), command, "-h"], capture_output=True, text=True)
        return "unknown command" not in (p.stdout + p.stderr)

    def supports(self, transport: str) -> bool:
        return DRIVER_COMMAND.get(transport) in self.commands

    def measure(self, server: Server, transport: str, c: int, payload: int,
                warmup: str, duration: str, round_: int) -> dict[str, Any]:
        kind = DRIVER_COMMAND[transport]
        argv = [str(self.binary), kind, "-name", server.name, "-c", str(c), "-payload", str(payload),
                "-warmup", warmup, "-duration", duration, "--", *server.command(transport)]
        p = subprocess.run(argv, capture_output=True, text=True, cwd=BENCH)
        res: dict[str, Any] | None = None
        for line in p.stdout.splitlines():
            if line.startswith("{"):
                res = json.loads(line)
        if res is None:
            res = {"server": server.name, "concurrency": c, "payload_bytes": payload,
                   "failure": (p.stderr.strip().splitlines() or ["no result"])[-1]}
        res["server"], res["transport"], res["round"] = server.name, transport, round_
        return res


# ---- the run -------------------------------------------------------------------

def ok(r: dict[str, Any] | None) -> bool:
    return bool(r) and not r.get("failure") and not r.get("errors")


def better(a: dict[str, Any], b: dict[str, Any]) -> bool:
    if ok(a) != ok(b):
        return ok(a)
    return a.get("calls_per_sec", 0) > b.get("calls_per_sec", 0)


def run_load(servers: list[Server], transports: list[str], conc: list[int], payloads: list[int],
             args: argparse.Namespace, driver: Driver) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    plan = [(t, p, c) for t in transports for p in payloads for c in conc]
    total = sum(len([s for s in servers if t in s.transports]) for t, _, _ in plan) * args.rounds
    n, everything = 0, []
    best: dict[tuple[str, str, int, int], dict[str, Any]] = {}
    for t, p, c in plan:
        group = [s for s in servers if t in s.transports]
        for rnd in range(1, args.rounds + 1):
            k = (rnd - 1) % len(group)
            for s in group[k:] + group[:k]:
                n += 1
                r = driver.measure(s, t, c, p, args.warmup, args.duration, rnd)
                everything.append(r)
                key = (s.name, t, c, p)
                if key not in best or better(r, best[key]):
                    best[key] = r
                print(f"[{n}/{total}] {progress(r)}", file=sys.stderr, flush=True)
    return list(best.values()), everything


def progress(r: dict[str, Any]) -> str:
    head = f"{r['server']:<14} {r['transport']:<9} C={r['concurrency']:<3} {size(r['payload_bytes']):<7}"
    if r.get("failure"):
        return head + " FAILED: " + r["failure"]
    return (head + f" {r['calls_per_sec']:8.0f} calls/s  p50 {r['p50_us']:8.0f} µs  p99 {r['p99_us']:8.0f} µs"
            f"  cpu {r['server_cpu_us_per_call']:7.1f} µs/call  rss {r['peak_rss_mib']:5.1f} MiB"
            f"  errors {r.get('errors', 0)}")


def size(n: int) -> str:
    return f"{n // 1024} KiB" if n >= 1024 and n % 1024 == 0 else f"{n} B"


def run_cold(servers: list[Server], transports: list[str], n: int) -> list[dict[str, Any]]:
    out = []
    for t in transports:
        if t in ("http-stateless", "http-modern"):
            continue  # the same process start as http-session
        for s in servers:
            if t not in s.transports:
                continue
            cs = coldstart.measure(s.name, "stdio" if t == "stdio" else "http", s.command(t), n)
            m = cs.medians()
            line = cs.failure or f"first answer {m['first_call_ms']:.0f} ms (initialize {m['init_ms']:.0f} ms)"
            print(f"cold start {s.name:<14} {t:<9} {line}", file=sys.stderr, flush=True)
            d = cs.to_json()
            d["transport"] = "stdio" if t == "stdio" else "http"
            out.append(d)
    return out


# ---- the report ----------------------------------------------------------------

def fastest_peer(results: list[dict[str, Any]], servers: list[Server], transport: str | None,
                 c: int, p: int) -> dict[str, Any] | None:
    """The peer result with the most calls/s at (c, p) over the given
    transport, or over every HTTP mode when transport is None."""
    peers = {s.name for s in servers if not s.polymcp}
    cands = [r for r in results if r["server"] in peers and ok(r) and r["concurrency"] == c
             and r["payload_bytes"] == p and (r["transport"] == transport if transport
                                              else r["transport"].startswith("http"))]
    return max(cands, key=lambda r: r["calls_per_sec"], default=None)


def fmt(x: float | None, digits: int = 0) -> str:
    return "–" if x is None else f"{x:,.{digits}f}".replace(",", " ")


def group_of(transport: str) -> str:
    return "stdio" if transport == "stdio" else "http"


def fastest_in(results: list[dict[str, Any]], servers: list[Server], group: str,
               c: int, p: int) -> dict[str, Any] | None:
    return fastest_peer(results, servers, "stdio" if group == "stdio" else None, c, p)


def load_table(results: list[dict[str, Any]], servers: list[Server], group: str,
               transports: list[str], conc: list[int], payloads: list[int]) -> list[str]:
    """One table per group (stdio, or every HTTP mode together); ratios are
    to the peer with the most calls/s in the group at the same C and payload."""
    modes = [t for t in transports if group_of(t) == group]
    rows = ["| server | mode | C | payload | calls/s | p50 µs | p99 µs | CPU µs/call | peak RSS MiB "
            "| calls/s ÷ faster peer | p99 ÷ faster peer | errors |",
            "|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    index = {(r["server"], r["transport"], r["concurrency"], r["payload_bytes"]): r for r in results}
    for p in payloads:
        for c in conc:
            peer = fastest_in(results, servers, group, c, p)
            for s in servers:
                for t in modes:
                    r = index.get((s.name, t, c, p))
                    if r is None:
                        continue
                    name = f"**{s.name}**" if s.polymcp else s.name
                    if r.get("failure"):
                        rows.append(f"| {name} | {t} | {c} | {size(p)} | failed: {r['failure'][:100]} "
                                    "| | | | | | | |")
                        continue
                    tr = pr = "–"
                    if peer is not None and peer["calls_per_sec"] and peer["p99_us"]:
                        tr = f"{r['calls_per_sec'] / peer['calls_per_sec']:.2f}"
                        pr = f"{r['p99_us'] / peer['p99_us']:.2f}"
                    rows.append(f"| {name} | {t} | {c} | {size(p)} | {fmt(r['calls_per_sec'])} "
                                f"| {fmt(r['p50_us'])} | {fmt(r['p99_us'])} "
                                f"| {fmt(r['server_cpu_us_per_call'], 1)} | {fmt(r['peak_rss_mib'], 1)} "
                                f"| {tr} | {pr} | {r.get('errors', 0)} |")
    return rows


def cold_table(cold: list[dict[str, Any]]) -> list[str]:
    rows = ["| server | transport | listening ms | initialize answered ms | first tools/call answered ms "
            "| RSS after MiB | runs |", "|---|---|--:|--:|--:|--:|--:|"]
    for d in cold:
        m = d["median"]
        if d["failure"]:
            rows.append(f"| {d['server']} | {d['transport']} | failed: {d['failure'][:100]} | | | | |")
            continue
        rows.append(f"| {d['server']} | {d['transport']} | {fmt(m['ready_ms'])} | {fmt(m['init_ms'])} "
                    f"| {fmt(m['first_call_ms'])} | {fmt(m['rss_mib'], 1)} | {len(d['samples'])} |")
    return rows


def targets(lang: str, results: list[dict[str, Any]], servers: list[Server],
            transports: list[str], payloads: list[int]) -> list[dict[str, Any]]:
    """The issue's targets at C=16, one line per polymcp variant, transport
    and payload; HTTP is judged against the faster peer over both modes."""
    out = []
    mine = [s for s in servers if s.polymcp]
    groups = ["stdio"] if "stdio" in transports else []
    if any(t.startswith("http") for t in transports):
        groups.append("http")
    for g in groups:
        for p in payloads:
            peer = fastest_peer(results, servers, g if g == "stdio" else None, 16, p)
            for s in mine:
                cands = [r for r in results if r["server"] == s.name and ok(r) and r["concurrency"] == 16
                         and r["payload_bytes"] == p and (r["transport"] == g if g == "stdio"
                                                          else r["transport"].startswith("http"))]
                r = max(cands, key=lambda r: r["calls_per_sec"], default=None)
                t: dict[str, Any] = {"server": s.name, "transport": g, "payload_bytes": p,
                                     "polymcp": r and f"{r['transport']}",
                                     "peer": peer and f"{peer['server']} {peer['transport']}"}
                if r is None or peer is None:
                    t["verdict"] = "not measured"
                    out.append(t)
                    continue
                thr = r["calls_per_sec"] / peer["calls_per_sec"]
                t["throughput_ratio"] = round(thr, 2)
                if lang == "python":
                    p99 = r["p99_us"] / peer["p99_us"]
                    t["p99_ratio"] = round(p99, 3)
                    t["goal"] = "calls/s ≥ 5× and p99 ≤ ⅓ of the faster peer"
                    t["met"] = thr >= 5 and p99 <= 1 / 3
                else:
                    rss = r["peak_rss_mib"] / peer["peak_rss_mib"]
                    need = 2 if g == "stdio" else 10
                    t["rss_ratio"] = round(rss, 2)
                    t["goal"] = f"calls/s ≥ {need}× and peak RSS ≤ ½ of the TS SDK's"
                    t["throughput_met"], t["rss_met"] = thr >= need, rss <= 0.5
                    t["met"] = thr >= need and rss <= 0.5
                t["verdict"] = "met" if t["met"] else "missed"
                out.append(t)
    return out


def target_table(lang: str, tg: list[dict[str, Any]]) -> list[str]:
    third = "p99 ÷ peer (≤ 0.33)" if lang == "python" else "peak RSS ÷ peer (≤ 0.5)"
    need = "≥ 5" if lang == "python" else "≥ 2 stdio, ≥ 10 HTTP"
    rows = [f"| polymcp | transport | payload | against | calls/s ÷ peer ({need}) | {third} | verdict |",
            "|---|---|--:|---|--:|--:|---|"]
    for t in tg:
        if t["verdict"] == "not measured":
            rows.append(f"| {t['server']} | {t['transport']} | {size(t['payload_bytes'])} | | | | not measured |")
            continue
        other = t.get("p99_ratio", t.get("rss_ratio"))
        rows.append(f"| {t['server']} ({t['polymcp']}) | {t['transport']} | {size(t['payload_bytes'])} "
                    f"| {t['peer']} | {t['throughput_ratio']:.2f} | {other:.2f} | **{t['verdict']}** |")
    return rows


def write_report(lang: str, meta: dict[str, Any], best: list[dict[str, Any]], every: list[dict[str, Any]],
                 cold: list[dict[str, Any]], tg: list[dict[str, Any]], servers: list[Server],
                 transports: list[str], conc: list[int], payloads: list[int], out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    stem = out / f"{meta['date']}-{lang}"
    doc = {"meta": meta, "targets": tg, "results": best, "cold_start": cold, "all_rounds": every}
    stem.with_suffix(".json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    title = "Python" if lang == "python" else "Node"
    md = [f"# {title}: polymcp against the official SDKs, {meta['date']}", "",
          f"Generated by `bench/lang/run.sh {lang}` (bench/lang/bench.py); every number comes from one run "
          "on this machine, servers interleaved. Ratios between servers of the same run are what holds up; "
          "differences under ~10% are noise. See bench/README.md for how the driver measures.", ""]
    md += [f"- {k}: {v}" for k, v in meta.items() if k not in ("servers", "notes")]
    md += ["- servers:"] + [f"  - `{s['name']}` {s['version']}: `{s['command']}`" for s in meta["servers"]]
    md += [f"- note: {n}" for n in meta["notes"]]
    md += ["", "## Targets (C=16)", ""] + target_table(lang, tg)
    md += ["", "Modes:", ""] + [f"- `{t}`: {TRANSPORT_LEGEND[t]}" for t in transports]
    for g in ("stdio", "http"):
        if not any(group_of(t) == g for t in transports):
            continue
        md += ["", "## " + ("stdio" if g == "stdio" else "Streamable HTTP (every mode; ratios to the "
                                                       "fastest peer mode)"), ""]
        if not any(group_of(r["transport"]) == g for r in best):
            md.append("not measured (see the notes)")
            continue
        md += load_table(best, servers, g, transports, conc, payloads)
    if cold:  # --cold 0 measures none
        md += ["", "## Cold start (median)", "",
               "Spawn → (HTTP) the port given accepts a connection (\"listening\") → `initialize` answered → "
               "the first `tools/call` answered, over stdio or the session-shape HTTP client; RSS right after; "
               "the median of the runs, after one unmeasured run.", ""]
        md += cold_table(cold)
    stem.with_suffix(".md").write_text("\n".join(md) + "\n")
    return [stem.with_suffix(".md"), stem.with_suffix(".json")]


def version_of(argv: list[str], code: str) -> str:
    p = subprocess.run([argv[0], "-c" if "python" in argv[0] else "-e", code], capture_output=True, text=True)
    return p.stdout.strip() or "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lang", choices=["python", "node"])
    ap.add_argument("--python", default=sys.executable, help="interpreter for the Python servers")
    ap.add_argument("--node", default="node")
    ap.add_argument("--driver", default=str(BENCH / "bin" / "mcpbench"))
    ap.add_argument("--servers", help="comma-separated subset of the servers")
    ap.add_argument("--transports", default="stdio," + ",".join(HTTP_MODES),
                    help="comma-separated; http stands for every HTTP mode")
    ap.add_argument("-c", default="1,16,64")
    ap.add_argument("--payload", default="16,65536")
    ap.add_argument("--warmup", default="1s")
    ap.add_argument("--duration", default="3s")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--cold", type=int, default=5, help="cold starts per server and transport (0: none)")
    ap.add_argument("--out", default=str(BENCH / "results"))
    args = ap.parse_args()
    args.transports = ",".join(m for t in args.transports.split(",") for m in (HTTP_MODES if t == "http" else [t]))

    servers = python_servers(args.python) if args.lang == "python" else node_servers(args.node)
    if args.servers:
        want = args.servers.split(",")
        servers = [s for s in servers if s.name in want]
    conc = [int(x) for x in args.c.split(",")]
    payloads = [int(x) for x in args.payload.split(",")]
    driver = Driver(Path(args.driver), sys.stderr)
    notes: list[str] = []
    transports = []
    for t in args.transports.split(","):
        if driver.supports(t):
            transports.append(t)
        else:
            notes.append(f"{t}: load not measured, the driver has no `{DRIVER_COMMAND.get(t, t)}` command")
    load_transports = list(transports)
    cold_transports = [t for t in args.transports.split(",")]  # cold start needs no driver support

    started = time.time()
    if args.lang == "python":
        versions = {
            "polymcp-sync": "0.1.0 (this checkout)", "polymcp-async": "0.1.0 (this checkout)",
            "mcp-sdk": "mcp " + version_of([args.python], "import importlib.metadata as m; print(m.version('mcp'))"),
            "fastmcp": "fastmcp " + version_of([args.python], "import importlib.metadata as m; print(m.version('fastmcp'))"),
        }
        runtime = "CPython " + version_of([args.python], "import platform; print(platform.python_version())")
    else:
        sdk = json.loads((BENCH / "servers/node/node_modules/@modelcontextprotocol/sdk/package.json").read_text())
        versions = {"polymcp-async": "0.1.0 (this checkout)", "polymcp-sync": "0.1.0 (this checkout)",
                    "ts-sdk": "@modelcontextprotocol/sdk " + sdk["version"]}
        runtime = "Node " + version_of([args.node], "console.log(process.versions.node)")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    meta: dict[str, Any] = {
        "date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d"),
        "started": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit, "runtime": runtime,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {_cpu_model()}",
        "load average before": _loadavg(),
        "configs": f"C={args.c}, payload={args.payload} B, warmup {args.warmup}, window {args.duration}, "
                   f"{args.rounds} round(s), best kept; cold start ×{args.cold}",
        "servers": [{"name": s.name, "version": versions.get(s.name, "?"),
                     "command": " ".join(os.path.relpath(a, BENCH) if a.startswith("/") and "servers" in a else a
                                         for a in s.argv)} for s in servers],
        "notes": notes,
    }
    lib = ROOT / "build" / "libpolymcp.so"
    lib_stamp = lib.stat().st_mtime if lib.exists() else 0.0
    meta["libpolymcp.so built"] = dt.datetime.fromtimestamp(lib_stamp, dt.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ") if lib_stamp else "missing"
    best, every = run_load(servers, load_transports, conc, payloads, args, driver)
    cold = run_cold(servers, cold_transports, args.cold) if args.cold > 0 else []
    meta["load average after"] = _loadavg()
    if lib.exists() and lib.stat().st_mtime != lib_stamp:
        notes.append("build/libpolymcp.so was rebuilt during the run: polymcp rows mix two builds")
    meta["took"] = f"{time.time() - started:.0f} s"
    tg = targets(args.lang, best, servers, load_transports, payloads)
    paths = write_report(args.lang, meta, best, every, cold, tg, servers, args.transports.split(","),
                         conc, payloads, Path(args.out))
    print("\n".join(Path(paths[0]).read_text().splitlines()), file=sys.stderr)
    print("wrote " + ", ".join(str(p) for p in paths), file=sys.stderr)
    return 0


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "?"


if __name__ == "__main__":
    sys.exit(main())
