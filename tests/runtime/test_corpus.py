"""Real recorded histories (../shared/corpus/transcripts): parse, detect, round-trip, repair.

Accepted requests (HTTP 2xx) pass the checker and come out of the repair unchanged, byte for
byte once serialised, except where the repair is deliberately stricter than the provider (an
Anthropic history that begins with assistant messages: the repair starts at the first user
message). Rejected requests and Agents SDK RunState files (interrupted runs) repair into
histories that pass the checker.
"""

from __future__ import annotations

import json

import pytest

from apc_tools.runtime import check, detect_wire, repair
from tests.conftest import TRANSCRIPTS, needs_shared
from tests.runtime_corpus import FOLDERS, Recorded, all_recorded

RECORDED = all_recorded()
ACCEPTED = [r for r in RECORDED if r.accepted]
BROKEN = [r for r in RECORDED if not r.accepted]


def _ids(items: list[Recorded]) -> list[str]:
    return [f"{r.wire}:{r.name[-60:]}" for r in items]


def test_corpus_present_in_every_wire() -> None:
    needs_shared(TRANSCRIPTS)
    assert {r.wire for r in RECORDED} == {
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "bedrock",
    }
    assert len(FOLDERS) == 5 and len(RECORDED) >= 60


def _text_only(content: object) -> bool:
    if isinstance(content, str):
        return True
    blocks = content if isinstance(content, list) else [None]
    return all(isinstance(b, dict) and set(b) == {"type", "text"} for b in blocks)


def _plain(r: Recorded) -> bool:
    """Only role + text content: valid OpenAI chat and Anthropic (often Responses) input alike."""
    return all(set(m) <= {"role", "content"} and _text_only(m.get("content")) for m in r.records)


@pytest.mark.parametrize("rec", RECORDED, ids=_ids(RECORDED))
def test_recorded_history_detected(rec: Recorded) -> None:
    if _plain(rec):
        assert detect_wire(rec.records) == "openai-chat"  # documented default
    else:
        assert detect_wire(rec.records) == rec.wire


@pytest.mark.parametrize("rec", ACCEPTED, ids=_ids(ACCEPTED))
def test_accepted_history_passes_check_and_round_trips(rec: Recorded) -> None:
    assert check(rec.records, rec.wire, continuation=rec.continuation) == ()
    result = repair(rec.records, rec.wire, continuation=rec.continuation)
    if any(c.kind != "dropped-leading" for c in result.changes) or not result.changes:
        assert result.changes == ()
        assert json.dumps(result.records) == json.dumps(rec.records)
    else:  # stricter than Anthropic about where a history starts: only leading items go
        kept = len(result.records)
        assert result.records == tuple(rec.records[-kept:])


@pytest.mark.parametrize("rec", BROKEN, ids=_ids(BROKEN))
def test_broken_history_repairs_into_a_valid_one(rec: Recorded) -> None:
    result = repair(rec.records, rec.wire, continuation=rec.continuation)
    assert check(result.records, rec.wire) == ()
    assert repair(result.records, rec.wire).records == result.records


def _find(fragment: str) -> Recorded:
    return next(r for r in RECORDED if fragment in r.name)


def test_anthropic_400_is_explained_in_the_providers_words() -> None:
    needs_shared(TRANSCRIPTS)
    rec = _find("rejects-malformed-assistant-tool-order-without-patch")
    assert rec.status == 400
    messages = [v.message for v in check(rec.records, rec.wire)]
    assert len(messages) == 1
    assert (
        "`tool_use` ids were found without `tool_result` blocks immediately after: call_1"
        in (messages[0])
    )


def test_runstate_pending_approval_is_a_live_frontier() -> None:
    needs_shared(TRANSCRIPTS)
    rec = _find("v1_13_pending_tool_approval")
    assert [v.rule for v in check(rec.records, rec.wire)] == ["WIR001"]
    assert check(rec.records, rec.wire, live_tail=True) == ()
    left_open = repair(rec.records, rec.wire, close_trailing=False)
    assert left_open.records == tuple(rec.records) and left_open.changes == ()
    closed = repair(rec.records, rec.wire)
    assert [(c.kind, c.call_id) for c in closed.changes] == [
        ("closed-call", "historical-approval-1")
    ]


def test_runstate_orphan_output_is_dropped() -> None:
    needs_shared(TRANSCRIPTS)
    rec = _find("v1_11_tool_output_custom_data")
    assert [(c.kind, c.call_id) for c in repair(rec.records, rec.wire).changes] == [
        ("dropped-orphan", "custom-data-1")
    ]


def test_conversation_continuation_output_is_kept() -> None:
    needs_shared(TRANSCRIPTS)
    rec = _find("conversation_id_tool_call_continuation.yaml#2")
    assert rec.continuation and rec.accepted
    assert [v.rule for v in check(rec.records, rec.wire)] == ["WIR002"]
    assert check(rec.records, rec.wire, continuation=True) == ()
