"""The public API of apc_tools.runtime: detection, bad input, streaming, findings, rules."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import apc_tools.runtime as runtime
from apc_tools.findings import Registry, Severity
from apc_tools.runtime import (
    SYNTHETIC_TEXT,
    WIRES,
    BadRecord,
    RepairStream,
    UnknownWire,
    check,
    detect_wire,
    is_synthetic,
    repair,
)
from apc_tools.runtime.conformance import findings_for as check_findings
from apc_tools.runtime.repair import findings_for as repair_findings
from apc_tools.runtime.rules import CHANGE_RULES, RULES
from tests.runtime_histories import build

U = ("user", "question")
U2 = ("user", "next")
A = ("assistant", "answer")
CASES = Path(__file__).resolve().parents[1] / "cases"


def test_library_imports_neither_click_nor_git() -> None:
    code = (
        "import sys, apc_tools.runtime, apc_tools.runtime.rules\n"
        "heavy = ('click', 'git', 'ruamel.yaml', 'jsonschema')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_public_names() -> None:
    assert WIRES == ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")
    assert SYNTHETIC_TEXT == "not run: the turn was interrupted"
    for name in (
        "repair",
        "check",
        "detect_wire",
        "RepairStream",
        "RepairResult",
        "Change",
        "Violation",
        "UnknownWire",
        "WIRES",
        "SYNTHETIC_TEXT",
    ):
        assert name in runtime.__all__
    assert issubclass(UnknownWire, ValueError) and issubclass(BadRecord, ValueError)


@pytest.mark.parametrize("wire", WIRES)
def test_detect_wire_on_tool_histories(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]), A)
    assert detect_wire(history) == wire


def test_detect_wire_says_what_was_expected() -> None:
    with pytest.raises(UnknownWire, match="expected a list of OpenAI chat messages"):
        detect_wire([{"speaker": "bob", "said": "hi"}])
    with pytest.raises(UnknownWire, match="empty"):
        detect_wire([])
    with pytest.raises(UnknownWire, match="openai-chat, openai-responses"):
        repair([], "slack")


def test_detect_wire_looks_only_at_the_first_records() -> None:
    turn = build("anthropic", U, ("call", ["a"]), ("result", ["a"]))
    history = turn * 20 + build("openai-chat", ("call", ["a"])) * 5
    assert len(history) == 65
    assert detect_wire(history) == "anthropic"


@pytest.mark.parametrize("bad", [["not", "a", "dict"], "text", 3, None])
def test_a_record_that_is_not_an_object_names_its_index(bad: Any) -> None:
    history: list[Any] = [{"role": "user", "content": "hi"}, bad]
    for call in (
        lambda: repair(history, "openai-chat"),
        lambda: check(history, "anthropic"),
        lambda: detect_wire(history),
    ):
        with pytest.raises(BadRecord, match="record 1 "):
            call()
    stream = RepairStream("gemini")
    stream.feed({"role": "user", "parts": [{"text": "hi"}]})
    with pytest.raises(BadRecord) as info:
        stream.feed(bad)
    assert info.value.index == 1


@pytest.mark.parametrize("wire", WIRES)
def test_unknown_roles_pass_through_unchanged(wire: str) -> None:
    odd = {"role": "narrator", "content": "meanwhile", "x-extra": [1, 2]}
    history = [*build(wire, U), odd, *build(wire, A)]
    result = repair(history, wire)
    assert result.records == tuple(history) and result.changes == ()


@pytest.mark.parametrize("wire", WIRES)
def test_an_unknown_record_closes_an_open_turn(wire: str) -> None:
    odd = {"role": "narrator", "content": "meanwhile"}
    history = [*build(wire, U, ("call", ["a"])), odd]
    result = repair(history, wire)
    assert result.records[-1] == odd
    assert [c.kind for c in result.changes] == ["closed-call"]


GARBAGE: dict[str, list[dict[str, Any]]] = {
    "openai-chat": [
        {"role": "assistant", "tool_calls": "oops"},
        {"role": "assistant", "tool_calls": [None, {"function": 3}]},
        {"role": "tool"},
        {"content": "no role"},
    ],
    "openai-responses": [
        {"type": "function_call"},
        {"type": "function_call_output", "call_id": 7},
        {"type": "weird_item"},
    ],
    "anthropic": [
        {"role": "assistant", "content": 5},
        {"role": "assistant", "content": [None, "x", {"type": "tool_use"}]},
        {"role": "user", "content": [{"type": "tool_result"}, 3]},
    ],
    "gemini": [
        {"role": "model", "parts": None},
        {"role": "model", "parts": [{"functionCall": {}}, 4]},
        {"parts": [{"functionResponse": "no"}, {"functionResponse": {}}]},
    ],
    "bedrock": [
        {"role": "assistant", "content": [{"toolUse": None}, {"toolUse": {}}]},
        {"role": "user", "content": [{"toolResult": {"content": 3}}]},
        {"role": "user"},
    ],
}


@pytest.mark.parametrize("wire", WIRES)
def test_malformed_records_never_raise(wire: str) -> None:
    history = [*build(wire, U), *GARBAGE[wire], *build(wire, A)]
    before = copy.deepcopy(history)
    result = repair(history, wire)
    assert history == before
    assert repair(result.records, wire).records == result.records
    check(history, wire)
    assert check(result.records, wire) == ()


@pytest.mark.parametrize("wire", ["openai-chat", "openai-responses"])
def test_calls_and_results_without_ids_pair_in_order(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]))
    key = "tool_call_id" if wire == "openai-chat" else "call_id"
    if wire == "openai-chat":
        del history[1]["tool_calls"][0]["id"]
    else:
        del history[1]["call_id"]
    del history[2][key]
    result = repair(history, wire)
    assert result.records == tuple(history) and result.changes == ()


def test_gemini_responses_without_ids_match_by_name() -> None:
    history = build("gemini", U, ("call", ["a", "b"]), ("result", ["b"]))
    for part in (*history[1]["parts"], *history[2]["parts"]):
        next(iter(part.values())).pop("id")
    result = repair(history, "gemini")
    names = [p["functionResponse"]["name"] for p in result.records[2]["parts"]]
    assert names == ["f_b", "f_a"]
    assert check(result.records, "gemini") == ()


@pytest.mark.parametrize("wire", WIRES)
def test_stream_emits_a_turn_as_soon_as_it_closes(wire: str) -> None:
    stream = RepairStream(wire)
    emitted = [stream.feed(r) for r in build(wire, U, ("call", ["a"]), ("result", ["a"]), A)]
    assert len(emitted[0]) == 1  # the user message is final at once
    assert emitted[1] == [] and emitted[2] == []  # the open turn is held
    assert len(emitted[3]) >= 2  # closed by the assistant message: call, result (and it)
    assert stream.finish() == [] or wire == "gemini"


def test_stream_holds_only_the_open_turn() -> None:
    stream = RepairStream("openai-chat")
    out: list[dict[str, Any]] = []
    for n in range(2000):
        for record in build("openai-chat", U, ("call", [f"c{n}"]), ("result", [f"c{n}"]), A):
            out += stream.feed(record)
        assert len(out) == 4 * (n + 1)  # each turn is out once the next record closes it
    out += stream.finish()
    assert len(out) == 8000 and stream.changes == []


@pytest.mark.parametrize("wire", WIRES)
def test_output_records_are_new_dicts(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]))
    result = repair(history, wire)
    result.records[0]["role"] = "changed"
    assert history[0]["role"] != "changed"


@pytest.mark.parametrize("wire", WIRES)
def test_is_synthetic_recognises_only_repair_results(wire: str) -> None:
    result = repair(build(wire, U, ("call", ["a"]), U2, ("call", ["b"]), ("result", ["b"])), wire)
    flat: list[dict[str, Any]] = []
    for record in result.records:
        blocks = record.get("parts", record.get("content"))
        flat += [b for b in blocks if isinstance(b, dict)] if isinstance(blocks, list) else []
        flat.append(record)
    assert sum(is_synthetic(item, wire) for item in flat) == 1


def test_findings_for_repair_and_check() -> None:
    history = build("anthropic", ("result", ["x"]), U, ("call", ["a"]))
    found = repair_findings(history, "anthropic", "chat.json")
    assert [(f.rule, f.line, f.severity) for f in found] == [
        ("RPR002", 1, Severity.WARNING),  # a leading result answers nothing: an orphan
        ("RPR001", 3, Severity.WARNING),
    ]
    assert "call a" in found[1].message and found[1].path == "chat.json"
    violations = check_findings(history, "anthropic", "chat.json")
    assert [(f.rule, f.line, f.severity) for f in violations] == [
        ("WIR002", 1, Severity.ERROR),
        ("WIR001", 3, Severity.ERROR),
    ]


def test_rules_are_registered_and_cover_every_change_kind() -> None:
    assert len(Registry.of(RULES)) == len(RULES)  # ids well-formed and unique
    kinds = {
        "closed-call",
        "dropped-orphan",
        "dropped-duplicate",
        "dropped-leading",
        "moved-result",
        "dropped-empty",
        "merged-results",
        "moved-content",
        "merged-turns",
    }
    assert set(CHANGE_RULES) == kinds
    assert all(rule.severity != Severity.ERROR for rule in CHANGE_RULES.values())
    assert all(rule.severity == Severity.ERROR for rule in RULES if rule.id.startswith("WIR"))


@pytest.mark.parametrize("wire", WIRES)
def test_untouched_records_keep_unknown_keys_and_key_order(wire: str) -> None:
    history = build(wire, U, ("call", ["a"]), ("result", ["a"]), A, U2, ("call", ["b"]))
    for record in history:
        record["x-meta"] = {"kept": True}
        record.setdefault("zz-last", 1)
    result = repair(history, wire)
    untouched = len(history)
    assert [json.dumps(r) for r in result.records[:untouched]] == [json.dumps(r) for r in history]


@pytest.mark.parametrize("wire", ["anthropic", "bedrock", "gemini"])
def test_a_changed_message_keeps_its_other_keys_and_blocks(wire: str) -> None:
    key = "parts" if wire == "gemini" else "content"
    history = build(wire, U, ("call", ["a", "b"]), ("result", ["a"]))
    history[2]["x-meta"] = 1
    history[2][key][0]["x-block"] = 2
    result = repair(history, wire)
    changed = result.records[2]
    assert list(changed) == list(history[2]) and changed["x-meta"] == 1
    assert changed[key][0] == history[2][key][0]
    assert is_synthetic(changed[key][1], wire)
