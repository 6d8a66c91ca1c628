"""GitHub workflow-command annotations: escaping as the Actions toolkit does, no injection."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from apc_tools.findings import Finding, Registry, Result, Rule, Severity
from apc_tools.report import render
from apc_tools.report.github import escape_data, escape_property, printable

RULE = Rule(
    id="TST001",
    name="missing-name",
    severity=Severity.ERROR,
    summary="An agent has no name.",
    explanation="Add `name:`.",
    good="name: a",
    bad="model: b",
    family="contract",
)
REGISTRY = Registry.of([RULE])
COMMAND_LINE = re.compile(r"^::(error|warning|notice) ([^:]*)::(.*)$")


def github(findings: list[Finding], files: int = 1) -> str:
    return render(Result.of(findings, files), "github", REGISTRY, color=True, version="0")


def runner_lines(output: str) -> list[str]:
    """Lines as the Actions runner reads them: split at CR, LF and CRLF."""
    return re.split(r"\r\n|\r|\n", output.rstrip("\n"))


def unescape(value: str, *, prop: bool) -> str:
    """The runner's unescaping (ActionCommand): the tokens first, ``%25`` last."""
    pairs = [("%0D", "\r"), ("%0A", "\n")] + ([("%3A", ":"), ("%2C", ",")] if prop else [])
    for token, char in pairs:
        value = value.replace(token, char)
    return value.replace("%25", "%")


def parse(line: str) -> tuple[str, dict[str, str], str]:
    """Parse one command the way the runner does: ``::cmd k=v,k=v::data``."""
    match = COMMAND_LINE.match(line)
    assert match, line
    props = {}
    for pair in match.group(2).split(","):
        key, _, value = pair.partition("=")
        props[key] = unescape(value, prop=True)
    return match.group(1), props, unescape(match.group(3), prop=False)


def test_one_annotation_per_finding_with_position_and_title() -> None:
    lines = runner_lines(
        github(
            [
                RULE.finding("a.md", "no name", 3, 7),
                RULE.finding("b.md", "fyi", 2, severity=Severity.INFO),
                RULE.finding("c.md", "hmm", severity=Severity.WARNING),
            ],
            files=3,
        )
    )
    assert lines == [
        "::error file=a.md,line=3,col=7,title=TST001::no name",
        "::notice file=b.md,line=2,title=TST001::fyi",
        "::warning file=c.md,title=TST001::hmm",
        "1 error, 1 warning, 1 info in 3 files",
    ]


def test_escaping_matches_the_toolkit() -> None:
    assert escape_data("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext: a,b"
    assert escape_property("50% done\r\nnext: a,b") == "50%25 done%0D%0Anext%3A a%2Cb"
    assert escape_data("%0A") == "%250A"


def test_hostile_file_name_cannot_inject_a_command() -> None:
    path = "a,b:c%d\n::error::x"
    message = "boom\r\n::warning file=x::injected %0A"
    output = github([RULE.finding(path, message, 1, 1)])
    lines = runner_lines(output)
    assert len(lines) == 2
    assert [line for line in lines if line.startswith("::")] == [lines[0]]
    assert lines[0] == (
        "::error file=a%2Cb%3Ac%25d%0A%3A%3Aerror%3A%3Ax,line=1,col=1,title=TST001"
        "::boom%0D%0A::warning file=x::injected %250A"
    )
    command, props, data = parse(lines[0])
    assert (command, props["file"], props["title"], data) == ("error", path, "TST001", message)


def test_windows_separators_become_forward_slashes() -> None:
    (line, _summary) = runner_lines(github([RULE.finding("docs\\x.md", "m")]))
    assert parse(line)[1]["file"] == "docs/x.md"


def test_no_colour_codes_even_when_colour_is_on() -> None:
    assert "\x1b" not in github([RULE.finding("a.md", "m", 1)])


ANY_TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)


@given(st.lists(st.tuples(ANY_TEXT, ANY_TEXT, st.sampled_from(list(Severity))), max_size=6))
def test_any_path_and_message_round_trip_as_one_command(
    items: list[tuple[str, str, Severity]],
) -> None:
    findings = [RULE.finding(p, m, 1, 2, severity=s) for p, m, s in items]
    result = Result.of(findings, files=1)
    lines = runner_lines(github(findings))
    assert len(lines) == len(result.findings) + 1
    assert not lines[-1].startswith("::")
    for finding, line in zip(result.findings, lines, strict=False):
        command, props, data = parse(line)
        assert (
            command
            == {"error": "error", "warning": "warning", "info": "notice"}[finding.severity.value]
        )
        assert data == printable(finding.message)
        assert props.get("file", "") == printable(finding.path.replace("\\", "/"))
        if finding.message.isprintable():
            assert data == finding.message
        assert (props["line"], props["col"], props["title"]) == ("1", "2", "TST001")


def test_escape_osc_and_bel_in_a_file_name_are_escaped() -> None:
    """B11/B12: a file name's ESC, OSC, CSI and BEL never reach the log raw."""
    path = ".apc/agents/osc\x1b]0;pwned\x07csi\x1b[31m\x9b2J.md"
    output = github([RULE.finding(path, "bell\x07 in \x1b[1mmessage", 1)])
    assert not any(ch in output for ch in "\x1b\x07\x9b")
    assert "osc\\x1b]0;pwned\\x07csi" in output
    assert "bell\\x07 in \\x1b[1mmessage" in output
