"""Parsing with positions: frontmatter, safe YAML and JSON, each value located at line:column.

YAML is read from the event stream of ruamel.yaml (libyaml's parser when ruamel.yaml.clibz is
installed, the pure-Python parser otherwise) and built here, so that:

- no tag ever constructs an object (custom tags are reported and the value kept as text);
- anchors and aliases are refused, never expanded (a "billion laughs" document costs nothing);
- duplicate keys are reported at the duplicate;
- every key and value gets a 1-based ``line:column``.

Scalars follow the YAML 1.2 core schema (``yes``/``no`` stay strings, as in js-yaml, which
Cursor and Claude Code use). Dates and times stay strings.

Problems are returned as :class:`Problem` values (rule ID, message, line, column); the caller
turns them into findings for its file. Nothing here raises on bad input.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from apc_tools.findings import Rule, Severity, rule_family

FAMILY = "parse"


_rule = rule_family(FAMILY)


YAML_SYNTAX = _rule(
    "YML001",
    "yaml-syntax",
    Severity.ERROR,
    "The YAML (or frontmatter) does not parse.",
    "Fix the YAML at the reported position. Quote values that contain `: `, start with `*`, `&`, "
    "`!`, `@` or a backquote, or contain ` #`.",
    '---\nname: reviewer\ndescription: "Reviews code: style and bugs"\n---\n',
    "---\nname: reviewer\ndescription: [unclosed\n---\n",
)
YAML_DUPLICATE_KEY = _rule(
    "YML002",
    "yaml-duplicate-key",
    Severity.ERROR,
    "A key appears twice in the same mapping.",
    "Tools disagree on which value wins (the first or the last); keep one.",
    "---\nname: a\ndescription: one\n---\n",
    "---\nname: a\nname: b\ndescription: one\n---\n",
)
YAML_ALIAS = _rule(
    "YML003",
    "yaml-anchor-alias",
    Severity.ERROR,
    "YAML anchors and aliases are not allowed in agent-context files.",
    "Anchors (`&x`) and aliases (`*x`) are refused, never expanded, so a crafted document cannot "
    "blow up in memory. Write the value out. (An unquoted `globs: **/*.ts` is not an alias: it "
    "is accepted with a warning, see YML005.)",
    "---\nname: a\ndescription: same text\n---\n",
    "---\nname: &n a\ndescription: *n\n---\n",
)
YAML_TAG = _rule(
    "YML004",
    "yaml-tag",
    Severity.ERROR,
    "A YAML tag other than the standard ones (`!!str`, `!!int`...) is used.",
    "Tags such as `!!python/object` or `!custom` ask a loader to build objects; apc never does. "
    "Remove the tag; the value is read as plain text.",
    "---\nname: a\ndescription: text\n---\n",
    "---\nname: !!python/object:os.system a\ndescription: text\n---\n",
)
YAML_LENIENT = _rule(
    "YML005",
    "yaml-not-strict",
    Severity.WARNING,
    "A value is not valid strict YAML but is accepted the way Cursor and Claude Code read it.",
    "Cursor writes `globs: **/*.ts` unquoted and Claude Code tolerates an unquoted `: ` inside a "
    "description; strict YAML parsers (and many linters) reject both. apc reads the value as the "
    'tools do. For portable YAML write a list (`globs:\\n  - "**/*.ts"`) or quote the '
    "description. An unquoted `globs` in `.cursor/rules/` is Cursor's own form (quoting breaks "
    "its matching there): no finding. Copilot's `applyTo` must stay one string: quote it, never "
    "make it a list.",
    '---\ndescription: "Rules: TypeScript"\nglobs:\n  - "**/*.ts"\n---\n',
    "---\ndescription: Rules: TypeScript\nglobs: **/*.ts\n---\n",
)
YAML_NOT_MAPPING = _rule(
    "YML006",
    "frontmatter-not-mapping",
    Severity.ERROR,
    "The frontmatter (or YAML document) is not a mapping of keys to values.",
    "Frontmatter must be `key: value` lines between two `---` fences.",
    "---\nname: a\n---\n",
    "---\n- a\n- b\n---\n",
)
FM_UNCLOSED = _rule(
    "FMT001",
    "frontmatter-unclosed",
    Severity.ERROR,
    "The frontmatter opens with `---` but has no closing `---` line.",
    "Add a line holding only `---` after the last frontmatter key. Without it every reader "
    "treats the whole file differently.",
    "---\nname: a\ndescription: b\n---\n# Body\n",
    "---\nname: a\ndescription: b\n# Body\n",
)
FM_BOM = _rule(
    "FMT002",
    "byte-order-mark",
    Severity.INFO,
    "The file starts with a UTF-8 byte-order mark.",
    "apc reads the file normally, but some tools (for example skills-ref) then fail to find the "
    "frontmatter. Save the file as UTF-8 without BOM.",
    "---\\nname: a\\n---\\n (no BOM)",
    "\\ufeff---\\nname: a\\n---\\n",
)
JSON_SYNTAX = _rule(
    "JSN001",
    "json-syntax",
    Severity.ERROR,
    "The JSON file does not parse.",
    "Fix the JSON at the reported position (trailing commas and comments are not JSON).",
    '{"name": "demo", "apc": "0.1.0"}',
    '{"name": "demo", "apc": "0.1.0",}',
)
JSON_DUPLICATE_KEY = _rule(
    "JSN002",
    "json-duplicate-key",
    Severity.ERROR,
    "A key appears twice in the same JSON object.",
    "JSON readers silently keep one of the two values, which differs between tools; keep one.",
    '{"name": "a", "apc": "0.1.0"}',
    '{"name": "a", "name": "b", "apc": "0.1.0"}',
)

RULES = (
    YAML_SYNTAX,
    YAML_DUPLICATE_KEY,
    YAML_ALIAS,
    YAML_TAG,
    YAML_LENIENT,
    YAML_NOT_MAPPING,
    FM_UNCLOSED,
    FM_BOM,
    JSON_SYNTAX,
    JSON_DUPLICATE_KEY,
)

MAX_DEPTH = 64
MAX_NODES = 100_000

Path_ = tuple[str | int, ...]


@dataclass(frozen=True)
class Problem:
    rule: Rule
    message: str
    line: int | None
    column: int | None


@dataclass(frozen=True)
class Pos:
    line: int
    column: int


@dataclass
class Located:
    """A parsed value with the position of each key and value, by JSON path."""

    data: Any
    problems: list[Problem] = field(default_factory=list)
    _values: dict[Path_, Pos] = field(default_factory=dict, repr=False)
    _keys: dict[Path_, Pos] = field(default_factory=dict, repr=False)
    # Positions not yet found: a valid JSON text is read by the C parser alone, and walked for
    # its positions only when a finding asks where it is (most files have none).
    _pending: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    def _resolve(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending()

    @property
    def values(self) -> dict[Path_, Pos]:
        self._resolve()
        return self._values

    @property
    def keys(self) -> dict[Path_, Pos]:
        self._resolve()
        return self._keys

    def at(self, path: Path_) -> Pos | None:
        """Position of the value at ``path``, or of the nearest enclosing value that has one."""
        for cut in range(len(path), -1, -1):
            pos = self.values.get(path[:cut])
            if pos is not None:
                return pos
        return None

    def key_at(self, path: Path_) -> Pos | None:
        """Position of the key naming ``path`` (falls back to the value position)."""
        return self.keys.get(path) or self.at(path)

    @property
    def ok(self) -> bool:
        return not any(p.rule.severity is Severity.ERROR for p in self.problems)


# --------------------------------------------------------------------------- frontmatter


@dataclass(frozen=True)
class Frontmatter:
    """A Markdown file split at its frontmatter fences.

    ``yaml`` is None when the file has no frontmatter. ``yaml_line`` is the 1-based line of the
    first YAML line; ``body_line`` the 1-based line where the body starts.
    """

    yaml: str | None
    yaml_line: int
    body: str
    body_line: int
    problems: tuple[Problem, ...] = ()


_FENCE = re.compile(r"^---[ \t]*$")
_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*$")
_UNCLOSED = Problem(FM_UNCLOSED, "frontmatter opened with `---` on line 1 is never closed", 1, 1)


# Exact fast paths (split_frontmatter, load_yaml, load_frontmatter_yaml): each gives the same
# result as the general code or declines. Tests turn them off to compare the two.
_FAST_PATHS = True

# Line boundaries str.splitlines honours besides \n, \r and \r\n: a text holding one is split
# by the general code.
_ASCII_ODD_BREAKS = ("\v", "\f", "\x1c", "\x1d", "\x1e")
_ODD_BREAKS = (*_ASCII_ODD_BREAKS, "\x85", "\u2028", "\u2029")


def split_frontmatter(text: str) -> Frontmatter:
    """Split ``text`` (BOM already removed) at ``---`` fences. CRLF and CR are accepted."""
    if not text.startswith("---"):  # the first line cannot be a fence: no lines to split
        return Frontmatter(None, 1, text, 1)
    if _FAST_PATHS and not any(
        odd in text for odd in (_ASCII_ODD_BREAKS if text.isascii() else _ODD_BREAKS)
    ):
        return _split_scanning(text)
    return _split_lines(text)


def _split_scanning(text: str) -> Frontmatter:
    """:func:`_split_lines` for a text whose only line boundaries are \n, \r\n and \r: finds the
    closing fence by searching instead of splitting every line of the body."""
    original = text
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    first_end = text.find("\n")
    if not _FENCE.match(text if first_end < 0 else text[:first_end]):
        return Frontmatter(None, 1, original, 1)
    if first_end < 0:  # "---" alone: opened, never closed, nothing after it
        return Frontmatter(None, 2, "", 2, (_UNCLOSED,))
    start = first_end + 1
    close, close_end = _closing_fence(text, first_end)
    if close < 0:
        return Frontmatter(None, 2, _drop_final_newline(text[start:]), 2, (_UNCLOSED,))
    index = text.count("\n", 0, close)
    yaml_text = text[start:close] or "\n"
    body = _drop_final_newline(text[close_end + 1 :])
    return Frontmatter(yaml_text, 2, body, index + 2)


def _closing_fence(text: str, newline: int) -> tuple[int, int]:
    """Start and end of the first line after the one ending at ``newline`` that ``_CLOSE``
    matches (``---`` or ``...``, then spaces and tabs); (-1, -1) when there is none."""
    best = (-1, -1)
    for marker in ("\n---", "\n..."):
        at = text.find(marker, newline)
        while at >= 0 and (best[0] < 0 or at + 1 < best[0]):
            end = text.find("\n", at + 4)
            if end < 0:
                end = len(text)
            if not text[at + 4 : end].strip(" \t"):
                best = (at + 1, end)
                break
            at = text.find(marker, end)
    return best


def _drop_final_newline(text: str) -> str:
    return text[:-1] if text.endswith("\n") else text


def _split_lines(text: str) -> Frontmatter:
    """The general :func:`split_frontmatter` (every line boundary str.splitlines knows)."""
    lines = text.splitlines()
    if not lines or not _FENCE.match(lines[0]):
        return Frontmatter(None, 1, text, 1)
    for index in range(1, len(lines)):
        if _CLOSE.match(lines[index]):
            yaml_text = "\n".join(lines[1:index]) + "\n"
            body = "\n".join(lines[index + 1 :])
            return Frontmatter(yaml_text, 2, body, index + 2)
    return Frontmatter(None, 2, "\n".join(lines[1:]), 2, (_UNCLOSED,))


# --------------------------------------------------------------------------- YAML


def _events(text: str, pure: bool = False) -> Iterator[Any]:
    """YAML events from libyaml (ruamel.yaml.clibz) or, without it (or with ``pure``), ruamel's
    pure parser."""
    try:
        if pure:
            raise ImportError
        from ruamel.yaml.cyaml import CParser
    except ImportError:  # the C parser is optional; the pure one gives the same events
        from ruamel.yaml import YAML

        yield from YAML(typ="safe", pure=True).parse(text)
        return
    parser = CParser(text)
    while True:
        event = parser.get_event()
        yield event
        if type(event).__name__ == "StreamEndEvent":
            return


def preload() -> None:
    """Import the YAML parser :func:`_events` uses now (before worker processes are forked,
    so that each inherits it instead of importing it again: ~40 ms a process)."""
    try:
        from ruamel.yaml.cyaml import CParser  # noqa: F401
    except ImportError:
        from ruamel.yaml import YAML  # noqa: F401


_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"^[-+]?[0-9]+$")
_OCT = re.compile(r"^0o[0-7]+$")
_HEX = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
# The first characters of every null, bool, int, float, inf and nan form above (and "\n": the
# empty null form's ``$`` matches before a final newline): a plain scalar starting with any
# other character is text.
_SPECIAL_STARTS = frozenset("~nNtTfF+-.0123456789\n")
_STD_TAGS = {
    "tag:yaml.org,2002:str": "str",
    "tag:yaml.org,2002:int": "int",
    "tag:yaml.org,2002:float": "float",
    "tag:yaml.org,2002:bool": "bool",
    "tag:yaml.org,2002:null": "null",
    "tag:yaml.org,2002:map": "map",
    "tag:yaml.org,2002:seq": "seq",
    "tag:yaml.org,2002:timestamp": "str",
    "!": "str",
}


# Longer integer literals are kept as text and reported (YML001): Python refuses to convert
# integers of more than 4,300 decimal digits to or from text, and no agent tool reads a number
# this long as a number anyway.
MAX_INT_CHARS = 1000


class NumberTooLong(ValueError):
    """A plain scalar is an integer literal of more than :data:`MAX_INT_CHARS` characters."""


def resolve_plain(value: str) -> Any:
    """YAML 1.2 core schema resolution of a plain (unquoted) scalar.

    Raises :class:`NumberTooLong` for an integer literal longer than :data:`MAX_INT_CHARS`.
    """
    if value and value[0] not in _SPECIAL_STARTS:  # most plain scalars: text
        return value
    if _NULL.match(value):
        return None
    if value in _BOOL:
        return _BOOL[value]
    if len(value) > MAX_INT_CHARS and (_INT.match(value) or _OCT.match(value) or _HEX.match(value)):
        raise NumberTooLong(value)
    if _INT.match(value):
        return int(value)
    if _OCT.match(value):
        return int(value[2:], 8)
    if _HEX.match(value):
        return int(value[2:], 16)
    if _FLOAT.match(value):
        return float(value)
    if _INF.match(value):
        return float("-inf") if value.startswith("-") else float("inf")
    if _NAN.match(value):
        return float("nan")
    return value


def _mark(event: Any, line_offset: int) -> Pos:
    mark = event.start_mark
    return Pos(mark.line + line_offset, mark.column + 1)


def _tag_name(event: Any) -> str | None:
    tag = getattr(event, "tag", None)
    if tag is None:
        return None
    return str(getattr(tag, "value", tag) if not isinstance(tag, str) else tag)


class _Builder:
    """Builds plain Python data with positions from YAML events, refusing what is unsafe."""

    def __init__(self, out: Located, line_offset: int) -> None:
        self.out = out
        self.offset = line_offset
        self.nodes = 0

    def problem(self, rule: Rule, message: str, pos: Pos | None) -> None:
        self.out.problems.append(
            Problem(rule, message, pos.line if pos else None, pos.column if pos else None)
        )

    def check_node(self, event: Any, pos: Pos) -> None:
        if getattr(event, "anchor", None):
            self.problem(YAML_ALIAS, f"anchor '&{event.anchor}' is not allowed", pos)
        tag = _tag_name(event)
        if tag is not None and tag not in _STD_TAGS:
            self.problem(YAML_TAG, f"tag '{tag}' is not allowed; the value is read as text", pos)

    def scalar(self, event: Any) -> Any:
        try:
            return self._scalar(event)
        except NumberTooLong:
            self.problem(
                YAML_SYNTAX,
                f"integer of {len(event.value)} characters is too long to be a number (the limit "
                f"is {MAX_INT_CHARS}); quote it if it is text",
                _mark(event, self.offset),
            )
            return event.value

    def _scalar(self, event: Any) -> Any:
        tag = _tag_name(event)
        kind = _STD_TAGS.get(tag) if tag else None
        value: str = event.value
        if kind == "str" or (kind is None and tag is not None):
            return value
        if kind in ("int", "float", "bool", "null"):
            resolved = resolve_plain(value)
            return resolved
        plain = bool(event.implicit[0]) if event.implicit else False
        return resolve_plain(value) if plain else value

    def build(self, events: Iterator[Any], first: Any, path: Path_, depth: int) -> Any:
        kind = type(first).__name__
        pos = _mark(first, self.offset)
        self.out.values[path] = pos
        self.nodes += 1
        if self.nodes > MAX_NODES or depth > MAX_DEPTH:
            raise _TooBig(pos)
        if kind == "AliasEvent":
            self.problem(YAML_ALIAS, f"alias '*{first.anchor}' is not allowed (not expanded)", pos)
            return None
        self.check_node(first, pos)
        if kind == "ScalarEvent":
            return self.scalar(first)
        if kind == "SequenceStartEvent":
            return self.sequence(events, path, depth)
        return self.mapping(events, path, depth)

    def sequence(self, events: Iterator[Any], path: Path_, depth: int) -> list[Any]:
        items: list[Any] = []
        for event in events:
            if type(event).__name__ == "SequenceEndEvent":
                return items
            items.append(self.build(events, event, (*path, len(items)), depth + 1))
        return items

    def mapping(self, events: Iterator[Any], path: Path_, depth: int) -> dict[str, Any]:
        result: dict[str, Any] = {}
        for event in events:
            if type(event).__name__ == "MappingEndEvent":
                return result
            key_pos = _mark(event, self.offset)
            key = self.key(events, event, path, depth)
            child = (*path, key)
            value_event = next(events)
            if key in result:
                self.problem(YAML_DUPLICATE_KEY, f"duplicate key '{key}'", key_pos)
                self.build(events, value_event, (*path, f"{key}\x00dup"), depth + 1)
                continue
            self.out.keys[child] = key_pos
            result[key] = self.build(events, value_event, child, depth + 1)
        return result

    def key(self, events: Iterator[Any], event: Any, path: Path_, depth: int) -> str:
        if type(event).__name__ == "ScalarEvent":
            self.check_node(event, _mark(event, self.offset))
            value = self.scalar(event)
            return value if isinstance(value, str) else json.dumps(value)
        value = self.build(events, event, (*path, "\x00key"), depth + 1)
        return json.dumps(value, sort_keys=True, default=str)


class _TooBig(Exception):
    def __init__(self, pos: Pos) -> None:
        self.pos = pos


def _yaml_error(exc: Exception, line_offset: int) -> Problem:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    message = f"{context}: {problem}" if context else str(problem)
    if mark is None:
        return Problem(YAML_SYNTAX, message, None, None)
    return Problem(YAML_SYNTAX, message, mark.line + line_offset, mark.column + 1)


def _load_events(text: str, line_offset: int, pure: bool = False) -> Located:
    out = Located(None)
    events = _events(text, pure)
    builder = _Builder(out, line_offset)
    documents = 0
    for event in events:
        name = type(event).__name__
        if name == "DocumentStartEvent":
            documents += 1
            if documents > 1:
                pos = _mark(event, line_offset)
                out.problems.append(
                    Problem(YAML_SYNTAX, "more than one YAML document", pos.line, pos.column)
                )
                return out
        elif name.endswith("Event") and name not in (
            "StreamStartEvent",
            "DocumentEndEvent",
            "StreamEndEvent",
        ):
            out.data = builder.build(events, event, (), 0)
    return out


# --------------------------------------------------------------------------- simple YAML

# What the simple-document reader below accepts, all else is left to the event builder:
# printable characters YAML and libyaml read as they are (no tab, no CR, no BOM, no control
# character, no \x85/\u2028/\u2029 line break)... Written as the characters it refuses: the
# same set as the complement of "\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd
# \U00010000-\U0010ffff" (tests/core/test_parse_fast_paths.py checks every code point), whose
# negated class took 5-10 ms to compile at every start.
_NOT_SIMPLE_CHAR = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff\ufeff\ufffe\uffff]"
)
# ...lines that are a top-level ``key:`` with an optional value, an identifier as the key...
_SIMPLE_KEY = re.compile(r"\A([A-Za-z_][A-Za-z0-9_.-]*):(?: +|$)")
# ...or a list item holding a value, under a key without a value...
_SIMPLE_ITEM = re.compile(r"\A( *)- +")
# ...each value a plain scalar that starts with no indicator and holds no ": ", " #" or final
# ":", a double-quoted one on one line (escapes \" \\ \n \t only) or a single-quoted one.
# (Each pattern is anchored with \A: it is only ever matched at the start, and a search cannot
# rescan the rest of a long line from every position, see tests/core/test_hang_guards.py.)
_NOT_PLAIN_START = frozenset("-?:,[]{}#&*!|>'\"%@`")
_DOUBLE = re.compile(r'\A"((?:[^"\\]|\\["\\nt])*)"')
_DOUBLE_ESCAPES = {'\\"': '"', "\\\\": "\\", "\\n": "\n", "\\t": "\t"}
_DOUBLE_ESCAPE = re.compile(r'\\["\\nt]')
_SINGLE = re.compile(r"\A'((?:[^']|'')*)'")
_DECLINE = object()


def _simple_scalar(raw: str) -> Any:
    """The value of a one-line scalar (spaces around it removed), or _DECLINE."""
    first = raw[0]
    if first == '"':
        match = _DOUBLE.fullmatch(raw)
        if match is None:
            return _DECLINE
        value = match.group(1)
        if "\\" in value:
            value = _DOUBLE_ESCAPE.sub(lambda m: _DOUBLE_ESCAPES[m.group()], value)
        return value
    if first == "'":
        match = _SINGLE.fullmatch(raw)
        return _DECLINE if match is None else match.group(1).replace("''", "'")
    if first in _NOT_PLAIN_START or ": " in raw or " #" in raw or raw[-1] == ":":
        return _DECLINE
    try:
        return resolve_plain(raw)
    except NumberTooLong:
        return _DECLINE


def _load_simple(text: str, line_offset: int) -> Located | int:
    """:func:`_load_yaml_full` for a simple document, without the event stream; for any other,
    the index of the line it declined at (-1 for the whole text).

    Simple: a block mapping of top-level ``key: value`` lines (keys identifiers that are text,
    each once), values one-line scalars (see :func:`_simple_scalar`) or, under ``key:``, a
    block list of them; blank lines anywhere. No comment, tag, anchor, alias, flow collection,
    block scalar, multi-line scalar or nested mapping. The result has the data, positions and
    (no) problems the event builder gives.
    """
    if _NOT_SIMPLE_CHAR.search(text):
        return -1
    out = Located(None)
    data: dict[str, Any] = {}
    values = out.values
    keys = out.keys
    empty_key: str | None = None  # the last key, when it had no value: a list may follow
    items: list[Any] | None = None  # the list under it, once started
    indent = 0  # the indentation of that list's items
    nodes = 1
    for index, line in enumerate(text.split("\n")):
        if not line.strip(" "):
            continue
        number = index + line_offset
        if line[0] == " " or line[0] == "-":
            match = _SIMPLE_ITEM.match(line)
            if match is None or empty_key is None:
                return index
            if items is None:
                indent = match.end(1)
                items = []
                data[empty_key] = items
                values[(empty_key,)] = Pos(number, indent + 1)
            elif match.end(1) != indent:
                return index
            raw = line[match.end() :].rstrip(" ")
            if not raw:
                return index
            value = _simple_scalar(raw)
            if value is _DECLINE:
                return index
            values[(empty_key, len(items))] = Pos(number, match.end() + 1)
            items.append(value)
            nodes += 1
            continue
        match = _SIMPLE_KEY.match(line)
        if match is None:
            return index
        key = match.group(1)
        if key in data or len(key) > 1000 or not isinstance(resolve_plain(key), str):
            # a duplicate key, a key longer than libyaml's simple keys, or one read as a bool
            # or null (true:, null:)
            return index
        if not data:
            values[()] = Pos(number, 1)
        keys[(key,)] = Pos(number, 1)
        nodes += 1
        raw = line[match.end() :].rstrip(" ")
        if raw:
            value = _simple_scalar(raw)
            if value is _DECLINE:
                return index
            data[key] = value
            values[(key,)] = Pos(number, match.end() + 1)
            empty_key = None
        else:  # null, unless a list follows
            data[key] = None
            values[(key,)] = Pos(number, match.end(1) + 2)
            empty_key = key
        items = None
    if nodes > MAX_NODES:
        return -1
    if data:
        out.data = data
    return out


def load_yaml(text: str, *, line_offset: int = 1) -> Located:
    """Parse one YAML document safely. ``line_offset`` is the 1-based line of its first line."""
    if _FAST_PATHS:
        simple = _load_simple(text, line_offset)
        if not isinstance(simple, int):
            return simple
    return _load_yaml_full(text, line_offset)


def _load_yaml_full(text: str, line_offset: int) -> Located:
    """:func:`load_yaml` through the event stream (any document)."""
    try:
        return _load_events(text, line_offset)
    except _TooBig as big:
        out = Located(None)
        out.problems.append(
            Problem(
                YAML_SYNTAX,
                "YAML document is too large or too deeply nested",
                big.pos.line,
                big.pos.column,
            )
        )
        return out
    except Exception as exc:  # ruamel/libyaml raise several error classes; all mean "bad YAML"
        confirmed = _pure_reading(text, line_offset)
        if confirmed is not None:
            return confirmed
        out = Located(None)
        out.problems.append(_yaml_error(exc, line_offset))
        return out


def _pure_reading(text: str, line_offset: int) -> Located | None:
    """What ruamel's pure parser reads where libyaml refused, or None when it refuses too.

    libyaml rejects a ``:`` inside a plain scalar in a flow collection (``[Bash(git add:*)]``,
    ``[N:M Sparsity]``, ``[http://x.com]``), which YAML 1.2, ruamel's loaders and the JavaScript
    parsers the agent tools use all read: a syntax error is reported only when both refuse.
    """
    if "[" not in text and "{" not in text:  # no flow collection: the pure parser agrees
        return None
    try:
        return _load_events(text, line_offset, pure=True)
    except Exception:  # the pure parser confirms the error (or the document is too big)
        return None


# Lenient reading of the two forms the consuming tools accept (see YML005).
# The value is ``\S(?:.*\S)?``, not a lazy ``\S.*?`` before ``[ \t]*$`` (quadratic on a long run of
# spaces inside the value).
_TOP_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w.-]*):[ \t]+(?P<value>\S(?:.*\S)?)[ \t]*$")
# `**/*.ts`, `*.mdc, src/*` (globs, not aliases), a reserved indicator, or an inner `: `.
_NEEDS_QUOTES = re.compile(r"^(?:\*\*|\*[^\s]*[/.,{])|^[@`%]|: |:$")


def _patch_line(line: str) -> str | None:
    match = _TOP_LINE.match(line)
    if not match:
        return None
    value = match.group("value")
    if value[0] in "\"'[{|>" or not _NEEDS_QUOTES.search(value):
        return None
    return f"{match.group('key')}: {json.dumps(value, ensure_ascii=False)}"


# The characters of an anchor or alias name for libyaml.
_ANCHOR_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_-")


def _surely_not_strict(text: str, declined: int) -> bool:
    """Whether the strict reading of ``text`` is certainly not ok, knowing that
    :func:`_load_simple` read every line before line ``declined`` and declined that one.

    It is when that line is a top-level ``key: *...`` whose ``*`` starts no alias name
    (``globs: **/*.ts``, ``globs: *.mdc``): libyaml stops there with a scanner error, and the
    pure parser, when asked, either stops too or reads an alias (an error as well).
    """
    if declined < 0:
        return False
    line = text.split("\n", declined + 1)[declined]
    match = _SIMPLE_KEY.match(line)
    if match is None:
        return False
    value = line[match.end() :]
    return value[:1] == "*" and value[1:2] not in _ANCHOR_CHARS


def load_frontmatter_yaml(text: str, *, line_offset: int) -> Located:
    """Parse frontmatter YAML; if strict parsing fails, accept Cursor/Claude Code forms.

    A top-level ``key: value`` line whose value strict YAML rejects (an unquoted value starting
    with ``*``, or holding ``: ``) is read as the plain string the tools see, with a YML005
    warning at that line. Anything else that fails stays a YML001 error.
    """
    strict: Located | None = None  # the strict reading, read when needed
    if _FAST_PATHS:
        simple = _load_simple(text, line_offset)
        if not isinstance(simple, int):
            return simple
        if not _surely_not_strict(text, simple):
            strict = _load_yaml_full(text, line_offset)
    else:
        strict = load_yaml(text, line_offset=line_offset)
    if strict is not None and strict.ok:
        return strict
    lines = text.split("\n")
    patched: list[int] = []
    for index, line in enumerate(lines):
        fixed = _patch_line(line)
        if fixed is not None:
            lines[index] = fixed
            patched.append(index)
    if not patched:
        return _load_yaml_full(text, line_offset) if strict is None else strict
    lenient = load_yaml("\n".join(lines), line_offset=line_offset)
    if any(p.rule is YAML_SYNTAX for p in lenient.problems):
        return _load_yaml_full(text, line_offset) if strict is None else strict
    for index in patched:
        key = _TOP_LINE.match(text.split("\n")[index])
        name = key.group("key") if key else "value"
        lenient.problems.append(
            Problem(
                YAML_LENIENT,
                f"'{name}' is not strict YAML; read as plain text the way Cursor and Claude "
                "Code read it (quote the whole value for portable YAML)",
                index + line_offset,
                len(name) + 3,
            )
        )
    return lenient


# --------------------------------------------------------------------------- JSON


class _LineIndex:
    def __init__(self, text: str) -> None:
        self.starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def pos(self, offset: int) -> Pos:
        line = bisect_right(self.starts, offset)
        return Pos(line, offset - self.starts[line - 1] + 1)


_WS = re.compile(r"[ \t\n\r]*")


class _NonFinite(float):
    """``NaN``, ``Infinity`` or ``-Infinity``: Python's json reads them, JSON does not."""

    name = ""


class _LongInt(str):
    """An integer literal longer than :data:`MAX_INT_CHARS` (kept as its text)."""


def _int(text: str) -> int | _LongInt:
    return _LongInt(text) if len(text) > MAX_INT_CHARS else int(text)


def _non_finite(name: str) -> float:
    value = _NonFinite(name.replace("Infinity", "inf"))
    value.name = name
    return value


class _JsonWalker:
    """Positions for an already-valid JSON text (syntax was checked by ``json.loads``)."""

    def __init__(self, text: str, out: Located) -> None:
        self.text = text
        self.out = out
        self.lines = _LineIndex(text)
        self.decoder = json.JSONDecoder(parse_constant=_non_finite, parse_int=_int)

    def skip(self, index: int) -> int:
        match = _WS.match(self.text, index)
        return match.end() if match else index

    def value(self, index: int, path: Path_) -> tuple[Any, int]:
        index = self.skip(index)
        self.out._values[path] = self.lines.pos(index)
        char = self.text[index]
        if char == "{":
            return self.obj(index + 1, path)
        if char == "[":
            return self.arr(index + 1, path)
        value, end = self.decoder.raw_decode(self.text, index)
        if isinstance(value, _NonFinite):
            pos = self.lines.pos(index)
            message = f"{value.name} is not JSON (JSON.parse and most readers reject the file)"
            self.out.problems.append(Problem(JSON_SYNTAX, message, pos.line, pos.column))
            value = float(value)
        elif isinstance(value, _LongInt):
            pos = self.lines.pos(index)
            message = (
                f"integer of {len(value)} characters is too long to be a number (the limit is "
                f"{MAX_INT_CHARS})"
            )
            self.out.problems.append(Problem(JSON_SYNTAX, message, pos.line, pos.column))
            value = str(value)
        return value, end

    def obj(self, index: int, path: Path_) -> tuple[dict[str, Any], int]:
        result: dict[str, Any] = {}
        index = self.skip(index)
        if self.text[index] == "}":
            return result, index + 1
        while True:
            index = self.skip(index)
            key_pos = self.lines.pos(index)
            key, index = scanstring(self.text, index + 1)
            index = self.skip(index) + 1  # the colon
            if key in result:
                self.out.problems.append(
                    Problem(
                        JSON_DUPLICATE_KEY, f"duplicate key '{key}'", key_pos.line, key_pos.column
                    )
                )
                _, index = self.value(index, (*path, f"{key}\x00dup"))
            else:
                self.out._keys[(*path, key)] = key_pos
                result[key], index = self.value(index, (*path, key))
            index = self.skip(index)
            if self.text[index] == "}":
                return result, index + 1
            index += 1  # the comma

    def arr(self, index: int, path: Path_) -> tuple[list[Any], int]:
        items: list[Any] = []
        index = self.skip(index)
        if self.text[index] == "]":
            return items, index + 1
        while True:
            item, index = self.value(index, (*path, len(items)))
            items.append(item)
            index = self.skip(index)
            if self.text[index] == "]":
                return items, index + 1
            index += 1


def strip_jsonc(text: str) -> str:
    """``text`` with the comments (``//``, ``/* */``) and trailing commas of JSON with comments
    (VS Code's reading of its settings files) blanked out by spaces, newlines kept: every other
    character stays at its offset, so positions found in the result are positions in ``text``.
    A text without ``/`` or a comma before a closing bracket is returned as it is."""
    if "/" not in text and "," not in text:
        return text
    out = list(text)
    i, n = 0, len(text)
    last_comma = -1  # index of a comma that may turn out to be trailing
    while i < n:
        c = text[i]
        if c == '"':
            last_comma = -1
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
            continue
        if c == "/" and text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
            out[i:end] = " " * (end - i)
            i = end
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out[i:end] = [ch if ch == "\n" else " " for ch in text[i:end]]
            i = end
            continue
        if c == ",":
            last_comma = i
        elif c in "}]":
            if last_comma >= 0:
                out[last_comma] = " "
            last_comma = -1
        elif not c.isspace():
            last_comma = -1
        i += 1
    return "".join(out)


def load_json(text: str) -> Located:
    """Parse JSON with positions and duplicate-key detection; never raises.

    The C parser reads the text once; a text with a duplicate key, a non-finite number or an
    over-long integer is walked at once (those are findings), any other text only when its
    positions are first asked for."""
    out = Located(None)
    odd: list[bool] = []

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        obj = dict(items)
        if len(obj) != len(items):
            odd.append(True)
        return obj

    def number(text: str) -> int | _LongInt:
        value = _int(text)
        if isinstance(value, _LongInt):
            odd.append(True)
        return value

    def constant(name: str) -> float:
        odd.append(True)
        return _non_finite(name)

    try:
        data = json.loads(text, parse_int=number, parse_constant=constant, object_pairs_hook=pairs)
    except json.JSONDecodeError as exc:
        out.problems.append(Problem(JSON_SYNTAX, exc.msg, exc.lineno, exc.colno))
        return out
    except (RecursionError, ValueError) as exc:
        out.problems.append(Problem(JSON_SYNTAX, f"cannot parse: {exc}", None, None))
        return out

    def walk() -> None:
        try:
            out.data, _ = _JsonWalker(text, out).value(0, ())
        except RecursionError:
            out.problems.append(Problem(JSON_SYNTAX, "JSON is too deeply nested", None, None))

    if odd:
        walk()
    else:
        out.data = data
        out._pending = walk
    return out
