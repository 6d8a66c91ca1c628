"""A clean APC project tree and helpers shared by the content-check tests (checks-a families)."""

from __future__ import annotations

import json
from pathlib import Path

from apc_tools.contract.validate import validate
from apc_tools.core.gitignore import SAFE_DEFAULTS
from apc_tools.findings import Finding
from tests.conftest import write_tree

PROJECT_JSON = json.dumps(
    {"name": "demo", "apc": "0.1.0", "version": "0.1.0", "created": "2026-05-08T00:00:00Z"},
    indent=2,
)
BASE: dict[str, str | bytes] = {
    "AGENTS.md": "# Demo\n\nRun `pytest` before committing.\n",
    ".apc/project.json": PROJECT_JSON + "\n",
    ".apc/.gitignore": "\n".join(SAFE_DEFAULTS) + "\n",
}


def run(root: Path, files: dict[str, str | bytes], *, base: bool = True) -> list[Finding]:
    """Write ``files`` (over the clean base tree unless ``base`` is False) and validate."""
    tree = {**BASE, **files} if base else files
    write_tree(root, {k: v for k, v in tree.items() if v is not None})
    return list(validate([root], cwd=root).findings)


def where(findings: list[Finding], rule: str) -> list[tuple[str, int | None, int | None]]:
    """(path, line, column) of each finding of ``rule``."""
    return [(f.path, f.line, f.column) for f in findings if f.rule == rule]


def rules(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}
