"""Codex's project configuration: ``.codex/config.toml``.

What Codex 0.171.0 does with a faulty file (observed against the loopback mock with the project
trusted, tests/conformance): TOML that does not parse, a known key with a value of the wrong type
or an unknown enum value (`model = 5`, `approval_policy = "sometimes"`), and an `mcp_servers`
entry it cannot read (neither `command` nor `url`, both, `args` that is not a list, `env` values
that are not strings) make it **refuse to start** (`Error: ...config.toml:LINE:COL: ...`, exit
1): an error (CDX001, CDX002, CDX003). It ignores a key it does not know, so servers under
`[mcpServers.NAME]` (the JSON files' spelling) never load (CDX004, an error), and an unknown key
that resembles a known one is a warning (CDX005).

The key types are those of Codex's config schema (codex-rs/core/config.schema.json, the
`ConfigToml` and `RawMcpServerConfig` definitions). Secrets are SEC001's (and the gate's).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from apc_tools.contract.checks.claude_settings import type_fault, type_name
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Rule, Severity, rule_family

FAMILY = "codex-config"
KIND = "codex-config"
_rule = rule_family(FAMILY)

_REFUSES = "Codex refuses to start (exit 1) while this file is in the project"

TOML_SYNTAX = _rule(
    "CDX001",
    "codex-config-toml",
    Severity.ERROR,
    "`.codex/config.toml` is not valid TOML: Codex refuses to start.",
    "Codex parses the project's `.codex/config.toml` at start-up (in a trusted project) and "
    "stops with `Error parsing project config file` when it is not TOML. Fix the syntax at the "
    "line the message names.",
    '.codex/config.toml:\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]',
    '.codex/config.toml:\n[mcp_servers.docs\ncommand = "npx"',
)
WRONG_TYPE = _rule(
    "CDX002",
    "codex-config-type",
    Severity.ERROR,
    "A `.codex/config.toml` key with a value of the wrong type: Codex refuses to start.",
    "Codex deserialises its configuration strictly: a known key whose value has another type or "
    'is not one of the allowed values (`model = 5`, `approval_policy = "sometimes"`) stops it '
    "with `invalid type` or `unknown variant`.",
    '.codex/config.toml:\nmodel = "gpt-5.5"\napproval_policy = "on-request"',
    '.codex/config.toml:\nmodel = 5\napproval_policy = "sometimes"',
)
BAD_SERVER = _rule(
    "CDX003",
    "codex-mcp-server",
    Severity.ERROR,
    "An `mcp_servers` entry Codex cannot read: Codex refuses to start.",
    "Each `[mcp_servers.NAME]` table has `command` (a local server: `args` a list of strings, "
    "`env` a table of strings) or `url` (a streamable HTTP server: `http_headers`, "
    "`bearer_token_env_var`), never both and never neither; a value of the wrong type stops "
    "Codex with `invalid transport` or `invalid type`.",
    '.codex/config.toml:\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]',
    '.codex/config.toml:\n[mcp_servers.docs]\nargs = ["-y", "docs-mcp"]',
)
WRONG_TABLE = _rule(
    "CDX004",
    "codex-mcp-servers-key",
    Severity.ERROR,
    "MCP servers under a key Codex does not read (`mcpServers`): they never load.",
    "Codex reads MCP servers from `[mcp_servers.NAME]` tables only and ignores other keys "
    "without a word, so servers under `[mcpServers.NAME]` (the JSON files' spelling) or "
    "`[mcp-servers.NAME]` are never started.",
    '.codex/config.toml:\n[mcp_servers.docs]\ncommand = "npx"',
    '.codex/config.toml:\n[mcpServers.docs]\ncommand = "npx"',
)
UNKNOWN_KEY = _rule(
    "CDX005",
    "codex-config-unknown-key",
    Severity.WARNING,
    "A `.codex/config.toml` key Codex does not know (it looks like a misspelt one): ignored.",
    "Codex ignores a top-level key it does not know, so the setting has no effect. The message "
    "names the known key it resembles.",
    '.codex/config.toml:\nmodel_reasoning_effort = "high"',
    '.codex/config.toml:\nmodel_reasoning_efort = "high"',
)

RULES = (TOML_SYNTAX, WRONG_TYPE, BAD_SERVER, WRONG_TABLE, UNKNOWN_KEY)

_EFFORT = ("none", "minimal", "low", "medium", "high", "xhigh")
# ConfigToml's top-level keys and their types (None: not checked: a nested table, a union)
CONFIG_TYPES: dict[str, object] = {
    **dict.fromkeys(
        (
            "agents", "analytics", "apps", "audio", "auto_review", "debug", "desktop", "features",
            "feedback", "history", "hooks", "marketplaces", "memories", "model_providers",
            "notice", "otel", "permissions", "plugins", "profiles", "projects", "realtime",
            "sandbox_workspace_write", "shell_environment_policy", "skills", "tool_suggest",
            "tools", "tui", "windows", "mcp_servers",
        ),
        "object",
    ),
    **dict.fromkeys(
        (
            "apps_mcp_product_sku", "chatgpt_base_url", "compact_prompt", "default_permissions",
            "developer_instructions", "experimental_compact_prompt_file",
            "experimental_realtime_start_instructions", "experimental_realtime_ws_backend_prompt",
            "experimental_realtime_ws_base_url", "experimental_realtime_ws_model",
            "experimental_realtime_ws_startup_context", "experimental_thread_config_endpoint",
            "instructions", "log_dir", "mcp_oauth_callback_url", "model", "model_catalog_json",
            "model_instructions_file", "model_provider", "openai_base_url", "oss_provider",
            "profile", "review_model", "service_tier", "sqlite_home",
        ),
        "string",
    ),
    **dict.fromkeys(
        (
            "allow_login_shell", "check_for_update_on_startup", "disable_paste_burst",
            "experimental_use_unified_exec_tool", "hide_agent_reasoning",
            "include_apps_instructions", "include_collaboration_mode_instructions",
            "include_environment_context", "include_permissions_instructions",
            "model_supports_reasoning_summaries", "show_raw_agent_reasoning",
            "suppress_unstable_features_warning",
        ),
        "boolean",
    ),
    **dict.fromkeys(
        (
            "background_terminal_max_timeout", "mcp_oauth_callback_port",
            "model_auto_compact_token_limit", "model_context_window", "project_doc_max_bytes",
            "tool_output_token_limit",
        ),
        "integer",
    ),
    **dict.fromkeys(("notify", "project_doc_fallback_filenames", "project_root_markers"), "array"),
    "approval_policy": None,  # a string of AskForApproval, or a {granular = ...} table
    "approvals_reviewer": ("user", "auto_review", "guardian_subagent"),
    "cli_auth_credentials_store": ("file", "keyring", "auto", "ephemeral"),
    "mcp_oauth_credentials_store": ("auto", "file", "keyring"),
    "model_reasoning_effort": _EFFORT,
    "plan_mode_reasoning_effort": _EFFORT,
    "model_reasoning_summary": ("auto", "concise", "detailed", "none"),
    "model_verbosity": ("low", "medium", "high"),
    "model_auto_compact_token_limit_scope": ("total", "body_after_prefix"),
    "personality": ("none", "friendly", "pragmatic"),
    "sandbox_mode": ("read-only", "workspace-write", "danger-full-access"),
    "web_search": ("disabled", "cached", "live"),
    "file_opener": ("vscode", "vscode-insiders", "windsurf", "cursor", "none"),
    "forced_chatgpt_workspace_id": None,
    "forced_login_method": None,
    "ghost_snapshot": None,
    "experimental_thread_store": None,
}  # fmt: skip
APPROVAL_POLICIES = ("untrusted", "on-failure", "on-request", "never")
# RawMcpServerConfig's keys and their types
SERVER_TYPES: dict[str, object] = {
    **dict.fromkeys(
        (
            "command", "url", "cwd", "bearer_token_env_var", "environment_id", "name",
            "oauth_resource",
        ),
        "string",
    ),
    **dict.fromkeys(("args", "disabled_tools", "enabled_tools", "scopes", "env_vars"), "array"),
    **dict.fromkeys(("env", "env_http_headers", "http_headers"), "strings"),
    **dict.fromkeys(("enabled", "required", "supports_parallel_tool_calls"), "boolean"),
    **dict.fromkeys(("startup_timeout_sec", "tool_timeout_sec"), "number"),
    "startup_timeout_ms": "integer",
    "default_tools_approval_mode": ("auto", "prompt", "approve"),
    "oauth": "object",
    "tools": "object",
}  # fmt: skip
STDIO_ONLY = ("args", "env")
HTTP_ONLY = ("http_headers", "env_http_headers", "bearer_token_env_var")
WRONG_SERVER_KEYS = ("mcpServers", "mcp-servers", "mcpservers", "mcp_server")
_DECODE_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def load(doc: Doc) -> dict[str, object] | None:
    """The decoded TOML of ``doc``, or None when it does not parse (CDX001 says why)."""
    import tomllib  # only where a .codex/config.toml is checked (a run without one never loads it)

    try:
        return tomllib.loads(doc.text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def _line_of(text: str, path: tuple[str, ...]) -> int:
    """The line that defines ``path`` (``[a.b]`` header, ``a.b =`` or ``b =`` after its table),
    found by a scan of the text (tomllib keeps no positions); 1 when not found."""
    quoted = [re.escape(p) for p in path]
    parts = [rf'(?:{q}|"{q}"|\'{q}\')' for q in quoted]
    for cut in range(len(path), 0, -1):
        end = r"\s*[\].]" if cut == len(path) else r"\s*\]"
        header = re.compile(r"^[ \t]*\[\[?[ \t]*" + r"\s*\.\s*".join(parts[:cut]) + end, re.M)
        found = header.search(text)
        if found:
            if cut == len(path):
                return text.count("\n", 0, found.start()) + 1
            rest = r"\s*\.\s*".join(parts[cut:])
            key = re.compile(r"^[ \t]*" + rest + r"\s*=", re.M).search(text, found.end())
            start = key.start() if key else found.start()
            return text.count("\n", 0, start) + 1
    key = re.compile(r"^[ \t]*" + r"\s*\.\s*".join(parts) + r"\s*=", re.M).search(text)
    return text.count("\n", 0, key.start()) + 1 if key else 1


def _at(rule: Rule, doc: Doc, path: tuple[str, ...], message: str) -> Finding:
    return rule.finding(doc.path, message, _line_of(doc.text, path), 1)


def check_syntax(doc: Doc, project: Project) -> Iterator[Finding]:
    import tomllib

    try:
        tomllib.loads(doc.text)
    except tomllib.TOMLDecodeError as error:
        found = _DECODE_AT.search(str(error))
        line, column = (int(found.group(1)), int(found.group(2))) if found else (None, None)
        what = _DECODE_AT.sub("", str(error)).strip()
        yield TOML_SYNTAX.finding(doc.path, f"not TOML: {what}; {_REFUSES}", line, column)
    except RecursionError:
        yield TOML_SYNTAX.finding(doc.path, f"not TOML: nested too deeply; {_REFUSES}")


def _fault(value: object, wanted: object) -> str | None:
    if wanted == "strings":
        if not isinstance(value, dict):
            return f"is {type_name(value)}, not a table of strings"
        bad = next((k for k, v in value.items() if not isinstance(v, str)), None)
        return None if bad is None else f"value {bad} is {type_name(value[bad])}, not a string"
    if wanted == "array" and isinstance(value, list):
        return None
    return type_fault(value, wanted)


def check_keys(doc: Doc, project: Project) -> Iterator[Finding]:
    data = load(doc)
    if data is None:
        return
    for key, value in data.items():
        if key in WRONG_SERVER_KEYS and isinstance(value, dict):
            yield _at(
                WRONG_TABLE,
                doc,
                (key,),
                f"[{key}.*]: Codex reads MCP servers from [mcp_servers.NAME] only; these "
                f"{len(value)} server(s) never load",
            )
            continue
        if key not in CONFIG_TYPES:
            import difflib

            near = difflib.get_close_matches(key, CONFIG_TYPES, n=1, cutoff=0.85)
            if near:
                yield _at(
                    UNKNOWN_KEY,
                    doc,
                    (key,),
                    f"{key}: not a Codex setting (ignored); did you mean {near[0]}?",
                )
            continue
        if key == "approval_policy":
            fault = None
            if isinstance(value, str) and value not in APPROVAL_POLICIES:
                fault = f"is {value!r}; allowed: {', '.join(APPROVAL_POLICIES)} or a granular table"
            elif not isinstance(value, (str, dict)):
                fault = f"is {type_name(value)}, not a string"
        else:
            fault = _fault(value, CONFIG_TYPES[key])
        if fault:
            yield _at(WRONG_TYPE, doc, (key,), f"{key} {fault}; {_REFUSES}")
    servers = data.get("mcp_servers")
    if isinstance(servers, dict):
        for name, server in servers.items():
            for sub, fault in server_faults(server):
                path = ("mcp_servers", name, *sub)
                yield _at(BAD_SERVER, doc, path, f"{'.'.join(path)}: {fault}; {_REFUSES}")


def server_faults(server: object) -> Iterator[tuple[tuple[str, ...], str]]:
    if not isinstance(server, dict):
        yield (), f"is {type_name(server)}, not a table"
        return
    command, url = server.get("command"), server.get("url")
    if command is None and url is None:
        yield (), "neither `command` nor `url` (invalid transport)"
    elif command is not None and url is not None:
        yield (), "both `command` and `url` (url is not supported for stdio)"
    else:
        other = HTTP_ONLY if command is not None else STDIO_ONLY
        transport = "stdio" if command is not None else "streamable_http"
        for key in other:
            if key in server:
                yield (key,), f"{key} is not supported for {transport}"
    for key, value in server.items():
        fault = _fault(value, SERVER_TYPES.get(key))
        if fault:
            yield (key,), f"{key} {fault}"


CHECKS = {KIND: (check_syntax, check_keys)}
PROJECT_CHECKS = ()
