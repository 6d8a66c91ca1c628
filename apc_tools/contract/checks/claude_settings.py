"""Claude Code's project settings: ``.claude/settings.json`` and ``.claude/settings.local.json``.

What Claude Code does with a faulty file (observed with 2.1.197 and 2.1.332 against the
loopback mock, tests/conformance): a value of the wrong type for a key its schema types (a
string for ``cleanupPeriodDays``, ``permissions.deny`` given as a string, an unknown
``permissions.defaultMode``) makes it **ignore the whole file**: every other setting in it (every
permission rule) is lost (CST001, an error). A malformed permission rule (``Bash(npm run test``,
``bash(ls)``, ``Bash()``, ``mcp__server__tool(x)``, ``WebFetch(example.com)``) is skipped alone
and the others load (CST002, an error: that rule never applies). A key it does not know is kept
and ignored (CST003, a warning when it looks like a misspelt known key).

The ``hooks`` key is judged by :mod:`apc_tools.contract.checks.hooks` (its own check reads the
document through :func:`settings_document`); JSON syntax is the parser's JSN rule (Claude Code
reads strict JSON: a comment or a trailing comma makes it ignore the file too). Secrets are
SEC001's (and the gate's), never reported here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from apc_tools.contract.checks.claude_settings_keys import SETTING_TYPES
from apc_tools.contract.checks.mcps import JsonPath, dotted, pos_of
from apc_tools.contract.project import Doc, Project
from apc_tools.core.parse import Located
from apc_tools.findings import Finding, Rule, Severity, rule_family

FAMILY = "claude-settings"
KIND = "claude-settings"
_rule = rule_family(FAMILY)

WRONG_TYPE = _rule(
    "CST001",
    "claude-settings-ignored",
    Severity.ERROR,
    "A Claude Code settings file has a value of the wrong type: Claude Code ignores the whole "
    "file.",
    "Claude Code validates `.claude/settings.json` and `.claude/settings.local.json` against its "
    "settings schema and, when a key it types has a value of another type (a string for "
    "`cleanupPeriodDays`, `permissions.allow` given as one string instead of a list, a "
    "`permissions.defaultMode` it does not know), skips the file: none of its permission rules, "
    "environment variables or other settings apply. Give the value the type the message names.",
    '.claude/settings.json:\n{"permissions": {"deny": ["Read(./.env)"]}, "cleanupPeriodDays": 30}',
    '.claude/settings.json:\n{"permissions": {"deny": "Read(./.env)"}, "cleanupPeriodDays": "30"}',
)
BAD_PERMISSION = _rule(
    "CST002",
    "claude-permission-rule-skipped",
    Severity.ERROR,
    "A permission rule Claude Code cannot parse: it skips the rule.",
    "A rule is `Tool` or `Tool(content)`: the tool name starts with an uppercase letter "
    "(`Bash`, not `bash`), the content is not empty and the rule ends at its closing `)`. "
    "`WebFetch` rules take `domain:HOST`, the `:*` prefix form is for `Bash` only (file tools "
    "take globs such as `Read(./secrets/**)`), MCP rules take no parentheses "
    "(`mcp__server__tool`, `mcp__server__*`), and an `allow` rule must name what it allows (no "
    "`*` or `mcp__*`). Claude Code 2.1.332 skips a rule that breaks one of these and loads the "
    "others; a rule that never applies is a deny that protects nothing.",
    '.claude/settings.json:\n{"permissions": {"allow": ["Bash(npm run test:*)"], '
    '"deny": ["Read(./secrets/**)", "WebFetch(domain:example.com)"]}}',
    '.claude/settings.json:\n{"permissions": {"deny": ["bash(rm -rf:*)", "Read(./secrets/**"]}}',
)
UNKNOWN_KEY = _rule(
    "CST003",
    "claude-settings-unknown-key",
    Severity.WARNING,
    "A Claude Code settings key that Claude Code does not know (it looks like a misspelt one).",
    "Claude Code keeps a key it does not know and ignores it, so the setting has no effect. The "
    "message names the known key it resembles. MCP servers belong in `.mcp.json` "
    "(`mcpServers` in a settings file is not read).",
    '.claude/settings.json:\n{"permissions": {"deny": ["Read(./.env)"]}}',
    '.claude/settings.json:\n{"permission": {"deny": ["Read(./.env)"]}}',
)

RULES = (WRONG_TYPE, BAD_PERMISSION, UNKNOWN_KEY)

# permissions.* (a nested schema the key table leaves out): the same in 2.1.197 and 2.1.332
PERMISSION_TYPES: dict[str, object] = {
    "allow": "array",
    "ask": "array",
    "deny": "array",
    "additionalDirectories": "array",
    "defaultMode": ("acceptEdits", "auto", "bypassPermissions", "default", "dontAsk", "plan"),
    "disableBypassPermissionsMode": ("disable",),
}
RULE_LISTS = ("allow", "ask", "deny")
# Tools whose rule content is a path glob (the `:*` prefix form is refused for them)
FILE_TOOLS = frozenset({"Read", "Edit", "Write", "MultiEdit", "NotebookEdit", "Glob", "Grep"})
_MCP_ALLOW_GLOB = re.compile(r"^mcp__[^*]+__")


def settings_document(doc: Doc) -> Located | None:
    """The decoded, located settings document of ``doc`` (None when it is not a JSON object):
    the entry point for checks of a settings key kept elsewhere (``hooks``)."""
    meta = doc.meta
    return meta if meta is not None and isinstance(meta.data, dict) else None


def finding_at(
    rule: Rule, doc: Doc, meta: Located, path: JsonPath, message: str, *, key: bool = False
) -> Finding:
    """``rule``'s finding on ``doc`` at the value (or the key) of ``path``."""
    pos = pos_of(meta, path, key=key)
    return rule.finding(doc.path, message, pos.line, pos.column)


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def type_fault(value: object, wanted: object) -> str | None:
    """What is wrong with ``value`` for the schema type ``wanted`` (a name or an enum), or None."""
    if wanted is None or value is None:
        return None
    if isinstance(wanted, tuple):
        if isinstance(value, str) and value in wanted:
            return None
        return f"is {value!r}; allowed: {', '.join(wanted)}"
    ok = {
        "string": isinstance(value, str),
        "boolean": isinstance(value, bool),
        "number": isinstance(value, (int, float)) and not isinstance(value, bool),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "array": isinstance(value, list),
        "object": isinstance(value, dict),
    }.get(str(wanted), True)
    if ok:
        return None
    article = "an" if str(wanted)[0] in "aeiou" else "a"
    return f"is {type_name(value)}, not {article} {'list' if wanted == 'array' else wanted}"


def _name(doc: Doc) -> str:
    return doc.rel.rsplit("/", 1)[-1]


def check_types(doc: Doc, project: Project) -> Iterator[Finding]:
    meta = settings_document(doc)
    if meta is None:
        return
    data = meta.data
    lost = f"Claude Code ignores the whole of {_name(doc)} (every setting in it is lost)"
    for key, value in data.items():
        fault = type_fault(value, SETTING_TYPES.get(key))
        if fault:
            yield finding_at(WRONG_TYPE, doc, meta, (key,), f"{key} {fault}: {lost}")
    permissions = data.get("permissions")
    if permissions is None:
        return
    if not isinstance(permissions, dict):
        said = f"permissions is {type_name(permissions)}, not an object: {lost}"
        yield finding_at(WRONG_TYPE, doc, meta, ("permissions",), said)
        return
    for key, value in permissions.items():
        fault = type_fault(value, PERMISSION_TYPES.get(key))
        if fault:
            said = f"permissions.{key} {fault}: {lost}"
            yield finding_at(WRONG_TYPE, doc, meta, ("permissions", key), said)


def rule_fault(rule: str, kind: str) -> str | None:
    """Why Claude Code 2.1.332 skips the permission rule ``rule`` of list ``kind`` (its own
    reasons, in its order), or None when it loads it."""
    if not rule.strip():
        return "the rule is empty"
    open_at = rule.find("(")
    tool, content = rule, None
    if open_at >= 0:
        if not rule.endswith(")"):
            return (
                "malformed Tool(content) rule: it must end at the closing `)` (parentheses "
                "inside the content are literal)"
            )
        tool, content = rule[:open_at], rule[open_at + 1 : -1]
        if content == "" and tool:
            return f'empty parentheses: give a pattern, or use just "{tool}"'
    if tool.startswith("mcp__"):
        if content is not None:
            return f'MCP rules take no pattern in parentheses: use "{tool}" or "mcp__SERVER__*"'
        if kind == "allow" and "*" in tool and not _MCP_ALLOW_GLOB.match(tool):
            return f'a wildcard tool name ("{tool}") is not allowed in allow rules'
        return None
    if tool[:1].islower():
        return f'tool names start with an uppercase letter: use "{tool[:1].upper()}{tool[1:]}"'
    if kind == "allow" and "*" in tool:
        return f'a wildcard tool name ("{tool}") is not allowed in allow rules'
    if content is None:
        return None
    if tool == "Bash" and content.endswith(":*") and not content[:-2].strip():
        return "the prefix before :* is empty: give a command prefix (Bash(npm run:*))"
    if tool in FILE_TOOLS and content.endswith(":*"):
        return 'the ":*" prefix form is for Bash rules only: use a glob such as "src/**"'
    if tool == "WebFetch" and not content.startswith("domain:"):
        return 'WebFetch rules take "domain:HOST" (WebFetch(domain:example.com))'
    return None


def check_permission_rules(doc: Doc, project: Project) -> Iterator[Finding]:
    meta = settings_document(doc)
    permissions = meta.data.get("permissions") if meta is not None else None
    if meta is None or not isinstance(permissions, dict):
        return
    for kind in RULE_LISTS:
        rules = permissions.get(kind)
        if not isinstance(rules, list):
            continue  # not a list: CST001, the whole file is ignored
        for index, rule in enumerate(rules):
            path = ("permissions", kind, index)
            if isinstance(rule, str):
                fault = rule_fault(rule, kind)
            else:
                fault = f"is {type_name(rule)}, not a string (Claude Code removes it)"
            if fault:
                shown = f" {rule!r}" if isinstance(rule, str) and len(rule) <= 80 else ""
                said = f"{dotted(path)}{shown}: {fault}; Claude Code skips this rule"
                yield finding_at(BAD_PERMISSION, doc, meta, path, said)


def check_unknown_keys(doc: Doc, project: Project) -> Iterator[Finding]:
    meta = settings_document(doc)
    if meta is None:
        return
    for key in meta.data:
        if key in SETTING_TYPES:
            continue
        if key == "mcpServers":
            message = (
                "mcpServers: Claude Code reads no MCP servers from a settings file; put them in "
                ".mcp.json at the project root"
            )
        else:
            import difflib  # only for an unknown key (a run without one never loads it)

            near = difflib.get_close_matches(key, SETTING_TYPES, n=1, cutoff=0.8)
            if not near:
                continue
            message = f"{key}: not a Claude Code setting (ignored); did you mean {near[0]}?"
        yield finding_at(UNKNOWN_KEY, doc, meta, (key,), message, key=True)


CHECKS = {KIND: (check_types, check_permission_rules, check_unknown_keys)}
PROJECT_CHECKS = ()
