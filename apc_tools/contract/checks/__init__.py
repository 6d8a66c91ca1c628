"""Check families: one module per kind of contract file, each with its rules and checks.

Each module defines ``RULES`` (its :class:`~apc_tools.findings.Rule` declarations), ``CHECKS``
(kind -> functions ``(doc, project) -> Iterable[Finding]`` run on every parsed file of that kind)
and ``PROJECT_CHECKS`` (functions ``(project) -> Iterable[Finding]`` run once per project for
cross-file rules). Parse problems (YAML/JSON syntax, unreadable files) are reported by the
orchestrator before checks run; a check sees ``doc.meta`` possibly None or partial and must not
raise on any shape of data.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType

from apc_tools.contract.checks import (
    agents,
    agents_md,
    claude_memory,
    claude_settings,
    codex_chain,
    codex_config,
    commands,
    copilot_prompts,
    discovery,
    gemini,
    gitignore,
    hooks,
    instructions,
    mcp_configs,
    mcps,
    memory,
    plans,
    plugins,
    project_json,
    rule_files,
    secrets,
    skills,
)
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Rule

DocCheck = Callable[[Doc, Project], Iterable[Finding]]
ProjectCheck = Callable[[Project], Iterable[Finding]]

FAMILIES = (
    discovery,
    agents_md,
    codex_chain,
    project_json,
    agents,
    memory,
    skills,
    rule_files,
    plans,
    mcps,
    gitignore,
    instructions,
    claude_memory,
    commands,
    copilot_prompts,
    gemini,
    claude_settings,
    mcp_configs,
    codex_config,
    plugins,
    hooks,
    secrets,
)


def _gather() -> tuple[Mapping[str, tuple[DocCheck, ...]], tuple[ProjectCheck, ...]]:
    by_kind: dict[str, list[DocCheck]] = {}
    project: list[ProjectCheck] = []
    for module in FAMILIES:
        for kind, funcs in module.CHECKS.items():
            by_kind.setdefault(kind, []).extend(funcs)
        project.extend(module.PROJECT_CHECKS)
    return MappingProxyType({k: tuple(v) for k, v in by_kind.items()}), tuple(project)


CHECKS, PROJECT_CHECKS = _gather()
RULES: tuple[Rule, ...] = tuple(rule for module in FAMILIES for rule in module.RULES)
