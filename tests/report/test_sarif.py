"""SARIF 2.1.0 output, checked against the structure GitHub code scanning requires."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from apc_tools.findings import Finding, Registry, Result, Rule, Severity
from apc_tools.report import render
from apc_tools.report.sarif import FINGERPRINT_KEY, RESULT_LIMIT, artifact_uri
from tests.report_rules import EXTENSION, LEGACY, MISSING, REGISTRY

LEVELS = {"error", "warning", "note"}
# RFC 3986 unreserved characters, "/" and percent-escapes: what a relative URI reference may hold.
URI_REF = re.compile(r"^(?:[A-Za-z0-9\-._~/]|%[0-9A-F]{2})*$")


def sarif(result: Result) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(render(result, "sarif", REGISTRY, color=True, version="1.2.3"))
    assert_sarif_structure(doc)
    return doc


def assert_sarif_structure(doc: dict[str, Any]) -> None:
    """The keys and types SARIF 2.1.0 and GitHub code scanning require."""
    assert doc["$schema"].startswith("https://") and doc["version"] == "2.1.0"
    assert isinstance(doc["runs"], list) and len(doc["runs"]) == 1
    run = doc["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "apc-tools" and driver["version"] == "1.2.3"
    assert driver["informationUri"].startswith("https://")
    rules = driver["rules"]
    assert len({r["id"] for r in rules}) == len(rules)
    for rule in rules:
        assert_rule_descriptor(rule)
    for result in run["results"]:
        assert_result(result, rules)


def assert_rule_descriptor(rule: dict[str, Any]) -> None:
    assert isinstance(rule["id"], str) and rule["id"]
    text = rule["shortDescription"]["text"]
    assert isinstance(text, str) and 0 < len(text) <= 1024
    assert rule["defaultConfiguration"]["level"] in LEVELS
    if "help" in rule:
        assert rule["help"]["text"] and rule["help"]["markdown"]
        assert rule["fullDescription"]["text"]
        assert all(isinstance(tag, str) for tag in rule["properties"]["tags"])


def assert_result(result: dict[str, Any], rules: list[dict[str, Any]]) -> None:
    assert isinstance(result["ruleId"], str)
    assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
    assert result["level"] in LEVELS
    assert isinstance(result["message"]["text"], str) and result["message"]["text"]
    assert len(result["locations"]) == 1
    physical = result["locations"][0]["physicalLocation"]
    uri = physical["artifactLocation"]["uri"]
    assert isinstance(uri, str) and "\\" not in uri
    assert uri.startswith("file:///") or URI_REF.match(uri), uri
    region = physical["region"]  # code scanning places every alert on a line
    assert set(region) <= {"startLine", "startColumn"}
    assert isinstance(region["startLine"], int) and region["startLine"] >= 1
    assert region.get("startColumn", 1) >= 1
    fingerprints = result["partialFingerprints"]
    assert fingerprints and all(isinstance(v, str) and v for v in fingerprints.values())


def sample() -> Result:
    return Result.of(
        [
            MISSING.finding(".apc/agents/a.md", "agent has no name", 1, 3),
            LEGACY.finding(".apc/project.json", "prefer apc", 3),
            EXTENSION.finding("AGENTS.md", "extension field role"),
        ],
        files=3,
    )


def test_driver_lists_registry_rules_with_help() -> None:
    rules = sarif(sample())["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["RT001", "TST001", "TST002"]
    tst001 = rules[1]
    assert tst001["name"] == "missing-name"
    assert tst001["shortDescription"]["text"] == "An agent has no name."
    assert tst001["fullDescription"]["text"] == "Add `name:` equal to the file slug."
    assert tst001["defaultConfiguration"]["level"] == "error"
    assert rules[0]["defaultConfiguration"]["level"] == "note"
    assert "model: inherit" in tst001["help"]["text"]
    assert "```text\n---\nname: reviewer\n---\n```" in tst001["help"]["markdown"]
    assert tst001["properties"]["tags"] == ["contract"]


def test_long_descriptions_are_clipped_for_github_but_help_is_whole() -> None:
    wordy = Rule(
        id="TST003",
        name="verbose",
        severity=Severity.WARNING,
        summary="Short.",
        explanation="word " * 400,
        good="a",
        bad="b",
        family="contract",
    )
    registry = Registry.of([wordy])
    doc = json.loads(render(Result.of([], 0), "sarif", registry, color=False, version="1"))
    rule = doc["runs"][0]["tool"]["driver"]["rules"][0]
    assert len(rule["fullDescription"]["text"]) == 1024
    assert rule["fullDescription"]["text"].endswith("…")
    assert rule["help"]["text"].count("word") == 400


def test_results_carry_rule_level_location_and_region() -> None:
    results = sarif(sample())["runs"][0]["results"]
    assert [(r["ruleId"], r["ruleIndex"], r["level"]) for r in results] == [
        ("TST001", 1, "error"),
        ("TST002", 2, "warning"),
        ("RT001", 0, "note"),
    ]
    first = results[0]["locations"][0]["physicalLocation"]
    assert first["artifactLocation"] == {"uri": ".apc/agents/a.md", "uriBaseId": "%SRCROOT%"}
    assert first["region"] == {"startLine": 1, "startColumn": 3}
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3}
    assert results[0]["message"]["text"] == "agent has no name"


def test_a_finding_about_the_whole_file_is_placed_on_line_one() -> None:
    results = sarif(sample())["runs"][0]["results"]
    assert results[2]["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}
    stray = Finding("ZZ999", Severity.WARNING, "x.md", 0, None, "line zero")
    result = sarif(Result.of([stray], files=1))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["region"] == {"startLine": 1}


def test_a_run_is_capped_most_severe_first_and_says_how_many_were_left_out() -> None:
    warnings = [LEGACY.finding(f"w/{i}.md", "w", 1) for i in range(RESULT_LIMIT)]
    notes = [EXTENSION.finding(f"n/{i}.md", "n") for i in range(5)]
    errors = [MISSING.finding(f"z/{i}.md", "e", 2) for i in range(7)]
    run = sarif(Result.of([*notes, *warnings, *errors], files=RESULT_LIMIT + 12))["runs"][0]
    results = run["results"]
    assert len(results) == RESULT_LIMIT
    assert [r["level"] for r in results[:7]] == ["error"] * 7
    assert {r["level"] for r in results[7:]} == {"warning"}
    assert run["properties"] == {
        "resultsTotal": RESULT_LIMIT + 12,
        "resultsOmitted": 12,
        "resultsLimit": RESULT_LIMIT,
    }
    under = sarif(sample())["runs"][0]["properties"]
    assert under == {"resultsTotal": 3, "resultsOmitted": 0, "resultsLimit": RESULT_LIMIT}


def test_leak_and_secret_rules_are_security_alerts_ranked_by_severity() -> None:
    from apc_tools.catalog import registry

    rules = {
        r["id"]: r
        for r in json.loads(
            render(Result.of([], 0), "sarif", registry(), color=False, version="1")
        )["runs"][0]["tool"]["driver"]["rules"]
    }
    score = {rid: rule["properties"].get("security-severity") for rid, rule in rules.items()}
    assert score["BSC001"] == score["SEC001"] == score["MCP003"] == "9.0"  # secrets: critical
    assert score["BTR001"] == score["BDB001"] == score["AGM005"] == "7.5"  # leaks: high
    assert score["BTR002"] == "5.0"  # a warning: medium
    for rid in ("BIO001", "BPL002", "AGT001", "SKL001"):  # not about a leak
        assert score[rid] is None and "security" not in rules[rid]["properties"]["tags"]
    for rid, value in score.items():
        tags = rules[rid]["properties"]["tags"]
        assert ("security" in tags) == (value is not None), rid
        if value is not None:
            assert 0.1 <= float(value) <= 10.0


def test_severity_override_changes_level_not_rule_default() -> None:
    raised = LEGACY.finding("p.json", "m", 1, severity=Severity.ERROR)
    doc = sarif(Result.of([raised], files=1))
    assert doc["runs"][0]["results"][0]["level"] == "error"
    assert doc["runs"][0]["tool"]["driver"]["rules"][2]["defaultConfiguration"]["level"] == (
        "warning"
    )


def test_unregistered_rule_still_gets_a_valid_index() -> None:
    stray = Finding("ZZ999", Severity.WARNING, "x.md", None, None, "from elsewhere")
    doc = sarif(Result.of([stray], files=1))
    rules = doc["runs"][0]["tool"]["driver"]["rules"]
    assert rules[-1]["id"] == "ZZ999"
    assert doc["runs"][0]["results"][0]["ruleIndex"] == len(rules) - 1


def test_commit_is_kept_as_a_property() -> None:
    found = MISSING.finding("a.md", "m", 2, commit="0123abc")
    assert sarif(Result.of([found], files=1))["runs"][0]["results"][0]["properties"] == {
        "commit": "0123abc"
    }


def fingerprints(result: Result) -> list[str]:
    return [r["partialFingerprints"][FINGERPRINT_KEY] for r in sarif(result)["runs"][0]["results"]]


def test_fingerprints_ignore_line_moves_and_rewording_but_not_content() -> None:
    def one(rule: Rule, path: str, message: str, line: int, match: str) -> list[str]:
        return fingerprints(Result.of([rule.finding(path, message, line, 1, match=match)], files=1))

    before = one(MISSING, "a.md", "no name", 3, "name")
    assert one(MISSING, "a.md", "`name` is missing: add it", 40, "name") == before
    other_path = one(MISSING, "b.md", "no name", 3, "name")
    other_rule = one(LEGACY, "a.md", "no name", 3, "name")
    other_content = one(MISSING, "a.md", "no name", 3, "title")
    assert len({before[0], other_path[0], other_rule[0], other_content[0]}) == 4


def test_equal_findings_in_one_file_get_distinct_fingerprints() -> None:
    twice = [MISSING.finding("a.md", "same", 1, 1), MISSING.finding("a.md", "same", 9, 1)]
    prints = fingerprints(Result.of(twice, files=1))
    assert len(set(prints)) == 2
    assert prints[0].endswith(":1") and prints[1].endswith(":2")


def test_artifact_uris_are_relative_forward_slash_and_escaped() -> None:
    assert artifact_uri("docs\\a b.md") == "docs/a%20b.md"
    assert artifact_uri("./x/y.md") == "x/y.md"
    assert artifact_uri("we:ird#name?%.md") == "we%3Aird%23name%3F%25.md"
    assert artifact_uri("ünï.md") == "%C3%BCn%C3%AF.md"
    assert artifact_uri(b"caf\xe9.md".decode("utf-8", "surrogateescape")) == "caf%E9.md"
    assert artifact_uri("/home/u/p/a.md") == "file:///home/u/p/a.md"
    assert artifact_uri("C:\\Users\\u\\a.md") == "file:///C:/Users/u/a.md"


def test_clean_run_is_valid_sarif_with_empty_results() -> None:
    doc = sarif(Result.of([], files=4))
    assert doc["runs"][0]["results"] == []
    assert len(doc["runs"][0]["tool"]["driver"]["rules"]) == 3


ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=40)
FINDING = st.builds(
    Finding,
    rule=st.sampled_from(["TST001", "TST002", "RT001", "NEW999"]),
    severity=st.sampled_from(list(Severity)),
    path=ANY_TEXT.filter(lambda p: not p.startswith(("/", "\\")) and ":" not in p[1:3]),
    line=st.none() | st.integers(1, 10**6),
    column=st.none() | st.integers(1, 10**4),
    message=ANY_TEXT,
    commit=st.none() | st.text("0123456789abcdef", min_size=7, max_size=40),
)


@given(st.lists(FINDING, max_size=8))
def test_every_result_is_structurally_valid(findings: list[Finding]) -> None:
    doc = sarif(Result.of(findings, files=len(findings)))
    results = doc["runs"][0]["results"]
    assert len(results) == len(set(findings))
    for result in results:
        uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        assert not uri.startswith("file:")
    keys = [(r["ruleId"], r["partialFingerprints"][FINGERPRINT_KEY]) for r in results]
    assert len(set(keys)) == len(keys)
