"""``apc repair``: close the tool calls an interrupted turn left unanswered (the library:
:func:`apc_tools.runtime.command.run_repair`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from apc_tools.cli.common import common_options, emit, fail
from apc_tools.findings import CannotRun, Registry, Result

if TYPE_CHECKING:
    from apc_tools.contract.model import Contract
    from apc_tools.core.policy import Policy

REPAIR_WIRES = ("auto", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")
"""``auto`` and apc_tools.runtime.model.WIRES (not imported here: it would load the runtime)."""

STDIN = "-"


@click.command()
@click.argument(
    "file", type=click.Path(path_type=Path, dir_okay=False, allow_dash=True), required=False
)
@click.option(
    "-o",
    "--output",
    "out",
    type=click.Path(path_type=Path, dir_okay=False, allow_dash=True),
    metavar="OUT",
    help="Write the repaired history to OUT (outside the project tree; - for stdout).",
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
@click.option(
    "--all",
    "all_sessions",
    is_flag=True,
    help="Every session of the --project (Claude Code, Codex, Gemini CLI, APC); with "
    "--check or --in-place.",
)
@click.option(
    "--reparent",
    is_flag=True,
    help="Claude Code: also close a call mid-chain by re-attaching the record after it.",
)
@common_options
def repair(fmt: str, strict: bool, config: Path | None, no_color: bool, **options: Any) -> None:
    """Close tool calls an interrupted turn left unanswered.

    FILE may be - (stdin). The repaired history goes to OUT (-o), back into FILE (--in-place),
    or to stdout; the report of changes goes to stdout, or to stderr when the history itself is
    on stdout. Session files of Claude Code, Codex and Gemini CLI are repaired add-only with
    their tool's own rules; other known formats are refused by name. With --project DIR --all,
    every session of the project is checked (--check) or repaired (--in-place). Exit 0: done
    (or, with --check, a provider would accept FILE); 1: --check found what a provider rejects;
    2: could not run (bad input, a refused format, or a target inside the project tree).
    """
    if options["out"] is not None and str(options["out"]) == STDIN:
        if options["in_place"]:
            fail("use either -o OUT or --in-place, not both")
        options["out"] = None
    to_stdout = False
    try:
        policy = repair_policy(config)
        if options.pop("all_sessions"):
            result = repair_all_command(**options)
        elif options["file"] is None:
            raise CannotRun("name the history FILE to repair (or --project DIR --all)")
        else:
            result, to_stdout = repair_command(**options)
    except CannotRun as exc:
        fail(str(exc))
    if policy is not None:
        result = Result.of(policy.apply(result.findings), result.files)
        strict = strict or policy.strict
    emit(result, fmt, no_color, strict, registry=repair_registry(), err=to_stdout)


def repair_policy(config: Path | None) -> Policy | None:
    """The policy of --config (read and checked exactly as ``apc validate`` does), or None."""
    if config is None:
        return None
    from apc_tools.core.policy import load_policy

    return load_policy(config, Path("."))


def repair_all_command(**options: Any) -> Result:
    """``apc repair --project DIR --all``: only the options that apply to a whole project."""
    project = options["project"]
    if options["file"] is not None or project is None or options["out"] is not None:
        raise CannotRun("--all takes --project DIR, and no FILE or -o")
    if options["wire"] != "auto" or options["skip_bad_lines"] or options["reparent"]:
        raise CannotRun(
            "--all repairs each session with its own tool's rules: drop "
            "--wire/--skip-bad-lines/--reparent"
        )
    return repair_all(project, check_only=options["check"], in_place=options["in_place"])


def repair_command(
    file: Path,
    out: Path | None,
    in_place: bool,
    wire: str,
    check: bool,
    skip_bad_lines: bool,
    project: Path | None,
    reparent: bool = False,
) -> tuple[Result, bool]:
    """Run ``apc repair``: (its result, True when the history went to stdout).

    Raises :class:`CannotRun` with the message to print after ``apc: error:`` (exit 2).
    """
    from apc_tools.runtime.command import run_repair

    to_stdout = out is None and not in_place and not check
    from_stdin = str(file) == STDIN
    if from_stdin and in_place:
        raise CannotRun("--in-place needs a file; stdin (-) cannot be replaced")
    try:
        outcome = run_repair(
            Path("<stdin>") if from_stdin else file,
            out=out,
            in_place=in_place,
            wire=wire,
            check_only=check,
            skip_bad_lines=skip_bad_lines,
            contract=_repair_contract(project, file, out, in_place),
            stdout=_stdout_bytes() if to_stdout else None,
            source=_stdin_bytes() if from_stdin else None,
            reparent=reparent,
        )
    except BrokenPipeError:
        raise  # the reader of stdout went away: click exits 1 quietly
    except RecursionError:
        raise CannotRun(f"{file}: nested too deeply to repair") from None
    except OSError as exc:  # a read of the input failed (writes raise StoreError)
        raise CannotRun(f"{exc.filename or file}: {exc.strerror or exc}") from None
    return outcome.result, to_stdout


def repair_all(
    project: Path, *, check_only: bool, in_place: bool, home: Path | None = None
) -> Result:
    """``apc repair --project DIR --all``: validate the contract, then check or repair each
    session of the project found in the agents' stores (outside the project)."""
    from apc_tools.contract.validate import load_contract, validate
    from apc_tools.findings import Severity
    from apc_tools.runtime.sessions.project import repair_project

    contract = load_contract(project)
    if contract is None:
        raise CannotRun(f"--project {project}: no APC project there (no .apc/ or AGENTS.md)")
    checked = validate([contract.root], cwd=contract.root)
    errors = sum(1 for f in checked.findings if f.severity is Severity.ERROR)
    outcome = repair_project(
        contract,
        home=home if home is not None else Path.home(),
        contract_errors=errors,
        check_only=check_only,
        in_place=in_place,
    )
    return outcome.result


def _stdout_bytes() -> IO[bytes]:
    if sys.stdout is None:
        raise CannotRun("stdout is closed: nowhere to write the repaired history; use -o OUT")
    return sys.stdout.buffer


def _stdin_bytes() -> IO[bytes]:
    if sys.stdin is None:
        raise CannotRun("stdin is closed: nothing to read (FILE is -)")
    return sys.stdin.buffer


def repair_registry() -> Registry:
    """The rules a repair can raise: only the runtime family's (loading every contract check
    would slow a run)."""
    from apc_tools.runtime.rules import RULES

    return Registry.of(RULES)


def _repair_contract(
    project: Path | None, file: Path, out: Path | None, in_place: bool
) -> Contract | None:
    """The contract of --project or of the cwd's project; the project around the resolved
    target (if any other) is checked here too, so no APC project's tree is ever written (and
    the atomic writer refuses one again, for any caller)."""
    from apc_tools.runtime.store import ensure_outside, resolve_target

    contract = _load_contract(project if project is not None else Path.cwd())
    if project is not None and contract is None:
        raise CannotRun(f"--project {project}: no APC project there (no .apc/ or AGENTS.md)")
    target = out if out is not None else file if in_place else None
    if target is not None:
        folder = resolve_target(target).parent  # every symlink, the last one too
        while not folder.is_dir() and folder != folder.parent:
            folder = folder.parent
        try:
            around = _load_contract(folder)
        except OSError as exc:  # a folder swapped for a link while it is read (a race)
            raise CannotRun(f"cannot write {target}: {folder}: {exc.strerror or exc}") from None
        if around is not None and (contract is None or around.root != contract.root):
            ensure_outside(around, target)
    return contract


def _load_contract(start: Path) -> Contract | None:
    """load_contract(start), skipped (None) when no folder above holds .apc/ or AGENTS.md: the
    common case of runtime storage, where loading the contract checks would cost more than the
    repair of a small history."""
    from apc_tools.runtime.store import is_project_folder

    chains = [(f, *f.parents) for f in (start.absolute(), start.resolve())]  # symlinks too
    if not any(is_project_folder(p) for c in chains for p in c):
        return None
    from apc_tools.contract.validate import load_contract

    return load_contract(start)
