"""A clean APC project tree and the helpers every contract-check test shares.

``run`` writes a tree (over a base tree) and validates it; ``where`` lists a rule's positions;
``check`` is the one-line assertion in the style of yamllint's ``tests/common.py``:
``check(tmp_path, files, AGT001=[(".apc/agents/a.md", 2, 1)], AGT002=[])`` asserts exactly those
positions for each named rule (``[]``: the rule does not fire).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
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


Tree = Mapping[str, str | bytes]


def run(
    root: Path,
    files: Tree,
    *,
    base: bool | Tree = True,
    profile: str = "default",
) -> list[Finding]:
    """Write ``files`` over a base tree (the clean :data:`BASE`, another mapping, or none with
    ``base=False``) and validate it."""
    under: Tree = BASE if base is True else {} if base is False else base
    tree = {**under, **files}
    write_tree(root, {k: v for k, v in tree.items() if v is not None})
    return list(validate([root], profile=profile, cwd=root).findings)


Position = tuple[str, int | None, int | None]


def check(
    root: Path,
    files: Tree,
    *,
    base: bool | Tree = True,
    profile: str = "default",
    **expected: list[Position],
) -> list[Finding]:
    """Validate and assert, for each ``RULE=[(path, line, column), ...]``, exactly those
    positions (in order); returns every finding for further assertions."""
    found = run(root, files, base=base, profile=profile)
    for rule, positions in expected.items():
        assert where(found, rule) == positions, f"{rule}: {where(found, rule)} != {positions}"
    return found


def where(findings: list[Finding], rule: str) -> list[tuple[str, int | None, int | None]]:
    """(path, line, column) of each finding of ``rule``."""
    return [(f.path, f.line, f.column) for f in findings if f.rule == rule]


def rules(findings: list[Finding]) -> set[str]:
    return {f.rule for f in findings}
