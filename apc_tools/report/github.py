"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` per finding.

Escaping follows the Actions toolkit (``@actions/core`` ``command.ts``): the message escapes
``%``, CR and LF; property values (file, title) also escape ``:`` and ``,``. Since neither can
then hold a line break or end its field early, no path or message can start a second command.
Every other control character (ESC, OSC, BEL, C1, bidi overrides, undecodable bytes) is shown
as a visible escape by :func:`apc_tools.report.escape.escape`, as in every other format: a
runner log or a terminal never receives a raw escape sequence from a file name.
"""

from __future__ import annotations

from apc_tools.findings import Finding, Result, Severity
from apc_tools.report.escape import escape
from apc_tools.report.text import finding_line, summary_line

COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def render_github(result: Result) -> str:
    """An annotation per finding, except the findings an ``apc check --range`` found at the
    range's base too that fail nothing: those are listed in a collapsed log group, never
    annotated, so that the annotations GitHub shows (ten per severity) are about what the pull
    request changed and what fails it (an old leak is annotated: it still fails the run)."""
    held = result.old_fails

    def older(finding: Finding) -> bool:
        return finding.preexisting and (held is None or finding.rule not in held)

    lines = [annotation(f) for f in result.findings if not older(f)]
    old = [f for f in result.findings if older(f)]
    if old:
        lines.append(
            f"::group::{len(old)} older {'finding' if len(old) == 1 else 'findings'}"
            " (found at the base of the range too; not annotated)"
        )
        # "- " first: the runner reads a command only at the start of a line (spaces trimmed)
        lines += ["- " + finding_line(f, color=False) for f in old]
        lines.append("::endgroup::")
    summary = summary_line(result.summary, color=False)
    if old:
        summary += (
            f" ({len(old)} found at the base of the range too: not annotated, and they fail "
            "nothing)"
        )
    lines.append(summary)
    return "\n".join(lines) + "\n"


def annotation(finding: Finding) -> str:
    props: list[tuple[str, str]] = []
    if finding.path:
        props.append(("file", printable(finding.path.replace("\\", "/"))))
    if finding.line is not None:
        props.append(("line", str(finding.line)))
        if finding.column is not None:
            props.append(("col", str(finding.column)))
    props.append(("title", finding.rule))
    joined = ",".join(f"{key}={escape_property(value)}" for key, value in props)
    text = finding.message + (f" (commit {finding.commit[:12]})" if finding.commit else "")
    message = escape_data(printable(text))
    return f"::{COMMAND[finding.severity]} {joined}::{message}"


def escape_data(value: str) -> str:
    """Escape a command's message exactly as the Actions toolkit does."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a command property value exactly as the Actions toolkit does."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def printable(value: str) -> str:
    """``value`` escaped for print, except CR and LF, which the toolkit's escaping encodes."""
    if "\r" not in value and "\n" not in value:
        return escape(value)
    return "\n".join("\r".join(escape(p) for p in line.split("\r")) for line in value.split("\n"))
