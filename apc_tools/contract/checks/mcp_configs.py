"""The MCP server files agent tools read: ``.mcp.json`` (Claude Code), ``.cursor/mcp.json``
(Cursor) and ``.vscode/mcp.json`` (VS Code).

Claude Code (observed with 2.1.197 and 2.1.332 against the loopback mock, tests/conformance)
validates each server of ``.mcp.json`` alone and **drops the server** whose entry breaks its
schema (no `command` for a local server, a remote one without `type: "http"`/`"sse"`, a `type`
it does not know, `args` that is not a list of strings, `env` or `headers` values that are not
strings): the others load (MCF001, an error). A file without an `mcpServers` object (`servers`,
VS Code's key) loads no server (MCF002, an error). It starts a server marked `"disabled": true`
(MCF003, an error: the file says off, the server runs).

Cursor and VS Code cannot run here; their documented formats decide, at warning (MCF004):
Cursor's ``mcpServers`` of `command` (`args`, `env`) or `url` (`headers`)
(https://cursor.com/docs/mcp); VS Code's ``servers`` whose `type` is `stdio` (with `command`),
`http` or `sse` (with `url`), and ``inputs``
(https://code.visualstudio.com/docs/copilot/reference/mcp-configuration). VS Code reads its
file as JSON with comments (JSONC).

Secrets are SEC001's (and the gate's); nothing here reports a value.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from apc_tools.contract.checks.claude_settings import finding_at, type_name
from apc_tools.contract.checks.mcps import JsonPath, dotted, servers_of
from apc_tools.contract.project import Doc, Project
from apc_tools.core.parse import Problem
from apc_tools.findings import Finding, Rule, Severity, rule_family

FAMILY = "mcp-configs"
_rule = rule_family(FAMILY)


DROPPED = _rule(
    "MCF001",
    "claude-mcp-server-dropped",
    Severity.ERROR,
    "An `.mcp.json` server entry Claude Code cannot read: it drops that server.",
    "Claude Code reads each entry of `mcpServers` against its server schema: a local server "
    "has `command` (a non-empty string), `args` (a list of strings) and `env` (strings); a "
    'remote one has `type` `"http"`, `"sse"` or `"ws"` and `url` (and `headers`, strings). An '
    "entry that breaks it is dropped without a word (its tools never reach the agent) while the "
    'other servers load. A remote server needs its `type`: `{"type": "http", "url": ...}`.',
    '.mcp.json:\n{"mcpServers": {"docs": {"type": "http", "url": "https://mcp.example.com/mcp"}}}',
    '.mcp.json:\n{"mcpServers": {"docs": {"url": "https://mcp.example.com/mcp"}}}',
)
NO_SERVERS = _rule(
    "MCF002",
    "claude-mcp-no-servers",
    Severity.ERROR,
    "An `.mcp.json` without an `mcpServers` object: Claude Code loads no server from it.",
    "Claude Code reads the servers of `.mcp.json` from its top-level `mcpServers` object only "
    "(`servers` is VS Code's key, for `.vscode/mcp.json`).",
    '.mcp.json:\n{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "."]}}}',
    '.mcp.json:\n{"servers": {"fs": {"command": "npx", "args": ["-y", "server-fs", "."]}}}',
)
DISABLED = _rule(
    "MCF003",
    "claude-mcp-disabled-ignored",
    Severity.ERROR,
    'An `.mcp.json` server marked `"disabled": true`: Claude Code starts it anyway.',
    "`disabled` is a key of other MCP clients; Claude Code does not read it and connects to "
    "the server. To keep a project server off in Claude Code, list it in "
    "`disabledMcpjsonServers` of `.claude/settings.json` (or remove the entry).",
    '.claude/settings.json:\n{"disabledMcpjsonServers": ["browser"]}',
    '.mcp.json:\n{"mcpServers": {"browser": {"command": "npx", "args": ["browser-mcp"], '
    '"disabled": true}}}',
)
EDITOR_SHAPE = _rule(
    "MCF004",
    "editor-mcp-shape",
    Severity.WARNING,
    "A Cursor or VS Code MCP file whose shape its editor's documentation does not describe.",
    "`.cursor/mcp.json` holds `mcpServers`, each server with `command` (and `args`, `env`) or "
    "`url` (and `headers`); `.vscode/mcp.json` holds `servers` (and `inputs`), each server with "
    '`type` `"stdio"` and `command`, or `type` `"http"`/`"sse"` and `url`. apc cannot run '
    "either editor, so this is a warning from their documented formats.",
    '.vscode/mcp.json:\n{"servers": {"fs": {"type": "stdio", "command": "npx", '
    '"args": ["-y", "server-fs"]}}}',
    '.vscode/mcp.json:\n{"mcpServers": {"fs": {"command": "npx", "args": "-y server-fs"}}}',
)

RULES = (DROPPED, NO_SERVERS, DISABLED, EDITOR_SHAPE)

CLAUDE_REMOTE = frozenset({"http", "sse", "ws", "sse-ide", "ws-ide"})
VSCODE_TYPES = frozenset({"stdio", "http", "sse"})


@dataclass(frozen=True)
class Dialect:
    kind: str
    tool: str
    top: str  # the key holding the servers
    server_rule: Rule
    top_rule: Rule
    types: frozenset[str] | None  # the transports `type` may name (None: not checked)
    remote: frozenset[str]  # the types that take `url`
    type_required: bool = False


CLAUDE = Dialect(
    "claude-mcp", "Claude Code", "mcpServers", DROPPED, NO_SERVERS,
    frozenset({"stdio"}) | CLAUDE_REMOTE, CLAUDE_REMOTE,
)  # fmt: skip
CURSOR = Dialect(
    "cursor-mcp", "Cursor", "mcpServers", EDITOR_SHAPE, EDITOR_SHAPE, None, frozenset()
)
VSCODE = Dialect(
    "vscode-mcp", "VS Code", "servers", EDITOR_SHAPE, EDITOR_SHAPE, VSCODE_TYPES,
    frozenset({"http", "sse"}), type_required=True,
)  # fmt: skip
DIALECTS = {d.kind: d for d in (CLAUDE, CURSOR, VSCODE)}


def _strings(value: object, what: str) -> str | None:
    if not isinstance(value, list):
        return f"{what} is {type_name(value)}, not a list of strings"
    bad = next((i for i, item in enumerate(value) if not isinstance(item, str)), None)
    return None if bad is None else f"{what}[{bad}] is {type_name(value[bad])}, not a string"


def _string_map(value: object, what: str) -> str | None:
    if not isinstance(value, dict):
        return f"{what} is {type_name(value)}, not an object of strings"
    bad = next((k for k, v in value.items() if not isinstance(v, str)), None)
    return None if bad is None else f"{what}.{bad} is {type_name(value[bad])}, not a string"


def server_faults(server: object, dialect: Dialect) -> Iterator[tuple[JsonPath, str]]:
    """(path below the server, what is wrong) for each fault of one server entry."""
    if not isinstance(server, dict):
        yield (), f"the server is {type_name(server)}, not an object"
        return
    kind = server.get("type")
    if kind is not None and not isinstance(kind, str):
        yield ("type",), f"type is {type_name(kind)}, not a string"
        return
    if kind is not None and dialect.types is not None and kind not in dialect.types:
        yield ("type",), f"type {kind!r} is not one of {', '.join(sorted(dialect.types))}"
        return
    remote = kind in dialect.remote if kind is not None else None
    if dialect.type_required and kind is None:
        yield (), "no `type` (stdio, http or sse)"
        return
    if remote or (remote is None and "url" in server and "command" not in server):
        if remote is None and dialect.remote:
            yield ("url",), 'a remote server needs `"type": "http"` (or "sse")'
            return
        url = server.get("url")
        if not (isinstance(url, str) and url):
            yield (), f"no `url` for a {kind or 'remote'} server"
        if "headers" in server and (fault := _string_map(server["headers"], "headers")):
            yield ("headers",), fault
        return
    command = server.get("command")
    if not (isinstance(command, str) and command):
        where: JsonPath = ("command",) if "command" in server else ()
        yield where, "no `command` (a non-empty string) and no `url`"
    if "args" in server and (fault := _strings(server["args"], "args")):
        yield ("args",), fault
    if "env" in server and (fault := _string_map(server["env"], "env")):
        yield ("env",), fault


def check_servers(doc: Doc, project: Project) -> Iterator[Finding]:
    dialect = DIALECTS[doc.kind]
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict) or not meta.data:
        return  # an empty object names no server: nothing is lost
    servers = meta.data.get(dialect.top)
    if servers is None and dialect is CLAUDE and "/" in doc.rel and _bare_map(meta.data):
        return  # a plugin's .mcp.json may be the server map itself (the plugin loader's form)
    if not isinstance(servers, dict):
        yield _no_servers(doc, dialect, servers)
        return
    for meta, name, server in servers_of(doc, dialect.top):
        for sub, fault in server_faults(server, dialect):
            path = (dialect.top, name, *sub)
            cost = (
                "Claude Code drops this server (the others load)"
                if dialect is CLAUDE
                else f"not the shape {dialect.tool} documents"
            )
            said = f"{dotted(path)}: {fault}; {cost}"
            yield finding_at(dialect.server_rule, doc, meta, path, said, key=not sub)
        if dialect is CLAUDE and server.get("disabled") is True:
            said = (
                f'{dotted((dialect.top, name))}: Claude Code ignores "disabled" and starts the '
                f'server; list "{name}" in disabledMcpjsonServers of .claude/settings.json'
            )
            yield finding_at(DISABLED, doc, meta, (dialect.top, name, "disabled"), said, key=True)
    for name, server in servers.items():
        if not isinstance(server, dict):  # servers_of yields objects only
            path = (dialect.top, name)
            said = f"{dotted(path)}: the server is {type_name(server)}, not an object"
            yield finding_at(dialect.server_rule, doc, meta, path, said)
    if dialect is VSCODE and "inputs" in meta.data:
        inputs = meta.data["inputs"]
        if not isinstance(inputs, list) or not all(isinstance(i, dict) for i in inputs):
            said = "inputs: VS Code documents a list of input objects (type, id, description)"
            yield finding_at(EDITOR_SHAPE, doc, meta, ("inputs",), said)


def _bare_map(data: dict[str, object]) -> bool:
    return bool(data) and all(
        isinstance(v, dict) and ("command" in v or "url" in v) for v in data.values()
    )


def _no_servers(doc: Doc, dialect: Dialect, servers: object) -> Finding:
    meta = doc.meta
    assert meta is not None
    other = "servers" if dialect.top == "mcpServers" else "mcpServers"
    if servers is not None:
        where: JsonPath = (dialect.top,)
        said = f"{dialect.top} is {type_name(servers)}, not an object of servers"
    elif other in meta.data:
        where = (other,)
        said = f'found "{other}": {dialect.tool} reads the servers from "{dialect.top}"'
    else:
        where = ()
        said = f'no "{dialect.top}" object'
    cost = "Claude Code loads no server from this file" if dialect is CLAUDE else ""
    message = f"{said}; {cost}" if cost else said
    return finding_at(dialect.top_rule, doc, meta, where, message, key=bool(where))


EDITOR_KINDS = frozenset({CURSOR.kind, VSCODE.kind})


def editor_parse_findings(path: str, problems: Iterable[Problem]) -> list[Finding]:
    """A Cursor or VS Code file that is not JSON (JSON with comments for VS Code): MCF004, a
    warning, since neither editor can be run here and VS Code's parser is error-tolerant."""
    return [
        EDITOR_SHAPE.finding(
            path,
            f"not JSON its editor reads as written ({p.message}); the editor may read part of it "
            "or none",
            p.line,
            p.column,
        )
        for p in problems
    ]


CHECKS = {kind: (check_servers,) for kind in DIALECTS}
PROJECT_CHECKS = ()
