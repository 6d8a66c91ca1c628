"""Gemini CLI sessions: ``~/.gemini/tmp/<id>/chats/session-*.jsonl`` (and legacy ``.json``).

Layout (gemini-cli ``chatRecordingService.ts``): JSONL, line 1 the metadata
``{sessionId, projectHash, startTime, ...}``, then message records
``{id, timestamp, type: user|gemini|info|error|warning, content, toolCalls?, ...}``,
``{"$set": {...}}`` updates (``$set.messages`` is a full snapshot) and ``{"$rewindTo": id}``
(removes that message and everything after it). The loader keeps a map by ``id``: a later line
with the same ``id`` replaces the message **in place**. Legacy ``.json`` is one object with a
``messages`` list.

Pairing (``sessionUtils.ts convertSessionToClientHistory``): a call is a ``toolCalls[]`` entry
(or a ``functionCall`` part of the message's ``content``); it is answered by a non-empty
``result`` or by a later live ``user`` message whose ``functionResponse`` carries its id (or
name, when ids are missing). A ``status`` of executing/success/error shows the call ran: left
open (RPR010). Repair, JSONL only: one line appended per message with open calls, a full copy of
the message whose ``toolCalls`` answers each open call as Gemini CLI records a cancelled one
(``status: "cancelled"``, ``result: [{functionResponse: {id, name, response: {error}}}]``); the
loader's map replaces the message in place, so no existing line changes. A legacy ``.json``
session is reported, not rewritten (RPR012).

Conformance: the live messages as Gemini ``contents`` (model turn from ``content`` and
``toolCalls``, a user turn of the results), checked as ``gemini``. As Gemini CLI 0.61 sends them
on resume (observed by the conformance suite): consecutive user turns are one turn, and the
result 0.61 records twice (in the ``toolCalls`` entry and again as the next user message) is
one response, counted once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from apc_tools.runtime.model import SYNTHETIC_TEXT
from apc_tools.runtime.sessions.base import Note, Options, Plan, Projection, SessionFile, text_id

WIRE = "gemini"

#: What Gemini CLI does itself on resume with an unanswered call (see claude_code.ON_RESUME).
ON_RESUME = (
    "Gemini CLI 0.61.0 resumes such a file by sending the call without any response, against "
    "that rule; `apc repair` answers it"
)
_RAN = frozenset({"executing", "success", "error"})


class _Message(NamedTuple):
    record: dict[str, Any]
    at: int  # line index of the line it was last read from


def live_messages(records: Iterator[tuple[int, dict[str, Any]]]) -> list[_Message]:
    """The messages the loader ends up with, in order (later lines replace by id)."""
    live: dict[object, _Message] = {}
    for index, record in records:
        if "$rewindTo" in record:
            target = record["$rewindTo"]
            if target in live:
                keys = list(live)
                for key in keys[keys.index(target) :]:
                    del live[key]
            continue
        update = record.get("$set")
        if isinstance(update, dict):
            snapshot = update.get("messages")
            if isinstance(snapshot, list):
                live = {
                    m.get("id", f"#{n}"): _Message(m, index)
                    for n, m in enumerate(snapshot)
                    if isinstance(m, dict)
                }
            continue
        if "type" in record and "id" in record:
            key = record["id"]
            if key in live:
                live[key] = _Message(record, index)
            else:
                live[key] = _Message(record, index)
    return list(live.values())


def _parts(content: object) -> list[Any]:
    if isinstance(content, list):
        return content
    if isinstance(content, dict):
        return [content]
    if isinstance(content, str) and content:
        return [{"text": content}]
    return []


class _Call(NamedTuple):
    id: str | None
    name: str | None
    entry: dict[str, Any] | None  # its toolCalls entry
    message: _Message
    args: object


def _calls(message: _Message) -> list[_Call]:
    record = message.record
    entries = record.get("toolCalls")
    calls = [
        _Call(text_id(e.get("id")), text_id(e.get("name")), e, message, e.get("args"))
        for e in (entries if isinstance(entries, list) else [])
        if isinstance(e, dict)
    ]
    known = {c.id for c in calls} | {c.name for c in calls if c.id is None}
    for part in _parts(record.get("content")):
        call = part.get("functionCall") if isinstance(part, dict) else None
        if isinstance(call, dict):
            call_id, name = text_id(call.get("id")), text_id(call.get("name"))
            if (call_id or name) not in known:
                calls.append(_Call(call_id, name, None, message, call.get("args")))
    return calls


def _responses(message: _Message) -> list[tuple[str | None, str | None]]:
    out = []
    for part in _parts(message.record.get("content")):
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if isinstance(response, dict):
            out.append((text_id(response.get("id")), text_id(response.get("name"))))
    return out


def _open(messages: list[_Message]) -> list[_Call]:
    open_calls: list[_Call] = []
    for message in messages:
        kind = message.record.get("type")
        if kind == "gemini":
            for call in _calls(message):
                if call.entry is None or not call.entry.get("result"):
                    open_calls.append(call)
        elif kind == "user":
            for response_id, name in _responses(message):
                for call in open_calls:
                    if (call.id is not None and call.id == response_id) or (
                        (call.id is None or response_id is None) and call.name == name
                    ):
                        open_calls.remove(call)
                        break
    return open_calls


def plan(session: SessionFile, options: Options, *, legacy: dict[str, Any] | None = None) -> Plan:
    result = Plan()
    messages = (
        [_Message(m, -1) for m in legacy.get("messages", []) if isinstance(m, dict)]
        if legacy is not None
        else live_messages(session.records())
    )
    closing: dict[int, list[_Call]] = {}
    for call in _open(messages):
        index = call.message.at
        line = session.lines[index].number if index >= 0 else None
        where = f"line {line}: " if line is not None else ""
        name = (call.name or "tool") + (f" ({call.id})" if call.id else "")
        status = call.entry.get("status") if call.entry is not None else None
        if status in _RAN:
            result.notes.append(
                Note(
                    "RPR010",
                    line,
                    f"{where}the {name} call has no result, but its status is "
                    f"{status!r}: it ran; left open",
                )
            )
        elif legacy is not None:
            result.notes.append(
                Note(
                    "RPR012",
                    line,
                    f"the {name} call has no result; a legacy .json session is not "
                    "rewritten: resume it once in Gemini CLI (it becomes .jsonl), then repair",
                )
            )
        else:
            closing.setdefault(id(call.message), []).append(call)
    for calls in closing.values():
        _append_copy(session, calls, result)
    return result


def _answer(call: _Call) -> dict[str, Any]:
    response = {"id": call.id, "name": call.name, "response": {"error": SYNTHETIC_TEXT}}
    if call.id is None:
        del response["id"]
    fixed = {"status": "cancelled", "result": [{"functionResponse": response}]}
    if call.entry is not None:
        return {**call.entry, **fixed}
    entry: dict[str, Any] = {"id": call.id, "name": call.name, "args": call.args}
    timestamp = call.message.record.get("timestamp")
    if timestamp is not None:
        entry["timestamp"] = timestamp
    return {**entry, **fixed}


def _append_copy(session: SessionFile, calls: list[_Call], result: Plan) -> None:
    message = calls[0].message
    record = message.record
    by_entry = {id(c.entry): c for c in calls if c.entry is not None}
    entries = record.get("toolCalls")
    updated = [
        _answer(by_entry[id(e)]) if id(e) in by_entry else e
        for e in (entries if isinstance(entries, list) else [])
    ]
    updated += [_answer(c) for c in calls if c.entry is None]
    copy = dict(record)
    copy["toolCalls"] = updated
    result.insert_after(len(session.lines) - 1, session.dumps(copy))
    line = session.lines[message.at].number
    for call in calls:
        result.closed += 1
        result.notes.append(
            Note(
                "RPR001",
                line,
                f"line {line}: closed the unanswered {call.name or 'tool'} call with a "
                f"cancelled result (call {call.id}); message {record.get('id')} re-recorded "
                "at the end",
            )
        )


def project(session: SessionFile, *, legacy: dict[str, Any] | None = None) -> Projection:
    out = Projection(WIRE)
    messages = (
        [_Message(m, -1) for m in legacy.get("messages", []) if isinstance(m, dict)]
        if legacy is not None
        else live_messages(session.records())
    )
    for message in messages:
        line = session.lines[message.at].number if message.at >= 0 else 0
        kind = message.record.get("type")
        parts = [
            p
            for p in _parts(message.record.get("content"))
            if not (isinstance(p, dict) and "text" in p and not p["text"])
        ]
        if kind == "user" and parts:
            _add_user(out, parts, line)
        elif kind == "gemini":
            calls = _calls(message)
            model = [p for p in parts if not (isinstance(p, dict) and "functionCall" in p)]
            model += [
                {
                    "functionCall": {
                        k: v
                        for k, v in (("id", c.id), ("name", c.name), ("args", c.args))
                        if v is not None
                    }
                }
                for c in calls
            ]
            if model:
                out.add({"role": "model", "parts": model}, line)
            results = [
                part
                for c in calls
                if c.entry is not None and isinstance(c.entry.get("result"), list)
                for part in c.entry["result"]
            ]
            if results:
                _add_user(out, results, line)
    return out


def _add_user(out: Projection, parts: list[Any], line: int) -> None:
    """Add a user turn as Gemini CLI 0.61 sends it on resume: consecutive user turns become
    one, and a result recorded twice (in the call's ``toolCalls`` entry and again as the next
    user message, as 0.61 writes every result) is one response: counted once."""
    last = out.records[-1] if out.records else None
    if last is None or last.get("role") != "user":
        out.add({"role": "user", "parts": list(parts)}, line)
        return
    merged = last["parts"]
    seen = [_response_key(p) for p in merged]
    for part in parts:
        key = _response_key(part)
        if key is not None and key in seen:
            continue
        merged.append(part)
        seen.append(key)


def _response_key(part: object) -> tuple[object, object] | None:
    """A functionResponse part's (id, name), or None for any other part."""
    response = part.get("functionResponse") if isinstance(part, dict) else None
    if not isinstance(response, dict):
        return None
    call_id = text_id(response.get("id"))
    if call_id is None:  # no id: only an identical response is the same one
        import json

        return (None, json.dumps(response, sort_keys=True, default=str))
    return (call_id, text_id(response.get("name")))
