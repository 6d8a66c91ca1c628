"""Reading a history file as a stream of records (:class:`HistoryReader`), or whole
(:func:`read_history`)."""

from __future__ import annotations

import codecs
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from apc_tools.findings import Finding
from apc_tools.runtime.io.layout import (
    BAD_LINE,
    CHUNK_CHARS,
    DEFAULT_MAX_RECORD_BYTES,
    LIST_KEYS,
    BadLine,
    History,
    HistoryError,
    Layout,
    Located,
    MiB,
    Style,
    _detect_kind,
    _head,
    _head_text,
    _jsonl_newline,
    _open,
    _with_style,
)
from apc_tools.runtime.io.scanner import _SCAN, _kind_of, _reason, _Scanner, _size, _unreadable
from apc_tools.runtime.io.style import (
    Candidate,
    _escapes_non_ascii,
    _indent_after,
    _Learner,
    _render_as,
)

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
        list_keys: tuple[str, ...] = LIST_KEYS,
        source: IO[bytes] | None = None,
    ) -> None:
        self.path = Path(path)
        self.list_keys = list_keys
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
            if key in self.list_keys and is_list and not self._seen(key):
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


def _skip_rest_of_line(fh: IO[bytes]) -> None:
    while True:
        part = fh.readline(MiB)
        if not part or part.endswith(b"\n"):
            return


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
