"""Plan checks (PLN*) through validate() on real trees."""

from __future__ import annotations

from pathlib import Path

import pytest

from apc_tools.contract.checks.plans import is_date
from apc_tools.findings import Finding, Severity
from tests.checks_base import Tree
from tests.checks_base import run as run_tree

BASE = {
    ".apc/project.json": '{"name": "d", "apc": "0.1.0", "agents": {"imported": ["vault-bot"]}}',
    ".apc/agents/sofia.md": "---\nname: sofia\nmodel: inherit\ndescription: Support.\n---\n",
    "AGENTS.md": "# d\n",
}
PLAN = "---\ntitle: Refresh\nstatus: active\nowner: {owner}\nupdated: {updated}\n---\n# Plan\n"


def run(root: Path, files: Tree) -> list[Finding]:
    return run_tree(root, files, base=BASE)


def plan_findings(found: list[Finding]) -> list[tuple[str, int | None, int | None, Severity]]:
    return [(f.rule, f.line, f.column, f.severity) for f in found if f.rule.startswith("PLN")]


def test_valid_plan(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/plans/p.md": PLAN.format(owner="sofia", updated="2026-06-08")})
    assert plan_findings(found) == []


def test_imported_agent_is_a_valid_owner(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/plans/p.md": PLAN.format(owner="vault-bot", updated="2026-06-08")})
    assert plan_findings(found) == []


def test_unknown_owner_is_an_error_at_the_value(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/plans/p.md": PLAN.format(owner="sofa", updated="2026-06-08")})
    assert plan_findings(found) == [("PLN001", 4, 8, Severity.ERROR)]


def test_updated_not_a_date_is_a_warning(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/plans/p.md": PLAN.format(owner="sofia", updated="last week")})
    assert plan_findings(found) == [("PLN002", 5, 10, Severity.WARNING)]


def test_missing_recommended_keys_and_bad_title(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/plans/p.md": "---\ntitle:\n  - x\n---\n"})
    assert plan_findings(found) == [
        ("PLN003", 2, 1, Severity.WARNING),
        ("PLN003", 2, 1, Severity.WARNING),
        ("PLN003", 2, 1, Severity.WARNING),
        ("PLN004", 3, 3, Severity.ERROR),
    ]


def test_plan_without_frontmatter(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/plans/p.md": "# Plan\n"})
    assert plan_findings(found) == [("PLN003", 1, 1, Severity.WARNING)]


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("2026-06-08", True),
        ("2026-06-08T10:00:00Z", True),
        ("2026-06-08 10:00", True),
        ("2026-02-30", False),
        ("08/06/2026", False),
        (20260608, False),
        (None, False),
    ],
)
def test_is_date(value: object, ok: bool) -> None:
    assert is_date(value) is ok
