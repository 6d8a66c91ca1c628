"""The SARIF of `apc check` validates against the official OASIS SARIF 2.1.0 schema."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

from jsonschema import Draft4Validator

from tests.cli.test_cli import apc
from tests.conftest import git, write_tree
from tests.integrations.leaks import CLAUDE_SESSION, INVALID_AGENT, MARKER, PROJECT, secret

SCHEMA = Path(__file__).parent / "sarif" / "sarif-schema-2.1.0.json"


@cache
def validator() -> Draft4Validator:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    Draft4Validator.check_schema(schema)
    return Draft4Validator(schema, format_checker=Draft4Validator.FORMAT_CHECKER)


def assert_valid(sarif: dict[str, object]) -> None:
    errors = sorted(validator().iter_errors(sarif), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]]


def test_check_sarif_with_findings_of_both_halves_and_commits(
    git_repo: Callable[..., Path],
) -> None:
    repo = git_repo(PROJECT)
    base = git(repo, "rev-parse", "HEAD").strip()
    write_tree(
        repo,
        {
            "AGENTS.md": PROJECT["AGENTS.md"] + f"\n{secret()}\n{MARKER}\n",
            ".apc/agents/bad.md": INVALID_AGENT,
            "odd name %,:.jsonl": CLAUDE_SESSION,
            "ünï/s.jsonl": CLAUDE_SESSION,
        },
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "leaks")
    for args in ((), ("--range", f"{base}..HEAD")):
        done = apc("check", "--format", "sarif", *args, cwd=repo)
        assert done.returncode == 1, done.stderr
        sarif = json.loads(done.stdout)
        assert_valid(sarif)
        results = sarif["runs"][0]["results"]
        assert len(results) >= 5
        rules = {r["ruleId"][:3] for r in results}
        assert {"AGM", "AGT", "BTR"} <= rules


def test_clean_check_sarif_is_valid(git_repo: Callable[..., Path]) -> None:
    done = apc("check", "--format", "sarif", cwd=git_repo(PROJECT))
    assert done.returncode == 0
    sarif = json.loads(done.stdout)
    assert_valid(sarif)
    assert sarif["runs"][0]["results"] == []
    assert len(sarif["runs"][0]["tool"]["driver"]["rules"]) > 50
