"""Claude Code project sessions: ``~/.claude/projects/<project>/<session>.jsonl``.

Layout: one JSON record per line; chain records (``user``, ``assistant``, ``system``, ...) carry
``uuid`` and ``parentUuid``; an assistant reply is split into **one record per content block**
(same ``message.id``); each ``tool_result`` is a ``user`` record of its own, from 2.1.x with
``sourceToolAssistantUUID`` (the record holding the ``tool_use``). Claude Code resumes from the
last chain record back along ``parentUuid`` (``logicalParentUuid`` bridges a compaction).

Pairing: a ``tool_use`` on the live chain is answered by a ``tool_result`` with its id in any
record of the same chain kind (main or sidechain) of the file. Repair quirks:

* tip case (nothing but results follows the call on the chain: the crash case): one ``user``
  record per open call is appended at the end, chained from the last chain record, its envelope
  keys copied from a real result record of the file (else from the call record);
* mid-chain case (the user already continued): left open (RPR012), or with ``--reparent`` the
  result is inserted after the call and the next chain record's ``parentUuid`` points at it
  (RPR011): the one existing line apc ever changes, and only when asked;
* execution evidence (a ``progress`` record for the call other than a hook, a subagent
  transcript for a ``Task``/``Agent`` call): left open (RPR010).

Conformance: the chain's user/assistant records, consecutive records of one assistant message
merged and consecutive user records merged (what Claude Code sends), checked as ``anthropic``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, NamedTuple

from apc_tools.runtime.model import SYNTHETIC_TEXT
from apc_tools.runtime.sessions.base import (
    Note,
    Options,
    Plan,
    Projection,
    SessionFile,
    new_id,
    text_id,
)

WIRE = "anthropic"

#: What the tool itself does when it resumes a file with an unanswered call (observed by the
#: conformance suite, tests/conformance/test_repair_resume.py): said next to the provider's
#: rule by ``apc repair --check``, so a user knows why the repair still matters.
ON_RESUME = (
    "Claude Code 2.1.197 resumes such a file by dropping the unanswered tool_use and forking "
    "its chain, so the model never learns the call was cut off; `apc repair` answers it instead"
)

#: Keys copied from the call record onto a synthetic result (the session's envelope).
_ENVELOPE = (
    "isSidechain",
    "userType",
    "cwd",
    "sessionId",
    "version",
    "gitBranch",
    "slug",
    "agentId",
    "entrypoint",
)
_STRUCTURAL = ("parentUuid", "type", "message", "uuid", "timestamp", "sourceToolAssistantUUID")
_SUBAGENT_TOOLS = frozenset({"Task", "Agent"})


class _Call(NamedTuple):
    id: str | None
    name: str
    at: int  # line index of the record holding the tool_use
    message_id: object


class _Chain:
    """The live chain of a session file: line indices from the first record to the leaf."""

    def __init__(self, session: SessionFile) -> None:
        self.session = session
        self.records: dict[int, dict[str, Any]] = {}
        self.by_uuid: dict[str, int] = {}
        self.progress: dict[str, list[dict[str, Any]]] = {}
        self.tree_form = False  # results carry sourceToolAssistantUUID (2.1.x)
        main: list[int] = []
        side: list[int] = []
        for index, record in session.records():  # one pass over the file
            self.records[index] = record
            key = record.get("uuid")
            if isinstance(key, str):
                self.by_uuid[key] = index
            kind = record.get("type")
            if kind == "user" or kind == "assistant":
                (side if record.get("isSidechain") is True else main).append(index)
                if kind == "user" and "sourceToolAssistantUUID" in record:
                    self.tree_form = True
            elif kind == "progress" and isinstance(record.get("toolUseID"), str):
                self.progress.setdefault(record["toolUseID"], []).append(record)
        self.members = main or side
        self.uses_uuid = any("uuid" in self.records[i] for i in self.members)
        walked = self._walk() if self.uses_uuid else []
        # Links that do not resolve (hand-made or trimmed files): read in file order.
        self.linked = self._linked(walked)
        self.order = walked if self.linked else list(self.members)
        self.split = self._split_blocks() if self.linked else []
        self.position = {index: pos for pos, index in enumerate(self.order)}
        self.answered: set[str] = set()
        self.template: Mapping[str, Any] = {}
        self.admitted = self._results(set(self.order))

    def _walk(self) -> list[int]:
        by_uuid = self.by_uuid
        leaves = [i for i in self.members if isinstance(self.records[i].get("uuid"), str)]
        if not leaves:
            return []
        chain: list[int] = []
        seen: set[int] = set()
        at: int | None = leaves[-1]
        while at is not None and at not in seen:
            seen.add(at)
            chain.append(at)
            record = self.records[at]
            parent = record.get("parentUuid") or record.get("logicalParentUuid")
            at = by_uuid.get(parent) if isinstance(parent, str) else None
        chain.reverse()
        return chain

    def _split_blocks(self) -> list[int]:
        """The later blocks of the chain's last assistant message that lie off the chain.

        Claude Code writes one record per content block, each the child of the one before; when
        the model asked for several tools at once and the result of an earlier one was written
        (a child of *its* block) before the turn died, the leaf is that result and the later
        blocks hang on a branch. Claude Code 2.1.197 resumes from the leaf and drops their calls;
        answered from the last block (as it writes results itself on an interrupt), they are
        back on the chain. Such blocks are put into ``order`` after their parent."""
        last = next(
            (i for i in reversed(self.order) if self.records[i].get("type") == "assistant"), None
        )
        message_id = _message_id(self.records[last]) if last is not None else None
        if last is None or message_id is None:
            return []
        on_chain = set(self.order)
        uuids = {self.records[i].get("uuid"): i for i in self.order}
        found = []
        for index in self.members:
            record = self.records[index]
            parent = record.get("parentUuid")
            if (
                index not in on_chain
                and record.get("type") == "assistant"
                and _message_id(record) == message_id
                and isinstance(parent, str)
                and parent in uuids
            ):
                self.order.insert(self.order.index(uuids[parent]) + 1, index)
                uuids[record.get("uuid")] = index
                on_chain.add(index)
                found.append(index)
        return found

    def _results(self, on_chain: set[int]) -> list[int]:
        """Every tool_result id of the chain kind (``answered``), the first result record (the
        ``template``), and the result records off the chain whose call record is on it (2.1.x
        tree form: ``admitted``)."""
        chain_uuids = {self.records[i].get("uuid") for i in on_chain} if self.linked else set()
        admitted = []
        for index in self.members:
            record = self.records[index]
            if record.get("type") != "user":
                continue
            ids = _results(record)
            if not ids:
                continue
            self.answered.update(ids)
            if not self.template:
                self.template = record
            if chain_uuids and index not in on_chain:
                anchors = (record.get("parentUuid"), record.get("sourceToolAssistantUUID"))
                if any(isinstance(a, str) and a in chain_uuids for a in anchors):
                    admitted.append(index)
        return admitted

    def _linked(self, walked: list[int]) -> bool:
        if not walked or (len(walked) == 1 and len(self.members) > 1):
            return False
        root = self.records[walked[0]]
        return not isinstance(root.get("parentUuid") or root.get("logicalParentUuid"), str)

    @property
    def leaf(self) -> int | None:
        return self.order[-1] if self.order else None


def _content(record: Mapping[str, Any]) -> list[Any]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _results(record: Mapping[str, Any]) -> list[str]:
    return [
        b["tool_use_id"]
        for b in _content(record)
        if isinstance(b, dict)
        and b.get("type") == "tool_result"
        and isinstance(b.get("tool_use_id"), str)
    ]


def _only_results(record: Mapping[str, Any]) -> bool:
    content = _content(record)
    return bool(content) and all(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def _message_id(record: Mapping[str, Any]) -> object:
    message = record.get("message")
    return message.get("id") if isinstance(message, dict) else None


def _calls(chain: _Chain) -> list[_Call]:
    calls = []
    for index in chain.order:
        record = chain.records[index]
        if record.get("type") != "assistant":
            continue
        for block in _content(record):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                name = block["name"] if isinstance(block.get("name"), str) else "tool"
                calls.append(_Call(text_id(block.get("id")), name, index, _message_id(record)))
    return calls


def _evidence(chain: _Chain, call: _Call) -> str | None:
    session = chain.session
    for record in chain.progress.get(call.id or "", ()):
        data = record.get("data")
        kind = data.get("type") if isinstance(data, dict) else None
        event = data.get("hookEvent") if isinstance(data, dict) else None
        if kind == "hook_progress" and event in ("PreToolUse", "SessionStart", None):
            continue
        return f"a progress record ({kind or 'progress'}) shows it started"
    if call.name in _SUBAGENT_TOOLS:
        folder = session.path.parent / session.path.stem / "subagents"
        if folder.is_dir() and any(folder.glob("*.jsonl")):
            return f"a subagent transcript exists in {folder.name}/"
    return None


def _continued_at(chain: _Chain, call: _Call) -> int | None:
    """The chain position of the first record that continues the conversation after ``call``
    (a user message that is not only results, or another assistant message), or None."""
    for pos in range(chain.position[call.at] + 1, len(chain.order)):
        record = chain.records[chain.order[pos]]
        kind = record.get("type")
        if kind == "assistant" and (
            call.message_id is None or _message_id(record) != call.message_id
        ):
            return pos
        if kind == "user" and not _only_results(record):
            return pos
    return None


# --------------------------------------------------------------------------------------------
# Repair


def plan(session: SessionFile, options: Options) -> Plan:
    chain = _Chain(session)
    result = Plan()
    answered = chain.answered
    template = chain.template
    tip: list[_Call] = []
    middle: dict[int, list[_Call]] = {}
    for call in _calls(chain):
        if call.id is not None and call.id in answered:
            continue
        line = session.lines[call.at].number
        what = f"line {line}: the {call.name} call" + (f" ({call.id})" if call.id else "")
        if (why := _evidence(chain, call)) is not None:
            result.notes.append(Note("RPR010", line, f"{what} has no result, but {why}; left open"))
            continue
        if call.id is None:
            result.notes.append(Note("RPR012", line, f"{what} has no id: it cannot be answered"))
            continue
        at = _continued_at(chain, call)
        if at is None:
            tip.append(call)
        elif options.reparent or not chain.linked:
            middle.setdefault(at, []).append(call)
        else:
            result.notes.append(
                Note(
                    "RPR012",
                    line,
                    f"{what} has no result and the conversation continued after it; left open "
                    "(use --reparent to close it)",
                )
            )
    for at, calls in middle.items():
        _reparent(session, chain, template, calls, at, result)
    if tip and chain.leaf is not None:
        parent = chain.records[chain.leaf].get("uuid")
        if any(call.at in chain.split for call in tip):  # blocks off the chain: answer there
            parent = chain.records[chain.split[-1]].get("uuid")
        _append(session, chain, template, tip, parent, len(session.lines) - 1, result)
    return result


def _append(
    session: SessionFile,
    chain: _Chain,
    template: Mapping[str, Any],
    calls: list[_Call],
    parent: object,
    after: int,
    result: Plan,
) -> object:
    """Synthetic results for ``calls`` after line index ``after``, each chained to the one
    before; returns the uuid of the last."""
    uses_source = chain.tree_form
    for call in calls:
        assert call.id is not None
        record = _synthetic(chain, template, call, parent, uses_source)
        result.insert_after(after, session.dumps(record))
        line = session.lines[call.at].number
        result.notes.append(
            Note(
                "RPR001",
                line,
                f"line {line}: closed the unanswered {call.name} call with a synthetic result "
                f"(call {call.id})",
            )
        )
        result.closed += 1
        parent = record.get("uuid", parent)
    return parent


def _session_id(chain: _Chain, call: _Call) -> str:
    value = chain.records[call.at].get("sessionId")
    return value if isinstance(value, str) else chain.session.path.stem


def _synthetic(
    chain: _Chain,
    template: Mapping[str, Any],
    call: _Call,
    parent: object,
    uses_source: bool,
) -> dict[str, Any]:
    source = chain.records[call.at]
    assert call.id is not None
    block = {
        "type": "tool_result",
        "tool_use_id": call.id,
        "content": SYNTHETIC_TEXT,
        "is_error": True,
    }
    values: dict[str, Any] = {
        "type": "user",
        "message": {"role": "user", "content": [block]},
    }
    if chain.uses_uuid:
        values["parentUuid"] = parent
        values["uuid"] = new_id(_session_id(chain, call), call.id)
    if "timestamp" in source:
        values["timestamp"] = source["timestamp"]
    if uses_source and isinstance(source.get("uuid"), str):
        values["sourceToolAssistantUUID"] = source["uuid"]
    for key in _ENVELOPE:
        if key in source:
            values[key] = source[key]
    order = [k for k in template if k in values]
    order += [k for k in source if k in values and k not in order]
    order += [k for k in values if k not in order]
    return {key: values[key] for key in order}


_PARENT = re.compile(rb'"parentUuid"\s*:\s*')


def _reparent(
    session: SessionFile,
    chain: _Chain,
    template: Mapping[str, Any],
    calls: list[_Call],
    at: int,
    result: Plan,
) -> None:
    """Insert the results after the record before chain position ``at`` and point the record at
    ``at`` to the last of them."""
    child_index = chain.order[at]
    before_index = chain.order[at - 1]
    if not chain.linked:  # the file is read in order: inserting after the call is enough
        parent = chain.records[before_index].get("uuid")
        _append(session, chain, template, calls, parent, before_index, result)
        return
    old = chain.records[child_index].get("parentUuid")
    raw = session.raw(child_index)
    found: list[re.Match[bytes]] = []
    if isinstance(old, str):
        old_text = json.dumps(old, ensure_ascii=session.ensure_ascii).encode("utf-8")
        found = list(re.finditer(_PARENT.pattern + re.escape(old_text), raw))
    if len(found) != 1:  # the key is not written once, verbatim: do not touch the line
        for call in calls:
            line = session.lines[call.at].number
            result.notes.append(
                Note(
                    "RPR012",
                    line,
                    f"line {line}: the {call.name} call ({call.id}) has no result and the "
                    "record after it cannot be re-attached safely; left open",
                )
            )
        return
    parent = chain.records[before_index].get("uuid")
    last = _append(session, chain, template, calls, parent, before_index, result)
    value = found[0]
    key_part = _PARENT.match(raw, value.start())
    assert key_part is not None
    encoded = json.dumps(last, ensure_ascii=session.ensure_ascii).encode("utf-8")
    new_raw = raw[: key_part.end()] + encoded + raw[value.end() :]
    result.replaced[child_index] = new_raw
    number = session.lines[child_index].number
    result.notes.append(
        Note("RPR011", number, f"line {number}: parentUuid now points at the synthetic result")
    )


# --------------------------------------------------------------------------------------------
# Conformance


def project(session: SessionFile) -> Projection:
    chain = _Chain(session)
    out = Projection(WIRE)
    indices = sorted(set(chain.order) | set(chain.admitted))
    previous: tuple[str, object] | None = None
    for index in indices:
        record = chain.records[index]
        role = record.get("type")
        message = record.get("message")
        if role not in ("user", "assistant") or not isinstance(message, dict):
            continue
        content = message.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content}]
        key = (str(role), _message_id(record) if role == "assistant" else None)
        if previous == key and out.records:
            merged = out.records[-1]
            merged["content"] = [*merged["content"], *blocks]
            continue
        previous = key
        out.add({"role": role, "content": list(blocks)}, session.lines[index].number)
    return out
