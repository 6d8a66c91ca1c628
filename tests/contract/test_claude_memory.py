"""The root AGENTS.md Claude Code 2.1.332 reads as project memory when there is no CLAUDE.md
(issue 31 point 2): its imports and size are judged as a CLAUDE.md's (INS001, INS005); a CLAUDE.md,
.claude/CLAUDE.md or CLAUDE.local.md beside it, and Claude Code reads that instead (observed with
the real CLI: tests/conformance, cases claude-agents-md-*)."""

from __future__ import annotations

from pathlib import Path

import pytest

from apc_tools.contract.validate import validate
from apc_tools.findings import Finding

IMPORTS = "# Notes\n\nThe release steps:\n\n@docs/release.md\n"
BIG = "# Notes\n\n" + "Keep the build green and the tests fast.\n" * 1000  # 41,009 characters


def run(root: Path, files: dict[str, str]) -> list[Finding]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return list(validate([], cwd=root).findings)


def claude_rules(found: list[Finding], path: str = "AGENTS.md") -> list[tuple[str, str, int]]:
    return [
        (f.rule, f.severity.value, f.line or 0)
        for f in found
        if f.path == path and f.rule in ("INS001", "INS005")
    ]


def test_a_missing_import_of_the_root_agents_md_is_an_error_when_there_is_no_claude_md(
    tmp_path: Path,
) -> None:
    found = run(tmp_path, {"AGENTS.md": IMPORTS})
    assert claude_rules(found) == [("INS001", "error", 5)]
    (message,) = [f.message for f in found if f.rule == "INS001"]
    assert "Claude Code 2.1.332 reads this AGENTS.md as project memory" in message
    assert "2.1.197 does not read it" in message and "docs/release.md" in message


def test_a_present_import_is_no_finding(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.md": IMPORTS, "docs/release.md": "Tag, then push.\n"})
    assert claude_rules(found) == []


def test_a_long_root_agents_md_gets_claude_codes_size_warning(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.md": BIG})
    assert [r[:2] for r in claude_rules(found)] == [("INS005", "warning")]
    assert {f.rule for f in found if f.path == "AGENTS.md"} >= {"AGM002", "INS005"}


@pytest.mark.parametrize("memory", ["CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md"])
def test_beside_claude_codes_own_memory_file_agents_md_is_not_read_by_it(
    tmp_path: Path, memory: str
) -> None:
    found = run(tmp_path, {"AGENTS.md": IMPORTS + BIG, memory: "# Notes\n\nRun the tests.\n"})
    assert claude_rules(found) == []


def test_a_nested_agents_md_is_not_claude_codes_project_memory(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.md": "# Notes\n", "sub/AGENTS.md": IMPORTS})
    assert claude_rules(found, "sub/AGENTS.md") == []
