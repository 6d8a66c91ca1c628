"""Which validate rules ``--fix`` repairs, by rule id, and how: ``safe`` (``--fix``) or
``unsafe`` (``--fix --unsafe-fixes``). The renderers mark such findings (``[*]``, as ruff) and
count them in the summary, ``--statistics`` and the JSON report.

A literal table, not read from the registry, so that the lean warm start
(:mod:`apc_tools.start`) marks findings without importing the rule registry (it costs
nothing at start-up). ``tests/report/test_fixable_table.py`` holds it equal to the
registry's ``Rule.fix`` for every validate rule (the boundary's whole-file fixes belong to
``apc boundary --staged --fix``, which each of their messages names): when a rule gains or
loses a fix, that test prints the table to paste here.
"""

from __future__ import annotations

FIXES: dict[str, str] = {
    "AGT004": "unsafe",
    "FMT002": "safe",
    "GIG001": "safe",
    "GIG002": "safe",
    "INS010": "safe",
    "MCP003": "unsafe",
    "PLG010": "safe",
    "PRJ002": "safe",
    "PRJ003": "safe",
    "SKL004": "unsafe",
    "SKL005": "unsafe",
    "SKL006": "unsafe",
    "SKL007": "safe",
    "YML005": "safe",
}
MARK = "[*]"  # on a finding `--fix` repairs


def fix_of(rule: str) -> str | None:
    """``safe``, ``unsafe``, or None: the fix ``--fix`` has for findings of ``rule``."""
    return FIXES.get(rule)
