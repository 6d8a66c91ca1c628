"""What every session container shares: the file as lines, the add-only plan, the report.

A session file belongs to another program, so its repair is **add-only**: existing lines are
copied byte for byte (also lines apc cannot parse), new lines are inserted where the tool itself
would put them, and nothing is dropped, reordered or rewritten (the one exception, Claude Code
``--reparent``, is asked for and reported). New ids are UUIDv5 of the session id and the call id
and timestamps are copied from the call, so repairing twice gives the bytes of repairing once.
"""

from __future__ import annotations

import gc
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NamedTuple

from apc_tools.findings import CannotRun

#: The namespace of every id apc invents: UUIDv5 over "<session id>:<call id>" in the
#: namespace uuid5(NAMESPACE_URL, NAMESPACE_NAME). (uuid and hashlib are imported when first
#: needed: fingerprinting a file must stay cheap.)
NAMESPACE_NAME = "https://github.com/apc-tools/apc-tools/repair"


class SessionError(CannotRun):
    """The session file cannot be repaired as it is (exit 2). The message names the file."""


def new_id(session: str, call_id: str) -> str:
    """The deterministic id of the synthetic record that answers ``call_id``."""
    import uuid

    namespace = uuid.uuid5(uuid.NAMESPACE_URL, NAMESPACE_NAME)
    return str(uuid.uuid5(namespace, f"{session}:{call_id}"))


class Line:
    """One line of the file: where its bytes are (ending included) and the object it holds.

    (Plain classes here, not dataclasses: this module is imported to fingerprint every file
    ``apc repair`` reads, and each dataclass costs its generated code at start.)
    """

    __slots__ = ("end", "number", "problem", "record", "start")

    def __init__(
        self, number: int, start: int, end: int, record: dict[str, Any] | None, problem: str = ""
    ) -> None:
        self.number = number  # 1-based
        self.start = start
        self.end = end
        self.record = record
        self.problem = problem  # why ``record`` is None


class Stamp(NamedTuple):
    """What the file was when read: compared again right before it is replaced."""

    size: int
    mtime_ns: int
    sha256: str


class SessionFile:
    """A JSONL session file, read whole: its bytes and, per line, the object it holds."""

    def __init__(
        self, path: Path, data: bytes, lines: list[Line], stamp: Stamp, final_newline: bool
    ) -> None:
        self.path = path
        self.data = data
        self.lines = lines
        self.stamp = stamp
        self.final_newline = final_newline
        self.compact = True
        self.ensure_ascii = False

    @classmethod
    def read(cls, path: Path, data: bytes | None = None) -> SessionFile:
        """Read ``path`` (or take ``data``, its bytes read from a stream: then it has no mtime
        and cannot be replaced)."""
        import hashlib

        info = 0
        if data is None:
            with path.open("rb") as fh:
                info = _fstat(fh.fileno())
                data = fh.read()
        stamp = Stamp(len(data), info, hashlib.sha256(data).hexdigest())
        parts = data.split(b"\n")
        final_newline = parts[-1] == b""
        if final_newline:
            parts.pop()
        with quiet_gc():
            lines = _lines(parts, final_newline)
        session = cls(path, data, lines, stamp, final_newline)
        session._learn()
        return session

    def raw(self, index: int) -> bytes:
        """The bytes of line ``index`` (0-based), its line ending included."""
        line = self.lines[index]
        return self.data[line.start : line.end]

    def _learn(self) -> None:
        for index, line in enumerate(self.lines):
            if line.record is not None:
                text = self.raw(index).decode("utf-8", errors="replace")
                self.compact = not _SPACED.match(text)
                self.ensure_ascii = _escapes(text)
                return

    def dumps(self, record: dict[str, Any]) -> bytes:
        """A new line in the file's own style (compact like Claude Code and Codex write)."""
        separators = (",", ":") if self.compact else (", ", ": ")
        text = json.dumps(record, separators=separators, ensure_ascii=self.ensure_ascii)
        return text.encode("utf-8")

    def records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """(0-based line index, record) of every line holding a JSON object."""
        for index, line in enumerate(self.lines):
            if line.record is not None:
                yield index, line.record


@contextmanager
def quiet_gc() -> Iterator[None]:
    """No cyclic garbage collection inside: a session's records are a hundred thousand new,
    acyclic dicts, and every collection would walk them all (reference counting frees them)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _lines(parts: list[bytes], final_newline: bool) -> list[Line]:
    lines = []
    offset = 0
    last = len(parts) - 1
    for index, part in enumerate(parts):
        end = offset + len(part) + (1 if index < last or final_newline else 0)
        body = part[3:] if index == 0 and part.startswith(b"\xef\xbb\xbf") else part
        record, problem = _parse(body)
        lines.append(Line(index + 1, offset, end, record, problem))
        offset = end
    return lines


_DECODE = json.JSONDecoder().raw_decode
# Only white space to the end. The lookbehind makes a search start only where a run begins (a
# run of spaces would otherwise be rescanned from each of its positions; see the hang guards).
_TRAILING = re.compile(r"(?<![ \t\r])[ \t\r]*\Z")


def _parse(body: bytes) -> tuple[dict[str, Any] | None, str]:
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8"
    if not text.strip():
        return None, "blank"
    try:
        value, end = _DECODE(text, len(text) - len(text.lstrip()))
    except (ValueError, RecursionError) as exc:
        reason = "not valid JSON" if not isinstance(exc, RecursionError) else "nested too deep"
        return None, reason
    if not _TRAILING.match(text, end):
        return None, "not valid JSON"
    if not isinstance(value, dict):
        return None, f"a JSON {type(value).__name__}, not an object"
    return value, ""


# Anchored (it is only used with .match) and without `\s*` before `[^,]*?` (the same language;
# the two overlapping quantifiers made a long run of spaces after the colon quadratic).
_SPACED = re.compile(r'\A\s*\{\s*"(?:[^"\\]|\\.)*"(?:\s*:\s|:[^,]*?, )')
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _escapes(text: str) -> bool:
    return "\\u" in text and not _NON_ASCII.search(text)


def _fstat(fd: int) -> int:
    import os

    return os.fstat(fd).st_mtime_ns


class Note(NamedTuple):
    """One thing the repair (or check) reports: a rule id, the 1-based line, a message."""

    rule: str
    line: int | None
    message: str


class Plan:
    """What to write: lines inserted after a line index (-1: at the start), lines replaced."""

    def __init__(self) -> None:
        self.inserts: dict[int, list[bytes]] = {}
        self.replaced: dict[int, bytes] = {}
        self.notes: list[Note] = []
        self.closed = 0

    def insert_after(self, index: int, text: bytes) -> None:
        self.inserts.setdefault(index, []).append(text)

    @property
    def changed(self) -> bool:
        return bool(self.inserts or self.replaced)


def render(session: SessionFile, plan: Plan) -> Iterator[bytes]:
    """The file with the plan applied: the bytes between changes are copied as read."""
    data = session.data
    first = session.raw(0) if session.lines else b""
    newline = b"\r\n" if first.endswith(b"\r\n") else b"\n"
    for text in plan.inserts.get(-1, ()):
        yield text + newline
    position = 0
    for index in sorted(set(plan.inserts) | set(plan.replaced)):
        if index < 0:
            continue
        line = session.lines[index]
        if index in plan.replaced:
            yield data[position : line.start]
            raw = plan.replaced[index]
        else:
            raw = data[position : line.end]
        position = line.end
        added = plan.inserts.get(index)
        if added and raw and not raw.endswith(b"\n"):
            raw += newline  # the last line gains its end before what follows it
        yield raw
        for text in added or ():
            yield text + newline
    yield data[position:]


def bad_line_notes(session: SessionFile) -> list[Note]:
    """RPR014 for every line that is not a JSON object (blank lines are not reported)."""
    return [
        Note("RPR014", line.number, f"line {line.number}: {line.problem}; kept as it is")
        for line in session.lines
        if line.record is None and line.problem not in ("blank", "left out")
    ]


def torn_tail(session: SessionFile) -> Line | None:
    """The last non-blank line, when it is not JSON (cut mid-write): appending after it would
    bury it in the middle of the file, so the repair needs --skip-bad-lines (it is then left
    out, reported RIO001)."""
    for line in reversed(session.lines):
        if line.problem == "blank":
            continue
        return line if line.record is None and line.problem == "not valid JSON" else None
    return None


def text_id(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class Options(NamedTuple):
    """What the caller allows beyond the add-only default."""

    reparent: bool = False  # Claude Code: close a mid-chain call by re-attaching its child


class Projection:
    """The records the tool would send, in a wire format, with the file line of each."""

    def __init__(self, wire: str) -> None:
        self.wire = wire
        self.records: list[dict[str, Any]] = []
        self.lines: list[int] = []

    def add(self, record: dict[str, Any], line: int) -> None:
        self.records.append(record)
        self.lines.append(line)
