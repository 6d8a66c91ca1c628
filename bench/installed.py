"""Measure apc as installed: pip compiles a package's modules to bytecode at install time, so a
benchmark of a source checkout (or of a machine with PYTHONDONTWRITEBYTECODE set) would charge
apc for compiling its own source on every start. Both benchmarks compile it first."""

from __future__ import annotations

import compileall
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "apc_tools"


def compile_apc() -> None:
    """Write the bytecode of apc_tools (as `pip install` does); quiet, idempotent."""
    compileall.compile_dir(str(PACKAGE), quiet=1)
