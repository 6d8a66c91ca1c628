"""Issue 11: hostile bytes into every parser of core/parse.py and into `apc validate` end to end.

Hypothesis builds random bytes and structured hostile text: deep nesting (YAML flow and block,
JSON), integers of thousands of digits (decimal, hex, octal), NaN and Infinity, control
characters, invalid UTF-8, and pathological repetitions of the fragments that once made apc
hang (unclosed fences and comments, ``eyJ`` runs, ``**/`` globs, private-key headers, long
white-space runs). Parsers must return (problems are values, never exceptions); ``validate``
must return a result (``CannotRun`` only for a policy file). A hang guard (SIGALRM; the regex
engine checks signals, so it interrupts a catastrophic match too) stops an example that does not
end. The example budget is fixed: ``FUZZ_EXAMPLES`` (tests/conftest.py, 300 per test in CI,
derandomized).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from apc_tools.contract.validate import validate
from apc_tools.core import files, parse
from apc_tools.findings import CannotRun, Result
from tests.conftest import FUZZ_EXAMPLES
from tests.hang_guard import hang_guard

FRAGMENTS = [
    "```a\n",
    "~~~\n",
    "<!--",
    "`a",
    "eyJ",
    "eyJhbGciOiJIUzI1NiJ9.",
    "github_pat_",
    "sk-proj-",
    "**/",
    "-----BEGIN PRIVATE KEY-----",
    "a: -----BEGIN RSA PRIVATE KEY-----\n",
    "${",
    "{{",
    "[](",
    "[x]: ",
    "user ",
    "assistant:",
    '"role": "user"',
    "name: ",
    "globs: ",
    "- ",
    "  ",
    " ",
    "\t",
    "\n",
    "\r",
    "\x00",
    "\x1b]0;x\x07",
    "\u2028",
    "\ud800",
    "&a ",
    "*a ",
    "!!python/object:os.system ",
    "? ",
    ": ",
    "---\n",
    "0x",
    "f",
    "9",
    "NaN",
    "Infinity",
    "[",
    "{",
    '{"a":',
    "]",
    "}",
    "password=",
    "Zq8xP2mL9vRt4kWn",
]


@st.composite
def hostile_text(draw: st.DrawFn) -> str:
    """Text made of hostile fragments, some repeated many times."""
    pieces: list[str] = []
    for _ in range(draw(st.integers(1, 8))):
        fragment = draw(st.sampled_from(FRAGMENTS) | st.text(max_size=8))
        times = draw(st.sampled_from([1, 2, 3, 50, 1000, 20_000]))
        pieces.append(fragment * times)
    return "".join(pieces)[: 600 * 1024]


@st.composite
def deep_or_huge(draw: st.DrawFn) -> str:
    """Deep nesting or very long numbers, as YAML frontmatter, flow YAML or JSON."""
    depth = draw(st.sampled_from([10, 100, 1000, 50_000]))
    digits = draw(st.sampled_from([10, 4000, 5000, 100_000]))
    return draw(
        st.sampled_from(
            [
                "---\nname: " + "[" * depth + "\n---\n",
                "---\nname: 0x" + "f" * digits + "\ndescription: d\n---\n",
                "---\nname: 0o" + "7" * digits + "\n---\n",
                "---\nn: " + "9" * digits + "\n---\n",
                "---\n" + "".join("  " * i + "a:\n" for i in range(min(depth, 2000))) + "---\n",
                '{"a": ' * depth + "1" + "}" * depth,
                "[" * depth + "]" * depth,
                '{"n": ' + "9" * digits + ', "x": NaN, "y": -Infinity}',
            ]
        )
    )


TEXT = hostile_text() | deep_or_huge() | st.text(max_size=2000)
BYTES = st.binary(max_size=4000) | TEXT.map(lambda t: t.encode("utf-8", "surrogatepass"))


@settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=list(HealthCheck))
@given(TEXT)
def test_every_parser_returns_on_hostile_text(text: str) -> None:
    with hang_guard():
        front = parse.split_frontmatter(text)
        if front.yaml is not None:
            parse.load_frontmatter_yaml(front.yaml, line_offset=front.yaml_line)
        parse.load_yaml(text)
        parse.load_frontmatter_yaml(text, line_offset=1)
        parse.load_json(text)
        for line in text.splitlines()[:50]:
            parse.resolve_plain(line) if len(line) <= parse.MAX_INT_CHARS else None


@settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=list(HealthCheck))
@given(BYTES)
def test_decoding_returns_text_or_a_finding_on_any_bytes(data: bytes) -> None:
    with hang_guard():
        files.decode(data, "x.md")


PLACES = [
    "AGENTS.md",
    ".apc/project.json",
    ".apc/mcps.json",
    ".apc/.gitignore",
    ".apc/agents/a.md",
    ".apc/agents/a/memory.md",
    ".apc/memory.md",
    ".apc/skills/s/SKILL.md",
    ".apc/skills/flat.md",
    ".apc/rules/r.mdc",
    ".apc/plans/p.md",
    ".claude/agents/c.md",
    ".cursor/rules/r.mdc",
    ".apc-tools.yaml",
]


HEX = b"name: 0x" + b"f" * 3600 + b"\nmodel: inherit\ndescription: d\n---\n"


@settings(max_examples=FUZZ_EXAMPLES, suppress_health_check=list(HealthCheck), deadline=None)
@given(st.sampled_from(PLACES), BYTES, st.sampled_from(["", "---\nname: a\n", "---\n"]))
@example(".apc/agents/a.md", HEX, "---\n")  # A36 (H5): crashed with a traceback
@example(".apc/skills/s/SKILL.md", HEX, "---\n")
@example(".apc/project.json", b'{"name": "d", "apc": "0.1.0", "n": ' + b"9" * 5000 + b"}", "")
@example(".apc/mcps.json", b'{"mcpServers": {"s": {"command": "x", "t": NaN}}}', "")
def test_validate_returns_on_hostile_files(place: str, data: bytes, head: str) -> None:
    with tempfile.TemporaryDirectory() as folder, hang_guard():
        root = Path(folder)
        (root / ".apc").mkdir()
        (root / "AGENTS.md").write_text("# Demo\n")
        (root / ".apc" / "project.json").write_text('{"name": "d", "apc": "0.1.0"}')
        target = root / place
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(head.encode() + data)
        try:
            result = validate([root], cwd=root)
        except CannotRun as refused:
            assert place == ".apc-tools.yaml", refused
            return
        assert isinstance(result, Result)
