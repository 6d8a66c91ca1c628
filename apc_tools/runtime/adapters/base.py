"""What every wire adapter provides to the repair and the conformance checker.

Two families:

* record wires (OpenAI chat, OpenAI Responses): a tool result is a record of its own, placed
  after the record that made the call;
* block wires (Anthropic, Bedrock, Gemini): calls are blocks (parts) inside an assistant (model)
  message and results are blocks inside the next user message.

Adapters never copy or change a record they only read; they build new dicts only for records the
repair changes, and copy every key they do not touch.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from typing import Any

from apc_tools.runtime.model import Call, Kind, Message, Result


class Adapter(ABC):
    """Reads records into the neutral :class:`Message` view and builds synthetic results."""

    wire: str = ""
    blocks: bool = False

    # Repair quirks of the wire, declared here so the repair core names no wire:
    #: synthetic results merge into the user message that closes the turn (else a new message)
    merge_into_user: bool = False
    #: content after a call in the same message is moved before the calls
    calls_last: bool = False
    #: a run of model records without calls right before a call turn folds into it
    fold_model_runs: bool = False
    #: outputs may come late: model items after an output keep a turn with unanswered calls open
    late_outputs: bool = False
    #: the provider rejects a history that does not start with a user turn, so records before
    #: the first user record are dropped even when they hold calls (else those are kept)
    user_first: bool = False

    @abstractmethod
    def parse(self, raw: Mapping[str, Any]) -> Message:
        """The neutral view of one record (which must be a mapping)."""

    @abstractmethod
    def synthetic(self, call: Call) -> dict[str, Any]:
        """The synthetic result for ``call``: a record (record wires) or a block (block wires)."""

    @abstractmethod
    def is_synthetic(self, item: Mapping[str, Any]) -> bool:
        """Is ``item`` (a result record or block) one that :meth:`synthetic` built?"""


class BlockAdapter(Adapter):
    """An adapter whose calls and results are blocks of a list inside the record."""

    blocks = True
    key = "content"
    model_role: object = "assistant"  # the role of records that make calls
    user_roles: tuple[object, ...] = ("user",)  # the roles of records that carry results

    def parse(self, raw: Mapping[str, Any]) -> Message:
        """Calls from a model record's blocks, results from a user record's blocks."""
        role = raw.get("role")
        value = raw.get(self.key)
        blocks = value if isinstance(value, list) else []
        if role == self.model_role:
            calls = [
                c for pos, b in enumerate(blocks) if (c := self.block_call(b, pos)) is not None
            ]
            return Message("assistant", raw, tuple(calls), (), len(calls) < len(blocks))
        if role in self.user_roles:
            results = [
                r for pos, b in enumerate(blocks) if (r := self.block_result(b, pos)) is not None
            ]
            content = len(results) < len(blocks)
            kind: Kind = "tool" if results and not content else "user"
            return Message(kind, raw, (), tuple(results), content)
        return Message("other", raw, content=True)

    def items(self, raw: Mapping[str, Any]) -> list[Any]:
        """The record's blocks as a list (a plain string content becomes one text block)."""
        value = raw.get(self.key)
        if isinstance(value, list):
            return list(value)
        if isinstance(value, str) and value:
            return [self.text_block(value)]
        return []

    def with_items(self, raw: Mapping[str, Any], items: list[Any]) -> dict[str, Any]:
        """A copy of ``raw`` whose blocks are ``items`` (every other key kept, in order)."""
        out = dict(raw)
        out[self.key] = items
        return out

    def result_message(self, items: list[Any]) -> dict[str, Any]:
        """A new user message holding ``items`` (synthetic results)."""
        return {"role": "user", self.key: items}

    @abstractmethod
    def text_block(self, text: str) -> dict[str, Any]:
        """A text block of this wire."""

    @abstractmethod
    def block_result(self, block: Any, pos: int) -> Result | None:
        """The result a block carries, or None."""

    def block_call(self, block: Any, pos: int) -> Call | None:
        """The client call a block makes, or None (only assistant/model records have calls)."""
        return None


def nonempty(value: object) -> bool:
    """Content that counts as present: not None, not an empty string, list or object."""
    return bool(value) or not (value is None or isinstance(value, str | list | dict))
