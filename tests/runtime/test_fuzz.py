"""Issue 11: hostile bytes into `apc repair` end to end and into the runtime readers.

Hypothesis builds random bytes and structured hostile histories: JSON arrays, objects holding
the list, and JSONL, with numbers of thousands of digits, nesting up to 100,000 levels, control
characters, lone surrogate escapes, NaN, invalid UTF-8, truncation and pathological repetition.
Every input must give a result or one ``CannotRun`` (exit 2), never a traceback; a hang guard
(SIGALRM, generous) stops a run that does not end. The example budget is fixed
(``FUZZ_EXAMPLES``: 300 per test in CI, derandomized, see tests/conftest.py).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from apc_tools.cli import main
from apc_tools.findings import CannotRun
from apc_tools.runtime.io import read_history
from tests.conftest import FUZZ_EXAMPLES
from tests.hang_guard import hang_guard

CALL = '{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}'
FRAGMENTS = [
    '{"role": "user", "content": "hi"}',
    '{"role": "assistant", "content": null, "tool_calls": [' + CALL + "]}",
    '{"role": "tool", "tool_call_id": "c1", "content": "ok"}',
    '{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t"}]}',
    '{"type": "function_call", "call_id": "c", "name": "f", "arguments": "{}"}',
    '{"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]}',
]


@st.composite
def hostile_value(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["digits", "hex", "deep", "deep-object", "control", "other"]))
    if kind == "digits":
        return "-" * draw(st.integers(0, 1)) + "9" * draw(st.integers(4000, 20_000))
    if kind == "hex":
        return '"0x' + "f" * draw(st.integers(1, 5000)) + '"'
    if kind == "deep":
        depth = draw(st.sampled_from([10, 900, 990, 1000, 5000, 100_000]))
        return "[" * depth + "]" * depth
    if kind == "deep-object":
        depth = draw(st.sampled_from([500, 990, 3000]))
        return '{"a": ' * depth + "1" + "}" * depth
    if kind == "control":
        text = draw(st.text(st.characters(max_codepoint=0x9F), max_size=40))
        return json.dumps(text + "\x1b]0;x\x07\n::error::x")
    return draw(st.sampled_from(["NaN", "Infinity", "-Infinity", '"\\ud800"', "1e999", "null"]))


@st.composite
def hostile_record(draw: st.DrawFn) -> str:
    base = draw(st.sampled_from(FRAGMENTS))
    return base[:-1] + ', "x": ' + draw(hostile_value()) + "}"


@st.composite
def hostile_history(draw: st.DrawFn) -> tuple[str, bytes]:
    """(file name, bytes): a history with hostile parts, damaged at the byte level."""
    records = draw(st.lists(st.one_of(st.sampled_from(FRAGMENTS), hostile_record()), max_size=6))
    layout = draw(st.sampled_from(["array", "object", "jsonl"]))
    if layout == "jsonl":
        name, text = "h.jsonl", "".join(r + "\n" for r in records)
    elif layout == "object":
        name, text = "h.json", '{"model": "m", "messages": [' + ", ".join(records) + "]}"
    else:
        name, text = "h.json", "[" + ", ".join(records) + "]"
    data = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from(["none", "cut", "bytes", "repeat"]))
    if damage == "cut" and data:
        data = data[: draw(st.integers(0, len(data) - 1))]
    elif damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = (
            data[:at]
            + draw(st.sampled_from([b"\xff", b"\xc3", b"\x00", b"\xed\xa0\x80"]))
            + data[at:]
        )
    elif damage == "repeat":
        data += draw(st.sampled_from([b"[", b"{", b'"', b"\\", b"\n", b"{}\n"])) * 50_000
    return name, data


INPUTS = st.one_of(
    hostile_history(),
    st.tuples(st.sampled_from(["h.json", "h.jsonl", "h"]), st.binary(max_size=3000)),
)
OPTIONS = st.sampled_from(
    [
        ["-o", "out.json"],
        ["--check"],
        ["--skip-bad-lines", "-o", "out.jsonl"],
        ["--skip-bad-lines", "--check", "--format", "sarif"],
        ["--format", "github"],
        ["--in-place", "--format", "json"],
    ]
)


def run_cli(args: list[str], stdin: bytes | None = None) -> None:
    with hang_guard():
        result = CliRunner().invoke(main, ["repair", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        repr(result.exception),
        result.output[-2000:],
    )
    assert result.exit_code in (0, 1, 2), result.output[-2000:]
    assert "Traceback" not in result.output


@settings(max_examples=FUZZ_EXAMPLES)
@given(item=INPUTS, options=OPTIONS)
def test_apc_repair_end_to_end_never_crashes(item: tuple[str, bytes], options: list[str]) -> None:
    name, data = item
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / name).write_bytes(data)
        paths = [str(folder / o) if o.startswith("out.") else o for o in options]
        run_cli([str(folder / name), *paths])


@settings(max_examples=FUZZ_EXAMPLES)
@given(item=INPUTS, skip=st.booleans())
def test_apc_repair_from_stdin_never_crashes(item: tuple[str, bytes], skip: bool) -> None:
    run_cli(["-", *(["--skip-bad-lines"] if skip else [])], stdin=item[1])


@settings(max_examples=FUZZ_EXAMPLES)
@given(item=INPUTS, skip=st.booleans())
def test_the_runtime_readers_never_crash(item: tuple[str, bytes], skip: bool) -> None:
    name, data = item
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / name
        path.write_bytes(data)
        with hang_guard():
            try:
                history = read_history(path, skip_bad_lines=skip)
            except CannotRun as error:
                assert str(error).startswith(str(path)) or "<stdin>" in str(error)
                return
        assert all(isinstance(r, dict) for r in history.records)
