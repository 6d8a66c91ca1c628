"""Issue 32 item 4, end to end: the false-secret shapes in a committed skill fail neither
`apc validate` (SEC001) nor `apc boundary` (BSC001), in a real git repository and real `apc`
processes; the same skill with a real-format secret in each place fails both, once per twin.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import git, run_apc, write_tree
from tests.core.test_false_secrets import CASES, UNSIGNED, jwt

SKILL = ".claude/skills/deploy/SKILL.md"
HEAD = "---\nname: deploy\ndescription: Deploys the service. Use when asked to deploy.\n---\n\n"


def _repo(root: Path, lines: list[str]) -> Path:
    body = HEAD + "Examples:\n\n```\n" + "\n\n".join(lines) + "\n```\n"
    write_tree(root, {SKILL: body})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "skill")
    return root


def _secret_rules(root: Path, *args: str) -> list[tuple[str, int]]:
    done = run_apc(root, *args, "--format", "json", "--no-cache")
    assert done.returncode in (0, 1), done.stderr
    found = json.loads(done.stdout)["findings"]
    return [(f["rule"], f["line"]) for f in found if f["rule"] in ("SEC001", "BSC001")]


def test_false_secret_shapes_pass_both_gates(tmp_path: Path) -> None:
    false = [case[1] for case in CASES] + [f"Authorization: Bearer {UNSIGNED}."]
    root = _repo(tmp_path / "false", false)
    assert _secret_rules(root, "validate", ".") == []
    assert _secret_rules(root, "boundary", "--tracked") == []
    assert _secret_rules(root, "boundary", "--tracked", "--secrets", "all") == []


def test_their_real_format_twins_fail_both_gates(tmp_path: Path) -> None:
    twins = [case[2] for case in CASES] + [f"Authorization: Bearer {jwt()}"]
    root = _repo(tmp_path / "twins", twins)
    lines = {n for n, text in enumerate(HEAD.split("\n"), 1)}  # the frontmatter holds none
    validate = _secret_rules(root, "validate", ".")
    boundary = _secret_rules(root, "boundary", "--tracked")
    assert len({line for _, line in validate}) == len(twins)
    assert len({line for _, line in boundary}) == len(twins)
    assert not {line for _, line in validate} & lines
    assert {line for _, line in validate} == {line for _, line in boundary}
