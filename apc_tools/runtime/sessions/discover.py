"""Where each agent keeps the sessions of one project: found from the project root, read only.

These stores lie outside the project tree (the contract package never looks there):

* Claude Code: ``~/.claude/projects/<root with every non-alphanumeric character as '-'>/``
  (``*.jsonl`` and ``<session>/subagents/*.jsonl``); ``$CLAUDE_CONFIG_DIR`` replaces ``~/.claude``;
* Codex: ``~/.codex/sessions/**/rollout-*.jsonl`` whose ``session_meta`` ``cwd`` is the root or
  below it; ``$CODEX_HOME`` replaces ``~/.codex``;
* Gemini CLI: ``~/.gemini/tmp/<id>/chats/`` with ``<id>`` from ``~/.gemini/projects.json``
  (``{"projects": {<path>: <short id>}}``, gemini-cli ``projectRegistry.ts``) or the legacy
  ``sha256(root)``;
* APC: the project's runtime folder from the contract (``~/.apx/projects/<apx_id>/``), when the
  contract is valid.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_SESSION_SUFFIXES = (".jsonl", ".json")
_CODEX_HEAD = 64 << 10  # the session_meta line is the first; it may hold long instructions


@dataclass(frozen=True)
class Found:
    """A session file and the agent whose store it was found in."""

    path: Path
    tool: str


def claude_slug(root: Path) -> str:
    return re.sub(r"[^A-Za-z0-9]", "-", str(root))


def _claude(root: Path, home: Path) -> Iterator[Found]:
    base = Path(os.environ.get("CLAUDE_CONFIG_DIR") or home / ".claude")
    folder = base / "projects" / claude_slug(root)
    if folder.is_dir():
        for path in sorted(folder.glob("*.jsonl")) + sorted(folder.glob("*/subagents/*.jsonl")):
            yield Found(path, "claude-code")


def _codex_cwd(path: Path) -> str | None:
    try:
        with path.open("rb") as fh:
            first = fh.readline(_CODEX_HEAD)
        record = json.loads(first)
    except (OSError, ValueError, RecursionError):
        return None
    payload = record.get("payload") if isinstance(record, dict) else None
    cwd = payload.get("cwd") if isinstance(payload, dict) else None
    return cwd if isinstance(cwd, str) else None


def _within(path: str, root: Path) -> bool:
    candidate = Path(path)
    return candidate == root or root in candidate.parents


def _codex(root: Path, home: Path) -> Iterator[Found]:
    base = Path(os.environ.get("CODEX_HOME") or home / ".codex") / "sessions"
    if not base.is_dir():
        return
    for path in sorted(base.rglob("rollout-*.jsonl")):
        cwd = _codex_cwd(path)
        if cwd is not None and _within(cwd, root):
            yield Found(path, "codex")


def _gemini_ids(root: Path, home: Path) -> list[str]:
    ids = [hashlib.sha256(str(root).encode()).hexdigest()]
    try:
        data = json.loads((home / ".gemini" / "projects.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return ids
    projects = data.get("projects") if isinstance(data, dict) else None
    short = projects.get(str(root)) if isinstance(projects, dict) else None
    return [short, *ids] if isinstance(short, str) and short else ids


def _gemini(root: Path, home: Path) -> Iterator[Found]:
    for short in _gemini_ids(root, home):
        chats = home / ".gemini" / "tmp" / short / "chats"
        if chats.is_dir():
            for path in sorted(chats.rglob("*")):
                if path.is_file() and path.suffix in _SESSION_SUFFIXES:
                    yield Found(path, "gemini-cli")


def _apc(runtime_dir: Path | None) -> Iterator[Found]:
    if runtime_dir is not None and runtime_dir.is_dir():
        for path in sorted(runtime_dir.rglob("*")):
            if path.is_file() and path.suffix in _SESSION_SUFFIXES:
                yield Found(path, "apc")


def find_sessions(root: Path, home: Path, runtime_dir: Path | None = None) -> list[Found]:
    """Every session file of the project at ``root`` in the agents' stores under ``home``."""
    root = Path(os.path.abspath(root))
    found = [*_claude(root, home), *_codex(root, home), *_gemini(root, home), *_apc(runtime_dir)]
    seen: set[Path] = set()
    unique = []
    for item in found:
        if item.path not in seen:
            seen.add(item.path)
            unique.append(item)
    return unique
