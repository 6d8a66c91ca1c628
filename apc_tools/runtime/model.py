"""The neutral history model shared by every wire format.

A history is a sequence of raw wire records (OpenAI chat messages, Responses input items,
Anthropic messages, Gemini contents, Bedrock messages). Each adapter reads one record into a
:class:`Message`: its *kind* (system, user, assistant, tool, other), the client tool calls it
makes, the tool results it carries and whether it has any other content. The raw record is kept
untouched beside the neutral view, so whatever the repair does not touch (unknown keys, key order,
thinking and reasoning blocks, images, server tools) is written back exactly as it was read.

The public value types of the runtime package live here too: :class:`Change` (one entry of the
repair report), :class:`Violation` (one provider sequencing rule broken), :class:`RepairResult`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

WIRES = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

#: The text of every synthetic result. It says only that the call was not run, claims nothing
#: about the outside world, and is the machine-detectable marker of a synthetic result (see
#: :func:`apc_tools.runtime.repair.is_synthetic`).
SYNTHETIC_TEXT = "not run: the turn was interrupted"

Kind = Literal["system", "user", "assistant", "tool", "other"]


class UnknownWire(ValueError):
    """The wire format is not one of :data:`WIRES`, or could not be recognised."""


class BadRecord(ValueError):
    """A record of the history is not a JSON object. ``index`` is its 0-based position."""

    def __init__(self, index: int, value: object) -> None:
        self.index = index
        super().__init__(
            f"record {index} (0-based) is not a JSON object but {type(value).__name__}: "
            "a history is a list of message objects"
        )


@dataclass(frozen=True)
class Change:
    """One change the repair made. ``index`` is the 0-based position in the INPUT sequence."""

    kind: str
    index: int
    call_id: str | None
    detail: str


@dataclass(frozen=True)
class Violation:
    """One sequencing rule of the provider that the history breaks.

    ``index`` is the 0-based position of the offending record; ``rule`` a WIR rule id;
    ``message`` the provider's own error wording with ids and indices filled in.
    """

    index: int
    rule: str
    message: str


@dataclass(frozen=True)
class RepairResult:
    """The repaired records and every change made, in order."""

    records: tuple[dict[str, Any], ...]
    changes: tuple[Change, ...]


class Call(NamedTuple):
    """A client tool call: its id (None when missing), tool name and position.

    ``pos`` is the index of the block inside the record's block list, or -1 when the call is the
    record itself (OpenAI Responses items). ``type`` is the wire's type of the call item.
    """

    id: str | None
    name: str | None
    pos: int = -1
    type: str = ""
    style: str = ""


class Result(NamedTuple):
    """A tool result: the call id it answers (None when missing), name and position."""

    id: str | None
    name: str | None
    pos: int = -1


class Message(NamedTuple):
    """The neutral view of one raw record (a named tuple: it is built for every record).

    kind: ``system`` (system/developer), ``user``, ``assistant`` (model output, with or without
    calls), ``tool`` (a record that only carries results), ``other`` (unknown role or item type:
    passed through unchanged). ``content`` is True when the record holds anything besides calls
    and results (text, images, thinking, server tool blocks).
    """

    kind: Kind
    raw: Mapping[str, Any]
    calls: tuple[Call, ...] = ()
    results: tuple[Result, ...] = ()
    content: bool = False

    @property
    def empty_assistant(self) -> bool:
        return self.kind == "assistant" and not self.calls and not self.content


def matches(call: Call, result: Result) -> bool:
    """Does ``result`` answer ``call``?

    By id when both have one. Otherwise by tool name (Gemini ids are optional); when a name is
    unknown too, a result without id answers a call without id (in order of occurrence).
    """
    if call.id is not None and result.id is not None:
        return call.id == result.id
    if call.name is None or result.name is None:
        return call.id is None and result.id is None
    return call.name == result.name


def text_id(value: object) -> str | None:
    """An id as found in a record: strings kept, anything else (missing, null, numbers) None."""
    return value if isinstance(value, str) else None
