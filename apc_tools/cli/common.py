"""What the commands of :mod:`apc_tools.cli` share: the output (``fail``, ``echo``, ``emit``),
the options several commands take (--format, --strict, --config, --no-color, --report-file,
--statistics, --select, --ignore, -C, --no-cache, --progress, --fix, --unsafe-fixes, --diff),
the --report-file and --format full plumbing kept in the click context, the contract fixes of
validate and check, and the progress line on stderr. A new option shared by several commands
is declared here once.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, Protocol, TypeVar, cast

import click

from apc_tools import __version__
from apc_tools.findings import CannotRun, Finding, Registry, Result
from apc_tools.report import FORMATS
from apc_tools.report.escape import escape

if TYPE_CHECKING:
    from apc_tools.core.selection import Selection

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


def terminal_width(stream: IO[str]) -> int | None:
    """The columns ``--format full`` cuts source lines to: ``COLUMNS`` when set (as for
    ``shutil.get_terminal_size``), else the terminal's; None (the 120-column window) for a file
    or a pipe."""
    value = os.environ.get("COLUMNS", "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    try:
        return os.get_terminal_size(stream.fileno()).columns if stream.isatty() else None
    except (OSError, ValueError, AttributeError):
        return None


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
        width = terminal_width(sys.stderr if err else sys.stdout) if fmt == "full" else None
        text = render(
            result,
            fmt,
            registry,
            color=color,
            version=__version__,
            line_of=lines,
            width=width,
            command=f"apc {ctx.info_name}" if ctx is not None else None,
        )
    if text:
        # click strips ANSI codes when the stream is not a terminal unless told otherwise
        echo(text, nl=not text.endswith("\n"), color=color, err=err)
    sys.exit(1 if result.failed(strict) else 0)


# --------------------------------------------------------------------------------------------
# Options


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
        command = f"apc {ctx.info_name}" if ctx is not None else None
        text = render(
            result, fmt, registry, color=False, version=__version__, line_of=lines, command=command
        )
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


def paths_argument(func: F) -> F:
    """``PATH...``: what validate, boundary and check restrict their run to."""
    return click.argument("paths", nargs=-1, type=click.Path(path_type=Path))(func)


def no_inline_allow_option(help: str) -> Callable[[F], F]:
    """``--no-inline-allow``: ignore the ``apc: allow RULE`` comments."""
    return click.option("--no-inline-allow", is_flag=True, help=help)


def range_option(help: str) -> Callable[[F], F]:
    """``--range A..B``: the commits a CI run scans."""
    return click.option("--range", "rev_range", metavar="A..B", help=help)


@dataclass(frozen=True)
class Run:
    """The options every command that judges files takes, handed to it as one value ``run``
    (:func:`run_options`; -C and --progress with :func:`scan_options`)."""

    fmt: str
    strict: bool
    config: Path | None
    no_color: bool
    no_cache: bool
    selection: Selection  # --select / --ignore
    directory: Path | None = None
    progress: bool | None = None

    @property
    def cwd(self) -> Path:
        """-C DIR, else the current folder."""
        return self.directory if self.directory is not None else Path.cwd()

    def gate(self, no_inline_allow: bool, write_baseline: bool) -> dict[str, Any]:
        """The options boundary.Options and check.CheckOptions take alike."""
        return {
            "config": self.config,
            "inline_allow": not no_inline_allow,
            "write_baseline": write_baseline,
            "selection": self.selection,
            "cache": not self.no_cache,
        }

    def emit(
        self,
        result: Result,
        *,
        registry: Registry | None = None,
        source: tuple[Path, Callable[[str], bool], str] | None = None,
    ) -> NoReturn:
        """:func:`emit` with this run's --format, --no-color and --strict; ``source``: where
        --format full reads the lines of the findings (:func:`keep_source`)."""
        if source is not None:
            keep_source(*source)
        emit(result, self.fmt, self.no_color, self.strict, registry=registry)


def run_options(func: F) -> F:
    """The options of the commands that judge files (validate, boundary, check): --no-cache,
    --statistics/--select/--ignore and the common options, in the order their help lists them;
    the command receives them as one :class:`Run` (``run``)."""

    @functools.wraps(func)
    def command(**params: Any) -> Any:
        taken = {f.name: params.pop(f.name) for f in fields(Run) if f.name in params}
        return func(run=Run(**taken, selection=cli_selection()), **params)

    return cache_option(output_options(common_options(cast(F, command))))


def scan_options(func: F) -> F:
    """The options of the commands that read git objects (boundary, check): -C, --progress and
    :func:`run_options`."""
    return directory_option(progress_option(run_options(func)))


# --------------------------------------------------------------------------------------------
# The contract fixes (apc validate, apc check)


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


class Scanned(Protocol):
    """What a scan that may write the baseline answers (boundary.Outcome, check.CheckOutcome)."""

    @property
    def baseline_written(self) -> Path | None: ...

    @property
    def baseline_entries(self) -> int: ...


S = TypeVar("S", bound=Scanned)


def scanned(
    label: str,
    flag: bool | None,
    run: Callable[[ProgressLine | None], S],
    *,
    large: int = LARGE_SCAN,
) -> S:
    """``run(progress)`` with the progress line of --progress/--no-progress (see
    :func:`progress_line`), closed after; a run that cannot be made is ``apc: error:``, exit 2.
    A run that wrote the baseline (--write-baseline) says so and exits 0 here."""
    bar = progress_line(label, flag, large=large)
    try:
        outcome = run(bar)
    except CannotRun as exc:
        if bar is not None:
            bar.close()  # the error starts a line of its own
            bar = None
        fail(str(exc))
    finally:
        if bar is not None:
            bar.close()
    if outcome.baseline_written is not None:
        where = escape(str(outcome.baseline_written))
        count = outcome.baseline_entries
        echo(f"wrote {count} accepted finding{'' if count == 1 else 's'} to {where}")
        sys.exit(0)
    return outcome
