""".apc/.gitignore checks (GIG001, GIG002) and the coverage semantics."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from apc_tools.core.gitignore import SAFE_DEFAULTS, missing_defaults, sample_path
from tests.checks_base import BASE, run, where

G = ".apc/.gitignore"


def test_spec_default_gitignore_is_clean(tmp_path: Path) -> None:
    spec = "\n".join(SAFE_DEFAULTS) + "\nmigrate.md\n"
    assert run(tmp_path, {G: spec}) == []


def test_missing_entries_give_one_warning_listing_them(tmp_path: Path) -> None:
    found = run(tmp_path, {G: "# runtime\nsessions/\ncache/\n"})
    assert where(found, "GIG001") == [(G, 1, 1)]
    assert len(found) == 1 and found[0].severity.value == "warning"
    message = found[0].message
    assert "sessions/" not in message.split(": add these lines: ")[1].split(", ")
    assert "agents/*/conversations/" in message and "mcps.local.json" in message


def test_apx_gitignore_covers_everything() -> None:
    apx = (
        "agents/*/\nsessions/\nconversations/\nmessages/\nchats/\nthreads/\ncache/\ntmp/\n"
        "private/\nsecrets/\n.env\n*.local.json\n*.secret.json\n*.env\n*.env.*\n"
        "mcps.local.json\nplans/scratch/\n"
    )
    assert missing_defaults(apx) == []


@pytest.mark.parametrize(
    ("text", "entry", "covered"),
    [
        ("agents/*/sessions/\n", "agents/*/sessions/", True),  # equal line
        ("agents/*/\n", "agents/*/sessions/", True),  # broader folder
        ("agents/\n", "agents/*/conversations/", True),
        ("agents/**\n", "agents/*/sessions/", True),
        ("*.env*\n", "*.env", True),
        ("*.env*\n", "*.env.*", True),
        ("/sessions/\n", "sessions/", True),  # anchored still covers .apc/sessions/
        ("sessions\n", "sessions/", True),  # without the slash: file or folder
        ("**/sessions/\n", "sessions/", True),
        ("*.json\n", "mcps.local.json", True),
        ("sessions/\n!sessions/\n", "sessions/", False),  # negation un-covers
        ("*.env\n!x1.env\n", "*.env", False),
        ("sessions/\n!sessions/keep.md\n", "sessions/", True),  # cannot re-include inside
        ("mcps.local.json\n", "*.local.json", False),  # narrower does not cover broader
        ("*.env\n", "*.env.*", False),
        ("  # sessions/\n", "sessions/", False),  # a comment
        ("session/\n", "sessions/", False),
        ("agents/*/sessions\\/\n", "agents/*/sessions/", False),  # odd escape, no crash
    ],
)
def test_coverage(text: str, entry: str, covered: bool) -> None:
    assert (entry not in missing_defaults(text)) is covered


def test_coverage_agrees_with_git(tmp_path: Path) -> None:
    """The sample paths and the verdicts match `git check-ignore` on a real repository."""
    text = "agents/*/\nsessions\n*.env*\n!x1.env.x1\ncache/\n!cache/x\ntmp/*\n!tmp/f1\n"
    root = tmp_path / "r"
    (root / ".apc").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".apc" / ".gitignore").write_text(text)
    samples = [sample_path(e) for e in SAFE_DEFAULTS] + ["tmp/f1"]
    done = subprocess.run(
        ["git", "-C", str(root), "check-ignore", "--no-index", "--stdin"],
        input="\n".join(f".apc/{s}" for s in samples),
        capture_output=True,
        text=True,
        check=False,
    )
    ignored_by_git = {line.removeprefix(".apc/") for line in done.stdout.split()}
    missing = set(missing_defaults(text))
    for entry in SAFE_DEFAULTS:
        assert (sample_path(entry) in ignored_by_git) == (entry not in missing), entry


def test_no_gitignore_in_apc_project(tmp_path: Path) -> None:
    files = {k: v for k, v in BASE.items() if k != G}
    found = run(tmp_path, files, base=False)
    assert where(found, "GIG002") == [(G, None, None)]
    assert found[0].severity.value == "warning"


def test_no_gitignore_needed_without_apc(tmp_path: Path) -> None:
    assert where(run(tmp_path, {"AGENTS.md": "# x\n"}, base=False), "GIG002") == []
