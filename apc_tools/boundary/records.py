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
    values = _lines(body) or _stream(body)
    return [(value, line + skipped) for value, line in values]


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


def _stream(text: str) -> list[tuple[Any, int]]:
    """Values written one after another, each possibly over many lines."""
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
            retries += 1
            nxt = text.find("\n", index)
            if retries > MAX_RETRIES or nxt < 0:
                break
            index = nxt + 1
            continue
        out.append((value, 1 + text.count("\n", 0, index)))
        index = end
    return out


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
