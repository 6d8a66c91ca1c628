"""``apc validate``: the agent-context files of each PATH's project (the library:
:mod:`apc_tools.contract.warm`, :mod:`apc_tools.contract.validate`)."""

from __future__ import annotations

from pathlib import Path

import click

from apc_tools.cli.common import (
    REPORT_FILES,
    STATISTICS,
    Run,
    fail,
    fix_options,
    no_inline_allow_option,
    paths_argument,
    run_fixes,
    run_options,
)
from apc_tools.findings import CannotRun, Registry
from apc_tools.report.escape import escape


@click.command()
@paths_argument
@click.option(
    "--profile",
    type=click.Choice(["default", "agentskills"]),
    default=None,
    help="agentskills: SKILL.md exactly as the Agent Skills spec (unknown keys are errors).",
)
@click.option(
    "--list-files",
    is_flag=True,
    help="Before the findings, list each file looked at and what it was recognised as.",
)
@no_inline_allow_option("Ignore `apc: allow RULE` comments (CI).")
@fix_options
@run_options
def validate(
    paths: tuple[Path, ...],
    profile: str | None,
    list_files: bool,
    no_inline_allow: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    run: Run,
) -> None:
    """Validate AGENTS.md, .apc/ and other agent-context files.

    Each PATH's project (the nearest folder up holding .apc/, else the git top level, else the
    nearest AGENTS.md) is checked with its full context; findings are reported for the files
    under PATH. No PATH: the project around the current folder. Files that are not
    agent-context files are skipped and counted (pre-commit passes every changed file). Paths
    in the report are relative to the repository root (the git top level, else the project
    root), whatever folder apc runs from.
    """
    from apc_tools.contract import warm

    if fix or diff or unsafe_fixes:
        run_fixes(paths, fix, unsafe_fixes, diff, profile, run.config, run.fmt, Path.cwd())
    try:
        root = warm.report_root(Path.cwd().resolve())
        # An unchanged tree is answered whole from the cache (contract.warm), without
        # importing the parsers and checks; else the run, stored for the next time.
        outcome = warm.validate_tree(
            list(paths),
            profile=profile,
            config_path=run.config,
            inline_allow=not no_inline_allow,
            selection=run.selection,
            cache=not run.no_cache,
            report=root,
        )
        from apc_tools.boundary.trusted import accept_baseline

        accepted = accept_baseline(outcome.result, root, run.config)
    except CannotRun as exc:
        fail(str(exc))
    if list_files:
        for shown, kind in outcome.listed:
            click.echo(f"{escape(shown)}: {kind}", err=run.fmt != "text")
        for shown in outcome.skipped:
            click.echo(
                f"{escape(shown)}: skipped (not an agent-context file)", err=run.fmt != "text"
            )
    run.emit(
        accepted, registry=validate_registry(run.fmt), source=(root, lambda rule: False, "HEAD")
    )


def validate_registry(fmt: str) -> Registry | None:
    """The rules `apc validate` reports (the floor's and the contract's) for the formats that
    show only the rules of the findings: importing the gate's and the runtime's rules was a
    fifth of a warm run. SARIF, --report-file and --statistics use the whole catalog (None)."""
    ctx = click.get_current_context(silent=True)
    meta = ctx.meta if ctx is not None else {}
    if fmt not in ("text", "json") or meta.get(REPORT_FILES) or meta.get(STATISTICS):
        return None
    if fmt == "json":  # the JSON report names no rule's metadata: no rules imported
        return Registry.of(())
    from apc_tools.contract.rules import RULES as CONTRACT_RULES
    from apc_tools.core.rules import RULES as CORE_RULES

    return Registry.of((*CORE_RULES, *CONTRACT_RULES))
