"""Each provider's tool-call sequencing rules, reported in the provider's own words.

:func:`check` walks a history the way the provider validates it and returns one
:class:`Violation` per broken rule, its message the provider's error text (reference
``history-repair-prior-art.md`` section 1) with ids and indices filled in. It never claims more
than the provider enforces: a form a provider accepts (an Anthropic history that begins with an
assistant message, Responses outputs that are not adjacent to their call) is not a violation.

Per wire:

* openai-chat: an assistant message with ``tool_calls`` must be followed at once by one
  ``tool`` message per call (WIR001); a ``tool`` message must answer such a message (WIR002) and
  only once (WIR003); an assistant message needs content or tool_calls (WIR006, the wording of
  strict OpenAI-compatible backends).
* openai-responses: every call item needs an output item after it (WIR001); an output needs an
  earlier call (WIR002) and only one output per call (WIR003).
* anthropic: the user message(s) after a tool_use message must begin with one tool_result per
  tool_use (WIR001; WIR004 when results are there but not first); nothing may follow a tool_use
  in its message (WIR005); a tool_result needs its tool_use in the previous message (WIR002)
  and only one result each (WIR003). Consecutive user messages count as one, as the API merges
  them.
* gemini: a function call turn must follow a user turn or a function response turn (WIR007);
  the response turn after it must hold as many responses as there were calls (WIR001 fewer,
  WIR003 more); a response turn must follow a call turn (WIR002).
* bedrock: the history must start with a user message (WIR008); the message after a toolUse
  message must hold a toolResult per toolUse (WIR001) and no more (WIR002/WIR003); text may not
  come before the tool results (WIR004: the API's "Conversation blocks and tool result blocks
  cannot be provided in the same turn", read as "text before the results": text after them is
  accepted in practice, e.g. by Strands and by recorded Nova traffic).

Options mirror :func:`apc_tools.runtime.repair.repair`: ``live_tail=True`` accepts open calls in
the final turn (edge case 17), ``continuation=True`` accepts results at the start of the history
that answer calls held server-side (edge case 18).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from apc_tools.findings import Finding
from apc_tools.runtime.adapters import BlockAdapter, adapter_for
from apc_tools.runtime.model import BadRecord, Call, Message, Result, Violation, matches

__all__ = ["check", "findings_for"]

Records = Sequence[Mapping[str, Any]]


def _ids(calls: Sequence[Call]) -> str:
    return ", ".join(call.id or f"<{call.name or 'unnamed'}>" for call in calls)


def _parse(records: Records, wire: str) -> list[Message]:
    adapter = adapter_for(wire)
    messages = []
    for index, record in enumerate(records):
        if not isinstance(record, Mapping):
            raise BadRecord(index, record)
        messages.append(adapter.parse(record))
    return messages


def _prefix_end(messages: list[Message], continuation: bool) -> int:
    """How many leading records are server-state results (only with ``continuation``)."""
    if not continuation:
        return 0
    end = 0
    while end < len(messages) and messages[end].results and not messages[end].calls:
        end += 1
    return end


def _match(open_calls: list[Call], result: Result) -> Call | None:
    for call in open_calls:
        if matches(call, result):
            open_calls.remove(call)
            return call
    return None


# -- OpenAI chat -------------------------------------------------------------------------------

CHAT_DANGLING = (
    "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
    "'tool_call_id'. The following tool_call_ids did not have response messages: {ids}"
)
CHAT_ORPHAN = (
    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message "
    "with 'tool_calls'."
)
CHAT_DUPLICATE = (
    "Invalid parameter: Duplicate value for 'tool_call_id' of '{id}' in messages[{first}] and "
    "messages[{second}]."
)
CHAT_EMPTY = "Invalid assistant message: content or tool_calls must be set"


def _check_chat(messages: list[Message], live_tail: bool, start: int) -> list[Violation]:
    out: list[Violation] = []
    i = start
    while i < len(messages):
        msg = messages[i]
        if msg.empty_assistant:
            out.append(Violation(i, "WIR006", CHAT_EMPTY))
        if msg.kind == "tool":
            out.append(Violation(i, "WIR002", CHAT_ORPHAN))
        if not msg.calls:
            i += 1
            continue
        open_calls = list(msg.calls)
        answered: dict[str | None, int] = {}
        j = i + 1
        while j < len(messages) and messages[j].kind == "tool":
            result = messages[j].results[0]
            if _match(open_calls, result) is not None:
                answered.setdefault(result.id, j)
            elif result.id in answered:
                out.append(
                    Violation(
                        j,
                        "WIR003",
                        CHAT_DUPLICATE.format(id=result.id, first=answered[result.id], second=j),
                    )
                )
            else:
                out.append(Violation(j, "WIR002", CHAT_ORPHAN))
            j += 1
        if open_calls and not (live_tail and j == len(messages)):
            out.append(Violation(i, "WIR001", CHAT_DANGLING.format(ids=_ids(open_calls))))
        i = j
    return out


def _key(ident: str | None, name: str | None) -> object:
    return ident if ident is not None else ("name", name)


# -- OpenAI Responses --------------------------------------------------------------------------

RESPONSES_DANGLING = "No tool output found for function call {id}."
RESPONSES_ORPHAN = "No tool call found for function call output with call_id {id}."
RESPONSES_DUPLICATE = "Duplicate function_call_output for call_id {id}"


def _check_responses(messages: list[Message], live_tail: bool, start: int) -> list[Violation]:
    out: list[Violation] = []
    open_calls: list[tuple[int, Call]] = []
    done: set[object] = set()
    last_turn = start - 1  # the last user item; none yet
    for i in range(start, len(messages)):
        msg = messages[i]
        if msg.kind in ("user", "system", "other"):
            last_turn = i
        open_calls += [(i, call) for call in msg.calls]
        for result in msg.results:
            found = next((pair for pair in open_calls if matches(pair[1], result)), None)
            if found is not None:
                open_calls.remove(found)
                done.add(_key(found[1].id, found[1].name))
            elif _key(result.id, result.name) in done:
                out.append(Violation(i, "WIR003", RESPONSES_DUPLICATE.format(id=result.id)))
            else:
                out.append(Violation(i, "WIR002", RESPONSES_ORPHAN.format(id=result.id)))
    for index, call in open_calls:
        if not (live_tail and index > last_turn):
            out.append(Violation(index, "WIR001", RESPONSES_DANGLING.format(id=call.id)))
    return out


# -- Anthropic ---------------------------------------------------------------------------------

ANTHROPIC_DANGLING = (
    "messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately after: "
    "{ids}. Each `tool_use` block must have a corresponding `tool_result` block in the next "
    "message."
)
ANTHROPIC_NOT_FIRST = (
    "messages.{i}: Did not find {n} `tool_result` block(s) at the beginning of this message. "
    "Messages following `tool_use` blocks must begin with a matching number of `tool_result` "
    "blocks."
)
ANTHROPIC_ORPHAN = (
    "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. "
    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
)
ANTHROPIC_DUPLICATE = (
    "each tool_use must have a single result. Found multiple `tool_result` blocks with id: {id}"
)


def _user_run(messages: list[Message], start: int) -> int:
    end = start
    while end < len(messages) and messages[end].kind in ("user", "tool"):
        end += 1
    return end


def _blocks_of(
    adapter: BlockAdapter, messages: list[Message], lo: int, hi: int
) -> list[tuple[int, int, Any]]:
    return [
        (k, pos, b) for k in range(lo, hi) for pos, b in enumerate(adapter.items(messages[k].raw))
    ]


def _anthropic_results(
    adapter: BlockAdapter, messages: list[Message], i: int, hi: int, out: list[Violation]
) -> list[Call]:
    """Check the user run ``i+1..hi`` against the calls of message ``i``; return unanswered."""
    open_calls, seen = list(messages[i].calls), list(messages[i].calls)
    leading = True
    late = 0
    for k, pos, block in _blocks_of(adapter, messages, i + 1, hi):
        result = adapter.block_result(block, pos)
        if result is None:
            leading = False
            continue
        if _match(open_calls, result) is not None:
            late += 0 if leading else 1
        elif any(matches(call, result) for call in seen):
            out.append(Violation(k, "WIR003", ANTHROPIC_DUPLICATE.format(id=result.id)))
        else:
            out.append(Violation(k, "WIR002", ANTHROPIC_ORPHAN.format(i=k, j=pos, id=result.id)))
    if late:
        out.append(Violation(i + 1, "WIR004", ANTHROPIC_NOT_FIRST.format(i=i + 1, n=len(seen))))
    return open_calls


def _check_anthropic(messages: list[Message], live_tail: bool, start: int) -> list[Violation]:
    adapter = adapter_for("anthropic")
    assert isinstance(adapter, BlockAdapter)
    out: list[Violation] = []
    i = start
    while i < len(messages):
        msg = messages[i]
        if not msg.calls:
            for result in msg.results:
                out.append(
                    Violation(i, "WIR002", ANTHROPIC_ORPHAN.format(i=i, j=result.pos, id=result.id))
                )
            i += 1
            continue
        if _content_after_call(adapter, msg):
            out.append(Violation(i, "WIR005", ANTHROPIC_DANGLING.format(i=i, ids=_ids(msg.calls))))
        hi = _user_run(messages, i + 1)
        missing = _anthropic_results(adapter, messages, i, hi, out)
        late = bool(out) and out[-1].rule == "WIR004" and out[-1].index == i + 1
        if missing and not late and not (live_tail and hi == len(messages)):
            out.append(Violation(i, "WIR001", ANTHROPIC_DANGLING.format(i=i, ids=_ids(missing))))
        i = max(hi, i + 1)
    return out


def _content_after_call(adapter: BlockAdapter, msg: Message) -> bool:
    first = min(call.pos for call in msg.calls)
    items = adapter.items(msg.raw)
    return any(adapter.block_call(b, p) is None for p, b in enumerate(items) if p > first)


# -- Gemini ------------------------------------------------------------------------------------

GEMINI_COUNT = (
    "Please ensure that the number of function response parts is equal to the number of function "
    "call parts of the function call turn."
)
GEMINI_CALL_TURN = (
    "Please ensure that function call turn comes immediately after a user turn or after a "
    "function response turn."
)
GEMINI_RESPONSE_TURN = (
    "Please ensure that function response turn comes immediately after a function call turn"
)


def _check_gemini(messages: list[Message], live_tail: bool, start: int) -> list[Violation]:
    out: list[Violation] = []
    for i in range(start, len(messages)):
        msg = messages[i]
        prev = messages[i - 1] if i > 0 else None
        if msg.calls:
            if prev is None or prev.kind not in ("user", "tool"):
                out.append(Violation(i, "WIR007", GEMINI_CALL_TURN))
            nxt = messages[i + 1] if i + 1 < len(messages) else None
            found = _gemini_count(msg, nxt, i)
            if live_tail and (nxt is None or (i + 2 == len(messages) and nxt.results)):
                found = [v for v in found if v.rule != "WIR001"]
            out += found
        elif msg.results and (prev is None or not prev.calls) and i >= start:
            out.append(Violation(i, "WIR002", GEMINI_RESPONSE_TURN))
    return out


def _gemini_count(msg: Message, nxt: Message | None, i: int) -> list[Violation]:
    results = list(nxt.results) if nxt is not None else []
    open_calls = list(msg.calls)
    extra = [r for r in results if _match(open_calls, r) is None]
    if open_calls:
        return [Violation(i, "WIR001", GEMINI_COUNT)]
    if extra:
        return [Violation(i + 1, "WIR003", GEMINI_COUNT)]
    return []


# -- Bedrock -----------------------------------------------------------------------------------

BEDROCK_START = (
    "A conversation must start with a user message. Try again with a conversation that starts "
    "with a user message."
)
BEDROCK_MISSING = "Expected toolResult blocks at messages.{i}.content for the following Ids: {ids}"
BEDROCK_EXTRA = (
    "The number of toolResult blocks at messages.{i}.content exceeds the number of toolUse "
    "blocks of previous turn."
)
BEDROCK_MIXED = (
    "messages.{i}.content: Conversation blocks and tool result blocks cannot be provided in the "
    "same turn."
)


def _check_bedrock(messages: list[Message], live_tail: bool, start: int) -> list[Violation]:
    adapter = adapter_for("bedrock")
    assert isinstance(adapter, BlockAdapter)
    out: list[Violation] = []
    if start == 0 and messages and messages[0].kind not in ("user", "tool"):
        out.append(Violation(0, "WIR008", BEDROCK_START))
    for i in range(start, len(messages)):
        msg = messages[i]
        prev = messages[i - 1] if i > start else None
        if msg.results:
            live = live_tail and i + 1 == len(messages)
            _bedrock_results(adapter, msg, prev, i, out, live)
        answered = i + 1 < len(messages) and messages[i + 1].results
        if msg.calls and not answered and not (live_tail and i + 1 == len(messages)):
            out.append(Violation(i, "WIR001", BEDROCK_MISSING.format(i=i + 1, ids=_ids(msg.calls))))
    return out


def _bedrock_results(
    adapter: BlockAdapter,
    msg: Message,
    prev: Message | None,
    i: int,
    out: list[Violation],
    live: bool = False,
) -> None:
    items = adapter.items(msg.raw)
    last = max(r.pos for r in msg.results)
    if any(
        adapter.block_result(b, p) is None and "text" in b
        for p, b in enumerate(items[:last])
        if isinstance(b, dict)
    ):
        out.append(Violation(i, "WIR004", BEDROCK_MIXED.format(i=i)))
    calls = list(prev.calls) if prev is not None else []
    open_calls = list(calls)
    unmatched = [r for r in msg.results if _match(open_calls, r) is None]
    if open_calls and not live:
        out.append(Violation(i, "WIR001", BEDROCK_MISSING.format(i=i, ids=_ids(open_calls))))
    if len(msg.results) > len(calls) or (unmatched and not open_calls):
        dup = any(any(matches(c, r) for c in calls) for r in unmatched)
        out.append(Violation(i, "WIR003" if dup else "WIR002", BEDROCK_EXTRA.format(i=i)))


_CHECKS: dict[str, Callable[[list[Message], bool, int], list[Violation]]] = {
    "openai-chat": _check_chat,
    "openai-responses": _check_responses,
    "anthropic": _check_anthropic,
    "gemini": _check_gemini,
    "bedrock": _check_bedrock,
}


def check(
    records: Records, wire: str, *, live_tail: bool = False, continuation: bool = False
) -> tuple[Violation, ...]:
    """The provider sequencing rules ``records`` break, in record order."""
    messages = _parse(records, wire)
    start = _prefix_end(messages, continuation)
    found = _CHECKS[wire](messages, live_tail, start)
    return tuple(sorted(found, key=lambda v: (v.index, v.rule)))


def findings_for(
    records: Records, wire: str, path: str, *, live_tail: bool = False, continuation: bool = False
) -> list[Finding]:
    """Violations as findings (WIR rules); ``line`` is the 1-based record number."""
    from apc_tools.runtime.rules import BY_ID

    violations = check(records, wire, live_tail=live_tail, continuation=continuation)
    return [
        BY_ID[v.rule].finding(path, f"record {v.index + 1}: {v.message}", v.index + 1)
        for v in violations
    ]
