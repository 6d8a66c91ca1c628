"""OpenAI Chat Completions ``messages[]``.

An assistant message carries ``tool_calls[{id, type, function: {name, arguments}}]``; each call
is answered by one ``{"role": "tool", "tool_call_id", "content"}`` message, immediately after the
assistant message. There is no error flag: a synthetic result says what happened in ``content``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apc_tools.runtime.adapters.base import Adapter, nonempty
from apc_tools.runtime.model import SYNTHETIC_TEXT, Call, Message, Result, text_id

_CONTENT_KEYS = ("content", "function_call", "refusal", "audio")


def _has_content(raw: Mapping[str, Any]) -> bool:
    """Anything besides calls: any of ``_CONTENT_KEYS`` (spelt out: this runs per record)."""
    get = raw.get
    return (
        nonempty(get("content"))
        or nonempty(get("function_call"))
        or nonempty(get("refusal"))
        or nonempty(get("audio"))
    )


def _calls(raw: Mapping[str, Any]) -> tuple[Call, ...]:
    tool_calls = raw.get("tool_calls")
    if not isinstance(tool_calls, list) or not tool_calls:
        return ()
    calls = []
    for pos, entry in enumerate(tool_calls):
        if not isinstance(entry, dict):
            continue
        function = entry.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        calls.append(Call(text_id(entry.get("id")), text_id(name), pos, "function"))
    return tuple(calls)


class OpenAIChat(Adapter):
    wire = "openai-chat"

    def parse(self, raw: Mapping[str, Any]) -> Message:
        role = raw.get("role")
        if role == "user":
            return Message("user", raw, (), (), True)
        if role == "assistant":
            return Message("assistant", raw, _calls(raw), (), _has_content(raw))
        if role == "tool":
            result = Result(text_id(raw.get("tool_call_id")), text_id(raw.get("name")))
            return Message("tool", raw, (), (result,), False)
        if role in ("system", "developer"):
            return Message("system", raw, (), (), True)
        return Message("other", raw, (), (), True)

    def synthetic(self, call: Call) -> dict[str, Any]:
        record: dict[str, Any] = {"role": "tool"}
        if call.id is not None:
            record["tool_call_id"] = call.id
        record["content"] = SYNTHETIC_TEXT
        return record

    def is_synthetic(self, item: Mapping[str, Any]) -> bool:
        return item.get("role") == "tool" and item.get("content") == SYNTHETIC_TEXT
