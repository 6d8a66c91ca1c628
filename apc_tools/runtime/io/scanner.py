"""The JSON scanner: :meth:`json.JSONDecoder.raw_decode` over a sliding buffer, with line and
column tracking, so a JSON array of any size is read one record at a time."""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from apc_tools.runtime.io.layout import HistoryError, Located, MiB

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
