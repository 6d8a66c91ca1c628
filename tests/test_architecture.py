"""The dependency direction of docs/architecture.md, checked by import-linter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_import_contracts_hold() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from importlinter.cli import lint_imports_command; lint_imports_command()",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "broken" not in done.stdout.lower() or " 0 broken" in done.stdout.lower()


def test_version_imports_no_heavy_modules() -> None:
    code = (
        "import sys, runpy\n"
        "sys.argv = ['apc', '--version']\n"
        "try:\n"
        "    runpy.run_module('apc_tools', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = [m for m in ('jsonschema', 'git', 'ruamel.yaml') if m in sys.modules]\n"
        "print('HEAVY', heavy)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert "HEAVY []" in done.stdout, done.stdout + done.stderr


def import_cycles(package: str) -> list[tuple[str, ...]]:
    """Each import cycle among the package's modules, as its shortest chain (runtime imports
    only: ``if TYPE_CHECKING`` imports do not execute)."""
    import grimp

    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
    cycles: set[tuple[str, ...]] = set()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back:
                cycle = (importer, *back)
                start = cycle.index(min(cycle[:-1]))
                cycles.add(cycle[start:-1] + cycle[:start] + (cycle[start],))
    return sorted(cycles)


def test_the_package_has_no_import_cycle() -> None:
    assert import_cycles("apc_tools") == []
