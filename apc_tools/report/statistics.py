"""``--statistics``: a count per rule instead of the findings, as ``ruff --statistics`` prints.

Text: ``count<TAB>RULE-ID<TAB>fix<TAB>name``, most frequent first; the fix column is ``[*]``
for a rule ``--fix`` repairs, ``[-]`` for one only ``--unsafe-fixes`` does, ``[ ]`` otherwise
(:mod:`apc_tools.report.fixable`). JSON: a list of ``{"code", "name", "severity", "count",
"fixable", "fix"}``, in the same order (ruff's keys, the worst severity the rule has in the
report, and ``fix``: ``safe``, ``unsafe`` or null).
"""

from __future__ import annotations

import json
from collections import Counter

from apc_tools.findings import Registry, Result, Severity
from apc_tools.report.fixable import MARK, fix_of

STATISTICS_FORMATS = ("text", "concise", "full", "json")


def statistics(result: Result, registry: Registry) -> list[dict[str, object]]:
    counts = Counter(f.rule for f in result.findings)
    worst: dict[str, Severity] = {}
    for finding in result.findings:
        known = worst.get(finding.rule)
        if known is None or finding.severity.rank < known.rank:
            worst[finding.rule] = finding.severity
    rows = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [
        {
            "code": rule,
            "name": registry[rule].name if rule in registry else "",
            "severity": worst[rule].value,
            "count": count,
            "fixable": fix_of(rule) is not None,
            "fix": fix_of(rule),
        }
        for rule, count in rows
    ]


def render_statistics(result: Result, fmt: str, registry: Registry) -> str:
    """The statistics in ``fmt`` (one of :data:`STATISTICS_FORMATS`); ValueError otherwise."""
    rows = statistics(result, registry)
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    if fmt not in STATISTICS_FORMATS:
        raise ValueError(f"--statistics prints {', '.join(STATISTICS_FORMATS)}, not {fmt}")
    if not rows:
        return ""
    count_width = max(len(str(row["count"])) for row in rows)
    code_width = max(len(str(row["code"])) for row in rows)
    marks = {"safe": MARK, "unsafe": "[-]"}
    return "".join(
        f"{row['count']:>{count_width}}\t{row['code']:<{code_width}}\t"
        f"{marks.get(str(row['fix']), '[ ]')}\t{row['name']}\n"
        for row in rows
    )
