"""``apc init``: scaffold a minimal APC contract (the library:
:mod:`apc_tools.contract.scaffold`)."""

from __future__ import annotations

from pathlib import Path

import click

from apc_tools.cli.common import echo, fail
from apc_tools.findings import CannotRun
from apc_tools.report.escape import escape


@click.command()
@click.argument("path", required=False, type=click.Path(path_type=Path), default=None)
def init(path: Path | None) -> None:
    """Scaffold a minimal APC contract in PATH (default: the top level of the git repository
    around the current folder, else the current folder).

    Creates what is missing of AGENTS.md, .apc/project.json, .apc/.gitignore, .apc-tools.yaml
    and the policy's schema for editors (.apc-tools.schema.json, refreshed after an upgrade);
    never overwrites another file or follows a symlink, and says what it left alone. Lists files
    of other agent tools worth migrating and the root .gitignore lines their runtime state needs.
    """
    from apc_tools.contract.scaffold import default_root, init_project
    from apc_tools.report.init_text import render_init

    root = default_root(Path.cwd()) if path is None else path
    if path is None and root.resolve() != Path.cwd().resolve():
        echo(f"apc init: in {escape(str(root))} (the top level of this git repository)")
    try:
        report = init_project(root)
    except CannotRun as exc:
        fail(str(exc))
    echo(render_init(report), nl=False)
