"""Helpers shared by the frontmatter check families (agents, skills, rules, plans).

Positions: every finding about a key or value is placed at the ``line:column`` the parser
recorded (:class:`~apc_tools.core.parse.Located`); a missing key is reported where the
frontmatter starts. Schema problems come from :mod:`apc_tools.core.schemas` (imported lazily:
it pulls in jsonschema) and are turned into findings by the families, which decide the rule and
severity of each.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from apc_tools.contract.project import Doc
from apc_tools.core.parse import YAML_LENIENT, Pos
from apc_tools.findings import Finding, Rule, Severity

if TYPE_CHECKING:
    from apc_tools.core.schemas import SchemaError

PathPart = str | int
_IDENT = re.compile(r"\A[A-Za-z_][A-Za-z0-9_-]*\Z")
_COMMENT = re.compile(r"\s#")


def parsed(doc: Doc) -> bool:
    """True when the frontmatter was read as a mapping (or is empty) and checks can run.

    A YAML syntax error or a non-mapping document was already reported by the parser; checking
    keys of such a file would only add noise.
    """
    if not doc.has_frontmatter or doc.meta is None:
        return False
    data = doc.meta.data
    return isinstance(data, dict) or (data is None and doc.meta.ok)


def opens_frontmatter(doc: Doc) -> bool:
    """The file starts with a ``---`` line (closed or not: unclosed is FMT001's business)."""
    first = doc.text.split("\n", 1)[0].rstrip("\r")
    return first.rstrip(" \t") == "---"


def start(doc: Doc) -> Pos:
    """Where a missing key is reported: the first frontmatter value, else line 1."""
    if doc.meta is not None:
        pos = doc.meta.at(())
        if pos is not None:
            return pos
    return Pos(2 if doc.has_frontmatter else 1, 1)


def key_pos(doc: Doc, path: tuple[PathPart, ...]) -> Pos:
    if doc.meta is not None:
        pos = doc.meta.key_at(path)
        if pos is not None:
            return pos
    return start(doc)


def value_pos(doc: Doc, path: tuple[PathPart, ...]) -> Pos:
    if doc.meta is not None:
        pos = doc.meta.at(path)
        if pos is not None:
            return pos
    return start(doc)


def at(rule: Rule, doc: Doc, pos: Pos, message: str, severity: Severity | None = None) -> Finding:
    return rule.finding(doc.path, message, pos.line, pos.column, severity=severity)


def json_path(path: tuple[PathPart, ...]) -> str:
    """``$.skills[2]``: how messages show where a value is, next to its line:column."""
    out = "$"
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENT.match(part):
            out += f".{part}"
        else:
            out += "[" + json.dumps(part) + "]"
    return out


@lru_cache(maxsize=16)
def _lines(text: str) -> tuple[str, ...]:
    return tuple(text.splitlines())


def line_texts(doc: Doc) -> tuple[str, ...]:
    """The file's lines (as parse positions count them)."""
    return _lines(doc.text)


def line_text(doc: Doc, line: int) -> str:
    """Line ``line`` (1-based) of the file, as parse positions count lines."""
    lines = _lines(doc.text)
    return lines[line - 1] if 0 < line <= len(lines) else ""


def char_at(doc: Doc, pos: Pos) -> str:
    text = line_text(doc, pos.line)
    return text[pos.column - 1] if 0 < pos.column <= len(text) else ""


def source_scalar(doc: Doc, key: str) -> str:
    """The text of the single-line plain scalar at top-level ``key``, as written.

    Used to read numbers, booleans and nulls the way strictyaml (skills-ref) does: as the
    characters written (``name: 123`` is "123", ``description: null`` is "null", ``name:``
    is ""). Empty when the value is not on the key's line.
    """
    if doc.meta is None:
        return ""
    kpos, vpos = doc.meta.keys.get((key,)), doc.meta.values.get((key,))
    if kpos is None or vpos is None or kpos.line != vpos.line:
        return ""
    raw = line_text(doc, vpos.line)[vpos.column - 1 :]
    return _COMMENT.split(raw, maxsplit=1)[0].strip()


def column_of(doc: Doc, path: tuple[PathPart, ...], needle: str) -> Pos:
    """Position of ``needle`` inside the one-line string value at ``path`` (else the value)."""
    pos = value_pos(doc, path)
    text = line_text(doc, pos.line)
    index = text.find(needle, pos.column - 1) if needle else -1
    return Pos(pos.line, index + 1) if index >= 0 else pos


def lenient_lines(doc: Doc) -> list[Pos]:
    """Lines whose YAML was read leniently (YML005): strict YAML parsers reject them."""
    if doc.meta is None:
        return []
    return [
        Pos(p.line, p.column or 1)
        for p in doc.meta.problems
        if p.rule is YAML_LENIENT and p.line is not None
    ]


def schema_errors(name: str, instance: Any) -> list[SchemaError]:
    from apc_tools.core.schemas import schema_errors as errors

    return errors(name, instance)


def schema_warnings(name: str, instance: Any) -> list[SchemaError]:
    from apc_tools.core.schemas import schema_warnings as warnings

    return warnings(name, instance)


def extension_keys(name: str) -> frozenset[str]:
    from apc_tools.core.schemas import extension_keys as keys

    return keys(name)


def where(error: SchemaError) -> tuple[PathPart, ...]:
    """The JSON path an error is about, including the key for key-level errors."""
    return (*error.path, *([error.key] if error.key is not None else []))


def schema_pos(doc: Doc, error: SchemaError) -> Pos:
    """Where to report a schema error: the key (for key errors), else the value."""
    if error.validator in ("required", "x-apc-recommended"):
        return value_pos(doc, error.path) if error.path else start(doc)
    if error.key is not None:
        return key_pos(doc, (*error.path, error.key))
    return value_pos(doc, error.path)


def schema_message(error: SchemaError, fix: str = "") -> str:
    text = f"{json_path(where(error))}: {error.message}"
    return f"{text}; {fix}" if fix else text


def get(data: Any, path: tuple[PathPart, ...]) -> Any:
    """The value at ``path`` in parsed data, or None."""
    for part in path:
        if isinstance(data, Mapping) and isinstance(part, str):
            data = data.get(part)
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data
