"""JSON string escapes undone, so that the secret detectors see a token as its readers do.

``"\\u0073k-ant-..."``, ``"https:\\/\\/..."`` and ``"{\\"api_key\\": \\"...\\"}"`` are the token
itself to every JSON reader (the agent tool that loads ``.mcp.json``, ``apc validate``), but
not to a pattern over the raw text. :func:`unescape` decodes ``\\uXXXX`` (not a lone
surrogate), ``\\/``, ``\\"`` and ``\\\\``, leaving the control escapes (``\\n``, ``\\t``: a
token ends there anyway) as they are, and maps offsets in the decoded text back to the raw one.

A JSON file is decoded whole; in any other text (source code, where ``\\"`` and ``\\\\`` are
everywhere and a token is written plainly) only the neighbourhood of an escape that can stand
inside a token (printable ASCII as ``\\u00XX``, ``\\/``: :func:`windows`), so the secret scan
costs about the same.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass

_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|([\"\\/]))")
_HINTS = ("\\u", "\\/", '\\"', "\\\\")
# The escapes a token's characters may be written as: printable ASCII as \u00XX, and \/.
_INSIDE = re.compile(r"\\(?:u00[2-7][0-9A-Fa-f]|/)")
REACH = 256  # characters around such an escape decoded outside JSON files


@dataclass(frozen=True)
class Unescaped:
    """The decoded text, and where each decoded escape sits in it and in the raw text."""

    text: str
    at: tuple[int, ...]  # the decoded character's offset in ``text``, per escape
    raw: tuple[int, ...]  # the escape's start in the raw text
    raw_end: tuple[int, ...]  # its end in the raw text

    def covers_escape(self, start: int, end: int) -> bool:
        """Does ``text[start:end]`` hold a decoded escape (else the raw text says the same)?"""
        return bisect_left(self.at, start) < bisect_left(self.at, end)

    def original(self, start: int, end: int) -> tuple[int, int]:
        """``text[start:end]`` as offsets of the raw text."""
        return self._map(start), self._map_end(end)

    def _map(self, offset: int) -> int:
        index = bisect_right(self.at, offset) - 1
        if index < 0:
            return offset
        if self.at[index] == offset:
            return self.raw[index]
        return self.raw_end[index] + offset - self.at[index] - 1

    def _map_end(self, end: int) -> int:
        if end <= 0:
            return 0
        last = end - 1
        index = bisect_right(self.at, last) - 1
        if index >= 0 and self.at[index] == last:
            return self.raw_end[index]
        return self._map(last) + 1


def unescape(text: str) -> Unescaped | None:
    """``text`` with its JSON string escapes decoded, or None when it holds none."""
    if not any(hint in text for hint in _HINTS):
        return None
    pieces: list[str] = []
    at: list[int] = []
    raw: list[int] = []
    raw_end: list[int] = []
    done = 0  # raw offset copied so far
    size = 0  # length of the decoded text so far
    for found in _ESCAPE.finditer(text):
        code = found.group(1)
        if code is not None:
            value = int(code, 16)
            if 0xD800 <= value <= 0xDFFF:  # a surrogate half: left as it is
                continue
            char = chr(value)
        else:
            char = found.group(2)
        start = found.start()
        pieces.append(text[done:start])
        size += start - done
        at.append(size)
        raw.append(start)
        raw_end.append(found.end())
        pieces.append(char)
        size += 1
        done = found.end()
    if not at:
        return None
    pieces.append(text[done:])
    return Unescaped("".join(pieces), tuple(at), tuple(raw), tuple(raw_end))


def windows(text: str, whole: bool) -> list[tuple[int, Unescaped]]:
    """The parts of ``text`` to judge decoded, each with its raw offset: all of it when
    ``whole`` (a JSON file), else :data:`REACH` characters around each escape of :data:`_INSIDE`."""
    if whole:
        undone = unescape(text)
        return [(0, undone)] if undone is not None else []
    spans: list[list[int]] = []
    for found in _INSIDE.finditer(text):
        start, end = max(0, found.start() - REACH), found.end() + REACH
        if spans and start <= spans[-1][1]:
            spans[-1][1] = end
        else:
            spans.append([start, end])
    out: list[tuple[int, Unescaped]] = []
    for start, end in spans:
        undone = unescape(text[start:end])
        if undone is not None:
            out.append((start, undone))
    return out
