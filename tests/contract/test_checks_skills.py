"""Skill checks (SKL*) through validate() on real trees, in both profiles."""

from __future__ import annotations

from pathlib import Path

import pytest

from apc_tools.contract.checks.skills import name_problems
from apc_tools.contract.validate import validate
from apc_tools.findings import Finding, Severity
from tests.checks_base import Tree
from tests.checks_base import run as run_tree
from tests.checks_base import where as hits
from tests.conftest import write_tree


def run(root: Path, files: Tree, profile: str = "default") -> list[Finding]:
    return run_tree(root, files, base=False, profile=profile)


def errors(found: list[Finding]) -> list[str]:
    return [f.rule for f in found if f.severity is Severity.ERROR]


def skill(name: str, body: str) -> dict[str, str | bytes]:
    return {f"skills/{name}/SKILL.md": body}


@pytest.mark.parametrize("profile", ["default", "agentskills"])
def test_valid_skill_with_all_fields(tmp_path: Path, profile: str) -> None:
    found = run(
        tmp_path,
        skill(
            "pdf-tools",
            "---\nname: pdf-tools\ndescription: Extract text.\nlicense: MIT\n"
            "compatibility: Python 3\nmetadata:\n  author: me\nallowed-tools: Bash(git:*) Read\n"
            "---\n# PDF\n",
        ),
        profile,
    )
    assert found == []


@pytest.mark.parametrize("profile", ["default", "agentskills"])
def test_no_frontmatter_is_an_error(tmp_path: Path, profile: str) -> None:
    found = run(tmp_path, skill("pdf", "# PDF tools\n"), profile)
    assert hits(found, "SKL001") == [("skills/pdf/SKILL.md", 1, 1)]


def test_empty_skill_file_is_an_error(tmp_path: Path) -> None:
    found = run(tmp_path, skill("pdf", ""))
    assert hits(found, "SKL001") == [("skills/pdf/SKILL.md", 1, 1)]


def test_missing_description_is_reported_at_frontmatter_start(tmp_path: Path) -> None:
    found = run(tmp_path, skill("pdf", "---\n\nname: pdf\n---\n"))
    assert hits(found, "SKL002") == [("skills/pdf/SKILL.md", 3, 1)]
    assert "$.description" in next(f.message for f in found if f.rule == "SKL002")


def test_name_format_and_folder_match(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            **skill("PDF_Tools", "---\nname: PDF_Tools\ndescription: d\n---\n"),
            **skill("pdf", "---\ndescription: d\nname:   pdf-tools\n---\n"),
        },
    )
    assert sorted(set(hits(found, "SKL003"))) == [("skills/PDF_Tools/SKILL.md", 2, 7)]
    assert hits(found, "SKL004") == [("skills/pdf/SKILL.md", 3, 9)]


def test_unicode_name_is_valid_with_a_warning(tmp_path: Path) -> None:
    found = run(tmp_path, skill("café", "---\nname: café\ndescription: d\n---\n"), "agentskills")
    assert errors(found) == []
    assert hits(found, "SKL009") == [("skills/café/SKILL.md", 2, 7)]


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        ("pdf-tools", True),
        ("a" * 64, True),
        ("a" * 65, False),
        ("-x", False),
        ("x-", False),
        ("a--b", False),
        ("Upper", False),
        ("under_score", False),
        ("技能", True),
        ("  spaced  ", True),
        ("", False),
        (123, False),
    ],
)
def test_name_rule_is_skills_refs(name: object, ok: bool) -> None:
    assert (name_problems(name) == []) is ok


def test_description_too_long_and_blank(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            **skill("a", "---\nname: a\ndescription: " + "x" * 1025 + "\n---\n"),
            **skill(
                "b", "---\nname: b\ndescription: '   '\ncompatibility: " + "y" * 501 + "\n---\n"
            ),
        },
    )
    assert hits(found, "SKL005") == [
        ("skills/a/SKILL.md", 3, 14),
        ("skills/b/SKILL.md", 3, 14),
        ("skills/b/SKILL.md", 4, 16),
    ]
    assert "1025" in found[[f.rule for f in found].index("SKL005")].message


def test_unknown_key_warning_by_default_error_in_agentskills(tmp_path: Path) -> None:
    files = skill("pdf", "---\nname: pdf\ndescription: d\nhomepage: https://x\n---\n")
    default = run(tmp_path / "d", files)
    strict = run(tmp_path / "s", files, "agentskills")
    assert [(f.rule, f.line, f.column, f.severity) for f in default] == [
        ("SKL006", 4, 1, Severity.WARNING)
    ]
    assert [(f.rule, f.line, f.column, f.severity) for f in strict] == [
        ("SKL006", 4, 1, Severity.ERROR)
    ]


def test_claude_code_fields_are_info_by_default(tmp_path: Path) -> None:
    found = run(tmp_path, skill("pdf", "---\nname: pdf\ndescription: d\nmodel: opus\n---\n"))
    assert [(f.rule, f.severity) for f in found] == [("SKL008", Severity.INFO)]
    strict = run(
        tmp_path / "s",
        skill("pdf", "---\nname: pdf\ndescription: d\nmodel: o\n---\n"),
        "agentskills",
    )
    assert errors(strict) == ["SKL006"]


def test_scalars_read_as_text_like_strictyaml(tmp_path: Path) -> None:
    found = run(tmp_path, skill("123", "---\nname: 123\ndescription: 456\n---\n"), "agentskills")
    assert errors(found) == []


def test_null_description_is_the_text_null_as_in_skills_ref(tmp_path: Path) -> None:
    found = run(tmp_path, skill("a", "---\nname: a\ndescription: null\n---\n"), "agentskills")
    assert errors(found) == []
    empty = run(tmp_path / "e", skill("a", "---\nname: a\ndescription:\n---\n"), "agentskills")
    assert hits(empty, "SKL005") == [("skills/a/SKILL.md", 3, 13)]


def test_unquoted_colon_is_a_warning_by_default_and_an_error_in_agentskills(
    tmp_path: Path,
) -> None:
    files = skill("a", "---\nname: a\ndescription: Use when: asked\n---\n")
    default = run(tmp_path / "d", files)
    strict = run(tmp_path / "s", files, "agentskills")
    assert errors(default) == []
    assert hits(default, "YML005") == [("skills/a/SKILL.md", 3, 14)]
    assert hits(strict, "SKL007") == [("skills/a/SKILL.md", 3, 14)]
    assert errors(strict) == ["SKL007"]


def test_flow_style_and_tags_and_dot_fence_are_not_strict(tmp_path: Path) -> None:
    files = {
        **skill("a", "---\nname: a\ndescription: d\nmetadata: {k: v}\n---\n"),
        **skill("b", "---\nname: b\ndescription: !!str d\n---\n"),
        **skill("c", "---\nname: c\ndescription: d\n...\nbody\n"),
    }
    strict = run(tmp_path / "s", files, "agentskills")
    assert hits(strict, "SKL007") == [
        ("skills/a/SKILL.md", 4, 11),
        ("skills/b/SKILL.md", 3, 14),
        ("skills/c/SKILL.md", 4, 1),
    ]
    assert errors(run(tmp_path / "d", files)) == []


def test_allowed_tools_list_and_metadata_forms_are_warnings(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        skill(
            "a",
            "---\nname: a\ndescription: d\nallowed-tools:\n  - Read\nmetadata:\n  v: 1.0\n---\n",
        ),
        "agentskills",
    )
    assert errors(found) == []
    assert hits(found, "SKL010") == [("skills/a/SKILL.md", 5, 3), ("skills/a/SKILL.md", 7, 6)]


def test_flat_skill_without_frontmatter_is_fine(tmp_path: Path) -> None:
    found = run(tmp_path, {".apc/skills/pricing.md": "# pricing\n"})
    assert [f for f in found if f.rule.startswith("SKL")] == []


def test_flat_skill_frontmatter_is_checked(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            ".apc/skills/pricing.md": "---\nname: prices\ndescription: d\n---\n",
            ".apc/skills/refunds.md": "---\ntitle: Refunds\n---\n",
        },
    )
    assert hits(found, "SKL004") == [(".apc/skills/pricing.md", 2, 7)]
    assert hits(found, "SKL011") == [
        (".apc/skills/refunds.md", 2, 1),
        (".apc/skills/refunds.md", 2, 1),
    ]
    assert all(f.severity is Severity.WARNING for f in found if f.rule == "SKL011")


def test_single_skill_file_validated_by_path(tmp_path: Path) -> None:
    write_tree(tmp_path, skill("pdf", "---\nname: pdf-x\ndescription: d\n---\n"))
    result = validate([tmp_path / "skills" / "pdf" / "SKILL.md"], cwd=tmp_path)
    assert [(f.rule, f.path, f.line) for f in result.findings] == [
        ("SKL004", "skills/pdf/SKILL.md", 2)
    ]


def test_tab_in_plain_value_is_not_strict_for_skills_ref(tmp_path: Path) -> None:
    files = {
        **skill("a", "---\nname: a\ndescription: text\twith a tab\n---\n"),
        **skill("b", "---\nname: b\ndescription: 'quoted\ttab'\n---\n"),
    }
    assert hits(run(tmp_path / "s", files, "agentskills"), "SKL007") == [
        ("skills/a/SKILL.md", 3, 18)
    ]
    assert errors(run(tmp_path / "d", files)) == []


# --- issue 7: what the reading tools accept ---------------------------------------------------
FLOW_COLONS = (
    "---\nname: pdf\ndescription: d\nallowed-tools: [Bash(git add:*), Read]\n"
    "metadata:\n  tags: '[x]'\nx-tags: [N:M Sparsity]\nx-urls: [http://x.com]\n"
    "x-map: {a: [b:c], d: {e: f:g}}\n---\n"
)


def test_colon_inside_a_flow_collection_is_valid_yaml(tmp_path: Path) -> None:
    found = run(tmp_path, skill("pdf", FLOW_COLONS))
    assert not [f for f in found if f.rule.startswith("YML")], found
    assert errors(found) == []


def test_nested_flow_collection_is_one_finding_per_cause(tmp_path: Path) -> None:
    found = run(tmp_path, skill("pdf", FLOW_COLONS), "agentskills")
    strict = [(f.line, f.message.split(":")[0]) for f in found if f.rule == "SKL007"]
    assert strict == [(4, "$.allowed-tools"), (7, "$.x-tags"), (8, "$.x-urls"), (9, "$.x-map")]


def test_bad_name_is_one_finding(tmp_path: Path) -> None:
    found = run(tmp_path, skill("pdf", "---\nname: -PDF_x\ndescription: d\n---\n"), "agentskills")
    (only,) = [f for f in found if f.rule == "SKL003"]
    assert "lowercase" in only.message and "hyphen" in only.message


def test_metadata_hint_leaves_the_choice(tmp_path: Path) -> None:
    body = "---\nname: pdf\ndescription: d\nmetadata:\n  internal: true\n  oc: {a: 1}\n---\n"
    found = [f for f in run(tmp_path, skill("pdf", body)) if f.rule == "SKL010"]
    assert len(found) == 2 and all(f.severity is Severity.WARNING for f in found)
    assert not [f for f in found if "quote" in f.message or "write the spec" in f.message]
