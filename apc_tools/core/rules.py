"""The rules of the shared floor (file reading, parsing), for the registry (apc_tools.catalog)."""

from __future__ import annotations

from apc_tools.core import files, parse
from apc_tools.findings import Rule

RULES: tuple[Rule, ...] = (*files.RULES, *parse.RULES)
