"""Every rule of the contract checks, for the registry (see apc_tools.catalog)."""

from __future__ import annotations

from apc_tools.contract import checks
from apc_tools.findings import Rule

RULES: tuple[Rule, ...] = tuple(checks.RULES)
