"""The root AGENTS.md that Claude Code reads as project memory.

Claude Code 2.1.332 reads the project's root ``AGENTS.md`` in place of a ``CLAUDE.md`` when the
project has none (no ``CLAUDE.md``, ``.claude/CLAUDE.md`` or ``CLAUDE.local.md``: any of them
and it reads that instead); it follows the file's ``@path`` imports and sends it whole, as it
does a CLAUDE.md. 2.1.197 does not read AGENTS.md at all (the conformance suite checks both).
There Claude Code's import and size rules apply to the AGENTS.md too (INS001, INS005), their
message saying why; the AGENTS.md checks (Codex's reading) stay as they are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace

from apc_tools.contract.checks import instructions
from apc_tools.contract.checks.agents_md import exists
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Rule

# Claude Code's own memory files at the project root: one of them present, AGENTS.md is not read
CLAUDE_MEMORY = ("CLAUDE.md", ".claude/CLAUDE.md", "CLAUDE.local.md")
WHY = (
    "Claude Code 2.1.332 reads this AGENTS.md as project memory, the project having no "
    "CLAUDE.md (2.1.197 does not read it)"
)


def read_as_memory(doc: Doc, project: Project) -> bool:
    """Claude Code 2.1.332 reads ``doc`` (an AGENTS.md) as the project's memory."""
    return doc.rel == "AGENTS.md" and not any(exists(project, rel) for rel in CLAUDE_MEMORY)


def check_claude_memory(doc: Doc, project: Project) -> Iterator[Finding]:
    if not read_as_memory(doc, project):
        return
    found = (
        *instructions.check_imports(doc, project),
        *instructions.size_findings(doc, "claude-md"),
    )
    for finding in found:
        yield replace(finding, message=f"{WHY}: {finding.message}")


RULES: tuple[Rule, ...] = ()  # INS001 and INS005 (instructions), applied to one more file
CHECKS: Mapping[str, tuple[Callable[[Doc, Project], Iterable[Finding]], ...]] = {
    "agents-md": (check_claude_memory,)
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
