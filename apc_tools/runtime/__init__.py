"""Runtime state, which never lives in the repository: chat history repair.

Call :func:`repair` before each request (or :class:`RepairStream` for a file read record by
record; both share one core and give the same output)::

    from apc_tools.runtime import check, repair

    result = repair(messages, "anthropic")      # pure, deterministic, idempotent
    send(result.records)                         # result.changes: what was done, with positions
    assert check(result.records, "anthropic") == ()

API::

    WIRES = ("openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")
    SYNTHETIC_TEXT = "not run: the turn was interrupted"
    detect_wire(records) -> str                  # UnknownWire / BadRecord
    repair(records, wire, *, close_trailing=True, continuation=False) -> RepairResult
    RepairStream(wire, *, close_trailing=True, continuation=False)
        .feed(record) -> list[dict]; .finish() -> list[dict]; .changes: list[Change]
    check(records, wire, *, live_tail=False, continuation=False) -> tuple[Violation, ...]
    is_synthetic(result_record_or_block, wire) -> bool

``close_trailing=False`` / ``live_tail=True``: the last turn is live (still running or awaiting
approval), leave its calls open. ``continuation=True``: the records continue a conversation the
provider stores (``previous_response_id``): results at their start answer stored calls.
Findings: :func:`apc_tools.runtime.repair.findings_for` (RPR rules) and
:func:`apc_tools.runtime.conformance.findings_for` (WIR rules); rules in
:mod:`apc_tools.runtime.rules`. The package imports neither click nor GitPython.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from apc_tools.runtime.adapters import detect_wire
from apc_tools.runtime.model import (
    SYNTHETIC_TEXT,
    WIRES,
    BadRecord,
    Change,
    RepairResult,
    UnknownWire,
    Violation,
)
from apc_tools.runtime.repair import RepairStream, is_synthetic, repair

if TYPE_CHECKING:
    from apc_tools.runtime.conformance import check


def __getattr__(name: str) -> Any:
    """``check`` is imported on first use: ``apc repair`` without --check never needs it."""
    if name == "check":
        from apc_tools.runtime.conformance import check

        return check
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "check"})


__all__ = [
    "SYNTHETIC_TEXT",
    "WIRES",
    "BadRecord",
    "Change",
    "RepairResult",
    "RepairStream",
    "UnknownWire",
    "Violation",
    "check",
    "detect_wire",
    "is_synthetic",
    "repair",
]
