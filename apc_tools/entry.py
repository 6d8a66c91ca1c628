"""The process entry point of ``apc`` and ``python -m apc_tools``.

Importing click and the whole command line costs about as much as repairing a history of ten
thousand messages, and a runtime may run ``apc repair`` before every request. So :func:`main`
runs ``apc repair`` itself, without click, when its arguments take the plain form below, and
hands everything else (every other command, ``--help``, any form not listed) to
:data:`apc_tools.cli.main`. The click command is the reference: for the arguments the plain
path accepts, both give the same output, files and exit code (tests/test_entry.py runs both),
because both call :func:`repair_command` and render with the same code.

The plain form: ``repair``, then in any order exactly one FILE and the options of
``apc repair`` (``-o``/``--output``, ``--in-place``, ``--wire``, ``--check``,
``--skip-bad-lines``, ``--project``, ``--format``, ``--strict``, ``--config``, ``--no-color``),
each value as the next argument and not starting with "-", choices spelled exactly, every path
one that click's checks accept (a FILE, OUT or config that is not a folder, a project that is not
a file, readable when it exists); on a POSIX system, with stdout and stderr present and not
ASCII-only, and no shell completion asked for.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path
from typing import Any

from apc_tools.findings import CannotRun, Result

FORMATS = ("text", "json", "sarif", "github", "gitlab")
REPAIR_WIRES = ("auto", "openai-chat", "openai-responses", "anthropic", "gemini", "bedrock")

_VALUES = {
    "-o": "out",
    "--output": "out",
    "--wire": "wire",
    "--project": "project",
    "--format": "fmt",
    "--config": "config",
}
_FLAGS = {
    "--in-place": "in_place",
    "--check": "check",
    "--skip-bad-lines": "skip_bad_lines",
    "--strict": "strict",
    "--no-color": "no_color",
}


def use_color(no_color: bool, stream: Any = None) -> bool:
    """--no-color and NO_COLOR turn colour off, FORCE_COLOR on; otherwise only on a terminal."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


# --------------------------------------------------------------------------------------------
# apc repair, shared by the click command and the plain path


def repair_command(
    file: Path,
    out: Path | None,
    in_place: bool,
    wire: str,
    check: bool,
    skip_bad_lines: bool,
    project: Path | None,
) -> tuple[Result, bool]:
    """Run ``apc repair``: (its result, True when the history went to stdout).

    Raises :class:`CannotRun` with the message the CLI prints after ``apc: error:`` (exit 2).
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
    except OSError as exc:
        raise CannotRun(f"{exc.filename or file}: {exc.strerror or exc}") from None
    return outcome.result, to_stdout


def repair_registry() -> Any:
    """The rules a repair can raise: only the runtime family's (loading every contract check
    would slow a run)."""
    from apc_tools.findings import Registry
    from apc_tools.runtime.rules import RULES

    return Registry.of(RULES)


def _repair_contract(project: Path | None, file: Path, out: Path | None, in_place: bool) -> Any:
    """The contract of --project or of the cwd's project; the project around the target (if
    any other) is checked here too, so no APC project's tree is ever written."""
    from apc_tools.runtime.store import ensure_outside

    contract = _load_contract(project if project is not None else Path.cwd())
    if project is not None and contract is None:
        raise CannotRun(f"--project {project}: no APC project there (no .apc/ or AGENTS.md)")
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


# --------------------------------------------------------------------------------------------
# The plain path


def main() -> None:
    """``apc``: the plain ``apc repair``, or the click command line for everything else."""
    options = _plain_repair(sys.argv[1:]) if _plain_terminal() else None
    if options is None:
        from apc_tools.cli import main as cli

        cli()
        return
    try:
        _run(**options)
    except (EOFError, KeyboardInterrupt):  # as click's standalone mode
        _echo("", err=True)
        _echo("Aborted!", err=True)
        sys.exit(1)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        # the reader of stdout went away: exit 1 quietly, as click does
        sys.stdout = _QuietPipe(sys.stdout)
        sys.stderr = _QuietPipe(sys.stderr)
        sys.exit(1)


class _QuietPipe:
    """A stream whose final flush ignores a broken pipe (click's flush wrapper)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _run(
    file: Path,
    out: Path | None = None,
    in_place: bool = False,
    wire: str = "auto",
    check: bool = False,
    skip_bad_lines: bool = False,
    project: Path | None = None,
    fmt: str = "text",
    strict: bool = False,
    config: Path | None = None,
    no_color: bool = False,
) -> None:
    """The body of the click command ``apc repair`` (apc_tools.cli), with plain output."""
    try:
        result, to_stdout = repair_command(
            file, out, in_place, wire, check, skip_bad_lines, project
        )
    except CannotRun as exc:
        _echo(f"apc: error: {exc}", err=True)
        sys.exit(2)
    from apc_tools import __version__
    from apc_tools.report import render

    color = use_color(no_color, sys.stderr if to_stdout else sys.stdout)
    text = render(result, fmt, repair_registry(), color=color, version=__version__)
    if text:
        _echo(text, nl=not text.endswith("\n"), color=color, err=to_stdout)
    sys.exit(1 if result.failed(strict) else 0)


def _echo(text: str, *, nl: bool = True, color: bool | None = None, err: bool = False) -> None:
    """``click.echo`` for a str on a POSIX text stream that is not ASCII-only."""
    stream = sys.stderr if err else sys.stdout
    if nl:
        text += "\n"
    if not text:
        stream.flush()
        return
    strip = not color if color is not None else not _isatty(stream)
    if strip and "\x1b" in text:
        from click._compat import strip_ansi  # the escapes click removes, exactly

        text = strip_ansi(text)
    stream.write(text)
    stream.flush()


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except Exception:
        return False


def _plain_terminal() -> bool:
    """Where click would write to sys.stdout / sys.stderr as they are (and not complete)."""
    if os.name != "posix" or any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return False
    import codecs

    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding or codecs.lookup(encoding).name == "ascii":
            return False
    return True


def _plain_repair(args: list[str]) -> dict[str, Any] | None:
    """The options of a plain ``apc repair`` command line, or None: let click read it."""
    if not args or args[0] != "repair":
        return None
    options: dict[str, Any] = {}
    files: list[str] = []
    rest = iter(args[1:])
    for arg in rest:
        if arg in _FLAGS:
            options[_FLAGS[arg]] = True
        elif arg in _VALUES:
            value = next(rest, None)
            if not value or value.startswith("-"):
                return None
            options[_VALUES[arg]] = value  # the last one wins, as in click
        elif not arg or arg.startswith("-"):
            return None  # help, --opt=value, "-", "--", an unknown option: click decides
        else:
            files.append(arg)
    if len(files) != 1:
        return None
    if options.get("wire", "auto") not in REPAIR_WIRES or options.get("fmt", "text") not in FORMATS:
        return None
    options["file"] = files[0]
    for key in ("file", "out", "config", "project"):
        if key in options:
            path = _plain_path(options[key], folder=key == "project")
            if path is None:
                return None
            options[key] = path
    return options


def _plain_path(value: str, *, folder: bool) -> Path | None:
    """``click.Path(path_type=Path)`` with ``dir_okay=False`` (or ``file_okay=False`` for a
    folder): the path, or None where click would refuse it."""
    try:
        st = os.stat(value)
    except OSError:
        return Path(value)  # a path that does not exist is accepted (exists=False)
    if stat.S_ISREG(st.st_mode) if folder else stat.S_ISDIR(st.st_mode):
        return None
    if not os.access(value, os.R_OK):
        return None
    return Path(value)
