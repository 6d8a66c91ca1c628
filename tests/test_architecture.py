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
