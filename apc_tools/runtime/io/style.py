"""How the input was written: the style is learnt from the records as they are read, so new
and changed records are written the same way."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from apc_tools.runtime.io.layout import Style

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


def _pad(style: Style, depth: int) -> str:
    unit = " " * style.indent if isinstance(style.indent, int) else (style.indent or "")
    return unit * depth
