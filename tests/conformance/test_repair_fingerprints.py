"""The boundary recognises the session files the pinned CLIs write (issue 16, item 5).

Every session file Claude Code 2.1.197, Codex 0.171.0 and Gemini CLI 0.61.0 wrote in the repair
suite (tests/conformance/test_repair_resume.py: complete, killed, interrupted and parallel runs,
the repaired files, and the files each CLI wrote again when it resumed them) is committed into a
real git repository at its natural path (below ``.claude/``, ``.codex/``, ``.gemini/``) and again
under names that say nothing (``notes/x.txt``, ``logs/x.log``, ``x.json``, no suffix at all):
``apc boundary --staged`` must report each copy as that tool's session, by content.

The replay tier reads the recorded sessions (``replay/repair/*.json``); the full tier runs each
CLI once (a complete session with a tool call, then a resume) and checks every session file its
HOME then holds, and the SQLite stores Codex keeps next to them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conformance.harness import Binaries
from tests.conformance.test_repair_resume import REPLAY, TOOLS, produce, resume

LABEL = {"claude": "Claude Code session", "codex": "Codex rollout", "gemini": "Gemini CLI session"}
RENAMES = ("notes/{n}.txt", "logs/{n}.log", "data/{n}.json", "misc/{n}", "docs/{n}.md")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


def boundary(files: dict[str, bytes], tmp_path: Path) -> dict[str, list[tuple[str, str]]]:
    """Stage ``files`` (path -> bytes) in a new repository; the (rule, message) findings of
    ``apc boundary --staged`` per path."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    for rel, data in files.items():
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    _git(repo, "add", "-A", "-f")
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "boundary", "--staged", "--format", "json"],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    found: dict[str, list[tuple[str, str]]] = {}
    for finding in json.loads(done.stdout)["findings"]:
        found.setdefault(finding["path"], []).append((finding["rule"], finding["message"]))
    return found


def layout(tool: str, natural: str, data: bytes) -> dict[str, bytes]:
    """The file at its natural path and under each name that says nothing."""
    stem = f"{tool}-{hashlib.sha256(natural.encode()).hexdigest()[:10]}"
    return {natural: data, **{r.format(n=stem): data for r in RENAMES}}


def assert_recognised(found: dict[str, list[tuple[str, str]]], files: dict[str, str]) -> None:
    """Each path (-> its tool) has a BTR001 finding naming that tool's session format."""
    for rel, tool in files.items():
        rules = found.get(rel, [])
        assert any(r == "BTR001" and LABEL[tool] in m for r, m in rules), (rel, rules)


def _natural(tool: str, name: str) -> str:
    return {
        "claude": f".claude/projects/-home-me-project/{name}",
        "codex": f".codex/sessions/2026/12/01/{name}",
        "gemini": f".gemini/tmp/project/chats/{name}",
    }[tool]


def _recorded() -> list[dict[str, object]]:
    return [json.loads(p.read_text("utf-8")) for p in sorted(REPLAY.glob("*.json"))]


def test_replay_every_recorded_session_is_recognised_at_its_path_and_renamed(
    tmp_path: Path,
) -> None:
    recorded = _recorded()
    assert len(recorded) == 13
    files: dict[str, bytes] = {}
    tools: dict[str, str] = {}
    for case in recorded:
        tool, name = str(case["tool"]), str(case["name"])
        raw = str(case["raw"]).encode("utf-8")
        repaired = raw + "".join(f"{line}\n" for line in case["added"]).encode()  # type: ignore[attr-defined]
        for label, data in (("raw", raw), ("repaired", repaired)):
            natural = _natural(tool, name if label == "raw" else f"r-{name}")
            for rel, blob in layout(tool, natural, data).items():
                files[rel] = blob
                tools[rel] = tool
    assert_recognised(boundary(files, tmp_path), tools)


@pytest.mark.parametrize("tool", TOOLS)
def test_every_session_file_the_cli_wrote_is_recognised(
    clis: Binaries, tmp_path: Path, tool: str
) -> None:
    produced = produce(tool, "complete", tmp_path / "run")
    resume(produced, produced.home)  # the CLI writes its store again when it resumes
    home = produced.home
    sessions = {
        "claude": sorted((home / ".claude" / "projects").rglob("*.jsonl")),
        "codex": sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl")),
        "gemini": sorted((home / ".gemini" / "tmp").glob("*/chats/*.json*")),
    }[tool]
    assert sessions
    files: dict[str, bytes] = {}
    tools: dict[str, str] = {}
    for path in sessions:
        natural = path.relative_to(home).as_posix()
        for rel, blob in layout(tool, natural, path.read_bytes()).items():
            files[rel] = blob
            tools[rel] = tool
    stores = [p for p in home.rglob("*.sqlite")]  # Codex keeps its threads in SQLite too
    for path in stores:
        files[path.relative_to(home).as_posix()] = path.read_bytes()
    found = boundary(files, tmp_path)
    assert_recognised(found, tools)
    for path in stores:
        rel = path.relative_to(home).as_posix()
        assert any(r == "BDB001" for r, _ in found.get(rel, [])), (rel, found.get(rel))
    if tool == "codex":
        assert stores, "Codex 0.171 writes its state and thread history to SQLite"
