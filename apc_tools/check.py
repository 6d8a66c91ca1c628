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

With ``rev_range`` the tree of the range's base is validated too (written from git objects into
a temporary folder outside the repository, with the same policy): a validate finding whose
fingerprint is found there is ``preexisting``, and the GitHub format does not annotate it (the
boundary half reports only the range's commits anyway). ``write_baseline`` accepts the errors
and warnings of both halves in the one baseline file; each half reads and rewrites only its own
entries there (:func:`apc_tools.boundary.policy.is_boundary_rule`).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from apc_tools.core.allow import SAME_CAUSE
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding, Result, changed

if TYPE_CHECKING:
    from apc_tools.boundary import Outcome
    from apc_tools.boundary.policy import BaselineEntry
    from apc_tools.contract.validate import Validation
    from apc_tools.core.git import Repo

# A cause both halves report -> (boundary rule family prefix, validate rules of that cause,
# whether the same line is required: a transcript is a cause of the whole file).


@dataclass(frozen=True)
class CheckOptions:
    """The options of ``apc check``. ``paths`` are relative to ``cwd`` (files or folders)."""

    cwd: Path
    paths: tuple[Path, ...] = ()
    rev_range: str | None = None
    config: Path | None = None
    inline_allow: bool = True  # False: `apc: allow RULE` comments are ignored (CI)
    write_baseline: bool = False  # accept every current finding of both halves
    selection: Selection = field(default_factory=Selection)  # --select / --ignore (CLI wins)
    cache: bool = True  # False: --no-cache (neither read nor write the result cache)


def check(options: CheckOptions, *, progress: Callable[[int, int], None] | None = None) -> Result:
    """Validate and scan; raise :class:`CannotRun` outside a git repository or on bad input."""
    return run_check(options, progress=progress).result


@dataclass(frozen=True)
class CheckOutcome:
    """The Result of ``apc check``, and the baseline written (``write_baseline``); ``root``:
    the repository root the run found (its paths are relative to it)."""

    result: Result
    baseline_written: Path | None = None
    baseline_entries: int = 0
    root: Path | None = None


def run_check(
    options: CheckOptions, *, progress: Callable[[int, int], None] | None = None
) -> CheckOutcome:
    """:func:`check`, and with ``write_baseline`` the baseline of both halves written. The
    repository is found once (:func:`repository`) and handed to every step that reads git."""
    from apc_tools.boundary import Options, scan
    from apc_tools.contract.rules import leak_rules

    if options.write_baseline and options.rev_range is not None:
        raise CannotRun("--write-baseline accepts the findings of the tree: drop --range")
    repo = repository(options.cwd, options.paths)
    root = repo.root
    scope = scope_of(root, options.cwd, options.paths)
    at_base: frozenset[str] | None = None
    if options.rev_range is not None:
        # the contract of the range's head commit, read from git objects (whatever branch or
        # edits the work tree holds), judged by the policy of its base (or --config)
        with tempfile.TemporaryDirectory(prefix="apc-check-") as tmp:
            config = options.config
            if config is None:
                config = base_policy(repo, options.rev_range, Path(tmp))
            head = head_tree(repo, options.rev_range, Path(tmp))
            validated = validate_written(head, config, options)
            found = base_findings(repo, options.rev_range, config, options, Path(tmp))
            at_base, base_allowed = found
            if base_allowed and not options.inline_allow:
                lenient = validate_written(head, config, replace(options, inline_allow=True))
                validated = allowed_at_base(validated, lenient, base_allowed)
    else:
        own = options.config if options.config is not None else root_policy(root)
        validated = validate_tree(root, own, options)
    mode = "range" if options.rev_range is not None else "tracked"
    scanned = scan(
        Options(
            cwd=options.cwd,
            paths=options.paths,
            mode=mode,
            rev_range=options.rev_range,
            config=options.config,
            inline_allow=options.inline_allow,
            write_baseline=options.write_baseline,
            selection=options.selection,
            cache=options.cache,
        ),
        progress=progress,
    )
    if options.write_baseline:  # the boundary half wrote its entries; now the validate half's
        mine = [f for f in validated.result.findings if within(f.path, scope)]
        return write_check_baseline(root, options, mine, scanned)
    accepted = baseline_entries(repo, options)
    taken = {e.fingerprint for e in accepted}
    contract = [
        f
        for f in validated.result.findings
        if within(f.path, scope) and f.fingerprint not in taken and not twin_accepted(f, accepted)
    ]
    if at_base is not None:
        contract = [changed(f, preexisting=f.fingerprint in at_base) for f in contract]
    # a finding an inline comment allowed still stands for its boundary twin
    allowed = [f for f in validated.allowed if within(f.path, scope)]
    gate = without_duplicates(scanned.result.findings, [*contract, *allowed])
    stale: list[Finding] = []
    if accepted and options.rev_range is None:
        stale = stale_validate_entries(accepted, validated.result.findings, scope, root, options)
    result = Result.of(
        [*contract, *gate, *stale],
        max(validated.result.files, scanned.result.files),
        strict=validated.result.strict or scanned.result.strict,
        compared=at_base is not None,
        old_fails=leak_rules() if at_base is not None else None,  # a leak stays a leak
    )
    return CheckOutcome(result, root=root)


def validate_tree(root: Path, config: Path | None, options: CheckOptions) -> Validation:
    """The validation of the whole tree at ``root`` with the policy ``config``."""
    from apc_tools.contract.validate import run_validate

    return run_validate(
        [root],
        config_path=config,
        cwd=root,
        inline_allow=options.inline_allow,
        selection=options.selection,
        cache=options.cache,
    )


def head_tree(repo: Repo, rev_range: str, folder: Path) -> Path:
    """The tree of the range's head commit (``B`` of ``A..B``), written to ``folder`` from git
    objects as the base is (:func:`base_findings`): `apc check --range` judges what the range
    leads to, not the checked-out files (another branch, edits)."""
    tree = folder / "head"
    tree.mkdir()
    write_tree_at(repo, range_head(repo, rev_range), tree)
    return tree


def validate_written(tree: Path, config: Path | None, options: CheckOptions) -> Validation:
    """The validation of a tree written from git objects (:func:`write_tree_at`)."""
    with git_stops_at(tree.parent):
        return validate_tree(tree, config, replace(options, cache=False))


def base_findings(
    repo: Repo, rev_range: str, config: Path | None, options: CheckOptions, folder: Path
) -> tuple[frozenset[str], frozenset[str]]:
    """The fingerprints of the validate findings at the range's base commit, and of those an
    inline ``apc: allow`` accepts there: its tree is written to ``folder`` (outside the
    repository) from git objects and validated there with the same policy, so a finding the
    range did not introduce is known by its fingerprint (lines may move; a finding the change
    causes on an untouched file is new)."""
    from apc_tools.contract.validate import identified

    tree = folder / "base"
    tree.mkdir()
    write_tree_at(repo, range_base(repo, rev_range), tree)
    # A fresh temporary folder each run: its results could never be read back (the cache
    # key holds the project root), so they are not stored.
    found = validate_written(tree, config, replace(options, inline_allow=True))
    allowed = frozenset(identified(f).fingerprint for f in found.allowed)
    return frozenset(f.fingerprint for f in found.result.findings) | allowed, allowed


def allowed_at_base(
    validated: Validation, lenient: Validation, base_allowed: frozenset[str]
) -> Validation:
    """Range mode under ``--no-inline-allow`` (the Action's default): ``validated`` (the
    head judged without inline comments) without the findings an ``apc: allow`` accepts both
    at the head (``lenient``: the head judged with them) and at the base (``base_allowed``,
    the same fingerprint: rule, path, matched content). A reviewed and merged allow counts; one
    the range adds, or an allowed line it changes, does not (as the boundary half:
    :func:`apc_tools.boundary.trusted.allowed_at_base`)."""
    from apc_tools.contract.validate import identified

    trusted = {identified(f).fingerprint for f in lenient.allowed} & base_allowed
    if not trusted:
        return validated
    old = validated.result
    kept = [f for f in old.findings if f.fingerprint not in trusted]
    taken = tuple(f for f in old.findings if f.fingerprint in trusted)
    result = Result.of(kept, old.files, strict=old.strict, skipped=old.skipped)
    return replace(validated, result=result, allowed=(*validated.allowed, *taken))


@contextmanager
def git_stops_at(folder: Path) -> Iterator[None]:
    """git's repository discovery stops below ``folder`` (``GIT_CEILING_DIRECTORIES``): a
    temporary folder inside some other work tree (a TMPDIR in a checkout) must be validated as
    the plain folder it is, not as untracked files of that repository."""
    key = "GIT_CEILING_DIRECTORIES"
    was = os.environ.get(key)
    os.environ[key] = str(folder.resolve()) + (os.pathsep + was if was else "")
    try:
        yield
    finally:
        if was is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = was


def write_tree_at(repo: Repo, commit: str, folder: Path) -> None:
    """Write the tree of ``commit`` into the empty ``folder``, from git objects: regular files
    (a file larger than the validator reads is written sparse, at its size, without content)
    and symbolic links (as links: never followed here); submodules and unsafe paths are
    left out (their findings then count as new)."""
    from apc_tools.core import git
    from apc_tools.core.files import MAX_BYTES

    entries = [e for e in git.tree_entries(repo, commit) if not e.is_submodule]
    entries = [e for e in entries if safe_relative(e.path)]
    links: list[tuple[Path, bytes]] = []
    with git.BlobReader(repo) as reader:
        blobs = reader.read_many([e.oid for e in entries], MAX_BYTES + 1)
        for entry, (_, blob) in zip(entries, blobs, strict=True):
            target = folder / entry.path
            if blob.missing:
                continue
            if entry.is_symlink:
                links.append((target, blob.data))
                continue
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                with open(target, "xb") as out:
                    out.write(blob.data)
                    if blob.size > len(blob.data):
                        out.truncate(blob.size)
            except OSError:
                continue
    for target, text in links:  # last, so that no file is written through a link
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            os.symlink(os.fsdecode(text), target)
        except (OSError, ValueError):
            continue


def safe_relative(path: str) -> bool:
    """A tree path that stays inside the folder it is written to."""
    parts = path.split("/")
    return (
        bool(path)
        and all(p not in ("", ".", "..") for p in parts)
        and not any(p.casefold() == ".git" for p in parts)
    )


def stale_validate_entries(
    accepted: Sequence[BaselineEntry],
    found: Iterable[Finding],
    scope: Sequence[str],
    root: Path,
    options: CheckOptions,
) -> list[Finding]:
    """BPL001 for each validate entry of the baseline (the boundary half reports its own)
    that matches no validate finding of the tree any more."""
    from apc_tools.boundary.policy import STALE, is_boundary_rule
    from apc_tools.boundary.trusted import baseline_name

    matched = {f.fingerprint for f in found}
    name = baseline_name(root, options.config)
    out = []
    for entry in accepted:
        if is_boundary_rule(entry.rule) or entry.fingerprint in matched:
            continue
        if not options.selection.keeps(entry.rule):  # not looked for in this run
            continue
        if not within(entry.path, scope):
            continue
        message = (
            f"baseline entry for {entry.rule} at {entry.path!r} matches no finding: remove it "
            "(`apc check --write-baseline` rewrites the baseline)"
        )
        out.append(STALE.finding(name, message, match=entry.fingerprint))
    return out


def write_check_baseline(
    root: Path, options: CheckOptions, contract: Sequence[Finding], scanned: Outcome
) -> CheckOutcome:
    """Accept every error and warning of the validate half too: its entries replace the
    validate entries of the baseline the boundary half has just written (whose own entries
    replaced only the boundary ones)."""
    from apc_tools.boundary.policy import baseline_path, is_boundary_rule
    from apc_tools.boundary.trusted import baseline_name, write_baseline

    target = scanned.baseline_written or baseline_path(root, baseline_name(root, options.config))
    count = write_baseline(target, contract, lambda rule: not is_boundary_rule(rule))
    return CheckOutcome(
        Result.of([], scanned.result.files), target, scanned.baseline_entries + count
    )


def repository_root(cwd: Path, paths: Sequence[Path] = ()) -> Path:
    """The top level (resolved) of the work tree holding ``cwd`` (:func:`repository`)."""
    return repository(cwd, paths).root


def repository(cwd: Path, paths: Sequence[Path] = ()) -> Repo:
    """The work tree holding ``cwd``, at its top level (resolved): what every step of a run
    that reads git is handed. CannotRun, with the way out, when there is none (a PATH inside
    a clone named from outside it: ``-C`` that clone)."""
    from apc_tools.core import git

    if not cwd.is_dir():
        raise CannotRun(f"{cwd}: no such folder")
    top = git.toplevel(cwd)
    if top is None:
        hint = "run it inside a clone (or `apc check -C DIR`)"
        for path in paths:
            folder = cwd / path
            folder = folder if folder.is_dir() else folder.parent
            inner = git.toplevel(folder) if folder.is_dir() else None
            if inner is not None:
                hint = (
                    f"{path} is in the clone {inner}: run `apc check -C {inner}` with PATHs "
                    "relative to it, or run apc check from inside it"
                )
                break
        raise CannotRun(
            f"{cwd}: not inside a git work tree (apc check scans git objects): {hint}; "
            "`apc validate` checks a plain folder"
        )
    return git.Repo(top.resolve(), "")


def root_policy(root: Path) -> Path | None:
    candidate = root / ".apc-tools.yaml"
    return candidate if candidate.is_file() or candidate.is_symlink() else None


def base_policy(repo: Repo, rev_range: str, folder: Path) -> Path:
    """The policy of the range's base commit, written to ``folder`` (outside the repository):
    a change under review cannot relax the rules it is checked by (the boundary half reads
    the same blob, :func:`apc_tools.boundary.trusted.blob_at`). A base without a policy gives
    the defaults."""
    from apc_tools.boundary.trusted import blob_at
    from apc_tools.core.policy import MAX_POLICY_BYTES, POLICY_FILE

    data = blob_at(repo, range_base(repo, rev_range), POLICY_FILE, MAX_POLICY_BYTES + 1)
    target = folder / POLICY_FILE
    target.write_bytes(b"version: 1\n" if data is None else data)
    return target


def baseline_entries(repo: Repo, options: CheckOptions) -> tuple[BaselineEntry, ...]:
    """The baseline in force (both halves' entries), as the boundary half reads it (one
    function decides both: :func:`apc_tools.boundary.trusted.gate_inputs`)."""
    from apc_tools.boundary.trusted import gate_inputs

    base = range_base(repo, options.rev_range) if options.rev_range is not None else None
    return gate_inputs(repo, base, options.config, rules=lambda rule: True)[1]


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

    return git.resolve_commit(repo, range_sides(rev_range)[0])


def range_head(repo: Repo, rev_range: str) -> str:
    """The head commit of ``A..B`` (CannotRun on another form or an unknown commit)."""
    from apc_tools.core import git

    return git.resolve_commit(repo, range_sides(rev_range)[1])


def range_sides(rev_range: str) -> tuple[str, str]:
    if ".." not in rev_range or "..." in rev_range:
        raise CannotRun(f"--range {rev_range!r}: expected BASE..HEAD (two commits, two dots)")
    left, right = rev_range.split("..", 1)
    if not left.strip() or not right.strip():
        raise CannotRun(f"--range {rev_range!r}: BASE and HEAD must both be named (one is empty)")
    return left, right


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
