"""Anthropic Messages ``messages[]``.

``tool_use{id, name, input}`` blocks live in an assistant message; the next message must be a
user message that begins with one ``tool_result{tool_use_id, content, is_error?}`` per tool_use.
Server tools (``server_tool_use``, ``web_search_tool_result``, ``mcp_tool_use``,
``mcp_tool_result``, ...) are answered inside the assistant turn by the server and pass through as
plain content. ``content`` may be a string (one text block).

Synthetic result block: ``{"type": "tool_result", "tool_use_id": ..., "content": SYNTHETIC_TEXT,
"is_error": true}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apc_tools.runtime.adapters.base import BlockAdapter, nonempty
from apc_tools.runtime.model import SYNTHETIC_TEXT, Call, Kind, Message, Result, text_id


def _type(block: Any) -> Any:
    return block.get("type") if isinstance(block, dict) else None


class Anthropic(BlockAdapter):
    wire = "anthropic"
    merge_into_user = True
    calls_last = True

    def text_block(self, text: str) -> dict[str, Any]:
        return {"type": "text", "text": text}

    def block_call(self, block: Any, pos: int) -> Call | None:
        if _type(block) != "tool_use":
            return None
        return Call(text_id(block.get("id")), text_id(block.get("name")), pos, "tool_use")

    def block_result(self, block: Any, pos: int) -> Result | None:
        if _type(block) != "tool_result":
            return None
        return Result(text_id(block.get("tool_use_id")), None, pos)

    def parse(self, raw: Mapping[str, Any]) -> Message:
        role = raw.get("role")
        value = raw.get("content")
        if role == "assistant":
            return self._assistant(raw, value)
        if role == "user":
            return self._user(raw, value)
        if role == "system":
            return Message("system", raw, content=nonempty(value))
        return Message("other", raw, content=True)

    def _assistant(self, raw: Mapping[str, Any], value: Any) -> Message:
        if not isinstance(value, list):
            return Message("assistant", raw, content=isinstance(value, str) and value != "")
        calls, content = [], False
        for pos, block in enumerate(value):
            if isinstance(block, dict) and block.get("type") == "tool_use":
                calls.append(
                    Call(text_id(block.get("id")), text_id(block.get("name")), pos, "tool_use")
                )
            else:
                content = True
        return Message("assistant", raw, tuple(calls), (), content)

    def _user(self, raw: Mapping[str, Any], value: Any) -> Message:
        if not isinstance(value, list):
            return Message("user", raw, content=isinstance(value, str) and value != "")
        results, content = [], False
        for pos, block in enumerate(value):
            if isinstance(block, dict) and block.get("type") == "tool_result":
                results.append(Result(text_id(block.get("tool_use_id")), None, pos))
            else:
                content = True
        kind: Kind = "tool" if results and not content else "user"
        return Message(kind, raw, (), tuple(results), content)

    def synthetic(self, call: Call) -> dict[str, Any]:
        block: dict[str, Any] = {"type": "tool_result"}
        if call.id is not None:
            block["tool_use_id"] = call.id
        block.update(content=SYNTHETIC_TEXT, is_error=True)
        return block

    def is_synthetic(self, item: Mapping[str, Any]) -> bool:
        return (
            item.get("type") == "tool_result"
            and item.get("content") == SYNTHETIC_TEXT
            and item.get("is_error") is True
        )
