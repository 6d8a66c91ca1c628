"""The human formats: ``path:line:col: severity RULE-ID message`` per finding, then a summary
(``text``, also called ``concise``); ``full`` adds the offending line with a caret under the
column (:mod:`apc_tools.report.source` decides which lines may be shown). Many findings of one
rule with the same message (numbers aside) are collapsed: the first few are listed, and the
"Repeated advice" section gives the count and, for warnings, one ready-to-paste ``allow:``
snippet for the policy file that accepts exactly them.

Paths and messages come from the files being checked, so control characters (ANSI escapes,
CR, LF, bidirectional overrides, undecodable bytes) are shown escaped, never passed to the
terminal: one finding is always exactly one line, and colour appears only when asked for.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace

from apc_tools.findings import Finding, Result, Severity, Summary
from apc_tools.report.escape import escape
from apc_tools.report.fixable import MARK, fix_of

LineOf = Callable[[Finding], "str | None"]

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
COLLAPSE_FROM = 5  # this many findings with one advice are collapsed...
COLLAPSE_SHOW = 3  # ...to their first few
WINDOW = 120  # a longer source line is shown as a window around the column
DIGITS = re.compile(r"[0-9]+")
POLICY_FILE = ".apc-tools.yaml"


def render_text(
    result: Result,
    *,
    color: bool,
    line_of: LineOf | None = None,
    width: int | None = None,
    command: str | None = None,
) -> str:
    """The ``text``/``concise`` format, or ``full`` when ``line_of`` gives source lines
    (cut to fit ``width`` columns, a terminal's, when given). A finding ``--fix`` repairs
    safely is marked ``[*]`` (as ruff), and a line before the summary counts them, and those
    ``--unsafe-fixes`` adds, naming ``command --fix``.

    An error is never left out: past the first few of a repeated message, its line names the
    place and says the message is the one above, so every finding that fails the run is named;
    warnings and info past the first few are counted instead."""
    shown = collapse_versions(result.findings)
    groups = repeated(shown)
    member = {id(f): key for key, found in groups.items() for f in found}
    seen: Counter[tuple[str, str, str]] = Counter()
    lines: list[str] = []
    for finding in shown:
        key = member.get(id(finding))
        again = False
        if key is not None:
            seen[key] += 1
            if seen[key] > COLLAPSE_SHOW:
                if finding.severity is not Severity.ERROR:
                    continue
                again = True
        lines.append(finding_line(finding, color=color, again=again))
        if line_of is not None:
            lines += excerpt(finding, line_of(finding), width=width)
        if key is not None and seen[key] == COLLAPSE_SHOW and key[1] != Severity.ERROR.value:
            more = len(groups[key]) - COLLAPSE_SHOW
            lines.append(
                f"  ... and {more} more {key[0]} {plural_word(more, key[1])} with this "
                "message (see repeated advice below)"
            )
    lines += advice_section(groups, shown)
    lines += rule_counts(result.findings)
    lines += fixable_line(result.findings, command)
    summary = summary_line(result.summary, color=color)
    summary += older_note(result)
    lines.append(summary)
    return "\n".join(lines) + "\n"


def older_note(result: Result) -> str:
    """What the summary says of the findings found at the base of the range too: how many,
    and that they fail nothing unless they are leaks (``Result.old_fails``)."""
    older = [f for f in result.findings if f.preexisting]
    if not older:
        return ""
    held = result.old_fails
    if held is None:
        return f" ({len(older)} of them found at the base of the range too)"
    leaks = sum(1 for f in older if f.rule in held)
    note = f" ({len(older)} of them found at the base of the range too"
    if leaks:
        return note + f"; of these only the {leaks} leaks fail the run)"
    return note + ": they fail nothing)"


def fixable_line(findings: Sequence[Finding], command: str | None) -> list[str]:
    """``[*] 3 fixable with `apc validate --fix` (2 more with `--unsafe-fixes`)``, or nothing
    when no finding has a fix."""
    kinds = Counter(fix_of(f.rule) for f in findings)
    safe, unsafe = kinds["safe"], kinds["unsafe"]
    fix = f"{command} --fix" if command else "--fix"
    if safe and unsafe:
        return [f"{MARK} {safe} fixable with `{fix}` ({unsafe} more with `--unsafe-fixes`)"]
    if safe:
        return [f"{MARK} {safe} fixable with `{fix}`"]
    if unsafe:
        return [f"{unsafe} fixable with `{fix} --unsafe-fixes`"]
    return []


def plural_word(count: int, word: str) -> str:
    return word if count == 1 else f"{word}s"


def advice_key(finding: Finding) -> tuple[str, str, str]:
    """What makes two findings the same advice: rule, severity, message with numbers out."""
    return (finding.rule, finding.severity.value, DIGITS.sub("#", finding.message))


def repeated(findings: Sequence[Finding]) -> dict[tuple[str, str, str], list[Finding]]:
    """The groups of at least :data:`COLLAPSE_FROM` findings that give the same advice."""
    groups: dict[tuple[str, str, str], list[Finding]] = {}
    for finding in findings:
        groups.setdefault(advice_key(finding), []).append(finding)
    return {key: found for key, found in groups.items() if len(found) >= COLLAPSE_FROM}


def advice_section(
    groups: dict[tuple[str, str, str], list[Finding]], findings: Sequence[Finding]
) -> list[str]:
    if not groups:
        return []
    lines = ["repeated advice:"]
    for (rule, severity, _), found in groups.items():
        files = sorted({f.path for f in found})
        lines.append(
            f"  {rule} {severity}: {len(found)} findings in {plural(len(files), 'file')}: "
            f"{escape(found[0].message)}"
        )
        accepted, snippet = allow_snippet(rule, found, findings)
        if snippet:
            which = (
                "these"
                if accepted == len(found)
                else f"{accepted} of these (the files with no other {rule} finding)"
            )
            lines.append(f"  to accept exactly {which}, add to {POLICY_FILE}:")
            lines += ["    " + row for row in snippet]
    return lines


def allow_snippet(
    rule: str, group: Sequence[Finding], findings: Sequence[Finding]
) -> tuple[int, list[str]]:
    """``allow:`` lines for the policy that accept findings of ``group`` and no other finding
    of the report, and how many they accept: those in the files where the rule has no other
    finding. None for an error (better fixed than allowed), for info (it fails nothing) or a
    finding of a commit."""
    if group[0].severity is not Severity.WARNING or any(f.commit for f in group):
        return 0, []
    members = {id(f) for f in group}
    crowded = {f.path for f in findings if f.rule == rule and id(f) not in members}
    paths = sorted({f.path for f in group} - crowded)
    if not paths or any(ch in p for p in paths for ch in "{}"):  # braces expand before classes
        return 0, []
    accepted = sum(1 for f in group if f.path in paths)
    rows = [f"    - {json.dumps(glob_literal(p))}" for p in paths]
    return accepted, ["allow:", f"  {rule}:", *rows]


def glob_literal(path: str) -> str:
    """A policy glob that matches exactly ``path``: each glob character in a one-character
    class (``[*]``), so that a file named ``a*b.md`` is not a pattern (a path with a brace has
    no such glob: :func:`allow_snippet` offers none)."""
    return "".join(f"[{ch}]" if ch in "*?[" else ch for ch in path)


MIN_WINDOW = 20  # the narrowest window a source line is cut to, whatever the terminal


def excerpt(finding: Finding, text: str | None, *, width: int | None = None) -> list[str]:
    """The source line under a finding, with a caret under its column (``full``). A line wider
    than the room (``width`` less the gutter, else :data:`WINDOW`) is shown as a window around
    the column, cut with an ellipsis; widths are display widths (a CJK character or an emoji
    takes two columns, a combining mark none), so the caret stands under the column."""
    if text is None or finding.line is None:
        return []
    number = str(finding.line)
    pad = " " * len(number)
    column = min(max((finding.column or 1) - 1, 0), len(text))
    room = WINDOW if width is None else max(MIN_WINDOW, width - len(number) - 4)
    safe = escape(text)
    if display_width(safe) > room:
        text, column = window(text, column, room)
        safe = escape(text)
    before = display_width(escape(text[:column]))
    caret = " " * before + "^" if finding.column is not None else ""
    return [f" {pad} |", f" {number} | {safe}", f" {pad} | {caret}".rstrip(), ""]


def window(text: str, column: int, room: int) -> tuple[str, int]:
    """The part of ``text`` around ``column`` that fits ``room`` display columns once escaped
    (an ellipsis on each cut side), and the column within it."""
    widths = [display_width(escape(ch)) for ch in text]
    start = end = column
    used = widths[column] if column < len(text) else 1
    end = min(column + 1, len(text))
    budget = room - 2  # the ellipses
    # grow to the left up to half the room, then to the right, then to the left again
    while start > 0 and used + widths[start - 1] <= budget // 2:
        start -= 1
        used += widths[start]
    while end < len(text) and used + widths[end] <= budget:
        used += widths[end]
        end += 1
    while start > 0 and used + widths[start - 1] <= budget:
        start -= 1
        used += widths[start]
    left = "…" if start else ""
    right = "…" if end < len(text) else ""
    return left + text[start:end] + right, column - start + len(left)


def display_width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for wide and full-width characters (CJK,
    most emoji), none for combining marks and zero-width joiners, one for the rest."""
    total = 0
    for ch in text:
        if ch.isascii():
            total += 1
        elif unicodedata.combining(ch) or ch in "\u200b\u200c\u200d\ufe0f":
            continue
        elif unicodedata.east_asian_width(ch) in ("W", "F"):
            total += 2
        else:
            total += 1
    return total


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


AGAIN = "(the message above, again)"


def finding_line(finding: Finding, *, color: bool, again: bool = False) -> str:
    """``path:line:col: severity RULE-ID message`` (missing line/column parts left out); a
    finding of a commit (boundary range and history modes) ends with ``(commit <12 hex>)``;
    ``again``: a repeated message is not written out (:data:`AGAIN`)."""
    where = escape(finding.location())
    severity = finding.severity.value
    message = AGAIN if again else escape(finding.message)
    if fix_of(finding.rule) == "safe":
        message = f"{MARK} {message}"
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
