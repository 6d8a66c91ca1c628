"""`apc validate --fix`: repair, on the user's request, what validation found in the contract.

Each fixable rule declares its fix beside its check (``Rule.fix``: "safe" or "unsafe", and
``Rule.fix_how``; the tables are ``FIX`` in apc_tools.core.rules and apc_tools.contract.rules).
The fixers here turn a finding into the smallest edit of the file's text:

- positional edits at the parser's positions (a scalar value, a JSON key or string, one line),
  so comments, key order, quoting elsewhere and line endings are kept byte for byte;
- never on a file apc could not parse safely (a YAML or JSON error, an unclosed frontmatter, a
  file it could not read), never through a symlink, never outside the project;
- each edit is checked: the file parsed again must hold exactly the data meant (the old data
  with the one value changed), and the project validated again in memory must show fewer
  findings and no new one. An edit that fails either check is dropped and said so.

Writing is atomic (a temporary file in the same folder, then a rename; a created file is
linked into place, never over an existing one) and re-reads the file first: a file changed
since it was read is left alone. The runtime repair never writes here (that guard is
apc_tools.runtime.store's); this module is the contract layer's own writer.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import re
import stat
import tempfile
import textwrap
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import suppress
from dataclasses import dataclass, field, replace
from functools import cache
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from secrets import token_hex
from typing import Any

from apc_tools.contract.checks.rule_files import split_globs
from apc_tools.contract.checks.skills import _owner_name
from apc_tools.contract.listing import Layout, _absolute, report_root
from apc_tools.contract.project import Doc, Project, classify
from apc_tools.contract.scaffold import APC_SPEC_VERSION
from apc_tools.contract.validate import (
    _run_scan,
    _select,
    check_project,
    in_cursor_rules,
    parse_doc,
)
from apc_tools.core import detect
from apc_tools.core import files as io
from apc_tools.core.gitignore import SAFE_DEFAULTS, missing_defaults
from apc_tools.core.parse import _patch_line, resolve_plain
from apc_tools.core.policy import Policy
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding

# A file with one of these findings is not fixed: apc could not read it the way its tools do.
NOT_SAFE_TO_FIX = frozenset(
    {"YML001", "YML002", "YML003", "YML004", "YML006", "FMT001", "JSN001", "JSN002"}
)
IO_RULES = ("IO",)

SKILL_DESCRIPTION_LIMIT = 1024  # Codex and skills-ref (SKL005)


@dataclass(frozen=True)
class Applied:
    """One fix made (or, with --diff, that would be made)."""

    rule: str
    path: str  # display path
    line: int | None
    note: str = ""  # what the user must still do (set a variable, rotate a secret)


@dataclass
class FileFix:
    """A file's content before and after its fixes (``before`` None: the fix creates it)."""

    abspath: Path
    root: Path
    display: str
    before: bytes | None
    after: bytes
    applied: list[Applied] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)  # values removed: never shown in a diff
    notes: dict[str, list[str]] = field(default_factory=dict)  # rule -> what the user must do
    bom_removed: bool = False
    repo: Path | None = None  # the repository being fixed: the write walks down from it
    folder: os.stat_result | None = None  # the identity of the folder read (st_dev, st_ino)
    file: os.stat_result | None = None  # and of the file read

    def diff(self) -> bytes:
        """The unified diff of the fix, byte for byte what ``git apply`` and ``patch`` take
        (CRLF line ends and a byte-order mark kept as they are in the file; lines cut at LF
        only), with every removed secret redacted."""
        old = _lines(self.before or b"")
        new = _lines(self.after)
        lines = difflib.unified_diff(
            old,
            new,
            fromfile="/dev/null" if self.before is None else f"a/{self.display}",
            tofile=f"b/{self.display}",
        )
        out = []
        for line in lines:
            text = line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
            out.append(detect.redact_secrets(text, self.secrets))
        return "".join(out).encode("utf-8", "surrogateescape")


def _lines(data: bytes) -> list[str]:
    """``data`` as lines cut after each LF only (a CR, a form feed or U+2028 inside a line is
    part of it, as for git), undecodable bytes kept by surrogate escapes."""
    text = data.decode("utf-8", "surrogateescape")
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    return [*lines, parts[-1]] if parts[-1] else lines


@dataclass
class FixOutcome:
    """What the fixers did (or, with ``write`` False, would do)."""

    files: list[FileFix] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (display path, why)
    unsafe_left: int = 0  # findings an unsafe fix would repair (without --unsafe-fixes)
    layout: Layout | None = None  # the run's (display paths are relative to its cwd)

    @property
    def applied(self) -> list[Applied]:
        return [a for f in self.files for a in f.applied]


# --------------------------------------------------------------------------- text helpers


def _eol(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _line_starts(text: str) -> list[int]:
    """Offset of each line, lines split exactly as the parser splits them."""
    starts, offset = [], 0
    for line in text.splitlines(keepends=True):
        starts.append(offset)
        offset += len(line)
    return starts


def _content_end(text: str, start: int) -> int:
    """Where the line holding ``start`` ends, before its line break."""
    line = text[start:].splitlines(keepends=True)
    if not line:
        return start
    first = line[0]
    return start + len(first.rstrip("\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))


def _offset(text: str, line: int, column: int) -> int | None:
    starts = _line_starts(text)
    if not 1 <= line <= len(starts):
        return None
    return starts[line - 1] + column - 1


def _json_offset(text: str, line: int, column: int) -> int | None:
    """The offset of a JSON position (lines counted at ``\n`` only, as the JSON walker does)."""
    start = 0
    for _ in range(line - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    offset = start + column - 1
    return offset if offset < len(text) else None


_PLAIN_OK = re.compile(r"^[^\s\-?:,\[\]{}#&*!|>'\"%@`][^\x00-\x1f\x7f]*$")
_COMMENT = re.compile(r"[ \t]#")


def _renderings(value: str, original: str) -> list[str]:
    """``value`` as YAML scalars, the style of ``original`` first where it can hold it, then
    double-quoted (JSON's escapes are YAML's): the caller keeps the first that reads back."""
    out = []
    block = _block(value, original)
    if block is not None:
        out.append(block)
    if original.startswith("'") and not any(c < " " or c in "\x7f\x85" for c in value):
        out.append("'" + value.replace("'", "''") + "'")
    plain = not original.startswith(("'", '"')) and bool(_PLAIN_OK.match(value))
    plain = plain and ": " not in value and " #" not in value and value == value.rstrip(" :")
    if plain and resolve_plain(value) == value:
        out.append(value)
    out.append(json.dumps(value, ensure_ascii=False))
    return out


_BLOCK_HEADER = re.compile(r"^([|>])([+-]?)[ \t]*(?:#.*)?$")
_BLOCK_WIDTH = 80  # a folded block's lines are wrapped near this (folding joins them again)


def _block(value: str, original: str) -> str | None:
    """``value`` in the block style of ``original`` (``>`` folded or ``|`` literal, with its
    chomping indicator and indentation), or None when ``original`` is no block scalar apc can
    write again. The caller reads the result back, so any doubt falls to the next style."""
    lines = original.split("\n")
    header = _BLOCK_HEADER.match(lines[0].rstrip("\r"))
    body = [line.rstrip("\r") for line in lines[1:] if line.strip()]
    if header is None or not body:
        return None
    indent = body[0][: len(body[0]) - len(body[0].lstrip(" "))]
    if not indent:
        return None
    style, chomp = header.groups()
    text = value
    if chomp != "-":  # clip and keep end the value with a line break
        if not text.endswith("\n"):
            return None
        text = text[:-1]
    if "\n" in text and chomp == "+":
        return None
    eol = "\r\n" if "\r\n" in original else "\n"
    rows: list[str] = []
    for number, paragraph in enumerate(text.split("\n")):
        if style == ">":
            if number:
                rows.append("")  # one line break in a folded value is a blank line
            wrapped = textwrap.wrap(
                paragraph,
                width=max(_BLOCK_WIDTH - len(indent), 20),
                break_long_words=False,
                break_on_hyphens=False,
                drop_whitespace=True,
            )
            rows += wrapped or [""]
        else:
            rows.append(paragraph)
    rendered = [style + chomp] + [indent + row if row else "" for row in rows]
    return eol.join(rendered)


def _quoted_end(text: str, start: int, limit: int) -> int | None:
    """The offset after the closing quote of the quoted scalar at ``start`` (same line only)."""
    quote = text[start]
    index = start + 1
    while index < limit:
        char = text[index]
        if quote == '"' and char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == "'" and index + 1 < limit and text[index + 1] == "'":
                index += 2
                continue
            return index + 1
        index += 1
    return None


def _scalar_span(doc: Doc, text: str, key: str) -> tuple[int, int] | None:
    """(start, end) of the top-level block scalar at ``key`` in ``text``, or None when it is not
    one apc can replace exactly (a flow mapping, a nested key, a collection)."""
    meta = doc.meta
    if meta is None:
        return None
    kpos, vpos = meta.keys.get((key,)), meta.values.get((key,))
    if kpos is None or vpos is None or kpos.column != 1 or vpos.line < kpos.line:
        return None
    start = _offset(text, vpos.line, vpos.column)
    if start is None or text[start : start + 1] in ("[", "{", "&", "*", "!", ""):
        return None
    end = _content_end(text, start)
    if text[start] in "\"'":
        closed = _quoted_end(text, start, end)
        if closed is not None:
            return start, closed
    elif text[start] not in "|>":
        comment = _COMMENT.search(text, start, end)
        if not _continues(doc, text, vpos.line):  # one line: up to a comment, spaces kept
            return start, len(text[: comment.start() if comment else end].rstrip(" \t"))
    # a value over several lines: up to the last indented line before the next key
    starts = _line_starts(text)
    line = vpos.line
    while line < min(len(starts), doc.body_line - 2):
        nxt = text[starts[line] : _content_end(text, starts[line])]
        if nxt.strip() and not nxt[:1].isspace():
            break
        if nxt.strip():
            end = _content_end(text, starts[line])
        line += 1
    return start, end


def _continues(doc: Doc, text: str, line: int) -> bool:
    """Whether the line after ``line`` (inside the frontmatter) continues the value."""
    starts = _line_starts(text)
    if line >= len(starts) or line + 1 >= doc.body_line - 1:
        return False
    nxt = text[starts[line] : _content_end(text, starts[line])]
    return bool(nxt.strip()) and nxt[:1].isspace() and not nxt.strip().startswith("#")


def _set_scalar(doc: Doc, text: str, project: Project, key: str, value: str) -> str | None:
    """``text`` with the top-level scalar ``key`` set to ``value`` (verified by reading it
    back), or None when that cannot be done exactly."""
    span = _scalar_span(doc, text, key)
    if span is None:
        return None
    start, end = span
    for rendered in _renderings(value, text[start:end]):
        out = text[:start] + rendered + text[end:]
        if _expect(doc, out, project, {key: value}):
            return out
    return None


# --------------------------------------------------------------------------- the fixers

# A fixer: (doc as parsed now, its text, the project, the findings of its rule on the doc)
# -> (new text, notes, secrets removed) or None when it cannot fix them exactly.
Edit = tuple[str, list[str], list[str]]
Fixer = Callable[[Doc, str, Project, list[Finding]], Edit | None]


def _expect(doc: Doc, text: str, project: Project, change: dict[str, Any]) -> bool:
    """The re-parsed ``text`` holds the data of ``doc`` with ``change`` applied (key -> value;
    a key mapped to ``_GONE`` is removed), nothing else."""
    again, _ = parse_doc(doc.kind, doc.rel, _text_file(doc.path, text))
    want = dict(doc.data)
    for key, value in change.items():
        if value is _GONE:
            want.pop(key, None)
        else:
            want[key] = value
    return again.meta is not None and again.meta.ok and dict(again.data) == want


_GONE = object()


def fix_lenient(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """YML005: the value quoted exactly as the tools read it; an `.apc/rules` globs string as
    a list of the same patterns; Cursor's own `globs` in `.cursor/rules` left alone."""
    starts = _line_starts(text)
    cursor = in_cursor_rules(doc.rel)
    out = text
    change: dict[str, Any] = {}
    for finding in sorted(found, key=lambda f: -(f.line or 0)):
        if finding.line is None or not 1 <= finding.line <= len(starts):
            continue
        start = starts[finding.line - 1]
        end = _content_end(out, start)
        line = out[start:end]
        quoted = _patch_line(line)
        if quoted is None:
            continue
        key, _, rest = line.partition(":")
        value = rest.strip()
        if key == "globs" and doc.kind == "rule":
            if cursor:
                continue  # Cursor writes it so; quoting breaks its matching
            patterns = [p for _, p in split_globs(value)]
            eol = _eol(text)
            items = "".join(f"{eol}  - {json.dumps(p, ensure_ascii=False)}" for p in patterns)
            quoted = "globs:" + items
            change[key] = patterns
        else:
            change[key] = value
        out = out[:start] + quoted + out[end:]
    if out == text or not _expect(doc, out, project, change):
        return None
    return out, [], []


def fix_closing_fence(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """SKL007 (a `...` closing fence): `---`."""
    if not doc.has_frontmatter:
        return None
    start = _offset(text, doc.body_line - 1, 1)
    if start is None:
        return None
    end = _content_end(text, start)
    if text[start:end].strip() != "...":
        return None
    out = text[:start] + "---" + text[end:]
    return (out, [], []) if _expect(doc, out, project, {}) else None


def fix_lost_header(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """INS010 (a `.instructions.md` whose opening `---` is missing): `---` on line 1, when the
    file then reads with exactly the header the lines above the closing `---` hold."""
    from apc_tools.contract.checks.instructions import lost_header

    header = lost_header(text)
    if doc.has_frontmatter or header is None:
        return None
    out = "---" + _eol(text) + text
    again, _ = parse_doc(doc.kind, doc.rel, _text_file(doc.path, out))
    ok = again.has_frontmatter and again.meta is not None and again.meta.ok
    return (out, [], []) if ok and dict(again.data) == header else None


def fix_agent_name(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """AGT004: `name` set to the file slug."""
    name = doc.data.get("name")
    if doc.kind != "agent" or not isinstance(name, str) or name.strip() == doc.stem:
        return None
    out = _set_scalar(doc, text, project, "name", doc.stem)
    if out is None:
        return None
    return out, [f"name '{name.strip()}' is now '{doc.stem}': update what refers to it"], []


def fix_skill_name(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """SKL004: `name` set to the folder name (the file stem of a flat skill)."""
    name = doc.data.get("name")
    expected = _owner_name(doc, project)
    if not isinstance(name, str) or name == expected:
        return None
    out = _set_scalar(doc, text, project, "name", expected)
    if out is None:
        return None
    return out, [f"name '{name.strip()}' is now '{expected}': update what refers to it"], []


def fix_description_length(
    doc: Doc, text: str, project: Project, found: list[Finding]
) -> Edit | None:
    """SKL005 (a description over 1,024 characters): cut to at most 1,024 at the end of its
    last whole sentence (or word) that fits, in the value's own style (a folded block stays
    folded)."""
    description = doc.data.get("description")
    if not isinstance(description, str) or len(description) <= SKILL_DESCRIPTION_LIMIT:
        return None
    ending = "\n" if description.endswith("\n") else ""
    cut = cut_at_boundary(description.rstrip("\n"), SKILL_DESCRIPTION_LIMIT - len(ending))
    cut += ending
    out = _set_scalar(doc, text, project, "description", cut)
    if out is None:
        return None
    note = f"description cut from {len(description)} to {len(cut)} characters: check its end"
    return out, [note], []


_SENTENCE_END = re.compile(r"[.!?](?=\s)")


def cut_at_boundary(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters: after the last sentence that fits when that
    keeps at least half of the limit, else at the last word boundary, else at the limit."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1]  # the character after the limit tells whether a word ends there
    sentences = [m.end() for m in _SENTENCE_END.finditer(head) if m.end() <= limit]
    if sentences and sentences[-1] >= limit // 2:
        return text[: sentences[-1]].rstrip()
    space = max(head.rfind(" "), head.rfind("\n"), head.rfind("\t"))
    if space > 0:
        return text[:space].rstrip()
    return text[:limit].rstrip()


def fix_unknown_keys(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """SKL006: each reported top-level key with a one-line scalar value moves under
    ``metadata:`` as a string (the spec's place for custom data: a map of string to string),
    into the existing block mapping or a new one at the end of the frontmatter. Keys with
    lists, mappings, several lines or a comment, and names ``metadata`` already holds, are
    left for you."""
    meta, data = doc.meta, doc.data
    if meta is None or not doc.has_frontmatter:
        return None
    old_meta = data.get("metadata")
    if old_meta is not None and not isinstance(old_meta, dict):
        return None
    at_line = {
        pos.line: str(path[0])
        for path, pos in meta.keys.items()
        if len(path) == 1 and pos.column == 1 and isinstance(path[0], str)
    }
    lines = text.split("\n")
    moved: dict[str, str] = {}
    drop: set[int] = set()
    for finding in found:
        key = at_line.get(finding.line or 0)
        value = data.get(key) if key is not None else None
        if key is None or key == "metadata" or key in moved:
            continue
        if isinstance(value, bool | int | float) or (isinstance(value, str) and value):
            if (old_meta and key in old_meta) or _continues(doc, text, finding.line or 0):
                continue
            span = _scalar_span(doc, text, key)
            line = lines[(finding.line or 1) - 1]
            if span is None or _COMMENT.search(line) or text[span[0] : span[0] + 1] in "|>":
                continue
            moved[key] = value if isinstance(value, str) else text[span[0] : span[1]]
            drop.add((finding.line or 1) - 1)
    if not moved:
        return None
    eol = "\r" if lines[0].endswith("\r") else ""
    fence = doc.body_line - 2  # the index of the closing fence's line
    if old_meta:
        children = [p for path, p in meta.keys.items() if len(path) == 2 and path[0] == "metadata"]
        if not children or any(p.line <= meta.keys[("metadata",)].line for p in children):
            return None  # a flow mapping: left alone
        indent = " " * (children[0].column - 1)
        last = max(p.line for p in children) - 1
        while last + 1 < fence and lines[last + 1][:1] in (" ", "\t") and lines[last + 1].strip():
            last += 1
        after, header = last, []
    elif "metadata" in data:
        return None  # `metadata:` with no value, or an empty flow mapping
    else:
        indent, after, header = "  ", fence - 1, [f"metadata:{eol}"]
    added = header + [
        f"{indent}{k}: {json.dumps(v, ensure_ascii=False)}{eol}" for k, v in moved.items()
    ]
    out_lines: list[str] = []
    for index, line in enumerate(lines):
        if index not in drop:
            out_lines.append(line)
        if index == after:
            out_lines += added
    out = "\n".join(out_lines)
    change: dict[str, Any] = {key: _GONE for key in moved}
    change["metadata"] = {**(old_meta or {}), **moved}
    if not _expect(doc, out, project, change):
        return None
    names = ", ".join(moved)
    note = f"moved under metadata: {names} (a tool that read them at the top level no longer does)"
    return out, [note], []


def fix_legacy_key(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """PRJ003: the key `apf` renamed `apc` (only when `apc` is absent)."""
    data = doc.data
    if doc.meta is None or "apf" not in data or "apc" in data:
        return None
    pos = doc.meta.keys.get(("apf",))
    start = _json_offset(text, pos.line, pos.column) if pos else None
    if start is None or text[start : start + 5] != '"apf"':
        return None
    out = text[:start] + '"apc"' + text[start + 5 :]
    if not _expect(doc, out, project, {"apf": _GONE, "apc": data["apf"]}):
        return None
    return out, [], []


def fix_spec_version(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """PRJ002 (no spec-version key): `"apc": "<spec version>"` added as the first key."""
    data, meta = doc.data, doc.meta
    if meta is None or not isinstance(meta.data, dict) or "apc" in data or "apf" in data:
        return None
    top = meta.values.get(())
    brace = _json_offset(text, top.line, top.column) if top else None
    if brace is None or text[brace : brace + 1] != "{":
        return None
    entry = f'"apc": {json.dumps(APC_SPEC_VERSION)}'
    keys = [meta.keys[(k,)] for k in data if (k,) in meta.keys]
    if not keys:
        out = text[: brace + 1] + entry + text[brace + 1 :]
    else:
        first = min(keys, key=lambda p: (p.line, p.column))
        at = _json_offset(text, first.line, first.column)
        if at is None:
            return None
        gap = text[brace + 1 : at]
        sep = gap if "\n" in gap else " "
        out = text[:at] + entry + "," + sep + text[at:]
    if not _expect(doc, out, project, {"apc": APC_SPEC_VERSION}):
        return None
    return out, [], []


_ENV_NAME = re.compile(r"[^A-Za-z0-9_]+")
_SCHEME = re.compile(r"^(Bearer|Basic|Token|Bot)[ \t]+(?=\S)", re.I)


def _variable(server: str, table: str, name: str) -> str:
    if table == "env" and re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
        return name
    raw = name if table == "env" else f"{server}_{name}"
    out = _ENV_NAME.sub("_", raw).strip("_").upper() or "SECRET"
    return out if not out[0].isdigit() else f"_{out}"


def fix_mcp_secret(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """MCP003: a literal secret in `env` or `headers` replaced by `${env:NAME}`."""
    meta = doc.meta
    servers = doc.data.get("mcpServers")
    if meta is None or not isinstance(servers, dict):
        return None
    sites: list[tuple[int, int, str, str]] = []  # start, end, new JSON string, old value
    hidden: list[str] = []  # each secret as decoded and as written (JSON escapes such as \u0073)
    notes: list[str] = []
    new_servers = json.loads(json.dumps(servers))
    for server, config in servers.items():
        if not isinstance(config, dict):
            continue
        for table in ("env", "headers"):
            values = config.get(table)
            if not isinstance(values, dict):
                continue
            for name, value in values.items():
                if not isinstance(value, str) or not detect.literal_secret(name, value):
                    continue
                pos = meta.values.get(("mcpServers", server, table, name))
                start = _json_offset(text, pos.line, pos.column) if pos else None
                if start is None or text[start : start + 1] != '"':
                    continue
                decoded, end = scanstring(text, start + 1)
                if decoded != value:
                    continue
                variable = _variable(server, table, name)
                scheme = _SCHEME.match(value) if table == "headers" else None
                placeholder = (scheme.group(0) if scheme else "") + f"${{env:{variable}}}"
                sites.append((start, end, json.dumps(placeholder, ensure_ascii=False), value))
                hidden += [value, text[start + 1 : end - 1]]
                new_servers[server][table][name] = placeholder
                notes.append(
                    f"mcpServers.{server}.{table}.{name}: set {variable} in your environment (or "
                    ".apc/mcps.local.json) to the old value, and rotate it: it was committed"
                )
    if not sites:
        return None
    out = text
    for start, end, new, _ in sorted(sites, reverse=True):
        out = out[:start] + new + out[end:]
    if not _expect(doc, out, project, {"mcpServers": new_servers}):
        return None
    return out, notes, hidden


def _dot_slash(entry: str) -> str | None:
    """``entry`` with the ``./`` Claude Code requires, or None when adding it cannot be right
    (absolute, a URL, leaving the plugin, already prefixed)."""
    if entry.startswith(("./", "/", "~", "../")) or entry in (".", "..", "") or "://" in entry:
        return None
    if "\\" in entry or entry.startswith(".\\"):
        return None
    return "./" + entry


def fix_manifest_paths(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """PLG010 (a path without ``./``): ``./`` added to each relative entry of the manifest's
    `agents`, `commands`, `skills`, `hooks`, `mcpServers`, `outputStyles` and `lspServers`
    (of a plugin.json, or of each marketplace entry); other causes are left for you."""
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict):
        return None
    from apc_tools.contract.checks.plugins import PATH_KEYS

    data = meta.data
    blocks: list[tuple[tuple[str | int, ...], dict[str, Any]]] = []
    if doc.kind == "plugin-manifest":
        blocks.append(((), data))
    elif doc.kind == "plugin-marketplace" and isinstance(data.get("plugins"), list):
        entries = enumerate(data["plugins"])
        blocks += [(("plugins", i), e) for i, e in entries if isinstance(e, dict)]
    edits: list[tuple[int, str, str]] = []  # (offset of the string's quote, old JSON, new JSON)
    for base, block in blocks:
        for key in PATH_KEYS:
            value = block.get(key)
            items: list[tuple[tuple[int, ...], str]] = []
            if isinstance(value, str):
                items = [((), value)]
            if isinstance(value, list):
                items = [((i,), v) for i, v in enumerate(value) if isinstance(v, str)]
            for sub, entry in items:
                assert isinstance(entry, str)
                new = _dot_slash(entry)
                pos = meta.values.get((*base, key, *sub))
                at = _json_offset(text, pos.line, pos.column) if pos and new else None
                old = json.dumps(entry, ensure_ascii=False)
                if at is None or new is None or not text.startswith(old, at):
                    continue
                edits.append((at, old, json.dumps(new, ensure_ascii=False)))
    if not edits:
        return None
    out = text
    for at, old, new in sorted(edits, reverse=True):
        out = out[:at] + new + out[at + len(old) :]
    again, _ = parse_doc(doc.kind, doc.rel, _text_file(doc.path, out))
    if again.meta is None or not again.meta.ok or not isinstance(again.meta.data, dict):
        return None
    return out, [], []


def fix_gitignore(doc: Doc, text: str, project: Project, found: list[Finding]) -> Edit | None:
    """GIG001: the missing safe defaults appended; existing lines untouched."""
    missing = missing_defaults(text)
    if not missing:
        return None
    eol = _eol(text)
    lead = eol if text and not text.endswith(("\n", "\r")) else ""
    return text + lead + eol.join(missing) + eol, [], []


FIXERS: dict[str, Fixer] = {
    "YML005": fix_lenient,
    "SKL007": fix_closing_fence,
    "INS010": fix_lost_header,
    "SKL006": fix_unknown_keys,
    "AGT004": fix_agent_name,
    "SKL004": fix_skill_name,
    "SKL005": fix_description_length,
    "PRJ003": fix_legacy_key,
    "PRJ002": fix_spec_version,
    "MCP003": fix_mcp_secret,
    "GIG001": fix_gitignore,
    "PLG010": fix_manifest_paths,
}
"""Every fixer, in the order they run on a file (each sees the file as the previous left it).
FMT002 (the BOM) and GIG002 (a missing .apc/.gitignore) are whole-file fixes of
:func:`_plan_doc` and :func:`_plan_gitignore`."""

BOM = "FMT002"
FILE_FIXES = (BOM, "GIG002")


# --------------------------------------------------------------------------- planning


def _text_file(display: str, text: str, bom: bool = False) -> io.TextFile:
    return io.TextFile(display, text, hashlib.sha256(text.encode()).hexdigest(), bom)


@cache
def fix_kinds() -> dict[str, str | None]:
    """Rule ID -> its fix ("safe", "unsafe" or None), for the rules validation reports."""
    from apc_tools.contract.rules import RULES as CONTRACT_RULES
    from apc_tools.core.rules import RULES as CORE_RULES

    return {r.id: r.fix for r in (*CORE_RULES, *CONTRACT_RULES)}


def _kinds(unsafe: bool) -> frozenset[str]:
    return frozenset({"safe", "unsafe"} if unsafe else {"safe"})


def _read_raw(path: Path) -> bytes | None:
    given = io.overlay_bytes(path)  # an editor's buffer (plan_fixes with texts)
    if given is not None:
        return given[: io.MAX_BYTES + 1]
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, "rb") as handle:
            return handle.read(io.MAX_BYTES + 1)
    except OSError:
        return None


Read = tuple[bytes, "os.stat_result | None", "os.stat_result | None"]


def _read_in(root: Path, path: Path) -> Read | None:
    """``path``'s bytes, read through its folder opened from ``root`` without following a
    link (:func:`apc_tools.core.files.open_below`), with the identities of that folder and of
    the file; None when a folder of the path or the file is a link, or not what it should be.
    An editor's buffer (plan_fixes with texts: planned, never written here) is read as given."""
    if not io.BY_DESCRIPTOR or io.overlay_bytes(path) is not None:  # no dir_fd, or a buffer
        raw = _read_raw(path)
        return (raw, None, None) if raw is not None and io.folder_inside(root, path) else None
    try:
        folder = io.open_below(root, path.parent)
    except (OSError, ValueError):
        return None
    try:
        read = io.read_at(folder, path.name)
        return None if read is None else (read[0], os.fstat(folder), read[1])
    finally:
        os.close(folder)


@dataclass
class _Plan:
    """The fixes of one project: new text per doc (by rel), notes, the created gitignore."""

    project: Project
    texts: dict[str, str] = field(default_factory=dict)
    fixes: dict[str, FileFix] = field(default_factory=dict)  # rel -> FileFix


def _plan_doc(
    doc: Doc,
    project: Project,
    findings: list[Finding],
    kinds: frozenset[str],
    rules: dict[str, str | None],
) -> tuple[FileFix | None, str, str | None]:
    """(the fix, new text, why not) for one doc and its selected findings."""
    abspath = project.root / doc.rel
    read = _read_in(project.root, abspath)
    if read is None:
        return None, doc.text, "not a regular file inside the project (a symlink?): not fixed"
    raw = read[0]
    had_bom = raw.startswith(b"\xef\xbb\xbf")
    if raw[3 if had_bom else 0 :] != doc.text.encode("utf-8"):
        return None, doc.text, "changed while apc read it: not fixed"
    by_rule: dict[str, list[Finding]] = {}
    for finding in findings:
        if rules.get(finding.rule) in kinds:
            by_rule.setdefault(finding.rule, []).append(finding)
    text, current = doc.text, doc
    fix = FileFix(abspath, project.root, doc.path, raw, raw, folder=read[1], file=read[2])
    for rule_id, fixer in FIXERS.items():
        if rule_id not in by_rule:
            continue
        edit = fixer(current, text, project, by_rule[rule_id])
        if edit is None:
            continue
        text, notes, secrets = edit
        current, _ = parse_doc(doc.kind, doc.rel, _text_file(doc.path, text))
        fix.notes[rule_id] = notes
        fix.secrets += secrets
    keep_bom = had_bom and "FMT002" not in by_rule
    fix.bom_removed = had_bom and not keep_bom
    fix.after = (b"\xef\xbb\xbf" if keep_bom else b"") + text.encode("utf-8")
    if fix.after == raw:
        return None, doc.text, None
    return fix, text, None


def _plan_gitignore(project: Project, finding: Finding) -> FileFix | None:
    """GIG002: `.apc/.gitignore` created with the safe defaults."""
    folder = project.root / ".apc"
    target = folder / ".gitignore"
    if folder.is_symlink() or not folder.is_dir() or os.path.lexists(target):
        return None
    if not io.folder_inside(project.root, target):
        return None
    identity = None
    if io.BY_DESCRIPTOR:
        try:
            fd = io.open_below(project.root, folder)
        except (OSError, ValueError):
            return None
        identity = os.fstat(fd)
        os.close(fd)
    body = "\n".join(SAFE_DEFAULTS) + "\n"
    return FileFix(target, project.root, finding.path, None, body.encode(), folder=identity)


def _project_findings(
    project: Project, texts: dict[str, str], policy: Policy, root: str, boms: frozenset[str]
) -> Counter[tuple[str, str]]:
    """(rule, path) counts of ``project`` validated in memory with ``texts`` (rel -> text) in
    place of its files' text (a rel not among its docs is a created file); ``boms``: the display
    paths of the files that start with a byte-order mark."""
    docs: list[Doc] = []
    found: list[Finding] = []
    seen = set()
    for doc in project.docs:
        text = texts.get(doc.rel, doc.text)
        again, problems = parse_doc(doc.kind, doc.rel, _text_file(doc.path, text, doc.path in boms))
        docs.append(again)
        found += problems
        seen.add(doc.rel)
    created = [rel for rel in texts if rel not in seen]
    for rel in created:
        kind = classify(rel)
        if kind is None:
            continue
        again, problems = parse_doc(kind, rel, _text_file(project.display_path(rel), texts[rel]))
        docs.append(again)
        found += problems
    moved = replace(project, docs=docs, files=project.files | frozenset(created))
    found += check_project(moved)
    return Counter((f.rule, f.path) for f in policy.apply(found, root))


@dataclass
class _Check:
    """What a project's fixes are checked against: its findings before, policy, BOMs."""

    project: Project
    policy: Policy
    root: str
    boms: frozenset[str]
    fixes: dict[str, FileFix]

    def counts(self, texts: dict[str, str]) -> Counter[tuple[str, str]]:
        gone = {self.fixes[rel].display for rel in texts if self.fixes[rel].bom_removed}
        return _project_findings(self.project, texts, self.policy, self.root, self.boms - gone)


def _verified(check: _Check, texts: dict[str, str], before: Counter[tuple[str, str]]) -> bool:
    after = check.counts(texts)
    grew = any(count > before.get(key, 0) for key, count in after.items())
    return not grew and sum(after.values()) < sum(before.values())


def _record(
    fixes: list[FileFix],
    selected: list[Finding],
    before: Counter[tuple[str, str]],
    after: Counter[tuple[str, str]],
) -> list[FileFix]:
    """``fixes`` with the findings each one removed (the counts that went down) and its notes."""
    for fix in fixes:
        gone = {
            rule: before[(rule, path)] - after[(rule, path)]
            for rule, path in before
            if path == fix.display
        }
        for finding in selected:
            if finding.path == fix.display and gone.get(finding.rule, 0) > 0:
                gone[finding.rule] -= 1
                notes = fix.notes.get(finding.rule) or [""]
                fix.applied.append(Applied(finding.rule, fix.display, finding.line, notes.pop(0)))
    return fixes


def plan_project(
    project: Project,
    selected: list[Finding],
    policy: Policy,
    root_display: str,
    kinds: frozenset[str],
    outcome: FixOutcome,
    boms: frozenset[str] = frozenset(),
) -> list[FileFix]:
    """The verified fixes of one project for its ``selected`` findings."""
    rules = fix_kinds()
    by_path: dict[str, list[Finding]] = {}
    for finding in selected:
        by_path.setdefault(finding.path, []).append(finding)
    texts: dict[str, str] = {}
    fixes: dict[str, FileFix] = {}
    for doc in project.docs:
        mine = by_path.get(doc.path, [])
        if not any(rules.get(f.rule) in kinds for f in mine):
            continue
        if any(f.rule in NOT_SAFE_TO_FIX for f in mine) or _parse_blocked(doc):
            outcome.skipped.append((doc.path, "apc could not parse it safely: not fixed"))
            continue
        fix, text, why = _plan_doc(doc, project, mine, kinds, rules)
        if why:
            outcome.skipped.append((doc.path, why))
        if fix is not None:
            texts[doc.rel], fixes[doc.rel] = text, fix
    if "safe" in kinds:
        for finding in selected:
            if finding.rule == "GIG002":
                created = _plan_gitignore(project, finding)
                if created is not None:
                    texts[".apc/.gitignore"] = created.after.decode()
                    fixes[".apc/.gitignore"] = created
    if not fixes:
        return []
    check = _Check(project, policy, root_display, boms, fixes)
    before = check.counts({})
    if _verified(check, texts, before):
        return _record(list(fixes.values()), selected, before, check.counts(texts))
    kept: dict[str, str] = {}
    for rel in list(fixes):
        trial = {**kept, rel: texts[rel]}
        if _verified(check, trial, before):
            kept = trial
        else:
            outcome.skipped.append(
                (fixes[rel].display, "the fix would add a finding elsewhere: not fixed")
            )
    return _record([fixes[rel] for rel in kept], selected, before, check.counts(kept))


def _parse_blocked(doc: Doc) -> bool:
    return doc.meta is not None and not doc.meta.ok


def plan_fixes(
    paths: Sequence[Path],
    *,
    unsafe: bool = False,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    texts: Mapping[Path, bytes] | None = None,
    selection: Selection | None = None,
) -> FixOutcome:
    """Every fix for the findings `apc validate PATHS` reports (safe ones; unsafe ones too with
    ``unsafe``), planned and verified but not written (see :func:`write_fixes`). ``texts``:
    bytes that stand in for the files at those paths (an editor's unsaved buffers), as in
    :func:`apc_tools.contract.validate.run_validate`. ``selection`` (``--select``/``--ignore``)
    limits the fixes exactly as it limits the report, as ruff's."""
    with io.overlaid(texts):
        return _plan_fixes(paths, unsafe, profile, config_path, cwd, selection)


def _plan_fixes(
    paths: Sequence[Path],
    unsafe: bool,
    profile: str | None,
    config_path: Path | None,
    cwd: Path | None,
    selection: Selection | None,
) -> FixOutcome:
    from apc_tools.contract.validate import start_run

    layout, scans, policy = start_run(paths, profile, config_path, cwd)
    repos = [_repository(layout.cwd, p) for p in paths] or [layout.report_root().resolve()]
    if selection is not None:
        policy = policy.selected(selection)
    profile = profile or policy.profile or "default"
    kinds = _kinds(unsafe)
    rules = fix_kinds()
    outcome = FixOutcome(layout=layout)
    for scan in scans:
        _run_scan(scan, layout, profile, policy)
        root_display = layout.display(scan.root)
        selected = policy.apply(_select(scan, layout, profile)[0], root_display)
        if not unsafe:
            outcome.unsafe_left += sum(1 for f in selected if rules.get(f.rule) == "unsafe")
        boms = frozenset(f.path for f in scan.found if f.rule == BOM)
        for project in scan.projects:
            planned = plan_project(project, selected, policy, root_display, kinds, outcome, boms)
            for fix in planned:
                fix.repo = next((r for r in repos if _below(r, fix.abspath.parent)), repos[0])
            outcome.files += planned
    return outcome


def _repository(cwd: Path, path: Path) -> Path:
    """The repository a fix of ``path`` may write in: the git top level (else the project
    root) around the folders of ``path`` as named, up to the first symlink, never where a link
    leads. CannotRun when ``path`` resolves outside it (a symlink into another project)."""
    named = Path(os.path.normpath(cwd / path))
    anchor = Path(named.anchor)
    for part in named.parts[1:]:
        step = anchor / part
        if step.is_symlink() or not step.is_dir():
            break
        anchor = step
    repo = report_root(anchor).resolve()
    target = _absolute(cwd / path)
    if not _below(repo, target if target.is_dir() else target.parent):
        raise CannotRun(
            f"{path}: resolves to {target}, outside the repository {repo}: --fix writes only "
            "inside the repository it fixes (run it in that project to fix it there)"
        )
    return repo


def write_fixes(outcome: FixOutcome) -> list[tuple[str, str]]:
    """Write every planned fix atomically; (display path, why) of each one not written."""
    failed: list[tuple[str, str]] = []
    for fix in outcome.files:
        why = _write(fix)
        if why:
            failed.append((fix.display, why))
    return failed


def _write(fix: FileFix) -> str | None:
    """Write one fix. Its folder is opened from the repository root one component at a time,
    never through a link, and must be the folder the fix read (same ``st_dev``/``st_ino``); the
    file is re-read, its temporary written and renamed through that descriptor, and the file
    must still be the one read right before the rename: a folder swapped for a link to
    elsewhere meanwhile is never written into (issue 30, item 7)."""
    target = fix.abspath
    base = fix.repo or fix.root
    if not _below(base, target.parent):
        return f"outside the repository being fixed ({base}): not written"
    if not io.BY_DESCRIPTOR:
        return _write_by_path(fix)
    try:
        folder = io.open_below(base, target.parent)
    except (OSError, ValueError):
        return "a folder of its path is a symlink now (or is gone): not written"
    try:
        return _write_in(folder, fix)
    finally:
        os.close(folder)


def _below(root: Path, path: Path) -> bool:
    return path == root or root in path.parents


CHANGED = "changed since apc read it (or became a symlink): not written"


def _write_in(folder: int, fix: FileFix) -> str | None:
    name = fix.abspath.name
    if fix.folder is not None and not io.same_file(os.fstat(folder), fix.folder):
        return "its folder was replaced since apc read it: not written"
    read = None
    if fix.before is not None:
        read = io.read_at(folder, name)
        if read is None or read[0] != fix.before:
            return CHANGED
        if fix.file is not None and not io.same_file(read[1], fix.file):
            return CHANGED
    mode = stat.S_IMODE(read[1].st_mode) if read is not None else 0o644
    try:
        handle, temp = _temporary(folder)
    except OSError as exc:
        return f"cannot write in its folder: {exc.strerror or exc}"
    written: str | None = temp
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(fix.after)
            out.flush()
            os.fsync(out.fileno())
            os.fchmod(out.fileno(), mode)
        if read is None:
            try:
                os.link(temp, name, src_dir_fd=folder, dst_dir_fd=folder)  # never over a file
            except FileExistsError:
                return "created by someone else meanwhile: not written"
        else:
            now = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if not io.same_file(now, read[1]):
                return CHANGED
            os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
            written = None
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    finally:
        if written is not None:
            with suppress(FileNotFoundError):
                os.unlink(written, dir_fd=folder)
    return None


def _temporary(folder: int) -> tuple[int, str]:
    """A new temporary file in the open ``folder`` (never through a link)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = f".apc-fix-{token_hex(6)}.tmp"
        try:
            return os.open(name, flags, 0o600, dir_fd=folder), name
        except FileExistsError:
            continue
    raise FileExistsError("no free temporary name")


def _write_by_path(fix: FileFix) -> str | None:
    """:func:`_write` where folders cannot be opened (no ``dir_fd``): by path."""
    target = fix.abspath
    if not io.folder_inside(fix.root, target) or target.parent.is_symlink():
        return "outside the project (a symlinked folder?): not written"
    if fix.before is not None:
        if _read_raw(target) != fix.before:
            return CHANGED
        mode = stat.S_IMODE(os.lstat(target).st_mode)
    else:
        mode = 0o644
    try:
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".apc-fix-", suffix=".tmp")
    except OSError as exc:
        return f"cannot write in its folder: {exc.strerror or exc}"
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(fix.after)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        if fix.before is None:
            try:
                os.link(temp, target)  # never over a file created meanwhile
            except FileExistsError:
                return "created by someone else meanwhile: not written"
        else:
            os.replace(temp, target)
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)
    return None


def fix_paths(
    paths: Sequence[Path],
    *,
    unsafe: bool = False,
    write: bool = True,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    selection: Selection | None = None,
) -> FixOutcome:
    """Plan the fixes and (``write``) write them: what `apc validate --fix` does."""
    outcome = plan_fixes(
        paths,
        unsafe=unsafe,
        profile=profile,
        config_path=config_path,
        cwd=cwd,
        selection=selection,
    )
    rooted(outcome)
    if write:
        failed = write_fixes(outcome)
        if failed:
            bad = {shown for shown, _ in failed}
            outcome.files = [f for f in outcome.files if f.display not in bad]
            outcome.skipped += failed
    return outcome


def rooted(outcome: FixOutcome) -> FixOutcome:
    """``outcome`` with every path relative to its run's report root, as `apc validate`
    reports them (:func:`apc_tools.contract.validate.rooted`), whatever folder apc ran from."""
    if outcome.layout is None:
        return outcome
    cwd, root = outcome.layout.cwd, outcome.layout.report_root()

    def move(path: str) -> str:
        rel = os.path.relpath(os.path.normpath(cwd / path), root)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
            return path
        return Path(rel).as_posix()

    for fix in outcome.files:
        fix.display = move(fix.display)
        fix.applied = [replace(a, path=move(a.path)) for a in fix.applied]
    outcome.skipped = [(move(shown), why) for shown, why in outcome.skipped]
    return outcome


def summary_lines(outcome: FixOutcome, *, wrote: bool) -> Iterable[str]:
    """What to tell the user: each fix's notes, what was not fixed and why, the counts."""
    for applied in outcome.applied:
        if applied.note:
            where = applied.path + (f":{applied.line}" if applied.line else "")
            yield f"{where}: {applied.rule}: {applied.note}"
    for shown, why in outcome.skipped:
        yield f"{shown}: {why}"
    count = len(outcome.applied)
    files = len(outcome.files)
    verb = "fixed" if wrote else "would fix"
    yield (
        f"apc: {verb} {count} finding{'' if count == 1 else 's'} in {files} "
        f"file{'' if files == 1 else 's'}"
    )
    if outcome.unsafe_left:
        yield (
            f"apc: {outcome.unsafe_left} more finding{'' if outcome.unsafe_left == 1 else 's'} "
            "may be fixed with --unsafe-fixes (an identity or a value changes: review them)"
        )
