"""`apc validate` on the pool (core.pool, forced on every tree here): a rule file's dead globs
are matched on the worker with its Outcome (checks.rule_files.dead_globs_alone), and the
project's findings are put together from them only when the serial match could not run out
of its budget. Every answer is compared with the reference run (``batch=False``: every file
parsed in full in one process, no cache) on the same tree.

Real files, real processes, real SQLite databases; each test has its own ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from apc_tools.contract import warm
from apc_tools.core import pool
from apc_tools.core.cache import Cache
from tests.contract.test_validate_cache import VALIDATE_CASES, _prepare
from tests.contract.test_validate_whole_run import _reference, _run

pytestmark = pytest.mark.skipif(not pool.fork_available(), reason="needs the fork start method")


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch, xdg: Path) -> None:
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "2")
    monkeypatch.setenv(pool.WORKERS_ENV, "2")


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_every_validate_case_same_on_the_pool_cold_and_warm(
    case: Path, tmp_path: Path, forced: None
) -> None:
    work, targets, profile = _prepare(case, tmp_path)
    reference = _reference(targets, work, profile)
    assert _run(targets, work, profile) == reference  # cold: the Outcomes on the pool
    assert _run(targets, work, profile) == reference  # warm


def _rules_tree(root: Path, rules: int) -> Path:
    """``rules`` rule files with a dead glob each (distinct), one live, and 100 source files."""
    for i in range(rules):
        rule = root / ".cursor" / "rules" / f"r{i}.mdc"
        rule.parent.mkdir(parents=True, exist_ok=True)
        rule.write_text(f'---\ndescription: rule {i}\nglobs: "src/*.z{i}, src/*.ts"\n---\nB.\n')
    for i in range(100):
        (root / "src").mkdir(parents=True, exist_ok=True)
        (root / "src" / f"f{i:02d}.ts").write_text("")
    (root / "AGENTS.md").write_text("# Project\n")
    return root


def test_dead_globs_matched_on_the_workers_are_the_serial_ones(
    tmp_path: Path, forced: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Within the budget the project's dead globs are put together from the rule files' own
    (matched with their Outcomes), not matched again here."""
    from apc_tools.contract import validate

    work = _rules_tree(tmp_path / "tree", 30)
    reference = _reference([work], work)
    assert reference.count("matches no file") == 30
    calls: list[int] = []
    serial = validate.dead_globs_of

    def counted(*args: Any) -> Any:
        calls.append(1)
        return serial(*args)

    monkeypatch.setattr(validate, "dead_globs_of", counted)
    assert _run([work], work) == reference  # cold: matched on the workers
    assert calls == []
    for rule in (work / ".cursor" / "rules").iterdir():  # new file list: the rules' Outcomes
        (work / "src" / f"{rule.stem}.md").write_text("")  # come from the cache, so here
    assert _run([work], work) == _reference([work], work)
    assert calls == [1]


@pytest.mark.parametrize("budget", [2_000, 10_000, 45_000, 61_000])
def test_dead_globs_past_the_budget_are_matched_here_in_order(
    tmp_path: Path, forced: None, monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """Each dead glob costs about 2,000 units (100 files of about 10 characters, 2 parts):
    past the budget the later globs are "not checked", exactly as the serial run says, which
    the rule files' own findings (each process with a whole budget) cannot tell."""
    from apc_tools.contract import validate
    from apc_tools.contract.checks import rule_files

    monkeypatch.setattr(rule_files, "GLOB_BUDGET", budget)
    monkeypatch.setattr(validate, "GLOB_BUDGET", budget)
    work = _rules_tree(tmp_path / "tree", 30)
    reference = _reference([work], work)
    if budget < 60_000:
        assert "not checked" in reference
    assert _run([work], work) == reference


@pytest.mark.parametrize("budget", [10_000, 45_000, 61_000, 20_000_000])
def test_the_rule_files_own_dead_globs_are_taken_only_when_the_serial_run_cannot_run_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, budget: int
) -> None:
    """Two processes' halves (each its own matcher and budget): 45,000 units is enough for
    each half (about 30,000) but not for the 60,000 of the whole, where the serial run says
    "not checked" after 22 globs; only a sum within the budget is taken."""
    from apc_tools.contract import project as projects
    from apc_tools.contract import validate
    from apc_tools.contract.checks import rule_files

    monkeypatch.setattr(rule_files, "GLOB_BUDGET", budget)
    monkeypatch.setattr(validate, "GLOB_BUDGET", budget)
    work = _rules_tree(tmp_path / "tree", 30)
    rels = [p.relative_to(work).as_posix() for p in work.rglob("*") if p.is_file()]
    project = projects.Project(work, "", "default", files=frozenset(rels), tracked=None)
    outcomes = []
    matchers: dict[int, Any] = {}
    for i in range(30):
        rel = f".cursor/rules/r{i}.mdc"
        outcome = validate._file_outcome(
            work, "", "default", rel, "rule", (work / rel).read_bytes()
        )
        if i == 15:
            matchers = {}  # a process of its own for each half
        assert outcome.globs is not None
        outcome.dead = rule_files.dead_globs_alone(project, outcome.globs, matchers)
        outcomes.append(outcome)
    serial = validate.redact(
        project, list(validate.dead_globs_of(project, [o.globs for o in outcomes]))
    )
    loaded = validate._Loaded(project, list(outcomes))
    with Cache.open(warm.NAMESPACE, enabled=False) as off:
        assert validate._dead_globs_batch(loaded, off, "run") == serial
    halves_fit = all(o.dead is not None for o in outcomes)
    assert halves_fit == (budget >= 45_000)
    taken = validate._dead_globs_from_outcomes(loaded)
    assert (taken is not None) == (budget >= 61_000)
    if budget < 61_000:
        assert any("not checked" in f.message for f in serial)
