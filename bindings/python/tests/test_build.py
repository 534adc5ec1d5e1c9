"""The PEP 517 backend: the wheel's contents and RECORD, without Go (a
stand-in file plays the library; loading is tested by the other tests)."""

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

import pytest

BACKEND = Path(__file__).resolve().parent.parent / "_build"


@pytest.fixture(scope="module")
def backend():  # type: ignore[no-untyped-def]
    sys.path.insert(0, str(BACKEND))
    try:
        import polymcp_build
        yield polymcp_build
    finally:
        sys.path.remove(str(BACKEND))


def test_backend_needs_nothing_to_build(backend) -> None:  # type: ignore[no-untyped-def]
    assert backend.get_requires_for_build_wheel() == []
    assert backend.get_requires_for_build_sdist() == []
    assert backend.get_requires_for_build_editable() == []


def test_wheel_holds_the_package_and_the_library(backend, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    lib = tmp_path / "libpolymcp.so"
    lib.write_bytes(b"\x7fELF stand-in")
    name = backend.build_wheel(str(tmp_path), {"libpolymcp": str(lib)})
    assert name.startswith("polymcp-0.1.0-py3-none-") and name.endswith(".whl")
    with zipfile.ZipFile(tmp_path / name) as whl:
        names = whl.namelist()
        assert "polymcp/__init__.py" in names and "polymcp/py.typed" in names
        assert "polymcp/everything.py" in names
        assert whl.read("polymcp/libpolymcp.so") == b"\x7fELF stand-in"
        assert not [n for n in names if "cache" in n or n.endswith(".pyc")]
        assert (whl.getinfo("polymcp/libpolymcp.so").external_attr >> 16) & 0o111
        wheel = whl.read("polymcp-0.1.0.dist-info/WHEEL").decode()
        assert "Root-Is-Purelib: false" in wheel and "Tag: py3-none-" in wheel
        metadata = whl.read("polymcp-0.1.0.dist-info/METADATA").decode()
        assert "Requires-Python: >=3.10" in metadata and "\nRequires-Dist: pydantic" in metadata
        record = whl.read("polymcp-0.1.0.dist-info/RECORD").decode().splitlines()
        rows = {r.split(",")[0]: r.split(",")[1:] for r in record}
        assert set(rows) == set(names)
        for path, (digest, size) in rows.items():
            if digest:
                data = whl.read(path)
                want = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
                assert digest == "sha256=" + want.decode() and int(size) == len(data)


def test_a_missing_library_setting_is_an_error(backend, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(RuntimeError, match="is not a file"):
        backend.build_wheel(str(tmp_path), {"libpolymcp": str(tmp_path / "nope.so")})


def test_sdist_has_the_sources(backend, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import tarfile

    name = backend.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as tar:
        names = tar.getnames()
    assert "polymcp-0.1.0/pyproject.toml" in names
    assert "polymcp-0.1.0/_build/polymcp_build.py" in names
    assert "polymcp-0.1.0/src/polymcp/_server.py" in names
    assert "polymcp-0.1.0/PKG-INFO" in names
