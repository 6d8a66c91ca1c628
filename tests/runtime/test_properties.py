"""Property tests: arbitrary histories with dropped, duplicated, reordered and orphaned items.

For every wire format hypothesis builds a history from random steps (user, assistant, system,
calls over a small id pool so ids get reused, results including ids no call made, empty
assistant messages), then damages it record by record (drop, duplicate, swap, and for block
wires merge two messages into one). The repair must never raise, its output must pass the
provider checker (when the history has a user record at all: without one, nothing is dropped
and the calls are closed, but no provider takes a history without a user message), repairing
twice must equal repairing once, the streaming repair must give the
same output, the input must not change, and every item that is not an orphan, a duplicate, a
leading item or an empty assistant message must be kept, in order (per kind of item: content,
calls, results). Examples per format: REPAIR_EXAMPLES (2,000 in CI, issue 3).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apc_tools.runtime import WIRES, RepairResult, RepairStream, check, is_synthetic, repair
from apc_tools.runtime.adapters import BlockAdapter, adapter_for
from tests.conftest import REPAIR_EXAMPLES
from tests.runtime_histories import build

IDS = st.sampled_from(["a", "b", "c"])
STEPS = st.one_of(
    st.just(("user", "u")),
    st.just(("assistant", "t")),
    st.just(("system", "s")),
    st.just(("empty",)),
    st.tuples(st.just("call"), st.lists(IDS, min_size=1, max_size=3)),
    st.tuples(
        st.just("result"), st.lists(st.sampled_from(["a", "b", "c", "x"]), min_size=1, max_size=3)
    ),
)
OPS = st.lists(
    st.tuples(st.sampled_from(["drop", "dup", "swap", "merge"]), st.integers(0, 30)), max_size=4
)

Atom = tuple[int, str, Any, str]


def _damage(wire: str, records: list[dict[str, Any]], ops: list[tuple[str, int]]) -> None:
    adapter = adapter_for(wire)
    for op, at in ops:
        if len(records) < 2:
            return
        i = at % (len(records) - 1)
        if op == "drop":
            del records[i]
        elif op == "dup":
            records.insert(i, copy.deepcopy(records[i]))
        elif op == "swap":
            records[i], records[i + 1] = records[i + 1], records[i]
        elif isinstance(adapter, BlockAdapter) and records[i].get("role") == records[i + 1].get(
            "role"
        ):
            merged = adapter.items(records[i]) + adapter.items(records[i + 1])
            records[i : i + 2] = [adapter.with_items(records[i], copy.deepcopy(merged))]


def _atoms(wire: str, records: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> list[Atom]:
    adapter = adapter_for(wire)
    out: list[Atom] = []
    for index, record in enumerate(records):
        msg = adapter.parse(record)
        if not isinstance(adapter, BlockAdapter):
            kind = "call" if msg.calls else "result" if msg.results else "content"
            ident = msg.results[0].id if msg.results else None
            out.append((index, kind, ident, json.dumps(record, sort_keys=True)))
            continue
        calls = {c.pos for c in msg.calls}
        results = {r.pos: r.id for r in msg.results}
        for pos, block in enumerate(adapter.items(record)):
            kind = "call" if pos in calls else "result" if pos in results else "content"
            if kind == "result" and is_synthetic(block, wire):
                kind = "synthetic"
            out.append((index, kind, results.get(pos), json.dumps(block, sort_keys=True)))
    return out


def _expected(wire: str, history: list[dict[str, Any]], result: RepairResult) -> list[Atom]:
    atoms = _atoms(wire, history)
    for change in result.changes:
        if change.kind in ("dropped-leading", "dropped-empty"):
            atoms = [a for a in atoms if a[0] != change.index]
        elif change.kind in ("dropped-orphan", "dropped-duplicate"):
            at = [k for k, a in enumerate(atoms) if a[0] == change.index and a[1] == "result"]
            at = [k for k in at if atoms[k][2] == change.call_id] or at
            del atoms[at[-1]]
    return atoms


def _kept_in_order(wire: str, history: list[dict[str, Any]], result: RepairResult) -> None:
    expected = _expected(wire, history, result)
    got = _atoms(wire, result.records)
    if not isinstance(adapter_for(wire), BlockAdapter):
        got = [
            a for a in got if not (a[1] == "result" and is_synthetic(result.records[a[0]], wire))
        ]
    for kind in ("content", "call", "result"):
        assert [a[3] for a in got if a[1] == kind] == [a[3] for a in expected if a[1] == kind], kind


def _stream(
    wire: str, history: list[dict[str, Any]], live: bool
) -> tuple[list[dict[str, Any]], list[Any]]:
    stream = RepairStream(wire, close_trailing=not live)
    out: list[dict[str, Any]] = []
    for record in history:
        out += stream.feed(record)
    return out + stream.finish(), stream.changes


@pytest.mark.parametrize("wire", WIRES)
@settings(max_examples=REPAIR_EXAMPLES)
@given(steps=st.lists(STEPS, max_size=14), ops=OPS, live=st.booleans())
def test_repair_properties(
    wire: str, steps: list[tuple[Any, ...]], ops: list[tuple[str, int]], live: bool
) -> None:
    """``live`` leaves a trailing open turn open (close_trailing=False / live_tail=True)."""
    history = build(wire, *steps)
    _damage(wire, history, ops)
    before = copy.deepcopy(history)
    result = repair(history, wire, close_trailing=not live)
    assert history == before
    if any(adapter_for(wire).parse(r).kind == "user" for r in history):
        assert check(result.records, wire, live_tail=live) == ()
    again = repair(result.records, wire, close_trailing=not live)
    assert again.records == result.records and again.changes == ()
    streamed, changes = _stream(wire, history, live)
    assert tuple(streamed) == result.records and tuple(changes) == result.changes
    _kept_in_order(wire, history, result)
