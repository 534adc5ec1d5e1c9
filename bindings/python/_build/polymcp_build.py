"""PEP 517 backend for polymcp: no build dependencies, works offline.

The wheel holds the pure-Python package plus libpolymcp.so, which the
package loads by its own path. The library comes from, in order:
  1. config setting ``libpolymcp=PATH`` (``pip install --config-settings``);
  2. ``build/libpolymcp.so`` at the repository root, as ``make build`` leaves it;
  3. ``go build -buildmode=c-shared ./capi`` run at the repository root.
The wheel is tagged ``py3-none-<platform>``: any Python 3, this platform.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sysconfig
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Mapping

HERE = Path(__file__).resolve().parent.parent  # bindings/python
ROOT = HERE.parent.parent  # the repository, when building from a checkout
PACKAGE = HERE / "src" / "polymcp"
LIBRARY = "libpolymcp.so"

__all__ = [
    "build_editable",
    "build_sdist",
    "build_wheel",
    "get_requires_for_build_editable",
    "get_requires_for_build_sdist",
    "get_requires_for_build_wheel",
    "prepare_metadata_for_build_wheel",
]


def _project() -> dict[str, Any]:
    text = (HERE / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # Python 3.10: read the few plain keys we need
        section = text.split("[project]", 1)[1].split("\n[", 1)[0]
        return {k: v for k, v in re.findall(r'^([\w-]+)\s*=\s*"([^"]*)"', section, re.M)}
    return dict(tomllib.loads(text)["project"])


def _metadata() -> str:
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {p['version']}",
             f"Summary: {p.get('description', '')}",
             f"Requires-Python: {p.get('requires-python', '>=3.10')}",
             "Provides-Extra: pydantic", "Requires-Dist: pydantic>=2; extra == \"pydantic\"",
             "Description-Content-Type: text/markdown", ""]
    readme = HERE / "README.md"
    return "\n".join(lines) + ("\n" + readme.read_text(encoding="utf-8") if readme.exists() else "")


def _tag() -> str:
    return "py3-none-" + re.sub(r"[-.]", "_", sysconfig.get_platform())


def _dist_info() -> str:
    p = _project()
    return f"{p['name']}-{p['version']}.dist-info"


def _wheel_name() -> str:
    p = _project()
    return f"{p['name']}-{p['version']}-{_tag()}.whl"


def _go_build(out: Path) -> None:
    if not (ROOT / "go.mod").exists() or not (ROOT / "capi").is_dir():
        raise RuntimeError("polymcp: no libpolymcp.so given and no Go source to build it from; "
                           "pass --config-settings=libpolymcp=/path/to/libpolymcp.so")
    go = shutil.which("go")
    if go is None:
        raise RuntimeError("polymcp: building libpolymcp.so needs Go on PATH "
                           "(or a prebuilt build/libpolymcp.so: run `make build` first)")
    cmd = [go, "build", "-buildmode=c-shared", "-trimpath", "-o", str(out)]
    script = ROOT / "capi" / "polymcp.map"
    if script.exists():
        # The same link flags as mk/capi.mk: the SONAME and polymcp_* exports only.
        cmd.append(f"-ldflags=-extldflags '-Wl,-soname,libpolymcp.so.1 "
                   f"-Wl,--version-script={script}'")
    subprocess.run([*cmd, "./capi"], cwd=ROOT, check=True)


def _library(settings: Mapping[str, Any] | None, scratch: Path) -> Path:
    given = (settings or {}).get("libpolymcp")
    if given:
        path = Path(str(given))
        if not path.is_file():
            raise RuntimeError(f"polymcp: libpolymcp={path} is not a file")
        return path
    prebuilt = ROOT / "build" / LIBRARY
    if prebuilt.is_file():
        return prebuilt
    out = scratch / LIBRARY
    _go_build(out)
    return out


def _package_files() -> list[tuple[str, Path]]:
    """The package's sources: .py files and the py.typed marker, nothing a
    tool left beside them (caches, a copied library)."""
    files = []
    for path in sorted(PACKAGE.rglob("*")):
        rel = path.relative_to(PACKAGE)
        if any(part.startswith((".", "__pycache__")) for part in rel.parts[:-1]):
            continue
        if path.is_file() and (path.suffix == ".py" or path.name == "py.typed"):
            files.append(("polymcp/" + rel.as_posix(), path))
    return files


class _Wheel:
    def __init__(self, path: Path) -> None:
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record: list[str] = []

    def add(self, name: str, data: bytes, executable: bool = False) -> None:
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = (0o755 if executable else 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append(f"{name},sha256={digest},{len(data)}")

    def close(self, dist_info: str) -> None:
        self.add(f"{dist_info}/METADATA", _metadata().encode())
        self.add(f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: polymcp_build\n"
                                        f"Root-Is-Purelib: false\nTag: {_tag()}\n").encode())
        self.add(f"{dist_info}/top_level.txt", b"polymcp\n")
        record = f"{dist_info}/RECORD"
        self.zip.writestr(record, "\n".join([*self.record, f"{record},,"]) + "\n")
        self.zip.close()


def get_requires_for_build_wheel(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return []


def get_requires_for_build_sdist(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return []


def get_requires_for_build_editable(config_settings: Mapping[str, Any] | None = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Mapping[str, Any] | None = None) -> str:
    target = Path(metadata_directory) / _dist_info()
    target.mkdir(parents=True, exist_ok=True)
    (target / "METADATA").write_text(_metadata(), encoding="utf-8")
    return target.name


def build_wheel(wheel_directory: str, config_settings: Mapping[str, Any] | None = None,
                metadata_directory: str | None = None) -> str:
    name = _wheel_name()
    with tempfile.TemporaryDirectory() as scratch:
        library = _library(config_settings, Path(scratch))
        wheel = _Wheel(Path(wheel_directory) / name)
        for arcname, path in _package_files():
            wheel.add(arcname, path.read_bytes())
        wheel.add(f"polymcp/{LIBRARY}", library.read_bytes(), executable=True)
        wheel.close(_dist_info())
    return name


def build_editable(wheel_directory: str, config_settings: Mapping[str, Any] | None = None,
                   metadata_directory: str | None = None) -> str:
    """An editable install: a .pth pointing at src/. The library is found in
    the checkout's build/ directory (``make build``), where it is built now
    if missing."""
    prebuilt = ROOT / "build" / LIBRARY
    if not prebuilt.is_file() and not (config_settings or {}).get("libpolymcp"):
        prebuilt.parent.mkdir(exist_ok=True)
        _go_build(prebuilt)
    name = _wheel_name()
    wheel = _Wheel(Path(wheel_directory) / name)
    wheel.add("polymcp_editable.pth", (str(HERE / "src") + os.linesep).encode())
    wheel.close(_dist_info())
    return name


def build_sdist(sdist_directory: str, config_settings: Mapping[str, Any] | None = None) -> str:
    """The Python sources only: building a wheel from it needs the
    ``libpolymcp`` config setting (the Go sources are not included)."""
    p = _project()
    base = f"{p['name']}-{p['version']}"
    name = f"{base}.tar.gz"
    with tarfile.open(Path(sdist_directory) / name, "w:gz") as tar:
        for rel in ["pyproject.toml", "README.md", "_build/polymcp_build.py"]:
            if (HERE / rel).exists():
                tar.add(HERE / rel, f"{base}/{rel}")
        for arcname, path in _package_files():
            tar.add(path, f"{base}/src/{arcname}")
        pkg_info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode()
        pkg_info.size = len(data)
        tar.addfile(pkg_info, io.BytesIO(data))
    return name
