"""Read the records of a JSON-ish blob without trusting it: one JSON document, JSON Lines, or
pretty-printed objects one after another (the way some tools write "JSONL").

Everything is bounded: at most :data:`MAX_LINES` lines and :data:`MAX_NODES` nested values are
looked at, and a failing decode is retried from the next line only a few times, so a hostile or
truncated blob costs a few linear passes at most.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

MAX_LINES = 4000
MAX_NODES = 5000
MAX_DEPTH = 8
MAX_RETRIES = 3
MAX_PREAMBLE = 5  # lines before the first JSON value that are skipped (a title, "# exported")
_DECODER = json.JSONDecoder()


@dataclass(frozen=True)
class Record:
    """A JSON object found in the blob: its line (1-based; the value's line in JSON Lines, the
    line of the document for a nested object) and how deep it sits (0: a top-level value)."""

    value: dict[str, Any]
    line: int
    depth: int


def json_body(text: str) -> tuple[str, int]:
    """``text`` from its first line that opens a JSON value, past any leading blank space and at
    most :data:`MAX_PREAMBLE` other lines, and how many lines were skipped (``""`` if none)."""
    body = text.lstrip()
    for _ in range(MAX_PREAMBLE + 1):
        if body[:1] in ("{", "["):
            return body, text.count("\n", 0, len(text) - len(body))
        newline = body.find("\n")
        if newline < 0:
            break
        body = body[newline + 1 :].lstrip()
    return "", 0


_BLANK = re.compile(rb"[ \t\r\n\f\v]*")


def opens_json(data: bytes) -> bool:
    """The bytes version of :func:`json_body` as a cheap test (no copies): does a JSON value
    start after blank space and at most :data:`MAX_PREAMBLE` other lines?"""
    index = 0
    for _ in range(MAX_PREAMBLE + 1):
        blank = _BLANK.match(data, index)
        index = blank.end() if blank else index
        if data[index : index + 1] in (b"{", b"["):
            return True
        newline = data.find(b"\n", index)
        if newline < 0:
            return False
        index = newline + 1
    return False


def top_values(text: str, complete: bool) -> list[tuple[Any, int]]:
    """The top-level JSON values of ``text`` with their first line."""
    body, skipped = json_body(text)
    if not body:
        return []
    if complete:
        try:
            return [(json.loads(body), 1 + skipped)]
        except (ValueError, RecursionError):
            pass
    if complete or _whole_line(body):
        values = _lines(body) or _stream(body)
    else:  # one value over many lines, cut by the read window: read it first, as far as it goes
        values = _stream(body, complete=False) or _lines(body)
    return [(value, line + skipped) for value, line in values]


def _whole_line(body: str) -> bool:
    """Does the first line of ``body`` hold one whole JSON value (JSON Lines)?"""
    line = body.split("\n", 1)[0].strip()
    if len(line) < 2 or line[-1] not in "}]":
        return False
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return False
    return True


def _lines(text: str) -> list[tuple[Any, int]]:
    """JSON Lines: every line that holds one whole object."""
    out: list[tuple[Any, int]] = []
    for number, line in enumerate(text.split("\n", MAX_LINES)[:MAX_LINES], start=1):
        line = line.strip()
        if len(line) >= 2 and line[0] == "{" and line[-1] == "}":
            try:
                out.append((json.loads(line), number))
            except (ValueError, RecursionError):
                continue
    return out


def _stream(text: str, complete: bool = True) -> list[tuple[Any, int]]:
    """Values written one after another, each possibly over many lines. In a head cut by the
    read window (``complete`` false) the value the cut falls in is read as far as it goes
    (:func:`closed_head`): one pretty-printed document longer than the window is still seen."""
    out: list[tuple[Any, int]] = []
    index, retries, size = 0, 0, len(text)
    while index < size and len(out) < MAX_LINES:
        while index < size and text[index] in " \t\r\n":
            index += 1
        if index >= size:
            break
        try:
            value, end = _DECODER.raw_decode(text, index)
        except (ValueError, RecursionError):
            head = None if complete or retries else closed_head(text, index)
            if head is not None:
                out.append((head, 1 + text.count("\n", 0, index)))
                break
            retries += 1
            nxt = text.find("\n", index)
            if retries > MAX_RETRIES or nxt < 0:
                break
            index = nxt + 1
            continue
        out.append((value, 1 + text.count("\n", 0, index)))
        index = end
    return out


# A JSON string, or a lone quote (a string the cut left open), or a bracket or a comma.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|"|[\[\]{},]')
_CLOSER = {"{": "}", "[": "]"}


def closed_head(text: str, start: int) -> Any:
    """The JSON value that starts at ``start`` and that the read window cut, as far as its last
    whole member: the text up to the last comma outside a string (every comma follows a whole
    array item or object member) with the brackets still open closed. None when that does not
    parse (not a cut JSON value). Linear: one pass over the tokens, one decode."""
    if text[start : start + 1] not in _CLOSER:
        return None
    stack: list[str] = []
    cut, open_at_cut = -1, ""
    for token in _TOKEN.finditer(text, start):
        mark = token.group()
        if mark == '"':  # an unterminated string: the cut is inside it
            break
        if mark in _CLOSER:
            stack.append(_CLOSER[mark])
        elif mark in ("}", "]"):
            if not stack or stack.pop() != mark:
                return None
            if not stack:  # the value is whole: not a cut one
                return None
        elif mark == ",":
            cut, open_at_cut = token.start(), "".join(reversed(stack))
    if cut < 0:
        return None
    try:
        return json.loads(text[start:cut] + open_at_cut)
    except (ValueError, RecursionError):
        return None


def records(values: list[tuple[Any, int]]) -> Iterator[Record]:
    """Every JSON object inside ``values`` (breadth first, bounded)."""
    queue: list[tuple[Any, int, int]] = [(v, line, 0) for v, line in values]
    seen = 0
    for value, line, depth in queue:
        seen += 1
        if seen > MAX_NODES:
            return
        if isinstance(value, dict):
            yield Record(value, line, depth)
            children: Any = value.values()
        elif isinstance(value, list):
            children = value
        else:
            continue
        if depth < MAX_DEPTH:
            queue.extend((c, line, depth + 1) for c in children if isinstance(c, dict | list))
