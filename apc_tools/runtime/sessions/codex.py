"""Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl``.

Layout (codex-rs ``protocol.rs`` ``RolloutLine``): every line is
``{"timestamp", "type", "payload"}``, compact; ``session_meta`` first; ``response_item`` payloads
are OpenAI Responses items, written in **execution order** (an output may come after other
items, even after ``turn_aborted``); ``event_msg`` payloads are UI events, some carrying the
``call_id`` of a call that started (``exec_command_begin``, ``mcp_tool_call_end``,
``collab_agent_spawn_end`` ...); ``compacted`` with ``replacement_history`` starts a new history.

Pairing is Codex's own (``normalize.rs`` ``ensure_call_outputs_present``): set-wise by
``call_id``, an output anywhere after the call answers it. The synthetic output goes right after
the call's line, where Codex's normaliser puts its ``aborted`` output in the prompt, with the
call's timestamp: ``function_call`` and ``local_shell_call`` -> ``function_call_output``,
``custom_tool_call`` -> ``custom_tool_call_output``, client ``tool_search_call`` ->
``tool_search_output``. A call with an event carrying its ``call_id`` ran: left open (RPR010).

Conformance: the ``response_item`` payloads, checked as ``openai-responses``.
"""

from __future__ import annotations

from collections import deque
from typing import Any, NamedTuple

from apc_tools.runtime.adapters import adapter_for
from apc_tools.runtime.model import Call
from apc_tools.runtime.sessions.base import Note, Options, Plan, Projection, SessionFile

WIRE = "openai-responses"

#: What Codex does itself on resume with an unanswered call (see claude_code.ON_RESUME).
ON_RESUME = (
    "Codex 0.171.0 resumes such a file by sending an `aborted` output it never writes down, so "
    "the file keeps the open call; `apc repair` writes the answer into the file"
)


class _Open(NamedTuple):
    call: Call
    at: int  # line index


def _payload(record: dict[str, Any], kind: str) -> dict[str, Any] | None:
    payload = record.get("payload")
    if record.get("type") == kind and isinstance(payload, dict):
        return payload
    return None


def _open_calls(session: SessionFile) -> tuple[list[_Open], dict[str, str]]:
    """Calls without an output (in file order), and call_id -> the event that shows it ran."""
    parse = adapter_for(WIRE).parse
    pending: dict[str | None, deque[_Open]] = {}
    order: list[_Open] = []
    started: dict[str, str] = {}
    for index, record in session.records():
        event = _payload(record, "event_msg")
        if event is not None:
            call_id = event.get("call_id")
            if isinstance(call_id, str):
                started.setdefault(call_id, str(event.get("type", "event")))
            continue
        if _payload(record, "compacted") is not None and "replacement_history" in record.get(
            "payload", {}
        ):
            pending.clear()  # the history is replaced: calls before it are not sent
            order = []
            continue
        item = _payload(record, "response_item")
        if item is None:
            continue
        message = parse(item)
        for call in message.calls:
            entry = _Open(call, index)
            pending.setdefault(call.id, deque()).append(entry)
            order.append(entry)
        for result in message.results:
            waiting = pending.get(result.id)
            if waiting:
                waiting.popleft()
    still = {id(e) for queue in pending.values() for e in queue}
    return [e for e in order if id(e) in still], started


def _synthetic(call: Call) -> dict[str, Any]:
    if call.type == "local_shell_call":
        call = call._replace(type="function_call")
    return adapter_for(WIRE).synthetic(call)


def plan(session: SessionFile, options: Options) -> Plan:
    result = Plan()
    open_calls, started = _open_calls(session)
    for entry in open_calls:
        call, line = entry.call, session.lines[entry.at].number
        name = call.name or "tool"
        if call.id is None:
            result.notes.append(
                Note("RPR012", line, f"line {line}: the {name} call has no call_id: left open")
            )
            continue
        if call.id in started:
            result.notes.append(
                Note(
                    "RPR010",
                    line,
                    f"line {line}: the {name} call ({call.id}) has no output, but a "
                    f"{started[call.id]} event shows it started; left open",
                )
            )
            continue
        record = session.lines[entry.at].record
        assert record is not None
        line_record: dict[str, Any] = {}
        if "timestamp" in record:
            line_record["timestamp"] = record["timestamp"]
        line_record["type"] = "response_item"
        line_record["payload"] = _synthetic(call)
        result.insert_after(entry.at, session.dumps(line_record))
        result.closed += 1
        result.notes.append(
            Note(
                "RPR001",
                line,
                f"line {line}: closed the unanswered {name} call with a synthetic output "
                f"(call {call.id})",
            )
        )
    return result


def project(session: SessionFile) -> Projection:
    out = Projection(WIRE)
    for index, record in session.records():
        item = _payload(record, "response_item")
        if item is not None:
            out.add(item, session.lines[index].number)
        elif _payload(record, "compacted") is not None and "replacement_history" in record.get(
            "payload", {}
        ):
            out = Projection(WIRE)
    return out
