"""The command line: parse options, call the library, render, exit. Nothing else lives here.

Exit codes: 0 nothing at error level, 1 findings at error level (or warnings with --strict),
2 the command could not run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from apc_tools import __version__
from apc_tools.findings import CannotRun, Registry, Result

F = TypeVar("F", bound=Callable[..., Any])
FORMATS = ("text", "json", "sarif", "github")


def use_color(no_color: bool, stream: Any = None) -> bool:
    """--no-color and NO_COLOR turn colour off, FORCE_COLOR on; otherwise only on a terminal."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


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
    from apc_tools.contract.schemas import schema_names, schema_text

    if name is None:
        click.echo("\n".join(schema_names()))
        return
    if name not in schema_names():
        fail(f"no schema {name!r}; known: {', '.join(schema_names())}")
    click.echo(schema_text(name), nl=False)


# --- apc repair: owned by the runtime module (apc_tools.runtime.command) ---------------------
REPAIR_WIRES = ("auto", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")


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
    from apc_tools.runtime.command import run_repair

    to_stdout = out is None and not in_place and not check
    try:
        outcome = run_repair(
            file,
            out=out,
            in_place=in_place,
            wire=wire,
            check_only=check,
            skip_bad_lines=skip_bad_lines,
            contract=_repair_contract(project, file, out, in_place),
            stdout=sys.stdout.buffer if to_stdout else None,
        )
    except CannotRun as exc:
        fail(str(exc))
        return
    except OSError as exc:
        fail(f"{exc.filename or file}: {exc.strerror or exc}")
        return
    from apc_tools.runtime.rules import RULES as REPAIR_RULES

    # only the runtime family's rules can appear: loading every contract check would slow a run
    emit(outcome.result, fmt, no_color, strict, registry=Registry.of(REPAIR_RULES), err=to_stdout)


def _repair_contract(project: Path | None, file: Path, out: Path | None, in_place: bool) -> Any:
    """The contract of --project or of the cwd's project; the project around the target (if
    any other) is checked here too, so no APC project's tree is ever written."""
    from apc_tools.runtime.store import ensure_outside

    contract = _load_contract(project if project is not None else Path.cwd())
    if project is not None and contract is None:
        fail(f"--project {project}: no APC project there (no .apc/ or AGENTS.md)")
    target = out if out is not None else file if in_place else None
    if target is not None:
        folder = target.absolute().parent
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        around = _load_contract(folder)
        if around is not None and (contract is None or around.root != contract.root):
            ensure_outside(around, target)
    return contract


def _load_contract(start: Path) -> Any:
    """load_contract(start), skipped (None) when no folder above holds .apc/ or AGENTS.md: the
    common case of runtime storage, where loading the contract checks would cost more than the
    repair of a small history."""
    chains = [(f, *f.parents) for f in (start.absolute(), start.resolve())]  # symlinks too
    if not any((p / ".apc").is_dir() or (p / "AGENTS.md").is_file() for c in chains for p in c):
        return None
    from apc_tools.contract.validate import load_contract

    return load_contract(start)


# --- end apc repair -------------------------------------------------------------------------
