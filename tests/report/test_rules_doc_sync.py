"""docs/rules.md is exactly what the registry generates (regenerate: see REGENERATE)."""

from __future__ import annotations

from pathlib import Path

from apc_tools.findings import Registry
from apc_tools.report.rules_doc import REGENERATE, rules_markdown

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def real_registry() -> Registry:
    from apc_tools.catalog import registry

    return registry()


def test_rules_reference_matches_the_registry() -> None:
    expected = rules_markdown(real_registry())
    assert DOC.is_file(), f"{DOC} is missing; generate it with: {REGENERATE}"
    assert DOC.read_text(encoding="utf-8") == expected, f"docs/rules.md is stale: {REGENERATE}"
