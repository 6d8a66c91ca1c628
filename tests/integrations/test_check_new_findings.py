"""`apc check --range` annotates only what the range introduced (issue 17 item 5), and validate
findings are accepted like boundary ones: the shared baseline and inline `apc: allow`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from apc_tools.report.step_summary import render_step_summary
from tests.cli.test_cli import apc
from tests.conftest import git, write_tree
from tests.integrations.leaks import PROJECT
from tests.integrations.test_check import commit_all, hits, report


def skill(name: str, *extra: str) -> str:
    keys = "".join(f"{key}\n" for key in extra)
    return f"---\nname: {name}\ndescription: Does {name}\n{keys}---\nBody of {name}\n"


def old_warnings_repo(git_repo: Callable[..., Path]) -> Path:
    """A repository with twelve old SKL006 warnings (an `author:` key in each skill)."""
    skills = {f"skills/s{i}/SKILL.md": skill(f"s{i}", "author: me") for i in range(12)}
    return git_repo({**PROJECT, **skills})


def annotations(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(("::error", "::warning"))]


def test_a_pull_request_touching_one_file_annotates_only_what_it_introduced(
    git_repo: Callable[..., Path],
) -> None:
    repo = old_warnings_repo(git_repo)
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {"skills/s3/SKILL.md": skill("s3", "author: me", "version: 2")})
    head = commit_all(repo, "s3: a version key")
    done = apc("check", "--range", f"{base}..{head}", "--format", "github", cwd=repo)
    assert done.returncode == 0, done.stderr  # warnings only
    shown = annotations(done.stdout)
    assert len(shown) == 1, done.stdout
    assert shown[0].startswith("::warning file=skills/s3/SKILL.md,line=5,")
    assert "'version'" in shown[0]
    # the twelve old ones are in the log, in a group, each line inert (no command)
    assert "::group::12 older findings" in done.stdout
    listed = [line for line in done.stdout.splitlines() if line.startswith("- skills/")]
    assert len(listed) == 12 and all("'author'" in line for line in listed)
    assert "12 found at the base of the range too" in done.stdout.splitlines()[-1]
    # the JSON report (for the step summary) and SARIF still hold all thirteen
    data = report("--range", f"{base}..{head}", cwd=repo)
    found = data["findings"]
    assert isinstance(found, list) and len(found) == 13
    assert sum(1 for f in found if f.get("preexisting")) == 12
    sarif = json.loads(
        apc("check", "--range", f"{base}..{head}", "--format", "sarif", cwd=repo).stdout
    )
    assert len(sarif["runs"][0]["results"]) == 13
    summary = render_step_summary(data, "apc.sarif", f"{base}..{head}")
    assert "| warning | 13 | 1 | 12 |" in summary
    assert "12 findings of the table were found at the base of the range too" in summary
    text = apc("check", "--range", f"{base}..{head}", "--no-color", cwd=repo).stdout
    assert text.splitlines()[-1].endswith(
        "(12 of them found at the base of the range too: they fail nothing)"
    )
    # without --range every finding is annotated as before
    plain = apc("check", "--format", "github", cwd=repo)
    assert len(annotations(plain.stdout)) == 13


def test_a_finding_the_change_causes_on_an_untouched_file_is_new(
    git_repo: Callable[..., Path],
) -> None:
    """Removing the file an untouched rule glob matched: the RUL finding on the untouched rule
    file did not exist at the base, so it is annotated."""
    rule = "---\ndescription: API rules\nglobs: src/api/**\nalwaysApply: false\n---\nUse REST.\n"
    repo = git_repo({**PROJECT, ".cursor/rules/api.mdc": rule, "src/api/users.ts": "x\n"})
    base = git(repo, "rev-parse", "HEAD").strip()
    assert not [h for h in hits(report(cwd=repo)) if h[1] == ".cursor/rules/api.mdc"]
    git(repo, "rm", "-q", "src/api/users.ts")
    head = commit_all(repo, "drop the only API file")
    done = apc("check", "--range", f"{base}..{head}", "--format", "github", cwd=repo)
    shown = annotations(done.stdout)
    assert any("file=.cursor/rules/api.mdc" in line for line in shown), done.stdout
    assert "older finding" not in done.stdout


def test_a_finding_that_moved_lines_stays_old(git_repo: Callable[..., Path]) -> None:
    repo = old_warnings_repo(git_repo)
    base = git(repo, "rev-parse", "HEAD").strip()
    moved = (
        "---\nname: s0\n# a comment moves the key down\ndescription: Does s0\nauthor: me\n---\nB\n"
    )
    write_tree(repo, {"skills/s0/SKILL.md": moved})
    head = commit_all(repo, "move lines")
    done = apc("check", "--range", f"{base}..{head}", "--format", "github", cwd=repo)
    assert annotations(done.stdout) == [], done.stdout


# --------------------------------------------------------------------------- the baseline


def test_check_write_baseline_accepts_validate_findings_and_boundary_keeps_them(
    git_repo: Callable[..., Path],
) -> None:
    session = '{"type":"user","message":{"role":"user","content":"hi"},"sessionId":"x"}\n'
    repo = old_warnings_repo(git_repo)
    write_tree(repo, {"logs/s.jsonl": session * 3})
    commit_all(repo, "a session too")
    before = {r for r, _, _ in hits(report(cwd=repo))}
    assert "SKL006" in before
    done = apc("check", "--write-baseline", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrote ") and ".apc-baseline.json" in done.stdout
    saved = json.loads((repo / ".apc-baseline.json").read_text())
    rules = {e["rule"] for e in saved["findings"]}
    assert "SKL006" in rules
    assert hits(report(cwd=repo)) == []
    assert apc("check", "--strict", cwd=repo).returncode == 0
    # apc validate (the pre-commit hook) honours the validate entries too, on one file as well
    assert apc("validate", "--strict", cwd=repo).returncode == 0
    one = apc("validate", "--strict", "s4/SKILL.md", cwd=repo / "skills")
    assert one.returncode == 0, one.stdout
    # apc boundary reads only its own entries: no stale BPL001 for the validate ones, and its
    # --write-baseline keeps them
    alone = json.loads(apc("boundary", "--format", "json", cwd=repo).stdout)
    assert alone["findings"] == []
    assert apc("boundary", "--write-baseline", cwd=repo).returncode == 0
    again = json.loads((repo / ".apc-baseline.json").read_text())
    assert again == saved
    # a new warning is not accepted; a fixed one makes its entry stale (BPL001)
    write_tree(repo, {"skills/s0/SKILL.md": skill("s0"), "skills/s1/SKILL.md": skill("s1", "x: 1")})
    now = {(r, p) for r, p, _ in hits(report(cwd=repo))}
    validated = json.loads(apc("validate", "--format", "json", cwd=repo).stdout)["findings"]
    assert [(f["rule"], f["path"]) for f in validated] == [("SKL006", "skills/s1/SKILL.md")]
    assert ("SKL006", "skills/s1/SKILL.md") in now
    assert ("BPL001", ".apc-baseline.json") in now
    assert ("SKL006", "skills/s2/SKILL.md") not in now


def test_write_baseline_refuses_a_range(git_repo: Callable[..., Path]) -> None:
    repo = git_repo(dict(PROJECT))
    done = apc("check", "--write-baseline", "--range", "HEAD..HEAD", cwd=repo)
    assert done.returncode == 2 and "drop --range" in done.stderr


# --------------------------------------------------------------------------- inline allow


def test_inline_allow_in_yaml_frontmatter_and_markdown(git_repo: Callable[..., Path]) -> None:
    front = "---\nname: s0\ndescription: Does s0\nauthor: me  # apc: allow SKL006\n---\nB\n"
    above = "---\nname: s1\ndescription: Does s1\n# apc: allow SKL006\nauthor: me\n---\nB\n"
    other = "---\nname: s2\ndescription: Does s2\nauthor: me  # apc: allow SKL010\n---\nB\n"
    body = (
        "# Demo\n\n<!-- apc: allow AGM005 -->\n"
        "Claude writes [Request interrupted by user] on Esc.\n"
    )
    repo = git_repo(
        {
            **PROJECT,
            "AGENTS.md": PROJECT["AGENTS.md"] + body,
            "skills/s0/SKILL.md": front,
            "skills/s1/SKILL.md": above,
            "skills/s2/SKILL.md": other,
        }
    )
    found = {(r, p) for r, p, _ in hits(report(cwd=repo))}
    assert ("SKL006", "skills/s0/SKILL.md") not in found
    assert ("SKL006", "skills/s1/SKILL.md") not in found
    assert ("SKL006", "skills/s2/SKILL.md") in found  # the comment names another rule
    assert ("AGM005", "AGENTS.md") not in found
    # the boundary twin of the allowed AGM005 (BMK) does not come back in its place
    assert not any(r.startswith("BMK") and p == "AGENTS.md" for r, p in found)
    strict = {(r, p) for r, p, _ in hits(report("--no-inline-allow", cwd=repo))}
    assert {("SKL006", "skills/s0/SKILL.md"), ("SKL006", "skills/s1/SKILL.md")} <= strict
    assert ("AGM005", "AGENTS.md") in strict
    # apc validate honours the comments too, and --no-inline-allow there as well
    plain = apc("validate", "--format", "json", cwd=repo)
    rules = {(f["rule"], f["path"]) for f in json.loads(plain.stdout)["findings"]}
    assert ("SKL006", "skills/s0/SKILL.md") not in rules
    strict_v = apc("validate", "--no-inline-allow", "--format", "json", cwd=repo)
    rules = {(f["rule"], f["path"]) for f in json.loads(strict_v.stdout)["findings"]}
    assert ("SKL006", "skills/s0/SKILL.md") in rules


def test_a_markdown_comment_in_the_body_does_not_allow_a_frontmatter_finding_far_away(
    git_repo: Callable[..., Path],
) -> None:
    text = (
        "---\nname: s0\ndescription: Does s0\nauthor: me\n---\nBody\n\n<!-- apc: allow SKL006 -->\n"
    )
    repo = git_repo({**PROJECT, "skills/s0/SKILL.md": text})
    found = {(r, p) for r, p, _ in hits(report(cwd=repo))}
    assert ("SKL006", "skills/s0/SKILL.md") in found


def test_the_boundary_rules_are_exactly_the_rules_starting_with_b() -> None:
    """Each half of the shared baseline reads and rewrites its own entries by this test."""
    from apc_tools.boundary.policy import is_boundary_rule
    from apc_tools.boundary.rules import RULES
    from apc_tools.catalog import registry

    gate = {rule.id for rule in RULES}
    assert {rule.id for rule in registry() if is_boundary_rule(rule.id)} == gate


def test_the_base_tree_is_validated_as_a_plain_folder_inside_another_work_tree(
    tmp_path: Path, git_repo: Callable[..., Path]
) -> None:
    """A TMPDIR inside some checkout whose .gitignore ignores it: the base tree written there
    must still be read whole, or every old finding would look new."""
    outer = tmp_path / "outer"
    (outer / "tmp").mkdir(parents=True)
    git(outer, "init", "-q")
    (outer / ".gitignore").write_text("tmp/\n")
    repo = old_warnings_repo(git_repo)
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {"skills/s3/SKILL.md": skill("s3", "author: me", "version: 2")})
    head = commit_all(repo, "s3: a version key")
    env = {"TMPDIR": str(outer / "tmp")}
    done = apc("check", "--range", f"{base}..{head}", "--format", "github", cwd=repo, env=env)
    assert len(annotations(done.stdout)) == 1, done.stdout + done.stderr
    assert list((outer / "tmp").iterdir()) == []  # the temporary tree is removed


# ------------------------------------------------------- what fails a range, and says so


def bad_agent(name: str) -> str:
    """An APC agent whose name is not its slug: AGT error, not a leak."""
    return f"---\nname: Other {name}\nmodel: inherit\ndescription: Does {name}.\n---\nBody\n"


def test_old_errors_fail_nothing_in_a_range_and_the_summary_says_what_blocks(
    git_repo: Callable[..., Path],
) -> None:
    """A branch that only edits README.md in a repository with five old errors: green, and
    the log, the summary and SARIF say which findings are old; a new error is what fails."""
    agents = {f".apc/agents/a{i}.md": bad_agent(f"a{i}") for i in range(5)}
    repo = git_repo({**PROJECT, **agents})
    assert apc("check", cwd=repo).returncode == 1  # the tree itself has errors
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {"README.md": "# Read me\n"})
    head = commit_all(repo, "readme")
    done = apc("check", "--range", f"{base}..{head}", "--no-color", cwd=repo)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = [line for line in done.stdout.splitlines() if line.startswith(".apc/agents/a")]
    assert len(listed) == 5  # every old error is still named
    assert done.stdout.splitlines()[-1].endswith(
        "found at the base of the range too: they fail nothing)"
    )
    data = report("--range", f"{base}..{head}", cwd=repo)
    summary = render_step_summary(data, "apc.sarif", f"{base}..{head}")
    assert "What fails this run" not in summary and "--write-baseline" in summary
    sarif = json.loads(
        apc("check", "--range", f"{base}..{head}", "--format", "sarif", cwd=repo).stdout
    )
    states = [r["baselineState"] for r in sarif["runs"][0]["results"]]
    assert states == ["unchanged"] * 5
    # a new error fails the range, and is named in the summary and annotated
    write_tree(repo, {".apc/agents/new.md": bad_agent("new")})
    head = commit_all(repo, "a new agent")
    done = apc("check", "--range", f"{base}..{head}", "--format", "github", cwd=repo)
    assert done.returncode == 1
    assert [a for a in annotations(done.stdout) if a.startswith("::error")] == [
        a for a in annotations(done.stdout) if "file=.apc/agents/new.md" in a
    ]
    data = report("--range", f"{base}..{head}", cwd=repo)
    summary = render_step_summary(data, "apc.sarif", f"{base}..{head}")
    assert "**What fails this run: 1 error**" in summary
    assert "`.apc/agents/new.md:2:7`" in summary or "`.apc/agents/new.md" in summary
    sarif = json.loads(
        apc("check", "--range", f"{base}..{head}", "--format", "sarif", cwd=repo).stdout
    )
    states = sorted(r["baselineState"] for r in sarif["runs"][0]["results"])
    assert states == ["new"] + ["unchanged"] * 5
    # without --range there is no base: no baselineState
    plain = json.loads(apc("check", "--format", "sarif", cwd=repo).stdout)
    assert all("baselineState" not in r for r in plain["runs"][0]["results"])


def test_an_old_leak_still_fails_a_range(git_repo: Callable[..., Path]) -> None:
    token = "ghp_" + "Zq8Lm2Xv7Rt4Np1Wk9Hs3Jd6Fb0Yc5Ge8Ua2"
    agents_md = f"# Demo\n\nDeploy with token {token}\n"
    repo = git_repo({**PROJECT, "AGENTS.md": agents_md})
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {"README.md": "# Read me\n"})
    head = commit_all(repo, "readme")
    done = apc("check", "--range", f"{base}..{head}", "--format", "github", cwd=repo)
    assert done.returncode == 1, done.stdout
    assert any("file=AGENTS.md" in a for a in annotations(done.stdout))  # annotated, though old
    assert token not in done.stdout
    data = report("--range", f"{base}..{head}", cwd=repo)
    summary = render_step_summary(data, "apc.sarif", f"{base}..{head}")
    assert "**What fails this run: 1 error**" in summary and "(at the base too)" in summary


def test_a_range_validates_the_head_commit_not_the_checked_out_branch(
    git_repo: Callable[..., Path],
) -> None:
    """Run from another branch (or with edits in the work tree), `check --range A..B` judges
    the contract of B, read from git objects."""
    repo = old_warnings_repo(git_repo)
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {".apc/agents/new.md": bad_agent("new")})
    head = commit_all(repo, "a bad agent")
    git(repo, "checkout", "-q", base)  # another commit checked out
    write_tree(repo, {".apc/agents/local.md": bad_agent("local")})  # and an untracked edit
    done = apc("check", "--range", f"{base}..{head}", "--format", "json", cwd=repo)
    found = json.loads(done.stdout)["findings"]
    paths = {f["path"] for f in found if f["severity"] == "error"}
    assert paths == {".apc/agents/new.md"}, done.stdout
    assert done.returncode == 1
