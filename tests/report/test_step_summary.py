"""The GitHub step summary: counts per severity, and how many findings only the SARIF holds."""

from __future__ import annotations

import json

from apc_tools.findings import Result
from apc_tools.report.json_out import report_dict
from apc_tools.report.step_summary import render_step_summary
from tests.report_rules import EXTENSION, LEGACY, MISSING


def summary(result: Result) -> str:
    return render_step_summary(json.loads(json.dumps(report_dict(result))), "apc.sarif", "HEAD")


def test_clean_run() -> None:
    assert summary(Result.of([], 3)) == "## apc check\n\nScanned: HEAD.\n\nNo problems found.\n"


def test_more_than_ten_of_a_severity_points_at_the_sarif_file() -> None:
    findings = [MISSING.finding(f"f{i}.md", "m", 1, 1) for i in range(13)]
    findings += [LEGACY.finding("p.json", "l", 2, 1), EXTENSION.finding("a.md", "e")]
    text = summary(Result.of(findings, 15))
    assert "| error | 13 | 10 | 3 |" in text
    assert "| warning | 1 | 1 | 0 |" in text
    assert "| notice | 1 | 1 | 0 |" in text
    assert "3 more findings are in `apc.sarif`" in text
    assert "| `TST001` | error | 13 |" in text


def test_ten_or_fewer_need_no_note() -> None:
    text = summary(Result.of([MISSING.finding(f"f{i}.md", "m", 1, 1) for i in range(10)], 10))
    assert "| error | 10 | 10 | 0 |" in text
    assert "more finding" not in text
