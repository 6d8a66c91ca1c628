"""``apc schema``: print a published JSON Schema, or list their names."""

from __future__ import annotations

import click

from apc_tools.cli.common import echo, fail


@click.command()
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
