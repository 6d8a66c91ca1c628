"""`apc check`: validation of the tree plus the boundary scan, one report, one exit code."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_cli import apc
from tests.conftest import git, write_tree
from tests.integrations.leaks import CLAUDE_SESSION, INVALID_AGENT, MARKER, PROJECT, secret


def report(*args: str, cwd: Path) -> dict[str, object]:
    done = apc("check", "--format", "json", *args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    data = json.loads(done.stdout)
    assert isinstance(data, dict)
    return data


def hits(data: dict[str, object]) -> list[tuple[str, str, int | None]]:
    findings = data["findings"]
    assert isinstance(findings, list)
    return [(f["rule"], f["path"], f["line"]) for f in findings]


def commit_all(root: Path, message: str) -> str:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--no-verify", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def test_after_apc_init_apc_check_passes(git_repo: Callable[..., Path]) -> None:
    repo = git_repo({"src/app.py": "print('hi')\n"})
    assert apc("init", cwd=repo).returncode == 0
    commit_all(repo, "adopt APC")
    done = apc("check", "--strict", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr


def test_one_report_from_both_halves_and_one_exit_code(git_repo: Callable[..., Path]) -> None:
    repo = git_repo({**PROJECT, ".apc/agents/bad.md": INVALID_AGENT, "s.jsonl": CLAUDE_SESSION})
    done = apc("check", "--no-color", cwd=repo)
    assert done.returncode == 1
    rules = {rule for rule, _, _ in hits(report(cwd=repo))}
    assert any(r.startswith("AGT") for r in rules)  # validate: the invalid agent file
    assert any(r.startswith("BTR") for r in rules)  # boundary: the committed session


def test_a_secret_in_agents_md_is_reported_once_by_the_validate_rule(
    git_repo: Callable[..., Path],
) -> None:
    agents = PROJECT["AGENTS.md"] + f"\nDeploy with {secret()}\n\n{MARKER}\n"
    repo = git_repo({**PROJECT, "AGENTS.md": agents})
    found = [h for h in hits(report(cwd=repo)) if h[1] == "AGENTS.md"]
    rules = sorted(rule for rule, _, _ in found)
    assert rules == ["AGM004", "AGM005"], found
    boundary_alone = json.loads(apc("boundary", "--format", "json", cwd=repo).stdout)
    assert {f["rule"][:3] for f in boundary_alone["findings"]} >= {"BSC", "BMK"}


def test_same_findings_and_root_relative_paths_from_a_subfolder(
    git_repo: Callable[..., Path],
) -> None:
    repo = git_repo(
        {**PROJECT, "docs/AGENTS.md": f"# Docs\n\n{MARKER}\n", "logs/s.jsonl": CLAUDE_SESSION}
    )
    from_root = report(cwd=repo)
    from_sub = report(cwd=repo / "docs")
    assert from_sub["findings"] == from_root["findings"]
    assert {"docs/AGENTS.md", "logs/s.jsonl"} <= {path for _, path, _ in hits(from_sub)}
    sarif = json.loads(apc("check", "--format", "sarif", cwd=repo / "docs").stdout)
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in sarif["runs"][0]["results"]
    }
    assert {"docs/AGENTS.md", "logs/s.jsonl"} <= uris
    github = apc("check", "--format", "github", cwd=repo / "docs").stdout
    assert "file=docs/AGENTS.md," in github and "file=logs/s.jsonl," in github
    gitlab = json.loads(apc("check", "--format", "gitlab", cwd=repo / "docs").stdout)
    assert "logs/s.jsonl" in {i["location"]["path"] for i in gitlab}
    text = apc("check", "--no-color", cwd=repo / "docs").stdout
    assert re.search(r"^logs/s\.jsonl", text, re.M)


def test_paths_restrict_both_halves(git_repo: Callable[..., Path]) -> None:
    repo = git_repo(
        {
            **PROJECT,
            "a/AGENTS.md": f"# A\n\n{MARKER}\n",
            "a/s.jsonl": CLAUDE_SESSION,
            "b/s.jsonl": CLAUDE_SESSION,
            "b/.apc/agents/bad.md": INVALID_AGENT,
        }
    )
    only_a = {path for _, path, _ in hits(report("a", cwd=repo))}
    assert only_a == {"a/AGENTS.md", "a/s.jsonl"}
    via_c = {path for _, path, _ in hits(report("-C", str(repo / "b"), ".", cwd=repo.parent))}
    assert via_c and all(path.startswith("b/") for path in via_c)


def test_range_scans_every_commit_and_validates_the_tree(git_repo: Callable[..., Path]) -> None:
    repo = git_repo(PROJECT)
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {"tmp/s.jsonl": CLAUDE_SESSION})
    leaked = commit_all(repo, "oops")
    git(repo, "rm", "-q", "tmp/s.jsonl")
    write_tree(repo, {".apc/agents/bad.md": INVALID_AGENT})
    head = commit_all(repo, "remove it, add a bad agent")
    data = report("--range", f"{base}..{head}", cwd=repo)
    findings = data["findings"]
    assert isinstance(findings, list)
    session = [f for f in findings if f["path"] == "tmp/s.jsonl"]
    assert session and all(f["commit"] == leaked for f in session)
    assert any(f["path"] == ".apc/agents/bad.md" and f["rule"].startswith("AGT") for f in findings)
    assert apc("check", cwd=repo).returncode == 1  # the bad agent at HEAD


def test_the_root_policy_governs_both_halves(git_repo: Callable[..., Path]) -> None:
    repo = git_repo(
        {
            **PROJECT,
            ".apc-tools.yaml": "version: 1\nseverity: {BTR001: warning, AGT001: warning}\n"
            "disable: [AGM006]\n",
            "sub/AGENTS.md": "# Sub\n",
            "sub/.apc-tools.yaml": "version: 1\ndisable: [BTR001]\n",
            "sub/s.jsonl": CLAUDE_SESSION,
        }
    )
    found = hits(report("sub", cwd=repo))
    assert ("AGM006", "sub/AGENTS.md", None) not in found
    assert any(rule == "BTR001" for rule, _, _ in found)
    assert apc("check", "sub", cwd=repo).returncode == 0  # BTR001 is a warning here


def test_cannot_run_exits_2_with_one_line(tmp_path: Path, git_repo: Callable[..., Path]) -> None:
    write_tree(tmp_path / "plain", PROJECT)
    done = apc("check", cwd=tmp_path / "plain")
    assert done.returncode == 2
    assert done.stderr.startswith("apc: error: ") and "git" in done.stderr
    repo = git_repo(PROJECT)
    bad_range = apc("check", "--range", "nope..HEAD", cwd=repo)
    assert bad_range.returncode == 2 and "Traceback" not in bad_range.stderr
    outside = apc("check", str(tmp_path), cwd=repo)
    assert outside.returncode == 2 and "Traceback" not in outside.stderr
    typo = apc("check", "nope", cwd=repo)
    assert typo.returncode == 2 and typo.stderr == "apc: error: nope: no such file or folder\n"


def test_check_of_a_clone_named_from_outside_says_how(
    tmp_path: Path, git_repo: Callable[..., Path]
) -> None:
    """`apc check PATH` run outside any repository, PATH inside a clone: the error names the
    clone and the `-C` that works, and that command then runs."""
    repo = git_repo(PROJECT)
    (tmp_path / "elsewhere").mkdir()
    done = apc("check", str(repo / "AGENTS.md"), cwd=tmp_path / "elsewhere")
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert f"apc check -C {repo.resolve()}" in done.stderr
    fixed = apc("check", "-C", str(repo), "AGENTS.md", cwd=tmp_path / "elsewhere")
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif", "gitlab"])
def test_progress_goes_to_stderr_and_stdout_stays_parseable(
    git_repo: Callable[..., Path], fmt: str
) -> None:
    repo = git_repo({**PROJECT, "s.jsonl": CLAUDE_SESSION})
    done = apc("check", "--progress", "--format", fmt, cwd=repo)
    assert done.returncode == 1
    json.loads(done.stdout)
    assert "apc check:" in done.stderr and "blobs" in done.stderr
    quiet = apc("check", "--format", fmt, cwd=repo)  # not a terminal: no progress by default
    assert quiet.stderr == "" and quiet.stdout == done.stdout


def test_no_inline_allow_makes_check_ignore_allow_comments(git_repo: Callable[..., Path]) -> None:
    mention = (
        "Claude Code writes [Request interrupted by user] on Esc. <!-- apc: allow BMK002 -->\n"
    )
    repo = git_repo({**PROJECT, "docs/m.md": mention})
    assert ("BMK002", "docs/m.md") not in {(r, p) for r, p, _ in hits(report(cwd=repo))}
    strict = hits(report("--no-inline-allow", cwd=repo))
    assert ("BMK002", "docs/m.md") in {(r, p) for r, p, _ in strict}
    done = apc("check", "--strict", "--no-inline-allow", "--", "docs/m.md", cwd=repo)
    assert done.returncode == 1 and "docs/m.md" in done.stdout  # `--` then a path works


def pull_request_silencing_prj002(repo: Path) -> tuple[str, str]:
    """Commit a change that drops project.json's spec version (PRJ002) and adds
    `disable: [PRJ002]` to the policy; the range (base, head) of that change."""
    base = git(repo, "rev-parse", "HEAD").strip()
    project = json.loads(PROJECT[".apc/project.json"])
    del project["apc"]
    write_tree(
        repo,
        {
            ".apc/project.json": json.dumps(project) + "\n",
            ".apc-tools.yaml": "version: 1\ndisable: [PRJ002]\n",
        },
    )
    return base, commit_all(repo, "drop the spec version and silence the rule")


def test_range_validates_with_the_base_policy_not_the_pull_requests(
    git_repo: Callable[..., Path],
) -> None:
    repo = git_repo({**PROJECT, ".apc-tools.yaml": "version: 1\n"})
    base, head = pull_request_silencing_prj002(repo)
    found = {(rule, path) for rule, path, _ in hits(report("--range", f"{base}..{head}", cwd=repo))}
    assert ("PRJ002", ".apc/project.json") in found  # the base's policy: PRJ002 is on
    assert ("BPL002", ".apc-tools.yaml") in found
    assert apc("check", "--range", f"{base}..{head}", cwd=repo).returncode == 1
    # without --range the checked-out policy is the repository's own: PRJ002 is off
    assert ("PRJ002", ".apc/project.json") not in {(r, p) for r, p, _ in hits(report(cwd=repo))}
    # a base with no policy file: the defaults, whatever the pull request adds
    bare = git_repo(dict(PROJECT), name="bare")
    start, tip = pull_request_silencing_prj002(bare)
    found = {(r, p) for r, p, _ in hits(report("--range", f"{start}..{tip}", cwd=bare))}
    assert ("PRJ002", ".apc/project.json") in found


def test_write_baseline_adopts_the_validate_twin_of_an_accepted_secret(
    git_repo: Callable[..., Path],
) -> None:
    agents = PROJECT["AGENTS.md"] + f"\nDeploy with {secret()}\n"
    repo = git_repo({**PROJECT, "AGENTS.md": agents})
    assert ("AGM004", "AGENTS.md") in {(r, p) for r, p, _ in hits(report(cwd=repo))}
    assert apc("check", cwd=repo).returncode == 1
    assert apc("boundary", "--write-baseline", cwd=repo).returncode == 0
    commit_all(repo, "adopt apc: accept the known secret")
    base = git(repo, "rev-parse", "HEAD").strip()
    done = apc("check", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    # a second, different secret in the same file is not accepted by the first one's entry
    other = secret().replace("A", "B") if "A" in secret() else secret()[:-1] + "Z"
    write_tree(repo, {"AGENTS.md": agents + f"\nAlso {other}\n"})
    head = commit_all(repo, "a new secret")
    found = hits(report("--range", f"{base}..{head}", cwd=repo))
    assert [r for r, p, _ in found if p == "AGENTS.md" and r == "AGM004"] == ["AGM004"]
    assert apc("check", cwd=repo).returncode == 1


def test_a_baseline_outside_the_repository_is_refused_by_check_too(
    tmp_path: Path, git_repo: Callable[..., Path]
) -> None:
    """`apc check` reads the boundary baseline for the validate twins: it must be confined to
    the repository like `apc boundary`'s (exit 2, nothing read or written outside)."""
    outside = tmp_path / "outside-bl.json"
    outside.write_text('{"version": 1, "findings": []}\n')
    repo = git_repo({**PROJECT, ".apc-tools.yaml": f"version: 1\nbaseline: {outside}\n"})
    done = apc("check", cwd=repo)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("apc: error: ") and "inside the repository" in done.stderr
