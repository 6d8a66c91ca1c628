"""Issue 15 item 5: `--history` reports each distinct blob of a path with the commit that added
it; the text report collapses them to one line per rule and path with the count."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from tests.boundary.helpers import AIDER, commit, findings, repo
from tests.conftest import GIT_ENV, run_apc, write_tree

HISTORY = ".aider.chat.history.md"


def _commit_on_day(root: Path, files: dict[str, str | bytes], day: int) -> str:
    """A commit dated ``day`` days after the others (git log orders versions by date)."""
    write_tree(root, files)
    date = f"2026-02-{day:02d}T00:00:00+00:00"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    for args in (["add", "-A"], ["commit", "-q", "-m", f"day {day}"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def _seven_versions(tmp_path: Path) -> tuple[Path, list[str]]:
    root = repo(tmp_path, {"README.md": "# app\n"})
    commits = []
    text = AIDER
    for i in range(7):
        text += f"\n#### change number {i}\n\n> Applied edit to app.py\n"
        commits.append(_commit_on_day(root, {HISTORY: text}, i + 1))
    _commit_on_day(root, {"README.md": "# app, unrelated change\n"}, 9)
    return root, commits


def test_history_reports_every_version_with_its_commit(tmp_path: Path) -> None:
    root, commits = _seven_versions(tmp_path)
    found = [f for f in findings(root, mode="history") if f.path == HISTORY]
    for rule in ("BPA002", "BTR001"):
        assert sorted(f.commit or "" for f in found if f.rule == rule) == sorted(commits), rule
    # each finding stays unique for SARIF and the baseline
    assert len({f.fingerprint for f in found}) == len(found) == 14


def test_tracked_and_range_still_report_a_path_once(tmp_path: Path) -> None:
    root, commits = _seven_versions(tmp_path)
    assert len([f for f in findings(root) if f.path == HISTORY]) == 2
    ranged = findings(root, mode="range", rev_range=f"{commits[0]}..HEAD")
    assert [f.commit for f in ranged if f.rule == "BPA002"] == [commits[1]]  # the oldest


def test_a_blob_restored_in_a_later_commit_is_one_version(tmp_path: Path) -> None:
    root = repo(tmp_path, {HISTORY: AIDER})
    commit(root, {HISTORY: AIDER + "\n#### more\n"}, "more")
    commit(root, {HISTORY: AIDER}, "revert")  # the first blob again
    found = [f for f in findings(root, mode="history") if f.rule == "BPA002"]
    assert len(found) == 2


def _apc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_apc(cwd, "boundary", *args, timeout=120)


def test_text_output_collapses_versions_and_json_lists_them(tmp_path: Path) -> None:
    root, commits = _seven_versions(tmp_path)
    text = _apc(root, "--history")
    assert text.returncode == 1
    lines = [line for line in text.stdout.splitlines() if line.startswith(HISTORY)]
    assert len(lines) == 2, text.stdout  # BPA002 and BTR001, one line each
    assert all("in 7 versions of the file" in line for line in lines)
    assert "14 errors" in text.stdout  # the summary still counts every version
    data = json.loads(_apc(root, "--history", "--format", "json").stdout)
    listed = [f for f in data["findings"] if f["path"] == HISTORY and f["rule"] == "BPA002"]
    assert sorted(f["commit"] for f in listed) == sorted(commits)
