"""The machine format of APC-NOTES section 5, versioned; schema: schemas/report.schema.json."""

from __future__ import annotations

import json

from apc_tools.findings import Result

REPORT_VERSION = 2


def report_dict(result: Result) -> dict[str, object]:
    """The report as plain data: ``{"version", "findings", "summary"}``."""
    summary = result.summary
    counts = {
        "error": summary.error,
        "warning": summary.warning,
        "info": summary.info,
        "files": summary.files,
    }
    if summary.skipped:
        counts["skipped"] = summary.skipped
    return {
        "version": REPORT_VERSION,
        "findings": [f.to_json() for f in result.findings],
        "summary": counts,
    }


def render_json(result: Result) -> str:
    return json.dumps(report_dict(result), indent=2) + "\n"
