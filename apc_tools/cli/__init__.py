"""The command line (``apc``, ``python -m apc_tools``): parse options, call the library, render,
exit. It is the only package that prints, and everything it prints from a file nobody checked
goes through :func:`apc_tools.report.escape.escape` (findings in the renderers, ``apc: error:``
lines in :func:`apc_tools.cli.common.fail`).

One module per command (``validate``, ``boundary``, ``check``, ``repair``, ``init``, ``rules``,
``schema``, ``lsp``), the options and output they share in :mod:`apc_tools.cli.common`; this
module is the group, :func:`main`, which holds them.

Start-up is kept light: each command imports the library modules it needs inside its body, so
``apc --version`` loads click and nothing heavy (tests/test_architecture.py checks it).

Exit codes: 0 nothing at error level, 1 findings at error level (or warnings with --strict),
2 the command could not run; 143 after SIGTERM (temporary files removed first).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import click

from apc_tools import __version__
from apc_tools.cli import boundary, check, init, lsp, repair, rules, schema, validate
from apc_tools.cli.common import fail
from apc_tools.report.escape import escape


def _terminate(signum: int, frame: FrameType | None) -> None:
    """SIGTERM (a CI cancel) unwinds like an exception: the atomic writer removes its temporary
    file on the way out."""
    raise SystemExit(128 + signum)


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


for command in (
    validate.validate,
    rules.rules,
    schema.schema,
    init.init,
    boundary.boundary,
    check.check,
    repair.repair,
    lsp.lsp,
):
    main.add_command(command)
