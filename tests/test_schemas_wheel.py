"""The built wheel ships the schemas (and py.typed), and they load from it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_the_schemas(tmp_path: Path) -> None:
    # Build from a copy: setuptools writes build/ and *.egg-info into the source tree.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "apc_tools", src / "apc_tools", ignore=ignore)
    out = tmp_path / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("apc_tools-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"apc_tools/schemas/{p.name}" for p in (ROOT / "apc_tools/schemas").glob("*.json")}
    assert expected and expected <= names
    assert "apc_tools/py.typed" in names
    assert "apc_tools/contract/schemas.py" in names
