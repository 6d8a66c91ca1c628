"""Output as usable as ruff's (issue 17 item 4): --statistics, --format concise/full,
--select/--ignore, and repeated advice collapsed with a ready-to-paste allow: snippet."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_cli import apc
from tests.conftest import git
from tests.integrations.leaks import MARKER, PROJECT, secret
from tests.integrations.test_check import commit_all

CASSETTE = (
    "interactions:\n- request:\n"
    '    body: \'{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}\'\n'
    "    method: POST\n  response:\n    status:\n      code: 200\n"
)


def skill(name: str, *extra: str) -> str:
    keys = "".join(f"{key}\n" for key in extra)
    return f"---\nname: {name}\ndescription: Does {name}\n{keys}---\nBody of {name}\n"


def cassettes(count: int) -> dict[str, str | bytes]:
    return {f"tests/cassettes/c{i:02}.yaml": CASSETTE for i in range(count)}


def rules_of(done_stdout: str) -> list[str]:
    return [f["rule"] for f in json.loads(done_stdout)["findings"]]


# --------------------------------------------------------------------------- --statistics


def test_statistics_counts_per_rule_like_ruff(git_repo: Callable[..., Path]) -> None:
    skills = {f"skills/s{i}/SKILL.md": skill(f"s{i}", "author: me") for i in range(3)}
    repo = git_repo({**PROJECT, **skills, **cassettes(2)})
    done = apc("check", "--statistics", cwd=repo)
    assert done.returncode == 0, done.stderr  # warnings only: the exit code of the run
    rows = [line.split("\t") for line in done.stdout.splitlines()]
    assert rows == [
        ["3", "SKL006", "[-]", "skill-unknown-key"],  # the fix column: unsafe only
        ["2", "BTR002", "[ ]", "provider-history"],
    ]
    data = json.loads(apc("check", "--statistics", "--format", "json", cwd=repo).stdout)
    assert data[0] == {
        "code": "SKL006",
        "name": "skill-unknown-key",
        "severity": "warning",
        "count": 3,
        "fixable": True,
        "fix": "unsafe",
    }
    strict = apc("validate", "--statistics", "--strict", cwd=repo)
    assert strict.returncode == 1 and strict.stdout == "3\tSKL006\t[-]\tskill-unknown-key\n"
    assert apc("boundary", "--statistics", cwd=repo).stdout.split("\t")[:2] == ["2", "BTR002"]
    bad = apc("validate", "--statistics", "--format", "sarif", cwd=repo)
    assert bad.returncode == 2 and bad.stderr.startswith("apc: error: --statistics")


# --------------------------------------------------------------------------- --select / --ignore


def test_select_and_ignore_by_id_and_prefix(git_repo: Callable[..., Path]) -> None:
    repo = git_repo(
        {**PROJECT, "skills/a/SKILL.md": skill("a", "author: me"), **cassettes(1)},
    )
    both = rules_of(apc("check", "--format", "json", cwd=repo).stdout)
    assert sorted(both) == ["BTR002", "SKL006"]
    assert rules_of(apc("check", "--format", "json", "--select", "BTR", cwd=repo).stdout) == [
        "BTR002"
    ]
    assert rules_of(apc("check", "--format", "json", "--ignore", "b", cwd=repo).stdout) == [
        "SKL006"
    ]
    # the more specific selector wins, whichever option it is in
    narrow = apc("check", "--format", "json", "--ignore", "BTR,SKL", "--select", "SKL006", cwd=repo)
    assert rules_of(narrow.stdout) == ["SKL006"]
    wide = apc("check", "--format", "json", "--select", "ALL", "--ignore", "SKL006", cwd=repo)
    assert rules_of(wide.stdout) == ["BTR002"]
    # a selector naming no rule is a usage error (exit 2)
    unknown = apc("check", "--select", "ZZZ", cwd=repo)
    assert unknown.returncode == 2 and "ZZZ" in unknown.stderr
    assert apc("check", "--ignore", "BT-R", cwd=repo).returncode == 2


def test_the_command_line_wins_over_the_policy(git_repo: Callable[..., Path]) -> None:
    policy = "version: 1\ndisable: [SKL006, BTR002]\n"
    repo = git_repo(
        {
            **PROJECT,
            ".apc-tools.yaml": policy,
            "skills/a/SKILL.md": skill("a", "author: me"),
            **cassettes(1),
        }
    )
    assert rules_of(apc("check", "--format", "json", cwd=repo).stdout) == []
    back = apc("check", "--format", "json", "--select", "SKL006,BTR", cwd=repo)
    assert sorted(rules_of(back.stdout)) == ["BTR002", "SKL006"]
    assert rules_of(apc("validate", "--format", "json", "--select", "SKL", cwd=repo).stdout) == [
        "SKL006"
    ]
    assert rules_of(apc("boundary", "--format", "json", "--select", "BTR002", cwd=repo).stdout) == [
        "BTR002"
    ]
    # ALL re-enables nothing the policy disables
    assert rules_of(apc("check", "--format", "json", "--select", "ALL", cwd=repo).stdout) == []


def test_ignored_rules_leave_their_baseline_entries_alone(git_repo: Callable[..., Path]) -> None:
    repo = git_repo({**PROJECT, "skills/a/SKILL.md": skill("a", "author: me"), **cassettes(1)})
    assert apc("check", "--write-baseline", cwd=repo).returncode == 0
    commit_all(repo, "baseline")
    quiet = apc("check", "--format", "json", "--ignore", "BTR,SKL", cwd=repo)
    assert rules_of(quiet.stdout) == []  # no BPL001: the entries were not looked for


# --------------------------------------------------------------------------- --format full


def test_full_shows_the_line_with_a_caret_under_the_column(git_repo: Callable[..., Path]) -> None:
    text = "---\nname: a\ndescription: Does a\nauthor: me\n---\nBody\n"
    repo = git_repo({**PROJECT, "skills/a/SKILL.md": text})
    done = apc("validate", "--format", "full", "--no-color", cwd=repo / "skills")
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("skills/a/SKILL.md:4:1:"))
    assert lines[at + 1 : at + 4] == ["   |", " 4 | author: me", "   | ^"]
    concise = apc("validate", "--format", "concise", cwd=repo)
    assert concise.stdout == apc("validate", cwd=repo).stdout  # concise is the text format
    assert " | " not in concise.stdout


def test_full_caret_follows_a_column_inside_the_line(git_repo: Callable[..., Path]) -> None:
    marker_doc = f"# Notes\n\nClaude Code writes {MARKER} on Esc.\n"
    repo = git_repo({**PROJECT, "docs/notes.md": marker_doc})
    done = apc("boundary", "--format", "full", cwd=repo)
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "BMK002" in line)
    column = int(re.match(r"docs/notes.md:3:(\d+):", lines[at]).group(1))  # type: ignore[union-attr]
    source, caret = lines[at + 2], lines[at + 3]
    assert source == f" 3 | Claude Code writes {MARKER} on Esc."
    assert caret.index("^") == source.index("|") + 1 + column
    assert source[caret.index("^")] == "["
    # the boundary reads git, not the working tree
    (repo / "docs/notes.md").write_text("rewritten, not committed\n" * 3)
    again = apc("boundary", "--format", "full", cwd=repo).stdout
    assert f" 3 | Claude Code writes {MARKER} on Esc." in again and "rewritten" not in again


def test_full_never_prints_a_secret(git_repo: Callable[..., Path]) -> None:
    token = secret()
    agents = PROJECT["AGENTS.md"] + f"\nDeploy with {token}\n"
    skill_text = f"---\nname: a\ndescription: Does a\nauthor: {token}\n---\nBody\n"
    record = {"type": "user", "message": {"role": "user", "content": token}, "sessionId": "x"}
    session = json.dumps(record) + "\n"
    repo = git_repo(
        {**PROJECT, "AGENTS.md": agents, "skills/a/SKILL.md": skill_text, "s.jsonl": session * 3}
    )
    for command in ("check", "validate", "boundary"):
        done = apc(command, "--format", "full", cwd=repo)
        assert done.returncode == 1, done.stderr
        assert token not in done.stdout and token[12:30] not in done.stdout
    found = apc("check", "--format", "full", cwd=repo).stdout
    # the SKL006 line is shown (it is not a secret rule), with the secret redacted in it
    assert " 4 | author: " in found
    assert "Deploy with" not in found  # the secret rule's own line is never shown
    assert '"sessionId"' not in found  # nor a session's records


# --------------------------------------------------------------------------- repeated advice


def test_repeated_advice_is_collapsed_and_its_snippet_silences_exactly_it(
    git_repo: Callable[..., Path],
) -> None:
    odd = {"tests/cassettes/we*ird [1].yaml": CASSETTE}
    repo = git_repo({**PROJECT, **cassettes(37), **odd, "docs/notes.md": f"{MARKER}\n"})
    done = apc("check", "--no-color", cwd=repo)
    out = done.stdout
    listed = [line for line in out.splitlines() if line.startswith("tests/cassettes/")]
    assert len(listed) == 3
    assert "... and 35 more BTR002 warnings with this message" in out
    assert "BTR002 warning: 38 findings in 38 files" in out
    snippet_at = out.index("    allow:\n")
    block = []
    for line in out[snippet_at:].splitlines():
        if not line.startswith("    "):
            break
        block.append(line[4:])
    snippet = "\n".join(block) + "\n"
    assert snippet.startswith("allow:\n  BTR002:\n")
    before = json.loads(apc("check", "--format", "json", cwd=repo).stdout)["findings"]
    (repo / ".apc-tools.yaml").write_text("version: 1\n" + snippet)
    after = json.loads(apc("check", "--format", "json", cwd=repo).stdout)["findings"]
    assert sorted(f["rule"] for f in before) == ["BMK002"] + ["BTR002"] * 38
    assert [f["rule"] for f in after] == ["BMK002"]  # exactly the 38, nothing else
    # a new cassette is not accepted by the pasted paths
    (repo / "tests/cassettes/new.yaml").write_text(CASSETTE)
    git(repo, "add", "-A")
    later = json.loads(apc("check", "--format", "json", cwd=repo).stdout)["findings"]
    assert [f["path"] for f in later if f["rule"] == "BTR002"] == []  # not committed: HEAD
    commit_all(repo, "one more")
    later = json.loads(apc("check", "--format", "json", cwd=repo).stdout)["findings"]
    assert [f["path"] for f in later if f["rule"] == "BTR002"] == ["tests/cassettes/new.yaml"]


@pytest.mark.parametrize("count", [4, 5])
def test_few_findings_are_listed_whole(git_repo: Callable[..., Path], count: int) -> None:
    repo = git_repo({**PROJECT, **cassettes(count)})
    out = apc("check", cwd=repo).stdout
    listed = [line for line in out.splitlines() if line.startswith("tests/cassettes/")]
    assert len(listed) == (count if count < 5 else 3)
    assert ("repeated advice:" in out) is (count >= 5)


def test_full_with_staged_reads_the_index_and_report_file_full_works(
    git_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = git_repo(dict(PROJECT))
    (repo / "docs").mkdir()
    (repo / "docs/notes.md").write_text(f"# N\n\nstaged {MARKER} line\n")
    git(repo, "add", "docs/notes.md")
    (repo / "docs/notes.md").write_text(f"# N\n\nworking tree {MARKER} line\n")
    out = tmp_path / "full.txt"
    done = apc("boundary", "--staged", "--format", "full", "--report-file", f"full:{out}", cwd=repo)
    assert f" 3 | staged {MARKER} line" in done.stdout and "working tree" not in done.stdout
    assert out.read_text() == done.stdout


def test_full_fits_a_narrow_terminal_with_the_caret_under_the_column(
    git_repo: Callable[..., Path],
) -> None:
    """COLUMNS=60 (a narrow terminal): a long line after wide text is cut around the column with
    an ellipsis, and the caret stands under the column on screen."""
    from apc_tools.report.text import display_width

    wide = "エージェントの説明" * 8
    marker_doc = f"# Notes\n\n{wide} {MARKER} {'tail ' * 20}\n"
    repo = git_repo({**PROJECT, "docs/notes.md": marker_doc})
    done = apc("boundary", "--format", "full", cwd=repo, env={"COLUMNS": "60"})
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if "BMK002" in line)
    source, caret = lines[at + 2], lines[at + 3]
    assert display_width(source) <= 60 and "…" in source
    gutter = source.index("|") + 2
    shown = source[gutter:]
    assert display_width(caret) - 1 == gutter + display_width(shown[: shown.index("[")])
