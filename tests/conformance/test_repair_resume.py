"""`apc repair`, resumed by the real tool (issue 16, item 4).

For each pinned CLI (Claude Code, Codex, Gemini CLI) the full tier produces real session files
against the loopback mock: a complete one holding a tool call; one killed (SIGKILL) while a tool
runs; one interrupted (SIGINT) while a tool runs; one where the model asked for two tools at
once and the turn died after the quick one answered. Each is repaired three ways that must give
the same bytes (``-o`` to a file outside the project, ``--in-place`` in the tool's own store,
``--project DIR --all --in-place``), then the same CLI resumes the repaired session against the
mock, and the request it sends is read: every earlier turn is still there, each call the repair
closed is answered exactly once with the marker, and every call is paired the way the provider
requires (checked by hand per wire, and by apc's own provider rules).

The replay tier needs no CLI: for each recorded case (``replay/repair/<tool>-<case>.json``, made
by the full tier with ``APC_RECORD_REPAIR=1``) the repair of the recorded raw session must give
the recorded repaired bytes (the file the CLI resumed), and the recorded resume request must pass
the same assertions.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from apc_tools.runtime.conformance import check
from apc_tools.runtime.model import SYNTHETIC_TEXT
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
    start,
    version,
)

HERE = Path(__file__).resolve().parent
REPLAY = HERE / "replay" / "repair"
TOOLS = ("claude", "codex", "gemini")
CASES = ("complete", "kill", "sigint", "parallel")
MAGIC = "MAGIC-CONTENT-42"
PROMPT = "read data.txt, then wait"
API = {"claude": "anthropic", "codex": "openai", "gemini": "gemini"}
WIRE = {"claude": "anthropic", "codex": "openai-responses", "gemini": "gemini"}
KEY = {"claude": "messages", "codex": "input", "gemini": "contents"}
RUN = {"claude": run_claude, "codex": run_codex, "gemini": run_gemini}


# --------------------------------------------------------------------------------------------
# The calls in a request body, per wire


@dataclass
class Pairing:
    calls: list[str]  # call ids, in order
    answers: dict[str, list[str]]  # call id -> the text of each response to it
    prompts: str  # every text the request holds (user and model turns), joined


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def pairing(tool: str, items: list[dict[str, Any]]) -> Pairing:
    """Calls and responses of the request's conversation, and the provider's pairing checked:
    Anthropic results first in the next user message, Responses outputs after their call,
    Gemini one response turn right after the call turn."""
    calls: list[str] = []
    answers: dict[str, list[str]] = {}
    texts: list[str] = []
    if tool == "claude":
        for i, message in enumerate(items):
            content = message["content"]
            blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
            uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
            results = [b for b in blocks if b.get("type") == "tool_result"]
            texts += [b.get("text", "") for b in blocks if b.get("type") == "text"]
            for block in results:
                answers.setdefault(block["tool_use_id"], []).append(_text(block.get("content")))
                texts.append(_text(block.get("content")))
            calls += uses
            if uses:  # the next message is the user's and begins with one result per use
                after = items[i + 1]["content"]
                assert items[i + 1]["role"] == "user"
                first = [b.get("tool_use_id") for b in after[: len(uses)]]
                assert sorted(first) == sorted(uses), (uses, first)
    elif tool == "codex":
        seen: set[str] = set()
        for item in items:
            kind = item.get("type")
            if kind == "function_call":
                calls.append(item["call_id"])
                seen.add(item["call_id"])
            elif kind == "function_call_output":
                assert item["call_id"] in seen, f"an output before its call: {item['call_id']}"
                answers.setdefault(item["call_id"], []).append(_text(item.get("output")))
                texts.append(_text(item.get("output")))
            elif kind == "message":
                texts += [_text(c.get("text")) for c in item.get("content", [])]
    else:
        for i, content in enumerate(items):
            parts = content["parts"]
            called = [p["functionCall"].get("id") for p in parts if "functionCall" in p]
            texts += [p["text"] for p in parts if "text" in p]
            for p in parts:
                if "functionResponse" in p:
                    response = p["functionResponse"]
                    answers.setdefault(response.get("id"), []).append(
                        _text(response.get("response"))
                    )
                    texts.append(_text(response.get("response")))
            calls += called
            if called:  # one function response turn, right after, answering each call
                nxt = items[i + 1]
                assert nxt["role"] == "user"
                got = {
                    p["functionResponse"].get("id") for p in nxt["parts"] if "functionResponse" in p
                }
                assert got == set(called), (called, got)
    return Pairing(calls, answers, "\n".join(texts))


def assert_resumed(tool: str, case: str, items: list[dict[str, Any]], closed: list[str]) -> None:
    """What the resumed request must show, whatever the case."""
    found = pairing(tool, items)
    # every earlier turn kept: the first prompt, the answered quick call, and the new prompt
    assert PROMPT in found.prompts and "go on" in found.prompts
    if case == "complete" or (case == "parallel" and tool != "gemini"):
        assert MAGIC in found.prompts, "the answered read's result was lost on resume"
    if tool == "gemini" and case not in ("complete", "open"):
        # Gemini CLI 0.61 (-p) writes a model turn's calls down only once all of them ended: a
        # turn cut mid-way leaves no call in the file (the quick read's result with it), so
        # there is nothing to close and the resumed request holds no call
        assert not found.calls
    if case == "complete":
        assert "FINAL-ANSWER" in found.prompts
    # each call is answered; the calls the repair closed exactly once, with the marker
    for call in found.calls:
        assert found.answers.get(call), f"call {call} sent without a response"
    # Gemini CLI 0.61 records a call id as <tool>__<id> and sends <id>
    closed = [next((c for c in found.calls if call.endswith(f"__{c}")), call) for call in closed]
    for call in closed:
        assert call in found.calls, f"the closed call {call} was dropped on resume"
        assert (
            found.answers[call] == [found.answers[call][0]]
            and SYNTHETIC_TEXT in (found.answers[call][0])
        ), found.answers[call]
    for call, texts in found.answers.items():
        assert call in found.calls, f"a response to no call: {call}"
        if call not in closed:
            assert all(SYNTHETIC_TEXT not in t for t in texts)
    if tool != "gemini":  # Gemini CLI sends each result twice in one turn: see below
        assert all(len(t) == 1 for t in found.answers.values()), found.answers
    # and apc's own provider rules accept what the tool sent (but the count of Gemini's
    # responses: Gemini CLI 0.61 sends the result it recorded twice, both in one turn)
    violations = check(items, WIRE[tool])
    assert not [v for v in violations if not (tool == "gemini" and v.rule == "WIR003")]


# --------------------------------------------------------------------------------------------
# Replay tier: recorded cases, no CLI


def _recorded() -> list[Path]:
    return sorted(REPLAY.glob("*.json")) if REPLAY.is_dir() else []


def _apc(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "apc_tools", "repair", *map(str, args)],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
    )


@pytest.mark.parametrize("recorded", _recorded(), ids=lambda p: p.stem)
def test_replay_the_repair_is_what_the_tool_resumed(recorded: Path, tmp_path: Path) -> None:
    data = json.loads(recorded.read_text("utf-8"))
    raw = tmp_path / data["name"]
    raw.write_text(data["raw"], "utf-8")
    out = tmp_path / "out" / data["name"]
    out.parent.mkdir()
    done = _apc(raw, "-o", out)
    assert done.returncode in (0, 1), done.stderr
    repaired = out.read_text("utf-8")
    assert hashlib.sha256(repaired.encode("utf-8")).hexdigest() == data["repaired_sha256"]
    assert [line for line in repaired.splitlines() if line not in data["raw"]] == data["added"]
    assert _apc("--check", out).returncode == 0
    assert_resumed(data["tool"], data["case"], data["request"], data["closed"])


def test_replay_covers_every_tool_and_case() -> None:
    names = {p.stem for p in _recorded()}
    assert names == {f"{t}-{c}" for t in TOOLS for c in CASES} | {"gemini-open"}


# --------------------------------------------------------------------------------------------
# Full tier: the real CLIs


@dataclass
class Produced:
    tool: str
    case: str
    project: Path
    home: Path
    session: Path  # the session file in the tool's store
    session_id: str


def _calls(tool: str, project: Path, seconds: str) -> tuple[ToolCall, ToolCall]:
    data = str(project / "data.txt")
    quick = {
        "claude": ToolCall("Read", {"file_path": data}),
        "codex": ToolCall("exec_command", {"cmd": "cat data.txt"}),
        "gemini": ToolCall("read_file", {"file_path": data}),
    }[tool]
    slow = {
        "claude": ToolCall("Bash", {"command": f"sleep {seconds}", "description": "wait"}),
        "codex": ToolCall("exec_command", {"cmd": f"sleep {seconds}"}),
        "gemini": ToolCall("run_shell_command", {"command": f"sleep {seconds}"}),
    }[tool]
    return quick, slow


def _sleepers(seconds: str) -> list[int]:
    """The pids of the ``sleep SECONDS`` processes the CLI started (a unique duration)."""
    found = []
    needle = f"sleep {seconds}".encode()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    if needle in fh.read().replace(b"\0", b" "):
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _session_of(tool: str, home: Path) -> tuple[Path, str]:
    if tool == "claude":
        files = sorted((home / ".claude" / "projects").glob("*/*.jsonl"))
        assert len(files) == 1, files
        return files[0], files[0].stem
    if tool == "codex":
        files = sorted((home / ".codex" / "sessions").rglob("rollout-*.jsonl"))
        assert len(files) == 1, files
        return files[0], files[0].stem[-36:]
    files = sorted((home / ".gemini" / "tmp").glob("*/chats/session-*.jsonl"))
    assert len(files) == 1, files
    first = json.loads(files[0].read_text("utf-8").splitlines()[0])
    return files[0], str(first["sessionId"])


def produce(tool: str, case: str, base: Path) -> Produced:
    project, home = base / "project", base / "home"
    project.mkdir(parents=True)
    (project / "data.txt").write_text(MAGIC + "\n", "utf-8")
    (project / "AGENTS.md").write_text("# Agents\n\nBe brief.\n", "utf-8")  # an APC project
    seconds = f"{time.time_ns() % 50 + 60}.{uuid.uuid4().int % 900 + 100}"
    quick, slow = _calls(tool, project, seconds)
    if case == "complete":
        with MockServer(Script([quick, Text("FINAL-ANSWER")])) as mock:
            run = RUN[tool](project, home, mock, PROMPT)
        assert run.returncode == 0, run.stderr[-2000:]
    else:
        turn = slow if case in ("kill", "sigint") else Parallel((quick, slow))
        with MockServer(Script([turn, Text("FINAL-ANSWER")])) as mock:
            proc = start(tool, project, home, mock, PROMPT)
            try:
                deadline = time.monotonic() + 120
                while not _sleepers(seconds):
                    assert proc.poll() is None, proc.communicate()[1][-2000:]
                    assert time.monotonic() < deadline, "the tool never started"
                    time.sleep(0.2)
                time.sleep(1.5)  # the tool runs; a parallel quick call has answered
                os.kill(proc.pid, signal.SIGKILL if case != "sigint" else signal.SIGINT)
                proc.communicate(timeout=60)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.communicate()
                for pid in _sleepers(seconds):
                    with suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
    session, session_id = _session_of(tool, home)
    return Produced(tool, case, project, home, session, session_id)


def _store_env(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "CODEX_HOME": str(home / ".codex"),
    }


def _quiet(path: Path) -> None:
    """The agent stopped a while ago: --in-place leaves a file changed in the last 5 s alone."""
    past = time.time() - 60
    os.utime(path, (past, past))


def _closed(raw: str, repaired: str) -> list[str]:
    """The call ids the repair answered: the ids its added lines answer."""
    before = set(raw.splitlines())
    ids: list[str] = []
    for line in repaired.splitlines():
        if line in before or SYNTHETIC_TEXT not in line:
            continue
        record = json.loads(line)
        answers = [*_values(record, "tool_use_id"), *_values(record, "call_id")]
        answers += [r.get("id") for r in _values(record, "functionResponse") if isinstance(r, dict)]
        ids += [v for v in answers if isinstance(v, str) and v in raw]
    return sorted(set(ids))


def _values(value: object, key: str) -> Iterator[object]:
    if isinstance(value, dict):
        for k, v in value.items():
            if k == key:
                yield v
            yield from _values(v, key)
    elif isinstance(value, list):
        for v in value:
            yield from _values(v, key)


def repair_three_ways(produced: Produced, base: Path) -> tuple[str, str]:
    """``-o``, ``--project --all --in-place`` (in a copy of the store), ``--in-place`` in the
    tool's own store, last: the same bytes each time. The store itself is repaired in place, as
    a user would: Codex 0.171 finds a rollout again by the absolute path its state database
    (``state_5.sqlite``) recorded, so a repaired copy elsewhere is never what it resumes.
    Returns the raw and the repaired text."""
    raw = produced.session.read_text("utf-8")
    rel = produced.session.relative_to(produced.home)
    # -o: a file outside the project
    out = base / "out" / produced.session.name
    out.parent.mkdir()
    done = _apc(produced.session, "-o", out)
    assert done.returncode in (0, 1), done.stderr
    repaired = out.read_text("utf-8")
    assert produced.session.read_text("utf-8") == raw  # -o never touches the input
    # --project DIR --all --in-place, finding the session from the project, in a copy
    every = base / "home-all"
    shutil.copytree(produced.home, every, symlinks=True)
    _quiet(every / rel)
    done = _apc("--project", produced.project, "--all", "--in-place", env=_store_env(every))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert (every / rel).read_text("utf-8") == repaired
    # and the whole store passes the check afterwards
    done = _apc("--project", produced.project, "--all", "--check", env=_store_env(every))
    assert done.returncode == 0, done.stdout + done.stderr
    # --in-place, in the tool's own store: the file the tool resumes
    _quiet(produced.session)
    done = _apc("--in-place", produced.session)
    assert done.returncode in (0, 1), done.stderr
    assert produced.session.read_text("utf-8") == repaired
    return raw, repaired


def resume(produced: Produced, home: Path) -> list[dict[str, Any]]:
    """The same CLI resumes the session from ``home``; the conversation it sends."""
    sid = produced.session_id
    extra = ["resume", sid] if produced.tool == "codex" else ["--resume", sid]
    with MockServer(Script([Text("RESUMED")])) as mock:
        run = RUN[produced.tool](produced.project, home, mock, "go on", extra)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "RESUMED" in run.stdout
    turns = mock.conversation(API[produced.tool])
    assert len(turns) == 1, [r.path for r in mock.requests]
    body = turns[0].body
    items: list[dict[str, Any]] = body[KEY[produced.tool]]
    return items


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("tool", TOOLS)
def test_the_tool_resumes_the_repaired_session(
    clis: Binaries, tmp_path: Path, tool: str, case: str
) -> None:
    produced = produce(tool, case, tmp_path / "run")
    if case == "complete":  # a healthy store passes as it is
        done = _apc(
            "--project", produced.project, "--all", "--check", env=_store_env(produced.home)
        )
        assert done.returncode == 0, done.stdout + done.stderr
    raw, repaired = repair_three_ways(produced, tmp_path)
    closed = _closed(raw, repaired)
    if case == "complete":
        assert repaired == raw and not closed
    if tool in ("claude", "codex") and case in ("kill", "parallel"):
        assert closed, "the interrupted tool call was not answered"
    items = resume(produced, produced.home)
    assert_resumed(tool, case, items, closed)
    if os.environ.get("APC_RECORD_REPAIR"):
        REPLAY.mkdir(parents=True, exist_ok=True)
        record = fixture(tool, case, produced.session.name, closed, raw, repaired, items)
        (REPLAY / f"{tool}-{case}.json").write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8"
        )


CUT = 1000  # longer strings of a recorded request (system prompts, tool lists) are cut


def _cut(value: Any) -> Any:
    if isinstance(value, str) and len(value) > CUT:
        return value[:200] + f"...[{len(value)} characters, cut for the fixture]"
    if isinstance(value, list):
        return [_cut(v) for v in value]
    if isinstance(value, dict):
        return {k: _cut(v) for k, v in value.items()}
    return value


def fixture(
    tool: str,
    case: str,
    name: str,
    closed: list[str],
    raw: str,
    repaired: str,
    items: list[dict[str, Any]],
) -> dict[str, Any]:
    """A replay case: the raw session whole, the repaired one by its hash and added lines (the
    repair only adds), the resumed request with its long strings cut."""
    before = set(raw.splitlines())
    return {
        "tool": tool,
        "case": case,
        "version": version(tool),
        "name": name,
        "closed": closed,
        "raw": raw,
        "repaired_sha256": hashlib.sha256(repaired.encode("utf-8")).hexdigest(),
        "added": [line for line in repaired.splitlines() if line not in before],
        "request": _cut(items),
    }


def open_gemini_call(session: Path) -> None:
    """Rewrite a complete Gemini CLI session so its tool call is still open: the last message
    with ``toolCalls`` recorded without its result (``status: scheduled``), and nothing after
    it. Gemini CLI 0.61 run with ``-p`` never leaves such a line (it writes a turn's calls once
    all of them ended), but a crash between the two writes of an interactive session does, and
    older versions wrote one: what the CLI does with it is what the repair is for."""
    lines = session.read_text("utf-8").splitlines()
    at = max(i for i, line in enumerate(lines) if '"toolCalls"' in line)
    record = json.loads(lines[at])
    for call in record["toolCalls"]:
        call.pop("result", None)
        call["status"] = "scheduled"
    lines = [*lines[:at], json.dumps(record, separators=(",", ":"))]
    session.write_text("\n".join(lines) + "\n", "utf-8")


def test_gemini_resumes_a_repaired_open_call(clis: Binaries, tmp_path: Path) -> None:
    produced = produce("gemini", "complete", tmp_path / "run")
    open_gemini_call(produced.session)
    pristine = tmp_path / "pristine"
    shutil.copytree(produced.home, pristine, symlinks=True)
    check = _apc("--check", produced.session)
    assert check.returncode == 1 and "WIR001" in check.stdout, check.stdout
    assert "Gemini CLI 0.61.0 resumes such a file" in " ".join(check.stdout.split())
    # unrepaired, the CLI sends the call without any response (what the API rejects)
    unrepaired = Produced("gemini", "open", produced.project, pristine, produced.session, "")
    unrepaired.session = pristine / produced.session.relative_to(produced.home)
    unrepaired.session_id = produced.session_id
    sent = pairing_loose(resume(unrepaired, pristine))
    assert sent["calls"] and not sent["answered"], sent
    # repaired, it sends the call answered once, with the marker
    raw, repaired = repair_three_ways(produced, tmp_path)
    closed = _closed(raw, repaired)
    assert closed
    items = resume(produced, produced.home)
    assert_resumed("gemini", "open", items, closed)
    if os.environ.get("APC_RECORD_REPAIR"):
        record = fixture("gemini", "open", produced.session.name, closed, raw, repaired, items)
        (REPLAY / "gemini-open.json").write_text(
            json.dumps(record, indent=1, ensure_ascii=False) + "\n", "utf-8"
        )


def pairing_loose(items: list[dict[str, Any]]) -> dict[str, list[str]]:
    """Gemini calls and responses, without asserting the pairing (an unrepaired request)."""
    calls = [p["functionCall"].get("id") for c in items for p in c["parts"] if "functionCall" in p]
    answered = [
        p["functionResponse"].get("id")
        for c in items
        for p in c["parts"]
        if "functionResponse" in p
    ]
    return {"calls": calls, "answered": answered}
