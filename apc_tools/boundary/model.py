"""What the detectors of the gate see and say.

A :class:`BlobView` is one blob at one path, as far as it was read (never the working tree);
a detector returns :class:`Detection` values: the rule, a message that never quotes the content,
where (1-based line and column, when the blob has them) and ``match``, the content that
identifies the finding (a secret value, a record signature, a marker). ``match`` is only hashed
into the finding's fingerprint, never shown or stored.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from functools import cached_property

from apc_tools.core.allow import allowed_ids as ids_in
from apc_tools.core.allow import covers
from apc_tools.findings import Rule, Severity, rule_family

FAMILY = "boundary"
rule = rule_family(FAMILY)

# Sniffing: git's own "binary" test looks for a NUL in the first 8000 bytes.
BINARY_SNIFF = 8000
# ``apc: allow RULE-ID[, RULE-ID...]`` after a comment opener on the same line
# (apc_tools.core.allow: the phrase, and the twins an allow covers).
COMMENT_OPENERS = ("#", "//", "<!--", "/*", "--", ";")
NO_COMMENT_SUFFIXES = (".json", ".jsonl", ".ndjson")

# The whole-file leaks `apc boundary --staged --fix` repairs (apc_tools.boundary.fix: the file
# leaves the index, the tool's pattern goes to .gitignore); each of their messages names it.
UNTRACKED_BY_FIX = frozenset({"BPA001", "BPA002", "BDB001", "BTR001"})
UNTRACK_HINT = "before a commit, `apc boundary --staged --fix` untracks and ignores it"


@dataclass(frozen=True)
class Detection:
    """One thing a detector found in one blob."""

    rule: Rule
    message: str
    line: int | None = None
    column: int | None = None
    match: str | None = None
    severity: Severity | None = None


class BlobView:
    """One blob at one repository path: its bytes as read and what the path says about it."""

    __slots__ = (
        "__dict__",
        "binary",
        "complete",
        "contract",
        "data",
        "flagged",
        "in_apc",
        "low",
        "name",
        "path",
        "size",
        "structured",
        "suffix",
    )

    def __init__(
        self, path: str, data: bytes, size: int, complete: bool, contract: bool = False
    ) -> None:
        self.path = path
        self.data = data = as_utf8(data)
        self.size = size
        self.complete = complete
        self.contract = contract  # a contract file (AGENTS.md, .apc/**, SKILL.md, ...)
        self.flagged = False  # another detector already flagged this blob (path or records)
        self.structured = False  # parsed as JSON records (a document or JSON Lines)
        self.low = path.casefold()
        self.name = self.low.rpartition("/")[2]
        stem, dot, ext = self.name.rpartition(".")
        self.suffix = f".{ext}" if dot and stem.strip(".") else ""
        self.in_apc = self.low.startswith(".apc/") or "/.apc/" in self.low
        self.binary = b"\0" in data[:BINARY_SNIFF]

    @cached_property
    def text(self) -> str:
        """The blob as text (undecodable bytes replaced; a BOM dropped)."""
        return self.data.decode("utf-8", "replace").removeprefix("\ufeff")

    @cached_property
    def line_starts(self) -> list[int]:
        return [0, *(m.end() for m in re.finditer("\n", self.text))]

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset in :attr:`text`."""
        from bisect import bisect_right

        line = bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def line_text(self, line: int) -> str:
        starts = self.line_starts
        if not 1 <= line <= len(starts):
            return ""
        end = starts[line] if line < len(starts) else len(self.text)
        return self.text[starts[line - 1] : end]

    def detection(self, rule: Rule, message: str, offset: int, match: str) -> Detection:
        """A detection at a character offset of :attr:`text` (line and column from it)."""
        line, column = self.position(offset)
        return Detection(rule, message, line, column, match=match)

    def inline_allowed(self, rule_id: str, line: int | None) -> bool:
        """True when the line carries an ``apc: allow RULE-ID`` comment (not in JSON/JSONL)."""
        if line is None or self.binary or self.suffix in NO_COMMENT_SUFFIXES:
            return False
        return covers(allowed_ids(self.line_text(line)), rule_id)


_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


# A blob starting with a BOM is decoded before the detectors see it (UTF-16 text need not hold
# a NUL in its first 8000 bytes, nor any ASCII literal): the prefilter always reads one.
NEEDLES: tuple[bytes, ...] = (codecs.BOM_UTF8, codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def as_utf8(data: bytes) -> bytes:
    """``data`` as UTF-8: a UTF-8 BOM dropped, UTF-16/32 text with a BOM decoded (a session
    re-encoded by an editor must not hide from the detectors)."""
    if data.startswith(codecs.BOM_UTF8):
        return data[len(codecs.BOM_UTF8) :]
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return data.decode(codec, "replace").encode("utf-8", "replace")
    return data


def allowed_ids(line: str) -> set[str]:
    """The rule ids an ``apc: allow`` comment on ``line`` names (none without a comment)."""
    openers = [i for i in (line.find(o) for o in COMMENT_OPENERS) if i >= 0]
    if not openers:
        return set()
    return ids_in(line[min(openers) :])
