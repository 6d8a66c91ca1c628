"""The boundary gate: keep agent runtime state out of git (``apc boundary``).

Library entry point: :func:`scan` with :class:`Options`; it returns an :class:`Outcome` whose
``result`` is the ordinary :class:`~apc_tools.findings.Result`. Nothing here prints; progress is
reported through the optional callback. :class:`~apc_tools.findings.CannotRun` means exit 2
(not a repository, git missing, a range base missing from a shallow clone, a
``safe.directory`` refusal, an invalid policy or baseline).
"""

from __future__ import annotations

from apc_tools.boundary.engine import Options, Outcome, Progress, scan
from apc_tools.boundary.sources import MODES

__all__ = ["MODES", "Options", "Outcome", "Progress", "scan"]
