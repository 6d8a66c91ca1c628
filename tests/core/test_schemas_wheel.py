"""The built wheel ships the top-level schemas/ as apc_tools.schemas, and `apc schema` serves
them from the installed wheel, not from the source tree."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Build from a copy: setuptools writes build/ and *.egg-info into the source tree.
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("apc_tools", "schemas"):
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    out = tmp / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("apc_tools-*.whl")
    return built


def test_wheel_contains_the_schemas(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"apc_tools/schemas/{p.name}" for p in (ROOT / "schemas").glob("*.schema.json")}
    assert expected and expected <= names
    assert "apc_tools/schemas/__init__.py" in names
    assert "apc_tools/py.typed" in names
    assert "apc_tools/core/schemas.py" in names


def test_every_package_is_listed_in_pyproject() -> None:
    """pyproject lists its packages (the schemas need a package-dir mapping): none is missing."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "apc_tools").rglob("__init__.py")
        if "__pycache__" not in p.parts
    }
    assert found | {"apc_tools.schemas"} == listed


def test_apc_schema_serves_the_installed_wheel(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), wheel],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    code = (
        "import apc_tools, sys; from apc_tools.cli import main; print(apc_tools.__file__); "
        "sys.argv = ['apc', 'schema', 'project']; main()"
    )
    env = {**os.environ, "PYTHONPATH": str(target), "PYTHONSAFEPATH": "1"}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env
    )
    assert run.returncode == 0, run.stderr
    where, _, text = run.stdout.partition("\n")
    assert Path(where).is_relative_to(target)
    served = json.loads(text)
    assert served == json.loads((ROOT / "schemas" / "project.schema.json").read_text())
    assert served["$id"].endswith("/schemas/v1/project.schema.json")
