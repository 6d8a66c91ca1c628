"""The dependency direction of docs/architecture.md, checked by import-linter."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import apc_tools

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
    # reported by an exit handler: the console script ends with os._exit once they have run
    code = (
        "import atexit, sys, runpy\n"
        "def report():\n"
        "    names = ('jsonschema', 'jsonschema_rs', 'ahocorasick_rs', 'git', 'ruamel.yaml')\n"
        "    heavy = [m for m in names if m in sys.modules]\n"
        "    print('HEAVY', heavy)\n"
        "atexit.register(report)\n"
        "sys.argv = ['apc', '--version']\n"
        "runpy.run_module('apc_tools', run_name='__main__')\n"
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


PROCESS_MODULES = frozenset({"subprocess", "pty", "multiprocessing", "concurrent.futures"})
PROCESS_CALLS = ("system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp")


def _starts_processes(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name in PROCESS_MODULES for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and node.module in PROCESS_MODULES:
            return True
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "os"
            and (node.attr in PROCESS_CALLS or node.attr.startswith(("exec", "spawn")))
        ):
            return True
    return False


def test_only_core_git_starts_processes() -> None:
    """M3: every git call goes through apc_tools/core/git.py, which switches off the scanned
    repository's fsmonitor, hooks and untracked cache; no other module may start a process,
    except core/pool.py, which only forks apc itself (``os.fork``, no exec) and never runs a
    program."""
    package = Path(apc_tools.__file__).parent
    allowed = {package / "core" / "git.py", package / "core" / "pool.py"}
    offenders = [
        path.relative_to(package).as_posix()
        for path in sorted(package.rglob("*.py"))
        if path not in allowed and _starts_processes(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert offenders == []
    assert _starts_processes(ast.parse((package / "core" / "git.py").read_text()))
    pool = ast.parse((package / "core" / "pool.py").read_text(encoding="utf-8"))
    for node in ast.walk(pool):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not {"subprocess", "pty", "multiprocessing", "concurrent.futures"} & set(names)
        is_os = isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
        if is_os and node.value.id == "os":  # type: ignore[attr-defined]
            # fork alone: the worker is apc itself, it never executes anything
            assert node.attr == "fork" or node.attr not in PROCESS_CALLS  # type: ignore[attr-defined]
            assert not node.attr.startswith(("exec", "spawn"))  # type: ignore[attr-defined]
