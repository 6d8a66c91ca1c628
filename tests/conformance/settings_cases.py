# ruff: noqa: E501 (the trees are file contents, kept one file per line)
"""Conformance trees and cases for the agent tools' settings and MCP files (issue 31 point 5).

Claude Code settings: each tree's ``.claude/settings.json`` and ``.claude/settings.local.json``
deny one whole tool each (``Glob``, ``Grep``); a deny rule Claude Code applies removes the tool
from the request's tool list, so a tool still listed means the rule, or the whole file, was not
applied (``claude-deny``). MCP files: each server runs ``mcp_probe.py`` (one tool named after the
server), so its tool's name in the request body means the CLI started it (``claude-mcp``,
``codex-mcp``); Codex's project config also sets ``model``, which the request carries when the
file was read (``codex-model``), and Codex is run with ``--trust`` (project configuration is read
in trusted projects only). A Codex that refuses to start sends no request: skipped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.conformance.cases import Case, Tree

PROBE = (Path(__file__).resolve().parent / "mcp_probe.py").read_text("utf-8")
PROBE_MODEL = "gpt-probe-model"


def _deny(tool: str, **more: Any) -> str:
    permissions = {"deny": [tool], **more.pop("permissions", {})}
    return json.dumps({"permissions": permissions, **more}, indent=1)


def _server(tool: str, **more: Any) -> dict[str, Any]:
    return {"command": "python3", "args": ["mcp_probe.py", tool], **more}


def _mcp(servers: dict[str, Any], top: str = "mcpServers") -> dict[str, str]:
    return {
        "mcp_probe.py": PROBE,
        ".claude/settings.json": json.dumps({"enableAllProjectMcpServers": True}),
        ".mcp.json": json.dumps({top: servers}, indent=1),
    }


def _codex(toml: str) -> dict[str, str]:
    return {"mcp_probe.py": PROBE, ".codex/config.toml": toml}


def _toml_server(name: str, extra: str = "") -> str:
    return f'[mcp_servers.{name}]\ncommand = "python3"\nargs = ["mcp_probe.py", "{name}_tool"]\n{extra}'


TREES = (
    Tree(
        "claude-settings-types",
        "claude",
        {
            ".claude/settings.json": _deny(
                "Glob",
                permissions={"allow": ["Bash(npm run test:*)"], "ask": ["Read(./secrets/**)"]},
                includeCoAuthoredBy=False,
                spinnerTipsEnabeld=False,
            ),
            ".claude/settings.local.json": _deny("Grep", cleanupPeriodDays="30"),
        },
    ),
    Tree(
        "claude-settings-lists",
        "claude",
        {
            ".claude/settings.json": json.dumps({"permissions": {"deny": "Glob"}}),
            ".claude/settings.local.json": _deny("Grep", permissions={"defaultMode": "ask"}),
        },
    ),
    Tree(
        "claude-settings-json",
        "claude",
        {
            ".claude/settings.json": '{"permissions": {"deny": ["Glob"]},}\n',
            ".claude/settings.local.json": _deny("grep"),
        },
    ),
    Tree(
        "claude-settings-rules",
        "claude",
        {
            ".claude/settings.json": _deny("Glob()"),
            ".claude/settings.local.json": _deny("Grep(*.py"),
        },
    ),
    Tree(
        "claude-mcp-bad",
        "claude",
        _mcp(
            {
                "good": _server("good_tool"),
                "badenv": _server("badenv_tool", env={"DEBUG": 1}),
                "badtype": _server("badtype_tool", type="streamable-http"),
                "badargs": {"command": "python3", "args": "mcp_probe.py badargs_tool"},
                "off": _server("off_tool", disabled=True),
            }
        ),
    ),
    Tree(
        "claude-mcp-good",
        "claude",
        _mcp({"plain": _server("plain_tool"), "typed": _server("typed_tool", type="stdio")}),
    ),
    Tree("claude-mcp-servers", "claude", _mcp({"vs": _server("vs_tool")}, top="servers")),
    Tree(
        "codex-config-good",
        "codex",
        _codex(
            f'model = "{PROBE_MODEL}"\nhide_agent_reasoning = true\n\n'
            + _toml_server("good", 'enabled_tools = ["good_tool"]\n')
        ),
        args=("--trust",),
    ),
    Tree(
        "codex-config-toml",
        "codex",
        _codex(f'model = "{PROBE_MODEL}"\n[mcp_servers.good\ncommand = "python3"\n'),
        args=("--trust",),
        may_fail=True,
    ),
    Tree(
        "codex-config-type",
        "codex",
        _codex("model = 5\n\n" + _toml_server("good")),
        args=("--trust",),
        may_fail=True,
    ),
    Tree(
        "codex-config-server",
        "codex",
        _codex(
            f'model = "{PROBE_MODEL}"\n\n[mcp_servers.bad]\nargs = ["mcp_probe.py", "bad_tool"]\n'
        ),
        args=("--trust",),
        may_fail=True,
    ),
    Tree(
        "codex-config-camel",
        "codex",
        _codex(
            f'model = "{PROBE_MODEL}"\n\n[mcpServers.camel]\ncommand = "python3"\nargs = ["mcp_probe.py", "camel_tool"]\n'
        ),
        args=("--trust",),
    ),
)


def _settings(cid: str, tree: str, local: bool, tool: str, rules: tuple[str, ...] = ()) -> Case:
    name = "settings.local.json" if local else "settings.json"
    return Case(cid, "claude", tree, f".claude/{name}", "claude-deny", tool, {}, rules)


def _mcp_case(cid: str, tree: str, server: str, rules: tuple[str, ...] = (), **kw: Any) -> Case:
    return Case(
        cid,
        "claude",
        tree,
        ".mcp.json",
        "claude-mcp",
        f"mcp__{server}__{server}_tool",
        {},
        rules,
        **kw,
    )


CASES = (
    _settings("claude-settings-unknown-key", "claude-settings-types", False, "Glob"),
    _settings("claude-settings-wrong-type", "claude-settings-types", True, "Grep", ("CST001",)),
    _settings("claude-settings-deny-string", "claude-settings-lists", False, "Glob", ("CST001",)),
    _settings("claude-settings-bad-mode", "claude-settings-lists", True, "Grep", ("CST001",)),
    _settings("claude-settings-bad-json", "claude-settings-json", False, "Glob"),
    _settings("claude-settings-lowercase-rule", "claude-settings-json", True, "grep", ("CST002",)),
    _settings(
        "claude-settings-empty-parens", "claude-settings-rules", False, "Glob()", ("CST002",)
    ),
    _settings(
        "claude-settings-unclosed-rule", "claude-settings-rules", True, "Grep(*.py", ("CST002",)
    ),
    *(
        _mcp_case(f"claude-mcp-{server}", "claude-mcp-bad", server, rules, group="claude-mcp-bad")
        for server, rules in (
            ("good", ()),
            ("badenv", ("MCF001",)),
            ("badtype", ("MCF001",)),
            ("badargs", ("MCF001",)),
            ("off", ("MCF003",)),
        )
    ),
    _mcp_case("claude-mcp-plain", "claude-mcp-good", "plain"),
    _mcp_case("claude-mcp-typed", "claude-mcp-good", "typed"),
    _mcp_case("claude-mcp-servers-key", "claude-mcp-servers", "vs", ("MCF002",)),
    Case(
        "codex-config-good",
        "codex",
        "codex-config-good",
        ".codex/config.toml",
        "codex-model",
        PROBE_MODEL,
        group="codex-config-good",
    ),
    Case(
        "codex-config-good-server",
        "codex",
        "codex-config-good",
        ".codex/config.toml",
        "codex-mcp",
        "good",
        group="codex-config-good",
    ),
    Case(
        "codex-config-toml",
        "codex",
        "codex-config-toml",
        ".codex/config.toml",
        "codex-model",
        PROBE_MODEL,
        rules=("CDX001",),
    ),
    Case(
        "codex-config-type",
        "codex",
        "codex-config-type",
        ".codex/config.toml",
        "codex-mcp",
        "good",
        rules=("CDX002",),
    ),
    Case(
        "codex-config-server",
        "codex",
        "codex-config-server",
        ".codex/config.toml",
        "codex-model",
        PROBE_MODEL,
        rules=("CDX003",),
    ),
    Case(
        "codex-config-camel",
        "codex",
        "codex-config-camel",
        ".codex/config.toml",
        "codex-mcp",
        "camel",
        rules=("CDX004",),
    ),
)


def tool_names(body: dict[str, Any]) -> list[str]:
    return [
        str(t.get("name") or t.get("type")) for t in body.get("tools") or [] if isinstance(t, dict)
    ]


def observe(case: Case, body: dict[str, Any], text: str) -> dict[str, Any]:
    """What the main request shows of the case's file (``claude-deny``: is the denied tool still
    in the tool list; ``claude-mcp``/``codex-mcp``: did the server's tools reach the request;
    ``codex-model``: the model the request names)."""
    if case.observe == "claude-deny":
        tool = case.key.split("(")[0]
        tool = tool[:1].upper() + tool[1:]
        return {"tool_listed": tool in tool_names(body)}
    if case.observe == "claude-mcp":
        return {"listed": case.key in text}
    if case.observe == "codex-mcp":
        return {"listed": f"mcp__{case.key}" in text}
    return {"listed": True, "model": body.get("model")}


def verdict(case: Case, seen: dict[str, Any]) -> str:
    if seen.get("no_request"):
        return "skipped"
    if case.observe == "claude-deny":
        return "skipped" if seen["tool_listed"] else "as-written"
    if case.id == "claude-mcp-off":  # disabled: true, yet started
        return "misread" if seen["listed"] else "as-written"
    if case.observe == "codex-model":
        return "as-written" if seen.get("model") == case.key else "skipped"
    return "as-written" if seen.get("listed") else "skipped"


OBSERVES = frozenset({"claude-deny", "claude-mcp", "codex-mcp", "codex-model"})
