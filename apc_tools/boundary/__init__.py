"""The boundary gate: keep agent runtime state out of git (``apc boundary``).

Library entry point: :func:`scan` with :class:`Options`; it returns an :class:`Outcome` whose
``result`` is the ordinary :class:`~apc_tools.findings.Result`. Nothing here prints; progress is
reported through the optional callback. :class:`~apc_tools.findings.CannotRun` means exit 2
(not a repository, git missing, a range base missing from a shallow clone, a
``safe.directory`` refusal, an invalid policy or baseline).

The names are imported on first use (PEP 562): `apc validate` reads the baseline's name
through ``apc_tools.boundary.policy`` and must not pay for importing the whole gate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from apc_tools.boundary.engine import Options, Outcome, Progress, scan
    from apc_tools.boundary.sources import MODES

__all__ = ["MODES", "Options", "Outcome", "Progress", "scan"]


def __getattr__(name: str) -> Any:
    if name == "MODES":
        from apc_tools.boundary import sources

        return sources.MODES
    if name in ("Options", "Outcome", "Progress", "scan"):
        from apc_tools.boundary import engine

        return getattr(engine, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
