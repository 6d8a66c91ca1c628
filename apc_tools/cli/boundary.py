"""``apc boundary``: refuse agent runtime state in what git holds or will hold (the library:
:func:`apc_tools.boundary.scan`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from apc_tools.cli.common import (
    LARGE_SCAN,
    Run,
    echo,
    fail,
    no_inline_allow_option,
    paths_argument,
    range_option,
    scan_options,
    scanned,
)
from apc_tools.findings import CannotRun, Registry
from apc_tools.report.escape import escape


def _mode_flags(
    staged: bool, tracked: bool, rev_range: str | None, history: bool
) -> tuple[tuple[str, bool], ...]:
    return (
        ("--staged", staged),
        ("--tracked", tracked),
        ("--range", rev_range is not None),
        ("--history", history),
    )


@click.command()
@paths_argument
@click.option("--staged", is_flag=True, help="Scan the index (pre-commit).")
@click.option(
    "--tracked",
    is_flag=True,
    help="Scan every blob of the tree at HEAD (the default: a fresh checkout).",
)
@range_option("Scan the commits of A..B (CI).")
@click.option("--history", is_flag=True, help="Scan every reachable commit.")
@click.option(
    "--secrets",
    type=click.Choice(["contract", "all"]),
    default=None,
    help="Look for secrets in contract and flagged files only (default), or in every file.",
)
@click.option("--write-baseline", is_flag=True, help="Accept every current finding.")
@no_inline_allow_option("Ignore `apc: allow RULE` comments.")
@click.option(
    "--fix",
    is_flag=True,
    help="With --staged: untrack each leaked runtime file (kept on disk) and ignore it.",
)
@scan_options
def boundary(
    paths: tuple[Path, ...],
    staged: bool,
    tracked: bool,
    rev_range: str | None,
    history: bool,
    secrets: str | None,
    write_baseline: bool,
    no_inline_allow: bool,
    fix: bool,
    run: Run,
) -> None:
    """Refuse agent runtime state (sessions, transcripts, tool records, interruption markers,
    caches, private config, secrets) in what is or will be committed: read from git objects,
    never from the working tree. PATHs restrict the scan."""
    from apc_tools.boundary import Options, scan

    modes = [m for m, on in _mode_flags(staged, tracked, rev_range, history) if on]
    if len(modes) > 1:
        fail(f"choose one of --staged, --tracked, --range A..B, --history (got {', '.join(modes)})")
    mode = modes[0].removeprefix("--") if modes else "tracked"
    if fix and mode != "staged":
        fail(
            "--fix works on the index only (--staged): commits are never rewritten; for a leak "
            "already committed, `git filter-repo --invert-paths --path=PATH` removes it from "
            "history, and any secret it held must be rotated"
        )
    if fix and write_baseline:
        fail("choose one of --fix and --write-baseline")
    options = Options(
        cwd=run.cwd,
        paths=paths,
        mode=mode,
        rev_range=rev_range,
        secrets=secrets,
        **run.gate(no_inline_allow, write_baseline),
    )
    large = 0 if mode == "history" else LARGE_SCAN
    outcome = scanned(
        "apc boundary", run.progress, lambda bar: scan(options, progress=bar), large=large
    )
    incomplete = False
    if fix:
        outcome, incomplete = boundary_fix(options, outcome, run.fmt)
    from apc_tools.boundary.rules import RULES

    top = outcome.root
    source = None if top is None else (top, lambda rule: True, "" if mode == "staged" else "HEAD")
    try:
        run.emit(outcome.result, registry=Registry.of(RULES), source=source)
    except SystemExit as done:
        if incomplete and done.code == 0:  # untracked, but an ignore line is not written
            raise SystemExit(1) from None
        raise


def boundary_fix(options: Any, outcome: Any, fmt: str) -> tuple[Any, bool]:
    """`apc boundary --staged --fix`: untrack and ignore, say so, and scan the index again.
    Also says whether the fix is incomplete (a problem was reported: the run then exits 1 even
    when the index is clean, since a file whose ignore line was not written comes back with the
    next `git add`)."""
    from apc_tools.boundary import scan
    from apc_tools.boundary.fix import fix_staged

    try:
        done = fix_staged(options.cwd, outcome.result)
        if not done.untracked and not done.problems:
            return outcome, False
        for line in done.lines():
            echo(escape(line), err=fmt != "text")
        return scan(options), bool(done.problems)
    except CannotRun as exc:
        fail(str(exc))
