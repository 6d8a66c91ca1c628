"""Reading and writing history files: a JSON array, a JSON object holding the list, or JSONL.

Every layout is read as a stream, so a file of any size is processed with memory bounded by the
largest single record (and, for a JSON object, by the keys around the list):

* JSONL is read line by line; a broken line is an error naming its 1-based line number, or, with
  ``skip_bad_lines``, is left out and reported (:data:`BAD_LINE`).
* A JSON array, or the list under ``messages``, ``input`` or ``contents`` of a JSON object, is
  read record by record with :meth:`json.JSONDecoder.raw_decode` over a sliding buffer.

Writing mirrors the input: the same layout, the same keys around the list in the same order, the
same indentation (compact, ``indent=N``, tabs, or one record per line inside a pretty-printed
list), the same separators, line ending and final newline, with the encoder of ``json.dumps``
(``ensure_ascii=False`` unless the input escaped its non-ASCII characters). The style is learnt
from the records as they are read (:class:`_Learner`); and a caller may hand back a record's
text as read (:class:`RawText`) to have it copied byte for byte.

Every problem with the file itself is a :class:`HistoryError` (a :class:`CannotRun`: exit 2)
whose message names the file and, where it has one, the line and column.
"""

from __future__ import annotations

import codecs
import io
import json
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from types import TracebackType
from typing import IO, Any, NamedTuple

from apc_tools.findings import CannotRun, Finding, Rule, Severity

CONTAINER_KEYS = ("messages", "input", "contents")
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
    return any(isinstance(value.get(k), list) for k in CONTAINER_KEYS)


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


# --------------------------------------------------------------------------------------------
# Style detection


Candidate = tuple[bool, str, str]  # (one compact record per line, item separator, key separator)
LEARN_SAMPLES = 1000  # records (and keys) looked at to learn the style, at most


def _candidates(indent: int | str | None) -> list[Candidate]:
    """The styles json.dumps and JSON.stringify write, most common first."""
    seps = [(", ", ": "), (",", ":"), (",", ": "), (", ", ":")]
    if indent is None:
        return [(False, item, key) for item, key in seps]
    return [(False, ",", ": "), (False, ",", ":")] + [(True, item, key) for item, key in seps]


def _dumps(
    value: Any, indent: int | str | None, item_sep: str, key_sep: str, ascii: bool = False
) -> str:
    return _encoder(indent, item_sep, key_sep, ascii)(value)


@cache
def _encoder(
    indent: int | str | None, item_sep: str, key_sep: str, ascii: bool
) -> Callable[[Any], str]:
    """One encoder per style (json.dumps builds a new one per call when given options)."""
    encoder = json.JSONEncoder(ensure_ascii=ascii, indent=indent, separators=(item_sep, key_sep))
    return encoder.encode


def _render_as(value: Any, candidate: Candidate, style: Style, depth: int) -> str:
    """``value`` written in ``style`` changed to ``candidate``, at nesting ``depth``."""
    inline, item_sep, key_sep = candidate
    if style.indent is None or inline:
        return _dumps(value, None, item_sep, key_sep, style.ensure_ascii)
    text = _dumps(value, style.indent, ",", key_sep, style.ensure_ascii)
    return text.replace("\n", "\n" + _pad(style, depth)) if depth else text


class _Learner:
    """Narrows the candidate styles with each sample seen; the first one left is the style.

    A record that two candidates write identically does not decide between them, and cannot
    be written differently by either: so the style may be settled late (while streaming) and
    every record is still written as it was read.
    """

    def __init__(self, indent: int | str | None) -> None:
        self.remaining = _candidates(indent)
        self.budget = LEARN_SAMPLES

    @property
    def active(self) -> bool:
        return len(self.remaining) > 1 and self.budget > 0

    def keep(self, test: Callable[[Candidate], bool]) -> Candidate | None:
        """Keep the candidates that pass ``test``; return the new best one if it changed."""
        if not self.active:
            return None
        self.budget -= 1
        kept = [candidate for candidate in self.remaining if test(candidate)]
        if not kept:  # no candidate writes this one (say "1e5" or "\u003c"): ask the next
            return None
        best = kept[0] if kept[0] != self.remaining[0] else None
        self.remaining = kept
        return best


_NON_ASCII_ESCAPE = re.compile(
    r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})"
)


def _escapes_non_ascii(text: str) -> bool:
    """True when the text is pure ASCII and escapes a non-ASCII character (ensure_ascii=True)."""
    return text.isascii() and _NON_ASCII_ESCAPE.search(text) is not None


def _indent_after(text: str, pos: int) -> tuple[int | str | None, str]:
    """Indentation after an opening bracket at ``pos - 1``: (indent, newline)."""
    match = re.match(r"(\r?\n)([ \t]*)", text[pos : pos + 256])
    if not match:
        return None, "\n"
    newline, pad = match.group(1), match.group(2)
    if pad and set(pad) == {" "}:
        return len(pad), newline
    return (pad or 0), newline


# --------------------------------------------------------------------------------------------
# The JSON scanner: raw_decode over a sliding buffer, with line/column tracking


_WS = re.compile(r"[ \t\n\r]*")
# What a number cut at a chunk boundary may end with: the start of a fraction or exponent.
_NUMBER_TAIL = re.compile(r"(?:\.|[eE][-+]?)\Z")
_DECODER = json.JSONDecoder()
# raw_decode without its Python wrapper: (value, end), or StopIteration / JSONDecodeError
_SCAN: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]


class _Scanner:
    """Reads JSON values one at a time from a text stream, never holding more than one value."""

    def __init__(self, fh: IO[str], path: Path, max_value: int, chunk: int) -> None:
        self.fh, self.path, self.max_value, self.chunk = fh, path, max_value, chunk
        self.buf = ""
        self.pos = 0
        self.eof = False
        self.cursor = (0, 1, 1)  # (offset in buf, line, column): a known location
        self.span = (0, 0)

    # -- buffer
    def _read(self, size: int) -> str:
        try:
            return self.fh.read(size)
        except UnicodeDecodeError as exc:
            line, _ = self.where(len(self.buf))
            raise HistoryError(
                f"{self.path}: not valid UTF-8 near line {line} ({exc.reason})"
            ) from None

    def fill(self, size: int = 0) -> bool:
        """Drop what was consumed and read at least ``size`` more characters; False at EOF."""
        if self.eof:
            return False
        if self.pos:
            _, line, column = self._advance(self.pos)
            self.buf = self.buf[self.pos :]
            self.pos = 0
            self.cursor = (0, line, column)
        data = self._read(max(size, self.chunk))
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def _advance(self, offset: int) -> tuple[int, int, int]:
        start, line, column = self.cursor
        newlines = self.buf.count("\n", start, offset)
        if newlines:
            line += newlines
            column = offset - self.buf.rindex("\n", start, offset)
        else:
            column += offset - start
        self.cursor = (offset, line, column)
        return self.cursor

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of ``buf[offset]`` (offsets must not go backwards)."""
        if offset < self.cursor[0]:
            start, line, column = self.cursor
            newlines = self.buf.count("\n", offset, start)
            if not newlines:
                return line, column - (start - offset)
            return line - newlines, offset - self.buf.rfind("\n", 0, offset)
        _, line, column = self._advance(offset)
        return line, column

    # -- tokens
    def peek(self) -> str | None:
        """Skip whitespace and return the next character, None at the end of the file."""
        while True:
            buf = self.buf
            pos = _WS.match(buf, self.pos).end()  # type: ignore[union-attr]  # always matches
            self.pos = pos
            if pos < len(buf):
                return buf[pos]
            if not self.fill():
                return None

    def error(self, message: str, offset: int | None = None) -> HistoryError:
        line, column = self.where(self.pos if offset is None else offset)
        return HistoryError(f"{self.path}:{line}:{column}: {message}")

    def expect(self, chars: str, what: str) -> str:
        char = self.peek()
        if char is None:
            raise self.error(f"the file ends where {what} was expected (truncated?)")
        if char not in chars:
            raise self.error(f"expected {what}, found {char!r}")
        self.pos += 1
        return char

    def value(self) -> Any:
        """Decode the next JSON value (the scanner stands on it, after :meth:`peek`).

        Its text is ``buf[span[0]:span[1]]`` until the next read.
        """
        while True:
            try:
                self.span = (self.pos, self.pos)
                value, end = _DECODER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                if self.eof or not self._maybe_incomplete(exc):
                    raise self._decode_error(exc) from None
                self._grow()
                continue
            except (ValueError, RecursionError) as exc:  # a huge number, deep nesting
                raise self.error(_unreadable(exc)) from None
            if self._may_go_on(value, end) and self.fill():  # the rest is in the next chunk
                continue
            if end - self.pos > self.max_value:
                raise self._too_large()
            self.span = (self.pos, end)
            self.pos = end
            return value

    def _may_go_on(self, value: Any, end: int) -> bool:
        """A number or literal that ends the buffer may go on in the next chunk; so may a
        number followed only by the start of its fraction or exponent (``1.``, ``2e``, ``3e+``),
        which the decoder leaves behind."""
        if isinstance(value, dict | list | str):
            return False
        if end == len(self.buf):
            return True
        return not isinstance(value, bool) and bool(_NUMBER_TAIL.match(self.buf, end))

    def next_object(self) -> Located | None:
        """The fast path between records of a list: ``,`` then a whole JSON object, all in
        the buffer. Returns the record as read, or None, having consumed nothing, so
        that the general path (:meth:`peek`, :meth:`expect`, :meth:`value`) decides."""
        buf, pos = self.buf, self.pos
        if buf.startswith(", {", pos):  # json.dumps' separator, then the most common ones
            pos += 2
        elif buf.startswith(",{", pos):
            pos += 1
        else:
            pos = _WS.match(buf, pos).end()  # type: ignore[union-attr]  # always matches
            if buf[pos : pos + 1] != ",":
                return None
            pos = _WS.match(buf, pos + 1).end()  # type: ignore[union-attr]
            if buf[pos : pos + 1] != "{":
                return None
        try:
            value, end = _SCAN(buf, pos)  # a dict: it ends at its "}", so it is whole
        except (StopIteration, ValueError, RecursionError):  # cut, invalid, or too deep
            return None
        if end - pos > self.max_value:
            return None
        start, line, column = self.cursor  # self.where(pos), inline: this runs per record
        if pos < start:
            line, column = self.where(pos)
        elif newlines := buf.count("\n", start, pos):
            line += newlines
            column = pos - buf.rindex("\n", start, pos)
            self.cursor = (pos, line, column)
        else:
            column += pos - start
            self.cursor = (pos, line, column)
        self.span = (pos, end)
        self.pos = end
        return Located(line, column, value, buf[pos:end])

    def ensure(self, size: int) -> None:
        """Have ``size`` characters ahead in the buffer, or all that is left of the file."""
        while len(self.buf) - self.pos < size and self.fill():
            pass

    def raw_next(self) -> str | None:
        """The next character as it is (whitespace included), None at the end of the file."""
        while self.pos >= len(self.buf):
            if not self.fill():
                return None
        return self.buf[self.pos]

    def rest_is_blank(self) -> tuple[bool, bool]:
        """After the top-level value: (only whitespace follows, a newline follows)."""
        newline = False
        while True:
            match = _WS.match(self.buf, self.pos)
            end = match.end() if match else self.pos
            newline = newline or "\n" in self.buf[self.pos : end]
            self.pos = end
            if self.pos < len(self.buf):
                return False, newline
            if not self.fill():
                return True, newline

    def _maybe_incomplete(self, exc: json.JSONDecodeError) -> bool:
        return exc.msg.startswith("Unterminated string") or exc.pos >= len(self.buf) - 16

    def _grow(self) -> None:
        pending = len(self.buf) - self.pos
        if pending > self.max_value:
            raise self._too_large()
        self.fill(pending)

    def _too_large(self) -> HistoryError:
        return self.error(
            f"a record larger than {_size(self.max_value)} (or never closed): the limit for one "
            "record; split the history into JSONL with one record per line"
        )

    def _decode_error(self, exc: json.JSONDecodeError) -> HistoryError:
        message = f"invalid JSON: {_reason(exc)}"
        rest = self.buf[exc.pos :]
        if exc.msg.startswith("Unterminated") or re.fullmatch(r"[\s\w.+-]*", rest):
            message += " (the file ends too early: truncated?)"
        return self.error(message, exc.pos)


# --------------------------------------------------------------------------------------------
# The reader


_JSONL_HINT = "; if the file is JSONL (one record per line), name it *.jsonl"


class HistoryReader:
    """Open a history file and stream its records. Use as a context manager::

        with HistoryReader(path) as reader:
            for located in reader.records():
                ...
            reader.after  # the object's keys after the list, once the records are read

    ``layout`` and ``before`` are known once the reader is entered; ``bad_lines`` and ``after``
    grow while the records are read.
    """

    def __init__(
        self,
        path: Path,
        *,
        skip_bad_lines: bool = False,
        max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
        chunk_chars: int = CHUNK_CHARS,
        source: IO[bytes] | None = None,
    ) -> None:
        self.path = Path(path)
        self.source = source  # an open binary stream to read instead of opening ``path``
        self.chunk_chars = chunk_chars
        self.skip_bad_lines = skip_bad_lines
        self.max_record_bytes = max_record_bytes
        self.layout = Layout("jsonl")
        self.before: list[tuple[str, Any]] = []
        self.after: list[tuple[str, Any]] = []
        self.bad_lines: list[BadLine] = []
        self._fh: IO[Any] | None = None
        self._scanner: _Scanner | None = None
        self._learner = _Learner(None)
        self._bom = False

    # -- context manager
    def __enter__(self) -> HistoryReader:
        self._fh = opened = self.source if self.source is not None else _open(self.path)
        try:
            head, at_eof, binary = _head(self.path, opened)
            self._fh = binary
            text = _head_text(self.path, head, at_eof)
            self._bom = head.startswith(codecs.BOM_UTF8)
            kind = _detect_kind(self.path, text, at_eof)
            ascii = _escapes_non_ascii(text)
            if kind == "jsonl":
                style = Style(newline=_jsonl_newline(text), ensure_ascii=ascii)
                self.layout = Layout("jsonl", style)
                if self._bom:
                    binary.read(len(codecs.BOM_UTF8))
            else:
                self._open_json(binary, ascii)
        except BaseException:
            self.close()
            raise
        return self

    def close(self) -> None:
        """Close the file (a ``source`` stream given by the caller stays open)."""
        if self._fh is not None:
            if self.source is None:
                self._fh.close()
            elif isinstance(self._fh, io.TextIOWrapper):
                self._fh.detach()
            self._fh = None

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- JSON
    def _open_json(self, binary: IO[bytes], ascii: bool) -> None:
        encoding = "utf-8-sig" if self._bom else "utf-8"
        self._fh = io.TextIOWrapper(binary, encoding=encoding, newline="")
        scanner = _Scanner(self._fh, self.path, self.max_record_bytes, self.chunk_chars)
        self._scanner = scanner
        opener = scanner.expect("[{", "a JSON array or object")
        scanner.ensure(256)
        indent, newline = _indent_after(scanner.buf, scanner.pos)
        self._learner = _Learner(indent)
        inline, item_sep, key_sep = self._learner.remaining[0]
        style = Style(indent, item_sep, key_sep, inline, ascii, newline)
        if opener == "[":
            self.layout = Layout("array", style)
            return
        self.layout = Layout("object", style)
        key = self._read_before(scanner)  # learns the style as it reads
        self.layout = replace(self.layout, key=key)

    def _learn(self, test: Callable[[Candidate], bool]) -> None:
        best = self._learner.keep(test)
        if best is not None:
            inline, item_sep, key_sep = best
            self.layout = _with_style(
                self.layout, inline_records=inline, item_sep=item_sep, key_sep=key_sep
            )

    def _learn_record(self, raw: str, record: dict[str, Any]) -> None:
        style = self.layout.style
        depth = 1 if self.layout.kind == "array" else 2
        self._learn(lambda c: _render_as(record, c, style, depth) == raw)

    def _learn_member(self, raw: str, value: Any) -> None:
        style = self.layout.style
        if style.indent is None:
            self._learn(lambda c: _render_as(value, c, style, 0) == raw)
        else:  # members of a pretty-printed object are never inline
            self._learn(lambda c: _render_as(value, (False, ",", c[2]), style, 1) == raw)

    def _observe(self, scanner: _Scanner, separator: str) -> None:
        """Learn from the text right after a ',' or ':' of the container itself."""
        spaced = scanner.raw_next() == " "
        if separator == ":":
            self._learn(lambda c: c[2] == (": " if spaced else ":"))
        elif self.layout.style.indent is None:
            self._learn(lambda c: c[1] == (", " if spaced else ","))

    def _member(self, scanner: _Scanner) -> tuple[str, bool]:
        """Read a key and its ':'; True when its value is the history's list (then on '[')."""
        if scanner.peek() != '"':
            raise scanner.error("expected a key in double quotes")
        key = scanner.value()
        scanner.expect(":", "':' after a key")
        self._observe(scanner, ":")
        is_list = scanner.peek() == "["
        return key, is_list

    def _member_value(self, scanner: _Scanner) -> Any:
        scanner.peek()
        value = scanner.value()
        self._learn_member(scanner.buf[slice(*scanner.span)], value)
        return value

    def _read_before(self, scanner: _Scanner) -> str:
        """Read the object's members up to the list; leave the scanner inside the list."""
        while True:
            char = scanner.peek()
            if char == "}" or char is None:
                found = ", ".join(repr(k) for k, _ in self.before) or "none"
                hint = " (truncated?)" if char is None else _JSONL_HINT
                raise HistoryError(
                    f"{self.path}: a JSON object must hold the history as a list under "
                    f"'messages', 'input' or 'contents' (keys found: {found}){hint}"
                )
            if self.before:
                scanner.expect(",", "',' between the object's keys")
                self._observe(scanner, ",")
            key, is_list = self._member(scanner)
            if key in CONTAINER_KEYS and is_list and not self._seen(key):
                scanner.pos += 1
                return str(key)
            self.before.append((key, self._member_value(scanner)))

    def _seen(self, key: str) -> bool:
        return any(k == key for k, _ in self.before)

    def _json_records(self) -> Iterator[Located]:
        scanner = self._scanner
        assert scanner is not None
        first, learning = True, self._learner.active
        while True:
            if not first and not learning:
                found = scanner.next_object()
                if found is not None:
                    yield found
                    continue
            char = scanner.peek()
            if char == "]":
                scanner.pos += 1
                break
            if not first:
                if char != ",":
                    scanner.expect(",", "',' or ']' after a record")
                scanner.pos += 1
                if self._learner.active:
                    self._observe(scanner, ",")
                char = scanner.peek()
            if char is None:
                raise scanner.error("the file ends inside the list (truncated?)")
            line, column = scanner.where(scanner.pos)
            record = scanner.value()
            if not isinstance(record, dict):
                raise HistoryError(
                    f"{self.path}:{line}:{column}: expected each record of the history to be a "
                    f"JSON object, found {_kind_of(record)}"
                )
            if self._learner.active:
                self._learn_record(scanner.buf[slice(*scanner.span)], record)
            first, learning = False, self._learner.active
            yield Located(line, column, record, scanner.buf[slice(*scanner.span)])
        if self.layout.kind == "object":
            self._read_after(scanner)
        blank, newline = scanner.rest_is_blank()
        if not blank:
            raise scanner.error(
                "extra content after the JSON value (JSONL needs one JSON object per line)"
            )
        self.layout = _with_style(self.layout, final_newline=newline)

    def _read_after(self, scanner: _Scanner) -> None:
        while True:
            char = scanner.expect(",}", "',' or '}' in the object")
            if char == "}":
                return
            self._observe(scanner, ",")
            key, _ = self._member(scanner)
            self.after.append((key, self._member_value(scanner)))

    # -- JSONL
    def _jsonl_records(self) -> Iterator[Located]:
        fh = self._fh
        assert fh is not None
        readline, limit, scan = fh.readline, self.max_record_bytes, _SCAN
        learning = self._learner.active
        number = 0
        while True:
            raw = readline(limit + 1)
            if not raw:
                return
            number += 1
            if not learning and raw[:1] == b"{" and len(raw) <= limit:
                located = _compact_line(scan, number, raw)
                if located is not None:
                    yield located
                    continue
            if len(raw) > limit and not raw.endswith(b"\n"):
                _skip_rest_of_line(fh)
                self._bad(number, f"longer than {_size(self.max_record_bytes)}")
                continue
            located = self._jsonl_record(number, raw)
            learning = self._learner.active
            if located is not None:
                yield located

    def _jsonl_record(self, number: int, raw: bytes) -> Located | None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._bad(number, f"not valid UTF-8 (byte {exc.start + 1} of the line)")
            return None
        if not text.strip():
            return None
        try:
            record = json.loads(text)
        except json.JSONDecodeError as exc:
            self._bad(number, f"not valid JSON: {_reason(exc)} (column {exc.colno})")
            return None
        except (ValueError, RecursionError) as exc:  # a huge number, deep nesting
            self._bad(number, _unreadable(exc))
            return None
        if not isinstance(record, dict):
            self._bad(number, f"expected a JSON object, found {_kind_of(record)}")
            return None
        raw_line = text.rstrip("\r\n")
        if self._learner.active:
            style = self.layout.style
            self._learn(lambda c: _render_as(record, c, style, 0) == raw_line)
        return Located(number, None, record, raw_line)

    def _bad(self, number: int, reason: str) -> None:
        if not self.skip_bad_lines:
            raise HistoryError(
                f"{self.path}:{number}: {reason}; fix the line, or repair the other lines with "
                "--skip-bad-lines"
            )
        self.bad_lines.append(BadLine(number, reason))

    # -- public
    def records(self) -> Iterator[Located]:
        """The records in file order, each with the line (and column) where it starts."""
        if self.layout.kind == "jsonl":
            return self._jsonl_records()
        return self._json_records()

    def bad_line_findings(self, name: str) -> list[Finding]:
        """One :data:`BAD_LINE` finding per line left out (``name``: the path to report)."""
        return [
            BAD_LINE.finding(name, f"line left out: {b.reason}", b.line) for b in self.bad_lines
        ]


def _compact_line(
    scan: Callable[[str, int], tuple[Any, int]], number: int, raw: bytes
) -> Located | None:
    """The fast path of the JSONL reader: a line that is one JSON object and nothing else
    (bar its line ending), or None to let :meth:`HistoryReader._jsonl_record` decide."""
    try:
        text = raw.decode("utf-8")
        record, end = scan(text, 0)  # on "{": a dict, as json.loads(text) would return
    except (UnicodeDecodeError, StopIteration, ValueError, RecursionError):
        return None
    tail = len(text) - end
    if tail == 0:
        return Located(number, None, record, text)
    if (tail == 1 and text[end] == "\n") or (tail == 2 and text[end:] == "\r\n"):
        return Located(number, None, record, text[:end])
    return None


def _size(count: int) -> str:
    return f"{count // MiB} MiB" if count >= MiB else f"{count} bytes"


def _unreadable(exc: ValueError | RecursionError) -> str:
    """Why valid JSON syntax could not be read: Python's own limits, said plainly."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply to read"
    limit = sys.get_int_max_str_digits()
    return f"a number too long to read (more than {limit} digits)"


def _reason(exc: json.JSONDecodeError) -> str:
    return exc.msg.removesuffix(" at").removesuffix(" starting").lower()


def _kind_of(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _skip_rest_of_line(fh: IO[bytes]) -> None:
    while True:
        part = fh.readline(MiB)
        if not part or part.endswith(b"\n"):
            return


def _jsonl_newline(text: str) -> str:
    first = text.split("\n", 1)[0]
    return "\r\n" if first.endswith("\r") and "\n" in text else "\n"


def _with_style(layout: Layout, **changes: Any) -> Layout:
    return replace(layout, style=replace(layout.style, **changes))


def read_history(
    path: Path,
    *,
    skip_bad_lines: bool = False,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
) -> History:
    """Read a whole history into memory (for small files and the library; see HistoryReader)."""
    with HistoryReader(
        path, skip_bad_lines=skip_bad_lines, max_record_bytes=max_record_bytes
    ) as reader:
        records = [located.record for located in reader.records()]
        return History(reader.layout, records, reader.before, reader.after, reader.bad_lines)


# --------------------------------------------------------------------------------------------
# Writing


def _member(key: str, value: Any, style: Style, depth: int) -> str:
    key_text = json.dumps(key, ensure_ascii=style.ensure_ascii)
    return key_text + style.key_sep + _value(value, style, depth)


def _value(value: Any, style: Style, depth: int) -> str:
    if style.indent is None:
        return _dumps(value, None, style.item_sep, style.key_sep, style.ensure_ascii)
    text = _dumps(value, style.indent, ",", style.key_sep, style.ensure_ascii)
    return text.replace("\n", "\n" + _pad(style, depth)) if depth else text


def _pad(style: Style, depth: int) -> str:
    unit = " " * style.indent if isinstance(style.indent, int) else (style.indent or "")
    return unit * depth


def _record(record: Record, style: Style, depth: int) -> str:
    if type(record) is RawText:
        return record.replace("\r\n", "\n") if style.newline != "\n" else record
    if style.inline_records:
        return _dumps(record, None, style.item_sep, style.key_sep, style.ensure_ascii)
    return _value(record, style, depth)


LayoutSource = Layout | Callable[[], Layout]


def render_history(
    layout: LayoutSource,
    records: Iterable[Record],
    before: Sequence[tuple[str, Any]] = (),
    after: Callable[[], Sequence[tuple[str, Any]]] = tuple,
) -> Iterator[str]:
    """Yield the text of a history in ``layout``, one chunk per record (streaming).

    ``layout`` may be a callable (``lambda: reader.layout``): it is asked again for each record,
    because a reader settles the style while it reads. ``after`` is called once the records are
    exhausted (the keys after the list are read last).
    """
    current: Callable[[], Layout] = layout if callable(layout) else (lambda: layout)
    kind = current().kind
    if kind == "jsonl":
        chunks = _render_jsonl(current, records)
    else:
        chunks = _render_json(current, records, before, after)
    yield from chunks


def _lines(text: str, style: Style) -> str:
    """``text`` with the style's line ending (the renderers write "\n")."""
    return text if style.newline == "\n" else text.replace("\n", style.newline)


def _render_jsonl(current: Callable[[], Layout], records: Iterable[Record]) -> Iterator[str]:
    for record in records:
        style = current().style
        if type(record) is RawText:
            yield record + "\n" if style.newline == "\n" else _lines(record + "\n", style)
            continue
        text = _dumps(record, None, style.item_sep, style.key_sep, style.ensure_ascii) + "\n"
        yield _lines(text, style)


def _render_json(
    current: Callable[[], Layout],
    records: Iterable[Record],
    before: Sequence[tuple[str, Any]],
    after: Callable[[], Sequence[tuple[str, Any]]],
) -> Iterator[str]:
    depth = 1 if current().kind == "array" else 2
    count = 0
    known: Layout | None = None  # the layout sep and lead were computed for
    sep = lead = ""
    for record in records:
        layout = current()
        style = layout.style
        if not count:
            yield _lines(_open_list(layout, before), style)
        if layout is not known:  # the reader settles the style while it reads
            known = layout
            sep = "," if style.indent is not None else style.item_sep
            lead = "\n" + _pad(style, depth) if style.indent is not None else ""
        if type(record) is RawText and style.newline == "\n":
            yield sep + lead + record if count else lead + record
        else:
            yield _lines((sep + lead if count else lead) + _record(record, style, depth), style)
        count += 1
    layout = current()
    style = layout.style
    head = "" if count else _open_list(layout, before)
    close = ("\n" + _pad(style, depth - 1) if style.indent is not None and count else "") + "]"
    if layout.kind == "object":
        rest = [_member(k, v, style, 1) for k, v in after()]
        if rest:
            close += "," if style.indent is not None else style.item_sep
        close += _join_members(rest, style, 1)
        close += ("\n" if style.indent is not None else "") + "}"
    yield _lines(head + close + ("\n" if style.final_newline else ""), style)


def _open_list(layout: Layout, before: Sequence[tuple[str, Any]]) -> str:
    """Everything up to and including the list's '['."""
    if layout.kind == "array":
        return "["
    style = layout.style
    members = [_member(k, v, style, 1) for k, v in before]
    key = json.dumps(layout.key, ensure_ascii=style.ensure_ascii)
    members.append(key + style.key_sep + "[")
    return "{" + _join_members(members, style, 1)


def _join_members(members: list[str], style: Style, depth: int) -> str:
    if style.indent is None:
        return style.item_sep.join(members)
    lead = "\n" + _pad(style, depth)
    return ",".join(lead + m for m in members)


def write_history(history: History) -> str:
    """The whole text of an in-memory history, written like its input."""
    chunks = render_history(history.layout, history.records, history.before, lambda: history.after)
    return "".join(chunks)
