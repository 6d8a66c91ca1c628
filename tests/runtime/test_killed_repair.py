"""``kill -9`` of ``apc repair --in-place`` in the middle of its write (issue 30, point 21):
the temporary files the killed runs leave beside the history are removed by the next run,
however quickly the runs follow one another; files apc did not name, another user's, a
symlink and a live writer's are never touched. Real processes, real SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(os.name != "posix", reason="SIGKILL and flock")
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
KILLS = 5


def history(path: Path) -> None:
    """An OpenAI chat history of about 20 MiB whose last call is unanswered."""
    call = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    lines = [json.dumps({"role": "user", "content": "list the files"})]
    filler = "x" * 1000
    for i in range(20000):
        lines.append(json.dumps({"role": "assistant", "content": filler}))
        lines.append(json.dumps({"role": "user", "content": f"more {i}"}))
    lines.append(json.dumps({"role": "assistant", "content": None, "tool_calls": [call]}))
    lines.append(json.dumps({"role": "user", "content": "hello?"}))
    path.write_text("\n".join(lines) + "\n")


def temporaries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.name.endswith(".apc-tmp"))


def repair(path: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "apc_tools", "repair", "--in-place", str(path)],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def killed_while_writing(path: Path) -> bool:
    """Start a repair, SIGKILL it once its temporary file has bytes; True when it was."""
    before = set(temporaries(path.parent))
    proc = repair(path)
    end = time.monotonic() + 60
    try:
        while proc.poll() is None and time.monotonic() < end:
            new = [t for t in temporaries(path.parent) if t not in before]
            if new and new[0].stat().st_size > 0:
                proc.send_signal(signal.SIGKILL)
                return True
            time.sleep(0.002)
        return False
    finally:
        proc.wait(timeout=60)


def test_five_kills_in_a_row_leave_nothing_after_the_next_run(tmp_path: Path) -> None:
    folder = tmp_path / "runtime"
    folder.mkdir()
    target = folder / "history.jsonl"
    history(target)
    original = target.read_bytes()
    kills = sum(killed_while_writing(target) for _ in range(KILLS))
    assert kills == KILLS
    assert target.read_bytes() == original  # never half a history
    assert 1 <= len(temporaries(folder)) <= KILLS  # (each run sweeps what came before it)
    done = repair(target)
    assert done.wait(timeout=120) == 0
    assert temporaries(folder) == []
    assert (
        target.read_bytes() != original
        and b"not run: the turn was interrupted" in (target.read_bytes()[-2000:])
    )


def test_the_sweep_never_touches_what_apc_did_not_leave(tmp_path: Path) -> None:
    import fcntl

    folder = tmp_path / "runtime"
    folder.mkdir()
    target = folder / "history.jsonl"
    history(target)
    old = time.time() - 3600
    kept = [
        folder / ".history.jsonl.backup.apc-tmp",  # not 12 hex digits
        folder / ".history.jsonl.0123456789AB.apc-tmp",  # not apc's lowercase hex
        folder / ".history.jsonl.0123456789ab.apc-tmp.keep",
        folder / ".other.jsonl.0123456789ab.apc-tmp",  # another file's
        folder / "history.jsonl.0123456789ab.apc-tmp",  # not hidden
    ]
    for one in kept:
        one.write_text("someone's")
        os.utime(one, (old, old))
    outside = tmp_path / "outside.txt"
    outside.write_text("a file a link names")
    link = folder / ".history.jsonl.abcdefabcdef.apc-tmp"
    link.symlink_to(outside)
    live = folder / ".history.jsonl.aaaaaaaaaaaa.apc-tmp"  # a live writer holds it locked
    live.write_text("being written")
    os.utime(live, (old, old))
    holder = os.open(live, os.O_RDONLY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    foreign = folder / ".history.jsonl.bbbbbbbbbbbb.apc-tmp"
    foreign.write_text("another user's")
    os.utime(foreign, (old, old))
    if IS_ROOT:
        os.chown(foreign, 4242, 4242)
    dead = folder / ".history.jsonl.cccccccccccc.apc-tmp"  # what a killed run left
    dead.write_text("half a history")
    os.utime(dead, (old, old))
    try:
        assert repair(target).wait(timeout=120) == 0
    finally:
        os.close(holder)
    assert not dead.exists()
    for one in [*kept, live, link]:
        assert one.exists() or one.is_symlink(), one
    assert outside.read_text() == "a file a link names"
    assert foreign.exists() == IS_ROOT  # (not root: it is this user's, so it went)
