"""The SARIF of `apc check` validates against the official OASIS SARIF 2.1.0 schema."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from functools import cache
from pathlib import Path

from jsonschema import Draft4Validator

from apc_tools.report.sarif import RESULT_LIMIT
from tests.cli.test_cli import apc
from tests.conftest import GIT_ENV, git, stored_object, write_tree
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


def shape(value: object) -> object:
    """The structure of a JSON value: its keys, nested, and the types of its leaves, with the
    rule id and level kept (they pick which schema branches a result takes)."""
    if isinstance(value, dict):
        kept = ("ruleId", "level", "kind")
        return tuple((k, v if k in kept else shape(v)) for k, v in sorted(value.items()))
    if isinstance(value, list):
        return tuple(sorted({shape(v) for v in value}, key=repr))
    return type(value).__name__


def one_of_each_shape(results: list[dict[str, object]]) -> list[dict[str, object]]:
    """The first result of each :func:`shape`: what a schema can tell apart. Validating all
    25,000 results of the capped run one by one costs ~12 s and checks the same branches."""
    seen: dict[object, dict[str, object]] = {}
    for result in results:
        seen.setdefault(shape(result), result)
    return list(seen.values())


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


def commit_many(repo: Path, files: dict[str, str], copies: dict[str, int]) -> None:
    """One commit that adds ``copies[name]`` files holding ``files[name]`` each (one blob per
    content, written with plumbing: the files are in the commit, not on disk)."""
    entries = []
    for name, content in files.items():
        oid = stored_object(repo, content)
        entries += [f"100644 {oid}\t{name}/{i:05}.{name}\n" for i in range(copies[name])]
    subprocess.run(
        ["git", "update-index", "--index-info"],
        cwd=repo,
        input="".join(entries).encode(),
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    git(repo, "commit", "-q", "--no-verify", "-m", "thousands of leaks")


def test_a_run_of_30000_findings_is_capped_valid_and_every_result_has_a_region(
    git_repo: Callable[..., Path], tmp_path: Path
) -> None:
    repo = git_repo(PROJECT)
    base = git(repo, "rev-parse", "HEAD").strip()
    errors, warnings = 24_000, 6_000
    files = {"jsonl": CLAUDE_SESSION, "md": f"Notes.\n\nIt said {MARKER} once.\n"}
    commit_many(repo, files, {"jsonl": errors, "md": warnings})
    done = apc(
        "check",
        "--range",
        f"{base}..HEAD",
        "--format",
        "json",
        "--report-file",
        f"sarif:{tmp_path / 'apc.sarif'}",
        cwd=repo,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["summary"]["error"] >= errors
    sarif = json.loads((tmp_path / "apc.sarif").read_text(encoding="utf-8"))
    run = sarif["runs"][0]
    results = run["results"]
    shapes = one_of_each_shape(results)
    assert 2 <= len(shapes) < 50  # the errors' and the warnings' shapes, at least
    assert_valid({**sarif, "runs": [{**run, "results": shapes}]})
    total = run["properties"]["resultsTotal"]
    assert total >= errors + warnings
    assert len(results) == RESULT_LIMIT
    assert run["properties"]["resultsOmitted"] == total - RESULT_LIMIT
    levels = [r["level"] for r in results]
    assert levels == sorted(levels, key=["error", "warning", "note"].index)  # most severe first
    assert levels.count("error") >= errors
    assert all(r["locations"][0]["physicalLocation"]["region"]["startLine"] >= 1 for r in results)
    rules = run["tool"]["driver"]["rules"]
    btr = next(r for r in rules if r["id"] == "BTR001")
    assert btr["properties"]["security-severity"] == "7.5"
    assert "security" in btr["properties"]["tags"]
