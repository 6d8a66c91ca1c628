"""Leaks and clean projects for the integration tests, made at test time (token-shaped strings
are generated, never committed, so hosting push protection never sees one)."""

from __future__ import annotations

import json

from apc_tools.contract.scaffold import agents_md
from tests.boundary.helpers import CLAUDE, token

__all__ = ["CLAUDE_SESSION", "INVALID_AGENT", "MARKER", "PROJECT", "secret"]

MARKER = "[Request interrupted by user]"
CLAUDE_SESSION = CLAUDE  # a Claude Code session (reference §5.1 record shapes)


def secret() -> str:
    """A random-looking OpenAI API key, made at test time."""
    return token("sk-proj-", 48, seed=11)


PROJECT = {
    "AGENTS.md": agents_md("demo"),
    ".apc/project.json": json.dumps(
        {"name": "demo", "apc": "0.1.0", "version": "0.1.0", "created": "2026-05-08T00:00:00Z"}
    )
    + "\n",
    ".apc/.gitignore": "sessions/\nconversations/\nmessages/\nchats/\ncache/\ntmp/\nprivate/\n"
    "secrets/\n*.local.json\n*.secret.json\n*.env\n*.env.*\nmcps.local.json\n"
    "agents/*/sessions/\nagents/*/conversations/\n",
    ".apc/agents/dev.md": "---\nname: dev\nmodel: inherit\ndescription: Developer\n---\nBody\n",
    "src/app.py": "print('hi')\n",
}
INVALID_AGENT = "---\nname: Dev Agent\nmodel: inherit\n---\nno description, bad name\n"
