"""The package: version in step with package.json, a wheel that builds offline with py.typed."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import tickvault
from conftest import REPO, TESTS

PROJECT = TESTS.parent


def test_version_is_package_json_version() -> None:
    assert tickvault.__version__ == json.loads((REPO / "package.json").read_text())["version"]


def test_wheel_builds_with_py_typed(tmp_path: Path) -> None:
    """What `pip install ./clients/python` does, without pip or the network: setuptools'
    PEP 517 backend builds the wheel (from a copy, so the tree gets no build artefacts)."""
    src = tmp_path / "project"
    shutil.copytree(PROJECT, src, ignore=shutil.ignore_patterns("tests", "__pycache__", "*.egg-info", "build", "dist", ".pytest_cache"))
    out = tmp_path / "wheels"
    out.mkdir()
    code = "import sys; from setuptools import build_meta as b; print(b.build_wheel(sys.argv[1]))"
    r = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    wheel = out / r.stdout.strip().splitlines()[-1]
    assert wheel.name == f"tickvault-{tickvault.__version__}-py3-none-any.whl"
    names = zipfile.ZipFile(wheel).namelist()
    assert "tickvault/py.typed" in names and "tickvault/client.py" in names
    meta = zipfile.ZipFile(wheel).read(f"tickvault-{tickvault.__version__}.dist-info/METADATA").decode()
    assert "Requires-Python: >=3.9" in meta
    assert "Requires-Dist: httpx" in meta and "Provides-Extra: pandas" in meta
    assert re.search(r"Requires-Dist: pandas.*extra == ['\"]pandas['\"]", meta), meta
