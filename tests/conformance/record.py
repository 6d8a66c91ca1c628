"""Run every conformance tree through its CLI, at each pinned version, and observe each case
(the full tier's reading).

``python -m tests.conformance.record`` re-records ``observed/<tool>@<version>.json`` from the
installed CLIs (after a pin is added to ``installer.PINS``); the full tier runs
:func:`observe_all` and compares with the committed files.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.conformance.cases import CASES, TREES, Tree, observe, observed_path
from tests.conformance.harness import (
    MockServer,
    Recorded,
    claude_cli,
    run_claude,
    run_codex,
    run_gemini,
)
from tests.conformance.installer import label, versions

RUNNERS = {"claude": run_claude, "codex": run_codex, "gemini": run_gemini}


def run_tree(tree: Tree, workdir: Path, version: str | None = None) -> list[Recorded]:
    base = workdir / f"{tree.name}@{version or 'first'}"
    project = tree.write(base / "project")
    home = base / "home"
    with MockServer(tree.make_script()) as mock:
        for command in tree.setup:
            args = [part.replace("{project}", str(project)) for part in command]
            done = claude_cli(project, home, mock, args, version=version)
            if done.returncode != 0:
                raise RuntimeError(f"claude {' '.join(args)} failed: {done.stderr[-2000:]}")
        run = RUNNERS[tree.tool](project, home, mock, "hello", version=version)
    if run.returncode != 0:
        raise RuntimeError(
            f"{label(tree.tool, version)} failed on tree {tree.name}: {run.stderr[-2000:]}"
        )
    return mock.requests


Observed = dict[tuple[str, str], dict[str, Any]]


def observe_all(workdir: Path) -> Observed:
    """(tool, version) -> {"tool": label, "cases": {case id: observation}} from live runs of
    every tree at every pinned version of its tool."""
    recorded = {
        (name, ver): run_tree(tree, workdir, ver)
        for name, tree in TREES.items()
        for ver in versions(tree.tool)
    }
    out: Observed = {}
    for case in CASES:
        for ver in versions(case.tool):
            entry = out.setdefault((case.tool, ver), {"tool": label(case.tool, ver), "cases": {}})
            entry["cases"][case.id] = observe(case, recorded[(case.tree, ver)])
    return out


def write(observed: Observed) -> None:
    for (tool, ver), entry in observed.items():
        path = observed_path(tool, ver)
        path.parent.mkdir(exist_ok=True)
        text = json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        path.write_text(text, "utf-8")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        write(observe_all(Path(tmp)))
    print(f"recorded {observed_path('claude', '').parent}")
