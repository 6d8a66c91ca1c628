"""The rule registry: every family's rule declarations, gathered in one read-only table.

Each family declares its rules beside its checks; the package modules listed here re-export
them as ``RULES``. The rules reference (docs/rules.md) is generated from this registry.
"""

from __future__ import annotations

from functools import cache
from importlib import import_module

from apc_tools.findings import Registry, Rule

FAMILY_PACKAGES = (
    "apc_tools.core.rules",
    "apc_tools.contract.rules",
    "apc_tools.runtime.rules",
    "apc_tools.boundary.rules",
)


@cache
def registry() -> Registry:
    rules: list[Rule] = []
    for name in FAMILY_PACKAGES:
        rules.extend(import_module(name).RULES)
    return Registry.of(rules)
