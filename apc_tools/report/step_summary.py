"""The Markdown the GitHub Action appends to ``$GITHUB_STEP_SUMMARY``.

GitHub turns at most 10 workflow-command annotations of each severity per step into visible
annotations (docs.github.com, "Workflow commands": limits of annotations); the rest exist only in
the log and in the SARIF file. The summary table says, per severity, how many findings there are,
how many GitHub can show as annotations and how many more only the SARIF file holds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

ANNOTATION_LIMIT = 10  # per severity, per step
ROWS = (("error", "error"), ("warning", "warning"), ("info", "notice"))


def render_step_summary(report: Mapping[str, object], sarif_file: str, scope: str) -> str:
    """Markdown for a JSON report (``apc_tools.report.json_out`` format)."""
    counts = _counts(report)
    lines = ["## apc check", "", f"Scanned: {scope}.", ""]
    if not any(counts.values()):
        return "\n".join([*lines, "No problems found.", ""])
    lines += [
        "| severity | findings | shown as annotations | only in the SARIF file |",
        "|---|---:|---:|---:|",
    ]
    hidden = 0
    older = _preexisting(report)
    for key, label in ROWS:
        shown = min(counts[key] - older[key], ANNOTATION_LIMIT)
        hidden += counts[key] - shown
        lines.append(f"| {label} | {counts[key]} | {shown} | {counts[key] - shown} |")
    lines.append("")
    if hidden:
        lines.append(
            f"GitHub shows at most {ANNOTATION_LIMIT} annotations of each severity per step: "
            f"{hidden} more finding{'s are' if hidden != 1 else ' is'} in `{sarif_file}` "
            "(upload it to code scanning, or keep it as an artifact)."
        )
        lines.append("")
    if sum(older.values()):
        total = sum(older.values())
        lines.append(
            f"{total} finding{'s' if total != 1 else ''} of the table "
            f"{'were' if total != 1 else 'was'} found at the base of the range too: not "
            "annotated and failing nothing, unless a leak (listed in the log and the SARIF "
            "file). Fix them, or accept them once with `apc check --write-baseline` and "
            "commit the baseline."
        )
        lines.append("")
    lines += _blocking(report)
    lines += _by_rule(report)
    return "\n".join(lines)


BLOCKING_SHOWN = 50  # the errors named in the summary; the log names every one


def _blocking(report: Mapping[str, object]) -> list[str]:
    """The errors that fail the run, each by place, rule and message (the first
    :data:`BLOCKING_SHOWN`; the log and the report name them all), whatever the annotations
    show: an error found at the base of the range too fails only when it is a leak."""
    from apc_tools.contract.rules import leak_rules

    findings = report.get("findings")
    rows: Sequence[object] = findings if isinstance(findings, list) else []
    leaks = leak_rules()
    errors = [
        f
        for f in rows
        if isinstance(f, Mapping)
        and f.get("severity") == "error"
        and (not f.get("preexisting") or f.get("rule") in leaks)
    ]
    if not errors:
        return []
    count = len(errors)
    lines = [f"**What fails this run: {count} error{'s' if count != 1 else ''}**", ""]
    for f in errors[:BLOCKING_SHOWN]:
        where = str(f.get("path", ""))
        if f.get("line"):
            where += f":{f.get('line')}"
            if f.get("column"):
                where += f":{f.get('column')}"
        old = " (at the base too)" if f.get("preexisting") else ""
        message = _cell(str(f.get("message", "")))
        lines.append(f"- `{_cell(where)}` `{f.get('rule')}`{old}: {message}")
    if count > BLOCKING_SHOWN:
        lines.append(f"- ... and {count - BLOCKING_SHOWN} more: the log lists every one")
    return [*lines, ""]


def _cell(text: str) -> str:
    """``text`` safe inside one Markdown list item: one line, no backtick run, escaped."""
    from apc_tools.report.escape import escape

    return escape(text).replace("`", "'").replace("\n", " ").replace("|", "\\|")


def _counts(report: Mapping[str, object]) -> dict[str, int]:
    summary = report.get("summary")
    summary = summary if isinstance(summary, Mapping) else {}
    return {key: int(summary.get(key, 0) or 0) for key, _ in ROWS}


def _preexisting(report: Mapping[str, object]) -> Counter[str]:
    """Per severity, the findings marked ``preexisting`` (apc check --range): not annotated."""
    findings = report.get("findings")
    rows: Sequence[object] = findings if isinstance(findings, list) else []
    return Counter(
        str(f.get("severity")) for f in rows if isinstance(f, Mapping) and f.get("preexisting")
    )


def _by_rule(report: Mapping[str, object]) -> list[str]:
    findings = report.get("findings")
    rows: Sequence[object] = findings if isinstance(findings, list) else []
    rules = Counter(
        (str(f.get("rule")), str(f.get("severity"))) for f in rows if isinstance(f, Mapping)
    )
    lines = ["| rule | severity | findings |", "|---|---|---:|"]
    for (rule, severity), count in sorted(rules.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"| `{rule}` | {severity} | {count} |")
    return [*lines, ""]
