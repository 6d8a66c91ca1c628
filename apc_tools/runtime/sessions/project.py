"""``apc repair --project DIR --all``: check or repair every session of a project, per file.

The caller hands over the project's immutable :class:`~apc_tools.contract.model.Contract` and
how many error-level findings its validation produced (the runtime never validates, parses or
reads git itself). An invalid contract is reported (RPR015) and then only its root is used: an
``apx_id`` from a broken contract does not steer where runtime state is looked for. Every write
still goes through the guard that refuses the project tree.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from apc_tools.findings import CannotRun, Finding, Result
from apc_tools.runtime.sessions.discover import Found, find_sessions

if TYPE_CHECKING:
    from apc_tools.contract.model import Contract


@dataclass(frozen=True)
class ProjectOutcome:
    result: Result
    sessions: tuple[Found, ...]


def repair_project(
    contract: Contract,
    *,
    home: Path,
    contract_errors: int,
    check_only: bool = False,
    in_place: bool = False,
) -> ProjectOutcome:
    """Check (``check_only``) or repair in place (``in_place``) each session of the project."""
    from apc_tools.runtime.command import RepairUsageError, run_repair
    from apc_tools.runtime.rules import BY_ID

    if check_only == in_place:
        raise RepairUsageError("--all needs --check or --in-place (each session is its own file)")
    findings: list[Finding] = []
    runtime_dir = None
    if contract_errors:
        findings.append(
            BY_ID["RPR015"].finding(
                (contract.root / ".apc").as_posix(),
                f"the project's contract has {contract_errors} error(s): run `apc validate "
                f"{contract.root}`; sessions were looked for from the project root only",
            )
        )
    else:
        runtime_dir = contract.runtime_dir(home)
    sessions = find_sessions(contract.root, home, runtime_dir)
    verb = "checked" if check_only else "repaired"
    for found in sessions:
        try:
            outcome = run_repair(
                found.path, check_only=check_only, in_place=in_place, contract=contract
            )
        except CannotRun as exc:
            findings.append(
                BY_ID["RPR016"].finding(
                    found.path.as_posix(), f"{found.tool} session not {verb}: {exc}"
                )
            )
            continue
        findings += outcome.result.findings
    return ProjectOutcome(Result.of(findings, len(sessions)), tuple(sessions))
