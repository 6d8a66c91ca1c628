"""Rule-file checks (RUL*) through validate() on real trees and real git repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from apc_tools.contract.checks.rule_files import split_globs
from apc_tools.contract.validate import validate
from apc_tools.findings import Finding, Severity
from tests.checks_base import Tree
from tests.checks_base import run as run_tree
from tests.checks_base import where as hits
from tests.conftest import git, write_tree


def run(root: Path, files: Tree) -> list[Finding]:
    return run_tree(root, files, base=False)


def errors(found: list[Finding]) -> list[Finding]:
    """Errors about the rule files themselves (other families judge the rest of the tree)."""
    return [f for f in found if f.severity is Severity.ERROR and "rules/" in f.path]


def test_cursor_unquoted_globs_are_never_an_error(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".cursor/rules/ts.mdc": "---\ndescription: TS\nglobs: **/*.ts, src/**/*.{ts,tsx}\n"
            "alwaysApply: false\n---\n- Use strict mode.\n",
            "src/a.ts": "",
        },
    )
    assert errors(found) == []
    assert hits(found, "YML005") == []  # Cursor's own form in Cursor's folder: no finding
    assert hits(found, "RUL003") == []


def test_dead_globs_in_list_and_string_at_their_positions(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/rules/api.mdc": '---\ndescription: API\nglobs:\n  - "src/**/*.ts"\n'
            '  - "lib/**/*.rb"\n---\n',
            ".cursor/rules/py.mdc": "---\ndescription: Py\nglobs: src/*.ts, **/*.py\n---\n",
            "src/a.ts": "",
        },
    )
    assert hits(found, "RUL003") == [
        (".apc/rules/api.mdc", 5, 5),
        (".cursor/rules/py.mdc", 3, 18),
    ]
    assert all(f.severity is Severity.WARNING for f in found if f.rule == "RUL003")


def test_dead_glob_uses_tracked_files_in_a_git_repo(git_repo: Callable[..., Path]) -> None:
    root = git_repo(
        {
            ".cursor/rules/go.mdc": "---\ndescription: Go\nglobs: **/*.go\n---\n",
            "AGENTS.md": "# x\n",
        }
    )
    (root / "main.go").write_text("package main\n")  # present on disk, not tracked
    found = list(validate([root], cwd=root).findings)
    assert hits(found, "RUL003") == [(".cursor/rules/go.mdc", 3, 8)]
    assert "tracked" in next(f.message for f in found if f.rule == "RUL003")
    git(root, "add", "main.go")
    git(root, "commit", "-q", "-m", "go")
    assert hits(list(validate([root], cwd=root).findings), "RUL003") == []


def test_nested_cursor_rules_globs_are_relative_to_their_folder(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            "web/.cursor/rules/ui.mdc": "---\ndescription: UI\nglobs:\n  - src/*.tsx\n---\n",
            "web/src/app.tsx": "",
        },
    )
    assert hits(found, "RUL003") == []


def test_globs_of_wrong_type_is_an_error(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/rules/x.md": "---\ndescription: X\nglobs:\n  src: 1\n---\n"})
    assert hits(found, "RUL001") == [(".apc/rules/x.md", 4, 3)]
    assert errors(found)[0].message.startswith("$.globs:")


def test_quoted_always_apply_is_a_warning(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/rules/x.mdc": '---\ndescription: X\nalwaysApply: "true"\n---\n'})
    assert hits(found, "RUL002") == [(".apc/rules/x.mdc", 3, 14)]
    assert errors(found) == []


def test_never_applied_rule(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/rules/a.mdc": "---\nalwaysApply: false\n---\nbody\n",
            ".apc/rules/b.md": "plain body\n",
            ".apc/rules/c.mdc": "---\nalwaysApply: true\n---\nbody\n",
        },
    )
    assert hits(found, "RUL004") == [(".apc/rules/a.mdc", 2, 1), (".apc/rules/b.md", 1, 1)]


def test_mdc_without_frontmatter_is_a_warning(tmp_path: Path) -> None:
    found = run(tmp_path, {".cursor/rules/x.mdc": "# Rules\n- be nice\n"})
    assert hits(found, "RUL005") == [(".cursor/rules/x.mdc", 1, 1)]
    assert errors(found) == []


def test_unknown_key_is_a_warning(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/rules/x.mdc": "---\ndescription: X\nglob: '*.ts'\n---\n"})
    assert hits(found, "RUL006") == [(".apc/rules/x.mdc", 3, 1)]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("**/*.ts", ["**/*.ts"]),
        ("a/*.{ts,tsx}, b/**", ["a/*.{ts,tsx}", "b/**"]),
        (["x", " ", "y"], ["x", "y"]),
        (None, []),
        ("", []),
    ],
)
def test_split_globs(value: object, expected: list[str]) -> None:
    assert [g for _, g in split_globs(value)] == expected


def test_lone_mdc_file_is_checked_without_dead_globs(tmp_path: Path) -> None:
    write_tree(
        tmp_path, {"rules/ts.mdc": "---\ndescription: TS\nglobs: **/*.ts\nalwaysApply: 1\n---\n"}
    )
    result = validate([tmp_path / "rules" / "ts.mdc"], cwd=tmp_path)
    # a named .mdc is a Cursor rule, read as Cursor reads it: its unquoted glob is no YML005
    assert [(f.rule, f.path, f.line, f.column) for f in result.findings] == [
        ("RUL002", "rules/ts.mdc", 4, 14),
    ]
