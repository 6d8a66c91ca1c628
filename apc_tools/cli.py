"""The command line (``apc``, ``python -m apc_tools``): parse options, call the library, render,
exit. It is the only module that prints, and everything it prints from a file nobody checked
goes through :func:`apc_tools.report.escape.escape` (findings in the renderers, ``apc: error:``
lines in :func:`fail`).

Start-up is kept light: each command imports the library modules it needs inside its body, so
``apc --version`` loads click and nothing heavy (tests/test_architecture.py checks it).

Exit codes: 0 nothing at error level, 1 findings at error level (or warnings with --strict),
2 the command could not run; 143 after SIGTERM (temporary files removed first).
"""

from __future__ import annotations

import errno
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import IO, TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from apc_tools import __version__
from apc_tools.findings import CannotRun, Finding, Registry, Result
from apc_tools.report import FORMATS
from apc_tools.report.escape import escape

if TYPE_CHECKING:
    from apc_tools.contract.model import Contract
    from apc_tools.core.policy import Policy
    from apc_tools.core.selection import Selection

REPAIR_WIRES = ("auto", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")
"""``auto`` and apc_tools.runtime.model.WIRES (not imported here: it would load the runtime)."""

STDIN = "-"

F = TypeVar("F", bound=Callable[..., Any])


# --------------------------------------------------------------------------------------------
# Output


def use_color(no_color: bool, stream: Any = None) -> bool:
    """--no-color and NO_COLOR turn colour off, FORCE_COLOR on; otherwise only on a terminal."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def fail(message: str) -> NoReturn:
    """``apc: error: MESSAGE`` on stderr (escaped: one inert line), exit 2."""
    click.echo(f"apc: error: {escape(message)}", err=True)
    sys.exit(2)


def echo(text: str, *, nl: bool = True, color: bool | None = None, err: bool = False) -> None:
    """``click.echo``; a failed write (disk full) is one ``apc: error:`` line and exit 2. A
    reader gone away (EPIPE) is left to click, which exits 1 quietly."""
    try:
        click.echo(text, nl=nl, color=color, err=err)
    except OSError as exc:
        if exc.errno == errno.EPIPE or err:
            raise
        _discard_stdout()
        fail(f"cannot write to stdout: {exc.strerror or exc}")


def _discard_stdout() -> None:
    """Point file descriptor 1 at the null device, so the text still buffered for stdout is
    dropped at exit instead of failing again (a second error, exit 120)."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
    finally:
        os.close(null)


def emit(
    result: Result,
    fmt: str,
    no_color: bool,
    strict: bool,
    *,
    registry: Registry | None = None,
    err: bool = False,
) -> NoReturn:
    """Render ``result`` (to stderr with ``err``) and exit 0 or 1. The registry defaults to the
    whole catalog; a command whose rules are known may pass a smaller one."""
    from apc_tools.report import render

    if registry is None:
        from apc_tools.catalog import registry as catalog

        registry = catalog()
    write_report_files(result, registry)
    color = use_color(no_color, sys.stderr if err else sys.stdout)
    ctx = click.get_current_context(silent=True)
    if ctx is not None and ctx.meta.get(STATISTICS):
        from apc_tools.report.statistics import render_statistics

        try:
            text = render_statistics(result, fmt, registry)
        except ValueError as exc:
            fail(str(exc))
    else:
        lines = line_reader(registry) if fmt == "full" else None
        text = render(result, fmt, registry, color=color, version=__version__, line_of=lines)
    if text:
        # click strips ANSI codes when the stream is not a terminal unless told otherwise
        echo(text, nl=not text.endswith("\n"), color=color, err=err)
    sys.exit(1 if result.failed(strict) else 0)


# --------------------------------------------------------------------------------------------
# The group


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a CI cancel) unwinds like an exception: the atomic writer removes its temporary
    file on the way out."""
    raise SystemExit(128 + signum)


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
    func = report_file_option(func)
    return func


def directory_option(func: F) -> F:
    """``-C DIR``: the commands that find a git repository start there, as ``git -C`` does."""
    return click.option(
        "-C",
        "directory",
        metavar="DIR",
        type=click.Path(path_type=Path, file_okay=False),
        default=None,
        help="Run as if started in DIR (as git -C).",
    )(func)


def cache_option(func: F) -> F:
    """``--no-cache``: the commands whose verdicts core/cache.py keeps between runs."""
    return click.option(
        "--no-cache",
        is_flag=True,
        help="Neither read nor write the result cache in $XDG_CACHE_HOME/apc-tools "
        "(~/.cache/apc-tools); APC_NO_CACHE=1 does the same.",
    )(func)


def progress_option(func: F) -> F:
    return click.option(
        "--progress/--no-progress",
        default=None,
        help="Show progress on stderr (default: on a terminal, for large scans).",
    )(func)


# --- one run, two outputs: --report-file FORMAT:PATH ------------------------------------------
# The option is kept in the click context (expose_value=False), not passed to each command: every
# command with common_options gets it, and emit() writes the files from the same Result.
REPORT_FILES = "apc.report_files"


def report_file_option(func: F) -> F:
    return click.option(
        "--report-file",
        multiple=True,
        metavar="FORMAT:PATH",
        expose_value=False,
        callback=keep_report_files,
        help="Also write the report in FORMAT to PATH (repeatable), e.g. sarif:apc.sarif.",
    )(func)


def keep_report_files(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> None:
    ctx.meta[REPORT_FILES] = tuple(parse_report_file(value) for value in values)


def parse_report_file(value: str) -> tuple[str, Path]:
    """``FORMAT:PATH`` -> (format, path); a usage error (exit 2) when either part is wrong."""
    fmt, sep, path = value.partition(":")
    if not sep or not path:
        raise click.BadParameter(f"{value!r} is not FORMAT:PATH (e.g. sarif:apc.sarif)")
    if fmt not in FORMATS:
        raise click.BadParameter(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    return fmt, Path(path)


def write_report_files(result: Result, registry: Registry) -> None:
    """Write every --report-file of the running command (never coloured); exit 2 on failure."""
    from apc_tools.report import render

    ctx = click.get_current_context(silent=True)
    for fmt, path in ctx.meta.get(REPORT_FILES, ()) if ctx is not None else ():
        lines = line_reader(registry) if fmt == "full" else None
        text = render(result, fmt, registry, color=False, version=__version__, line_of=lines)
        try:
            path.write_text(text, encoding="utf-8", errors="replace")
        except OSError as exc:
            fail(f"--report-file {path}: {exc.strerror or exc}")


# --- --statistics, --select, --ignore (validate, boundary, check) -------------------------------
# Kept in the click context like --report-file: the commands read the selection, emit() the rest.
STATISTICS = "apc.statistics"
SELECTION = "apc.selection"
SOURCE = "apc.source"  # (root, in_git, rev) for the lines of --format full


def output_options(func: F) -> F:
    func = click.option(
        "--statistics",
        is_flag=True,
        expose_value=False,
        callback=keep_statistics,
        help="Print a count per rule instead of the findings (as ruff --statistics).",
    )(func)
    for name, what in (("--ignore", "Never report"), ("--select", "Report only")):
        func = click.option(
            name,
            multiple=True,
            metavar="RULE,...",
            expose_value=False,
            callback=keep_selectors,
            help=f"{what} these rules: ids or prefixes (BTR, SKL006), comma-separated; "
            "the command line wins over the policy's disable:.",
        )(func)
    return func


def keep_statistics(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    ctx.meta[STATISTICS] = value


def keep_selectors(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> None:
    from apc_tools.core.selection import parse_selectors

    try:
        selectors = parse_selectors(values)
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from None
    if selectors:
        from apc_tools.catalog import registry

        ids = [rule.id for rule in registry()]
        for selector in selectors:
            if selector != "ALL" and not any(i.startswith(selector) for i in ids):
                raise click.BadParameter(f"no rule is {selector} or starts with it (`apc rules`)")
    ctx.meta[f"{SELECTION}.{param.name}"] = selectors


def cli_selection() -> Selection:
    """The --select/--ignore of the running command."""
    from apc_tools.core.selection import Selection

    ctx = click.get_current_context()
    return Selection(
        ctx.meta.get(f"{SELECTION}.select", ()), ctx.meta.get(f"{SELECTION}.ignore", ())
    )


def keep_source(root: Path, in_git: Callable[[str], bool], rev: str = "HEAD") -> None:
    """Where --format full reads the lines of the findings (see apc_tools.report.source)."""
    click.get_current_context().meta[SOURCE] = (root, in_git, rev)


def line_reader(registry: Registry) -> Callable[[Finding], str | None] | None:
    ctx = click.get_current_context(silent=True)
    where = ctx.meta.get(SOURCE) if ctx is not None else None
    if where is None:
        return None
    from apc_tools.report.source import SourceLines

    root, in_git, rev = where
    return SourceLines(root, registry, in_git=in_git, rev=rev).line


class EscapedGroup(click.Group):
    """A group whose usage errors (click's own "Error: ..." lines, which quote the values given,
    such as a hostile file name) are escaped like every other message apc prints.

    A bare ``apc`` prints the help to stdout and exits 0, with every click the package accepts:
    click 8.1 did so itself; click 8.2 and later raise a usage error instead (help on stderr,
    exit 2), which the escaping would turn into one line of literal ``\\x0a``
    (tests/cli/test_click_versions.py runs both)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and self.no_args_is_help and not ctx.resilient_parsing:
            click.echo(ctx.get_help(), color=ctx.color)
            ctx.exit(0)
        return super().parse_args(ctx, args)

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        with _escaped_usage_errors():
            return super().make_context(*args, **kwargs)

    def invoke(self, ctx: click.Context) -> Any:
        with _escaped_usage_errors():
            return super().invoke(ctx)


@contextmanager
def _escaped_usage_errors() -> Iterator[None]:
    try:
        yield
    except click.ClickException as exc:
        exc.message = escape(exc.message)  # type: ignore[misc]  # Final in click, set on purpose
        raise


@click.group(cls=EscapedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="apc")
def main() -> None:
    """apc-tools: keep the agent contract valid and runtime state out of the repository."""
    if threading.current_thread() is threading.main_thread():  # where a handler can be set
        signal.signal(signal.SIGTERM, _terminate)
    try:
        os.getcwd()
    except FileNotFoundError:
        fail("the working folder no longer exists (deleted?); cd into an existing folder")


def fix_options(func: F) -> F:
    """--fix, --unsafe-fixes and --diff (apc validate, apc check)."""
    func = click.option(
        "--diff",
        is_flag=True,
        help="Show the fixes as a diff and write nothing (exit 1 when there is one).",
    )(func)
    func = click.option(
        "--unsafe-fixes",
        is_flag=True,
        help="With --fix or --diff: also the fixes that change an identity or a value.",
    )(func)
    return click.option(
        "--fix", is_flag=True, help="Repair what can be repaired safely, then report the rest."
    )(func)


def show_diffs(diffs: list[bytes]) -> None:
    """--diff: the patch byte for byte when stdout is a file or a pipe (``git apply`` and
    ``patch`` take it as it is: CRLF, a byte-order mark); on a terminal each line escaped,
    as every other output (a file's control characters never reach the terminal)."""
    out = sys.stdout
    if out.isatty():
        for data in diffs:
            for line in data.decode("utf-8", "surrogateescape").split("\n")[:-1]:
                echo(escape(line))
        return
    out.flush()
    for data in diffs:
        out.buffer.write(data)
    out.buffer.flush()


def run_fixes(
    paths: tuple[Path, ...],
    fix: bool,
    unsafe: bool,
    diff: bool,
    profile: str | None,
    config: Path | None,
    fmt: str,
    cwd: Path,
) -> None:
    """Apply (--fix) or show (--diff) the contract fixes; --diff exits here."""
    from apc_tools.contract.fix import fix_paths, summary_lines

    if unsafe and not (fix or diff):
        fail("--unsafe-fixes needs --fix or --diff")
    try:
        outcome = fix_paths(
            list(paths),
            unsafe=unsafe,
            write=not diff,
            profile=profile,
            config_path=config,
            cwd=cwd,
            selection=cli_selection(),
        )
    except CannotRun as exc:
        fail(str(exc))
    if diff:
        show_diffs([planned.diff() for planned in outcome.files])
    for line in summary_lines(outcome, wrote=not diff):
        echo(escape(line), err=diff or fmt != "text")
    if diff:
        sys.exit(1 if outcome.files else 0)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
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
@click.option("--no-inline-allow", is_flag=True, help="Ignore `apc: allow RULE` comments (CI).")
@fix_options
@cache_option
@output_options
@common_options
def validate(
    paths: tuple[Path, ...],
    profile: str | None,
    list_files: bool,
    no_inline_allow: bool,
    no_cache: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    fmt: str,
    strict: bool,
    config: Path | None,
    no_color: bool,
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
        run_fixes(paths, fix, unsafe_fixes, diff, profile, config, fmt, Path.cwd())
    try:
        root = warm.report_root(Path.cwd().resolve())
        # An unchanged tree is answered whole from the cache (contract.warm), without
        # importing the parsers and checks; else the run, stored for the next time.
        outcome = warm.validate_tree(
            list(paths),
            profile=profile,
            config_path=config,
            inline_allow=not no_inline_allow,
            selection=cli_selection(),
            cache=not no_cache,
            report=root,
        )
        keep_source(root, lambda rule: False)
        from apc_tools.check import accept_baseline

        accepted = accept_baseline(outcome.result, root, config)
    except CannotRun as exc:
        fail(str(exc))
    if list_files:
        for shown, kind in outcome.listed:
            click.echo(f"{escape(shown)}: {kind}", err=fmt != "text")
        for shown in outcome.skipped:
            click.echo(f"{escape(shown)}: skipped (not an agent-context file)", err=fmt != "text")
    emit(accepted, fmt, no_color, strict, registry=validate_registry(fmt))


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


@main.command()
@click.argument("rule_id", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "markdown"]), default="text")
@click.option("--fixable", is_flag=True, help="Only the rules that --fix repairs (safe, unsafe).")
def rules(rule_id: str | None, fmt: str, fixable: bool) -> None:
    """List the rules, or explain one (with a passing and a failing example).

    `apc rules --format markdown` prints the whole rules reference (docs/rules.md).
    """
    from apc_tools.catalog import registry
    from apc_tools.report.rules_doc import explain_rule, list_rules
    from apc_tools.report.rules_doc import fixable as only_fixable

    reg = only_fixable(registry()) if fixable else registry()
    if rule_id is not None:
        key = rule_id.upper()
        if key not in reg:
            fail(f"no rule {rule_id!r}; `apc rules` lists them")
        echo(explain_rule(reg[key], fmt))
        return
    text = list_rules(reg, fmt)
    echo(text, nl=not text.endswith("\n"))


@main.command()
@click.argument("name", required=False)
def schema(name: str | None) -> None:
    """Print a published JSON Schema, or list their names."""
    from apc_tools.core.schemas import schema_names, schema_text

    if name is None:
        echo("\n".join(schema_names()))
        return
    if name not in schema_names():
        fail(f"no schema {name!r}; known: {', '.join(schema_names())}")
    echo(schema_text(name), nl=False)


@main.command()
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


# --------------------------------------------------------------------------------------------
# apc boundary (the library: apc_tools.boundary.scan)


def _mode_flags(
    staged: bool, tracked: bool, rev_range: str | None, history: bool
) -> tuple[tuple[str, bool], ...]:
    return (
        ("--staged", staged),
        ("--tracked", tracked),
        ("--range", rev_range is not None),
        ("--history", history),
    )


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--staged", is_flag=True, help="Scan the index (pre-commit).")
@click.option(
    "--tracked",
    is_flag=True,
    help="Scan every blob of the tree at HEAD (the default: a fresh checkout).",
)
@click.option("--range", "rev_range", metavar="A..B", help="Scan the commits of A..B (CI).")
@click.option("--history", is_flag=True, help="Scan every reachable commit.")
@click.option(
    "--secrets",
    type=click.Choice(["contract", "all"]),
    default=None,
    help="Look for secrets in contract and flagged files only (default), or in every file.",
)
@click.option("--write-baseline", is_flag=True, help="Accept every current finding.")
@click.option("--no-inline-allow", is_flag=True, help="Ignore `apc: allow RULE` comments.")
@click.option(
    "--fix",
    is_flag=True,
    help="With --staged: untrack each leaked runtime file (kept on disk) and ignore it.",
)
@directory_option
@progress_option
@cache_option
@output_options
@common_options
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
    directory: Path | None,
    progress: bool | None,
    no_cache: bool,
    fmt: str,
    strict: bool,
    config: Path | None,
    no_color: bool,
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
    cwd = directory if directory is not None else Path.cwd()
    options = Options(
        cwd=cwd,
        paths=paths,
        mode=mode,
        rev_range=rev_range,
        secrets=secrets,
        config=config,
        inline_allow=not no_inline_allow,
        write_baseline=write_baseline,
        selection=cli_selection(),
        cache=not no_cache,
    )
    bar = progress_line("apc boundary", progress, large=0 if mode == "history" else LARGE_SCAN)
    try:
        outcome = scan(options, progress=bar)
    except CannotRun as exc:
        fail(str(exc))
    finally:
        if bar is not None:
            bar.close()
    if outcome.baseline_written is not None:
        where = escape(str(outcome.baseline_written))
        count = outcome.baseline_entries
        echo(f"wrote {count} accepted finding{'' if count == 1 else 's'} to {where}")
        sys.exit(0)
    incomplete = False
    if fix:
        outcome, incomplete = boundary_fix(options, outcome, fmt)
    from apc_tools.boundary.rules import RULES
    from apc_tools.core.git import toplevel

    top = toplevel(cwd)
    if top is not None:
        keep_source(top, lambda rule: True, "" if mode == "staged" else "HEAD")
    try:
        emit(outcome.result, fmt, no_color, strict, registry=Registry.of(RULES))
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


# --------------------------------------------------------------------------------------------
# apc check: validate + boundary, the CI and fresh-checkout gate (apc_tools.check)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--range", "rev_range", metavar="A..B", help="Scan every commit of A..B (CI).")
@click.option("--no-inline-allow", is_flag=True, help="Ignore `apc: allow RULE` comments (CI).")
@click.option(
    "--write-baseline",
    is_flag=True,
    help="Accept every current finding of both halves (the baseline file).",
)
@fix_options
@directory_option
@progress_option
@cache_option
@output_options
@common_options
def check(
    paths: tuple[Path, ...],
    rev_range: str | None,
    no_inline_allow: bool,
    write_baseline: bool,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    directory: Path | None,
    progress: bool | None,
    no_cache: bool,
    fmt: str,
    strict: bool,
    config: Path | None,
    no_color: bool,
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

        where = directory if directory is not None else Path.cwd()
        try:
            own = config if config is not None else root_policy(repository_root(where))
        except CannotRun as exc:
            fail(str(exc))
        run_fixes(paths, fix, unsafe_fixes, diff, None, own, fmt, where)
    options = CheckOptions(
        cwd=directory if directory is not None else Path.cwd(),
        paths=paths,
        rev_range=rev_range,
        config=config,
        inline_allow=not no_inline_allow,
        write_baseline=write_baseline,
        selection=cli_selection(),
        cache=not no_cache,
    )
    bar = progress_line("apc check", progress)
    try:
        outcome = run_check(options, progress=bar)
    except CannotRun as exc:
        fail(str(exc))
    finally:
        if bar is not None:
            bar.close()
    if outcome.baseline_written is not None:
        written = escape(str(outcome.baseline_written))
        count = outcome.baseline_entries
        echo(f"wrote {count} accepted finding{'' if count == 1 else 's'} to {written}")
        sys.exit(0)
    from apc_tools.boundary.policy import is_boundary_rule
    from apc_tools.check import repository_root

    keep_source(repository_root(options.cwd), is_boundary_rule)
    emit(outcome.result, fmt, no_color, strict)


# --------------------------------------------------------------------------------------------
# Progress on stderr (--progress/--no-progress), for the commands that scan git objects

LARGE_SCAN = 2000  # blobs: below this a scan is over before a bar would help


def progress_line(label: str, flag: bool | None, *, large: int = LARGE_SCAN) -> ProgressLine | None:
    """The progress callback for --progress (always), --no-progress (never) or neither: only on
    a terminal, and only once the scan has at least ``large`` blobs."""
    if flag is False or (flag is None and not sys.stderr.isatty()):
        return None
    return ProgressLine(label, minimum=0 if flag else large)


class ProgressLine:
    """A one-line progress display on stderr: ``apc check: 1200/5000 blobs (24%)``, redrawn
    only when the percentage changes; stdout (JSON, SARIF) is never touched."""

    def __init__(self, label: str, *, minimum: int = 0) -> None:
        self.label = label
        self.minimum = minimum
        self.shown: tuple[int, int] | None = None

    def __call__(self, done: int, total: int) -> None:
        if total < self.minimum:
            return
        percent = 100 * done // total if total else 100
        if self.shown == (percent, total):
            return
        self.shown = (percent, total)
        click.echo(f"\r{self.label}: {done}/{total} blobs ({percent}%)", nl=False, err=True)

    def close(self) -> None:
        if self.shown is not None:
            click.echo("\r\x1b[K" if sys.stderr.isatty() else "", err=True)


# --------------------------------------------------------------------------------------------
# apc repair (the library: apc_tools.runtime.command.run_repair)


@main.command()
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
