"""The pure fallback where ``ahocorasick_rs`` does not install (no wheel: PyPy, musl, other
machines): the same verdicts as the default install, judged by real ``apc`` processes.

``ahocorasick_rs`` is a default dependency (pyproject.toml, with an environment marker where no
wheel exists). Here one process runs with it and one where importing it fails (a module of that
name on ``PYTHONPATH`` that raises ImportError), on one real repository whose tree is large
enough for the bytes test to be set up (``prefilter.MIN_MATCHER_BLOBS``), with the result cache
off, and the JSON reports must be identical, with and without ``--secrets all``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.boundary import prefilter
from tests.boundary.helpers import commit, init, token
from tests.boundary.test_prefilter_proof import SESSION, TRANSCRIPTS, disguised
from tests.conftest import REPO_ROOT

BLOCKED = "raise ImportError('ahocorasick_rs is not installed here (the pure fallback)')\n"


def apc(root: Path, *args: str, blocked: Path | None) -> subprocess.CompletedProcess[str]:
    path = [str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]
    if blocked is not None:
        path.insert(0, str(blocked))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
    env.pop(prefilter.ENV, None)  # the default mode: the bytes test
    command = [sys.executable, "-m", "apc_tools", *args]
    return subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture
def blocked(tmp_path: Path) -> Path:
    folder = tmp_path / "blocked"
    (folder / "ahocorasick_rs").mkdir(parents=True)
    (folder / "ahocorasick_rs" / "__init__.py").write_text(BLOCKED)
    return folder


def leaky_tree(root: Path) -> None:
    files: dict[str, str | bytes] = {
        "AGENTS.md": f"# Agents\n\nuse the key {token('ghp_')} for the build\n",
        "notes/session.py": SESSION,
        "notes/marker.txt": "a line\n[Request interrupted by user]\n",
        ".claude/settings.local.json": "{}\n",
        "config/deploy.py": f"TOKEN = '{token('sk-proj-', 48)}'\n",
    }
    files.update(dict(disguised()))
    for index in range(40):  # ordinary sources: the blobs the prefilter spares
        files[f"src/module_{index}.py"] = f"def f{index}(x):\n    return x + {index}\n"
    commit(init(root), files, "a tree with leaks")
    if TRANSCRIPTS.is_dir():  # the real transcripts too, where ../shared is there
        shutil.copytree(TRANSCRIPTS, root / "corpus", symlinks=False)
        commit(root, {}, "the real transcripts")


def test_the_fallback_is_the_pure_matcher(blocked: Path) -> None:
    code = (
        "from apc_tools.boundary import prefilter\n"
        "from apc_tools.core import detect\n"
        "print(prefilter.fast_matcher() is None, detect._fast_finders() is None)\n"
    )
    for path, expected in (([blocked, REPO_ROOT], "True True"), ([REPO_ROOT], "False False")):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, path))}
        done = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.stdout.strip() == expected, done.stdout + done.stderr


@pytest.mark.parametrize("secrets", ["contract", "all"])
def test_the_same_verdicts_without_the_matcher(secrets: str, blocked: Path, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    leaky_tree(root)
    args = ("boundary", "--tracked", "--no-cache", "--secrets", secrets, "--format", "json")
    fast = apc(root, *args, blocked=None)
    pure = apc(root, *args, blocked=blocked)
    assert fast.returncode == pure.returncode == 1, fast.stderr + pure.stderr
    assert pure.stdout == fast.stdout
    rules = {f["rule"] for f in json.loads(fast.stdout)["findings"]}
    # BMK001 (a marker inside a record) comes from the real transcripts, where ../shared is
    # there (not beside an unpacked sdist); the tree's own marker line is a mention (BMK002)
    marker = "BMK001" if TRANSCRIPTS.is_dir() else "BMK002"
    assert {"BTR001", marker, "BPA002", "BSC001"} <= rules, rules
