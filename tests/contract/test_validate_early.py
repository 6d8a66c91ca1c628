"""A cold `apc validate` (the cache knows nothing of the tree) begins its files' Outcomes on
forked workers while contract.warm still reads and hashes the files for the run's key
(contract.early); the run takes an Outcome only for the bytes, kind, project and
profile it was computed for. Every answer is compared with the reference run (``batch=False``:
every file parsed in full in one process, no cache) on the same tree.

Real files, real processes, real SQLite databases; each test has its own ``XDG_CACHE_HOME``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from apc_tools.contract import warm
from apc_tools.core import pool
from apc_tools.core.cache import Cache
from tests.conftest import CORPUS
from tests.contract.test_validate_cache import VALIDATE_CASES, _prepare
from tests.contract.test_validate_whole_run import _reference, _run

pytestmark = pytest.mark.skipif(not pool.fork_available(), reason="needs the fork start method")


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch, xdg: Path) -> None:
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "2")
    monkeypatch.setenv(pool.WORKERS_ENV, "2")


def _early(targets: list[Path], work: Path, profile: str | None = None) -> bool:
    """Whether gathering the run (the cache open, as the lean start and validate_tree do)
    begins Outcomes on workers (stopped again here)."""
    with Cache.open(warm.NAMESPACE) as opened:
        made = warm.gather(
            targets,
            report=warm.report_root(work.resolve()),
            profile=profile,
            cwd=work,
            store=opened,
        )
    assert made is not None
    begun = made[1].early is not None
    made[1].abandon()
    return begun


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_every_validate_case_same_with_outcomes_begun_early(
    case: Path, tmp_path: Path, forced: None
) -> None:
    work, targets, profile = _prepare(case, tmp_path)
    reference = _reference(targets, work, profile)
    assert _run(targets, work, profile) == reference  # cold: begun early where there are files
    assert _run(targets, work, profile) == reference  # warm
    assert not _early(targets, work, profile)  # the memo is there now: nothing begun


def _tree(root: Path, count: int) -> Path:
    for i in range(count):
        rule = root / ".cursor" / "rules" / f"r{i}.mdc"
        rule.parent.mkdir(parents=True, exist_ok=True)
        rule.write_text(f'---\ndescription: rule {i}\nglobs: "src/{i}/*.py"\n---\nBody {i}.\n')
        skill = root / "skills" / f"s{i}" / "SKILL.md"
        skill.parent.mkdir(parents=True, exist_ok=True)
        skill.write_text(f"---\nname: s{i}\ndescription: Use skill {i} when asked to.\n---\n# S\n")
    (root / "src" / "3").mkdir(parents=True)
    (root / "src" / "3" / "a.py").write_text("x = 1\n")
    (root / "AGENTS.md").write_text("# Project\n\nRun `make test`.\n")
    return root


def test_a_cold_tree_begins_its_outcomes_early_and_answers_as_the_reference(
    tmp_path: Path, xdg: Path
) -> None:
    work = _tree(tmp_path / "tree", 150)  # 300 files: on the pool without any knob
    assert pool.workers_for(300, 300 * 4096) >= 2 or pool.cpu_count() < 2
    begun = _early([work], work)
    assert begun == (pool.cpu_count() >= 2)
    reference = _reference([work], work)
    assert _run([work], work) == reference
    assert _run([work], work) == reference
    assert not _early([work], work)


def test_a_file_changed_after_the_workers_read_it_is_judged_as_it_is_now(
    tmp_path: Path, forced: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The workers judged the old bytes; the run's key and its verdict are the new bytes'."""
    work = _tree(tmp_path / "tree", 20)
    changed = work / ".cursor" / "rules" / "r3.mdc"
    begin = warm._begin
    seen: list[Any] = []

    def begin_then_edit(*args: Any) -> Any:
        early = begin(*args)
        assert early is not None
        early.take(lambda: None)  # every Outcome computed now, on the old bytes
        seen.append(early)
        changed.write_text("---\ndescription: rule 3\nglobs: src/[z\n---\nBody.\n")  # bad glob
        return early

    monkeypatch.setattr(warm, "_begin", begin_then_edit)
    got = _run([work], work)
    monkeypatch.undo()
    assert seen and seen[0].results  # the early Outcomes were there and were not taken for r3
    assert got == _reference([work], work)
    assert "r3.mdc" in got


def test_every_file_of_the_corpus_same_with_outcomes_begun_early(xdg: Path) -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    reference = _reference([CORPUS], CORPUS)
    assert _early([CORPUS], CORPUS) == (pool.cpu_count() >= 2)
    assert _run([CORPUS], CORPUS) == reference
    assert _run([CORPUS], CORPUS) == reference


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
    for i in range(30):
        rel = f".cursor/rules/r{i}.mdc"
        outcome = validate._file_outcome(
            work, "", "default", rel, "rule", (work / rel).read_bytes()
        )
        if i in (0, 15):
            rule_files._matchers.clear()  # a process of its own for each half
        assert outcome.globs is not None
        outcome.dead = rule_files.dead_globs_alone(project, outcome.globs)
        outcomes.append(outcome)
    rule_files._matchers.clear()
    serial = validate.redact(
        project, list(validate.dead_globs_of(project, [o.globs for o in outcomes]))
    )
    loaded = validate._Loaded(project, list(outcomes))
    with Cache.open(warm.NAMESPACE, enabled=False) as off:
        assert validate._dead_globs_batch(loaded, off, "run") == serial
    halves_fit = all(o.dead is not None for o in outcomes)
    assert halves_fit == (budget >= 45_000)
    taken = validate._dead_globs_alone(loaded)
    assert (taken is not None) == (budget >= 61_000)
    if budget < 61_000:
        assert any("not checked" in f.message for f in serial)


def test_the_workers_are_forked_before_the_parsers_are_imported(tmp_path: Path, xdg: Path) -> None:
    """The point of beginning early: the lean start's cold run forks its workers before it
    imports contract.validate and the YAML parser (each worker imports them on its own)."""
    import subprocess
    import sys

    if pool.cpu_count() < 2:
        pytest.skip("one CPU: no workers")
    work = _tree(tmp_path / "tree", 150)
    code = (
        "import sys\n"
        "from apc_tools.core import pool\n"
        "begin = pool.start_items\n"
        "def spy(*args, **kwargs):\n"
        "    names = ('apc_tools.contract.validate', 'ruamel.yaml')\n"
        "    heavy = [m for m in names if m in sys.modules]\n"
        "    print('FORKED WITH', heavy, file=sys.stderr)\n"
        "    return begin(*args, **kwargs)\n"
        "pool.start_items = spy\n"
        "sys.argv = ['apc', 'validate', '--format', 'json']\n"
        "from apc_tools.start import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=work, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr  # warnings only
    assert "FORKED WITH []" in done.stderr, done.stderr
    assert '"version": 2' in done.stdout
