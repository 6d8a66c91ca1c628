"""The harness itself: each pinned CLI runs against the mock, calls a tool, then answers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conformance.harness import (
    Binaries,
    MockServer,
    Parallel,
    Script,
    Text,
    ToolCall,
    run_claude,
    run_codex,
    run_gemini,
)

MAGIC = "MAGIC-CONTENT-42"


def _calls(project: Path) -> dict[str, ToolCall]:
    data = str(project / "data.txt")
    return {
        "claude": ToolCall("Read", {"file_path": data}),
        "codex": ToolCall("exec_command", {"cmd": "cat data.txt"}),
        "gemini": ToolCall("read_file", {"file_path": data}),
    }


@pytest.mark.parametrize("tool", ["claude", "codex", "gemini"])
def test_each_cli_calls_a_tool_then_answers(clis: Binaries, tmp_path: Path, tool: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.txt").write_text(MAGIC + "\n", "utf-8")
    run = {"claude": run_claude, "codex": run_codex, "gemini": run_gemini}[tool]
    api = {"claude": "anthropic", "codex": "openai", "gemini": "gemini"}[tool]
    with MockServer(Script([_calls(project)[tool], Text("FINAL-ANSWER")])) as mock:
        result = run(project, tmp_path / "home", mock, "read data.txt")
    assert result.returncode == 0, result.stderr[-2000:]
    assert "FINAL-ANSWER" in result.stdout
    turns = mock.conversation(api)
    assert len(turns) == 2, [r.path for r in mock.requests]
    # the first request does not hold the file; the second carries the tool's output back
    assert MAGIC not in json.dumps(turns[0].body)
    assert MAGIC in json.dumps(turns[1].body)
    # no credential is recorded
    assert all("authorization" not in r.headers for r in mock.requests)


@pytest.mark.parametrize("tool", ["claude", "codex", "gemini"])
def test_parallel_tool_calls_all_come_back(clis: Binaries, tmp_path: Path, tool: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "data.txt").write_text(MAGIC + "\n", "utf-8")
    (project / "other.txt").write_text("OTHER-CONTENT-7\n", "utf-8")
    one = _calls(project)[tool]
    two = ToolCall(
        one.name,
        {"cmd": "cat other.txt"} if tool == "codex" else {"file_path": str(project / "other.txt")},
    )
    api = {"claude": "anthropic", "codex": "openai", "gemini": "gemini"}[tool]
    run = {"claude": run_claude, "codex": run_codex, "gemini": run_gemini}[tool]
    with MockServer(Script([Parallel((one, two)), Text("FINAL-ANSWER")])) as mock:
        result = run(project, tmp_path / "home", mock, "read both")
    assert result.returncode == 0, result.stderr[-2000:]
    second = json.dumps(mock.conversation(api)[1].body)
    assert MAGIC in second and "OTHER-CONTENT-7" in second
