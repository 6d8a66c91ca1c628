"""`apc repair` end to end: real history files, real project trees (git repositories), the CLI.

These tests need the repair algorithm (apc_tools.runtime), the contract loader and the report
renderers; they use only openai-chat histories, the simplest wire format.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from apc_tools.cli import main
from tests.conftest import REPO_ROOT, git

SYNTHETIC = "not run: the turn was interrupted"

CALL = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
BROKEN: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "user", "content": "hello? (the turn was interrupted)"},
]
CLEAN: list[dict[str, Any]] = [
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "call_1", "content": "a.txt"},
    {"role": "assistant", "content": "There is a.txt."},
]

PROJECT_FILES = {
    "AGENTS.md": "# Agents\n\nRun `make test` before committing.\n",
    ".apc/project.json": '{"name": "demo", "apc": "0.1", "version": "1.0.0"}\n',
    ".apc/agents/dev.md": "---\nname: dev\nmodel: inherit\ndescription: Developer\n---\nBody\n",
    ".apc/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint the code\n---\nRun it.\n",
    ".apc/.gitignore": "sessions/\nconversations/\ncache/\n*.local.json\n",
    "src/app.py": "print('hi')\n",
}


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def run(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["repair", *map(str, args)], catch_exceptions=False)


@pytest.fixture
def project(git_repo: Callable[..., Path]) -> Path:
    return git_repo(PROJECT_FILES, name="project")


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "runtime"
    folder.mkdir()
    return folder


@pytest.fixture
def history(outside: Path) -> Path:
    path = outside / "session.jsonl"
    path.write_text(jsonl(BROKEN))
    return path


def tree_hashes(root: Path) -> dict[str, str]:
    """SHA-256 of every file in the tree except git's own bookkeeping."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def records_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def synthetic_results(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in records if r.get("role") == "tool" and SYNTHETIC in json.dumps(r)]


# --------------------------------------------------------------------------------------------
# Where the repaired history goes


def test_out_outside_the_project(
    project: Path, history: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    original = history.read_bytes()
    out = outside / "repaired.jsonl"
    result = run(history, "-o", out)
    assert result.exit_code == 0, result.output
    repaired = records_of(out)
    assert len(synthetic_results(repaired)) == 1
    assert repaired[2]["tool_calls"] == [CALL]
    assert history.read_bytes() == original
    assert str(history) in result.stdout  # the report names the history file


def test_out_inside_the_project_is_refused(
    project: Path, history: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    before = tree_hashes(project)
    result = run(history, "-o", project / "repaired.jsonl")
    assert result.exit_code == 2
    assert result.stderr.startswith("apc: error: refusing to write")
    assert "inside the project tree" in result.stderr
    assert "Traceback" not in result.output
    assert tree_hashes(project) == before
    assert history.read_text() == jsonl(BROKEN)


def test_out_inside_the_project_named_with_project_option(
    project: Path, history: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(outside)
    result = run(history, "-o", project / ".apc" / "sessions" / "x.jsonl", "--project", project)
    assert result.exit_code == 2
    assert "inside the project tree" in result.stderr
    assert not (project / ".apc" / "sessions").exists()


def test_out_inside_a_project_found_from_the_target(
    project: Path, history: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run from outside any project, the project around -o OUT is still protected."""
    monkeypatch.chdir(outside)
    result = run(history, "-o", project / "src" / "x.jsonl")
    assert result.exit_code == 2
    assert "inside the project tree" in result.stderr
    assert not (project / "src" / "x.jsonl").exists()


def test_out_inside_another_project_is_refused(
    project: Path, history: Path, git_repo: Callable[..., Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    other = git_repo({"AGENTS.md": "# Other\n"}, name="other")
    monkeypatch.chdir(project)
    result = run(history, "-o", other / "new" / "x.jsonl")
    assert result.exit_code == 2
    assert "inside the project tree" in result.stderr
    assert not (other / "new").exists()


def test_out_inside_the_project_through_a_symlinked_cwd_is_refused(
    project: Path, history: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    link = outside / "shortcut"
    link.symlink_to(project)
    monkeypatch.chdir(link)
    result = run(history, "-o", "out.jsonl")
    assert result.exit_code == 2
    assert "inside the project tree" in result.stderr
    assert not (project / "out.jsonl").exists()


def test_in_place_inside_the_project_is_refused(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inside = project / "transcript.jsonl"
    inside.write_text(jsonl(BROKEN))
    monkeypatch.chdir(project)
    result = run(inside, "--in-place")
    assert result.exit_code == 2
    assert "inside the project tree" in result.stderr
    assert inside.read_text() == jsonl(BROKEN)


def test_in_place_outside_the_project(
    project: Path, history: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    history.chmod(0o640)
    result = run(history, "--in-place")
    assert result.exit_code == 0, result.output
    assert len(synthetic_results(records_of(history))) == 1
    assert history.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in history.parent.iterdir()] == [history.name]


def test_in_place_with_nothing_to_change_leaves_the_file_alone(outside: Path) -> None:
    path = outside / "clean.jsonl"
    path.write_text(jsonl(CLEAN))
    before = path.stat()
    result = run(path, "--in-place")
    assert result.exit_code == 0, result.output
    after = path.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_stdout_gets_the_history_and_stderr_the_report(history: Path) -> None:
    result = run(history, "--format", "json")
    assert result.exit_code == 0, result.output
    repaired = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(synthetic_results(repaired)) == 1
    report = json.loads(result.stderr)
    assert report["version"] == 2
    assert report["findings"]
    assert {f["path"] for f in report["findings"]} == {str(history)}
    assert history.read_text() == jsonl(BROKEN)


def test_json_array_keeps_its_layout(outside: Path) -> None:
    source = outside / "history.json"
    source.write_text(json.dumps({"model": "gpt", "messages": BROKEN, "n": 1}, indent=2))
    out = outside / "out.json"
    result = run(source, "-o", out)
    assert result.exit_code == 0, result.output
    written = json.loads(out.read_text())
    assert list(written) == ["model", "messages", "n"]
    assert len(synthetic_results(written["messages"])) == 1
    expected = json.dumps({**written}, indent=2, ensure_ascii=False)
    assert out.read_text() == expected


def test_history_needing_no_repair_is_written_byte_for_byte(outside: Path) -> None:
    source = outside / "clean.json"
    text = json.dumps({"model": "gpt", "messages": CLEAN, "stream": False}, indent=4) + "\n"
    source.write_text(text)
    out = outside / "out.json"
    result = run(source, "-o", out, "--format", "json")
    assert result.exit_code == 0, result.output
    assert out.read_text() == text
    assert json.loads(result.stdout)["findings"] == []


def test_unchanged_records_keep_their_exact_text(outside: Path) -> None:
    """Records the repair does not touch are copied as read: escapes, numbers, spacing."""
    lines = [
        '{"role":"user","content":"a \\u003cb\\u003e tag","n":1e5,"f":1.50}',
        '{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",'
        '"function":{"name":"ls","arguments":"{}"}}]}',
        '{"role":"user",  "content":"next"}',
    ]
    source = outside / "go.jsonl"
    source.write_text("\r\n".join(lines) + "\r\n")
    out = outside / "out.jsonl"
    result = run(source, "-o", out)
    assert result.exit_code == 0, result.output
    written = out.read_bytes().decode().split("\r\n")
    assert written[:2] == lines[:2]
    synthetic = json.loads(written[2])
    assert synthetic == {"role": "tool", "tool_call_id": "c1", "content": SYNTHETIC}
    assert written[2] == json.dumps(synthetic, separators=(",", ":"))  # the file's style
    assert written[3] == lines[2]
    assert written[4] == ""


def test_findings_point_at_the_line_of_the_record(outside: Path) -> None:
    path = outside / "h.jsonl"
    path.write_text("\n" + jsonl(BROKEN[:3]))  # a blank first line: records on lines 2-4
    result = run(path, "-o", outside / "out.jsonl", "--format", "json")
    (closed,) = json.loads(result.stdout)["findings"]
    assert closed["line"] == 4  # the assistant message with the unanswered call
    assert "record 3" in closed["message"]
    pretty = outside / "h.json"
    pretty.write_text(json.dumps(BROKEN[:3], indent=2))
    result = run(pretty, "-o", outside / "out.json", "--format", "json")
    (closed,) = json.loads(result.stdout)["findings"]
    assert (closed["line"], closed["column"]) == (10, 3)


# --------------------------------------------------------------------------------------------
# --check


def test_check_reports_what_a_provider_rejects(history: Path) -> None:
    listing = sorted(p.name for p in history.parent.iterdir())
    result = run(history, "--check", "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["summary"]["error"] >= 1
    assert sorted(p.name for p in history.parent.iterdir()) == listing
    assert history.read_text() == jsonl(BROKEN)


def test_check_passes_a_valid_history(outside: Path) -> None:
    path = outside / "clean.jsonl"
    path.write_text(jsonl(CLEAN))
    result = run(path, "--check")
    assert result.exit_code == 0, result.output


# --------------------------------------------------------------------------------------------
# Options that do not fit, and bad input: exit 2 with a clear message, never a traceback


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--in-place", "-o", "OUT"], "use either -o OUT or --in-place"),
        (["--check", "-o", "OUT"], "--check writes nothing"),
        (["-o", "SELF"], "is the input file; use --in-place"),
    ],
)
def test_options_that_do_not_fit(
    history: Path, outside: Path, extra: list[str], message: str
) -> None:
    args = [
        str(outside / "o.jsonl") if a == "OUT" else str(history) if a == "SELF" else a
        for a in extra
    ]
    result = run(history, *args)
    assert result.exit_code == 2
    assert message in result.stderr
    assert history.read_text() == jsonl(BROKEN)


BAD_FILES = {
    "notes.md": ("# Chat\n\nhello\n", "not a history file: expected a JSON array"),
    "cut.json": (json.dumps(BROKEN, indent=2)[:-30], "cut.json:"),
    "empty.jsonl": ("", "empty file"),
    "keys.json": ('{"prompt": "x"}', "'messages', 'input' or 'contents'"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_files(outside: Path, name: str) -> None:
    content, message = BAD_FILES[name]
    path = outside / name
    path.write_text(content)
    out = outside / "out.json"
    result = run(path, "-o", out)
    assert result.exit_code == 2
    assert result.stderr.startswith("apc: error: ")
    assert message in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()
    assert path.read_text() == content


def test_truncated_json_names_line_and_column(outside: Path) -> None:
    path = outside / "cut.json"
    path.write_text(json.dumps(BROKEN, indent=2)[:-30])
    result = run(path)
    assert result.exit_code == 2
    assert f"{path}:" in result.stderr
    location = result.stderr.split(f"{path}:", 1)[1].split(":")[:2]
    assert all(part.isdigit() for part in location), result.stderr
    assert result.stdout == ""


def test_unknown_wire_asks_for_wire(outside: Path) -> None:
    path = outside / "odd.jsonl"
    path.write_text('{"foo": 1}\n{"bar": 2}\n')
    result = run(path)
    assert result.exit_code == 2
    assert "--wire" in result.stderr


def test_missing_file(outside: Path) -> None:
    result = run(outside / "nope.jsonl")
    assert result.exit_code == 2
    assert "nope.jsonl" in result.stderr


# --------------------------------------------------------------------------------------------
# JSONL broken lines


def broken_line_file(outside: Path) -> Path:
    path = outside / "h.jsonl"
    lines = jsonl(BROKEN).splitlines(keepends=True)
    lines.insert(2, '{"role": "assistant", "content": "cut mid-wr\n')
    path.write_text("".join(lines))
    return path


def test_broken_line_without_skip_names_the_line_and_writes_nothing(outside: Path) -> None:
    path = broken_line_file(outside)
    original = path.read_text()
    result = run(path)
    assert result.exit_code == 2
    assert f"{path}:3: not valid JSON" in result.stderr
    assert "--skip-bad-lines" in result.stderr
    assert result.stdout == ""  # no half history on stdout
    assert path.read_text() == original


def test_broken_line_with_skip_is_reported_and_the_rest_repaired(outside: Path) -> None:
    path = broken_line_file(outside)
    out = outside / "out.jsonl"
    result = run(path, "-o", out, "--skip-bad-lines", "--format", "json")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    bad = [f for f in report["findings"] if f["rule"] == "RIO001"]
    assert [(f["line"], f["severity"]) for f in bad] == [(3, "warning")]
    repaired = records_of(out)
    assert len(synthetic_results(repaired)) == 1
    assert not any("cut mid-wr" in json.dumps(r) for r in repaired)


# --------------------------------------------------------------------------------------------
# The contract is read-only input: nothing in the project tree changes


def test_repair_changes_no_contract_file(
    project: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    transcript = project / "docs" / "examples" / "session.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text(jsonl(BROKEN))
    git(project, "add", "-A")
    git(project, "commit", "-q", "-m", "example transcript")
    monkeypatch.chdir(project)
    before = tree_hashes(project)
    for args in (
        ["-o", outside / "a.jsonl"],
        ["--check"],
        [],
        ["-o", outside / "b.jsonl", "--project", project],
        ["--in-place"],  # refused
        ["-o", project / ".apc" / "x.jsonl"],  # refused
    ):
        run(transcript, *args)
    assert tree_hashes(project) == before
    assert git(project, "status", "--porcelain") == ""
    assert len(synthetic_results(records_of(outside / "a.jsonl"))) == 1


# --------------------------------------------------------------------------------------------
# The library call and the real process


def contract_of(root: Path) -> Any:
    from apc_tools.contract.validate import load_contract

    return load_contract(root)


def test_run_repair_as_a_library_call(history: Path, project: Path) -> None:
    from apc_tools.runtime.command import run_repair

    contract = contract_of(project)
    assert contract is not None
    outcome = run_repair(history, contract=contract)
    assert outcome.wire == "openai-chat"
    assert outcome.layout.kind == "jsonl"
    assert outcome.records == len(BROKEN)
    assert outcome.changes >= 1
    assert outcome.text is not None and SYNTHETIC in outcome.text
    assert not outcome.written
    assert all(f.path == history.as_posix() for f in outcome.result.findings)


def long_history(path: Path, turns: int) -> None:
    """``turns`` answered tool turns, with three interrupted ones (whatever the length)."""
    with path.open("w") as fh:
        for turn in range(turns):
            call = {**CALL, "id": f"call_{turn}"}
            fh.write(json.dumps({"role": "user", "content": f"step {turn}"}) + "\n")
            fh.write(json.dumps({"role": "assistant", "content": None, "tool_calls": [call]}))
            fh.write("\n")
            if turn not in (1, turns // 2, turns - 1):
                result = {"role": "tool", "tool_call_id": call["id"], "content": "x" * 200}
                fh.write(json.dumps(result) + "\n")


def peak_memory_of_repair(source: Path, out: Path) -> int:
    import tracemalloc

    from apc_tools.runtime.command import run_repair

    tracemalloc.start()
    try:
        outcome = run_repair(source, out=out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert outcome.changes == 3
    return peak


def test_jsonl_repair_memory_does_not_grow_with_the_file(outside: Path) -> None:
    small, large = outside / "small.jsonl", outside / "large.jsonl"
    long_history(small, 4_000)  # about 1.2 MB: past the 1 MiB write buffer
    long_history(large, 12_000)  # about 3.6 MB: held in memory it would cost tens of MB
    peak_small = peak_memory_of_repair(small, outside / "s.out.jsonl")
    peak_large = peak_memory_of_repair(large, outside / "l.out.jsonl")
    assert peak_large < peak_small + 256 * 1024, (peak_small, peak_large)


def test_the_real_command_never_prints_a_traceback(outside: Path) -> None:
    path = outside / "bin.json"
    path.write_bytes(b"\x00\x01\x02")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "repair", str(path)],
        capture_output=True,
        text=True,
        env=env,
        cwd=outside,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("apc: error: ")
    assert "binary file" in done.stderr
    assert "Traceback" not in done.stderr


# --------------------------------------------------------------------------------------------
# Property: the file-level repair writes exactly what the library's repair returns


def chat_records() -> Any:
    from hypothesis import strategies as st

    ids = st.sampled_from(["c1", "c2", "c3"])
    call = ids.map(
        lambda i: {"id": i, "type": "function", "function": {"name": "f", "arguments": "{}"}}
    )
    return st.lists(
        st.one_of(
            st.builds(lambda t: {"role": "user", "content": t}, st.text(max_size=5)),
            st.builds(
                lambda cs: {"role": "assistant", "content": None, "tool_calls": cs},
                st.lists(call, min_size=1, max_size=3),
            ),
            st.builds(lambda i: {"role": "tool", "tool_call_id": i, "content": "ok"}, ids),
            st.just({"role": "assistant", "content": "done"}),
            st.just({"role": "system", "content": "sys"}),
        ),
        max_size=12,
    )


LAYOUT_WRITERS: dict[str, Callable[[list[dict[str, Any]]], str]] = {
    "h.jsonl": lambda rs: "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rs),
    "a.json": lambda rs: json.dumps(rs, ensure_ascii=False),
    "p.json": lambda rs: json.dumps(rs, indent=2, ensure_ascii=False) + "\n",
    "o.json": lambda rs: json.dumps({"model": "m", "messages": rs, "n": 1}, separators=(",", ":")),
}


def parse_output(name: str, text: str) -> list[dict[str, Any]]:
    if name.endswith(".jsonl"):
        # JSONL lines end at "\n" only: str.splitlines() would also split at U+0085, U+2028...
        return [json.loads(line) for line in text.split("\n") if line.strip()]
    value = json.loads(text)
    return value["messages"] if isinstance(value, dict) else value


def test_file_repair_equals_library_repair(tmp_path_factory: pytest.TempPathFactory) -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from apc_tools.runtime import repair
    from apc_tools.runtime.command import run_repair

    @settings(max_examples=150, deadline=None)
    @given(records=chat_records(), name=st.sampled_from(sorted(LAYOUT_WRITERS)))
    def check(records: list[dict[str, Any]], name: str) -> None:
        if not records and name.endswith(".jsonl"):
            return  # an empty file is not a history
        path = tmp_path_factory.mktemp("prop") / name
        path.write_text(LAYOUT_WRITERS[name](records), encoding="utf-8")
        outcome = run_repair(path, wire="openai-chat")
        assert outcome.text is not None
        expected = repair(records, "openai-chat")
        assert parse_output(name, outcome.text) == list(expected.records)
        assert outcome.changes == len(expected.changes)

    check()


def test_jsonl_values_with_unicode_line_separators_survive(tmp_path: Path) -> None:
    from apc_tools.runtime.command import run_repair

    records = [
        {"role": "user", "content": "a\x85b\u2028c\u2029d\x0be"},
        {"role": "assistant", "content": "ok"},
    ]
    path = tmp_path / "h.jsonl"
    path.write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8"
    )
    outcome = run_repair(path, wire="openai-chat")
    assert outcome.text is not None
    assert parse_output("h.jsonl", outcome.text) == records


OPENAI_CHAT_WITH_CALL = (
    '[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":'
    '[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}]'
)


@pytest.mark.parametrize("wire", ["gemini", "anthropic", "bedrock", "openai-responses"])
@pytest.mark.parametrize("check", [False, True])
def test_a_forced_wire_the_records_contradict_is_refused(
    tmp_path: Path, wire: str, check: bool
) -> None:
    """Read as the wrong wire, the tool call looked like an empty assistant message: it was
    dropped (anthropic, bedrock) or nothing was repaired (gemini), with exit 0."""
    history = tmp_path / "h.json"
    history.write_text(OPENAI_CHAT_WITH_CALL)
    args = [sys.executable, "-m", "apc_tools", "repair", str(history), "--wire", wire]
    args += ["--check"] if check else ["-o", str(tmp_path / "out.json")]
    done = subprocess.run(args, capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--wire {wire} does not fit" in done.stderr and "openai-chat" in done.stderr
    assert not (tmp_path / "out.json").exists()
    assert history.read_text() == OPENAI_CHAT_WITH_CALL
