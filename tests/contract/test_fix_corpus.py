"""`apc validate --fix --unsafe-fixes` on a copy of the real corpus (../shared/corpus): no fixable
finding is left, no file without one is touched, and a second run has nothing to do."""

from __future__ import annotations

import shutil
from pathlib import Path

from apc_tools.catalog import registry
from apc_tools.contract.fix import fix_paths, plan_fixes
from apc_tools.contract.validate import validate
from apc_tools.findings import Finding
from tests.conftest import CORPUS, needs_shared
from tests.contract.test_checks_corpus import stage


def fixable(found: tuple[Finding, ...], unsafe: bool = True) -> list[Finding]:
    """The findings of rules with a fix (a safe one only, without ``unsafe``)."""
    kinds = {r.id: r.fix for r in registry()}
    wanted = {"safe", "unsafe"} if unsafe else {"safe"}
    return [f for f in found if kinds.get(f.rule) in wanted]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and not p.is_symlink()
    }


def fix_and_compare(root: Path, unsafe: bool = True) -> tuple[list[Finding], set[str]]:
    """(the fixable findings left, the files changed), after checking that every changed file
    had a fixable finding and that a second run plans nothing."""
    had = {f.path for f in fixable(validate([root], cwd=root).findings, unsafe)}
    before = snapshot(root)
    outcome = fix_paths([root], unsafe=unsafe, cwd=root)
    assert outcome.skipped == []
    after = snapshot(root)
    changed = {p for p in after if before.get(p) != after[p]} | (set(before) - set(after))
    assert changed, "the corpus has fixable findings"
    assert changed <= had  # no file without a fixable finding was touched
    assert plan_fixes([root], unsafe=unsafe, cwd=root).files == []  # idempotent
    return fixable(validate([root], cwd=root).findings, unsafe), changed


def test_safe_fix_alone_on_the_corpus(tmp_path: Path) -> None:
    """`apc validate --fix` (safe only): no safe-fixable finding is left; the unsafe ones wait."""
    needs_shared(CORPUS)
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root, symlinks=True)
    unsafe_before = len(fixable(validate([root], cwd=root).findings)) - len(
        fixable(validate([root], cwd=root).findings, unsafe=False)
    )
    left, _ = fix_and_compare(root, unsafe=False)
    assert left == []
    assert unsafe_before > 0  # SKL004, SKL005 on the corpus
    assert len(fixable(validate([root], cwd=root).findings)) == unsafe_before


def test_fix_leaves_no_fixable_finding_on_the_corpus(tmp_path: Path) -> None:
    needs_shared(CORPUS)
    root = tmp_path / "corpus"
    shutil.copytree(CORPUS, root, symlinks=True)
    left, changed = fix_and_compare(root)
    assert left == []
    assert any(p.endswith("SKILL.md") for p in changed)


def test_fix_on_the_corpus_staged_where_the_tools_read_it(tmp_path: Path) -> None:
    """Subagents under .claude/agents, Cursor rules under .cursor/rules, skills under
    .claude/skills: descriptions with `: ` get quoted; Cursor's unquoted globs stay as Cursor
    writes them (quoting breaks its matching) and are no finding, so nothing fixable is left."""
    needs_shared(CORPUS)
    root = stage(tmp_path / "staged")
    left, changed = fix_and_compare(root)
    assert any(p.startswith(".claude/agents/") for p in changed)
    assert left == []
