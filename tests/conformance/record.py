"""Run every conformance tree through its CLI and observe each case (the full tier's reading).

``python -m tests.conformance.record`` re-records ``observed/<tool>.json`` from the installed
CLIs (after a version bump in ``installer.PINS``); the full tier runs :func:`observe_all` and
compares with the committed files.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.conformance.cases import CASES, OBSERVED, TREES, Tree, observe
from tests.conformance.harness import (
    MockServer,
    Recorded,
    claude_cli,
    run_claude,
    run_codex,
    run_gemini,
)
from tests.conformance.installer import label

RUNNERS = {"claude": run_claude, "codex": run_codex, "gemini": run_gemini}


def run_tree(tree: Tree, workdir: Path) -> list[Recorded]:
    project = tree.write(workdir / tree.name / "project")
    home = workdir / tree.name / "home"
    with MockServer(tree.make_script()) as mock:
        for command in tree.setup:
            args = [part.replace("{project}", str(project)) for part in command]
            done = claude_cli(project, home, mock, args)
            if done.returncode != 0 and not tree.setup_may_fail:
                raise RuntimeError(f"claude {' '.join(args)} failed: {done.stderr[-2000:]}")
        extra = [part.replace("{project}", str(project)) for part in tree.args]
        run = RUNNERS[tree.tool](project, home, mock, "hello", extra or None)
    if run.returncode != 0:
        raise RuntimeError(f"{tree.tool} failed on tree {tree.name}: {run.stderr[-2000:]}")
    return mock.requests


def observe_all(workdir: Path) -> dict[str, dict[str, Any]]:
    """tool -> {"tool": label, "cases": {case id: observation}} from live runs."""
    recorded = {name: run_tree(tree, workdir) for name, tree in TREES.items()}
    out: dict[str, dict[str, Any]] = {}
    for case in CASES:
        entry = out.setdefault(case.tool, {"tool": label(case.tool), "cases": {}})
        entry["cases"][case.id] = observe(case, recorded[case.tree])
    return out


def write(observed: dict[str, dict[str, Any]]) -> None:
    OBSERVED.mkdir(exist_ok=True)
    for tool, entry in observed.items():
        text = json.dumps(entry, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
        (OBSERVED / f"{tool}.json").write_text(text, "utf-8")


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        write(observe_all(Path(tmp)))
    print(f"recorded {OBSERVED}")
