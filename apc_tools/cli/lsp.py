"""``apc lsp``: start the language server (:mod:`apc_tools.lsp`) over stdin/stdout."""

from __future__ import annotations

import sys

import click

from apc_tools.cli.common import fail


@click.command()
def lsp() -> None:
    """Run the language server over stdio (for editors; needs `pip install "apc-tools[lsp]"`)."""
    from apc_tools import lsp as server

    why = server.missing()
    if why is not None:
        fail(why)
    sys.exit(server.serve())
