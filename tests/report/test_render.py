"""The text and json renderers, the format dispatch, and properties every format must keep."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from apc_tools.findings import Finding, Result, Severity
from apc_tools.report import FORMATS, render
from apc_tools.report.text import collapse_versions
from tests.report_rules import EXTENSION, LEGACY, MISSING, REGISTRY

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "schemas" / "report.schema.json"

ESC = "\x1b"


def sample() -> Result:
    return Result.of(
        [
            MISSING.finding(".apc/agents/a.md", "agent has no name", 1, 1),
            LEGACY.finding(".apc/project.json", "prefer apc", 3, None),
            EXTENSION.finding("AGENTS.md", "extension field role"),
            MISSING.finding(".apc/agents/b.md", "agent has no name", 2, 5, commit="abc1234"),
        ],
        files=7,
    )


@cache
def schema_validator() -> Draft202012Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def out(result: Result, fmt: str, *, color: bool = False) -> str:
    return render(result, fmt, REGISTRY, color=color, version="9.8.7")


# --- dispatch ----------------------------------------------------------------------------------
def test_every_format_renders_and_ends_with_newline() -> None:
    for fmt in FORMATS:
        text = out(sample(), fmt)
        assert text.endswith("\n") and not text.endswith("\n\n"), fmt


def test_unknown_format_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown output format 'xml'"):
        out(sample(), "xml")


# --- text --------------------------------------------------------------------------------------
def test_long_text_report_ends_with_counts_per_rule_and_skipped_files() -> None:
    many = [MISSING.finding(f"a{i}.md", "agent has no name", 1, 1) for i in range(12)]
    many.append(LEGACY.finding("p.json", "prefer apc"))
    lines = out(Result.of(many, files=13, skipped=2), "text").splitlines()
    assert lines[-4:] == [
        "by rule:",
        "  12 error TST001",
        "   1 warning TST002",
        "12 errors, 1 warning, 0 info in 13 files (2 other files skipped)",
    ]
    report = json.loads(out(Result.of(many, files=13, skipped=2), "json"))
    assert report["summary"]["skipped"] == 2
    schema_validator().validate(report)


def test_text_lines_and_summary() -> None:
    assert out(sample(), "text").splitlines() == [
        ".apc/agents/a.md:1:1: error TST001 agent has no name",
        ".apc/agents/b.md:2:5: error TST001 agent has no name (commit abc1234)",
        ".apc/project.json:3: warning TST002 prefer apc",
        "AGENTS.md: info RT001 extension field role",
        "2 errors, 1 warning, 1 info in 7 files",
    ]


def test_text_clean_run_says_so() -> None:
    assert out(Result.of([], files=1), "text") == "no problems found in 1 file\n"
    assert out(Result.of([], files=12), "text") == "no problems found in 12 files\n"


def test_text_colour_only_when_asked() -> None:
    plain = out(sample(), "text", color=False)
    coloured = out(sample(), "text", color=True)
    assert ESC not in plain
    assert f"{ESC}[" in coloured
    assert "\x1b[1;31merror\x1b[0m" in coloured
    assert coloured.count("\n") == plain.count("\n")
    assert f"{ESC}[" in out(Result.of([], files=1), "text", color=True)


def test_text_neutralises_control_characters_from_files() -> None:
    hostile = MISSING.finding("evil\x1b[2J\nname.md", "bad\r\nFAKE:1:1: error X\x1b]0;t\x07", 4, 2)
    text = out(Result.of([hostile], files=1), "text", color=False)
    assert ESC not in text and "\r" not in text
    assert text.splitlines()[0] == (
        "evil\\x1b[2J\\x0aname.md:4:2: error TST001 bad\\x0d\\x0aFAKE:1:1: error X\\x1b]0;t\\x07"
    )
    assert len(text.splitlines()) == 2


def test_text_shows_undecodable_bytes_and_bidi_overrides_escaped() -> None:
    path = b"caf\xe9\xe2\x80\xae.md".decode("utf-8", "surrogateescape")
    text = out(Result.of([MISSING.finding(path, "m")], files=1), "text")
    assert text.startswith("caf\\xe9\\u202e.md: error")
    text.encode("utf-8")  # printable on any UTF-8 terminal: no lone surrogates left


# --- json --------------------------------------------------------------------------------------
def test_json_shape_is_exactly_the_documented_one() -> None:
    doc = json.loads(out(sample(), "json"))
    assert list(doc) == ["version", "findings", "summary"]
    assert doc["version"] == 2
    assert doc["summary"] == {"error": 2, "warning": 1, "info": 1, "files": 7}
    assert doc["findings"][0] == {
        "rule": "TST001",
        "severity": "error",
        "path": ".apc/agents/a.md",
        "line": 1,
        "column": 1,
        "message": "agent has no name",
        "commit": None,
        "fingerprint": sample().findings[0].fingerprint,
    }
    assert doc["findings"][1]["commit"] == "abc1234"
    assert doc["findings"][3] == {
        "rule": "RT001",
        "severity": "info",
        "path": "AGENTS.md",
        "line": None,
        "column": None,
        "message": "extension field role",
        "commit": None,
        "fingerprint": sample().findings[3].fingerprint,
    }
    assert all(len(f["fingerprint"]) == 32 for f in doc["findings"])


def test_json_is_stable() -> None:
    assert out(sample(), "json") == out(sample(), "json")


def test_json_validates_against_the_published_schema() -> None:
    validator = schema_validator()
    for result in (sample(), Result.of([], files=0)):
        errors = list(validator.iter_errors(json.loads(out(result, "json"))))
        assert errors == []


def test_schema_identity() -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://apc-tools.dev/schemas/v2/report.schema.json"
    assert schema["x-apc-schema-version"] == "2.1.0"


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (lambda d: d.pop("summary"), "summary missing"),
        (lambda d: d.update(version=1), "unknown version"),
        (lambda d: d["findings"][0].update(line=0), "line is 1-based"),
        (lambda d: d["findings"][0].update(severity="fatal"), "unknown severity"),
        (lambda d: d["findings"][0].update(rule="apc-1"), "rule id pattern"),
        (lambda d: d["findings"][0].pop("commit"), "commit is always present"),
        (lambda d: d["findings"][0].update(extra=1), "no extra keys"),
        (lambda d: d["summary"].update(error=-1), "counts are not negative"),
    ],
)
def test_schema_rejects_malformed_reports(change: Any, why: str) -> None:
    doc = json.loads(out(sample(), "json"))
    change(doc)
    assert list(schema_validator().iter_errors(doc)), why


# --- properties over arbitrary findings --------------------------------------------------------
ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=40)
FINDING = st.builds(
    Finding,
    rule=st.sampled_from(["TST001", "TST002", "RT001", "NEW999"]),
    severity=st.sampled_from(list(Severity)),
    path=ANY_TEXT,
    line=st.none() | st.integers(1, 10**6),
    column=st.none() | st.integers(1, 10**4),
    message=ANY_TEXT,
    commit=st.none() | st.text("0123456789abcdef", min_size=7, max_size=40),
)
RESULTS = st.builds(Result.of, st.lists(FINDING, max_size=8), st.integers(0, 1000))


@given(RESULTS)
def test_json_always_matches_the_schema(result: Result) -> None:
    doc = json.loads(out(result, "json"))
    assert list(schema_validator().iter_errors(doc)) == []
    assert len(doc["findings"]) == len(result.findings)


@given(RESULTS, st.booleans())
def test_text_is_one_line_per_finding_plus_summary(result: Result, color: bool) -> None:
    text = out(result, "text", color=color)
    lines = text.split("\n")
    # one line per finding, except that the versions of one path (boundary --history: the same
    # rule and path in several commits) share one line
    assert lines[-1] == "" and len(lines) == len(collapse_versions(result.findings)) + 2
    assert "\r" not in text
    if not color:
        assert ESC not in text
    text.encode("utf-8")


# --- what a long report never hides ------------------------------------------------------------
def test_every_error_is_named_and_a_repeated_message_is_written_once() -> None:
    errors = [MISSING.finding(f"agents/a{i}.md", "agent has no name", 1, 1) for i in range(7)]
    warnings = [LEGACY.finding(f"p{i}.json", "prefer apc", 2, 1) for i in range(7)]
    text = out(Result.of(errors + warnings, files=14), "text")
    lines = text.splitlines()
    for i in range(7):  # each error's place is in the output...
        assert any(line.startswith(f"agents/a{i}.md:1:1: error TST001") for line in lines)
    # ...its message in full three times, then said to be the same
    assert text.count("error TST001 agent has no name") == 3
    assert text.count("error TST001 (the message above, again)") == 4
    assert "more TST001" not in text
    # warnings past the first few are still counted, not listed
    assert sum(1 for line in lines if line.startswith("p") and "TST002" in line) == 3
    assert "... and 4 more TST002 warnings with this message" in text


def test_the_allow_snippet_is_offered_for_warnings_only() -> None:
    infos = [EXTENSION.finding(f"a{i}.md", "extension field role") for i in range(6)]
    warnings = [LEGACY.finding(f"p{i}.json", "prefer apc", 2, 1) for i in range(6)]
    assert "to accept exactly" not in out(Result.of(infos, files=6), "text")
    assert "to accept exactly these" in out(Result.of(warnings, files=6), "text")


def full_lines(finding: Finding, line: str, width: int | None = None) -> list[str]:
    from apc_tools.report.text import render_text

    text = render_text(
        Result.of([finding], files=1), color=False, line_of=lambda f: line, width=width
    )
    return text.splitlines()


def caret_column(lines: list[str]) -> tuple[str, int]:
    """The shown source line (after its gutter) and the display column of the caret in it."""
    from apc_tools.report.text import display_width

    source = next(line for line in lines if line.startswith(" 1 | "))[5:]
    caret = next(line for line in lines if line.strip().endswith("^"))
    return source, display_width(caret[5:]) - 1


@pytest.mark.parametrize(
    "before",
    ["説明文です", "👍👍", "é" * 3, "e\u0301e\u0301", "ascii "],
    ids=["cjk", "emoji", "latin", "combining", "ascii"],
)
def test_the_caret_stands_under_the_column_after_wide_text(before: str) -> None:
    from apc_tools.report.text import display_width

    line = f"name: {before}X rest"
    column = line.index("X") + 1
    lines = full_lines(MISSING.finding("a.md", "bad", 1, column), line)
    source, at = caret_column(lines)
    assert source == line
    assert at == display_width(line[: column - 1])  # the caret is under the X on screen


def test_a_long_line_is_cut_around_the_column_to_fit_the_terminal() -> None:
    from apc_tools.report.text import display_width

    line = "description: " + "説明" * 40 + "X" + " tail" * 30
    column = line.index("X") + 1
    lines = full_lines(MISSING.finding("a.md", "bad", 1, column), line, width=60)
    source, at = caret_column(lines)
    assert display_width(" 1 | " + source) <= 60
    assert source.startswith("…") and source.endswith("…")
    # the caret is under the X of the cut line
    x = source.index("X")
    assert at == display_width(source[:x])
    assert all(len(row) <= 60 + 40 for row in lines)  # (byte length: wide characters)
    # without a width the old 120-column window applies
    wide, _ = caret_column(full_lines(MISSING.finding("a.md", "bad", 1, column), line))
    assert display_width(wide) > 60
