"""What the real CLIs write and do on resume, as `apc repair` must read it (issue 16, item 4).

Each session here has the shape the pinned CLI wrote in the conformance suite
(tests/conformance/test_repair_resume.py, which resumes them with the real tool): Gemini CLI
0.61 records every tool result twice (in the call's ``toolCalls`` entry and again as the next
user message) and sends both in one response turn; Claude Code 2.1.197 drops an unanswered
``tool_use`` on resume; Codex 0.171.0 sends an ``aborted`` output it never writes down. And a
JSONL file whose messages have a role but no key any wire format reads is refused, not guessed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from apc_tools.cli import main
from apc_tools.runtime.command import run_repair

OLD = 1_700_000_000
CALL_ID = "read_file__read_file_1796153097231_0"


def _write(path: Path, records: list[dict[str, Any]]) -> bytes:
    data = "".join(json.dumps(r, separators=(",", ":")) + "\n" for r in records).encode()
    path.write_bytes(data)
    os.utime(path, (OLD, OLD))
    return data


def repair(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["repair", *map(str, args)], catch_exceptions=False)


def _response() -> dict[str, Any]:
    return {
        "functionResponse": {
            "id": CALL_ID,
            "name": "read_file",
            "response": {"output": "MAGIC-42\n"},
        }
    }


def gemini_061_complete() -> list[dict[str, Any]]:
    """A complete Gemini CLI 0.61 session with one tool call, line for line as it writes it."""
    meta = {
        "sessionId": "0287a7f9-47d2-402d-9187-ea825d3e1521",
        "projectHash": "6560" * 16,
        "startTime": "2026-12-01T19:24:57.081Z",
        "lastUpdated": "2026-12-01T19:24:57.081Z",
        "kind": "main",
    }
    context = {
        "id": "d04923d38bb0f6017037e74183378ef4",
        "timestamp": "2026-12-01T19:24:57.082Z",
        "type": "user",
        "content": [{"text": "<session_context>\nThis is the Gemini CLI.\n</session_context>"}],
    }
    model = {
        "id": "e676c8ad-9074-40c4-9a17-2cb050800926",
        "timestamp": "2026-12-01T19:24:57.651Z",
        "type": "gemini",
        "content": "",
        "thoughts": [],
        "model": "gemini-2.5-pro",
    }
    call = {
        "id": CALL_ID,
        "name": "read_file",
        "args": {"file_path": "/tmp/project/data.txt"},
        "result": [_response()],
        "status": "success",
        "timestamp": "2026-12-01T19:24:57.803Z",
    }
    return [
        meta,
        {"$set": {"messages": [context], "lastUpdated": "2026-12-01T19:24:57.082Z"}},
        {
            "id": "c2cb63d0",
            "timestamp": "2026-12-01T19:24:57.133Z",
            "type": "user",
            "content": [{"text": "read data.txt"}],
        },
        model,
        {"$set": {"lastUpdated": "2026-12-01T19:24:57.651Z"}},
        {**model, "toolCalls": [call]},
        {
            "id": "d0f3f078",
            "timestamp": "2026-12-01T19:24:57.820Z",
            "type": "user",
            "content": [_response()],
        },
        {
            "id": "6c3dc0d6",
            "timestamp": "2026-12-01T19:24:57.880Z",
            "type": "gemini",
            "content": "FINAL-ANSWER",
            "model": "gemini-2.5-pro",
        },
    ]


# --------------------------------------------------------------------------------------------
# Gemini CLI 0.61: each result recorded twice is one response turn


def test_a_healthy_gemini_061_session_with_a_tool_call_passes_the_check(tmp_path: Path) -> None:
    file = tmp_path / "session-2026-12-01T19-24-0287a7f9.jsonl"
    original = _write(file, gemini_061_complete())
    result = repair("--check", file)
    assert result.exit_code == 0, result.output
    assert "WIR" not in result.output
    out = tmp_path / "out.jsonl"
    assert repair(file, "-o", out).exit_code == 0
    assert out.read_bytes() == original  # nothing to repair


def test_a_healthy_gemini_store_passes_project_all_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text("# Agents\n")
    home = tmp_path / "home"
    chats = home / ".gemini" / "tmp" / "project" / "chats"
    chats.mkdir(parents=True)
    (home / ".gemini" / "projects.json").write_text(
        json.dumps({"projects": {str(project): "project"}})
    )
    _write(chats / "session-2026-12-01T19-24-0287a7f9.jsonl", gemini_061_complete())
    monkeypatch.setenv("HOME", str(home))
    result = repair("--project", project, "--all", "--check")
    assert result.exit_code == 0, result.output
    assert "1 file" in result.output


def test_a_result_twice_in_the_same_turn_does_not_hide_a_missing_one(tmp_path: Path) -> None:
    """The duplicate is only the same answer recorded again: a second call left without any
    answer is still reported."""
    records = gemini_061_complete()
    second = {"id": "read_2", "name": "read_file", "args": {"file_path": "b"}}
    records[5]["toolCalls"].append({**second, "status": "scheduled"})
    file = tmp_path / "session-2026-12-01T19-24-0287a7f9.jsonl"
    _write(file, records)
    rules = [f.rule for f in run_repair(file, check_only=True).result.findings]
    assert "WIR001" in rules


# --------------------------------------------------------------------------------------------
# --check says what the provider requires and what this CLI version does on resume

CLAUDE_INTERRUPTED = [
    {
        "parentUuid": None,
        "isSidechain": False,
        "type": "user",
        "message": {"role": "user", "content": "do it"},
        "uuid": "u1",
        "sessionId": "s1",
        "version": "2.1.197",
        "timestamp": "2026-12-01T19:26:00.000Z",
    },
    {
        "parentUuid": "u1",
        "isSidechain": False,
        "type": "assistant",
        "message": {
            "id": "msg_1",
            "role": "assistant",
            "content": [
                {
                    "type": "tool_use",
                    "id": "toolu_1",
                    "name": "Bash",
                    "input": {"command": "sleep 60"},
                }
            ],
        },
        "uuid": "a1",
        "sessionId": "s1",
        "version": "2.1.197",
        "timestamp": "2026-12-01T19:26:01.000Z",
    },
]

CODEX_INTERRUPTED = [
    {
        "timestamp": "2026-12-01T19:26:35.742Z",
        "ordinal": 0,
        "type": "session_meta",
        "payload": {"id": "01a23312-bcb5-7f90-978d-332e1a0ae7d8", "cwd": "/tmp/p"},
    },
    {
        "timestamp": "2026-12-01T19:26:35.825Z",
        "ordinal": 1,
        "type": "response_item",
        "payload": {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "do it"}],
        },
    },
    {
        "timestamp": "2026-12-01T19:26:35.933Z",
        "ordinal": 2,
        "type": "response_item",
        "payload": {
            "type": "function_call",
            "name": "exec_command",
            "arguments": '{"cmd": "sleep 60"}',
            "call_id": "call_a1",
        },
    },
]


@pytest.mark.parametrize(
    ("name", "records", "says"),
    [
        (
            "0eb225d7-a6b7-4ea8-8ced-e3244ddee18c.jsonl",
            CLAUDE_INTERRUPTED,
            "Claude Code 2.1.197 resumes such a file by dropping the unanswered tool_use",
        ),
        (
            "rollout-2026-12-01T19-26-35-01a23312-bcb5-7f90-978d-332e1a0ae7d8.jsonl",
            CODEX_INTERRUPTED,
            "Codex 0.171.0 resumes such a file by sending an `aborted` output it never writes",
        ),
    ],
)
def test_check_says_what_the_api_requires_and_what_the_cli_does(
    tmp_path: Path, name: str, records: list[dict[str, Any]], says: str
) -> None:
    file = tmp_path / name
    _write(file, records)
    result = repair("--check", file)
    assert result.exit_code == 1
    text = " ".join(result.output.split())
    assert "WIR001" in text
    assert "the provider API requires the answer" in text
    assert says in text
    out = tmp_path / "out.jsonl"
    assert repair(file, "-o", out).exit_code in (0, 1)
    assert repair("--check", out).exit_code == 0  # and repaired, nothing is left to say


# --------------------------------------------------------------------------------------------
# An unknown shape is refused, never rewritten

SHAPELESS = [
    {"role": "system", "text": "be brief"},
    {"role": "user", "text": "list the files"},
    {"role": "assistant", "blocks": [{"kind": "call", "name": "ls", "id": "c1"}]},
    {"role": "user", "text": "hello?"},
]


@pytest.mark.parametrize("mode", ["-o", "--in-place", "--check", "stdout"])
def test_role_without_any_known_content_key_is_refused(tmp_path: Path, mode: str) -> None:
    file = tmp_path / "history.jsonl"
    original = _write(file, SHAPELESS)
    out = tmp_path / "out.jsonl"
    args: list[str | Path] = {
        "-o": [file, "-o", out],
        "--in-place": ["--in-place", file],
        "--check": ["--check", file],
        "stdout": [file],
    }[mode]
    result = repair(*args)
    assert result.exit_code == 2, result.output
    assert "record 1 has a role but no content" in result.output
    assert "keys: role, text" in result.output
    assert file.read_bytes() == original
    assert not out.exists()
    assert "be brief" not in result.stdout if mode == "stdout" else True


def test_one_shapeless_message_among_chat_messages_is_refused(tmp_path: Path) -> None:
    file = tmp_path / "history.jsonl"
    records = [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "user", "blocks": [{"text": "hello?"}]},
    ]
    original = _write(file, records)
    result = repair(file, "-o", tmp_path / "out.jsonl")
    assert result.exit_code == 2
    assert "record 3 has a role but no content" in result.output
    assert file.read_bytes() == original and not (tmp_path / "out.jsonl").exists()


def test_plain_chat_messages_are_still_read_as_openai_chat(tmp_path: Path) -> None:
    file = tmp_path / "history.jsonl"
    _write(file, [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}])
    assert repair("--check", file).exit_code == 0


# --------------------------------------------------------------------------------------------
# Claude Code 2.1.197, parallel calls, killed after the first answered: the later block hangs
# on a branch (the result of the first was written as a child of the first block)


def _block(uuid: str, parent: str, call_id: str, name: str) -> dict[str, Any]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "assistant",
        "message": {
            "id": "msg_64013c25",
            "role": "assistant",
            "content": [{"type": "tool_use", "id": call_id, "name": name, "input": {}}],
        },
        "uuid": uuid,
        "sessionId": "s2",
        "version": "2.1.197",
        "timestamp": "2026-12-01T19:37:01.000Z",
    }


CLAUDE_PARALLEL_KILLED = [
    {**CLAUDE_INTERRUPTED[0], "sessionId": "s2"},
    _block("a1", "u1", "toolu_read", "Read"),
    _block("a2", "a1", "toolu_bash", "Bash"),  # the second block: a child of the first
    {
        "parentUuid": "a1",  # the read's result, written before the turn died: now the leaf
        "isSidechain": False,
        "type": "user",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_read", "content": "MAGIC"}],
        },
        "uuid": "r1",
        "sourceToolAssistantUUID": "a1",
        "sessionId": "s2",
        "version": "2.1.197",
        "timestamp": "2026-12-01T19:37:02.000Z",
    },
]


def test_a_parallel_call_left_on_a_branch_is_answered_from_its_own_block(tmp_path: Path) -> None:
    file = tmp_path / "3494b0c8-e1b9-4bc5-b041-b0c715431fb2.jsonl"
    original = _write(file, CLAUDE_PARALLEL_KILLED)
    check = repair("--check", file)
    assert check.exit_code == 1 and "toolu_bash" in check.output
    assert "dropping the unanswered tool_use" in " ".join(check.output.split())
    out = tmp_path / "out.jsonl"
    assert repair(file, "-o", out).exit_code == 0
    written = out.read_bytes()
    assert written.startswith(original)
    added = [json.loads(line) for line in written[len(original) :].splitlines()]
    assert len(added) == 1
    # chained from the Bash block, as Claude Code chains the results it writes on an interrupt:
    # resumed from this leaf, the chain holds both blocks and both results
    assert added[0]["parentUuid"] == "a2" and added[0]["sourceToolAssistantUUID"] == "a2"
    assert added[0]["message"]["content"][0]["tool_use_id"] == "toolu_bash"
    assert repair("--check", out).exit_code == 0
    again = tmp_path / "again.jsonl"
    assert repair(out, "-o", again).exit_code == 0 and again.read_bytes() == written
