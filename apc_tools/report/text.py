"""The human format: ``path:line:col: severity RULE-ID message`` per finding, then a summary.

Paths and messages come from the files being checked, so control characters (ANSI escapes,
CR, LF, bidirectional overrides, undecodable bytes) are shown escaped, never passed to the
terminal: one finding is always exactly one line, and colour appears only when asked for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from apc_tools.findings import Finding, Result, Severity, Summary
from apc_tools.report.escape import escape

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
GREEN = "\x1b[32m"
SEVERITY_COLOR = {
    Severity.ERROR: "\x1b[1;31m",
    Severity.WARNING: "\x1b[1;33m",
    Severity.INFO: "\x1b[1;36m",
}
COUNT_FROM = 10


def render_text(result: Result, *, color: bool) -> str:
    lines = [finding_line(f, color=color) for f in collapse_versions(result.findings)]
    lines += rule_counts(result.findings)
    lines.append(summary_line(result.summary, color=color))
    return "\n".join(lines) + "\n"


def collapse_versions(findings: Sequence[Finding]) -> list[Finding]:
    """One line per rule and path for the findings of several commits (``boundary --history``
    reports each version of a file): one of them, its message ending with how many versions."""
    groups: dict[tuple[str, str, Severity], list[Finding]] = {}
    for finding in findings:
        key = (finding.rule, finding.path, finding.severity)
        groups.setdefault(key, []).append(finding)
    out: list[Finding] = []
    for group in groups.values():
        commits = {f.commit for f in group if f.commit}
        if len(commits) < 2:
            out.extend(group)
            continue
        first = group[0]
        message = (
            f"{first.message} (in {len(commits)} versions of the file, each added by its own "
            "commit: --format json lists them)"
        )
        out.append(replace(first, message=message, commit=None))
    return out


def rule_counts(findings: Sequence[Finding]) -> list[str]:
    """``  904 warning SKL006`` lines, most frequent first: what a long report is made of
    (from :data:`COUNT_FROM` findings on; a short report is read line by line)."""
    if len(findings) < COUNT_FROM:
        return []
    counts = Counter((f.rule, f.severity) for f in findings)
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0][1].rank, item[0][0]))
    width = len(str(ordered[0][1]))
    return ["by rule:"] + [f"  {n:>{width}} {sev.value} {rule}" for (rule, sev), n in ordered]


def finding_line(finding: Finding, *, color: bool) -> str:
    """``path:line:col: severity RULE-ID message`` (missing line/column parts left out); a
    finding of a commit (boundary range and history modes) ends with ``(commit <12 hex>)``."""
    where = escape(finding.location())
    severity = finding.severity.value
    message = escape(finding.message)
    if finding.commit:
        message += f" (commit {escape(finding.commit[:12])})"
    if not color:
        return f"{where}: {severity} {finding.rule} {message}"
    paint = SEVERITY_COLOR[finding.severity]
    return f"{BOLD}{where}{RESET}: {paint}{severity}{RESET} {DIM}{finding.rule}{RESET} {message}"


def summary_line(summary: Summary, *, color: bool) -> str:
    """``2 errors, 1 warning, 0 info in 3 files`` or ``no problems found in 3 files``."""
    files = plural(summary.files, "file")
    if summary.skipped:
        files += f" ({summary.skipped} other {'file' if summary.skipped == 1 else 'files'} skipped)"
    if not (summary.error or summary.warning or summary.info):
        text = f"no problems found in {files}"
        return f"{GREEN}{text}{RESET}" if color else text
    text = (
        f"{plural(summary.error, 'error')}, {plural(summary.warning, 'warning')}, "
        f"{summary.info} info in {files}"
    )
    if not color:
        return text
    worst = Severity.ERROR if summary.error else Severity.WARNING if summary.warning else None
    paint = SEVERITY_COLOR[worst] if worst else BOLD
    return f"{paint}{text}{RESET}"


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"
