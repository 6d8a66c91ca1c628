"""What a history file is: its layout and style, the record types the reader yields, and
how the layout is detected from the first bytes (read once: a pipe cannot be read twice)."""

from __future__ import annotations

import codecs
import io
import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, NamedTuple

from apc_tools.findings import CannotRun, Rule, Severity

LIST_KEYS = ("messages", "input", "contents")
"""The keys of a JSON object that hold a wire history (Gemini CLI checkpoints add ``history``)."""
JSONL_SUFFIXES = (".jsonl", ".ndjson")
MiB = 1 << 20
DEFAULT_MAX_RECORD_BYTES = 64 * MiB
"""The largest single record (one JSONL line, one element of a JSON list) accepted."""

HEAD_BYTES = 1 * MiB  # how much of the file the layout detection looks at
CHUNK_CHARS = 1 * MiB  # read size of the JSON scanner

BAD_LINE = Rule(
    id="RIO001",
    name="history-bad-line",
    severity=Severity.WARNING,
    summary="A JSONL history line is not a JSON object and was left out of the repair.",
    explanation=(
        "With --skip-bad-lines, `apc repair` leaves out every JSONL line that is not one JSON "
        "object (cut mid-write, or not JSON at all) and repairs the rest. The line is missing "
        "from the repaired output: fix or remove it in the source, or write the repair to a new "
        "file with -o and keep the original."
    ),
    good='{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hello"}\n',
    bad='{"role": "user", "content": "hi"}\n{"role": "assistant", "content": "hel\n',
    family="runtime",
)
IO_RULES = (BAD_LINE,)


class HistoryError(CannotRun):
    """The history file cannot be read as a history. The message names the file (and place)."""


# --------------------------------------------------------------------------------------------
# Layout and style


@dataclass(frozen=True)
class Style:
    """How the input was written, so the output can be written the same way."""

    indent: int | str | None = None  # None: compact; N spaces; or a literal string such as "\t"
    item_sep: str = ", "
    key_sep: str = ": "
    inline_records: bool = False  # pretty-printed list with one compact record per line
    ensure_ascii: bool = False  # the input escaped every non-ASCII character (json.dumps default)
    newline: str = "\n"
    final_newline: bool = True


@dataclass(frozen=True)
class Layout:
    """``kind`` is ``"array"``, ``"object"`` or ``"jsonl"``; ``key`` the list's key in an object."""

    kind: str
    style: Style = field(default_factory=Style)
    key: str | None = None


@dataclass(frozen=True)
class BadLine:
    """A JSONL line left out with ``skip_bad_lines``."""

    line: int
    reason: str


class Located(NamedTuple):
    """A record, where it starts in the file (1-based; column None for JSONL), and its text."""

    line: int
    column: int | None
    record: dict[str, Any]
    raw: str


class RawText(str):
    """A record's text exactly as read, given to :func:`render_history` instead of the record
    when the record comes out of the repair unchanged: it is written byte for byte."""

    __slots__ = ()


Record = dict[str, Any] | RawText


@dataclass
class History:
    """A whole history in memory: its layout, the keys around the list, and the records."""

    layout: Layout
    records: list[dict[str, Any]]
    before: list[tuple[str, Any]] = field(default_factory=list)
    after: list[tuple[str, Any]] = field(default_factory=list)
    bad_lines: list[BadLine] = field(default_factory=list)


# --------------------------------------------------------------------------------------------
# Detection


def _open(path: Path) -> IO[bytes]:
    try:
        return path.open("rb")
    except IsADirectoryError:
        raise HistoryError(f"{path}: is a folder, not a history file") from None
    except FileNotFoundError:
        raise HistoryError(f"{path}: no such file") from None
    except OSError as exc:
        raise HistoryError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _head(path: Path, fh: IO[bytes]) -> tuple[bytes, bool, IO[bytes]]:
    """The first bytes for layout detection, whether they are the whole file, and a stream
    that reads the file from its start again. The file is opened and read once: a pipe
    (stdin, ``/dev/stdin``, a FIFO) cannot be read a second time."""
    try:
        start = fh.tell() if fh.seekable() else None
        data = fh.read(HEAD_BYTES + 1)
        if start is not None:
            fh.seek(start)
    except OSError as exc:
        raise HistoryError(f"{path}: cannot read: {exc.strerror or exc}") from None
    head, at_eof = data[:HEAD_BYTES], len(data) <= HEAD_BYTES
    return head, at_eof, fh if start is not None else _Replay.wrap(data, fh)


def replay(read: bytes, rest: IO[bytes]) -> IO[bytes]:
    """A stream that gives ``read`` (bytes already taken from ``rest``), then the rest."""
    return _Replay.wrap(read, rest)


class _Replay(io.RawIOBase):
    """A non-seekable stream with the bytes already read from it put back in front."""

    def __init__(self, read: bytes, rest: IO[bytes]) -> None:
        super().__init__()
        self._read, self._rest = memoryview(read), rest

    @classmethod
    def wrap(cls, read: bytes, rest: IO[bytes]) -> IO[bytes]:
        return io.BufferedReader(cls(read, rest), CHUNK_CHARS)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._read:
            count = min(len(buffer), len(self._read))
            buffer[:count] = self._read[:count]
            self._read = self._read[count:]
            return count
        # one read at most (read1): back in Python between reads, so a signal (SIGTERM) is
        # handled at once instead of after a blocking read for the rest of ``buffer``
        read = getattr(self._rest, "read1", self._rest.read)
        data = read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _head_text(path: Path, head: bytes, at_eof: bool) -> str:
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        raise HistoryError(f"{path}: UTF-16 text is not supported; save the history as UTF-8")
    if b"\x00" in head:
        raise HistoryError(
            f"{path}: binary file (NUL bytes), not a history; expected UTF-8 JSON or JSONL"
        )
    # Invalid UTF-8 is reported by the readers, with its line (a JSONL line can be skipped).
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    return decoder.decode(head, final=at_eof).removeprefix("\ufeff")


def _is_object_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped.startswith("{"):
        return False
    try:
        return isinstance(json.loads(stripped), dict)
    except (ValueError, RecursionError):
        return False


def _holds_list(line: str) -> bool:
    value = json.loads(line)
    return any(isinstance(value.get(k), list) for k in LIST_KEYS)


def _detect_kind(path: Path, text: str, at_eof: bool) -> str:
    stripped = text.lstrip()
    if not stripped:
        if at_eof:
            raise HistoryError(
                f"{path}: empty file; expected a JSON array, a JSON object holding "
                "'messages', 'input' or 'contents', or JSONL (one JSON object per line)"
            )
        return "jsonl"  # a megabyte of whitespace: let the line reader decide
    first = stripped[0]
    if first == "[":
        return "array"
    if first != "{":
        snippet = stripped[:30].split("\n", 1)[0]
        raise HistoryError(
            f"{path}: not a history file: expected a JSON array, a JSON object holding "
            "'messages', 'input' or 'contents', or JSONL (one JSON object per line); the file "
            f"starts with {snippet!r}"
        )
    return _object_or_jsonl(path, text, at_eof)


def _object_or_jsonl(path: Path, text: str, at_eof: bool) -> str:
    lines = text.split("\n", 64)  # 64 lines at most are looked at; the rest stays in one piece
    complete = lines if at_eof else lines[:-1]
    nonblank = [line for line in complete[:64] if line.strip()]
    suffix_says_jsonl = path.suffix.lower() in JSONL_SUFFIXES
    if nonblank and _is_object_line(nonblank[0]):
        if len(nonblank) > 1 or not at_eof:
            return "jsonl"  # a complete object on the first line, and more lines after it
        if _holds_list(nonblank[0]) or not suffix_says_jsonl:
            return "object"
        return "jsonl"  # a one-record .jsonl file
    if any(line.startswith("{") and _is_object_line(line) for line in nonblank[1:]):
        return "jsonl"  # the first line is broken, later lines are records
    return "jsonl" if suffix_says_jsonl else "object"


def _jsonl_newline(text: str) -> str:
    first = text.split("\n", 1)[0]
    return "\r\n" if first.endswith("\r") and "\n" in text else "\n"


def _with_style(layout: Layout, **changes: Any) -> Layout:
    return replace(layout, style=replace(layout.style, **changes))
