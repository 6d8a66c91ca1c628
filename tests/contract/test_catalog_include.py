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


def test_apc_init_proposes_the_mapping(tmp_path: Path) -> None:
    """`apc init` in a catalog writes the `include:` mapping into the policy it creates (and
    DSC002 is gone: the files are checked); where a policy exists it prints the lines to add
    and leaves the file alone."""
    root = write_tree(tmp_path / "fresh", CATALOG)
    done = apc("init", str(root), cwd=root)
    assert done.returncode == 0, done.stderr
    assert '"rules-mdc/*.mdc": cursor-rule  # 3 files' in done.stdout
    policy = (root / ".apc-tools.yaml").read_text(encoding="utf-8")
    assert 'include:\n  "rules-mdc/*.mdc": cursor-rule\n' in policy
    out = run(root, "--no-cache")
    assert out.count("warning RUL002") == 3 and "DSC002" not in out, out
    kept = write_tree(tmp_path / "kept", {**CATALOG, ".apc-tools.yaml": "version: 1\n"})
    done = apc("init", str(kept), cwd=kept)
    assert (
        "Add to .apc-tools.yaml" in done.stdout and '"rules-mdc/*.mdc": cursor-rule' in done.stdout
    )
    assert (kept / ".apc-tools.yaml").read_text(encoding="utf-8") == "version: 1\n"
