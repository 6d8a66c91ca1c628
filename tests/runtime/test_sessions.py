"""Session containers (Claude Code, Codex, Gemini CLI) and the formats apc refuses: hand-made
sessions, written the way each tool writes them (reference: agent-session-containers.md §2, §4).

Per container: the crash case, clean sessions untouched byte for byte, idempotence,
deterministic output, a session appended to during the repair is not clobbered (two
processes), a recognised session refuses --wire.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from apc_tools.findings import CannotRun
from apc_tools.runtime import SYNTHETIC_TEXT
from apc_tools.runtime.command import run_repair
from apc_tools.runtime.formats import identify, read_head
from apc_tools.runtime.sessions import run
from apc_tools.runtime.sessions.base import SessionError, new_id

OLD = 1_700_000_000  # an mtime long ago: the session is quiet


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"))


def _write(path: Path, records: list[dict[str, Any]], *, quiet: bool = True) -> bytes:
    data = "".join(_line(r) + "\n" for r in records).encode()
    path.write_bytes(data)
    if quiet:
        os.utime(path, (OLD, OLD))
    return data


# --------------------------------------------------------------------------------------------
# Claude Code


def _claude(kind: str, uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "parentUuid": parent,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/me/proj",
        "sessionId": "sess-1",
        "version": "2.0.64",
        "type": kind,
        "message": {"role": kind, "content": content},
        "uuid": uuid,
        "timestamp": f"2026-01-01T10:00:0{len(uuid) % 10}.000Z",
    }
    if kind == "assistant":
        record["message"] = {
            "id": extra.pop("msg", "msg_1"),
            "role": "assistant",
            "content": content,
        }
    record.update(extra)
    return record


def _use(call_id: str, name: str = "Bash") -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": {"command": "ls"}}


def _result(call_id: str, text: str = "a.txt") -> list[dict[str, Any]]:
    return [{"type": "tool_result", "tool_use_id": call_id, "content": text}]


CLAUDE_CRASH = [
    _claude("user", "u1", None, "list files"),
    _claude("assistant", "a1", "u1", [{"type": "text", "text": "Listing."}]),
    _claude("assistant", "a2", "a1", [_use("toolu_1")]),
    _claude("assistant", "a3", "a2", [_use("toolu_2", "Read")]),
    _claude("user", "r1", "a3", _result("toolu_1")),
]


def test_claude_code_crash_case_appends_one_result_per_open_call(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    original = _write(file, CLAUDE_CRASH)
    out = tmp_path / "out.jsonl"
    outcome = run_repair(file, out=out)
    written = out.read_bytes()
    assert written.startswith(original) and outcome.changes == 1
    added = json.loads(written[len(original) :])
    assert added == {
        "parentUuid": "r1",
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/me/proj",
        "sessionId": "sess-1",
        "version": "2.0.64",
        "type": "user",
        "message": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": SYNTHETIC_TEXT,
                    "is_error": True,
                }
            ],
        },
        "uuid": new_id("sess-1", "toolu_2"),
        "timestamp": CLAUDE_CRASH[3]["timestamp"],
    }
    assert b'","' in written[len(original) :]  # compact, like Claude Code writes
    assert {f.rule for f in run_repair(out, check_only=True).result.findings} == set()


def test_claude_code_tree_form_mirrors_source_tool_assistant_uuid(tmp_path: Path) -> None:
    records = [
        _claude("user", "u1", None, "go"),
        _claude("assistant", "a1", "u1", [_use("toolu_1")]),
        _claude("user", "r1", "a1", _result("toolu_1"), sourceToolAssistantUUID="a1"),
        _claude("assistant", "a2", "r1", [_use("toolu_2")], msg="msg_2"),
    ]
    file = tmp_path / "s.jsonl"
    original = _write(file, records)
    out = tmp_path / "o.jsonl"
    run_repair(file, out=out)
    added = json.loads(out.read_bytes()[len(original) :])
    assert added["sourceToolAssistantUUID"] == "a2" and added["parentUuid"] == "a2"
    assert list(added)[-1] == "sourceToolAssistantUUID"  # the key order of the file's result


def test_claude_code_clean_session_is_untouched_byte_for_byte(tmp_path: Path) -> None:
    records = [*CLAUDE_CRASH[:3], _claude("user", "r1", "a2", _result("toolu_1"))]
    file = tmp_path / "s.jsonl"
    original = _write(file, records)
    file.write_bytes(original.rstrip(b"\n"))  # no final newline: still byte for byte
    os.utime(file, (OLD, OLD))
    out = tmp_path / "o.jsonl"
    outcome = run_repair(file, out=out)
    assert out.read_bytes() == file.read_bytes() and outcome.changes == 0
    assert run_repair(file, in_place=True).written is False


def test_a_repair_that_writes_nothing_still_sweeps_what_a_killed_one_left(
    tmp_path: Path,
) -> None:
    """Issue 30, point 21: a session already repaired (nothing to write) beside the temporary
    file a ``kill -9`` of an earlier repair left: it goes; a file apc did not name stays."""
    records = [*CLAUDE_CRASH[:3], _claude("user", "r1", "a2", _result("toolu_1"))]
    file = tmp_path / "s.jsonl"
    original = _write(file, records)
    left = tmp_path / ".s.jsonl.0123456789ab.apc-tmp"
    other = tmp_path / ".s.jsonl.backup.apc-tmp"  # not apc's naming
    for one in (left, other):
        one.write_text("half a session")
        os.utime(one, (OLD, OLD))
    assert run_repair(file, in_place=True).written is False
    assert not left.exists() and other.exists() and file.read_bytes() == original


def test_claude_code_repair_is_idempotent_and_deterministic(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    _write(file, CLAUDE_CRASH)
    first, second, third = (tmp_path / n for n in ("1.jsonl", "2.jsonl", "3.jsonl"))
    run_repair(file, out=first)
    run_repair(file, out=second)
    assert first.read_bytes() == second.read_bytes()
    assert run_repair(first, out=third).changes == 0
    assert third.read_bytes() == first.read_bytes()


def test_claude_code_mid_chain_call_is_left_open_unless_reparent(tmp_path: Path) -> None:
    records = [
        _claude("user", "u1", None, "go"),
        _claude("assistant", "a1", "u1", [_use("toolu_1")]),
        _claude("user", "u2", "a1", "never mind, carry on"),
        _claude("assistant", "a2", "u2", [{"type": "text", "text": "OK."}], msg="msg_2"),
    ]
    file = tmp_path / "s.jsonl"
    original = _write(file, records)
    out = tmp_path / "o.jsonl"
    outcome = run_repair(file, out=out)
    assert out.read_bytes() == original
    assert [f.rule for f in outcome.result.findings] == ["RPR012"]
    outcome = run_repair(file, out=out, reparent=True)
    lines = out.read_bytes().splitlines()
    assert len(lines) == 5 and lines[:2] == original.splitlines()[:2]
    synthetic = json.loads(lines[2])
    assert synthetic["parentUuid"] == "a1"
    assert json.loads(lines[3])["parentUuid"] == synthetic["uuid"]  # the one line changed
    assert lines[3].replace(synthetic["uuid"].encode(), b"a1") == original.splitlines()[2]
    assert lines[4] == original.splitlines()[3]
    assert sorted(f.rule for f in outcome.result.findings) == ["RPR001", "RPR011"]
    assert run_repair(out, check_only=True).result.findings == ()


def test_claude_code_progress_or_subagent_evidence_leaves_the_call_open(tmp_path: Path) -> None:
    progress = {
        "type": "progress",
        "data": {"type": "bash_progress", "output": "..."},
        "toolUseID": "toolu_2",
        "parentToolUseID": "toolu_2",
        "uuid": "p1",
        "parentUuid": "a3",
    }
    file = tmp_path / "s.jsonl"
    original = _write(file, [*CLAUDE_CRASH, progress])
    outcome = run_repair(file, out=tmp_path / "o.jsonl")
    assert (tmp_path / "o.jsonl").read_bytes() == original
    assert [f.rule for f in outcome.result.findings] == ["RPR010"]
    task = [
        _claude("user", "u1", None, "delegate"),
        _claude("assistant", "a1", "u1", [_use("toolu_t", "Task")]),
    ]
    parent = tmp_path / "abc.jsonl"
    _write(parent, task)
    subagents = tmp_path / "abc" / "subagents"
    subagents.mkdir(parents=True)
    (subagents / "agent-1.jsonl").write_text("{}\n")
    outcome = run_repair(parent, out=tmp_path / "p.jsonl")
    assert [f.rule for f in outcome.result.findings] == ["RPR010"]


# --------------------------------------------------------------------------------------------
# Codex


def _codex(kind: str, payload: dict[str, Any], second: int) -> dict[str, Any]:
    return {"timestamp": f"2026-01-01T10:00:{second:02d}.000Z", "type": kind, "payload": payload}


CODEX_CRASH = [
    _codex("session_meta", {"id": "rollout-1", "cwd": "/home/me/proj"}, 0),
    _codex("event_msg", {"type": "user_message", "message": "build"}, 1),
    _codex(
        "response_item",
        {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": "c1"},
        2,
    ),
    _codex(
        "response_item",
        {"type": "custom_tool_call", "name": "apply_patch", "input": "*", "call_id": "c2"},
        3,
    ),
    _codex("event_msg", {"type": "turn_aborted", "reason": "interrupted"}, 4),
    _codex("response_item", {"type": "function_call_output", "call_id": "c1", "output": "ok"}, 5),
]


def test_codex_crash_case_inserts_the_output_right_after_the_call(tmp_path: Path) -> None:
    file = tmp_path / "rollout-2026-01-01T10-00-00-x.jsonl"
    original = _write(file, CODEX_CRASH)
    out = tmp_path / "o.jsonl"
    assert run_repair(file, out=out).changes == 1
    lines = out.read_bytes().splitlines()
    assert lines[:4] + lines[5:] == original.splitlines()
    assert lines[4] == (
        b'{"timestamp":"2026-01-01T10:00:03.000Z","type":"response_item","payload":'
        b'{"type":"custom_tool_call_output","call_id":"c2","output":"'
        + SYNTHETIC_TEXT.encode()
        + b'"}}'
    )
    assert run_repair(out, check_only=True).result.findings == ()
    again = tmp_path / "again.jsonl"
    assert run_repair(out, out=again).changes == 0 and again.read_bytes() == out.read_bytes()


def test_codex_late_output_answers_set_wise_and_events_prove_execution(tmp_path: Path) -> None:
    records = [*CODEX_CRASH[:3], CODEX_CRASH[4], CODEX_CRASH[5]]  # the output after the abort
    file = tmp_path / "r.jsonl"
    original = _write(file, records)
    out = tmp_path / "o.jsonl"
    assert run_repair(file, out=out).changes == 0 and out.read_bytes() == original
    started = [
        *CODEX_CRASH[:4],
        _codex("event_msg", {"type": "patch_apply_begin", "call_id": "c2"}, 4),
    ]
    _write(file, started)
    outcome = run_repair(file, out=out)
    assert [f.rule for f in outcome.result.findings] == ["RPR001", "RPR010"]


# --------------------------------------------------------------------------------------------
# Gemini CLI

GEMINI_META = {
    "sessionId": "g-1",
    "projectHash": "ab" * 32,
    "startTime": "2026-01-01T10:00:00.000Z",
    "lastUpdated": "2026-01-01T10:00:00.000Z",
}


def _gemini_call(status: str, result: Any = None) -> dict[str, Any]:
    call = {"id": "read_1", "name": "read_file", "args": {"path": "a"}, "status": status}
    if result is not None:
        call["result"] = result
    call["timestamp"] = "2026-01-01T10:00:02.000Z"
    return call


def _gemini_session(status: str) -> list[dict[str, Any]]:
    return [
        GEMINI_META,
        {"id": "m1", "timestamp": "2026-01-01T10:00:01.000Z", "type": "user", "content": "go"},
        {"$set": {"lastUpdated": "2026-01-01T10:00:01.500Z"}},
        {
            "id": "m2",
            "timestamp": "2026-01-01T10:00:02.000Z",
            "type": "gemini",
            "content": "Reading.",
            "toolCalls": [_gemini_call(status)],
        },
    ]


def test_gemini_cli_open_call_gets_an_appended_copy_of_its_message(tmp_path: Path) -> None:
    file = tmp_path / "session-2026-01-01T10-00-g1.jsonl"
    original = _write(file, _gemini_session("scheduled"))
    out = tmp_path / "o.jsonl"
    assert run_repair(file, check_only=True).result.findings[0].rule == "WIR001"
    assert run_repair(file, out=out).changes == 1
    written = out.read_bytes()
    assert written.startswith(original)
    copy = json.loads(written[len(original) :])
    assert copy["id"] == "m2" and copy["content"] == "Reading."
    assert copy["toolCalls"] == [
        {
            **_gemini_call("cancelled"),
            "result": [
                {
                    "functionResponse": {
                        "id": "read_1",
                        "name": "read_file",
                        "response": {"error": SYNTHETIC_TEXT},
                    }
                }
            ],
        }
    ]
    assert run_repair(out, check_only=True).result.findings == ()
    again = tmp_path / "a.jsonl"
    assert run_repair(out, out=again).changes == 0 and again.read_bytes() == written


def test_gemini_cli_status_success_is_left_open_and_rewound_calls_ignored(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    original = _write(file, _gemini_session("success"))
    out = tmp_path / "o.jsonl"
    outcome = run_repair(file, out=out)
    assert [f.rule for f in outcome.result.findings] == ["RPR010"] and out.read_bytes() == original
    original = _write(file, [*_gemini_session("scheduled"), {"$rewindTo": "m2"}])
    outcome = run_repair(file, out=out)
    assert outcome.changes == 0 and out.read_bytes() == original


def test_gemini_cli_legacy_json_is_reported_not_rewritten(tmp_path: Path) -> None:
    legacy = {**GEMINI_META, "messages": _gemini_session("scheduled")[1::2]}
    file = tmp_path / "session-legacy.json"
    file.write_text(json.dumps(legacy, indent=2))
    outcome = run_repair(file, out=tmp_path / "o.json")
    assert [f.rule for f in outcome.result.findings] == ["RPR012"]
    assert (tmp_path / "o.json").read_text() == file.read_text()


def test_gemini_cli_chat_checkpoint_goes_through_the_gemini_wire(tmp_path: Path) -> None:
    checkpoint = {
        "history": [
            {"role": "user", "parts": [{"text": "go"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "ls", "args": {}}}]},
        ],
        "authType": "oauth-personal",
    }
    file = tmp_path / "checkpoint-work.json"
    file.write_text(json.dumps(checkpoint, indent=2))
    assert [f.rule for f in run_repair(file, check_only=True).result.findings] == ["WIR001"]
    out = tmp_path / "o.json"
    assert run_repair(file, out=out).changes == 1
    repaired = json.loads(out.read_text())
    assert repaired["authType"] == "oauth-personal" and len(repaired["history"]) == 3
    with pytest.raises(CannotRun, match="--wire anthropic cannot be forced"):
        run_repair(file, wire="anthropic", check_only=True)


# --------------------------------------------------------------------------------------------
# Cline / Roo: api_conversation_history.json is the Anthropic wire


def test_cline_api_conversation_history_is_repaired_as_anthropic(tmp_path: Path) -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "build"}], "ts": 1},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "execute_command", "input": {}}
            ],
            "ts": 2,
        },
    ]
    file = tmp_path / "api_conversation_history.json"
    file.write_text(json.dumps(history))
    assert read_head(file) is not None and identify(read_head(file)) is None  # type: ignore[arg-type]
    outcome = run_repair(file, out=tmp_path / "o.json")
    assert outcome.wire == "anthropic" and outcome.changes == 1
    repaired = json.loads((tmp_path / "o.json").read_text())
    assert repaired[:2] == history and repaired[2]["content"][0]["tool_use_id"] == "toolu_1"


# --------------------------------------------------------------------------------------------
# Refusals: --wire, unsupported formats, a Cursor transcript is never "repaired"


@pytest.mark.parametrize(
    "wire", ["openai-chat", "openai-responses", "anthropic", "gemini", "bedrock"]
)
def test_a_recognised_session_refuses_wire(tmp_path: Path, wire: str) -> None:
    sessions = (
        ("c.jsonl", CLAUDE_CRASH),
        ("x.jsonl", CODEX_CRASH),
        ("g.jsonl", _gemini_session("scheduled")),
    )
    for name, records in sessions:
        file = tmp_path / name
        original = _write(file, records)
        for kwargs in ({"check_only": True}, {"out": tmp_path / "o"}):
            with pytest.raises(CannotRun, match="cannot be forced"):
                run_repair(file, wire=wire, **kwargs)  # type: ignore[arg-type]
        assert file.read_bytes() == original and not (tmp_path / "o").exists()


def test_cursor_transcript_is_refused_not_stripped(tmp_path: Path) -> None:
    file = tmp_path / "t.jsonl"
    records = [
        {"role": "user", "message": {"content": [{"type": "text", "text": "Run ls."}]}},
        {"role": "assistant", "message": {"content": [_use("tu_1")]}},
    ]
    original = _write(file, records)
    with pytest.raises(CannotRun, match="Cursor agent transcript"):
        run_repair(file, out=tmp_path / "o")
    with pytest.raises(CannotRun, match="Cursor agent transcript"):
        run_repair(file, wire="openai-chat", out=tmp_path / "o")
    assert file.read_bytes() == original


def test_the_cli_names_the_format_with_exit_2(tmp_path: Path) -> None:
    file = tmp_path / "t.jsonl"
    _write(file, [{"type": "session.start", "data": {"sessionId": "s"}, "id": "e1"}])
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "repair", "--check", str(file)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "Copilot CLI session events" in done.stderr and "Traceback" not in done.stderr


# --------------------------------------------------------------------------------------------
# A session being written is not touched


def test_in_place_refuses_a_session_changed_seconds_ago(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    original = _write(file, CLAUDE_CRASH, quiet=False)
    with pytest.raises(SessionError, match="may be in use"):
        run_repair(file, in_place=True)
    assert file.read_bytes() == original
    os.utime(file, (OLD, OLD))
    assert run_repair(file, in_place=True).written is True


_APPENDER = """
import sys
with open(sys.argv[1], "ab") as fh:
    fh.write(sys.argv[2].encode() + b"\\n")
"""


def test_a_session_appended_to_during_the_repair_is_not_clobbered(tmp_path: Path) -> None:
    """Process 1 (this test) reads and plans; process 2 appends a line (as the agent would);
    process 1's replace must then refuse and keep process 2's line."""
    file = tmp_path / "s.jsonl"
    _write(file, CLAUDE_CRASH)
    known = identify(read_head(file))  # type: ignore[arg-type]
    assert known is not None
    planned = run.plan_session(file, known)
    assert planned.plan.changed
    late = _line(_claude("user", "u9", "r1", "still here"))
    subprocess.run([sys.executable, "-c", _APPENDER, str(file), late], check=True, timeout=60)
    with pytest.raises(SessionError, match="changed while it was repaired"):
        run.write(planned, file, None, in_place=True)
    assert file.read_bytes().endswith(late.encode() + b"\n")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".apc-tmp")]


def test_same_size_rewrite_is_caught_by_the_hash(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    data = _write(file, CLAUDE_CRASH)
    known = identify(read_head(file))  # type: ignore[arg-type]
    assert known is not None
    planned = run.plan_session(file, known)
    file.write_bytes(data.replace(b"list files", b"LIST FILES"))
    os.utime(file, ns=(planned.session.stamp.mtime_ns, planned.session.stamp.mtime_ns))
    with pytest.raises(SessionError, match="changed while"):
        run.write(planned, file, None, in_place=True)


def test_stdout_receives_the_session_bytes(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    original = _write(file, CLAUDE_CRASH)
    stdout = io.BytesIO()
    run_repair(file, stdout=stdout)
    assert stdout.getvalue().startswith(original) and time.time() > OLD


# --------------------------------------------------------------------------------------------
# apc repair --project DIR --all


def _tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def test_repair_all_finds_two_tools_sessions_and_never_writes_the_project(
    tmp_path: Path,
) -> None:
    from apc_tools.runtime.sessions.discover import claude_slug
    from tests.conftest import git

    project = tmp_path / "proj"
    (project / ".apc").mkdir(parents=True)
    (project / "AGENTS.md").write_text("# Demo\n\nRun `pytest` before committing.\n")
    (project / ".apc" / "project.json").write_text('{"name": "demo", "apc": "0.1.0",}\n')
    git(project, "init", "-q")
    home = tmp_path / "home"
    claude = home / ".claude" / "projects" / claude_slug(project.resolve())
    claude.mkdir(parents=True)
    _write(claude / "s1.jsonl", CLAUDE_CRASH)
    day = home / ".codex" / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    mine = [
        _codex("session_meta", {"id": "r1", "cwd": str(project.resolve())}, 0),
        *CODEX_CRASH[1:],
    ]
    _write(day / "rollout-2026-01-01T10-00-00-a.jsonl", mine)
    other = [
        _codex("session_meta", {"id": "r2", "cwd": str(tmp_path / "elsewhere")}, 0),
        *CODEX_CRASH[1:],
    ]
    theirs = _write(day / "rollout-2026-01-01T10-00-00-b.jsonl", other)
    before = _tree(project)
    env = {**os.environ, "HOME": str(home)}
    env.pop("CODEX_HOME", None)
    env.pop("CLAUDE_CONFIG_DIR", None)

    def apc(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "apc_tools", "repair", "--project", str(project), "--all"]
        return subprocess.run(
            [*command, *args, "--format", "json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=120,
        )

    checked = apc("--check")
    assert checked.returncode == 1, checked.stderr
    report = json.loads(checked.stdout)
    rules = sorted((Path(f["path"]).name, f["rule"]) for f in report["findings"])
    assert rules == [
        (".apc", "RPR015"),
        ("rollout-2026-01-01T10-00-00-a.jsonl", "WIR001"),
        ("s1.jsonl", "WIR001"),
    ]
    repaired = apc("--in-place")
    assert repaired.returncode == 0, repaired.stderr
    assert sorted(f["rule"] for f in json.loads(repaired.stdout)["findings"]) == [
        "RPR001",
        "RPR001",
        "RPR015",
    ]
    assert apc("--check").returncode == 0
    assert _tree(project) == before
    assert (day / "rollout-2026-01-01T10-00-00-b.jsonl").read_bytes() == theirs


def test_a_torn_last_line_needs_skip_bad_lines_and_is_then_left_out(tmp_path: Path) -> None:
    file = tmp_path / "r.jsonl"
    whole = _write(file, CODEX_CRASH[:4])
    file.write_bytes(whole + b'{"timestamp":"2026-01-01T10:00:04.000Z","type":"event_')
    os.utime(file, (OLD, OLD))
    with pytest.raises(CannotRun, match="line 5: not valid JSON"):
        run_repair(file, out=tmp_path / "o.jsonl")
    with pytest.raises(CannotRun, match="line 5"):
        run_repair(file, check_only=True)
    outcome = run_repair(file, out=tmp_path / "o.jsonl", skip_bad_lines=True)
    assert sorted(f.rule for f in outcome.result.findings) == ["RIO001", "RPR001", "RPR001"]
    written = (tmp_path / "o.jsonl").read_bytes()
    assert b"10:00:04" not in written and written.count(b"\n") == 6


@pytest.mark.parametrize(
    ("call", "output"),
    [
        ({"type": "local_shell_call", "call_id": "c9", "action": {}}, "function_call_output"),
        (
            {"type": "tool_search_call", "call_id": "c9", "execution": "client"},
            "tool_search_output",
        ),
    ],
)
def test_codex_answers_each_call_type_with_its_own_output(
    tmp_path: Path, call: dict[str, Any], output: str
) -> None:
    file = tmp_path / "r.jsonl"
    _write(file, [*CODEX_CRASH[:2], _codex("response_item", call, 2)])
    out = tmp_path / "o.jsonl"
    assert run_repair(file, out=out).changes == 1
    added = json.loads(out.read_bytes().splitlines()[-1])
    assert added["payload"]["type"] == output and added["payload"]["call_id"] == "c9"


def test_server_tool_search_is_not_a_call(tmp_path: Path) -> None:
    file = tmp_path / "r.jsonl"
    call = {"type": "tool_search_call", "call_id": "c9", "execution": "server"}
    original = _write(file, [*CODEX_CRASH[:2], _codex("response_item", call, 2)])
    assert run_repair(file, out=tmp_path / "o.jsonl").changes == 0
    assert (tmp_path / "o.jsonl").read_bytes() == original


def test_cli_reparent_and_all_usage(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from apc_tools.cli import main

    records = [
        _claude("user", "u1", None, "go"),
        _claude("assistant", "a1", "u1", [_use("toolu_1")]),
        _claude("user", "u2", "a1", "carry on"),
    ]
    file = tmp_path / "s.jsonl"
    _write(file, records)
    runner = CliRunner()
    done = runner.invoke(main, ["repair", str(file), "--reparent", "-o", str(tmp_path / "o")])
    assert done.exit_code == 0, done.output
    assert "RPR011" in done.output and "RPR001" in done.output
    done = runner.invoke(main, ["repair", "--project", str(tmp_path), "--all"])
    assert done.exit_code == 2
    done = runner.invoke(main, ["repair"])
    assert done.exit_code == 2 and "name the history FILE" in done.output


def test_a_session_on_stdin_is_recognised_and_repaired_to_stdout(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    original = _write(file, CLAUDE_CRASH)
    command = [sys.executable, "-m", "apc_tools", "repair", "-"]
    done = subprocess.run(command, input=original, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(original) and b"toolu_2" in done.stdout[len(original) :]
    cursor = b'{"role":"user","message":{"content":[{"type":"text","text":"ls"}]}}\n'
    done = subprocess.run([*command, "--check"], input=cursor, capture_output=True, timeout=120)
    assert done.returncode == 2 and b"Cursor agent transcript" in done.stderr


def test_a_session_from_a_fifo_is_recognised(tmp_path: Path) -> None:
    file = tmp_path / "s.jsonl"
    original = _write(file, CLAUDE_CRASH)
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = subprocess.Popen(
        [sys.executable, "-c", f"open({str(fifo)!r}, 'wb').write(open({str(file)!r}, 'rb').read())"]
    )
    try:
        out = tmp_path / "o.jsonl"
        outcome = run_repair(fifo, out=out)
    finally:
        writer.wait(timeout=60)
    assert outcome.format == "Claude Code session" and outcome.changes == 1
    assert out.read_bytes().startswith(original)


def test_codex_global_agents_md_does_not_make_its_sessions_a_project(tmp_path: Path) -> None:
    """Codex reads ~/.codex/AGENTS.md as the user's global instructions and keeps its rollouts
    below that folder: they are runtime state, repaired in place, not a project's files."""
    codex = tmp_path / "home" / ".codex"
    day = codex / "sessions" / "2026" / "01" / "01"
    day.mkdir(parents=True)
    (codex / "AGENTS.md").write_text("# Global instructions\n")
    file = day / "rollout-2026-01-01T10-00-00-a.jsonl"
    _write(file, CODEX_CRASH)
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "repair", "--in-place", str(file)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert b"custom_tool_call_output" in file.read_bytes()


def test_a_compressed_rollout_is_refused_by_name(tmp_path: Path) -> None:
    file = tmp_path / "rollout-2026-01-01T10-00-00-a.jsonl.zst"
    file.write_bytes(b"\x28\xb5\x2f\xfd" + os.urandom(64))
    with pytest.raises(CannotRun, match="zstd-compressed"):
        run_repair(file, check_only=True)
    renamed = tmp_path / "archived"
    file.rename(renamed)
    with pytest.raises(CannotRun, match="zstd-compressed"):
        run_repair(renamed, check_only=True)


def test_a_saved_chat_object_with_an_id_is_still_a_wire_history(tmp_path: Path) -> None:
    """Fingerprints must not take a plain wire history for another format."""
    history = {
        "id": "conv_1",
        "created": 1,
        "messages": [
            {"role": "user", "content": "ls"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
                ],
            },
        ],
    }
    file = tmp_path / "chat.json"
    file.write_text(json.dumps(history))
    outcome = run_repair(file, out=tmp_path / "o.json")
    assert outcome.wire == "openai-chat" and outcome.changes == 1
