"""Curated memory: `.apc/agents/<slug>/memory.md` (the spec) and `.apc/memory.md` (APX).

Memory holds curated, team-safe facts only. The boundary rules apply with full force: no
secrets, no machine-local paths, no transcripts (chat dumps, role-tagged JSON, tool records,
interruption markers). A per-agent memory whose agent file does not exist is a warning.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from apc_tools.contract.checks._content import local_path_findings, secret_findings
from apc_tools.contract.project import Doc, Project
from apc_tools.core import detect
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "memory"


_rule = rule_family(FAMILY)


ORPHAN = _rule(
    "MEM001",
    "memory-orphan",
    Severity.WARNING,
    "A memory folder `.apc/agents/<slug>/` has no agent file `.apc/agents/<slug>.md`.",
    "Memory belongs to an agent. Create the agent definition, rename the folder to an existing "
    "agent's slug, or move shared facts to `.apc/memory.md`.",
    ".apc/agents/reviewer.md\n.apc/agents/reviewer/memory.md",
    ".apc/agents/reviewer/memory.md   (no .apc/agents/reviewer.md)",
)
SECRET = _rule(
    "MEM002",
    "memory-secret",
    Severity.ERROR,
    "Committed memory contains something that looks like a live secret.",
    "Memory is committed and read into prompts. Remove the secret, rotate it, and record only "
    "where it lives (`the deploy token is in the CI secret DEPLOY_TOKEN`).",
    "- The deploy token is stored in the CI secret DEPLOY_TOKEN.",
    '- Deploy with password = "Zq8xP2mL9vRt4kWn"',
)
LOCAL_PATH = _rule(
    "MEM003",
    "memory-local-path",
    Severity.WARNING,
    "Committed memory mentions a machine-local absolute path (/Users/<name>/, /home/<name>/, "
    "C:\\Users\\).",
    "Paths on one person's machine mean nothing to the team or to another agent. Use paths "
    "relative to the project root.",
    "- Fixtures live in tests/fixtures/.",
    "- Fixtures live in /Users/ana/src/app/tests/fixtures/.",
)
TRANSCRIPT = _rule(
    "MEM004",
    "memory-transcript",
    Severity.ERROR,
    "Committed memory contains transcript-like content (a chat dump, role-tagged messages, tool "
    "records or interruption markers).",
    "Memory holds curated facts only: raw session history and tool records are runtime state "
    "and stay on the machine that produced them. Replace the dump with the few durable facts it "
    "established.",
    "## Durable decisions\n- Refunds over USD 500 go to martin.",
    "User: can we refund this order?\nAssistant: Let me check the policy...",
)

RULES = (ORPHAN, SECRET, LOCAL_PATH, TRANSCRIPT)


def check_transcript(doc: Doc, project: Project) -> Iterator[Finding]:
    index: detect.LineIndex | None = None
    for what, offset, count in detect.find_transcript_evidence(doc.text):
        index = index or detect.LineIndex(doc.text)
        line, column = index.position(offset)
        more = f" ({count} occurrences)" if count > 1 else ""
        yield TRANSCRIPT.finding(
            doc.path,
            f"transcript-like content: {what}{more}; memory holds curated facts only: replace "
            "it with the durable facts it established",
            line,
            column,
        )


def check_secrets(doc: Doc, project: Project) -> Iterator[Finding]:
    return secret_findings(
        SECRET, doc, "remove it, rotate it, and note only where the secret is kept"
    )


def check_local_paths(doc: Doc, project: Project) -> Iterator[Finding]:
    return local_path_findings(LOCAL_PATH, doc, "use a path relative to the project root instead")


def agent_slug(rel: str) -> str | None:
    """The agent slug of a per-agent memory file (``.apc/agents/<slug>/memory.md``), else None."""
    parts = PurePosixPath(rel).parts
    if len(parts) >= 4 and parts[-4:-2] == (".apc", "agents") and parts[-1] == "memory.md":
        return parts[-2]
    return None


def check_owner(doc: Doc, project: Project) -> Iterator[Finding]:
    slug = agent_slug(doc.rel)
    if slug is None:
        return
    agent = str(PurePosixPath(doc.rel).parent.parent / f"{slug}.md")
    if agent not in project.files:
        yield ORPHAN.finding(
            doc.path,
            f"no agent file {agent} for this memory: create it, rename the folder to an existing "
            "agent's slug, or move shared facts to .apc/memory.md",
        )


CHECKS = {"memory": (check_owner, check_secrets, check_local_paths, check_transcript)}
PROJECT_CHECKS = ()
