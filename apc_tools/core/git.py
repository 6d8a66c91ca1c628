"""Git, one small function per question, over NUL-separated output (pre-commit's ``git.py`` way).

Every call runs ``git`` with the repository's own hooks, fsmonitor and filters switched off, so
a scanned repository cannot make apc run its commands (``core.fsmonitor`` is a command line), and
with ``GIT_NO_LAZY_FETCH=1``, so a partial clone never fetches a missing object over the network.
Functions return ``None`` (or raise :class:`GitError`) instead of printing; callers decide what a
failure means.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

# Settings that keep a scanned repository's configuration from running anything.
SAFE_CONFIG: tuple[str, ...] = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
)
TIMEOUT = 300


class GitError(Exception):
    """git could not answer (not installed, not a repository, a refusal): the message says why."""


def git_env() -> dict[str, str]:
    """The environment for git: no lazy fetch, no pager, no prompts, no locale surprises."""
    env = dict(os.environ)
    env.update(
        GIT_NO_LAZY_FETCH="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_PAGER="cat",
        GIT_OPTIONAL_LOCKS="0",
        LC_ALL="C",
    )
    return env


def run(cwd: Path, args: Sequence[str], *, stdin: bytes | None = None) -> bytes:
    """``git -C cwd <safe config> args``: its stdout, or :class:`GitError` with git's own words."""
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *SAFE_CONFIG, *args],
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
            env=git_env(),
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from exc
    if done.returncode != 0:
        words = os.fsdecode(done.stderr).strip().splitlines()
        raise GitError(words[-1] if words else f"git {args[0]} failed")
    return done.stdout


def split_z(out: bytes) -> list[str]:
    """NUL-separated git output as file-system strings (no empty trailing entry)."""
    return [os.fsdecode(part) for part in out.split(b"\0") if part]


def toplevel(cwd: Path) -> Path | None:
    """The work tree's top folder holding ``cwd``, or None outside a work tree."""
    try:
        out = run(cwd, ["rev-parse", "--show-toplevel"])
    except GitError:
        return None
    return Path(os.fsdecode(out.strip()))


def ls_files(cwd: Path) -> list[tuple[bool, str]]:
    """(tracked, path from the top level) for the files under ``cwd`` that git does not ignore:
    tracked files plus untracked ones not excluded by the ignore rules."""
    out = run(
        cwd,
        ["ls-files", "-z", "-t", "-c", "-o", "--exclude-standard", "--full-name", "--", "."],
    )
    entries: list[tuple[bool, str]] = []
    for entry in split_z(out):
        if len(entry) >= 3:
            entries.append((entry[0] != "?", entry[2:]))
    return entries


def work_tree_files(root: Path) -> tuple[list[str], frozenset[str]] | None:
    """(files not ignored, tracked files) under ``root``, relative to it, or None outside a work
    tree (or when git cannot answer)."""
    top = toplevel(root)
    if top is None:
        return None
    try:
        entries = ls_files(root)
    except GitError:
        return None
    prefix = os.path.relpath(root.resolve(), top.resolve())
    prefix = "" if prefix == "." else PurePosixPath(Path(prefix)).as_posix() + "/"
    files: set[str] = set()
    tracked: set[str] = set()
    for is_tracked, name in entries:
        if name.startswith(prefix):
            rel = name[len(prefix) :]
            files.add(rel)
            if is_tracked:
                tracked.add(rel)
    return sorted(files), frozenset(tracked)
