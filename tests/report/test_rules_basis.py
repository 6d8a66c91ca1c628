"""Every validate rule states why it has its severity (issue 7): an error because the reading
tool rejects or misreads the file (or the APC spec requires it in .apc/, or it is a leak), a
warning because only a spec says so or because it is advice; docs/rules.md shows it."""

from __future__ import annotations

import pytest

from apc_tools.catalog import registry
from apc_tools.findings import Basis, Rule, Severity

FOR_SEVERITY = {
    Severity.ERROR: {Basis.READER, Basis.APC_SPEC, Basis.LEAK},
    Severity.WARNING: {Basis.SPEC, Basis.ADVICE},
    Severity.INFO: {Basis.NOTE, Basis.SPEC},
}


def validate_rules() -> list[Rule]:
    """The rules `apc validate` reports: the floor's and the contract checks' (every family a
    check module adds is included: give its rules a reason in contract/rules.py BASIS)."""
    from apc_tools.contract.rules import RULES as CONTRACT
    from apc_tools.core.rules import RULES as CORE

    return [*CORE, *CONTRACT]


@pytest.mark.parametrize("rule", validate_rules(), ids=lambda r: r.id)
def test_rule_states_why_it_has_its_severity(rule: Rule) -> None:
    assert rule.basis in FOR_SEVERITY[rule.severity], (rule.id, rule.severity, rule.basis)
    if rule.severity is Severity.ERROR:
        assert len(rule.why) > 20, f"{rule.id}: say which tool rejects or misreads the file"


def test_rules_reference_shows_the_reason() -> None:
    from apc_tools.report.rules_doc import rules_markdown

    text = rules_markdown(registry())
    assert "Why this severity: error: the tool that reads the file rejects or misreads it" in text
    assert "| [SKL005](#skl005) | error | reader |" in text
