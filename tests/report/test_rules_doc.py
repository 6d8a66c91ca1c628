"""`apc rules` listings, one rule's explanation, and the generated rules reference."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from apc_tools.findings import Registry
from apc_tools.report.rules_doc import (
    REGENERATE,
    explain_rule,
    list_rules,
    rules_markdown,
)
from tests.report_rules import EXTENSION, FENCED, MISSING

ROOT = Path(__file__).resolve().parents[2]

REGISTRY = Registry.of([MISSING, FENCED, EXTENSION])


def test_text_list_is_an_aligned_table_of_every_rule() -> None:
    lines = list_rules(REGISTRY, "text").splitlines()
    assert lines[0].split() == ["ID", "SEVERITY", "NAME", "SUMMARY"]
    assert lines[1].split(maxsplit=3) == ["RT001", "info", "extension-field", "An extension field."]
    assert lines[2].startswith("TST001  error     missing-name     An agent has no name.")
    assert len({line.index(line.split()[2]) for line in lines[:4]}) == 1  # NAME column aligned
    assert lines[-1].startswith("3 rules")


def test_json_list_round_trips_every_field() -> None:
    doc = json.loads(list_rules(REGISTRY, "json"))
    assert doc["version"] == 1
    assert [r["id"] for r in doc["rules"]] == ["RT001", "TST001", "TST002"]
    assert doc["rules"][1] == {
        "id": "TST001",
        "name": "missing-name",
        "severity": "error",
        "family": "contract",
        "summary": MISSING.summary,
        "explanation": MISSING.explanation,
        "good": MISSING.good,
        "bad": MISSING.bad,
        "basis": "",
        "why": "",
        "verified": "",
    }


def test_markdown_list_is_the_whole_reference_with_escaped_table_cells() -> None:
    text = list_rules(REGISTRY, "markdown")
    assert text == rules_markdown(REGISTRY)
    assert "| [TST002](#tst002) | warning |  | `fenced-example` | A summary \\| with a pipe. |" in (
        text.splitlines()
    )


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError):
        list_rules(REGISTRY, "yaml")
    with pytest.raises(ValueError):
        explain_rule(MISSING, "yaml")


def test_explain_text_has_summary_explanation_and_both_examples() -> None:
    text = explain_rule(MISSING, "text")
    assert text.splitlines()[0] == (
        "TST001 missing-name (default severity: error; family: contract)"
    )
    for part in (
        "An agent has no name.",
        "Add `name:` equal to the file slug.",
        "Passing example:\n    ---\n    name: reviewer\n    ---",
        "Failing example:\n    ---\n    model: inherit\n    ---",
    ):
        assert part in text
    assert text.index("Passing example") < text.index("Failing example")


def test_explain_json_and_markdown() -> None:
    assert json.loads(explain_rule(MISSING, "json"))["bad"] == MISSING.bad
    markdown = explain_rule(MISSING, "markdown")
    assert "# TST001 `missing-name`" in markdown
    assert "```text\n---\nmodel: inherit\n---\n```" in markdown


def fences_balanced(markdown: str) -> bool:
    """Every opening fence is closed by a fence of the same length, as CommonMark requires."""
    open_fence: str | None = None
    for line in markdown.splitlines():
        match = re.match(r"^(`{3,})", line)
        if not match:
            continue
        if open_fence is None:
            open_fence = match.group(1)
        elif line.strip() == open_fence:
            open_fence = None
    return open_fence is None


def test_reference_has_header_families_and_every_rule() -> None:
    doc = rules_markdown(REGISTRY)
    assert doc.startswith("# Rules reference\n")
    assert REGENERATE in doc and "generated" in doc
    assert "3 rules in 2 families" in doc
    assert doc.index("## Family `runtime history`") < doc.index("## Family `contract`")
    assert '<a id="family-runtime-history"></a>' in doc
    for rule in REGISTRY:
        section = doc[doc.index(f'<a id="{rule.id.lower()}"></a>') :]
        assert section.index(f"### {rule.id} `{rule.name}`") < section.index(rule.explanation)
        assert f"Default severity: **{rule.severity.value}**" in section
    assert doc.endswith("\n") and not doc.endswith("\n\n")


def test_examples_containing_fences_stay_inside_their_block() -> None:
    doc = rules_markdown(REGISTRY)
    assert "````text\n# Title\n\n```sh\nmake\n```\n````" in doc
    assert "`````text\n````\nodd\n````\n`````" in doc
    assert fences_balanced(doc)


def test_reference_is_deterministic() -> None:
    assert rules_markdown(REGISTRY) == rules_markdown(Registry.of(reversed(list(REGISTRY))))


def test_a_verified_rule_names_the_tool_versions_in_text_json_and_markdown() -> None:
    from apc_tools.catalog import registry

    rule = registry()["SKL005"]
    assert "Codex 0.171.0" in rule.verified and "Claude Code 2.1.197" in rule.verified
    assert f"Verified against: {rule.verified}" in explain_rule(rule, "text")
    assert json.loads(explain_rule(rule, "json"))["verified"] == rule.verified
    assert f"Verified against: {rule.verified}" in explain_rule(rule, "markdown")
    assert "Verified against" not in explain_rule(registry()["PRJ001"], "text")
