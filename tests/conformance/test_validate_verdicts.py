"""`apc validate` agrees with what the real tools load (issue 16 item 2).

Replay tier (always): the committed observations (``observed/<tool>@<version>.json``, one file
per pinned version) give each case's verdict, the stricter where two versions differ; ``apc
validate`` on the case's tree must give the file the matching severity and the expected rules.
Full tier (CLIs installed): the CLIs read the trees again, at every pinned version, and must show
what was recorded, so a new tool version that reads a case differently fails here until
re-recorded.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

from apc_tools.contract.validate import validate
from apc_tools.findings import Finding, Severity
from tests.conformance.cases import (
    CASES,
    RANK,
    TREES,
    Case,
    expected_severity,
    load_observed,
    verdicts,
    verified_table,
)
from tests.conformance.harness import Binaries
from tests.conformance.installer import label, versions

OBSERVED = {
    (tool, ver): load_observed(tool, ver)
    for tool in ("claude", "codex", "gemini")
    for ver in versions(tool)
}
PINNED = [(case, ver) for case in CASES for ver in versions(case.tool)]


def test_observations_are_of_the_pinned_versions() -> None:
    for (tool, ver), entry in OBSERVED.items():
        assert entry, f"observed/{tool}@{ver}.json is missing: python -m tests.conformance.record"
        assert entry["tool"] == label(tool, ver), "observations of another version: re-record"


def _group_verdict(case: Case) -> str:
    """The worst verdict among the tools reading this file content (a SKILL.md: all three), at
    any pinned version (the stricter reading of a supported version stands)."""
    members = [c for c in CASES if case.group and c.group == case.group] or [case]
    return max((v for c in members for v in verdicts(c, OBSERVED).values()), key=RANK.index)


@pytest.fixture(scope="module")
def findings(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Finding]]:
    out = {}
    for name, tree in TREES.items():
        root = tree.write(tmp_path_factory.mktemp(name))
        out[name] = list(validate([], cwd=root).findings)
    return out


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_apc_agrees_with_the_tool(case: Case, findings: dict[str, list[Finding]]) -> None:
    tool_verdict = _group_verdict(case)
    want = expected_severity(case, tool_verdict)
    on_file = [f for f in findings[case.tree] if f.path == case.path]
    worst = min((f.severity for f in on_file), key=lambda s: s.rank, default=None)
    shown = [(f.rule, f.severity.value, f.message) for f in on_file]
    if want == "ok-or-warning":
        assert worst in (None, Severity.WARNING, Severity.INFO), (tool_verdict, shown)
    else:
        assert worst is not None and worst.value == want, (tool_verdict, want, shown)
    for rule in case.rules:
        assert rule in {f.rule for f in on_file}, (rule, shown)


def test_every_case_is_observed() -> None:
    for case, ver in PINNED:
        assert case.id in OBSERVED[(case.tool, ver)].get("cases", {}), (case.id, ver)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_a_case_the_versions_read_differently_says_which_does_what(case: Case) -> None:
    by_version = verdicts(case, OBSERVED)
    if len(set(by_version.values())) == 1:
        assert not case.versions, (case.id, by_version, "the versions agree: drop `versions`")
        return
    assert case.versions, (case.id, by_version, "say in `versions` which version does what")
    for ver in by_version:
        assert ver in case.versions, (case.id, ver)


@pytest.fixture(scope="module")
def live(
    clis: Binaries, tmp_path_factory: pytest.TempPathFactory
) -> dict[tuple[str, str], dict[str, Any]]:
    from tests.conformance.record import observe_all, write

    observed = observe_all(tmp_path_factory.mktemp("live"))
    if os.environ.get("APC_CONFORMANCE_RECORD") == "1":
        write(observed)
    return observed


@pytest.mark.parametrize(("case", "ver"), PINNED, ids=[f"{c.id}@{v}" for c, v in PINNED])
def test_the_tool_reads_the_case_as_recorded(
    case: Case, ver: str, live: dict[tuple[str, str], dict[str, Any]]
) -> None:
    now, then = live[(case.tool, ver)], OBSERVED[(case.tool, ver)]
    assert now["tool"] == then["tool"]
    assert now["cases"][case.id] == then.get("cases", {}).get(case.id), (
        f"{label(case.tool, ver)} reads {case.path} differently from the recording; if the new "
        "reading is right, re-record (APC_CONFORMANCE_RECORD=1, docs/conformance.md)"
    )


def test_trees_are_small() -> None:
    for tree in TREES.values():
        assert sum(len(t) for t in tree.files.values()) < 120_000, tree.name


def test_rules_name_the_versions_their_cases_verified() -> None:
    from apc_tools.catalog import registry

    table = verified_table(OBSERVED)
    shown = {rule.id: rule.verified for rule in registry() if rule.verified}
    assert shown == table


# Rules whose basis names one of the three tools but whose error is not the tool's verdict.
NOT_A_TOOL_VERDICT = {
    "IO003": "the error is that apc does not read a file over 1 MiB; Codex is named for context",
}
TOOL_NAMES = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


def test_every_reader_rule_naming_a_tool_has_a_case_against_it() -> None:
    from apc_tools.catalog import registry
    from apc_tools.findings import Basis

    covered = {(rule, case.tool) for case in CASES for rule in case.rules}
    missing = []
    for rule in registry():
        if rule.basis is not Basis.READER or rule.id in NOT_A_TOOL_VERDICT:
            continue
        named = [tool for tool, name in TOOL_NAMES.items() if name in rule.why]
        if named and not any((rule.id, tool) in covered for tool in named):
            missing.append((rule.id, named))
    assert not missing
