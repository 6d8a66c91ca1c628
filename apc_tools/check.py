"""`apc check`: the validation of the checked-out tree plus the boundary scan, as one Result.

The repository is the one holding ``cwd`` (as git finds its top level) and the policy is its
root's ``.apc-tools.yaml`` (or ``config``) for both halves; with ``rev_range`` it is the
``.apc-tools.yaml`` of the range's base commit for both halves, so a pull request cannot
relax the rules it is checked by. The contract is validated for the
whole repository and its findings kept under the PATH arguments, so a run from a subfolder, or
on one file, gives the same findings as the run from the root, with paths relative to the
repository root. The boundary half scans HEAD, or every commit of ``rev_range``.

One finding per problem: where a validate rule and a boundary rule report the same cause at the
same place (a secret on line 3 of AGENTS.md), the validate finding is kept: it is the more
specific one (it knows the file's role) and its rule is the one users allow or disable. A
validate finding whose boundary twin is in the boundary baseline is accepted too, so
``apc boundary --write-baseline`` adopts a repository for ``apc check`` as well.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from apc_tools.findings import CannotRun, Finding, Result

if TYPE_CHECKING:
    from apc_tools.boundary.policy import BaselineEntry
    from apc_tools.core.git import Repo

# A cause both halves report -> (boundary rule family prefix, validate rules of that cause,
# whether the same line is required: a transcript is a cause of the whole file).
SAME_CAUSE: tuple[tuple[str, frozenset[str], bool], ...] = (
    ("BSC", frozenset({"AGM004", "MCP003", "MEM002"}), True),
    ("BLP", frozenset({"MCP004", "MEM003"}), True),
    ("BMK", frozenset({"AGM005", "MEM004"}), True),
    ("BTR", frozenset({"MEM004"}), False),
)


@dataclass(frozen=True)
class CheckOptions:
    """The options of ``apc check``. ``paths`` are relative to ``cwd`` (files or folders)."""

    cwd: Path
    paths: tuple[Path, ...] = ()
    rev_range: str | None = None
    config: Path | None = None
    inline_allow: bool = True  # False: `apc: allow RULE` comments are ignored (CI)


def check(options: CheckOptions, *, progress: Callable[[int, int], None] | None = None) -> Result:
    """Validate and scan; raise :class:`CannotRun` outside a git repository or on bad input."""
    from apc_tools.boundary import Options, scan
    from apc_tools.contract.validate import validate

    root = repository_root(options.cwd)
    scope = scope_of(root, options.cwd, options.paths)
    if options.config is None and options.rev_range is not None:
        with tempfile.TemporaryDirectory(prefix="apc-check-") as tmp:
            config = base_policy(root, options.rev_range, Path(tmp))
            validated = validate([root], config_path=config, cwd=root)
    else:
        own = options.config if options.config is not None else root_policy(root)
        validated = validate([root], config_path=own, cwd=root)
    mode = "range" if options.rev_range is not None else "tracked"
    scanned = scan(
        Options(
            cwd=options.cwd,
            paths=options.paths,
            mode=mode,
            rev_range=options.rev_range,
            config=options.config,
            inline_allow=options.inline_allow,
        ),
        progress=progress,
    ).result
    accepted = baseline_entries(root, options)
    contract = [
        f for f in validated.findings if within(f.path, scope) and not twin_accepted(f, accepted)
    ]
    gate = without_duplicates(scanned.findings, contract)
    return Result.of(
        [*contract, *gate],
        max(validated.files, scanned.files),
        strict=validated.strict or scanned.strict,
    )


def repository_root(cwd: Path) -> Path:
    from apc_tools.core import git

    if not cwd.is_dir():
        raise CannotRun(f"{cwd}: no such folder")
    top = git.toplevel(cwd)
    if top is None:
        raise CannotRun(
            f"{cwd}: not inside a git work tree (apc check scans git objects; run it in a "
            "clone, or use `apc validate` for a plain folder)"
        )
    return top.resolve()


def root_policy(root: Path) -> Path | None:
    candidate = root / ".apc-tools.yaml"
    return candidate if candidate.is_file() or candidate.is_symlink() else None


def base_policy(root: Path, rev_range: str, folder: Path) -> Path:
    """The policy of the range's base commit, written to ``folder`` (outside the repository):
    a change under review cannot relax the rules it is checked by (the boundary half reads
    the same blob, :func:`apc_tools.boundary.trusted.blob_at`). A base without a policy gives
    the defaults."""
    from apc_tools.boundary.trusted import blob_at
    from apc_tools.core import git
    from apc_tools.core.policy import MAX_POLICY_BYTES, POLICY_FILE

    repo = git.open_repo(root)
    data = blob_at(repo, range_base(repo, rev_range), POLICY_FILE, MAX_POLICY_BYTES + 1)
    target = folder / POLICY_FILE
    target.write_bytes(b"version: 1\n" if data is None else data)
    return target


def baseline_entries(root: Path, options: CheckOptions) -> tuple[BaselineEntry, ...]:
    """The boundary baseline in force, as the boundary half reads it (one function decides
    both: :func:`apc_tools.boundary.trusted.gate_inputs`)."""
    from apc_tools.boundary.trusted import gate_inputs
    from apc_tools.core import git

    repo = git.open_repo(root)
    base = range_base(repo, options.rev_range) if options.rev_range is not None else None
    return gate_inputs(repo, base, options.config)[1]


def twin_accepted(contract: Finding, accepted: Sequence[BaselineEntry]) -> bool:
    """A validate finding whose boundary twin (the same cause at the same path: the same
    secret value, for a secret) is in the baseline: ``apc boundary --write-baseline`` adopts
    it for ``apc check`` too. A transcript is a cause of the whole file: its entry suffices."""
    for family, rules, same_line in SAME_CAUSE:
        if contract.rule not in rules:
            continue
        for entry in accepted:
            if entry.path != contract.path or not entry.rule.startswith(family):
                continue
            twin = replace(contract, rule=entry.rule, occurrence=1).fingerprint
            if not same_line or twin == entry.fingerprint.partition(":")[0]:
                return True
    return False


def range_base(repo: Repo, rev_range: str) -> str:
    """The base commit of ``A..B`` (CannotRun on another form or an unknown commit)."""
    from apc_tools.core import git

    if ".." not in rev_range or "..." in rev_range:
        raise CannotRun(f"--range {rev_range!r}: expected BASE..HEAD (two commits, two dots)")
    left, right = rev_range.split("..", 1)
    if not left.strip() or not right.strip():
        raise CannotRun(f"--range {rev_range!r}: BASE and HEAD must both be named (one is empty)")
    return git.resolve_commit(repo, left)


def scope_of(root: Path, cwd: Path, paths: Sequence[Path]) -> tuple[str, ...]:
    """The PATH arguments as POSIX paths relative to the repository root ("" = everything)."""
    if not paths:
        return ("",)
    base = cwd.resolve()
    out: list[str] = []
    for path in paths:
        full = os.path.normpath(base / path)
        if not os.path.lexists(full):
            raise CannotRun(f"{path}: no such file or folder")
        rel = os.path.relpath(full, root)
        if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
            raise CannotRun(f"{path}: outside the repository {root}")
        out.append("" if rel == "." else PurePosixPath(Path(rel)).as_posix())
    return tuple(out)


def within(path: str, scope: Iterable[str]) -> bool:
    return any(not s or path == s or path.startswith(s + "/") for s in scope)


def without_duplicates(gate: Iterable[Finding], contract: Sequence[Finding]) -> list[Finding]:
    """The boundary findings that no validate finding already reports."""
    return [f for f in gate if not any(same_problem(f, v) for v in contract)]


def same_problem(gate: Finding, contract: Finding) -> bool:
    if gate.path != contract.path:
        return False
    if gate.identity and gate.identity == contract.identity:
        return True
    for family, rules, same_line in SAME_CAUSE:
        if gate.rule.startswith(family) and contract.rule in rules:
            return not same_line or gate.line is None or gate.line == contract.line
    return False
