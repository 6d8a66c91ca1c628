"""GitLab Code Quality JSON: the fields GitLab reads, and one issue per finding."""

from __future__ import annotations

import json

from apc_tools.findings import Result
from apc_tools.report import render
from tests.report_rules import EXTENSION, LEGACY, MISSING, REGISTRY


def gitlab(result: Result) -> list[dict[str, object]]:
    data = json.loads(render(result, "gitlab", REGISTRY, color=True, version="0"))
    assert isinstance(data, list)
    return data


def test_fields_gitlab_reads() -> None:
    result = Result.of([MISSING.finding(".apc/agents/a.md", "agent has no name", 4, 2)], 1)
    [issue] = gitlab(result)
    assert issue == {
        "description": "TST001: agent has no name",
        "check_name": "TST001",
        "fingerprint": result.findings[0].fingerprint,
        "severity": "major",
        "location": {"path": ".apc/agents/a.md", "lines": {"begin": 4}},
    }


def test_severities_map_to_gitlab_scale() -> None:
    result = Result.of(
        [
            MISSING.finding("a.md", "m", 1, 1),
            LEGACY.finding("b.json", "l", 2, None),
            EXTENSION.finding("c.md", "e"),
        ],
        3,
    )
    assert [i["severity"] for i in gitlab(result)] == ["major", "minor", "info"]


def test_file_level_finding_sits_on_line_one_and_empty_path_is_dot() -> None:
    result = Result.of([EXTENSION.finding("AGENTS.md", "x"), EXTENSION.finding("", "y")], 1)
    locations = [i["location"] for i in gitlab(result)]
    assert locations == [
        {"path": ".", "lines": {"begin": 1}},
        {"path": "AGENTS.md", "lines": {"begin": 1}},
    ]


def test_repeated_finding_gets_distinct_fingerprints() -> None:
    """GitLab keeps one issue per fingerprint: the same rule on the same content twice in one
    file must stay two issues."""
    same = [MISSING.finding("a.md", "dup", line, 1, match="k") for line in (3, 9)]
    prints = [i["fingerprint"] for i in gitlab(Result.of(same, 1))]
    assert len(set(prints)) == 2
    assert prints[1] == prints[0] + ":2"


def test_commit_is_named_and_paths_use_forward_slashes() -> None:
    finding = MISSING.finding("./docs\\x.md", "leak", 1, 1, commit="0123456789abcdef0123")
    [issue] = gitlab(Result.of([finding], 1))
    assert issue["description"] == "TST001: leak (commit 0123456789ab)"
    assert issue["location"] == {"path": "docs/x.md", "lines": {"begin": 1}}


def test_clean_run_is_an_empty_array() -> None:
    assert render(Result.of([], 5), "gitlab", REGISTRY, color=False, version="0") == "[]\n"
