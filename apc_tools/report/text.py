"""The human format: ``path:line:col: severity RULE-ID message`` per finding, then a summary.

Paths and messages come from the files being checked, so control characters (ANSI escapes,
CR, LF, bidirectional overrides, undecodable bytes) are shown escaped, never passed to the
terminal: one finding is always exactly one line, and colour appears only when asked for.
"""

from __future__ import annotations

import unicodedata

from apc_tools.findings import Finding, Result, Severity, Summary

RESET = "\x1b[0m"
BOLD = "\x1b[1m"
DIM = "\x1b[2m"
GREEN = "\x1b[32m"
SEVERITY_COLOR = {
    Severity.ERROR: "\x1b[1;31m",
    Severity.WARNING: "\x1b[1;33m",
    Severity.INFO: "\x1b[1;36m",
}
UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def render_text(result: Result, *, color: bool) -> str:
    lines = [finding_line(f, color=color) for f in result.findings]
    lines.append(summary_line(result.summary, color=color))
    return "\n".join(lines) + "\n"


def finding_line(finding: Finding, *, color: bool) -> str:
    """``path:line:col: severity RULE-ID message`` (missing line/column parts left out); a
    finding of a commit (boundary range and history modes) ends with ``(commit <12 hex>)``."""
    where = display(finding.location())
    severity = finding.severity.value
    message = display(finding.message)
    if finding.commit:
        message += f" (commit {finding.commit[:12]})"
    if not color:
        return f"{where}: {severity} {finding.rule} {message}"
    paint = SEVERITY_COLOR[finding.severity]
    return f"{BOLD}{where}{RESET}: {paint}{severity}{RESET} {DIM}{finding.rule}{RESET} {message}"


def summary_line(summary: Summary, *, color: bool) -> str:
    """``2 errors, 1 warning, 0 info in 3 files`` or ``no problems found in 3 files``."""
    files = plural(summary.files, "file")
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


def display(text: str) -> str:
    """``text`` with every control, format or undecodable character shown as an escape."""
    if text.isprintable():
        return text
    return "".join(escape_char(ch) for ch in text)


def escape_char(ch: str) -> str:
    if unicodedata.category(ch) not in UNSAFE_CATEGORIES:
        return ch
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte kept by os.fsdecode (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"
