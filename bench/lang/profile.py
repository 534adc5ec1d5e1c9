"""Where a polymcp binding server spends its time under the bench load.

    python3 lang/profile.py python|node [--handler sync|async] [-c 16] [--payload 16]
                                        [--transport stdio|http] [--duration 4s]

(from bench/; run.sh sets up the venv and the driver first.) Two loaded
runs of the same server through the driver:

1. under `perf record` (no call graphs: self time only), summarised by
   shared object (the Go core in libpolymcp.so, the interpreter, libc, the
   kernel, the Node addon, JIT code) and by symbol;
2. with the language's own profiler: cProfile on the threads that run the
   handler (POLYMCP_BENCH_PROFILE, see servers/python/polymcp_echo.py), or
   `node --cpu-prof`, summarised by function.

Writes results/<UTC date>-<lang>.profile.md (and prints it).
"""

from __future__ import annotations

import argparse
import collections
import datetime as dt
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]


def driver_run(args: argparse.Namespace, argv: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    cmd = [str(BENCH / "bin" / "mcpbench"), args.transport, "-name", "profile", "-c", str(args.c),
           "-payload", str(args.payload), "-warmup", args.warmup, "-duration", args.duration, "--", *argv]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=BENCH, env=env)
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            return json.loads(line)
    raise SystemExit(f"driver failed: {p.stderr.strip()[-500:]}")


def server_argv(args: argparse.Namespace) -> list[str]:
    if args.lang == "python":
        return [args.python, str(BENCH / "servers/python/polymcp_echo.py"), "--handler", args.handler]
    return [args.node, str(BENCH / "servers/node/polymcp_echo.mjs"), "--handler", args.handler]


def perf_section(args: argparse.Namespace, tmp: Path) -> list[str]:
    if shutil.which("perf") is None:
        return ["perf is not installed: no native profile."]
    data = tmp / "perf.data"
    argv = server_argv(args)
    if args.lang == "node":
        # The JIT map goes to /tmp/perf-PID.map; the V8 log it turns on goes to tmp, not the cwd.
        argv = [argv[0], "--perf-basic-prof", "--no-logfile-per-isolate", f"--logfile={tmp / 'v8.log'}",
                *argv[1:]]
    # perf passes the child's stdin/stdout through, so the driver talks to the server.
    res = driver_run(args, ["perf", "record", "-q", "-F", "997", "-o", str(data), "--", *argv])
    out = []

    def report(sort: str) -> list[tuple[float, str]]:
        p = subprocess.run(["perf", "report", "-i", str(data), "--no-children", "--sort", sort,
                            "--stdio", "-q", "--percent-limit", "0.5"], capture_output=True, text=True)
        rows = []
        for line in p.stdout.splitlines():
            parts = line.split(None, 1)
            if len(parts) == 2 and parts[0].endswith("%"):
                rows.append((float(parts[0].rstrip("%")), " ".join(parts[1].split())))
        return rows

    out += [f"Under perf: {res['calls_per_sec']:.0f} calls/s (perf slows it; the bench numbers are "
            "in the main report). Self time by shared object (the server process and all its threads):", "",
            "| share | object |", "|--:|---|"]
    out += [f"| {pct:.1f}% | {obj} |" for pct, obj in report("dso")]
    out += ["", "Top symbols (self time):", "", "| share | object | symbol |", "|--:|---|---|"]
    for pct, rest in report("dso,sym")[:40]:
        obj, _, sym = rest.partition(" ")
        out.append(f"| {pct:.1f}% | {obj} | `{sym.replace('|', '/')[:110]}` |")
    return out


def cprofile_section(args: argparse.Namespace, tmp: Path) -> list[str]:
    path = tmp / "py.pstats"
    env = dict(os.environ, POLYMCP_BENCH_PROFILE=str(path))
    res = driver_run(args, server_argv(args), env)
    if not path.exists():
        return ["cProfile wrote nothing (did the server exit cleanly?)"]
    st = pstats.Stats(str(path))
    calls = res["calls"] or 1
    # Every call in the run, warmup included, was profiled: per-call numbers
    # divide by the calls the profile saw (the echo function's count).
    echo = [(k, v) for k, v in st.stats.items() if k[2] == "echo"]  # type: ignore[attr-defined]
    seen = max((v[1] for _, v in echo), default=calls)
    total = sum(v[2] for v in st.stats.values())  # type: ignore[attr-defined]
    out = [f"cProfile (deterministic, so it inflates small functions): {seen} calls profiled on the "
           f"handler threads, {total / seen * 1e6:.1f} µs of profiled Python self time per call "
           f"({res['calls_per_sec']:.0f} calls/s under the profiler).", "",
           "| self µs/call | cumulative µs/call | calls/call | function |", "|--:|--:|--:|---|"]
    rows = sorted(st.stats.items(), key=lambda kv: -kv[1][2])[:30]  # type: ignore[attr-defined]
    for (file, line, fn), (cc, nc, tt, ct, _) in rows:
        where = f"{Path(file).name}:{line}" if file != "~" else "builtin"
        out.append(f"| {tt / seen * 1e6:.2f} | {ct / seen * 1e6:.2f} | {nc / seen:.2f} | `{fn}` ({where}) |")
    return out


def cpuprof_section(args: argparse.Namespace, tmp: Path) -> list[str]:
    d = tmp / "cpuprof"
    argv = server_argv(args)
    res = driver_run(args, [argv[0], "--cpu-prof", f"--cpu-prof-dir={d}", *argv[1:]])
    files = sorted(d.glob("*.cpuprofile"))
    if not files:
        return ["node --cpu-prof wrote nothing (did the server exit cleanly?)"]
    prof = json.loads(files[-1].read_text())
    nodes = {n["id"]: n for n in prof["nodes"]}
    counts = collections.Counter(prof["samples"])
    deltas = prof.get("timeDeltas") or []
    span = (prof["endTime"] - prof["startTime"]) / 1e6
    per_sample = span / max(len(prof["samples"]), 1)
    by_fn: collections.Counter[str] = collections.Counter()
    by_file: collections.Counter[str] = collections.Counter()
    for nid, n in counts.items():
        cf = nodes[nid]["callFrame"]
        url = cf.get("url", "")
        fn = cf.get("functionName") or "(anonymous)"
        short = url.rsplit("/", 2)
        where = "/".join(short[-2:]) if url else ""
        by_fn[f"`{fn}` {where}:{cf.get('lineNumber', 0) + 1}" if url else f"`{fn}`"] += n
        if not url:
            by_file[fn if fn.startswith("(") else "native/builtin"] += n
        elif "bindings/node" in url:
            by_file["polymcp binding (bindings/node/dist)"] += n
        elif url.startswith("node:"):
            by_file["node internals (node:*)"] += n
        else:
            by_file[where] += n
    total = sum(counts.values())
    calls = res["calls"] or 1
    busy = total - by_file.get("(idle)", 0)
    out = [f"node --cpu-prof (main JS thread only; {len(deltas)} samples of ~{per_sample * 1e3:.2f} ms over "
           f"{span:.1f} s, {busy / total:.0%} busy; {res['calls_per_sec']:.0f} calls/s under the profiler):", "",
           "| share of samples | where |", "|--:|---|"]
    out += [f"| {n / total:.1%} | {k} |" for k, n in by_file.most_common(12)]
    out += ["", "| share of samples | function |", "|--:|---|"]
    out += [f"| {n / total:.1%} | {k} |" for k, n in by_fn.most_common(30)]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("lang", choices=["python", "node"])
    ap.add_argument("--handler", default=None, help="sync or async (default: python sync, node async)")
    ap.add_argument("--python", default=str(BENCH / "lang/.venv/bin/python"))
    ap.add_argument("--node", default="node")
    ap.add_argument("--transport", default="stdio", choices=["stdio", "http", "http-modern"])
    ap.add_argument("-c", type=int, default=16)
    ap.add_argument("--payload", type=int, default=16)
    ap.add_argument("--warmup", default="1s")
    ap.add_argument("--duration", default="4s")
    ap.add_argument("--out", default=str(BENCH / "results"))
    args = ap.parse_args()
    args.handler = args.handler or ("sync" if args.lang == "python" else "async")

    date = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d")
    base = driver_run(args, server_argv(args))
    md = [f"## {args.lang} polymcp-{args.handler}, {args.transport}, C={args.c}, {args.payload} B ({date})", "",
          f"Unprofiled: {base['calls_per_sec']:.0f} calls/s, p50 {base['p50_us']:.0f} µs, "
          f"p99 {base['p99_us']:.0f} µs, server CPU {base['server_cpu_us_per_call']:.1f} µs/call, "
          f"driver CPU {base['driver_cpu_us_per_call']:.1f} µs/call, peak RSS {base['peak_rss_mib']:.1f} MiB.", ""]
    with tempfile.TemporaryDirectory() as t:
        tmp = Path(t)
        md += ["### Native (perf)", ""] + perf_section(args, tmp) + [""]
        if args.lang == "python":
            md += ["### Python (cProfile)", ""] + cprofile_section(args, tmp)
        else:
            md += ["### JavaScript (node --cpu-prof)", ""] + cpuprof_section(args, tmp)
    text = "\n".join(md) + "\n"
    path = Path(args.out) / f"{date}-{args.lang}.profile.md"
    with path.open("a") as f:
        f.write(text + "\n")
    print(text)
    print(f"appended to {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
