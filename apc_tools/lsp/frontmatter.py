"""Hover and completion in the frontmatter of agent, skill, rule and plan files, from what the
project already knows: the published JSON Schemas (each key's description, its type and enum)
and the checks' own tables (Claude Code's subagent keys, model aliases and tool names, the APX
agent types). No LSP type is used here: positions are 0-based (line, code point)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

# The schema that describes each kind's frontmatter (the checks validate against the same).
SCHEMA_OF = {
    "agent": "agent",
    "claude-agent": "agent",
    "skill": "skill",
    "skill-flat": "skill",
    "rule": "rule",
    "plan": "plan",
}
KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*)[ \t]*:")
FENCE = re.compile(r"^---[ \t]*$")
TOOL_KEYS = frozenset({"tools", "disallowedTools", "allowed-tools", "disallowed-tools"})
MODEL_KEYS = frozenset({"model"})


@dataclass(frozen=True)
class Item:
    """One completion: the text, what it is (``key`` or ``value``), a short detail."""

    label: str
    what: str
    detail: str = ""
    documentation: str = ""


def lines_of(text: str) -> list[str]:
    """``text`` cut into lines as LSP clients cut them (\\n, \\r\\n, \\r), without the breaks."""
    return re.split(r"\r\n|\r|\n", text)


def frontmatter_span(lines: Sequence[str]) -> tuple[int, int] | None:
    """(first, end) line indexes of the YAML between the fences (end: the closing fence, or the
    end of the text when it is not closed); None without an opening fence."""
    if not lines or not FENCE.match(lines[0].lstrip("\ufeff")):
        return None
    for index in range(1, len(lines)):
        if FENCE.match(lines[index]) or lines[index].rstrip() == "...":
            return 1, index
    return 1, len(lines)


@cache
def _properties(schema: str) -> dict[str, Any]:
    from apc_tools.core.schemas import load_schema

    return dict(load_schema(schema).get("properties", {}))


def _reader(kind: str) -> str:
    from apc_tools.contract.project import KINDS

    return KINDS.get(kind, kind).partition(": ")[2] or kind


def keys_for(kind: str) -> list[str]:
    """The frontmatter keys the reading tool knows for ``kind``."""
    schema = SCHEMA_OF.get(kind)
    if schema is None:
        return []
    if kind == "claude-agent":
        from apc_tools.contract.checks.agents import CLAUDE_KEYS

        return sorted(CLAUDE_KEYS)
    return list(_properties(schema))


def values_for(kind: str, key: str) -> list[str]:
    """The known values of ``key`` in a ``kind`` file's frontmatter."""
    from apc_tools.contract.checks import agents

    if key in MODEL_KEYS and kind in ("claude-agent", "skill", "skill-flat"):
        return list(agents.MODEL_ALIASES)
    if key in MODEL_KEYS and kind == "agent":
        return ["inherit"]
    if key in TOOL_KEYS:
        return sorted(agents.CLAUDE_TOOLS)
    if key == "type" and kind == "agent":
        return list(agents.AGENT_TYPES)
    schema = SCHEMA_OF.get(kind)
    prop = _properties(schema).get(key, {}) if schema else {}
    if prop.get("type") == "boolean":
        return ["true", "false"]
    return [str(v) for v in prop.get("enum", ())]


def key_doc(kind: str, key: str) -> str | None:
    """What the reading tool does with ``key`` in a ``kind`` file (Markdown), or None."""
    schema = SCHEMA_OF.get(kind)
    if schema is None:
        return None
    reader = _reader(kind)
    prop = _properties(schema).get(key)
    parts = [f"**{key}** (read by {reader})"]
    if kind == "claude-agent":
        from apc_tools.contract.checks.agents import CLAUDE_KEYS

        if key not in CLAUDE_KEYS:
            parts.append(
                "Claude Code does not know this key: it is not one of its subagent fields, "
                "so it is ignored."
            )
        elif prop is None:
            parts.append("A Claude Code subagent field.")
    if prop is not None and prop.get("description"):
        parts.append(str(prop["description"]))
    elif prop is None and kind != "claude-agent":
        parts.append(f"Not a key of the {schema} schema: {reader} ignores it (apc warns).")
    values = values_for(kind, key)
    if values:
        parts.append("Known values: " + ", ".join(f"`{v}`" for v in values))
    return "\n\n".join(parts)


def hover_key(kind: str, lines: Sequence[str], line: int, character: int) -> str | None:
    """The documentation of the frontmatter key under (line, character), or None."""
    span = frontmatter_span(lines)
    if span is None or not span[0] <= line < span[1] or line >= len(lines):
        return None
    match = KEY_LINE.match(lines[line])
    if match is None or character > match.end("key"):
        return None
    return key_doc(kind, match.group("key"))


def complete(kind: str, lines: Sequence[str], line: int, character: int) -> list[Item]:
    """The completions at (line, character) of a ``kind`` file: keys at the start of a
    frontmatter line, known values after ``key:`` (or in the list below ``tools:``)."""
    span = frontmatter_span(lines)
    if SCHEMA_OF.get(kind) is None or span is None or not span[0] <= line < span[1]:
        return []
    if line >= len(lines):
        return []
    before = lines[line][:character]
    match = KEY_LINE.match(before)
    if match is not None:
        return _values(kind, match.group("key"))
    stripped = before.lstrip()
    if stripped.startswith("- ") or stripped == "-":
        owner = _list_owner(lines, line)
        return _values(kind, owner) if owner else []
    if before.startswith((" ", "\t")):
        return []
    present = {m.group("key") for m in map(KEY_LINE.match, lines[span[0] : span[1]]) if m}
    return [
        Item(key, "key", _reader(kind), key_doc(kind, key) or "")
        for key in keys_for(kind)
        if key not in present
    ]


def _values(kind: str, key: str) -> list[Item]:
    return [Item(value, "value", key) for value in values_for(kind, key)]


def _list_owner(lines: Sequence[str], line: int) -> str | None:
    """The key whose block list holds ``line`` (``tools:`` then ``  - Read``)."""
    for index in range(line - 1, -1, -1):
        text = lines[index]
        if text.lstrip().startswith("-") or not text.strip():
            continue
        match = KEY_LINE.match(text)
        return match.group("key") if match else None
    return None
