"""GitLab Code Quality JSON: the report a job names under ``artifacts:reports:codequality``.

GitLab reads a JSON array of issues with ``description``, ``check_name``, ``fingerprint``,
``severity`` (``info``, ``minor``, ``major``, ``critical``, ``blocker``) and ``location`` (a
repository-relative ``path`` and ``lines.begin``). GitLab shows one issue per fingerprint, so the
fingerprint is :attr:`Finding.fingerprint`: the content identity, numbered for repeats in a file.
A finding without a line is placed on line 1 (GitLab requires ``lines.begin``).
"""

from __future__ import annotations

import json

from apc_tools.findings import Finding, Result, Severity

SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}

Json = dict[str, object]


def render_gitlab(result: Result) -> str:
    return json.dumps([issue(f) for f in result.findings], indent=2) + "\n"


def issue(finding: Finding) -> Json:
    description = f"{finding.rule}: {finding.message or finding.rule}"
    if finding.commit:
        description += f" (commit {finding.commit[:12]})"
    return {
        "description": description,
        "check_name": finding.rule,
        "fingerprint": finding.fingerprint,
        "severity": SEVERITY[finding.severity],
        "location": {
            "path": report_path(finding.path),
            "lines": {"begin": finding.line if finding.line and finding.line > 0 else 1},
        },
    }


def report_path(path: str) -> str:
    """Forward slashes, no leading ``./``; ``.`` for a finding about no particular file."""
    posix = path.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    return posix or "."
