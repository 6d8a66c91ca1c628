"""The history repair of APC-NOTES section 4, for every wire format, as one streaming core.

:func:`repair` feeds the records to a :class:`RepairStream` and collects what it emits, so both
give the same output by construction. The stream holds only the currently open turn: from the
record that makes tool calls until a record that is not a tool result arrives (plus, for Gemini,
the run of model contents just before a call turn), so memory does not grow with the history.

The walk
--------
1. Leading records before the first real user record are dropped ("dropped-leading"), except
   system/developer records and records of unknown role, which pass through. They are held
   until that user record arrives: a history with no user record at all keeps them, and is
   repaired as it is (its calls closed, never dropped: dropping would leave nothing). Where the
   provider takes a history that starts with a call (every wire but Gemini and Bedrock, see
   ``Adapter.user_first``), held records that include a call are kept and repaired too: a
   record holding a call is never dropped as "leading". A held result alone is an orphan.
2. A record with client tool calls opens a turn; each call opens a slot. A result answers the
   first still-unanswered slot of the open turn that it matches (by call id, or by tool name when
   an id is missing: Gemini ids are optional), so ids reused across turns and duplicate ids in one
   message (edge cases 7, 8) are distinct occurrences.
3. A result that matches no slot is an orphan ("dropped-orphan"); a result for an answered slot
   is a duplicate ("dropped-duplicate"; the first result is kept).
4. A record that is not a tool result closes the turn, and so does the end of the history (unless
   ``close_trailing=False``): every unanswered slot gets a synthetic result ("closed-call"),
   placed after the real results of the turn, in call order.
5. Placement. OpenAI chat / Responses: the results follow the call record(s) directly. Anthropic /
   Bedrock: all results of a turn go first in the one user message after the call message; when
   there is no result message, the synthetic results are merged at the front of the following
   user message if there is one, else a new user message is inserted. Gemini: one response
   content per call turn (a new content is inserted when there is none). Several result messages
   after one call message are merged into the first ("merged-results", edge case 12); results
   that did not come first in their message are moved to the front ("moved-result", edge case 11).

Other normalisations (each reported): an assistant message with no content and no calls is
dropped ("dropped-empty", edge case 15); in an Anthropic assistant message, blocks that follow a
``tool_use`` are moved before the first ``tool_use`` ("moved-content", edge case 10: the API
rejects text after a tool call in the same message); for Gemini, a run of model contents without
calls right before a call turn is merged into it ("merged-turns": Gemini wants a function call
turn to follow a user or function response turn).

Decisions on the open edge cases of the reference's section 5
-------------------------------------------------------------
* 13 (arguments cut mid-stream): the call is kept verbatim, arguments are never parsed, and it is
  closed like any other call.
* 14 (aborted assistant message a runtime will drop): the repair sees the history that will be
  sent. A runtime that drops aborted messages must drop them before calling :func:`repair`; then
  no result is created for their calls. If they are present, their calls are closed, which is
  always valid.
* 16 (reasoning tied to a dropped call): the repair never drops a call (only results, empty
  assistant messages and leading items), so reasoning items and signed thinking blocks never lose
  their call. Leading model items are dropped together.
* 17 (live frontier): ``close_trailing=False`` leaves the calls of the last turn open when the
  history ends on that turn (a runtime that is still executing or awaiting approval); everything
  before it is repaired. The default closes them: the caller says the turn was interrupted.
* 18 (server-side state, ``previous_response_id``): ``continuation=True`` says the records are a
  delta continuing a conversation stored by the provider: the leading-item rule is off and the
  results at the very start of the delta (answers to calls stored server-side) are kept.
* 19 (tool blocks without tool definitions): the repair never removes or rewrites a call, so a
  request that defined its tools still does; the ``tools`` parameter is outside the history and
  is not checked here.
* 20 (server tools): Anthropic ``server_tool_use``/``*_tool_result``/``mcp_tool_*`` blocks,
  Responses hosted tool items and server-run tool search, Gemini code execution parts are content,
  never calls or results: untouched.

The synthetic marker
--------------------
Providers validate request bodies strictly: OpenAI rejects unknown parameters on input items,
Anthropic answers "Extra inputs are not permitted" for unknown block fields, Gemini's proto JSON
parser rejects unknown field names, Bedrock validates against its model. A marker key such as
``"apc_synthetic": true`` would therefore make the repaired history itself fail. The marker is
the exact result text :data:`SYNTHETIC_TEXT` in the wire's error form (``is_error: true``,
``status: "error"``, ``response: {"error": ...}``, or the output text for OpenAI), which
:func:`is_synthetic` recognises. The text is ours alone (the boundary gate knows it as an
interruption marker), so a real tool result is never mistaken for it. No ids are invented:
a synthetic result carries the id of the call it closes, so the output is deterministic.

Bad input: a record that is not a JSON object raises :class:`BadRecord` (a ``ValueError`` naming
its index). Anything else never raises: unknown roles and item types pass through unchanged,
calls and results without ids are matched by tool name, blocks that are not objects are content.
Output records are new top-level dicts; nested values of untouched parts are shared with the
input (the input is never mutated).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from apc_tools.findings import Finding
from apc_tools.runtime.adapters import Adapter, BlockAdapter, adapter_for
from apc_tools.runtime.model import (
    BadRecord,
    Call,
    Change,
    Message,
    RepairResult,
    Result,
    matches,
)

__all__ = ["RepairStream", "findings_for", "is_synthetic", "repair"]


class _Slot:
    """One call of the open turn, and whether a result answered it."""

    __slots__ = ("answered", "at", "call", "index")

    def __init__(self, call: Call, index: int, at: int = 0) -> None:
        self.call = call
        self.index = index
        self.at = at  # position of the call record in the turn (head + outputs)
        self.answered = False


class _Turn:
    """The open turn: call record(s), slots and the results gathered so far.

    (Plain classes, not dataclasses: these are private, and the repair path is timed from the
    process start, where every dataclass costs its generated code.)
    """

    __slots__ = (
        "changed",
        "extra",
        "head",
        "late",
        "outputs",
        "result_blocks",
        "result_raw",
        "seen_output",
        "slots",
    )

    def __init__(self) -> None:
        self.head: list[dict[str, Any]] = []
        self.slots: list[_Slot] = []
        self.outputs: list[dict[str, Any]] = []
        self.late = -1  # Responses: where the first item after an output is, in outputs
        self.seen_output = False
        self.result_raw: Mapping[str, Any] | None = None
        self.result_blocks: list[Any] = []
        self.extra: list[Any] = []
        self.changed = False

    def answer(self, result: Result) -> str:
        """Match ``result`` to a slot: "ok", "duplicate" or "orphan"."""
        for slot in self.slots:
            if not slot.answered and matches(slot.call, result):
                slot.answered = True
                return "ok"
        if any(matches(slot.call, result) for slot in self.slots):
            return "duplicate"
        return "orphan"


class RepairStream:
    """The repair, fed one record at a time.

    :meth:`feed` returns the records that became final (possibly none, while a turn is open),
    :meth:`finish` the rest. ``changes`` lists what the repair did so far, in the order it did it:
    a "closed-call" is reported when its turn closes, after the changes made inside the turn.
    """

    def __init__(
        self, wire: str, *, close_trailing: bool = True, continuation: bool = False
    ) -> None:
        self._adapter: Adapter = adapter_for(wire)
        self._parse = self._adapter.parse
        self.wire = wire
        self.changes: list[Change] = []
        self._close_trailing = close_trailing
        self._started = continuation
        self._prefix = continuation
        self._index = -1
        self._turn: _Turn | None = None
        self._held: list[tuple[int, Message]] = []  # leading records, until a user record
        self._pending: list[tuple[int, Mapping[str, Any]]] = []

    # -- feeding ---------------------------------------------------------------------------

    def feed(self, record: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Take the next record; return the records that are now final, in output order."""
        self._index += 1
        if not isinstance(record, dict) and not isinstance(record, Mapping):
            raise BadRecord(self._index, record)
        msg = self._parse(record)
        if not self._started:
            return self._leading(msg)
        return self._walk(msg, record)

    def _walk(self, msg: Message, record: Mapping[str, Any]) -> list[dict[str, Any]]:
        if self._prefix:
            if msg.results and not msg.calls:
                return [dict(record)]
            self._prefix = False
        if msg.kind == "assistant" and not msg.calls and not msg.content and _bare(record):
            self._note("dropped-empty", None, "dropped an assistant message with no content")
            return []
        turn = self._turn
        if turn is None:  # most records: no call is open
            return self._start(msg)
        if self._joins_turn(turn, msg):
            self._join(turn, msg)
            return []
        out, consumed = self._close(msg)
        if consumed:  # merged into the turn's result message
            return out
        return out + self._start(msg)

    def finish(self) -> list[dict[str, Any]]:
        """The end of the history: close (or, if asked, leave open) the last turn."""
        out: list[dict[str, Any]] = self._replay_held() if self._held else []
        if self._turn is not None:
            # A result message that also holds the user's text means the user spoke after the
            # calls: the turn is over even on a live frontier, so its open calls are closed.
            spoke = bool(self._turn.extra)
            out += self._close(None, synthesize=self._close_trailing or spoke)[0]
        out += self._flush_pending()
        return out

    # -- the leading items -----------------------------------------------------------------

    def _leading(self, msg: Message) -> list[dict[str, Any]]:
        if msg.kind in ("system", "other") and not self._held:
            return [dict(msg.raw)]
        if msg.kind == "user":
            self._started = True
            if not self._adapter.user_first and any(m.calls for _, m in self._held):
                return self._replay_held() + self._walk(msg, msg.raw)
            return self._drop_held() + self._start(msg)
        self._held.append((self._index, msg))  # system records too, once one is held: in order
        return []

    def _drop_held(self) -> list[dict[str, Any]]:
        """A user record came: the held system records pass, the others are dropped (a result
        alone answers no call: it goes as an orphan)."""
        kept: list[dict[str, Any]] = []
        index, held = self._index, self._held
        for self._index, msg in held:
            if msg.kind in ("system", "other"):
                kept.append(dict(msg.raw))
            elif msg.results and not msg.calls and not msg.content:
                for result in msg.results:
                    self._note(
                        "dropped-orphan",
                        result.id,
                        "dropped a tool result that answers no open call",
                    )
            else:
                self._note(
                    "dropped-leading",
                    None,
                    f"dropped a leading {msg.kind} record before the first user message",
                )
        self._index, self._held = index, []
        return kept

    def _replay_held(self) -> list[dict[str, Any]]:
        """The held records are repaired as they are: no user record came, or they hold a call
        the provider takes at the start of a history."""
        self._started = True
        out: list[dict[str, Any]] = []
        index, held = self._index, self._held
        for self._index, msg in held:
            out += self._walk(msg, msg.raw)
        self._index, self._held = index, []
        return out

    # -- outside a turn --------------------------------------------------------------------

    def _start(self, msg: Message) -> list[dict[str, Any]]:
        if self._adapter.fold_model_runs and msg.kind == "assistant" and not msg.calls:
            self._pending.append((self._index, msg.raw))
            return []
        if msg.calls:
            self._open(msg)
            return []
        kept = self._orphans(msg) if msg.results else [dict(msg.raw)]
        if not kept:
            return []
        return self._flush_pending() + kept if self._pending else kept

    def _open(self, msg: Message) -> None:
        turn = _Turn()
        raw = self._merge_pending(msg.raw)
        if self._adapter.calls_last:
            raw = self._calls_last(raw, msg.calls)
        turn.head.append(dict(raw))
        turn.slots = [_Slot(call, self._index) for call in msg.calls]
        self._turn = turn

    def _orphans(self, msg: Message) -> list[dict[str, Any]]:
        for result in msg.results:
            self._note(
                "dropped-orphan", result.id, "dropped a tool result that answers no open call"
            )
        if not isinstance(self._adapter, BlockAdapter) or not msg.content:
            return []
        adapter = self._adapter
        kept = [
            b
            for pos, b in enumerate(adapter.items(msg.raw))
            if adapter.block_result(b, pos) is None
        ]
        return [adapter.with_items(msg.raw, kept)]

    # -- inside a turn ---------------------------------------------------------------------

    def _joins_turn(self, turn: _Turn, msg: Message) -> bool:
        if msg.results and not msg.calls:
            return True
        # Responses items need no adjacency: an output answers its call anywhere after it. A
        # model item (reasoning, hosted tool call, message, more calls) after an output keeps
        # the turn open while a call is unanswered; closing it there would fabricate a "not run"
        # output for a call whose real output comes late, and drop that output as an orphan.
        if not self._adapter.late_outputs or msg.kind != "assistant":
            return False
        return not turn.seen_output or any(not slot.answered for slot in turn.slots)

    def _join(self, turn: _Turn, msg: Message) -> None:
        if msg.calls or not msg.results:
            if turn.seen_output:
                if turn.late < 0:
                    turn.late = len(turn.outputs)
                turn.outputs.append(dict(msg.raw))
            else:
                turn.head.append(dict(msg.raw))
            at = len(turn.head) + len(turn.outputs) - 1
            turn.slots += [_Slot(call, self._index, at) for call in msg.calls]
        elif isinstance(self._adapter, BlockAdapter):
            self._absorb(turn, self._adapter, msg)
        else:
            turn.seen_output = True
            if self._take(turn, msg.results[0]):
                turn.outputs.append(dict(msg.raw))

    def _take(self, turn: _Turn, result: Result) -> bool:
        status = turn.answer(result)
        if status == "ok":
            return True
        if status == "duplicate":
            self._note(
                "dropped-duplicate", result.id, "dropped a second result for an answered call"
            )
        else:
            self._note(
                "dropped-orphan", result.id, "dropped a tool result that answers no open call"
            )
        return False

    def _absorb(self, turn: _Turn, adapter: BlockAdapter, msg: Message) -> None:
        items = adapter.items(msg.raw)
        first = turn.result_raw is None
        if first:
            turn.result_raw = msg.raw
        kept_any = moved = False
        extra_before = len(turn.extra)
        results = {result.pos: result for result in msg.results}
        for pos, block in enumerate(items):
            result = results.get(pos)
            if result is None:
                turn.extra.append(block)
                kept_any = True
            elif self._take(turn, result):
                turn.result_blocks.append(block)
                kept_any = True
                moved = moved or len(turn.extra) > extra_before
            else:
                turn.changed = True
        if moved:
            self._note("moved-result", None, "moved tool results to the front of their message")
        if not first and kept_any:
            self._note("merged-results", None, "merged a second result message into the first")
        turn.changed = turn.changed or moved or not first

    def _close(
        self, closing: Message | None, synthesize: bool = True
    ) -> tuple[list[dict[str, Any]], bool]:
        """Emit the open turn; True when ``closing`` was merged into its result message."""
        turn = self._turn
        assert turn is not None
        self._turn = None
        open_slots = [s for s in turn.slots if not s.answered] if synthesize else []
        synthetic = [self._adapter.synthetic(s.call) for s in open_slots]
        for slot in open_slots:
            name = slot.call.name or "tool"
            self.changes.append(
                Change(
                    "closed-call",
                    slot.index,
                    slot.call.id,
                    f"closed the unanswered {name} call with a synthetic result",
                )
            )
        if not isinstance(self._adapter, BlockAdapter):
            return _placed(turn, open_slots, synthetic), False
        tail, consumed = self._result_message(turn, self._adapter, synthetic, closing)
        return turn.head + tail, consumed

    def _result_message(
        self,
        turn: _Turn,
        adapter: BlockAdapter,
        synthetic: list[dict[str, Any]],
        closing: Message | None,
    ) -> tuple[list[dict[str, Any]], bool]:
        if turn.result_raw is not None:
            if not turn.changed and not synthetic:
                return [dict(turn.result_raw)], False
            blocks = turn.result_blocks + synthetic + turn.extra
            return ([adapter.with_items(turn.result_raw, blocks)] if blocks else []), False
        if not synthetic:
            return [], False
        if closing is not None and closing.kind == "user" and self._adapter.merge_into_user:
            return [adapter.with_items(closing.raw, synthetic + adapter.items(closing.raw))], True
        return [adapter.result_message(synthetic)], False

    # -- wire specifics --------------------------------------------------------------------

    def _calls_last(self, raw: Mapping[str, Any], calls: tuple[Call, ...]) -> Mapping[str, Any]:
        """Anthropic: move blocks that follow a tool_use before the first tool_use."""
        adapter = self._adapter
        assert isinstance(adapter, BlockAdapter)
        items = adapter.items(raw)
        if len(items) - calls[0].pos == len(calls):  # nothing but calls from the first call on
            return raw
        self._note(
            "moved-content", None, "moved content that followed a tool_use before the tool calls"
        )
        is_call = [adapter.block_call(b, p) is not None for p, b in enumerate(items)]
        ordered = [b for b, c in zip(items, is_call, strict=True) if not c]
        ordered += [b for b, c in zip(items, is_call, strict=True) if c]
        return adapter.with_items(raw, ordered)

    def _merge_pending(self, raw: Mapping[str, Any]) -> Mapping[str, Any]:
        """Gemini: fold the model contents just before a call turn into it."""
        if not self._pending:
            return raw
        adapter = self._adapter
        assert isinstance(adapter, BlockAdapter)
        parts: list[Any] = []
        for index, pending in self._pending:
            parts += adapter.items(pending)
            self.changes.append(
                Change(
                    "merged-turns",
                    index,
                    None,
                    "merged a model content into the function call turn after it",
                )
            )
        self._pending = []
        return adapter.with_items(raw, parts + adapter.items(raw))

    def _flush_pending(self) -> list[dict[str, Any]]:
        out = [dict(raw) for _, raw in self._pending]
        self._pending = []
        return out

    def _note(self, kind: str, call_id: str | None, detail: str) -> None:
        self.changes.append(Change(kind, self._index, call_id, detail))


def _placed(
    turn: _Turn, open_slots: list[_Slot], synthetic: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Record wires: the turn's records with the synthetic results after the real ones and
    before any later item (Responses), but never before the call they answer."""
    body = turn.head + turn.outputs
    if not synthetic:
        return body
    boundary = len(turn.head) + (turn.late if turn.late >= 0 else len(turn.outputs))
    inserts: dict[int, list[dict[str, Any]]] = {}
    for slot, record in zip(open_slots, synthetic, strict=True):
        inserts.setdefault(max(boundary, slot.at + 1), []).append(record)
    out: list[dict[str, Any]] = []
    for position, record in enumerate(body):
        out += inserts.get(position, ())
        out.append(record)
    return out + inserts.get(len(body), [])


#: keys the adapter reads (it found no content and no call in them) or that only label
_LABELS = frozenset({"role", "type", "id", "status", "name", "content", "tool_calls", "parts"})


def _bare(record: Mapping[str, Any]) -> bool:
    """Only what the adapter read and empty values: a record holding anything else (a
    ``message`` object of some other format, say) is not an empty assistant message."""
    return all(
        key in _LABELS or value is None or (isinstance(value, str | list | dict) and not value)
        for key, value in record.items()
    )


def repair(
    records: Sequence[Mapping[str, Any]] | Iterable[Mapping[str, Any]],
    wire: str,
    *,
    close_trailing: bool = True,
    continuation: bool = False,
) -> RepairResult:
    """Repair a history: pure, deterministic, idempotent; the input is never mutated."""
    stream = RepairStream(wire, close_trailing=close_trailing, continuation=continuation)
    out: list[dict[str, Any]] = []
    for record in records:
        out += stream.feed(record)
    out += stream.finish()
    return RepairResult(tuple(out), tuple(stream.changes))


def is_synthetic(item: Mapping[str, Any], wire: str) -> bool:
    """Is ``item`` (a result record, or a result block of a block wire) one the repair made?"""
    return isinstance(item, Mapping) and adapter_for(wire).is_synthetic(item)


def findings_for(
    records: Sequence[Mapping[str, Any]], wire: str, path: str, **options: bool
) -> list[Finding]:
    """The repair's report as findings (RPR rules); ``line`` is the 1-based record number."""
    from apc_tools.runtime.rules import CHANGE_RULES

    findings = []
    for change in repair(records, wire, **options).changes:
        rule = CHANGE_RULES[change.kind]
        where = f" (call {change.call_id})" if change.call_id else ""
        findings.append(
            rule.finding(
                path, f"record {change.index + 1}: {change.detail}{where}", change.index + 1
            )
        )
    return findings
