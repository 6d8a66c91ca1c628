"""Checks for agents md files. (Stub: rules and checks are being written.)"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from apc_tools.findings import Finding, Rule

RULES: tuple[Rule, ...] = ()
CHECKS: Mapping[str, tuple[Callable[..., Iterable[Finding]], ...]] = {}
PROJECT_CHECKS: tuple[Callable[[Any], Iterable[Finding]], ...] = ()
