"""Issue 15 item 2: secrets in agent-tool configuration are looked for by default (the policy's
``boundary.secrets: contract``), at error level, and the same file with the value referenced
by name (the clean twin) passes.

The shapes follow each tool's own configuration: Continue `config.json`/`config.yaml`
(`models[].apiKey`, continuedev/continue docs), Codex `auth.json` (`OPENAI_API_KEY`, `tokens`:
openai/codex `codex-rs/login`), Claude Code `.claude.json` (`primaryApiKey`, `mcpServers`) and
`.claude/settings.json` (`env`), the MCP server lists of `.mcp.json`, `.cursor/mcp.json`,
`.vscode/mcp.json` (`servers`), `.gemini/settings.json` (google-gemini/gemini-cli
`mcpServers[].env`) and `opencode.json` (`mcp[].environment`, `provider[].options.apiKey`).
Token-shaped values are made at test time (tests/boundary/helpers.token)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apc_tools.findings import Severity
from tests.boundary.helpers import findings, repo, token

ANT = token("sk-ant-api03-", 80, seed=3)
GHP = token("ghp_", 36, seed=4)
LITERAL = "BSAq8Zr2Lm7Tx4Kp9Wv3"  # a Brave-style key: no known prefix, judged by its name


def _mcp(container: str, env_key: str, value: str, env: str = "env") -> str:
    server = {"command": "npx", "args": ["-y", "@brave/brave-search-mcp-server"], env: {}}
    server[env] = {env_key: value}
    return json.dumps({container: {"brave": server}}, indent=2)


def configs(secret: bool) -> dict[str, str]:
    ant = ANT if secret else "${env:ANTHROPIC_API_KEY}"
    ghp = GHP if secret else "${env:GITHUB_TOKEN}"
    literal = LITERAL if secret else "${BRAVE_API_KEY}"
    model = {"title": "Claude", "provider": "anthropic", "model": "claude-sonnet-4-5"}
    return {
        ".continue/config.json": json.dumps({"models": [{**model, "apiKey": ant}]}, indent=2),
        ".continue/config.yaml": (
            "name: team\nversion: 1.0.0\nmodels:\n  - name: Claude\n    provider: anthropic\n"
            f"    model: claude-sonnet-4-5\n    apiKey: {ant}\n"
        ),
        ".mcp.json": _mcp("mcpServers", "BRAVE_API_KEY", literal),
        ".cursor/mcp.json": _mcp("mcpServers", "GITHUB_PERSONAL_ACCESS_TOKEN", ghp),
        ".vscode/mcp.json": _mcp("servers", "BRAVE_API_KEY", literal),
        ".gemini/settings.json": _mcp("mcpServers", "BRAVE_API_KEY", literal),
        "opencode.json": _mcp("mcp", "BRAVE_API_KEY", literal, env="environment").replace(
            "{", '{\n  "$schema": "https://opencode.ai/config.json",', 1
        ),
        ".claude/settings.json": json.dumps({"env": {"ANTHROPIC_API_KEY": ant}}, indent=2),
        ".claude/settings.team.json": json.dumps({"env": {"BRAVE_API_KEY": literal}}),
    }


@pytest.mark.parametrize("path", sorted(configs(True)))
def test_a_secret_in_agent_config_is_an_error_by_default(tmp_path: Path, path: str) -> None:
    root = repo(tmp_path, {path: configs(True)[path]})
    found = [f for f in findings(root) if f.rule == "BSC001"]
    assert found and all(f.severity is Severity.ERROR for f in found), path
    assert "agent configuration" in found[0].message
    assert ANT not in found[0].message and LITERAL not in found[0].message
    line = configs(True)[path].splitlines()[found[0].line - 1]
    assert ANT in line or GHP in line or LITERAL in line


@pytest.mark.parametrize("path", sorted(configs(False)))
def test_the_same_config_with_references_passes(tmp_path: Path, path: str) -> None:
    assert findings(repo(tmp_path, {path: configs(False)[path]})) == []


def test_the_same_literal_in_an_ordinary_file_is_not_scanned_by_default(tmp_path: Path) -> None:
    """The scoping: only agent configuration (and contract files) are scanned by default."""
    text = configs(True)[".mcp.json"]
    root = repo(tmp_path, {"docs/example-mcp.json": text})
    assert findings(root) == []
    assert "BSC001" in {f.rule for f in findings(root, secrets="all")}


def test_codex_auth_and_claude_state_are_runtime_paths_with_secrets(tmp_path: Path) -> None:
    jwt = "eyJhbGciOiJSUzI1NiJ9." + token("eyJ", 40, seed=5) + "." + token("", 43, seed=6)
    auth = {
        "OPENAI_API_KEY": None,
        "tokens": {"id_token": jwt, "access_token": jwt, "account_id": "acc-1"},
        "last_refresh": "2026-01-01T00:00:00Z",
    }
    state = {
        "numStartups": 12,
        "primaryApiKey": ANT,
        "oauthAccount": {"accountUuid": "u-1", "emailAddress": "dev@example.com"},
        "mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": GHP}}},
    }
    files = {".codex/auth.json": json.dumps(auth), ".claude.json": json.dumps(state, indent=2)}
    found = findings(repo(tmp_path, files))
    for path in files:
        rules = {f.rule for f in found if f.path == path and f.severity is Severity.ERROR}
        assert {"BPA002", "BSC001"} <= rules, (path, found)
