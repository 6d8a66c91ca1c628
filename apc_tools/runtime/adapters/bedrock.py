"""AWS Bedrock Converse ``messages[]``.

Blocks are one-key objects: ``{"text"}``, ``{"toolUse": {toolUseId, name, input}}`` in an
assistant message, ``{"toolResult": {toolUseId, content: [...], status}}`` in the next user
message, plus ``reasoningContent``, ``image``, ``document``, ...

Synthetic result block: ``{"toolResult": {"toolUseId": ..., "content": [{"text":
SYNTHETIC_TEXT}], "status": "error"}}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apc_tools.runtime.adapters.base import BlockAdapter
from apc_tools.runtime.model import SYNTHETIC_TEXT, Call, Result, text_id


def _inner(block: Any, key: str) -> dict[str, Any] | None:
    if isinstance(block, dict) and isinstance(block.get(key), dict):
        inner: dict[str, Any] = block[key]
        return inner
    return None


class Bedrock(BlockAdapter):
    wire = "bedrock"
    user_first = True
    merge_into_user = True

    def text_block(self, text: str) -> dict[str, Any]:
        return {"text": text}

    def block_call(self, block: Any, pos: int) -> Call | None:
        inner = _inner(block, "toolUse")
        if inner is None:
            return None
        return Call(text_id(inner.get("toolUseId")), text_id(inner.get("name")), pos, "toolUse")

    def block_result(self, block: Any, pos: int) -> Result | None:
        inner = _inner(block, "toolResult")
        if inner is None:
            return None
        return Result(text_id(inner.get("toolUseId")), None, pos)

    def synthetic(self, call: Call) -> dict[str, Any]:
        inner: dict[str, Any] = {}
        if call.id is not None:
            inner["toolUseId"] = call.id
        inner.update(content=[{"text": SYNTHETIC_TEXT}], status="error")
        return {"toolResult": inner}

    def is_synthetic(self, item: Mapping[str, Any]) -> bool:
        inner = _inner(item, "toolResult")
        return (
            inner is not None
            and inner.get("content") == [{"text": SYNTHETIC_TEXT}]
            and inner.get("status") == "error"
        )
