"""Rules of the runtime side (placeholder until the repair module lands)."""

from apc_tools.findings import Rule

RULES: tuple[Rule, ...] = ()
