"""Every rule of the contract side, for the registry (see apc_tools.catalog)."""

from __future__ import annotations

from apc_tools.contract import checks, files, parse
from apc_tools.findings import Rule

RULES: tuple[Rule, ...] = (*files.RULES, *parse.RULES, *checks.RULES)
