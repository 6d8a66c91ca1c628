"""OpenAI Responses API ``input[]`` items.

Calls are items of their own (``function_call``, ``custom_tool_call``, ``shell_call``, ...) with a
``call_id``; each is answered by an output item (``function_call_output``, ...) with the same
``call_id`` that must come after it. Reasoning items, assistant messages and hosted (server) tool
items belong to the model's output and pass through untouched; so do ``tool_search_call`` and
``tool_search_output`` unless they say ``execution: "client"`` (the server answers a hosted search).

Synthetic outputs: ``{"type": <output type>, "call_id": ..., "output": SYNTHETIC_TEXT}``. The
Responses API has no error flag on outputs, so the text alone says what happened. Types whose
output has another shape get the nearest honest form: ``apply_patch_call_output`` adds
``status: "failed"``, ``program_output`` carries the text in ``result`` with
``status: "incomplete"``, ``tool_search_output`` an empty ``tools`` list. Only the
``function_call`` and ``custom_tool_call`` shapes are verified against recorded traffic.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apc_tools.runtime.adapters.base import Adapter, nonempty
from apc_tools.runtime.model import SYNTHETIC_TEXT, Call, Message, Result, text_id

#: call item type -> output item type (openai-agents-python ``_TOOL_CALL_TO_OUTPUT_TYPE``).
OUTPUT_FOR = {
    "function_call": "function_call_output",
    "custom_tool_call": "custom_tool_call_output",
    "shell_call": "shell_call_output",
    "apply_patch_call": "apply_patch_call_output",
    "computer_call": "computer_call_output",
    "local_shell_call": "local_shell_call_output",
    "tool_search_call": "tool_search_output",
    "program": "program_output",
}
OUTPUT_TYPES = frozenset(OUTPUT_FOR.values())

#: items the model (or the server on its behalf) produced that are not client calls.
MODEL_TYPES = frozenset(
    {
        "reasoning",
        "web_search_call",
        "file_search_call",
        "code_interpreter_call",
        "image_generation_call",
        "mcp_call",
        "mcp_list_tools",
        "mcp_approval_request",
        "hosted_tool_call",
    }
)

_TOOL_SEARCH = frozenset({"tool_search_call", "tool_search_output"})
_ROLE_KIND = {"user": "user", "system": "system", "developer": "system"}


def _message(raw: Mapping[str, Any]) -> Message:
    role = raw.get("role")
    if role in _ROLE_KIND:
        return Message("system" if role != "user" else "user", raw, content=True)
    if role == "assistant":
        return Message("assistant", raw, content=nonempty(raw.get("content")))
    return Message("other", raw, content=True)


class OpenAIResponses(Adapter):
    wire = "openai-responses"
    late_outputs = True

    def parse(self, raw: Mapping[str, Any]) -> Message:
        kind = raw.get("type")
        server = kind in _TOOL_SEARCH and raw.get("execution") != "client"
        if kind is None or kind == "message":
            return _message(raw)
        if kind in OUTPUT_FOR and not server:
            call_id = text_id(raw.get("call_id"))
            return Message(
                "assistant", raw, calls=(Call(call_id, text_id(raw.get("name")), -1, kind),)
            )
        if kind in OUTPUT_TYPES and not server:
            return Message("tool", raw, results=(Result(text_id(raw.get("call_id")), None),))
        if kind in MODEL_TYPES or kind in OUTPUT_FOR or kind in OUTPUT_TYPES:
            return Message("assistant", raw, content=True)
        return Message("other", raw, content=True)

    def synthetic(self, call: Call) -> dict[str, Any]:
        kind = OUTPUT_FOR.get(call.type, "function_call_output")
        record: dict[str, Any] = {"type": kind}
        if call.id is not None:
            record["call_id"] = call.id
        if kind == "program_output":
            record.update(result=SYNTHETIC_TEXT, status="incomplete")
        elif kind == "tool_search_output":
            record.update(execution="client", status="completed", tools=[])
        else:
            record["output"] = SYNTHETIC_TEXT
            if kind == "apply_patch_call_output":
                record["status"] = "failed"
        return record

    def is_synthetic(self, item: Mapping[str, Any]) -> bool:
        return item.get("type") in OUTPUT_TYPES and SYNTHETIC_TEXT in (
            item.get("output"),
            item.get("result"),
        )
