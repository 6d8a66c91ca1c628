"""Secrets in every contract file that has no secret rule of its own.

AGENTS.md (AGM004), memory (MEM002), mcps.json (MCP003) and the instruction files of other tools
(INS003: CLAUDE.md, GEMINI.md, Copilot's) have their own rules with their own advice. Every other
kind (agents, ``.claude/agents``, commands, skills, rules, plans, ``project.json``,
``.apc/.gitignore``, and any kind added later) is scanned here with the same shared detectors
(:func:`apc_tools.core.detect.find_secrets`): these files are committed and read into prompts
just like AGENTS.md. The whole file is scanned, frontmatter included.
"""

from __future__ import annotations

from collections.abc import Iterator

from apc_tools.contract.checks._content import secret_findings
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "secrets"

# Kinds whose family reports secrets with a rule of its own.
OWN_RULE = frozenset(
    {
        "agents-md",
        "memory",
        "mcps",
        "claude-md",
        "gemini-md",
        "copilot-instructions",
        "copilot-scoped",
    }
)

_rule = rule_family(FAMILY)


SECRET = _rule(
    "SEC001",
    "contract-secret",
    Severity.ERROR,
    "A contract file (agent, skill, rule, plan, project.json...) contains something that looks "
    "like a live secret (API key, token, private key, password in a URL).",
    "Agent definitions, skills, rules and plans are committed and sent to models like AGENTS.md. "
    "Remove the secret, rotate it (it is in the history now), and refer to it by name "
    "(`$GITHUB_TOKEN`, `${env:API_KEY}`). Placeholders such as `<TOKEN>` or "
    "`your-api-key-here` are fine. The message shows at most the public prefix of a token.",
    "---\nname: deployer\ndescription: Deploys with the token in $DEPLOY_TOKEN\n---\n",
    '---\nname: deployer\ndescription: Deploys\napi_key: "sk-proj-" followed by 48 real '
    "characters\n---\n",
)

RULES = (SECRET,)


def check_secrets(project: Project) -> Iterator[Finding]:
    for doc in project.docs:
        yield from doc_secrets(doc)


def doc_secrets(doc: Doc) -> Iterator[Finding]:
    """SEC001 for each secret in ``doc`` (nothing for a kind with a secret rule of its own):
    the project check file by file, so that a file's findings can be computed alone."""
    if doc.kind not in OWN_RULE:
        yield from secret_findings(
            SECRET,
            doc,
            "remove it, rotate it, and refer to it by name (for example ${env:API_KEY})",
        )


CHECKS: dict[str, tuple[()]] = {}
PROJECT_CHECKS = (check_secrets,)
