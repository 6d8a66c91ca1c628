"""What `apc validate` says when it recognises no agent-context file under the given paths."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from apc_tools.contract.project import LOOKS_FOR, Doc, Project
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "discovery"
_rule = rule_family(FAMILY)

NOTHING_RECOGNISED = _rule(
    "DSC001",
    "nothing-recognised",
    Severity.INFO,
    "No agent-context file was found under the paths given.",
    "A run that looked at no file is not a clean bill of health: apc says so instead of "
    f'"no problems found in 0 files". apc looks for {LOOKS_FOR}. Check the path, or the '
    "policy's `exclude` list.",
    "AGENTS.md:\n# Project\nRun `make test` before committing.\n",
    "README.md:\n# Project\n",
)

RULES = (NOTHING_RECOGNISED,)
CHECKS: Mapping[str, tuple[Callable[[Doc, Project], Iterable[Finding]], ...]] = {}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
