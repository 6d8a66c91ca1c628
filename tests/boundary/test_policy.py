"""Allow-lists, the built-in allow, the base-commit rule of --range, the baseline, inline allow."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apc_tools.findings import CannotRun
from tests.boundary.helpers import CASSETTE, CLAUDE, commit, findings, repo, run
from tests.conftest import git

MENTION = "Claude Code writes [Request interrupted by user] on Esc.\n"


def pairs(found: list) -> set[tuple[str, str]]:
    return {(f.rule, f.path) for f in found}


def test_allow_globs_fold_case_and_apply_per_rule(tmp_path: Path) -> None:
    policy = "version: 1\nallow:\n  BPA002: ['.SpecStory/History/**']\n"
    files = {
        ".apc-tools.yaml": policy,
        ".specstory/history/2026-01-01_x.md": "# notes\n",
        ".aider.chat.history.md": "# x\n",
    }
    assert pairs(findings(repo(tmp_path, files))) == {("BPA002", ".aider.chat.history.md")}


def test_disable_severity_and_strict(tmp_path: Path) -> None:
    policy = "version: 1\nstrict: true\nseverity: {BTR002: error}\ndisable: [BMK002]\n"
    files = {".apc-tools.yaml": policy, "c.yaml": CASSETTE, "docs/m.md": MENTION}
    outcome = run(repo(tmp_path, files))
    assert [(f.rule, f.severity.value) for f in outcome.result.findings] == [("BTR002", "error")]
    assert outcome.result.strict


def test_builtin_allow_for_example_sessions_is_removable(tmp_path: Path) -> None:
    files = {"docs/examples/sessions/review.jsonl": CLAUDE}
    root = repo(tmp_path, files)
    assert findings(root) == []
    commit(root, {".apc-tools.yaml": "version: 1\nboundary:\n  builtin_allow: false\n"})
    assert pairs(findings(root)) == {("BTR001", "docs/examples/sessions/review.jsonl")}


def test_exclude_and_extra_paths(tmp_path: Path) -> None:
    policy = (
        "version: 1\nexclude: ['vendor/**']\nboundary:\n  paths:\n"
        "    BPA: ['**/.mytool/runs/**']\n    BTR: ['recordings/**']\n"
    )
    files = {
        ".apc-tools.yaml": policy,
        "vendor/x/s.jsonl": CLAUDE,
        "a/.mytool/runs/1.txt": "x\n",
        "recordings/today.txt": "we talked\n",
    }
    assert pairs(findings(repo(tmp_path, files))) == {
        ("BPA002", "a/.mytool/runs/1.txt"),
        ("BTR001", "recordings/today.txt"),
    }


def test_invalid_policy_stops_the_run(tmp_path: Path) -> None:
    root = repo(tmp_path, {".apc-tools.yaml": "version: 1\nboundary:\n  secrets: some\n"})
    with pytest.raises(CannotRun, match=r"\.apc-tools\.yaml"):
        findings(root)


def test_range_reads_policy_and_baseline_from_the_base(tmp_path: Path) -> None:
    root = repo(tmp_path, {".apc-tools.yaml": "version: 1\n", "README.md": "x\n"})
    base = git(root, "rev-parse", "HEAD").strip()
    allow_all = "version: 1\nallow:\n  BTR001: ['**']\n"
    head = commit(root, {".apc-tools.yaml": allow_all, "dump.jsonl": CLAUDE}, "self-exempt")
    found = findings(root, mode="range", rev_range=f"{base}..HEAD")
    assert {(f.rule, f.path, f.commit) for f in found} == {
        ("BTR001", "dump.jsonl", head),
        ("BPL002", ".apc-tools.yaml", head),
    }
    assert pairs(findings(root)) == set()  # after merge the new policy is in force


def test_baseline_write_accept_and_stale(tmp_path: Path) -> None:
    root = repo(tmp_path, {"old/s.jsonl": CLAUDE, "c.yaml": CASSETTE})
    outcome = run(root, write_baseline=True)
    assert outcome.baseline_entries == 2
    baseline = root / ".apc-baseline.json"
    text = baseline.read_text()
    data = json.loads(text)
    assert data["version"] == 1 and "list files" not in text
    assert [e["path"] for e in data["findings"]] == ["c.yaml", "old/s.jsonl"]
    assert run(root, write_baseline=True) and baseline.read_text() == text  # stable bytes
    commit(root, {}, "baseline")
    assert findings(root) == []
    commit(root, {"new/s.jsonl": CLAUDE}, "new leak")
    assert pairs(findings(root)) == {("BTR001", "new/s.jsonl")}
    git(root, "rm", "-q", "old/s.jsonl")
    git(root, "commit", "-q", "-m", "fixed")
    assert pairs(findings(root)) == {("BTR001", "new/s.jsonl"), ("BPL001", ".apc-baseline.json")}


def test_baseline_keyed_by_content_not_line(tmp_path: Path) -> None:
    root = repo(tmp_path, {"docs/m.md": MENTION})
    run(root, write_baseline=True)
    commit(root, {"docs/m.md": "# Intro\n\nMore text.\n\n" + MENTION}, "moved down")
    assert findings(root) == []
    commit(root, {"docs/m.md": "Codex writes <turn_aborted> on Esc.\n"}, "other marker")
    assert pairs(findings(root)) == {("BMK002", "docs/m.md"), ("BPL001", ".apc-baseline.json")}


def test_invalid_baseline_stops_the_run(tmp_path: Path) -> None:
    root = repo(tmp_path, {".apc-baseline.json": '{"version": 2, "findings": []}'})
    with pytest.raises(CannotRun, match="apc-baseline"):
        findings(root)


@pytest.mark.parametrize(
    "comment",
    ["<!-- apc: allow BMK002 -->", "# apc: allow BMK002", "// apc: allow BPA002, BMK002"],
)
def test_inline_allow_and_no_inline_allow(tmp_path: Path, comment: str) -> None:
    root = repo(tmp_path, {"docs/m.md": MENTION.rstrip("\n") + " " + comment + "\n"})
    assert findings(root) == []
    assert pairs(findings(root, inline_allow=False)) == {("BMK002", "docs/m.md")}


def test_inline_allow_names_the_rule_and_json_has_no_comments(tmp_path: Path) -> None:
    line = json.dumps({"role": "user", "content": "[Request interrupted by user] # apc: allow"})
    files = {
        "docs/m.md": MENTION.rstrip("\n") + " <!-- apc: allow BSC001 -->\n",
        "r.jsonl": line[:-1] + ', "note": "# apc: allow BMK001"}\n',
    }
    assert pairs(findings(repo(tmp_path, files))) == {
        ("BMK002", "docs/m.md"),
        ("BMK001", "r.jsonl"),
    }


def test_range_baseline_change_is_reported_and_config_overrides_the_base(tmp_path: Path) -> None:
    root = repo(tmp_path, {"README.md": "x\n"})
    base = git(root, "rev-parse", "HEAD").strip()
    commit(root, {"s.jsonl": CLAUDE}, "leak")
    run(root, write_baseline=True)
    head = commit(root, {}, "accept the leak in the same pull request")
    found = findings(root, mode="range", rev_range=f"{base}..HEAD")
    assert {(f.rule, f.path) for f in found} == {
        ("BTR001", "s.jsonl"),
        ("BPL002", ".apc-baseline.json"),
    }
    assert {f.commit for f in found if f.rule == "BPL002"} == {head}
    config = tmp_path / "ci-policy.yaml"
    config.write_text("version: 1\ndisable: [BTR001]\n")
    found = findings(root, mode="range", rev_range=f"{base}..HEAD", config=config)
    assert {f.rule for f in found} == {"BPL002"}


@pytest.mark.parametrize(
    "where", ["../outside.json", "ABSOLUTE", "/etc/passwd", "link/b.json", "."]
)
def test_baseline_outside_the_repository_is_refused(tmp_path: Path, where: str) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    name = str(outside / "b.json") if where == "ABSOLUTE" else where
    root = repo(
        tmp_path, {".apc-tools.yaml": f"version: 1\nbaseline: '{name}'\n", "s.jsonl": CLAUDE}
    )
    (root / "link").symlink_to(outside, target_is_directory=True)
    for options in ({}, {"write_baseline": True}):
        with pytest.raises(CannotRun, match="inside the repository"):
            run(root, **options)
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "outside.json").exists()


def test_baseline_in_a_subfolder_is_fine(tmp_path: Path) -> None:
    policy = "version: 1\nbaseline: ci/accepted.json\n"
    root = repo(tmp_path, {".apc-tools.yaml": policy, "s.jsonl": CLAUDE, "ci/x": "x\n"})
    assert run(root, write_baseline=True).baseline_entries == 1
    assert (root / "ci" / "accepted.json").is_file()
    assert findings(root) == []


def test_baseline_spells_out_the_occurrence_and_reads_the_older_bare_form() -> None:
    """Issue 17: a bare 32-hex fingerprint is a "Hex High Entropy String" to detect-secrets;
    the baseline writes `hash:1` (as SARIF does) and reads both forms as the same finding."""
    from apc_tools.boundary.policy import BaselineEntry, baseline_text, parse_baseline

    first, second = "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210:2"
    entries = (BaselineEntry(first, "BTR001", "a.jsonl"), BaselineEntry(second, "BMK002", "b.md"))
    text = baseline_text(entries)
    stored = [e["fingerprint"] for e in json.loads(text)["findings"]]
    assert stored == [f"{first}:1", second]
    assert set(parse_baseline("new", text)) == set(entries)
    older = text.replace(f"{first}:1", first)
    assert set(parse_baseline("old", older)) == set(entries)
    assert baseline_text(parse_baseline("old", older)) == text  # rewriting upgrades the form
