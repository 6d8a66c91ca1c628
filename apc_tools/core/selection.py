"""``--select`` / ``--ignore RULE,...``: which rules a run reports, as ruff's options do.

A selector is a rule id (``BTR002``) or a prefix of one (``BTR``, ``SKL0``), or ``ALL``. A rule is
reported when the longest selector of ``--select`` that matches it (every rule, without
``--select``) is longer than the longest of ``--ignore`` that matches it: ``--select BTR
--ignore BTR002`` reports BTR001 and not BTR002; ``--ignore BTR --select BTR002`` reports
BTR002 alone of the family. The command line wins over the policy file: a rule the policy
disables (``disable:``) is reported again when a ``--select`` selector names it or its prefix
(``ALL`` re-enables nothing). The policy's ``allow:`` globs, severities and the baseline still
apply.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

SELECTOR = re.compile(r"^(ALL|[A-Z]{1,5}[0-9]{0,3})$")


@dataclass(frozen=True)
class Selection:
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    @staticmethod
    def _best(selectors: Iterable[str], rule: str) -> int:
        """The length of the longest selector matching ``rule`` (0 for ALL, -1 for none)."""
        best = -1
        for selector in selectors:
            if selector == "ALL":
                best = max(best, 0)
            elif rule.startswith(selector):
                best = max(best, len(selector))
        return best

    def keeps(self, rule: str) -> bool:
        chosen = self._best(self.select, rule) if self.select else 0
        return chosen >= 0 and chosen > self._best(self.ignore, rule)

    def reenables(self, rule: str) -> bool:
        """A rule the policy disables that ``--select`` names (by id or prefix, not ALL)."""
        return self._best(self.select, rule) > 0 and self.keeps(rule)

    def enabled(self, disabled: frozenset[str]) -> frozenset[str]:
        """The policy's disabled rules without those the command line selects."""
        return frozenset(rule for rule in disabled if not self.reenables(rule))

    def __bool__(self) -> bool:
        return bool(self.select or self.ignore)


def parse_selectors(values: Iterable[str]) -> tuple[str, ...]:
    """``["BTR,SKL006", "AGM"]`` -> ``("BTR", "SKL006", "AGM")``; ValueError naming a bad one."""
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            selector = part.strip().upper()
            if not selector:
                continue
            if not SELECTOR.match(selector):
                raise ValueError(
                    f"{part.strip()!r} is not a rule id or prefix (like BTR002, BTR or ALL)"
                )
            out.append(selector)
    return tuple(out)
