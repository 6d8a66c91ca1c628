"""Two installers of the pinned CLIs at once (two CI runs, or two checkouts, on one machine)
share the cache folders: the second waits for the first and reuses its install; one ``npm
install`` runs per folder (the first pins together, each further pin alone), never two into the
same folder.

The installers are real processes (``python -m tests.conformance.installer``); ``npm`` and
``node`` are stand-ins on ``PATH`` (the registry is not needed to judge the locking): the
stand-in npm writes the tree the installer checks for, after the test lets it go.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from subprocess import PIPE

import pytest

from tests.conformance.installer import PINS, cache_key
from tests.conftest import REPO_ROOT

GUARD = 120.0  # seconds: a hang guard, never a speed assertion

FAKE_NPM = """#!{python}
import json, os, pathlib, sys
log = pathlib.Path(os.environ["FAKE_NPM_LOG"])
first = not log.exists()
with open(log, "a") as handle:
    handle.write(f"{{os.getpid()}}\\n")
if first:  # held until the test lets it go (a FIFO: open blocks until the test writes)
    with open(os.environ["FAKE_NPM_GATE"]) as gate:
        gate.read()
modules = pathlib.Path(sys.argv[sys.argv.index("--prefix") + 1]) / "node_modules"
specs = dict(arg.rsplit("@", 1) for arg in sys.argv if arg.startswith("@"))
for name, version in specs.items():
    (modules / name).mkdir(parents=True, exist_ok=True)
    (modules / name / "package.json").write_text(json.dumps({{"version": version}}, indent=1))
if "@anthropic-ai/claude-code" in specs:
    claude = modules / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    claude.parent.mkdir(parents=True, exist_ok=True)
    claude.write_bytes(b"\\x7fELF stand-in")
if "@google/gemini-cli" in specs:
    gemini = modules / "@google" / "gemini-cli" / "bundle" / "gemini.js"
    gemini.parent.mkdir(parents=True, exist_ok=True)
    gemini.write_text("// stand-in")
if "@openai/codex" in specs:
    codex = modules / "@openai" / "codex-linux-x64" / "vendor" / "x86_64" / "bin" / "codex"
    codex.parent.mkdir(parents=True, exist_ok=True)
    codex.write_bytes(b"\\x7fELF stand-in")
"""


def waiting_for_a_lock(pid: int) -> bool:
    """Is process ``pid`` blocked on a file lock (a ``->`` line of /proc/locks)?"""
    lines = Path("/proc/locks").read_text().splitlines()
    return any("->" in line and str(pid) in line.split() for line in lines)


def until(condition: Callable[[], bool], what: str) -> None:
    """Poll ``condition`` (a state another process reaches) within the hang guard."""
    deadline = time.monotonic() + GUARD
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


@pytest.mark.skipif(not Path("/proc/locks").is_file(), reason="needs Linux's /proc/locks")
def test_two_installers_at_once_install_once(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    npm = bin_dir / "npm"
    npm.write_text(FAKE_NPM.format(python=sys.executable))
    (bin_dir / "node").write_text("#!/bin/sh\nexit 0\n")
    for tool in (npm, bin_dir / "node"):
        tool.chmod(0o755)
    gate, log = tmp_path / "gate", tmp_path / "npm.log"
    os.mkfifo(gate)
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "APC_CONFORMANCE_CACHE": str(tmp_path / "cache"),
        "FAKE_NPM_LOG": str(log),
        "FAKE_NPM_GATE": str(gate),
        "PYTHONPATH": str(REPO_ROOT),
    }
    command = [sys.executable, "-m", "tests.conformance.installer"]

    start = functools.partial(
        subprocess.Popen, command, cwd=REPO_ROOT, env=env, stdout=PIPE, stderr=PIPE, text=True
    )
    first = start()
    until(log.exists, "the first installer never ran npm")
    second = start()  # while the first one's npm install is under way
    until(
        lambda: waiting_for_a_lock(second.pid) or len(log.read_text().split()) > 1,
        "the second installer neither waited for the lock nor ran npm",
    )
    with open(gate, "w"):
        pass  # let the first npm finish
    outs = [proc.communicate(timeout=GUARD) for proc in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0], outs
    # one npm install per folder: the second installer reused each
    folders = 1 + sum(len(versions) - 1 for versions in PINS.values())
    assert len(log.read_text().split()) == folders
    printed = outs[0][0].split()
    assert outs[0][0] == outs[1][0] and len(printed) == folders
    assert printed[0].endswith(
        "+".join(f"{name.rsplit('/', 1)[-1]}-{versions[0]}" for name, versions in PINS.items())
    )
    extra = [cache_key({name: ver}) for name, versions in PINS.items() for ver in versions[1:]]
    assert [Path(line).name for line in printed[1:]] == extra
