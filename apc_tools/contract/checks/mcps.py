"""`.apc/mcps.json`: MCP server hints, committed, so without secrets or machine-local paths.

Shape: ``{"mcpServers": {NAME: {command, args[], env{}, url, headers{}, enabled|disabled}}}``.
Other keys that MCP clients add (``type``, ``cwd``, ``timeout``...) are left alone. Secrets are
looked for in ``env`` values, ``headers``, ``args`` and the ``url`` (userinfo, token-like query
parameters); ``${env:NAME}`` and ``${NAME}`` placeholders are the allowed way. Findings show the
JSON path and a redacted hint, never the value.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qsl, unquote, urlsplit

from apc_tools.contract.project import Doc, Project
from apc_tools.core import detect
from apc_tools.core.parse import Located, Pos
from apc_tools.core.schemas import SchemaError
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "mcps"

JsonPath = tuple[str | int, ...]


_rule = rule_family(FAMILY)


SHAPE = _rule(
    "MCP001",
    "mcps-shape",
    Severity.ERROR,
    'mcps.json does not have the shape {"mcpServers": {NAME: {command, args, env, url, '
    "headers, enabled}}}.",
    "`mcpServers` is an object of servers; each server is an object where `command` and `url` "
    "are strings, `args` a list of strings, `env` and `headers` objects of strings, `enabled` "
    "and `disabled` booleans. Other keys are left to the MCP client.",
    '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "."]}}}',
    '{"mcpServers": {"fs": {"command": "npx", "args": "-y server-filesystem"}}}',
)
NO_TRANSPORT = _rule(
    "MCP002",
    "mcps-server-no-command-or-url",
    Severity.ERROR,
    "An MCP server has neither `command` (stdio) nor `url` (HTTP/SSE).",
    "A client cannot start or reach a server without one of them. Add `command` (and `args`) "
    "for a local server, or `url` for a remote one.",
    '{"mcpServers": {"docs": {"url": "https://mcp.example.com/sse"}}}',
    '{"mcpServers": {"docs": {"enabled": true}}}',
)
SECRET = _rule(
    "MCP003",
    "mcps-literal-secret",
    Severity.ERROR,
    "mcps.json holds a literal-looking secret in `env`, `headers`, `args` or a URL.",
    "mcps.json is committed. Replace the value with a placeholder such as `${env:GITHUB_TOKEN}` "
    "and set the value in your environment (or in the git-ignored `.apc/mcps.local.json`); "
    "rotate the secret, since it is in the history now. Credentials in URLs "
    "(`https://user:pass@host`, `?api_key=...`) count too.",
    '{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}"}}}}',
    '{"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": '
    '"q8Zr2LxK9vTn4WbP7cYs"}}}}',
)
LOCAL_PATH = _rule(
    "MCP004",
    "mcps-local-path",
    Severity.WARNING,
    "mcps.json has a machine-local absolute path (/Users/<name>/, /home/<name>/, C:\\Users\\) "
    "in `command`, `args` or `env`.",
    "The path exists on one machine only. Use a command on PATH (`npx`, `uvx`), a path relative "
    "to the project (`.`), or a placeholder (`${env:HOME}`), and keep machine paths in "
    "`.apc/mcps.local.json`.",
    '{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "."]}}}',
    '{"mcpServers": {"fs": {"command": "/Users/ana/bin/fs-server"}}}',
)

RULES = (SHAPE, NO_TRANSPORT, SECRET, LOCAL_PATH)

_MAP_KEYS = ("env", "headers")
_QUERY_SECRET = re.compile(
    r"(?i)^(?:.*(?:api[_-]?key|apikey|token|secret|password|passwd|auth|credential|signature).*|"
    r"key|sig|code|pwd)$"
)
_NAME_VALUE = re.compile(r"^-{0,2}([A-Za-z_][A-Za-z0-9_.-]*)\s*[=:]\s*(.+)$", re.S)


def pos_of(meta: Located, path: JsonPath, *, key: bool = False) -> Pos:
    return (meta.key_at(path) if key else meta.at(path)) or Pos(1, 1)


def dotted(path: JsonPath) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def servers_of(
    doc: Doc, key: str = "mcpServers"
) -> Iterator[tuple[Located, str, dict[str, object]]]:
    """(document, name, server) of each server object under the top-level ``key``."""
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict):
        return
    servers = meta.data.get(key)
    if not isinstance(servers, dict):
        return
    for name, server in servers.items():
        if isinstance(server, dict):
            yield meta, name, server


# --------------------------------------------------------------------------- shape


def _schema_finding(doc: Doc, meta: Located, error: SchemaError) -> Finding:
    rule = NO_TRANSPORT if error.validator == "required" and error.key == "command" else SHAPE
    # a present key (its position), or the key naming the mapping that misses one
    present = error.key is not None and (*error.path, error.key) in meta.keys
    where = (*error.path, error.key) if present and error.key is not None else error.path
    pos = pos_of(meta, where, key=error.key is not None)
    if rule is NO_TRANSPORT:
        message = (
            f"{dotted(error.path)}: neither command nor url; add `command` (stdio server) or "
            "`url` (remote server)"
        )
    else:
        label = error.json_path.removeprefix("$").removeprefix(".") or "(top level)"
        message = f"{label}: {error.message}"
    return rule.finding(doc.path, message, pos.line, pos.column)


def check_schema(doc: Doc, project: Project) -> Iterator[Finding]:
    """Structure from the published schema (schemas/mcps.schema.json)."""
    from apc_tools.core.schemas import schema_errors

    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict):
        return
    for error in schema_errors("mcps", meta.data):
        yield _schema_finding(doc, meta, error)


# --------------------------------------------------------------------------- secrets


def _url_secret(url: str) -> str | None:
    """The detector that finds a credential in ``url`` (userinfo or query), or None."""
    bare = detect.strip_placeholders(url)
    found = detect.literal_secret("url", bare)
    if found:
        return found
    try:
        parts = urlsplit(bare)
        password, user = parts.password, parts.username
    except ValueError:
        return None
    if password and not detect.is_placeholder(unquote(password)):
        return "url-credentials"
    if user and detect.looks_random(unquote(user), min_length=16):
        return "url-credentials"
    for name, value in parse_qsl(parts.query, keep_blank_values=False):
        short = name.lower() in ("key", "sig", "code")
        long_enough = len(value) >= (16 if short else 8)
        if _QUERY_SECRET.match(name) and long_enough and not detect.is_placeholder(value):
            return "url-query-credential"
    return None


def _arg_secret(arg: str) -> str | None:
    found = _url_secret(arg) if "://" in arg else None
    found = found or detect.literal_secret("arg", arg)
    pair = _NAME_VALUE.match(arg)
    return found or (detect.literal_secret(pair.group(1), pair.group(2)) if pair else None)


def _arg_secrets(args: list[object]) -> Iterator[tuple[int, str]]:
    """(index, detector) of each argument that is or carries a secret (``--token VALUE`` too)."""
    found: dict[int, str] = {}
    for i, arg in enumerate(args):
        if not isinstance(arg, str):
            continue
        direct = _arg_secret(arg)
        if direct:
            found.setdefault(i, direct)
            continue
        following = args[i + 1] if i + 1 < len(args) else None
        if arg.startswith("-") and isinstance(following, str) and not following.startswith("-"):
            flagged = detect.literal_secret(arg.lstrip("-"), following)
            if flagged:
                found.setdefault(i + 1, flagged)
    yield from sorted(found.items())


def _secret_sites(server: dict[str, object]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    for key in _MAP_KEYS:
        table = server.get(key)
        if isinstance(table, dict):
            for name, value in table.items():
                found = isinstance(value, str) and detect.literal_secret(name, value)
                if found:
                    yield (key, name), found
    url = server.get("url")
    if isinstance(url, str):
        found_url = _url_secret(url)
        if found_url:
            yield ("url",), found_url
    args = server.get("args")
    if isinstance(args, list):
        for i, found_arg in _arg_secrets(args):
            yield ("args", i), found_arg


def _hint(value: object, detector: str) -> str:
    """What was found, with a redacted hint only for token formats (their prefix is public)."""
    shown = detect.hint(detector, value) if isinstance(value, str) else ""
    return detect.describe(detector) + (f', "{shown}"' if shown else "")


def check_secrets(doc: Doc, project: Project) -> Iterator[Finding]:
    for meta, name, server in servers_of(doc):
        for sub, detector in _secret_sites(server):
            path = ("mcpServers", name, *sub)
            pos = pos_of(meta, path)
            env_name = str(sub[-1]).upper() if sub[0] == "env" else "NAME"
            yield SECRET.finding(
                doc.path,
                f"{dotted(path)}: literal secret ({_hint(_value(server, sub), detector)}); "
                f'use a placeholder such as "${{env:{env_name}}}" and keep the value in your '
                "environment or .apc/mcps.local.json (and rotate it)",
                pos.line,
                pos.column,
            )


def _value(server: dict[str, object], sub: tuple[str | int, ...]) -> object:
    value: object = server
    for part in sub:
        if isinstance(value, dict) and isinstance(part, str):
            value = value.get(part)
        elif isinstance(value, list) and isinstance(part, int):
            value = value[part]
    return value


# --------------------------------------------------------------------------- local paths


def _path_sites(server: dict[str, object]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    command = server.get("command")
    if isinstance(command, str):
        yield ("command",), command
    args = server.get("args")
    if isinstance(args, list):
        for i, arg in enumerate(args):
            if isinstance(arg, str):
                yield ("args", i), arg
    env = server.get("env")
    if isinstance(env, dict):
        for key, value in env.items():
            if isinstance(value, str):
                yield ("env", key), value


def check_local_paths(doc: Doc, project: Project) -> Iterator[Finding]:
    for meta, name, server in servers_of(doc):
        for sub, value in _path_sites(server):
            hits = detect.find_local_paths(value)
            if not hits:
                continue
            path = ("mcpServers", name, *sub)
            pos = pos_of(meta, path)
            yield LOCAL_PATH.finding(
                doc.path,
                f"{dotted(path)}: {detect.describe(hits[0].detector)}; use a command on PATH, "
                "a project-relative path or ${env:HOME}, or move it to .apc/mcps.local.json",
                pos.line,
                pos.column,
            )


CHECKS = {"mcps": (check_schema, check_secrets, check_local_paths)}
PROJECT_CHECKS = ()
