"""``apc check``: validate + boundary, the CI and fresh-checkout gate (the library:
:mod:`apc_tools.check`)."""

from __future__ import annotations

from pathlib import Path

import click

from apc_tools.cli.common import (
    Run,
    fail,
    fix_options,
    no_inline_allow_option,
    paths_argument,
    range_option,
    run_fixes,
    scan_options,
    scanned,
)
from apc_tools.findings import CannotRun


@click.command()
@paths_argument
@range_option("Scan every commit of A..B (CI).")
@no_inline_allow_option("Ignore `apc: allow RULE` comments (CI).")
@click.option(
    "--write-baseline",
    is_flag=True,
    help="Accept every current finding of both halves (the baseline file).",
)
@fix_options
@scan_options
def check(
    paths: tuple[Path, ...],
    rev_range: str | None,
    no_inline_allow: bool,
    write_baseline: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    run: Run,
) -> None:
    """Validate the checked-out contract and scan HEAD (or every commit of --range) for agent
    runtime state: one report, one exit code. PATHs restrict both; paths in the report are
    relative to the repository root."""
    from apc_tools.check import CheckOptions, run_check

    if (fix or diff or unsafe_fixes) and rev_range is not None:
        fail(
            "--fix and --diff never run with --range: commits are not rewritten; fix the working "
            "tree (`apc check --fix`) and commit the result"
        )
    if fix or diff or unsafe_fixes:
        from apc_tools.check import repository_root, root_policy

        where = run.cwd
        try:
            root = repository_root(where, paths)
            own = run.config if run.config is not None else root_policy(root)
        except CannotRun as exc:
            fail(str(exc))
        run_fixes(paths, fix, unsafe_fixes, diff, None, own, run.fmt, where)
    options = CheckOptions(
        cwd=run.cwd, paths=paths, rev_range=rev_range, **run.gate(no_inline_allow, write_baseline)
    )
    outcome = scanned("apc check", run.progress, lambda bar: run_check(options, progress=bar))
    from apc_tools.boundary.policy import is_boundary_rule

    top = outcome.root
    run.emit(outcome.result, source=None if top is None else (top, is_boundary_rule, "HEAD"))
