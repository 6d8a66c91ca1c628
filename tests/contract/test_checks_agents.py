"""Agent checks (AGT*) through validate() on real trees: rule IDs and line:column."""

from __future__ import annotations

from pathlib import Path

from apc_tools.findings import Finding, Severity
from tests.checks_base import Tree
from tests.checks_base import run as run_tree
from tests.checks_base import where as hits

PROJECT = {".apc/project.json": '{"name": "demo", "apc": "0.1.0"}\n', "AGENTS.md": "# Demo\n"}


def run(root: Path, files: Tree) -> list[Finding]:
    return run_tree(root, files, base=PROJECT)


def mine(found: list[Finding]) -> list[Finding]:
    return [f for f in found if f.rule.startswith("AGT")]


def test_valid_agent_with_skills_has_no_agent_findings(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/agents/martin.md": "---\nname: martin\nmodel: inherit\ndescription: Sales.\n"
            "skills: sales-funnel, pricing\nis_background: false\nlanguage: es-AR\n---\n# M\n",
            ".apc/skills/sales-funnel.md": "# sales\n",
            ".apc/skills/pricing/SKILL.md": "---\nname: pricing\ndescription: Prices.\n---\n",
        },
    )
    assert mine(found) == []


def test_slug_invalid_is_an_error_at_line_one(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {".apc/agents/Code Reviewer.md": "---\nname: x\nmodel: inherit\ndescription: d\n---\n"},
    )
    assert hits(found, "AGT001") == [(".apc/agents/Code Reviewer.md", 1, 1)]
    assert "skips" in next(f.message for f in found if f.rule == "AGT001")


def test_missing_frontmatter_both_flavours(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {".apc/agents/rev.md": "# Reviewer\n", ".claude/agents/sub/rev.md": "# Reviewer\n"},
    )
    assert hits(found, "AGT002") == [
        (".apc/agents/rev.md", 1, 1),
        (".claude/agents/sub/rev.md", 1, 1),
    ]


def test_unclosed_frontmatter_is_left_to_fmt001(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/agents/rev.md": "---\nname: rev\n"})
    assert hits(found, "AGT002") == []
    assert hits(found, "FMT001") == [(".apc/agents/rev.md", 1, 1)]


def test_apx_style_agent_missing_name_and_model_gets_the_hint(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/agents/arch.md": "---\nrole: Arch\nicon: cubi\ndescription: Architect.\n"
            "skills:\ntools:\nis_master: false\n---\n"
        },
    )
    required = [f for f in found if f.rule == "AGT003"]
    assert [(f.line, f.column, f.severity) for f in required] == [
        (2, 1, Severity.ERROR),
        (2, 1, Severity.ERROR),
    ]
    messages = " ".join(f.message for f in required)
    assert "APX defaults it to `arch` (the file name)" in messages
    assert "`inherit`" in messages
    assert hits(found, "AGT007") == [
        (".apc/agents/arch.md", 2, 1),
        (".apc/agents/arch.md", 3, 1),
        (".apc/agents/arch.md", 6, 1),
        (".apc/agents/arch.md", 7, 1),
    ]
    assert all(f.severity is Severity.INFO for f in found if f.rule == "AGT007")


def test_plain_agent_missing_description_has_no_apx_hint(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/agents/rev.md": "---\nname: rev\nmodel: inherit\n---\n"})
    [finding] = [f for f in found if f.rule == "AGT003"]
    assert (finding.line, finding.column) == (2, 1)
    assert "'description'" in finding.message and "APX" not in finding.message


def test_name_must_equal_slug(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {".apc/agents/rev.md": "---\nmodel: inherit\nname: reviewer\ndescription: d\n---\n"},
    )
    assert hits(found, "AGT004") == [(".apc/agents/rev.md", 3, 7)]


def test_field_types_are_schema_errors_at_the_value(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/agents/rev.md": "---\nname: rev\nmodel: inherit\ndescription: d\n"
            "is_background: sometimes\ncolor:\n  - red\n---\n"
        },
    )
    assert hits(found, "AGT005") == [(".apc/agents/rev.md", 5, 16), (".apc/agents/rev.md", 7, 3)]
    messages = [f.message for f in found if f.rule == "AGT005"]
    assert messages[0].startswith("$.is_background:")


def test_missing_skills_are_errors_at_each_name(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/agents/a.md": "---\nname: a\nmodel: inherit\ndescription: d\n"
            "skills: pricing, ghost\n---\n",
            ".apc/agents/b.md": "---\nname: b\nmodel: inherit\ndescription: d\n"
            "skills:\n  - pricing\n  - phantom\n---\n",
            ".apc/skills/pricing.md": "# pricing\n",
        },
    )
    assert hits(found, "AGT006") == [(".apc/agents/a.md", 5, 18), (".apc/agents/b.md", 7, 5)]
    assert all(f.severity is Severity.ERROR for f in found if f.rule == "AGT006")


def test_folder_skill_satisfies_an_agent(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/agents/a.md": "---\nname: a\nmodel: inherit\ndescription: d\nskills: pdf\n---\n",
            ".apc/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDFs.\n---\n",
        },
    )
    assert hits(found, "AGT006") == []


def test_unknown_key_warning_and_type_enum(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/agents/a.md": "---\nname: a\nmodel: inherit\ndescription: d\ndescripton: typo\n"
            "type: helper\n---\n"
        },
    )
    assert hits(found, "AGT008") == [(".apc/agents/a.md", 5, 1)]
    assert hits(found, "AGT009") == [(".apc/agents/a.md", 6, 7)]
    assert {f.severity for f in found if f.rule in ("AGT008", "AGT009")} == {Severity.WARNING}


def test_claude_subagent_valid_has_no_findings(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".claude/agents/rev.md": "---\nname: code-reviewer\ndescription: Reviews code.\n"
            "tools: Read, Grep\nmodel: sonnet\ncolor: blue\n---\nBody\n"
        },
    )
    assert mine(found) == []


def test_claude_subagent_skipped_cases_are_errors(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".claude/agents/a.md": "---\ndescription: d\n---\n",
            ".claude/agents/b.md": "---\nname: b\n---\n",
            ".claude/agents/c.md": "---\nname: -c\ndescription: d\n---\n",
            # a name holding ':': Claude Code 2.1.197 loads it, 2.1.332 skips it
            # (tests/conformance): the stricter reading stands
            ".claude/agents/d.md": "---\nname: ns:d\ndescription: d\n---\n",
        },
    )
    assert hits(found, "AGT010") == [
        (".claude/agents/a.md", 2, 1),
        (".claude/agents/b.md", 2, 1),
        (".claude/agents/c.md", 2, 7),
        (".claude/agents/d.md", 2, 7),
    ]
    assert hits(found, "AGT011") == []


def test_claude_subagent_lenient_forms_are_warnings_or_info(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".claude/agents/a.md": "---\nname: dotnet-4.8-expert\ndescription: d\n"
            "tools:\n  Read: true\nmodle: opus\n---\n"
        },
    )
    assert hits(found, "AGT011") == [(".claude/agents/a.md", 2, 7)]
    assert hits(found, "AGT012") == [(".claude/agents/a.md", 5, 3)]
    assert hits(found, "AGT013") == [(".claude/agents/a.md", 6, 1)]
    assert not [f for f in mine(found) if f.severity is Severity.ERROR]


def test_unquoted_colon_in_subagent_description_is_not_an_error(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {".claude/agents/a.md": "---\nname: a\ndescription: Use when: the user asks\n---\n"},
    )
    assert [f.rule for f in found if f.path.endswith("a.md")] == ["YML005"]
