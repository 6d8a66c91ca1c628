"""The text ``apc init`` prints: what it created, what it left alone, what to do next."""

from __future__ import annotations

import json

from apc_tools.contract.scaffold import InitReport
from apc_tools.report.escape import escape as display


def render_init(report: InitReport) -> str:
    lines = [f"created      {display(rel)}" for rel in report.created]
    lines += [
        f"updated      {display(rel)} (the installed apc-tools' schema)" for rel in report.updated
    ]
    lines += [f"left alone   {display(rel)} ({why})" for rel, why in report.left_alone]
    if report.migrations:
        lines += ["", "Files other agent tools read; move what all agents share into the contract:"]
        lines += [f"  {display(rel)}: {hint}" for rel, hint in report.migrations]
    if report.gitignore_lines:
        lines += ["", "Add to the root .gitignore (apc init does not edit your files):"]
        width = max(len(line) for line, _ in report.gitignore_lines)
        lines += [f"  {line.ljust(width)}  # {tool}" for line, tool in report.gitignore_lines]
    if report.include:
        count = sum(n for _, _, n in report.include)
        head = (
            f"Catalog files ({count}) mapped in .apc-tools.yaml, so apc checks them:"
            if report.include_written
            else f"Add to .apc-tools.yaml to check the catalog's {count} files as their tool reads:"
        )
        lines += ["", head, "  include:"]
        lines += [
            f"    {display(json.dumps(glob))}: {kind}  # {n} file{'' if n == 1 else 's'}"
            for glob, kind, n in report.include
        ]
    if report.repository is not None:
        lines += [
            "",
            f"Note: {display(str(report.root.absolute()))} is below the top level of the git"
            f" repository {display(str(report.repository))}:",
            "  the hooks and `apc boundary` read the policy there, and this contract is a project"
            " of its own.",
            "  `apc init` without PATH creates at the top level.",
        ]
    lines += ["", "Next: `apc validate`, then `apc check` in a git repository."]
    return "\n".join(lines) + "\n"
