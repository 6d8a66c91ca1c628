"""Inline acceptance of validate findings in contract files (the ``apc: allow`` of the gate).

In the Markdown body, an HTML comment ``<!-- apc: allow RULE-ID[, RULE-ID...] -->``; in YAML
frontmatter, a YAML comment ``# apc: allow RULE-ID``. A comment accepts a finding of a rule it
names on its own line, or on the next line when the comment stands alone on its line (as a
Markdown comment usually does). A finding about the whole file (no line) is accepted by such a
comment anywhere in the file. JSON has no comments: its findings are accepted in the policy
(``allow:``) or the baseline only. ``--no-inline-allow`` (CI) ignores every comment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from apc_tools.contract.project import MARKDOWN_KINDS, Doc
from apc_tools.findings import Finding

ALLOW = re.compile(
    r"apc:[ \t]*allow[ \t]+(?P<ids>[A-Z]{2,5}[0-9]{3}(?:[ \t]*[, ][ \t]*[A-Z]{2,5}[0-9]{3}){0,20})"
)
MARKDOWN_COMMENT = re.compile(r"<!--(?P<inside>.*?)-->")
YAML_COMMENT = re.compile(r"(?:^|[ \t])#(?P<inside>.*)$")


class Allowances:
    """The ``apc: allow`` comments of one contract file: rule ids per line, and whether each
    line holds nothing but the comment."""

    def __init__(self, doc: Doc) -> None:
        self.by_line: dict[int, set[str]] = {}
        self.alone: set[int] = set()
        if "apc:" not in doc.text or doc.kind not in MARKDOWN_KINDS:
            return
        front_end = doc.body_line - 1 if doc.has_frontmatter else 0  # the closing fence's line
        for number, line in enumerate(doc.text.splitlines(), start=1):
            if "apc:" not in line:
                continue
            pattern = YAML_COMMENT if 1 < number < front_end else MARKDOWN_COMMENT
            ids: set[str] = set()
            rest = line
            for comment in pattern.finditer(line):
                for found in ALLOW.finditer(comment.group("inside")):
                    ids.update(re.split(r"[\s,]+", found.group("ids")))
                rest = rest.replace(comment.group(0), "")
            if ids:
                self.by_line[number] = ids
                if not rest.strip():
                    self.alone.add(number)

    def allows(self, finding: Finding) -> bool:
        rule = finding.rule
        if finding.line is None:
            return any(rule in ids for ids in self.by_line.values())
        if rule in self.by_line.get(finding.line, ()):
            return True
        above = finding.line - 1
        return above in self.alone and rule in self.by_line[above]


def split_allowed(
    found: Iterable[Finding], docs: Mapping[str, Doc]
) -> tuple[list[Finding], list[Finding]]:
    """(the findings kept, the findings an inline comment accepts); ``docs`` by display path."""
    cache: dict[str, Allowances] = {}
    kept: list[Finding] = []
    allowed: list[Finding] = []
    for finding in found:
        doc = docs.get(finding.path)
        if doc is None:
            kept.append(finding)
            continue
        if finding.path not in cache:
            cache[finding.path] = Allowances(doc)
        (allowed if cache[finding.path].allows(finding) else kept).append(finding)
    return kept, allowed
