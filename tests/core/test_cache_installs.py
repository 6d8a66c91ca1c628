"""The result cache's keys hold apc's version and the content of its code, never where or when
it was installed (issue 30, point 5): two virtualenvs holding one wheel share every entry (a
rebuilt CI image hits what the last one stored). A real wheel, real venvs, real runs."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.boundary.helpers import CLAUDE, commit, init
from tests.test_packaging import build

PIP = [sys.executable, "-m", "pip"]
FILES = {"logs/session.jsonl": CLAUDE, "AGENTS.md": "# Agents\n", ".apc/project.json": "{}\n"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    [built] = build("wheel", tmp_path_factory.mktemp("wheel")).glob("apc_tools-*.whl")
    return built


def venv_with(wheel: Path, folder: Path) -> Path:
    """A virtualenv holding ``wheel`` (apc's dependencies from this test's environment, by a
    .pth line after the venv's own folder); its python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    subprocess.run(
        [*PIP, "--python", str(python), "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        timeout=600,
    )
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    Path(purelib, "zz-test-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python


def rows(xdg: Path) -> int:
    db = sqlite3.connect(xdg / "apc-tools" / "results" / "cache.sqlite3")
    try:
        return int(db.execute("SELECT count(*) FROM entries").fetchone()[0])
    finally:
        db.close()


@pytest.mark.skipif(sys.platform == "win32", reason="venv layout")
def test_two_installs_of_one_wheel_share_the_cache(wheel: Path, tmp_path: Path, xdg: Path) -> None:
    root = init(tmp_path / "repo")
    base = commit(root, {"README.md": "hello\n"}, "base")
    commit(root, FILES, "a project and a session")
    pythons = [venv_with(wheel, tmp_path / name) for name in ("venv-a", "venv-b")]
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    env.pop("PYTHONPATH", None)
    commands = [
        ["boundary", "--tracked"],
        ["boundary", "--range", f"{base}..HEAD"],
        ["validate"],
        ["check"],
    ]
    for python in pythons:
        where = subprocess.run(
            [str(python), "-c", "import apc_tools; print(apc_tools.__file__)"],
            cwd=root,
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
        assert where.startswith(str(python.parent.parent)), where  # its own install
    stored = []
    for python in pythons:
        for args in commands:
            done = subprocess.run(
                [str(python), "-m", "apc_tools", *args],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert done.returncode == 1, (args, done.stdout, done.stderr)
        stored.append(rows(xdg))
    assert stored[0] > 0
    assert stored[1] == stored[0]  # the second install stored nothing new: all hits
