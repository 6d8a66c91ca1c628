"""Build the same abstract history in every wire format, and read any repaired one back.

An abstract history is a list of steps:

* ``("user", text)``, ``("assistant", text)``, ``("system", text)``;
* ``("call", ids)`` one assistant message making one call per id (tool name ``f_<id>``);
* ``("result", ids)`` the results for ``ids``: one user message holding all of them (block wires)
  or one tool record each (record wires);
* ``("empty",)`` an assistant message with no content and no calls.

:func:`view` reads a history back into a wire-neutral shape so one expectation serves every wire:
``("user",)``, ``("assistant",)``, ``("system",)``, ``("call", ids)`` and ``("result", [id or
id + "*" when synthetic])``. Consecutive result records (record wires) and consecutive call items
(Responses) are grouped; a block-wire user message holding results and text reads as a
``result`` step followed by a ``user`` step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apc_tools.runtime import WIRES, is_synthetic
from apc_tools.runtime.adapters import BlockAdapter, adapter_for

Step = tuple[Any, ...]
Record = dict[str, Any]


def _chat(step: Step) -> list[Record]:
    kind = step[0]
    if kind in ("user", "assistant", "system"):
        return [{"role": kind, "content": step[1]}]
    if kind == "empty":
        return [{"role": "assistant", "content": None}]
    if kind == "call":
        calls = [
            {"id": i, "type": "function", "function": {"name": f"f_{i}", "arguments": "{}"}}
            for i in step[1]
        ]
        return [{"role": "assistant", "content": None, "tool_calls": calls}]
    return [{"role": "tool", "tool_call_id": i, "content": f"ok {i}"} for i in step[1]]


def _responses(step: Step) -> list[Record]:
    kind = step[0]
    if kind == "user":
        return [{"role": "user", "content": step[1]}]
    if kind == "system":
        return [{"role": "developer", "content": step[1]}]
    if kind == "assistant":
        text = [{"type": "output_text", "text": step[1]}]
        return [{"type": "message", "role": "assistant", "content": text}]
    if kind == "empty":
        return [{"type": "message", "role": "assistant", "content": []}]
    if kind == "call":
        return [
            {"type": "function_call", "call_id": i, "name": f"f_{i}", "arguments": "{}"}
            for i in step[1]
        ]
    return [{"type": "function_call_output", "call_id": i, "output": f"ok {i}"} for i in step[1]]


def _anthropic(step: Step) -> list[Record]:
    kind = step[0]
    if kind in ("user", "assistant", "system"):
        return [{"role": kind, "content": [{"type": "text", "text": step[1]}]}]
    if kind == "empty":
        return [{"role": "assistant", "content": []}]
    if kind == "call":
        uses = [{"type": "tool_use", "id": i, "name": f"f_{i}", "input": {}} for i in step[1]]
        return [{"role": "assistant", "content": uses}]
    results = [{"type": "tool_result", "tool_use_id": i, "content": f"ok {i}"} for i in step[1]]
    return [{"role": "user", "content": results}]


def _gemini(step: Step) -> list[Record]:
    kind = step[0]
    if kind in ("user", "system"):
        return [{"role": "user", "parts": [{"text": step[1]}]}]
    if kind == "assistant":
        return [{"role": "model", "parts": [{"text": step[1]}]}]
    if kind == "empty":
        return [{"role": "model", "parts": []}]
    if kind == "call":
        calls = [{"functionCall": {"id": i, "name": f"f_{i}", "args": {}}} for i in step[1]]
        return [{"role": "model", "parts": calls}]
    responses = [
        {"functionResponse": {"id": i, "name": f"f_{i}", "response": {"output": f"ok {i}"}}}
        for i in step[1]
    ]
    return [{"role": "user", "parts": responses}]


def _bedrock(step: Step) -> list[Record]:
    kind = step[0]
    if kind in ("user", "system"):
        return [{"role": "user", "content": [{"text": step[1]}]}]
    if kind == "assistant":
        return [{"role": "assistant", "content": [{"text": step[1]}]}]
    if kind == "empty":
        return [{"role": "assistant", "content": []}]
    if kind == "call":
        uses = [{"toolUse": {"toolUseId": i, "name": f"f_{i}", "input": {}}} for i in step[1]]
        return [{"role": "assistant", "content": uses}]
    results = [
        {"toolResult": {"toolUseId": i, "content": [{"text": f"ok {i}"}], "status": "success"}}
        for i in step[1]
    ]
    return [{"role": "user", "content": results}]


_BUILDERS = {
    "openai-chat": _chat,
    "openai-responses": _responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "bedrock": _bedrock,
}

#: wires whose message list has a system role of its own (Anthropic, Gemini and Bedrock keep
#: the system prompt outside the list).
SYSTEM_WIRES = ("openai-chat", "openai-responses")
BLOCK_WIRES = ("anthropic", "gemini", "bedrock")
RECORD_WIRES = ("openai-chat", "openai-responses")
assert set(_BUILDERS) == set(WIRES)


def build(wire: str, *steps: Step) -> list[Record]:
    out: list[Record] = []
    for step in steps:
        out += _BUILDERS[wire](step)
    return out


def _label(wire: str, item: Any, ident: str | None) -> str:
    return f"{ident}*" if is_synthetic(item, wire) else str(ident)


def _block_view(wire: str, record: Record) -> list[Step]:
    adapter = adapter_for(wire)
    assert isinstance(adapter, BlockAdapter)
    msg = adapter.parse(record)
    items = adapter.items(record)
    out: list[Step] = []
    if msg.calls:
        return [("call", [c.id for c in msg.calls])]
    if msg.results:
        out.append(("result", [_label(wire, items[r.pos], r.id) for r in msg.results]))
    if msg.content:
        out.append((msg.kind if msg.kind != "tool" else "user",))
    return out


def _record_view(wire: str, record: Record) -> Step:
    msg = adapter_for(wire).parse(record)
    if msg.calls:
        return ("call", [c.id for c in msg.calls])
    if msg.results:
        return ("result", [_label(wire, record, msg.results[0].id)])
    return (msg.kind,)


def view(wire: str, records: Sequence[Record]) -> list[Step]:
    """The wire-neutral shape of ``records`` (see the module docstring)."""
    if wire in BLOCK_WIRES:
        return [step for record in records for step in _block_view(wire, record)]
    out: list[Step] = []
    for record in records:
        step = _record_view(wire, record)
        grouped = step[0] == "result" or (step[0] == "call" and wire == "openai-responses")
        if out and grouped and out[-1][0] == step[0]:
            out[-1] = (step[0], [*out[-1][1], *step[1]])
            continue
        out.append(step)
    return out
