"""Runtime state, which never lives in the repository: chat history repair.

``from apc_tools.runtime import repair`` and call it before each request::

    result = repair(messages, "anthropic")
    send(result.records)          # result.changes says what was done

The package reads histories in five wire formats (:data:`WIRES`) through one adapter each,
repairs them with one streaming core (:class:`RepairStream`; :func:`repair` is built on it) and
checks them against each provider's sequencing rules (:func:`check`). It imports neither click
nor GitPython.
"""

from __future__ import annotations

from apc_tools.runtime.adapters import detect_wire
from apc_tools.runtime.conformance import check
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
