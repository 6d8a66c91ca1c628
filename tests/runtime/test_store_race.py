"""`apc repair -o` cannot be raced into the contract (issue 14, item 7).

A second process swaps the output folder for a symlink into a project's ``.apc/`` as fast as it
can (``renameat2(RENAME_EXCHANGE)``, one atomic step, so the folder is always one or the other),
while the repair runs hundreds of times. The store opens the folder component by component
without following links, checks it is the folder its guard judged, and creates and renames
through that descriptor: whichever way the race falls, the write lands in the real output
folder or is refused, and no file of the contract ever changes.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from apc_tools.cli import main
from apc_tools.runtime.store import StoreError, atomic_write

TRIES = 300
# Each race runs at least this many tries, however long they take on a loaded machine, and
# stops at its deadline after that: the deadline bounds the time, never the verdict.
LEAST_TRIES = 100

SWAPPER = r"""
import ctypes, ctypes.util, os, sys
libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
AT_FDCWD, RENAME_EXCHANGE = -100, 2
fn = getattr(libc, "renameat2", None)
def swap():
    if fn is not None:
        return fn(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)
    return libc.syscall(316, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE)  # x86-64 renameat2
if swap() != 0:
    sys.exit(3)
swap()
sys.stdout.write("ready\n"); sys.stdout.flush()
while True:
    swap()
"""


def _can_exchange(tmp: Path) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    (tmp / "x").mkdir()
    (tmp / "y").symlink_to("x")
    try:
        result = subprocess.run(
            [
                sys.executable,
                "-c",
                SWAPPER.replace("while True:\n    swap()", ""),
                tmp / "x",
                tmp / "y",
            ],
            capture_output=True,
            timeout=30,
        )
        return result.returncode == 0
    finally:
        (tmp / "y").unlink()
        (tmp / "x").rmdir()


def digest(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def racing(tmp_path: Path) -> Callable[[], tuple[Path, Path, Path]]:
    """A project, an output folder OUT/d and a symlink OUT/e -> project/.apc that a second
    process keeps exchanging with it; returns (project, OUT/d, the history to repair)."""
    if not _can_exchange(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    project = tmp_path / "project"
    (project / ".apc").mkdir(parents=True)
    (project / ".apc" / "project.json").write_text('{"name": "demo", "apc": "0.1"}\n')
    (project / "AGENTS.md").write_text("# Agents\n")
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "e").symlink_to(project / ".apc")
    history = tmp_path / "h.jsonl"
    call = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    history.write_text(
        "".join(
            json.dumps(r) + "\n"
            for r in [
                {"role": "user", "content": "list the files"},
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "user", "content": "hello?"},
            ]
        )
    )
    procs: list[subprocess.Popen[str]] = []

    def start() -> tuple[Path, Path, Path]:
        proc = subprocess.Popen(
            [sys.executable, "-c", SWAPPER, out / "d", out / "e"],
            stdout=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        return project, out / "d", history

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


def test_repair_out_raced_into_the_contract_never_writes_it(
    racing: Callable[[], tuple[Path, Path, Path]], monkeypatch: pytest.MonkeyPatch
) -> None:
    project, folder, history = racing()
    before = digest(project)
    monkeypatch.chdir(history.parent)
    runner = CliRunner()
    written = refused = 0
    deadline = time.monotonic() + 15
    for i in range(TRIES):
        result = runner.invoke(main, ["repair", str(history), "-o", str(folder / "project.json")])
        assert result.exit_code in (0, 1, 2), result.output
        if result.exit_code == 2:
            refused += 1
            assert "refusing to write" in result.output or str(folder) in result.output
            assert "Traceback" not in result.output
        else:
            written += 1
        assert digest(project) == before, f"the contract changed on try {i + 1}"
        if i + 1 >= LEAST_TRIES and time.monotonic() > deadline:
            break
    assert written > 0  # the race does not merely refuse every write
    assert written + refused >= LEAST_TRIES
    assert "Traceback" not in result.output


def test_atomic_write_raced_never_writes_through_the_link(
    racing: Callable[[], tuple[Path, Path, Path]],
) -> None:
    project, folder, _ = racing()
    before = digest(project)
    landed = 0
    deadline = time.monotonic() + 5
    for i in range(2000):
        try:
            atomic_write(folder / "project.json", ['{"hijacked": true}\n'])
            landed += 1
        except StoreError:
            pass
        assert digest(project) == before, f"the contract changed on write {i + 1}"
        if i + 1 >= LEAST_TRIES and time.monotonic() > deadline:
            break
    assert landed > 0
    assert not list(project.rglob("*.apc-tmp"))


def test_a_folder_above_the_target_swapped_for_a_link_is_never_written_through(
    tmp_path: Path,
) -> None:
    """The swapped folder is not the target's own: OUT/d/sub/x.json, with OUT/d exchanged for
    a link to a project holding sub/: every component is opened without following links."""
    if not _can_exchange(tmp_path):
        pytest.skip("renameat2(RENAME_EXCHANGE) is not available here")
    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    (project / "AGENTS.md").write_text("# Agents\n")
    (project / "sub" / "x.json").write_text("[]\n")
    out = tmp_path / "out"
    (out / "d" / "sub").mkdir(parents=True)
    (out / "e").symlink_to(project)
    before = digest(project)
    proc = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, out / "d", out / "e"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        landed = 0
        deadline = time.monotonic() + 5
        for i in range(2000):
            try:
                atomic_write(out / "d" / "sub" / "x.json", ['{"hijacked": true}\n'])
                landed += 1
            except StoreError:
                pass
            assert digest(project) == before, f"the project changed on write {i + 1}"
            if i + 1 >= LEAST_TRIES and time.monotonic() > deadline:
                break
        assert landed > 0
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
