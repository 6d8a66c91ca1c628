"""File names that are not UTF-8 (bytes 0xFF 0xFE) through every command that stores its result
in the cache (issue 30, point 6): the same report cold and warm, never a traceback. A real
repository, real apc processes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.boundary.helpers import CLAUDE, init
from tests.conftest import git, run_apc

BAD = b"\xff\xfe"
AGENT = b"---\nname: x\n---\nbody\n"  # AGT010: no description


def write(root: Path, rel: bytes, data: bytes | str) -> None:
    path = os.fsencode(root) + b"/" + rel
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(data.encode() if isinstance(data, str) else data)


def test_a_name_that_is_not_utf8_in_every_command(xdg: Path, tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    try:
        write(root, b".claude/agents/" + BAD + b".md", AGENT)
    except OSError:  # pragma: no cover - a file system that takes UTF-8 names only
        pytest.skip("this file system refuses names that are not UTF-8")
    write(root, b"AGENTS.md", "# Agents\n")
    write(root, b"logs/" + BAD + b".jsonl", CLAUDE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD").strip()
    write(root, b"logs/more-" + BAD + b".jsonl", CLAUDE)
    write(root, b".claude/agents/" + BAD + b"2.md", AGENT)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "more")  # what the range adds
    write(root, b"logs/staged-" + BAD + b".jsonl", CLAUDE)
    write(root, b".claude/agents/" + BAD + b"3.md", AGENT)
    git(root, "add", "-A")
    commands = [
        ["validate"],
        ["check"],
        ["boundary", "--staged"],
        ["boundary", "--tracked"],
        ["check", "--range", f"{base}..HEAD"],
        ["boundary", "--history"],
    ]
    env = {"XDG_CACHE_HOME": str(xdg)}
    cold = {}
    for args in commands:
        done = run_apc(root, *args, "--format", "json", env=env)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        paths = {f["path"] for f in json.loads(done.stdout)["findings"]}
        assert any("\\udcff" in json.dumps(p) or "\ufffd" in p for p in paths), (args, paths)
        cold[tuple(args)] = done.stdout
    fixed = run_apc(root, "validate", "--fix", env=env)
    assert "Traceback" not in fixed.stderr and fixed.returncode == 1, fixed.stderr
    for args in commands:  # warm: answered from what the cold runs stored
        done = run_apc(root, *args, "--format", "json", env=env)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.stdout == cold[tuple(args)], args
        assert "not using the result cache" not in done.stderr
