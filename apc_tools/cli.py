"""The command line: parse options, call the library, render, exit. Nothing else lives here.

Exit codes: 0 nothing at error level, 1 findings at error level (or warnings with --strict),
2 the command could not run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from apc_tools import __version__
from apc_tools.entry import (
    FORMATS,
    REPAIR_WIRES,
    repair_command,
    repair_registry,
    use_color,
)
from apc_tools.findings import CannotRun, Registry, Result

F = TypeVar("F", bound=Callable[..., Any])


def common_options(func: F) -> F:
    func = click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="text",
        show_default=True,
        help="Output format.",
    )(func)
    func = click.option("--strict", is_flag=True, help="Warnings fail the run too.")(func)
    func = click.option(
        "--config",
        "config",
        type=click.Path(path_type=Path, dir_okay=False),
        default=None,
        help="Policy file (default: .apc-tools.yaml at the project root).",
    )(func)
    func = click.option("--no-color", is_flag=True, help="Never colour the output.")(func)
    return func


def emit(
    result: Result,
    fmt: str,
    no_color: bool,
    strict: bool,
    *,
    registry: Registry | None = None,
    err: bool = False,
) -> None:
    """Render ``result`` (to stderr with ``err``) and exit 0 or 1. The registry defaults to the
    whole catalog; a command whose rules are known may pass a smaller one."""
    from apc_tools.report import render

    if registry is None:
        from apc_tools.catalog import registry as catalog

        registry = catalog()
    color = use_color(no_color, sys.stderr if err else sys.stdout)
    text = render(result, fmt, registry, color=color, version=__version__)
    if text:
        # click strips ANSI codes when the stream is not a terminal unless told otherwise
        click.echo(text, nl=not text.endswith("\n"), color=color, err=err)
    sys.exit(1 if result.failed(strict) else 0)


def fail(message: str) -> None:
    click.echo(f"apc: error: {message}", err=True)
    sys.exit(2)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="apc")
def main() -> None:
    """apc-tools: keep the agent contract valid and runtime state out of the repository."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--profile",
    type=click.Choice(["default", "agentskills"]),
    default=None,
    help="agentskills: SKILL.md exactly as the Agent Skills spec (unknown keys are errors).",
)
@common_options
def validate(
    paths: tuple[Path, ...],
    profile: str | None,
    fmt: str,
    strict: bool,
    config: Path | None,
    no_color: bool,
) -> None:
    """Validate AGENTS.md, .apc/ and other agent-context files (default: the current folder)."""
    from apc_tools.contract.validate import validate as run_validate

    try:
        result = run_validate(list(paths) or [Path(".")], profile=profile, config_path=config)
    except CannotRun as exc:
        fail(str(exc))
        return
    emit(result, fmt, no_color, strict)


@main.command()
@click.argument("rule_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
def rules(rule_id: str | None, fmt: str) -> None:
    """List the rules, or explain one (with a passing and a failing example).

    `apc rules --format markdown` prints the whole rules reference (docs/rules.md).
    """
    from apc_tools.catalog import registry
    from apc_tools.report.rules_doc import explain_rule, list_rules

    reg = registry()
    if rule_id is not None:
        key = rule_id.upper()
        if key not in reg:
            fail(f"no rule {rule_id!r}; `apc rules` lists them")
        click.echo(explain_rule(reg[key], fmt))
        return
    text = list_rules(reg, fmt)
    click.echo(text, nl=not text.endswith("\n"))


@main.command()
@click.argument("name", required=False)
def schema(name: str | None) -> None:
    """Print a published JSON Schema, or list their names."""
    from apc_tools.core.schemas import schema_names, schema_text

    if name is None:
        click.echo("\n".join(schema_names()))
        return
    if name not in schema_names():
        fail(f"no schema {name!r}; known: {', '.join(schema_names())}")
    click.echo(schema_text(name), nl=False)


# --- apc boundary: owned by the boundary gate (apc_tools.boundary) ---------------------------


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--staged", "mode", flag_value="staged", help="Scan the index (pre-commit).")
@click.option(
    "--tracked",
    "mode",
    flag_value="tracked",
    default=True,
    help="Scan every blob of the tree at HEAD (the default: a fresh checkout).",
)
@click.option("--range", "rev_range", metavar="A..B", help="Scan the commits of A..B (CI).")
@click.option("--history", "mode", flag_value="history", help="Scan every reachable commit.")
@click.option(
    "--secrets",
    type=click.Choice(["contract", "all"]),
    default=None,
    help="Look for secrets in contract and flagged files only (default), or in every file.",
)
@click.option("--write-baseline", is_flag=True, help="Accept every current finding.")
@click.option("--no-inline-allow", is_flag=True, help="Ignore `apc: allow RULE` comments.")
@click.option(
    "-C",
    "directory",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Run as if started in DIR (as git -C).",
)
@click.option(
    "--progress/--no-progress",
    default=None,
    help="Show progress on stderr (default: when stderr is a terminal).",
)
@common_options
def boundary(
    paths: tuple[Path, ...],
    mode: str,
    rev_range: str | None,
    secrets: str | None,
    write_baseline: bool,
    no_inline_allow: bool,
    directory: Path | None,
    progress: bool | None,
    fmt: str,
    strict: bool,
    config: Path | None,
    no_color: bool,
) -> None:
    """Refuse agent runtime state (sessions, transcripts, tool records, interruption markers,
    caches, private config, secrets) in what is or will be committed: read from git objects,
    never from the working tree. PATHs restrict the scan."""
    from apc_tools.boundary import Options, scan

    if rev_range is not None and mode not in ("tracked", "range"):
        fail("--range cannot be combined with --staged or --history")
    cwd = directory if directory is not None else Path.cwd()
    options = Options(
        cwd=cwd,
        paths=paths,
        mode="range" if rev_range is not None else mode,
        rev_range=rev_range,
        secrets=secrets,
        config=config,
        inline_allow=not no_inline_allow,
        write_baseline=write_baseline,
    )
    show = progress if progress is not None else sys.stderr.isatty()
    try:
        outcome = scan(options, progress=_progress_line if show else None)
    except CannotRun as exc:
        fail(str(exc))
        return
    finally:
        if show:
            click.echo("\r\x1b[K", nl=False, err=True)
    if outcome.baseline_written is not None:
        click.echo(
            f"wrote {outcome.baseline_entries} accepted findings to {outcome.baseline_written}"
        )
        sys.exit(0)
    emit(outcome.result, fmt, no_color, strict)


def _progress_line(done: int, total: int) -> None:
    if done == total or done % 200 == 0:
        click.echo(f"\rapc boundary: {done}/{total} blobs", nl=False, err=True)


# --- apc repair: owned by the runtime module (apc_tools.runtime.command) ---------------------
# The body is apc_tools.entry.repair_command, which apc_tools.entry also runs without click.


@main.command()
@click.argument("file", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="OUT",
    help="Write the repaired history to OUT (outside the project tree).",
)
@click.option("--in-place", is_flag=True, help="Replace FILE atomically (outside the project).")
@click.option(
    "--wire",
    type=click.Choice(REPAIR_WIRES),
    default="auto",
    show_default=True,
    help="The history's wire format (auto: detected from its first records).",
)
@click.option("--check", is_flag=True, help="Only check: report what a provider would reject.")
@click.option("--skip-bad-lines", is_flag=True, help="JSONL: repair the lines that parse.")
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="The APC project whose tree must not be written (default: found from cwd).",
)
@common_options
def repair(
    file: Path,
    out: Path | None,
    in_place: bool,
    wire: str,
    check: bool,
    skip_bad_lines: bool,
    project: Path | None,
    fmt: str,
    strict: bool,
    config: Path | None,
    no_color: bool,
) -> None:
    """Close tool calls an interrupted turn left unanswered.

    The repaired history goes to OUT (-o), back into FILE (--in-place), or to stdout; the report
    of changes goes to stdout, or to stderr when the history itself is on stdout. Exit 0: done
    (or, with --check, a provider would accept FILE); 1: --check found what a provider rejects;
    2: could not run (bad input, or a target inside the project tree).
    """
    try:
        result, to_stdout = repair_command(
            file, out, in_place, wire, check, skip_bad_lines, project
        )
    except CannotRun as exc:
        fail(str(exc))
        return
    emit(result, fmt, no_color, strict, registry=repair_registry(), err=to_stdout)


# --- end apc repair -------------------------------------------------------------------------
