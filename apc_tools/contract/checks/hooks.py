"""Claude Code hooks: the ``hooks`` mapping of a plugin's ``hooks/hooks.json`` and of
``.claude/settings.json`` / ``.claude/settings.local.json``, judged as Claude Code reads it.

Shape (Claude Code 2.1.332's schema, the same in 2.1.197 but for the events it knows):
``{EVENT: [{"matcher": "Bash", "hooks": [{"type": "command", "command": "...",
"timeout": 30}]}]}``. A hook's ``type`` is ``command`` (needs ``command``), ``prompt`` or
``agent`` (need ``prompt``), ``http`` (needs ``url``) or ``mcp_tool`` (needs ``server`` and
``tool``); ``timeout`` is a positive number of seconds; ``matcher`` a string.

:func:`check_hooks` takes the decoded mapping and the positions of its document, so that every
file holding hooks uses the one check; what the fault costs (the whole plugin, the plugin's
hooks, the settings file's hooks) is the caller's ``cost`` text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass

from apc_tools.contract.checks.claude_settings import type_name as _type_name
from apc_tools.contract.project import Doc, Project
from apc_tools.core.parse import Located, Pos
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "hooks"
_rule = rule_family(FAMILY)

JsonPath = tuple[str | int, ...]
_Bad = Callable[[JsonPath, str], Finding]

# Claude Code 2.1.332's hook events (its bundled code); 2.1.197 knew all but the last four.
EVENTS_197 = (
    "PreToolUse",
    "PostToolUse",
    "PostToolUseFailure",
    "PostToolBatch",
    "Notification",
    "UserPromptSubmit",
    "UserPromptExpansion",
    "SessionStart",
    "SessionEnd",
    "Stop",
    "StopFailure",
    "SubagentStart",
    "SubagentStop",
    "PreCompact",
    "PostCompact",
    "PermissionRequest",
    "PermissionDenied",
    "Setup",
    "TeammateIdle",
    "TaskCreated",
    "TaskCompleted",
    "Elicitation",
    "ElicitationResult",
    "ConfigChange",
    "WorktreeCreate",
    "WorktreeRemove",
    "InstructionsLoaded",
    "CwdChanged",
    "FileChanged",
    "MessageDisplay",
)
EVENTS_NEW = ("PreModelSwitch", "PostModelSwitch", "DirectoryAdded", "PreSkillShellCommand")
EVENTS = frozenset(EVENTS_197 + EVENTS_NEW)

# Each hook type and the keys it needs (the same in 2.1.197 and 2.1.332).
TYPES: Mapping[str, tuple[str, ...]] = {
    "command": ("command",),
    "prompt": ("prompt",),
    "agent": ("prompt",),
    "http": ("url",),
    "mcp_tool": ("server", "tool"),
}

GOOD = (
    '{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", '
    '"command": "./check.sh", "timeout": 30}]}]}}'
)

EVENT_UNKNOWN = _rule(
    "HOK001",
    "hook-event-unknown",
    Severity.ERROR,
    "A hook is declared under an event name Claude Code does not know.",
    "Claude Code runs hooks only for its own events (PreToolUse, PostToolUse, "
    "UserPromptSubmit, SessionStart, Stop, SubagentStop, Notification, PreCompact, ...: the "
    "names are case-sensitive). Claude Code 2.1.332 ignores the entry with a warning in its "
    "debug log; 2.1.197 loads none of the plugin's hooks. Check the spelling.",
    GOOD,
    GOOD.replace("PreToolUse", "PreToolUze"),
)
ENTRY_INVALID = _rule(
    "HOK002",
    "hook-entry-invalid",
    Severity.ERROR,
    "A hook entry does not have the shape Claude Code requires (matcher, type, command, timeout).",
    "Each event holds a list of matchers; each matcher a string `matcher` (optional) and a list "
    "`hooks`; each hook a known `type` (`command`, `prompt`, `agent`, `http`, `mcp_tool`) with "
    "what that type needs (`command` for a command hook, `prompt`, `url`, or `server` and "
    "`tool`) and a `timeout` that is a positive number of seconds. Claude Code 2.1.332 refuses "
    "the whole plugin for such an entry (none of its agents, commands or skills load); 2.1.197 "
    "loads the plugin without any of its hooks.",
    GOOD,
    GOOD.replace('"timeout": 30', '"timeout": "30"'),
)

RULES = (EVENT_UNKNOWN, ENTRY_INVALID)


# Events whose hooks guard permissions: Claude Code 2.1.332 refuses what holds a faulty entry
# under one of them whole (the plugin, the settings file), since a hook that cannot be loaded may
# be what guards the permissions beside it; a faulty entry under another event is ignored.
GUARD_EVENTS = frozenset({"PreToolUse", "PermissionRequest", "PreSkillShellCommand"})


@dataclass(frozen=True)
class Place:
    """Where a ``hooks`` mapping is: its document (positions), its JSON path, the path shown in
    findings, and what a fault under an event costs (``cost(event)``, said after each
    message; the event is None for a fault of the mapping itself)."""

    meta: Located
    base: JsonPath
    path: str
    cost: Callable[[str | None], str]


def _pos(meta: Located, path: JsonPath, *, key: bool = False) -> Pos:
    found = meta.key_at(path) if key else meta.at(path)
    return found or Pos(1, 1)


def dotted(path: JsonPath) -> str:
    """``$.a[0].b``: a JSON path as the hook findings show it."""
    out = "$"
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else f".{part}"
    return out


def check_hooks(hooks: object, place: Place) -> Iterator[Finding]:
    """Findings on the decoded ``hooks`` mapping at ``place`` (any shape: never raises)."""
    meta, base = place.meta, place.base

    def bad(path: JsonPath, message: str) -> Finding:
        pos = _pos(meta, path)
        event = path[len(base)] if len(path) > len(base) else None
        cost = place.cost(event if isinstance(event, str) else None)
        return ENTRY_INVALID.finding(
            place.path, f"{dotted(path)}: {message}; {cost}", pos.line, pos.column
        )

    if not isinstance(hooks, dict):
        yield bad(base, f"must be an object of hook events, found {_type_name(hooks)}")
        return
    for event, matchers in hooks.items():
        where = (*base, event)
        if event not in EVENTS:
            pos = _pos(meta, where, key=True)
            yield EVENT_UNKNOWN.finding(
                place.path,
                f"{dotted(where)}: '{event}' is not a Claude Code hook event, so its hooks never "
                f"run ({place.cost(event)}); use one of PreToolUse, PostToolUse, "
                "UserPromptSubmit, SessionStart, Stop, SubagentStop, Notification, PreCompact, "
                "... (case-sensitive)",
                pos.line,
                pos.column,
            )
            continue
        if not isinstance(matchers, list):
            yield bad(where, f"must be a list of matchers, found {_type_name(matchers)}")
            continue
        for i, matcher in enumerate(matchers):
            yield from _matcher(matcher, (*where, i), bad)


def _matcher(matcher: object, where: JsonPath, bad: _Bad) -> Iterator[Finding]:
    if not isinstance(matcher, dict):
        yield bad(where, f"a matcher must be an object, found {_type_name(matcher)}")
        return
    pattern = matcher.get("matcher")
    if pattern is not None and not isinstance(pattern, str):
        yield bad(
            (*where, "matcher"),
            f'`matcher` must be a string (e.g. "Bash" or "Edit|Write"), found '
            f"{_type_name(pattern)}",
        )
    entries = matcher.get("hooks")
    if not isinstance(entries, list):
        found = "missing" if "hooks" not in matcher else f"found {_type_name(entries)}"
        at = where if "hooks" not in matcher else (*where, "hooks")
        yield bad(at, f"`hooks` must be a list of hooks, {found}")
        return
    for j, entry in enumerate(entries):
        yield from _entry(entry, (*where, "hooks", j), bad)


def _entry(entry: object, where: JsonPath, bad: _Bad) -> Iterator[Finding]:
    if not isinstance(entry, dict):
        yield bad(where, f"a hook must be an object, found {_type_name(entry)}")
        return
    kind = entry.get("type")
    if not isinstance(kind, str) or kind not in TYPES:
        shown = "missing" if kind is None else f"'{kind}'"
        yield bad(
            (*where, "type") if "type" in entry else where,
            f"`type` is {shown}; Claude Code knows {', '.join(TYPES)}",
        )
        return
    for key in TYPES[kind]:
        value = entry.get(key)
        if not isinstance(value, str):
            found = "missing" if key not in entry else f"{_type_name(value)}, not a string"
            yield bad(
                (*where, key) if key in entry else where,
                f"a {kind} hook needs `{key}` (a string): {found}",
            )
    timeout = entry.get("timeout")
    if "timeout" in entry and not (
        isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0
    ):
        yield bad(
            (*where, "timeout"),
            f"`timeout` must be a positive number of seconds, found {_type_name(timeout)}"
            + (f" ({timeout!r})" if isinstance(timeout, (str, int, float)) else ""),
        )


def _settings_cost(event: str | None) -> str:
    if event is not None and event not in EVENTS:
        return "Claude Code 2.1.197 and 2.1.332 ignore the entry"
    if event in GUARD_EVENTS:
        return (
            "Claude Code 2.1.332 skips the settings file's hooks for it (none of them run: a "
            "hook that guards permissions cannot be loaded); 2.1.197 runs none of them either"
        )
    if event is None:
        return "Claude Code runs none of the settings file's hooks"
    return "Claude Code 2.1.332 ignores this entry; 2.1.197 runs none of the file's hooks"


def check_settings_hooks(doc: Doc, project: Project) -> Iterator[Finding]:
    """The ``hooks`` key of `.claude/settings.json` and `.claude/settings.local.json`."""
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict) or "hooks" not in meta.data:
        return
    place = Place(meta, ("hooks",), doc.path, _settings_cost)
    yield from check_hooks(meta.data["hooks"], place)


# The kind the settings files are read as (apc_tools.contract.project): their `hooks` key is
# this module's; the rest of the file is the settings checks'.
SETTINGS_KIND = "claude-settings"

CHECKS: Mapping[str, tuple[Callable[[Doc, Project], Iterable[Finding]], ...]] = {
    SETTINGS_KIND: (check_settings_hooks,),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
