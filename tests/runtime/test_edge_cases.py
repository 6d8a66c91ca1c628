"""The 20 edge cases of history-repair-prior-art.md section 5, each in every wire it applies to.

Every test builds a real wire history, repairs it, and asserts the shape of the output, the
report, that the output passes the provider checker and that repairing again changes nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from apc_tools.runtime import SYNTHETIC_TEXT, WIRES, RepairResult, check, repair
from tests.runtime_histories import BLOCK_WIRES, SYSTEM_WIRES, build, view

U = ("user", "question")
U2 = ("user", "next question")
A = ("assistant", "answer")


def repaired(wire: str, records: list[dict[str, Any]], **options: bool) -> RepairResult:
    """Repair, and hold the invariants every test relies on."""
    before = copy.deepcopy(records)
    result = repair(records, wire, **options)
    assert records == before, "repair mutated its input"
    live = {"live_tail": not options.get("close_trailing", True)}
    live["continuation"] = options.get("continuation", False)
    assert check(result.records, wire, **live) == ()
    again = repair(result.records, wire, **options)
    assert again.records == result.records and again.changes == ()
    return result


def kinds(result: RepairResult) -> list[tuple[str, int, str | None]]:
    return [(c.kind, c.index, c.call_id) for c in result.changes]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_01_dangling_tail(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("call", ["a", "b"])))
    assert view(wire, result.records) == [("user",), ("call", ["a", "b"]), ("result", ["a*", "b*"])]
    # the index is the input position of the record holding the call (one item per call in
    # the Responses API)
    b_index = 2 if wire == "openai-responses" else 1
    assert kinds(result) == [("closed-call", 1, "a"), ("closed-call", b_index, "b")]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_02_dangling_mid_history(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("call", ["a"]), U2, A))
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a"]),
        ("result", ["a*"]),
        ("user",),
        ("assistant",),
    ]
    assert kinds(result) == [("closed-call", 1, "a")]


@pytest.mark.parametrize("wire", ["anthropic", "bedrock"])
def test_edge_02_synthetic_results_merge_into_the_next_user_message(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("call", ["a"]), U2))
    assert len(result.records) == 3
    blocks = result.records[2]["content"]
    assert len(blocks) == 2 and blocks[1] == build(wire, U2)[0]["content"][0]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_03_parallel_calls_partly_answered(wire: str) -> None:
    history = build(wire, U, ("call", ["a", "b", "c"]), ("result", ["b"]), A)
    result = repaired(wire, history)
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a", "b", "c"]),
        ("result", ["b", "a*", "c*"]),
        ("assistant",),
    ]
    assert [c.call_id for c in result.changes] == ["a", "c"]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_04_orphan_result_dropped(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]), A, ("result", ["x"]), U2)
    result = repaired(wire, history)
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a"]),
        ("result", ["a"]),
        ("assistant",),
        ("user",),
    ]
    orphan_index = len(build(wire, U, ("call", ["a"]), ("result", ["a"]), A))
    assert kinds(result) == [("dropped-orphan", orphan_index, "x")]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_04_result_before_its_call_is_an_orphan(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("result", ["a"]), ("call", ["a"])))
    assert view(wire, result.records) == [("user",), ("call", ["a"]), ("result", ["a*"])]
    assert [c.kind for c in result.changes] == ["dropped-orphan", "closed-call"]


USER_FIRST = ["gemini", "bedrock"]  # the provider rejects a history not starting with a user turn


@pytest.mark.parametrize("wire", USER_FIRST)
def test_edge_05_history_starts_at_first_user(wire: str) -> None:
    history = build(
        wire, ("result", ["a"]), ("call", ["b"]), A, U, ("call", ["c"]), ("result", ["c"])
    )
    result = repaired(wire, history)
    assert view(wire, result.records) == [("user",), ("call", ["c"]), ("result", ["c"])]
    dropped = len(build(wire, ("result", ["a"]), ("call", ["b"]), A))
    assert [c.index for c in result.changes] == list(range(dropped))
    assert result.changes[0].kind == "dropped-orphan"  # a result: the orphan rule
    assert {c.kind for c in result.changes[1:]} == {"dropped-leading"}


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses", "anthropic"])
def test_edge_05_a_leading_call_is_never_dropped(wire: str) -> None:
    """The provider takes a history that starts with a call: the call is kept and closed; only
    the result that answers nothing goes, as an orphan."""
    history = build(
        wire, ("result", ["a"]), ("call", ["b"]), A, U, ("call", ["c"]), ("result", ["c"])
    )
    result = repaired(wire, history)
    late = wire == "openai-responses"  # a model turn is every model item before its outputs
    head = (
        [("call", ["b"]), ("assistant",), ("result", ["b*"])]
        if late
        else [
            ("call", ["b"]),
            ("result", ["b*"]),
            ("assistant",),
        ]
    )
    assert view(wire, result.records) == [*head, ("user",), ("call", ["c"]), ("result", ["c"])]
    assert [(c.kind, c.index) for c in result.changes] == [
        ("dropped-orphan", 0),
        ("closed-call", 1),
    ]
    assert check(result.records, wire) == ()


@pytest.mark.parametrize("wire", SYSTEM_WIRES)
def test_edge_05_system_items_before_the_first_user_are_kept(wire: str) -> None:
    result = repaired(wire, build(wire, ("system", "be brief"), A, U))
    assert view(wire, result.records) == [("system",), ("user",)]
    assert kinds(result) == [("dropped-leading", 1, None)]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_06_duplicate_results_keep_the_first(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]), ("result", ["a"]), A)
    first = build(wire, U, ("call", ["a"]))
    result = repaired(wire, history)
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a"]),
        ("result", ["a"]),
        ("assistant",),
    ]
    assert [c.kind for c in result.changes] == ["dropped-duplicate"]
    assert result.changes[0].index == len(first) + 1


@pytest.mark.parametrize("wire", BLOCK_WIRES)
def test_edge_06_duplicate_result_inside_one_message(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("call", ["a"]), ("result", ["a", "a"])))
    assert view(wire, result.records) == [("user",), ("call", ["a"]), ("result", ["a"])]
    assert kinds(result) == [("dropped-duplicate", 2, "a")]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_07_ids_reused_across_turns(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), U2, ("call", ["a"]), ("result", ["a"]))
    result = repaired(wire, history)
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a"]),
        ("result", ["a*"]),
        ("user",),
        ("call", ["a"]),
        ("result", ["a"]),
    ]
    assert kinds(result) == [("closed-call", 1, "a")]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_07_an_answer_in_an_earlier_turn_does_not_answer_a_later_call(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]), U2, ("call", ["a"]))
    result = repaired(wire, history)
    assert view(wire, result.records)[-1] == ("result", ["a*"])


@pytest.mark.parametrize("wire", WIRES)
def test_edge_08_duplicate_call_ids_in_one_message_are_distinct_calls(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("call", ["a", "a"]), ("result", ["a"])))
    assert view(wire, result.records) == [("user",), ("call", ["a", "a"]), ("result", ["a", "a*"])]
    assert [c.kind for c in result.changes] == ["closed-call"]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_09_result_separated_from_its_call(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), U2, ("result", ["a"]))
    result = repaired(wire, history)
    assert view(wire, result.records) == [("user",), ("call", ["a"]), ("result", ["a*"]), ("user",)]
    assert [c.kind for c in result.changes] == ["closed-call", "dropped-orphan"]


def test_edge_10_text_after_tool_use_in_one_anthropic_message() -> None:
    history = build("anthropic", U, ("call", ["a"]), ("result", ["a"]))
    history[1]["content"].append({"type": "text", "text": "retrying"})
    assert [v.rule for v in check(history, "anthropic")] == ["WIR005"]
    result = repaired("anthropic", history)
    assert [b["type"] for b in result.records[1]["content"]] == ["text", "tool_use"]
    assert kinds(result) == [("moved-content", 1, None)]


@pytest.mark.parametrize("wire", ["gemini", "bedrock"])
def test_edge_10_text_after_a_call_is_left_where_the_wire_accepts_it(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]))
    key = "parts" if wire == "gemini" else "content"
    history[1][key].append({"text": "retrying"})
    result = repaired(wire, history)
    assert result.records == tuple(history) and result.changes == ()


@pytest.mark.parametrize("wire", BLOCK_WIRES)
def test_edge_11_results_not_first_in_the_user_message(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]))
    key = "parts" if wire == "gemini" else "content"
    text = {"type": "text", "text": "and go on"} if wire == "anthropic" else {"text": "and go on"}
    history[2][key].insert(0, text)
    result = repaired(wire, history)
    assert result.records[2][key][-1] == text
    assert view(wire, result.records) == [("user",), ("call", ["a"]), ("result", ["a"]), ("user",)]
    assert kinds(result) == [("moved-result", 2, None)]


@pytest.mark.parametrize("wire", BLOCK_WIRES)
def test_edge_12_consecutive_result_messages_are_merged(wire: str) -> None:
    history = build(wire, U, ("call", ["a", "b"]), ("result", ["a"]), ("result", ["b"]), A)
    result = repaired(wire, history)
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a", "b"]),
        ("result", ["a", "b"]),
        ("assistant",),
    ]
    assert kinds(result) == [("merged-results", 3, None)]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_13_truncated_arguments_are_kept_verbatim_and_closed(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]))
    cut = '{"path": "/tm'
    call = history[1]
    if wire == "openai-chat":
        call["tool_calls"][0]["function"]["arguments"] = cut
    elif wire == "openai-responses":
        call["arguments"] = cut
    elif wire == "gemini":
        call["parts"][0]["functionCall"]["args"] = cut
    elif wire == "anthropic":
        call["content"][0]["input"] = cut
    else:
        call["content"][0]["toolUse"]["input"] = cut
    result = repaired(wire, history)
    assert result.records[1] == call
    assert view(wire, result.records)[-1] == ("result", ["a*"])


@pytest.mark.parametrize("wire", WIRES)
def test_edge_14_aborted_message_dropped_by_the_runtime_gets_no_results(wire: str) -> None:
    # The runtime drops its aborted assistant message before calling repair: nothing is added.
    kept = build(wire, U, ("call", ["a"]), ("result", ["a"]), A, U2)
    assert repaired(wire, kept).changes == ()
    # If it sends the aborted message, its calls are closed: never an orphan either way.
    sent = build(wire, U, ("call", ["a"]), ("result", ["a"]), A, U2, ("call", ["b"]))
    assert [c.call_id for c in repaired(wire, sent).changes] == ["b"]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_15_empty_assistant_message_dropped(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("empty",), U2, A))
    assert view(wire, result.records) == [("user",), ("user",), ("assistant",)]
    assert kinds(result) == [("dropped-empty", 1, None)]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_15_empty_assistant_inside_a_turn_does_not_close_it(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("empty",), ("result", ["a"]))
    result = repaired(wire, history)
    assert view(wire, result.records) == [("user",), ("call", ["a"]), ("result", ["a"])]


def _thinking(wire: str) -> dict[str, Any]:
    return {
        "openai-responses": {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [],
            "encrypted_content": "x",
        },
        "anthropic": {"type": "thinking", "thinking": "hmm", "signature": "sig"},
        "bedrock": {"reasoningContent": {"reasoningText": {"text": "hmm", "signature": "sig"}}},
        "gemini": {"text": "hmm", "thought": True},
    }[wire]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_16_reasoning_stays_with_its_call(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]))
    if wire == "openai-chat":  # DeepSeek-style reasoning on the assistant message
        history[1]["reasoning_content"] = "hmm"
    elif wire == "openai-responses":
        history.insert(1, _thinking(wire))
    else:
        history[1]["parts" if wire == "gemini" else "content"].insert(0, _thinking(wire))
    result = repaired(wire, history)
    assert result.records[: len(history)] == tuple(history)
    assert [c.kind for c in result.changes] == ["closed-call"]


@pytest.mark.parametrize("wire", ["openai-responses", "anthropic"])
def test_edge_16_leading_reasoning_stays_with_its_leading_call(wire: str) -> None:
    history = build(wire, ("call", ["a"]), ("result", ["a"]), U)
    if wire == "openai-responses":
        history.insert(0, _thinking(wire))
    else:
        history[0]["content"].insert(0, _thinking(wire))
    result = repaired(wire, history)
    assert result.records == tuple(history) and result.changes == ()


@pytest.mark.parametrize("wire", ["openai-responses", "openai-chat"])
def test_edge_16_leading_model_items_without_a_call_are_dropped_in_order(wire: str) -> None:
    history = build(wire, A, ("system", "be brief"), U) if wire == "openai-chat" else None
    if history is None:
        history = [_thinking(wire), {"role": "system", "content": "be brief"}, *build(wire, U)]
    result = repaired(wire, history)
    assert result.records == tuple(history[1:])
    assert [(c.kind, c.index) for c in result.changes] == [("dropped-leading", 0)]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_17_live_frontier_left_open_when_asked(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), U2, ("call", ["b"]))
    result = repaired(wire, history, close_trailing=False)
    assert view(wire, result.records) == [
        ("user",),
        ("call", ["a"]),
        ("result", ["a*"]),
        ("user",),
        ("call", ["b"]),
    ]
    assert check(result.records, wire, live_tail=True) == ()
    assert [v.rule for v in check(result.records, wire)] == ["WIR001"]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_17_partly_answered_live_turn_left_open(wire: str) -> None:
    history = build(wire, U, ("call", ["a", "b"]), ("result", ["a"]))
    result = repaired(wire, history, close_trailing=False)
    assert result.records == tuple(history) and result.changes == ()
    assert [v.rule for v in check(history, wire)] == ["WIR001"]


def test_edge_18_server_side_state_delta_is_kept() -> None:
    wire = "openai-responses"
    delta = build(wire, ("result", ["a"]), U)
    assert [v.rule for v in check(delta, wire)] == ["WIR002"]
    result = repaired(wire, delta, continuation=True)
    assert result.records == tuple(delta) and result.changes == ()
    assert [c.kind for c in repair(delta, wire).changes] == ["dropped-orphan"]


@pytest.mark.parametrize("wire", WIRES)
def test_edge_19_calls_are_never_removed_so_tool_definitions_stay_valid(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), U2, ("call", ["b"]), ("result", ["x"]))
    result = repaired(wire, history)
    calls = [step for step in view(wire, result.records) if step[0] == "call"]
    assert calls == [("call", ["a"]), ("call", ["b"])]


def _server_tools(wire: str) -> list[dict[str, Any]]:
    if wire == "anthropic":
        blocks = [
            {
                "type": "server_tool_use",
                "id": "srvtoolu_1",
                "name": "web_search",
                "input": {"q": "x"},
            },
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
            {"type": "text", "text": "found it"},
        ]
        return [{"role": "assistant", "content": blocks}]
    if wire == "openai-responses":
        return [
            {"type": "web_search_call", "id": "ws_1", "status": "completed", "action": {}},
            {"type": "tool_search_call", "execution": "server", "call_id": "ts_1", "arguments": {}},
            {"type": "tool_search_output", "execution": "server", "call_id": "ts_1", "tools": []},
            {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "ok"}],
            },
        ]
    parts = [
        {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
        {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1"}},
    ]
    return [{"role": "model", "parts": parts}]


@pytest.mark.parametrize("wire", ["anthropic", "openai-responses", "gemini"])
def test_edge_20_server_tools_untouched(wire: str) -> None:
    history = build(wire, U) + _server_tools(wire) + build(wire, U2)
    result = repaired(wire, history)
    assert result.records == tuple(history) and result.changes == ()


@pytest.mark.parametrize("wire", WIRES)
def test_synthetic_results_say_exactly_the_marker_text_and_flag_an_error(wire: str) -> None:
    result = repaired(wire, build(wire, U, ("call", ["a"])))
    synthetic = result.records[-1]
    expected = {
        "openai-chat": {"role": "tool", "tool_call_id": "a", "content": SYNTHETIC_TEXT},
        "openai-responses": {
            "type": "function_call_output",
            "call_id": "a",
            "output": SYNTHETIC_TEXT,
        },
        "anthropic": {
            "role": "user",
            "content": [
                {
                    "type": "tool_result",
                    "tool_use_id": "a",
                    "content": SYNTHETIC_TEXT,
                    "is_error": True,
                }
            ],
        },
        "gemini": {
            "role": "user",
            "parts": [
                {
                    "functionResponse": {
                        "id": "a",
                        "name": "f_a",
                        "response": {"error": SYNTHETIC_TEXT},
                    }
                }
            ],
        },
        "bedrock": {
            "role": "user",
            "content": [
                {
                    "toolResult": {
                        "toolUseId": "a",
                        "content": [{"text": SYNTHETIC_TEXT}],
                        "status": "error",
                    }
                }
            ],
        },
    }[wire]
    assert synthetic == expected


def test_bedrock_user_text_stays_after_the_synthetic_results() -> None:
    """docs/repair.md states this placement and why: the results first, then the user's own
    blocks, in the one user message (no turn is invented); text before results is what the
    checker reports (WIR004)."""
    text = {"text": "Never mind"}
    call = {"toolUse": {"toolUseId": "t1", "name": "ls", "input": {}}}
    history = [
        {"role": "user", "content": [{"text": "List the files"}]},
        {"role": "assistant", "content": [call]},
        {"role": "user", "content": [text]},
    ]
    result = repaired("bedrock", history)
    assert len(result.records) == 3
    first, second = result.records[2]["content"]
    assert "toolResult" in first and second == text
    swapped = {"role": "user", "content": [second, first]}
    assert [v.rule for v in check([*result.records[:2], swapped], "bedrock")] == ["WIR004"]


def test_responses_late_output_after_a_hosted_item_is_kept() -> None:
    """A web search (or reasoning) item between a sibling's output and a call's real, late
    output: the provider accepts it, and the repair keeps the real output (it used to close
    the call with a synthetic 'not run' output and drop the real one as an orphan)."""
    history: list[dict[str, Any]] = [
        {"role": "user", "content": "search, then patch"},
        {"type": "custom_tool_call", "call_id": "A", "name": "apply_patch", "input": "*"},
        {"type": "function_call", "call_id": "B", "name": "ls", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "B", "output": "a.txt"},
        {"type": "web_search_call", "id": "ws_1", "status": "completed"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "custom_tool_call_output", "call_id": "A", "output": "patched"},
        {"role": "user", "content": "thanks"},
    ]
    assert check(history, "openai-responses") == ()
    result = repair(history, "openai-responses")
    assert result.records == tuple(history) and result.changes == ()
    truncated = history[:6]  # the late output never came: closed after the real output
    result = repair(truncated, "openai-responses")
    assert [c.kind for c in result.changes] == ["closed-call"]
    assert [r.get("call_id") for r in result.records[3:5]] == ["B", "A"]
    assert result.records[4]["output"] == SYNTHETIC_TEXT
    assert check(result.records, "openai-responses") == ()


@pytest.mark.parametrize("wire", sorted(BLOCK_WIRES))
def test_live_frontier_ends_when_the_user_speaks_in_the_result_message(wire: str) -> None:
    """Found by the CI property profile: the last message holds only an orphan result and the
    user's text. The user spoke after the call, so even with close_trailing=False the call is
    closed (before the text), not left open."""
    records = build(wire, U, ("call", ["b"]), ("result", ["a"]))
    last = records[-1]
    key = "content" if "content" in last else "parts"
    text = {"text": "more"} if wire != "anthropic" else {"type": "text", "text": "more"}
    last[key] = [*last[key], text]
    result = repaired(wire, records, close_trailing=False)
    assert ("closed-call", 1, "b") in kinds(result)
    assert ("dropped-orphan", 2, "a") in kinds(result)
