"""``apc: allow RULE-ID[, RULE-ID...]``: the phrase both halves read, and the twins one cause has.

One cause can be reported by a validate rule and by a boundary rule (a secret in AGENTS.md is
AGM004 for ``apc validate`` and BSC001 for ``apc boundary``); ``apc check`` keeps one of the two
(``apc_tools.check.same_problem``). So that the pre-commit hook, ``apc validate`` and
``apc check`` never disagree on one line, an allow of either id covers its twin: :func:`covers`.
"""

from __future__ import annotations

import re
from collections.abc import Set

# Found by a literal search for "apc:" first (linear), then this pattern anchored there.
ALLOW = re.compile(
    r"apc:[ \t]*allow[ \t]+(?P<ids>[A-Z]{2,5}[0-9]{3}(?:[ \t]*[, ][ \t]*[A-Z]{2,5}[0-9]{3}){0,20})"
)

# (boundary family, the validate rules that report the same cause, whether on the same line)
SAME_CAUSE: tuple[tuple[str, frozenset[str], bool], ...] = (
    ("BSC", frozenset({"AGM004", "INS003", "MCP003", "MEM002", "SEC001"}), True),
    ("BLP", frozenset({"MCP004", "MEM003"}), True),
    ("BMK", frozenset({"AGM005", "INS004", "MEM004"}), True),
    ("BTR", frozenset({"MEM004"}), False),
)


def allowed_ids(text: str) -> set[str]:
    """The rule ids the ``apc: allow`` phrases of ``text`` (one comment) name."""
    out: set[str] = set()
    start = text.find("apc:")
    while start >= 0:
        found = ALLOW.match(text, start)
        if found:
            out.update(re.split(r"[\s,]+", found.group("ids")))
        start = text.find("apc:", start + 4)
    return out


def twins(rule_id: str) -> frozenset[str]:
    """The ids (rule ids, or a boundary family's prefix) whose allow also covers ``rule_id``."""
    out: set[str] = set()
    for family, rules, _ in SAME_CAUSE:
        if rule_id.startswith(family):
            out |= rules
        elif rule_id in rules:
            out.add(family)
    return frozenset(out)


def covers(ids: Set[str], rule_id: str) -> bool:
    """True when an allow naming ``ids`` accepts a finding of ``rule_id``: the id itself, or
    its twin (an allow of SEC001 covers the BSC001 of the same line, and BSC001 covers
    SEC001)."""
    if not ids:
        return False
    if rule_id in ids:
        return True
    for twin in twins(rule_id):
        if twin in ids if len(twin) > 3 else any(i.startswith(twin) for i in ids):
            return True
    return False
