"""The agent tools' settings and MCP files (issue 31 point 5): Claude Code's settings, `.mcp.json`,
Cursor's and VS Code's `mcp.json`, Codex's `.codex/config.toml`, judged on real files on disk."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.contract.checks.claude_settings import rule_fault
from apc_tools.contract.project import classify
from apc_tools.contract.validate import validate
from apc_tools.core.parse import Pos, load_json, strip_jsonc
from apc_tools.findings import Finding


def _run(root: Path, files: dict[str, str]) -> list[Finding]:
    for rel, text in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, "utf-8")
    return list(validate([], cwd=root).findings)


def _rules(findings: list[Finding], path: str) -> list[str]:
    return sorted(f.rule for f in findings if f.path == path)


@pytest.mark.parametrize(
    ("rel", "kind"),
    [
        (".claude/settings.json", "claude-settings"),
        (".claude/settings.local.json", "claude-settings"),
        ("sub/.claude/settings.json", "claude-settings"),
        (".mcp.json", "claude-mcp"),
        ("plugins/x/.mcp.json", "claude-mcp"),
        (".cursor/mcp.json", "cursor-mcp"),
        (".vscode/mcp.json", "vscode-mcp"),
        (".codex/config.toml", "codex-config"),
        ("settings.json", None),
        ("mcp.json", None),
        (".vscode/settings.json", None),
        ("config.toml", None),
        (".claude/mcp.json", None),
    ],
)
def test_kinds(rel: str, kind: str | None) -> None:
    assert classify(rel) == kind


# Claude Code 2.1.332's verdict on each rule (its debug log: "Invalid permission rule ... was
# skipped: ..."), observed with tests/conformance against the loopback mock.
SKIPPED = [
    ("deny", ""),
    ("deny", "Bash(npm run test"),
    ("deny", "Bash()"),
    ("deny", "mcp__srv__tool(x)"),
    ("deny", "bash(ls)"),
    ("deny", "Bash(:*)"),
    ("deny", "Read(src:*)"),
    ("deny", "Edit(src:*)"),
    ("deny", "Bash(npm:*)x"),
    ("deny", "WebFetch(example.com)"),
    ("ask", "ask bad("),
    ("allow", "*"),
    ("allow", "mcp__*"),
]
LOADED = [
    ("deny", "(foo)"),
    ("deny", "Bash(npm run test:*)"),
    ("deny", "Read(./secrets/**)"),
    ("deny", "WebFetch(domain:example.com)"),
    ("deny", "mcp__srv__tool"),
    ("deny", "mcp__srv__*"),
    ("deny", "Bash(git * status)"),
    ("deny", "Fooble"),
    ("deny", "Bash(echo \\( x)"),
    ("deny", "Bash(a)(b)"),
    ("deny", "Read(**/*.ts)"),
    ("deny", "Bash (ls)"),
    ("deny", "*"),
    ("ask", "Bash(rm:*)"),
    ("allow", "Bash(*)"),
    ("allow", "Bash"),
    ("allow", "mcp__srv__*"),
    ("allow", "Read(*)"),
]


@pytest.mark.parametrize(("kind", "rule"), SKIPPED)
def test_rules_claude_code_skips(kind: str, rule: str) -> None:
    assert rule_fault(rule, kind)


@pytest.mark.parametrize(("kind", "rule"), LOADED)
def test_rules_claude_code_loads(kind: str, rule: str) -> None:
    assert rule_fault(rule, kind) is None


def test_settings_file_ignored_whole_and_rules_skipped(tmp_path: Path) -> None:
    settings = {
        "permissions": {"deny": ["bash(rm:*)", "Read(./.env)", 5], "defaultMode": "plan"},
        "cleanupPeriodDays": "30",
        "permission": {},
        "myNote": "a key Claude Code keeps and ignores",
    }
    found = _run(tmp_path, {".claude/settings.json": json.dumps(settings, indent=1)})
    on = [f for f in found if f.path == ".claude/settings.json"]
    assert _rules(found, ".claude/settings.json") == ["CST001", "CST002", "CST002", "CST003"]
    wrong = next(f for f in on if f.rule == "CST001")
    assert wrong.line == 10 and "ignores the whole of settings.json" in wrong.message
    assert next(f for f in on if f.rule == "CST003").message.startswith("permission:")


def test_mcp_json_servers(tmp_path: Path) -> None:
    servers = {
        "remote": {"url": "https://mcp.example.com/mcp"},
        "typed": {"type": "http", "url": "https://mcp.example.com/mcp"},
        "env": {"command": "npx", "env": {"DEBUG": 1}},
        "off": {"command": "npx", "disabled": True},
        "fine": {"command": "npx", "args": ["-y", "x"], "cwd": ".", "timeout": 5},
    }
    found = _run(tmp_path, {".mcp.json": json.dumps({"mcpServers": servers}, indent=1)})
    messages = {f.message.split(":")[0]: f.rule for f in found if f.path == ".mcp.json"}
    assert messages == {
        "mcpServers.remote.url": "MCF001",
        "mcpServers.env.env": "MCF001",
        "mcpServers.off": "MCF003",
    }


def test_plugin_mcp_json_may_be_the_server_map(tmp_path: Path) -> None:
    bare = json.dumps({"fs": {"command": "npx", "args": ["-y", "server-fs"]}})
    found = _run(tmp_path, {"plugins/tools/.mcp.json": bare, ".mcp.json": bare})
    assert _rules(found, "plugins/tools/.mcp.json") == []
    assert _rules(found, ".mcp.json") == ["MCF002"]


def test_an_empty_mcp_object_names_no_server(tmp_path: Path) -> None:
    # seen in PsychQuant/psychquant-claude-plugins: plugins/*/.mcp.json is `{}`; nothing is lost
    files = {
        ".mcp.json": "{}\n",
        "plugins/guide/.mcp.json": "{}",
        ".cursor/mcp.json": "{ }",
        ".vscode/mcp.json": "{}",
    }
    found = _run(tmp_path, files)
    assert [f for f in found if f.path in files] == []
    # an object with keys but no server map is still the finding it was
    found = _run(tmp_path, {".mcp.json": '{"servers": {}}'})
    assert _rules(found, ".mcp.json") == ["MCF002"]


def test_vscode_reads_json_with_comments(tmp_path: Path) -> None:
    text = (
        '{\n  // a comment\n  "servers": {\n    "fs": {"command": "npx"}, /* no type */\n  },\n}\n'
    )
    found = _run(tmp_path, {".vscode/mcp.json": text})
    assert [(f.rule, f.severity.value, f.line) for f in found] == [("MCF004", "warning", 4)]
    # the same text in Claude Code's strict-JSON .mcp.json is a syntax error
    found = _run(tmp_path, {".mcp.json": text.replace('"servers"', '"mcpServers"')})
    assert _rules(found, ".mcp.json") == ["JSN001"]


def test_strip_jsonc_keeps_every_offset() -> None:
    text = '{"a": "x // not a comment", /* c\n */ "b": [1, 2,], // end\n}'
    bare = strip_jsonc(text)
    assert len(bare) == len(text) and bare.count("\n") == text.count("\n")
    meta = load_json(bare)
    assert meta.data == {"a": "x // not a comment", "b": [1, 2]}
    assert meta.at(("b",)) == Pos(2, 10)  # the `[` of line 2 in the text as written


def test_codex_config_lines(tmp_path: Path) -> None:
    toml = (
        'model = "gpt-5.5"\n'
        "\n"
        "[mcp_servers.docs]\n"
        'command = "npx"\n'
        'args = "-y docs"\n'
        "\n"
        "[mcp_servers.web]\n"
        'url = "https://mcp.example.com/mcp"\n'
        'command = "npx"\n'
        "\n"
        "[mcpServers.old]\n"
        'command = "npx"\n'
    )
    found = _run(tmp_path, {".codex/config.toml": toml})
    assert sorted((f.rule, f.line) for f in found) == [
        ("CDX003", 5),
        ("CDX003", 7),
        ("CDX004", 11),
    ]


def test_codex_config_syntax_position(tmp_path: Path) -> None:
    found = _run(tmp_path, {".codex/config.toml": 'model = "x"\n[mcp_servers.docs\n'})
    assert [(f.rule, f.line) for f in found] == [("CDX001", 2)]


def test_a_secret_is_one_finding(tmp_path: Path) -> None:
    """SEC001 for `apc validate`, and `apc check` keeps it alone (the gate's BSC001 twin is
    dropped): one cause, one finding."""
    token = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5"
    server = {"command": "gh-mcp", "env": {"GITHUB_TOKEN": token}}
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"gh": server}}), "utf-8")
    git = ["git", "-C", str(tmp_path), "-c", "user.email=a@b", "-c", "user.name=a"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "check", "--no-cache", "--format", "json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    report = json.loads(done.stdout)
    assert [f["rule"] for f in report["findings"]] == ["SEC001"]
    assert token not in done.stdout


def test_an_editor_file_that_is_not_json_is_a_warning(tmp_path: Path) -> None:
    """VS Code's parser is error-tolerant and neither editor runs here: MCF004, not JSN001."""
    text = (
        '{\n  "servers": {\n    "docs": {"type": "http", "url": "http://localhost:3001/mcp"}\n  }\n'
    )
    found = _run(tmp_path, {".vscode/mcp.json": text, ".cursor/mcp.json": "{"})
    assert sorted((f.path, f.rule, f.severity.value) for f in found) == [
        (".cursor/mcp.json", "MCF004", "warning"),
        (".vscode/mcp.json", "MCF004", "warning"),
    ]
