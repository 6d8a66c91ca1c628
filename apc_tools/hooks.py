"""Entries that the pre-commit hooks and the GitHub Action call beside ``apc`` itself.

``python -m apc_tools.hooks pre-push [ARGS...]``: pre-commit runs pre-push hooks with the pushed
range in ``PRE_COMMIT_FROM_REF`` and ``PRE_COMMIT_TO_REF``; a hook's ``entry`` cannot read
variables, so this turns them into ``apc boundary --range FROM..TO``. When pre-commit gives no
range (a push of a branch whose root commit is new, or ``pre-commit run --hook-stage pre-push``
by hand) the whole tree being pushed is scanned: ``apc boundary --tracked``.

``python -m apc_tools.hooks github-summary REPORT.json SARIF RANGE``: the Markdown step summary of
the GitHub Action (action/apc-check.sh) for a JSON report, on stdout.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

USAGE = (
    "usage: python -m apc_tools.hooks pre-push [APC-BOUNDARY-OPTIONS...]\n"
    "       python -m apc_tools.hooks github-summary REPORT.json SARIF-FILE [RANGE]\n"
)


def pre_push_args(env: Mapping[str, str], extra: Sequence[str]) -> list[str]:
    """The ``apc`` arguments of the pre-push hook."""
    start, end = env.get("PRE_COMMIT_FROM_REF", ""), env.get("PRE_COMMIT_TO_REF", "")
    scope = ["--range", f"{start}..{end}"] if start and end else ["--tracked"]
    return ["boundary", *scope, *extra]


def github_summary(report_file: str, sarif_file: str, rev_range: str = "") -> str:
    from apc_tools.report.step_summary import render_step_summary

    report = json.loads(Path(report_file).read_text(encoding="utf-8"))
    scope = f"the commits of `{rev_range}`" if rev_range else "the tree at HEAD"
    return render_step_summary(report, sarif_file, scope)


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["pre-push"]:
        from apc_tools.cli import main as cli

        cli(pre_push_args(os.environ, args[1:]), prog_name="apc")
    elif args[:1] == ["github-summary"] and len(args) in (3, 4):
        sys.stdout.write(github_summary(*args[1:]))
    else:
        sys.stderr.write(USAGE)
        sys.exit(2)


if __name__ == "__main__":
    main()
