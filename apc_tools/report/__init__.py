"""Renderers: one Result, the output formats (text, also called concise; full, with source
lines; json, sarif, github, gitlab).

Every renderer is a pure function from findings to a string; only ``apc_tools.cli`` prints.
The submodules are imported where they are used so that ``apc --version`` stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable

from apc_tools.findings import Finding, Registry, Result

FORMATS = ("text", "concise", "full", "json", "sarif", "github", "gitlab")


def render(
    result: Result,
    fmt: str,
    registry: Registry,
    *,
    color: bool,
    version: str,
    line_of: Callable[[Finding], str | None] | None = None,
    width: int | None = None,
    command: str | None = None,
) -> str:
    """Render ``result`` in ``fmt`` (one of :data:`FORMATS`); the text ends with a newline.
    ``full`` shows the lines ``line_of`` gives (none without it), cut to ``width`` columns
    (a terminal's) when given. ``command`` (``apc validate``): what the text's count of
    fixable findings names (:mod:`apc_tools.report.fixable`)."""
    if fmt in ("text", "concise", "full"):
        from apc_tools.report.text import render_text

        if fmt != "full":
            return render_text(result, color=color, command=command)
        return render_text(
            result, color=color, line_of=line_of or _no_line, width=width, command=command
        )
    if fmt == "json":
        from apc_tools.report.json_out import render_json

        return render_json(result)
    if fmt == "sarif":
        from apc_tools.report.sarif import render_sarif

        return render_sarif(result, registry, version=version)
    if fmt == "github":
        from apc_tools.report.github import render_github

        return render_github(result)
    if fmt == "gitlab":
        from apc_tools.report.gitlab import render_gitlab

        return render_gitlab(result)
    raise ValueError(f"unknown output format {fmt!r}; known: {', '.join(FORMATS)}")


def _no_line(finding: Finding) -> str | None:
    """``full`` without a source of lines (a library caller): the concise lines."""
    return None
