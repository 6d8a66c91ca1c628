"""The ``apc`` console script and ``python -m apc_tools``: a lean start in front of the click
command line (:mod:`apc_tools.cli`).

A warm `apc validate` (the tree unchanged since the last run) is answered whole from the result
cache (:mod:`apc_tools.contract.warm`) in a fraction of the time importing click and the command
line takes, so this module looks at the arguments first. When they are ``validate`` with only
options whose meaning is plain here (PATH arguments, ``--format``, ``--profile``, ``--config``,
``--strict``, ``--no-color``, ``--no-inline-allow``, ``--list-files``), nothing unusual is around
(a POSIX system, text streams click would use as they are, no shell-completion request, a
working folder that exists) and the cache is on, it prints exactly what
``apc_tools.cli.validate`` prints and exits with its code: the cache's answer, or on a miss the
run ``cli.validate`` makes (:func:`apc_tools.contract.warm.validate_tree` on what the lookup
listed and read, so nothing is done twice), neither importing click. Anything else (any other
command or option, ``--help``, ``--no-cache``, ``APC_NO_CACHE``, a value click would refuse, a
run that cannot be answered whole, an error) goes to the click command line with the arguments
untouched. tests/cli/test_lean_start.py holds the two paths byte-identical.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:  # pragma: no cover
    from pathlib import Path
    from types import FrameType

    from apc_tools.contract.listing import Validation
    from apc_tools.findings import Result

FLAGS = {
    "--strict": "strict",
    "--no-color": "no_color",
    "--no-inline-allow": "no_inline_allow",
    "--list-files": "list_files",
}
FORMATS = ("text", "concise", "full", "json", "sarif", "github", "gitlab")  # report.FORMATS
PROFILES = ("default", "agentskills")
VALUES = ("--format", "--profile", "--config")
# the names boundary.trusted.accept_baseline looks for without --config (core.policy.POLICY_FILE,
# boundary.policy.BASELINE_FILE; a test holds them equal)
POLICY_FILE = ".apc-tools.yaml"
BASELINE_FILE = ".apc-baseline.json"


def run() -> NoReturn:
    """The ``apc`` console script and ``python -m apc_tools``: :func:`main`, then a quick exit.

    Once the command has ended (returned or called ``sys.exit`` with a number), the standard
    streams are flushed and the exit handlers run (the result cache closes its database there),
    then the process ends with :func:`os._exit`: the interpreter's own finalization, which frees
    every object a run made one by one, is skipped (about 20 ms of a cold `apc validate` of a
    thousand files; mypy's ``hard_exit`` does the same). Anything unusual takes Python's usual
    way out, unchanged: an exception, a ``sys.exit`` with a message, a stream that cannot be
    flushed (a reader gone away), a thread still running that is not a daemon, a profiler or a
    tracer (which writes its output after the program returns)."""
    try:
        main()
    except SystemExit as exc:
        ending = exc
    else:
        ending = SystemExit(0)
    code = 0 if ending.code is None else ending.code
    if type(code) is not int or not _quick_exit_safe():
        raise ending
    _quick_exit(code, ending)


def _quick_exit_safe() -> bool:
    """No profiler or tracer is on (``python -m cProfile`` writes its profile after the program
    returns, ``python -m trace`` its counts), and no thread but daemons runs beside this one
    (Python's exit would wait for it)."""
    if sys.getprofile() is not None or sys.gettrace() is not None:
        return False
    threading = sys.modules.get("threading")
    if threading is None:
        return True
    main_thread = threading.main_thread()
    return all(t is main_thread or t.daemon or not t.is_alive() for t in threading.enumerate())


def _quick_exit(code: int, exc: SystemExit) -> NoReturn:
    """Flush, run the exit handlers, and end with ``code``; re-raise ``exc`` (Python's way out)
    when a stream cannot be flushed."""
    import atexit

    if not _flushed():
        raise exc from None
    atexit._run_exitfuncs()
    # what an exit handler wrote; 120 is what Python exits with when it cannot flush at exit,
    # and the C exit() Python's own exit calls keeps the low byte of the code
    os._exit(code & 0xFF if _flushed() else 120)


def _flushed() -> bool:
    """Flush stdout and stderr; False when one cannot be flushed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except Exception:
            return False
    return True


def main() -> None:
    """``apc``: a warm `apc validate` answered here, everything else by the click group."""
    args = sys.argv[1:]
    if args == ["lsp"]:  # the language server answers initialize before importing click
        from apc_tools import lsp

        if lsp.missing() is None:
            sys.exit(lsp.serve())
    if args[:1] == ["validate"]:
        options = parse(args[1:])
        if options is not None and usual():
            answered(options)  # exits when it answered; returns on a miss
    from apc_tools.cli import main as click_main

    click_main()


def parse(args: list[str]) -> dict[str, Any] | None:
    """The options of ``apc validate ARGS`` as the click command would take them, or None when
    they hold anything this module does not handle exactly as click does."""
    out: dict[str, Any] = {"paths": [], "fmt": "text", "profile": None, "config": None}
    out.update(dict.fromkeys(FLAGS.values(), False))
    index = 0
    while index < len(args):
        arg = args[index]
        index += 1
        if arg in FLAGS:
            out[FLAGS[arg]] = True
            continue
        name, sep, value = arg.partition("=")
        if name in VALUES:
            if not sep:
                if index >= len(args):
                    return None
                value = args[index]
                index += 1
            if not value or value.startswith("-"):
                return None
            if name == "--format" and value in FORMATS:
                out["fmt"] = value
            elif name == "--profile" and value in PROFILES:
                out["profile"] = value
            elif name == "--config" and _click_path(value, dir_okay=False):
                out["config"] = value
            else:
                return None
            continue
        if not arg or arg.startswith("-") or not _click_path(arg, dir_okay=True):
            return None  # an option (or "--", "-h", "--help") or a value click refuses
        out["paths"].append(arg)
    return out


def _click_path(value: str, *, dir_okay: bool) -> bool:
    """``click.Path(dir_okay=...)`` accepts ``value`` (a missing path too: the run says so)."""
    import stat

    try:
        info = os.stat(value)
    except (OSError, ValueError):
        return "\0" not in value
    if not dir_okay and stat.S_ISDIR(info.st_mode):
        return False
    return os.access(value, os.R_OK)


def usual() -> bool:
    """Nothing around the run that click would treat in its own way: a POSIX system, standard
    streams that are text streams click writes to as they are (not ASCII: click would wrap
    them), no shell-completion variable, a working folder that exists."""
    if os.name != "posix":
        return False
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in os.environ):
        return False
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if stream is None or not encoding or getattr(stream, "errors", None) is None:
            return False
        if not hasattr(stream, "buffer"):
            return False
        import codecs

        try:
            if codecs.lookup(encoding).name == "ascii":
                return False
        except LookupError:
            return False
    try:
        os.getcwd()
    except OSError:
        return False
    return True


def answered(options: dict[str, Any]) -> None:
    """Print the whole-run answer of ``apc validate`` and exit, as ``apc_tools.cli`` does; return
    (having printed nothing) when the cache does not hold it or anything goes unusually."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():  # as cli.main sets it
        signal.signal(signal.SIGTERM, _terminate)
    from pathlib import Path

    try:
        from apc_tools.contract import warm
        from apc_tools.core.selection import Selection

        root = warm.report_root(Path.cwd().resolve())
        config = None if options["config"] is None else Path(options["config"])
        arguments: dict[str, Any] = {
            "profile": options["profile"],
            "config_path": config,
            "inline_allow": not options["no_inline_allow"],
            "selection": Selection((), ()),
            "report": root,
        }
        paths = [Path(p) for p in options["paths"]]
        outcome = warm.answer(paths, **arguments)
        if outcome is None and warm.handed():
            # a miss with the run's gathering in hand: the run cli.validate makes on it,
            # without importing click (a run that cannot be made raises: click says why)
            outcome = warm.validate_tree(paths, **arguments)
        if outcome is None:
            return
        accepted = _accept_baseline(outcome.result, root, config)
        out, err, report = _output(outcome, accepted, options, root)
    except KeyboardInterrupt:
        _aborted()
    except Exception:  # CannotRun or worse: the click command says it the way it always does
        return
    _write(out, err, report, 1 if accepted.failed(options["strict"]) else 0)


def _accept_baseline(result: Result, root: Path, config: Path | None) -> Result:
    """``boundary.trusted.accept_baseline`` (imported only when a policy or a baseline file is
    there: with neither it accepts nothing)."""
    policy = config is not None or (root / POLICY_FILE).is_file()
    if not policy and not (root / BASELINE_FILE).is_file():
        return result
    from apc_tools.boundary.trusted import accept_baseline

    return accept_baseline(result, root, config)


def _output(
    outcome: Validation, accepted: Result, options: dict[str, Any], root: Path
) -> tuple[list[str], list[str], str]:
    """What cli.validate writes: the --list-files lines for stdout and for stderr, and the
    report for stdout ("" for none), in that order. ValueError when click would change any of
    it (an escape sequence it strips from what is not coloured)."""
    from apc_tools import __version__
    from apc_tools.findings import Registry
    from apc_tools.report import render
    from apc_tools.report.escape import escape

    fmt = options["fmt"]
    lines: list[str] = []
    if options["list_files"]:
        for shown, kind in outcome.listed:
            lines.append(f"{escape(shown)}: {kind}")
        for shown in outcome.skipped:
            lines.append(f"{escape(shown)}: skipped (not an agent-context file)")
    line_of = None
    registry = Registry.of(())  # what text, json, github and gitlab read of it: nothing
    if fmt in ("sarif", "full"):
        from apc_tools.catalog import registry as catalog

        registry = catalog()
    if fmt == "full":
        from apc_tools.report.source import SourceLines

        line_of = SourceLines(root, registry, in_git=lambda rule: False, rev="HEAD").line
    color = _use_color(options["no_color"], sys.stdout)
    text = render(
        accepted,
        fmt,
        registry,
        color=color,
        version=__version__,
        line_of=line_of,
        command="apc validate",  # as cli.common.emit names it
    )
    if any("\x1b" in line for line in lines) or (not color and "\x1b" in text):
        raise ValueError("an escape sequence click would strip")
    return (lines, [], text) if fmt == "text" else ([], lines, text)


def _use_color(no_color: bool, stream: Any) -> bool:
    """``cli.common.use_color``."""
    if no_color or os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return bool(getattr(stream, "isatty", lambda: False)())


def _write(out: list[str], err: list[str], report: str, code: int) -> NoReturn:
    """Write as click.echo does (each line, then a flush), then exit ``code``. A reader gone
    away (EPIPE) exits 1 quietly, as click's main does; another failure to write the report is
    cli.common.echo's ``apc: error:`` line and exit 2."""
    import errno

    try:
        for line in err:
            _echo(sys.stderr, line + "\n")
        for line in out:
            _echo(sys.stdout, line + "\n")
        if report:
            try:
                _echo(sys.stdout, report if report.endswith("\n") else report + "\n")
            except OSError as exc:
                if exc.errno == errno.EPIPE:
                    raise
                _discard_stdout()
                _echo(sys.stderr, _error(f"cannot write to stdout: {exc.strerror or exc}") + "\n")
                sys.exit(2)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        sys.stdout = _Pacified(sys.stdout)
        sys.stderr = _Pacified(sys.stderr)
        sys.exit(1)
    sys.exit(code)


def _echo(stream: Any, text: str) -> None:
    stream.write(text)
    stream.flush()


def _error(message: str) -> str:
    from apc_tools.report.escape import escape

    return f"apc: error: {escape(message)}"


def _discard_stdout() -> None:
    """``cli.common._discard_stdout``: the text still buffered for stdout is dropped at exit."""
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
    finally:
        os.close(null)


class _Pacified:
    """click's ``_PacifyFlushWrapper``: a flush at shutdown into a closed pipe is ignored."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        import errno

        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr: str) -> Any:
        return getattr(self.wrapped, attr)


def _aborted() -> NoReturn:
    """click's answer to Ctrl-C: a blank line and ``Aborted!`` on stderr, exit 1."""
    sys.stderr.write("\nAborted!\n")
    sys.stderr.flush()
    sys.exit(1)


def _terminate(signum: int, frame: FrameType | None) -> None:
    """``cli._terminate``: SIGTERM unwinds like an exception."""
    raise SystemExit(128 + signum)


if __name__ == "__main__":  # pragma: no cover
    main()
