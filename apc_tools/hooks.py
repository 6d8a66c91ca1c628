"""Entries of the pre-commit hooks whose command line depends on what pre-commit says.

``python -m apc_tools.hooks pre-push [ARGS...]``: pre-commit runs pre-push hooks with the pushed
range in ``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF``; a hook's ``entry`` cannot read
variables, so this turns them into ``apc boundary --range FROM..TO``. When pre-commit gives no
range (a push of a branch whose root commit is new, or ``pre-commit run --hook-stage pre-push``
by hand) the whole tree being pushed is scanned: ``apc boundary --tracked``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence


def pre_push_args(env: Mapping[str, str], extra: Sequence[str]) -> list[str]:
    """The ``apc`` arguments of the pre-push hook."""
    start, end = env.get("PRE_COMMIT_FROM_REF", ""), env.get("PRE_COMMIT_TO_REF", "")
    scope = ["--range", f"{start}..{end}"] if start and end else ["--tracked"]
    return ["boundary", *scope, *extra]


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] != "pre-push":
        sys.stderr.write("usage: python -m apc_tools.hooks pre-push [APC-BOUNDARY-OPTIONS...]\n")
        sys.exit(2)
    from apc_tools.cli import main as cli

    cli(pre_push_args(os.environ, args[1:]), prog_name="apc")


if __name__ == "__main__":
    main()
