"""Google Gemini ``contents[]``.

A ``model`` content carries ``functionCall{name, args, id?}`` parts; the next content carries one
``functionResponse{name, id?, response}`` part per call, all in one content. ``id`` is optional:
without it a response is matched to its call by name, in order. Both the REST spelling
(``functionCall``) and the proto spelling (``function_call``) are read; a synthetic response uses
the spelling of its call. Older histories put responses in a content with ``role: "function"``;
a content without a role is a user content.

Synthetic response part: ``{"functionResponse": {"id"?: ..., "name": ..., "response": {"error":
SYNTHETIC_TEXT}}}`` (the ``error`` key is Gemini's way to report a failed call).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apc_tools.runtime.adapters.base import BlockAdapter
from apc_tools.runtime.model import SYNTHETIC_TEXT, Call, Result, text_id

_CALL = ("functionCall", "function_call")
_RESPONSE = ("functionResponse", "function_response")


def _inner(block: Any, keys: tuple[str, ...]) -> tuple[str, dict[str, Any]] | None:
    if not isinstance(block, dict) or "text" in block:
        return None
    for key in keys:
        inner = block.get(key)
        if isinstance(inner, dict):
            return key, inner
    return None


class Gemini(BlockAdapter):
    wire = "gemini"
    user_first = True
    fold_model_runs = True
    key = "parts"
    model_role = "model"
    user_roles = ("user", "function", None)

    def text_block(self, text: str) -> dict[str, Any]:
        return {"text": text}

    def block_call(self, block: Any, pos: int) -> Call | None:
        found = _inner(block, _CALL)
        if found is None:
            return None
        key, inner = found
        return Call(text_id(inner.get("id")), text_id(inner.get("name")), pos, "functionCall", key)

    def block_result(self, block: Any, pos: int) -> Result | None:
        found = _inner(block, _RESPONSE)
        if found is None:
            return None
        inner = found[1]
        return Result(text_id(inner.get("id")), text_id(inner.get("name")), pos)

    def synthetic(self, call: Call) -> dict[str, Any]:
        inner: dict[str, Any] = {}
        if call.id is not None:
            inner["id"] = call.id
        inner.update(name=call.name, response={"error": SYNTHETIC_TEXT})
        key = "function_response" if call.style == "function_call" else "functionResponse"
        return {key: inner}

    def is_synthetic(self, item: Mapping[str, Any]) -> bool:
        found = _inner(item, _RESPONSE)
        return found is not None and found[1].get("response") == {"error": SYNTHETIC_TEXT}
