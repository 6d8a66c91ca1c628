"""Inline acceptance of validate findings in contract files (the ``apc: allow`` of the gate).

In the Markdown body, an HTML comment ``<!-- apc: allow RULE-ID[, RULE-ID...] -->``; in YAML
frontmatter, a YAML comment ``# apc: allow RULE-ID``. A comment accepts a finding of a rule it
names on its own line, or on the next line when the comment stands alone on its line (as a
Markdown comment usually does). A finding about the whole file (no line) is accepted by such a
comment anywhere in the file. JSON has no comments: its findings are accepted in the policy
(``allow:``) or the baseline only. ``--no-inline-allow`` (CI) ignores every comment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from apc_tools.contract.project import MARKDOWN_KINDS, Doc
from apc_tools.core.allow import allowed_ids, covers
from apc_tools.findings import Finding


def markdown_comments(line: str) -> list[tuple[int, int]]:
    """(start, end) of each ``<!-- ... -->`` on ``line``: found by literal search (linear; a
    lazy regex is quadratic on a line of many unclosed ``<!--``)."""
    out: list[tuple[int, int]] = []
    start = line.find("<!--")
    while start >= 0:
        end = line.find("-->", start + 4)
        if end < 0:
            break
        out.append((start, end + 3))
        start = line.find("<!--", end + 3)
    return out


def yaml_comment(line: str) -> list[tuple[int, int]]:
    """(start, end) of the YAML comment of ``line``: from the first ``#`` at the start of the
    line or after a blank, to the end (a ``#`` inside a quoted value is taken as a comment
    too: at worst a comment-looking value allows a finding on its own line)."""
    at = line.find("#")
    while at >= 0:
        if at == 0 or line[at - 1] in " \t":
            return [(at, len(line))]
        at = line.find("#", at + 1)
    return []


class Allowances:
    """The ``apc: allow`` comments of one contract file: rule ids per line, and whether each
    line holds nothing but the comment."""

    def __init__(self, doc: Doc | None = None) -> None:
        self.by_line: dict[int, set[str]] = {}
        self.alone: set[int] = set()
        if doc is None:
            return
        if "apc:" not in doc.text or doc.kind not in MARKDOWN_KINDS:
            return
        front_end = doc.body_line - 1 if doc.has_frontmatter else 0  # the closing fence's line
        for number, line in enumerate(doc.text.splitlines(), start=1):
            if "apc:" not in line:
                continue
            spans = yaml_comment(line) if 1 < number < front_end else markdown_comments(line)
            ids: set[str] = set()
            rest = line
            for start, end in spans:
                ids |= allowed_ids(line[start:end])
                rest = rest.replace(line[start:end], "")
            if ids:
                self.by_line[number] = ids
                if not rest.strip():
                    self.alone.add(number)

    @classmethod
    def of(cls, by_line: Mapping[int, Iterable[str]], alone: Iterable[int]) -> Allowances:
        """The allowances read from a file before (:meth:`parts`), without its text."""
        out = cls()
        out.by_line = {int(line): set(ids) for line, ids in by_line.items()}
        out.alone = {int(line) for line in alone}
        return out

    def parts(self) -> tuple[dict[int, list[str]], list[int]]:
        """What :meth:`of` rebuilds this from (rule ids per line, lone lines), sorted."""
        return {n: sorted(ids) for n, ids in sorted(self.by_line.items())}, sorted(self.alone)

    def allows(self, finding: Finding) -> bool:
        rule = finding.rule
        if finding.line is None:
            return any(covers(ids, rule) for ids in self.by_line.values())
        if covers(self.by_line.get(finding.line, set()), rule):
            return True
        above = finding.line - 1
        return above in self.alone and covers(self.by_line[above], rule)


def split_allowed(
    found: Iterable[Finding],
    docs: Mapping[str, Doc],
    known: Mapping[str, Allowances] | None = None,
) -> tuple[list[Finding], list[Finding]]:
    """(the findings kept, the findings an inline comment accepts); ``docs`` by display path,
    ``known``: the allowances of files not among ``docs`` (read before), by display path."""
    cache: dict[str, Allowances] = dict(known or {})
    kept: list[Finding] = []
    allowed: list[Finding] = []
    for finding in found:
        doc = docs.get(finding.path)
        if doc is None and finding.path not in cache:
            kept.append(finding)
            continue
        if finding.path not in cache and doc is not None:
            cache[finding.path] = Allowances(doc)
        (allowed if cache[finding.path].allows(finding) else kept).append(finding)
    return kept, allowed
