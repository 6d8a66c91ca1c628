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

NOT_INCLUDED = _rule(
    "DSC002",
    "catalog-not-checked",
    Severity.INFO,
    "Files of a known shape outside the folder their tool reads were not checked.",
    "A catalog keeps rules, agents or instructions outside the folder their tool loads them "
    "from, for people to copy (`rules-mdc/*.mdc`, `instructions/*.instructions.md`): apc does "
    "not know what they are by their place, so it does not check them, and a run that says "
    '"no problems found" must say so. Map them to a kind with the policy\'s `include:` '
    '(`include: {"rules-mdc/*.mdc": cursor-rule}`; `apc init` proposes it) and they are '
    "checked as the tool would read them once copied.",
    "AGENTS.md:\n# Catalog\n",
    "rules-mdc/python.mdc:\n---\ndescription: Python\nglobs: **/*.py\n---\nUse types.\n",
)

# The shapes of files a tool reads wherever they are once copied: (name ending, what they
# are, where the tool reads them, the kind `include:` maps them to).
SHAPES = (
    (".mdc", "Cursor rules", ".cursor/rules", "cursor-rule"),
    (".instructions.md", "Copilot instructions", ".github/instructions", "copilot-instructions"),
)


def include_glob(folder: str, ending: str) -> str:
    """The policy's ``include:`` glob for the files ending in ``ending`` directly in ``folder``
    ("" or "." for the project root): what DSC002 names and ``apc init`` proposes."""
    return f"{folder}/*{ending}" if folder not in ("", ".") else f"*{ending}"


RULES = (NOTHING_RECOGNISED, NOT_INCLUDED)
CHECKS: Mapping[str, tuple[Callable[[Doc, Project], Iterable[Finding]], ...]] = {}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
