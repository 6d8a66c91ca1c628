"""Fixable findings are marked (issue 32): `[*]` on each finding `--fix` repairs safely (as
ruff), a count before the summary (`N fixable with `apc validate --fix` (M more with
`--unsafe-fixes`)`), a fix column in `--statistics`, a `fix` field in the JSON report (valid
against the published schema); the lean warm start prints the same bytes. Real files, real
`apc` subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_cli import apc
from tests.conftest import git, write_tree
from tests.report.test_render import schema_validator

PROJECT = {
    "AGENTS.md": "# Demo\n\nUse the tests.\n",
    # PRJ003 (safe: the legacy key), PRJ004 twice (no fix)
    ".apc/project.json": '{"name": "demo", "apf": "0.1.0"}\n',
    # SKL006 (unsafe: an unknown key moved under metadata:)
    ".claude/skills/demo/SKILL.md": "---\nname: demo\ndescription: Does it\nauthor: me\n---\nB\n",
}  # and GIG002 (safe: no .apc/.gitignore)


def lines_of(root: Path, *args: str) -> list[str]:
    done = apc("validate", "--no-color", *args, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_text_marks_safe_fixes_and_counts_them(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECT)
    shown = lines_of(root, "--no-cache")
    by_rule = {line.split()[2]: line for line in shown if ": warning " in line}
    assert " PRJ003 [*] " in by_rule["PRJ003"]
    assert " GIG002 [*] " in by_rule["GIG002"]
    assert "[*]" not in by_rule["SKL006"]  # unsafe: counted, not marked (as ruff)
    assert "[*]" not in by_rule["PRJ004"]
    assert shown[-2] == "[*] 2 fixable with `apc validate --fix` (1 more with `--unsafe-fixes`)"
    assert shown[-1].startswith("0 errors, 5 warnings")
    # the lean warm start (no click, no registry) prints the same bytes
    assert lines_of(root) == lines_of(root) == shown
    git(root, "init", "-q")
    git(root, "add", "-A")
    check = apc("check", "--no-color", "--no-cache", cwd=root)
    assert "[*] 2 fixable with `apc check --fix`" in check.stdout, check.stdout + check.stderr


def test_the_count_is_what_fix_repairs(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECT)
    assert apc("validate", "--fix", cwd=root).returncode == 0
    after = lines_of(root, "--no-cache")
    assert not [line for line in after if "[*]" in line]
    assert after[-2] == "1 fixable with `apc validate --fix --unsafe-fixes`"
    assert apc("validate", "--fix", "--unsafe-fixes", cwd=root).returncode == 0
    assert not [line for line in lines_of(root, "--no-cache") if "fixable" in line]


def test_statistics_and_json_carry_the_fix(tmp_path: Path) -> None:
    root = write_tree(tmp_path, PROJECT)
    stats = lines_of(root, "--statistics")
    assert [line.split("\t")[1:3] for line in stats] == [
        ["PRJ004", "[ ]"],
        ["GIG002", "[*]"],
        ["PRJ003", "[*]"],
        ["SKL006", "[-]"],
    ]
    rows = json.loads(apc("validate", "--statistics", "--format", "json", cwd=root).stdout)
    assert {r["code"]: (r["fixable"], r["fix"]) for r in rows} == {
        "PRJ004": (False, None),
        "GIG002": (True, "safe"),
        "PRJ003": (True, "safe"),
        "SKL006": (True, "unsafe"),
    }
    for args in (["--no-cache"], []):  # the click command, then the lean warm start
        report = json.loads(apc("validate", "--format", "json", *args, cwd=root).stdout)
        assert list(schema_validator().iter_errors(report)) == []
        fixes = {f["rule"]: f.get("fix") for f in report["findings"]}
        assert fixes == {"GIG002": "safe", "PRJ003": "safe", "PRJ004": None, "SKL006": "unsafe"}
