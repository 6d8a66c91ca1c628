"""One adapter per wire format, and the detection of a history's wire format."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import Any

from apc_tools.runtime.adapters.base import Adapter, BlockAdapter
from apc_tools.runtime.adapters.openai_responses import (
    MODEL_TYPES,
    OUTPUT_FOR,
    OUTPUT_TYPES,
)
from apc_tools.runtime.model import WIRES, BadRecord, UnknownWire

__all__ = ["ADAPTERS", "DETECT_WINDOW", "Adapter", "BlockAdapter", "adapter_for", "detect_wire"]

#: wire -> (module of this package, adapter class). A module is imported when its wire is
#: first asked for: a run repairs one wire format, and every module costs its start.
_CLASSES = {
    "openai-chat": ("openai_chat", "OpenAIChat"),
    "openai-responses": ("openai_responses", "OpenAIResponses"),
    "anthropic": ("anthropic", "Anthropic"),
    "gemini": ("gemini", "Gemini"),
    "bedrock": ("bedrock", "Bedrock"),
}
_MADE: dict[str, Adapter] = {}

DETECT_WINDOW = 50
"""With ``--wire auto``, the wire format is judged from this many leading records (the only
such constant: the reader passes exactly these records and the error message counts them)."""

EXPECTED = (
    "expected a list of OpenAI chat messages (role + content, tool_calls, tool_call_id), "
    "OpenAI Responses items (type message/function_call/function_call_output/reasoning), "
    "Anthropic messages (content blocks typed text/tool_use/tool_result), "
    "Gemini contents (role user/model with parts) or Bedrock Converse messages "
    "(content blocks {text}/{toolUse}/{toolResult})"
)

_RESPONSES_TYPES = frozenset(OUTPUT_FOR) | OUTPUT_TYPES | MODEL_TYPES | {"message"}
_RESPONSES_BLOCKS = frozenset({"input_text", "output_text", "input_image", "input_file"})
_BEDROCK_KEYS = frozenset({"toolUse", "toolResult", "reasoningContent", "cachePoint"})


def adapter_for(wire: str) -> Adapter:
    adapter = _MADE.get(wire)
    if adapter is not None:
        return adapter
    if wire not in _CLASSES:
        raise UnknownWire(f"unknown wire format {wire!r}: expected one of {', '.join(WIRES)}")
    module, name = _CLASSES[wire]
    adapter = getattr(import_module(f"{__name__}.{module}"), name)()
    _MADE[wire] = adapter
    return adapter


def __getattr__(name: str) -> Any:
    """``ADAPTERS`` (wire -> adapter, every wire) is made on first use."""
    if name == "ADAPTERS":
        return {wire: adapter_for(wire) for wire in WIRES}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _block_vote(block: Any) -> str | None:
    if not isinstance(block, dict):
        return None
    kind = block.get("type")
    if kind in _RESPONSES_BLOCKS:
        return "openai-responses"
    if kind in ("image_url", "input_audio", "file"):
        return "openai-chat"
    if kind == "text":  # both OpenAI chat and Anthropic
        return "anthropic" if "cache_control" in block or "citations" in block else None
    if isinstance(kind, str):
        return "anthropic"
    if _BEDROCK_KEYS & block.keys():
        return "bedrock"
    if "text" in block and len(block) == 1:
        return "bedrock"
    return None


def _vote(record: Mapping[str, Any]) -> str | None:
    """The wire a single record points to, when it says so."""
    if "parts" in record or record.get("role") == "model":
        return "gemini"
    if record.get("type") in _RESPONSES_TYPES:
        return "openai-responses"
    if "tool_calls" in record or "tool_call_id" in record or record.get("role") == "tool":
        return "openai-chat"
    content = record.get("content")
    if isinstance(content, list):
        for block in content:
            if (vote := _block_vote(block)) is not None:
                return vote
    return None


def wire_votes(records: Sequence[Mapping[str, Any]]) -> Counter[str]:
    """How many of the first records (at most 50) point to each wire (records that say nothing
    are not counted)."""
    votes: Counter[str] = Counter()
    for record in records[:DETECT_WINDOW]:
        if isinstance(record, Mapping) and (vote := _vote(record)) is not None:
            votes[vote] += 1
    return votes


_MESSAGE_KEYS = frozenset({"content", "parts", "tool_calls", "function_call"})


def _shapeless(record: Mapping[str, Any]) -> bool:
    """A message (it has a ``role``) that holds none of the keys a wire format keeps its
    content in: read as any format, it would be a message without content."""
    return isinstance(record.get("role"), str) and not (_MESSAGE_KEYS & record.keys())


def detect_wire(records: Sequence[Mapping[str, Any]]) -> str:
    """The wire format of a history, judged from its first records (at most 50).

    Plain ``role`` + string ``content`` messages with no other sign are read as ``openai-chat``:
    such a history has no tool items and repairs the same in every format; messages with a
    ``role`` but no ``content`` (a shape no adapter reads) are refused, never guessed. Raises
    :class:`UnknownWire` (saying what was expected) when nothing looks like a chat history, and
    :class:`BadRecord` for a record that is not a JSON object.
    """
    head = records[:DETECT_WINDOW]
    for index, record in enumerate(head):
        if not isinstance(record, Mapping):
            raise BadRecord(index, record)
    shapeless = next((i for i, r in enumerate(head) if _shapeless(r)), None)
    if shapeless is not None:  # role, but no key any adapter reads (``blocks``, ``text``)
        keys = ", ".join(sorted(map(str, head[shapeless])))[:200]
        raise UnknownWire(
            f"record {shapeless + 1} has a role but no content (keys: {keys}): a message "
            f"shape no wire format has; nothing is rewritten. {EXPECTED}"
        )
    votes = wire_votes(head)
    if votes:
        return max(WIRES, key=lambda wire: votes[wire])
    if any(isinstance(record.get("role"), str) for record in head):
        return "openai-chat"
    if not records:
        raise UnknownWire(f"the history is empty: cannot tell its wire format; {EXPECTED}")
    raise UnknownWire(f"unrecognised history format: {EXPECTED}")
