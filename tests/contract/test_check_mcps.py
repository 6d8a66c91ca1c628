"""mcps.json checks (MCP001-MCP004) through validate(): shape, transport, secrets, local paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apc_tools.findings import Finding
from tests.checks_base import run, where

M = ".apc/mcps.json"
RANDOM = "q8Zr2LxK9vTn4WbP7cYs"
TOKEN = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def _run(tmp_path: Path, servers: object) -> list[Finding]:
    text = json.dumps({"mcpServers": servers}, indent=2)
    return run(tmp_path, {M: text + "\n"})


def test_spec_example_is_clean(tmp_path: Path) -> None:
    servers = {
        "filesystem": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
            "enabled": True,
        },
        "brave": {
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-brave-search"],
            "env": {"BRAVE_API_KEY": "${env:BRAVE_API_KEY}"},
            "enabled": False,
        },
        "remote": {
            "url": "https://mcp.example.com/sse?region=eu",
            "headers": {"Authorization": "Bearer ${env:MCP_TOKEN}", "X-Trace": "on"},
            "disabled": False,
        },
    }
    assert _run(tmp_path, servers) == []


def test_shape_errors_point_at_values(tmp_path: Path) -> None:
    text = (
        '{"mcpServers": {\n'
        '  "a": {"command": "npx", "args": "-y server"},\n'
        '  "b": {"command": "npx", "env": {"N": 3}, "enabled": "yes"},\n'
        '  "c": 3\n'
        "}}\n"
    )
    found = run(tmp_path, {M: text})
    assert where(found, "MCP001") == [(M, 2, 35), (M, 3, 40), (M, 3, 55), (M, 4, 8)]
    assert found[0].message.startswith("mcpServers.a.args: ")


def test_missing_mcp_servers(tmp_path: Path) -> None:
    found = run(tmp_path, {M: '{"servers": {}}'})
    assert "MCP001" in {f.rule for f in found}


def test_server_without_command_or_url(tmp_path: Path) -> None:
    text = '{"mcpServers": {\n  "docs": {"enabled": true}\n}}'
    found = run(tmp_path, {M: text})
    assert [(f.rule, f.line, f.column) for f in found] == [("MCP002", 2, 3)]


@pytest.mark.parametrize(
    ("server", "sub"),
    [
        ({"command": "x", "env": {"API_KEY": RANDOM}}, "env.API_KEY"),
        ({"command": "x", "env": {"ANYTHING": TOKEN}}, "env.ANYTHING"),
        ({"url": "https://h.example/mcp", "headers": {"Authorization": f"Bearer {RANDOM}"}}, ""),
        ({"url": f"https://bot:{RANDOM}@h.example/mcp"}, "url"),
        ({"url": f"https://h.example/mcp?api_key={RANDOM}"}, "url"),
        ({"url": f"https://h.example/mcp?key={RANDOM}{RANDOM}"}, "url"),
        ({"command": "x", "args": ["--token", RANDOM]}, "args[1]"),
        ({"command": "x", "args": [f"--api-key={RANDOM}"]}, "args[0]"),
        ({"command": "docker", "args": ["run", "-e", f"GITHUB_TOKEN={TOKEN}"]}, "args[2]"),
    ],
)
def test_literal_secrets_are_errors_without_echo(tmp_path: Path, server: dict, sub: str) -> None:
    found = _run(tmp_path, {"s": server})
    secrets = [f for f in found if f.rule == "MCP003"]
    assert len(secrets) == 1, found
    assert secrets[0].severity.value == "error"
    assert RANDOM not in secrets[0].message and TOKEN not in secrets[0].message
    assert secrets[0].message.startswith(f"mcpServers.s.{sub}")


@pytest.mark.parametrize(
    "server",
    [
        {"command": "x", "env": {"API_KEY": "${env:API_KEY}"}},
        {"command": "x", "env": {"API_KEY": "${API_KEY}"}},
        {"command": "x", "env": {"PAIR": "${env:A}:${env:B}"}},
        {"command": "x", "env": {"API_KEY": "your-api-key-here"}},
        {"command": "x", "env": {"LOG_LEVEL": "debug-verbose"}},
        {"url": "https://h.example/mcp?api_key=${env:KEY}&page=2"},
        {"url": "https://h.example/mcp", "headers": {"X-Api-Key": "<YOUR_KEY>"}},
        {"command": "x", "args": ["--token", "${env:TOKEN}", "--port", "8080"]},
    ],
)
def test_placeholders_are_fine(tmp_path: Path, server: dict) -> None:
    assert _run(tmp_path, {"s": server}) == []


def test_secret_position_and_redacted_hint(tmp_path: Path) -> None:
    text = '{"mcpServers": {\n  "gh": {"command": "gh-mcp",\n    "env": {"T": "' + TOKEN + '"}}\n}}'
    found = run(tmp_path, {M: text})
    assert [(f.rule, f.line, f.column) for f in found] == [("MCP003", 3, 18)]
    assert '"ghp_…"' in found[0].message and "${env:T}" in found[0].message


def test_local_paths_are_warnings(tmp_path: Path) -> None:
    servers = {
        "fs": {
            "command": "/Users/ana/bin/fs-server",
            "args": ["--root", "/home/bob/src"],
            "env": {"DATA": "C:\\Users\\eve\\data"},
        }
    }
    found = _run(tmp_path, servers)
    assert [(f.rule, f.severity.value, f.line) for f in found] == [
        ("MCP004", "warning", 4),
        ("MCP004", "warning", 7),
        ("MCP004", "warning", 10),
    ]
    assert all("ana" not in f.message and "bob" not in f.message for f in found)
