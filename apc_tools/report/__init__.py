"""Renderers: one Result, five output formats (text, json, sarif, github, gitlab).

Every renderer is a pure function from findings to a string; only ``apc_tools.cli`` prints.
The submodules are imported where they are used so that ``apc --version`` stays cheap.
"""

from __future__ import annotations

from apc_tools.findings import Registry, Result

FORMATS = ("text", "json", "sarif", "github", "gitlab")


def render(result: Result, fmt: str, registry: Registry, *, color: bool, version: str) -> str:
    """Render ``result`` in ``fmt`` (one of :data:`FORMATS`); the text ends with a newline."""
    if fmt == "text":
        from apc_tools.report.text import render_text

        return render_text(result, color=color)
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
