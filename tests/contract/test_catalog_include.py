"""Catalogs (issue 32): `.mdc` rules kept outside `.cursor/rules` are named once as not checked
(DSC002), and the policy's `include:` maps them to a kind so they are checked as Cursor reads
them (its unquoted globs are no finding). Real files, real `apc` subprocesses, cold and warm."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_cli import apc
from tests.conftest import write_tree

RULE = "---\ndescription: R\nglobs: **/*.py\nalwaysApply: 3\n---\nUse types.\n"
CATALOG = {"AGENTS.md": "# Catalog\n", **{f"rules-mdc/r{i}.mdc": RULE for i in range(3)}}


def run(root: Path, *args: str) -> str:
    done = apc("validate", "--no-color", *args, cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_catalog_is_named_then_checked_once_included(tmp_path: Path) -> None:
    root = write_tree(tmp_path, CATALOG)
    out = run(root, "--no-cache")
    assert "3 .mdc files (Cursor rules) outside .cursor/rules are not checked" in out
    assert '`"rules-mdc/*.mdc": cursor-rule`' in out and "RUL002" not in out
    (root / ".apc-tools.yaml").write_text(
        'version: 1\ninclude:\n  "rules-mdc/*.mdc": cursor-rule\n'
    )
    for args in (["--no-cache"], [], []):  # cold, then warm (the memo's kinds follow include)
        out = run(root, *args)
        assert out.count("warning RUL002") == 3, out
        assert "DSC002" not in out and "YML005" not in out


def test_an_unknown_kind_in_include_stops_the_run(tmp_path: Path) -> None:
    root = write_tree(tmp_path, {**CATALOG, ".apc-tools.yaml": "include:\n  'x/*.md': nope\n"})
    done = apc("validate", cwd=root)
    assert done.returncode == 2 and ".apc-tools.yaml" in done.stderr, done.stderr
