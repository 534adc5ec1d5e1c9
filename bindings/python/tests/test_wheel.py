"""The wheel installs into a fresh venv, with no index and no Go on PATH,
and serves a call from there (its own copy of libpolymcp.so, loaded by
path). ``make test-python`` tests the wheel ``make build-python`` wrote
(POLYMCP_WHEEL); otherwise one is built here the same way."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from polymcp import _native

BACKEND = Path(__file__).resolve().parent.parent / "_build"
WAIT = 120.0  # failure bound only: a venv with pip takes a few seconds here


def wheel(tmp_path: Path) -> Path:
    given = os.environ.get("POLYMCP_WHEEL")
    if given:
        path = Path(given)
        assert path.is_file(), f"POLYMCP_WHEEL={given} is not a file"
        return path
    lib = _native.load_library().path
    code = ("import sys; sys.path.insert(0, sys.argv[1]); import polymcp_build as b; "
            "print(b.build_wheel(sys.argv[2], {'libpolymcp': sys.argv[3]}))")
    name = subprocess.run([sys.executable, "-c", code, str(BACKEND), str(tmp_path), str(lib)],
                          check=True, capture_output=True, text=True, timeout=WAIT).stdout.strip()
    return tmp_path / name


def test_the_wheel_installs_without_go_and_serves_a_call(tmp_path: Path) -> None:
    whl = wheel(tmp_path)
    venv = tmp_path / "venv"
    # No pip inside (ensurepip is the slow part); this interpreter's pip
    # installs into it, from the wheel file alone.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=WAIT)
    python = venv / "bin" / "python"
    # PATH without Go: only the venv and the system's own directories.
    path = os.pathsep.join([str(venv / "bin"), "/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    assert shutil.which("go", path=path) is None, "go is on the test PATH"
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                    "--no-index", "--disable-pip-version-check", str(whl)],
                   check=True, env=env, cwd=tmp_path, timeout=WAIT)

    where = subprocess.run(
        [str(python), "-c", "import polymcp, polymcp._native as n; "
                            "print(polymcp.__file__); print(n.load_library().path)"],
        check=True, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=WAIT)
    package, library = where.stdout.split()
    site = str(venv / "lib")
    assert package.startswith(site) and library.startswith(site), where.stdout
    assert Path(library).parent == Path(package).parent  # the wheel's own copy

    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "wheel", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "echo", "arguments": {"text": "from the wheel"}}},
    ]
    proc = subprocess.Popen([str(python), "-m", "polymcp.everything"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
                            text=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
        proc.stdin.flush()
        answers = {}
        while 2 not in answers:
            line = proc.stdout.readline()
            assert line, "the server ended before answering"
            message = json.loads(line)
            answers[message.get("id")] = message
        proc.stdin.close()  # end of input: the server stops
        assert proc.wait(WAIT) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(WAIT)
    assert answers[1]["result"]["serverInfo"]["name"] == "polymcp-everything"
    assert answers[2] == {"jsonrpc": "2.0", "id": 2, "result": {
        "content": [{"type": "text", "text": "from the wheel"}]}}
