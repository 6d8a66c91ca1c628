"""Discovery before any file is parsed, for `apc validate` and its whole-run result
(:mod:`apc_tools.contract.warm`): the run's :class:`Layout` (the working folder, the targets,
the project roots they belong to, the report root), the projects of a tree and their files,
and :class:`Validation`. It imports no parser and no check, so a run answered whole from the
cache never loads them.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apc_tools.contract.project import (
    display_root,
    list_files,
    maybe_in_git,
    outside_folder_links,
    project_roots,
    roots_above,
)
from apc_tools.core import files as io
from apc_tools.findings import CannotRun, Finding, Result

if TYPE_CHECKING:  # pragma: no cover
    from apc_tools.core.policy import Policy

Probe = tuple[str, str, str, bool]  # (project root, question, rel, answer)


@dataclass
class Validation:
    """What `apc validate` found: the Result and which files were recognised as what."""

    result: Result
    listed: tuple[tuple[str, str], ...]  # (display path, kind) of every file looked at
    skipped: tuple[str, ...]  # file arguments that are not agent-context files
    allowed: tuple[Finding, ...] = ()  # findings an inline `apc: allow` comment accepted
    # What the checks asked the disk (``Project.probe``); None: the run cannot be stored whole
    probes: tuple[Probe, ...] | None = ()


@dataclass
class Gathered:
    """What :func:`apc_tools.contract.warm.gather` listed and read, handed to the run it keys
    so the run judges exactly the bytes of its key (and reads nothing twice): per scanned
    root the layouts and listing findings, per project root the kinds, per (project root,
    rel) the bytes or why they cannot be read."""

    layouts: dict[str, tuple[list[_ProjectFiles], list[Finding]]] = field(default_factory=dict)
    kinds: dict[str, dict[str, str]] = field(default_factory=dict)
    data: dict[tuple[str, str], bytes | Finding] = field(default_factory=dict)
    # The SHA-256 (hex) of each of those bytes, taken for the key: the run's per-file cache
    # keys reuse it instead of hashing every file a second time.
    digests: dict[tuple[str, str], str] = field(default_factory=dict)
    # Files not read: their digest was taken from the stat memo (contract.warm), (top, rel) ->
    # digest; a run made on this gathering reads them and checks the digests first.
    trusted: dict[tuple[str, str], str] = field(default_factory=dict)
    # The stat memo to keep per project root (contract.warm), and whether it differs from the
    # one found (only then is it written).
    memos: dict[str, dict[str, Any]] = field(default_factory=dict)
    memo_changed: bool = False


def _text_of(root: Path, rel: str) -> str | None:
    """A project file's text for discovery (a plugin marketplace), or None when unreadable (it
    is no contract file itself, so nothing is reported about it)."""
    read = io.read_text(root / rel, root, rel)
    return None if isinstance(read, Finding) else read.text


@dataclass
class _ProjectFiles:
    """One project of a scanned tree: its root and the files it owns (before any is read)."""

    root: Path
    display: str
    local: list[str]
    tracked: frozenset[str] | None
    include: tuple[tuple[str, str], ...] = ()  # the policy's `include:` (glob, kind)


@dataclass(frozen=True)
class Group:
    """One project root a run scans, and the targets (PATH arguments) it holds."""

    root: Path
    targets: tuple[Path, ...]

    def extra(self) -> list[str]:
        """The files named on the command line below the root (relative to it), which the
        listing may leave out (git-ignored)."""
        return [
            t.relative_to(self.root).as_posix()
            for t in self.targets
            if not t.is_dir() and _under(t, self.root)
        ]


@dataclass(frozen=True)
class Layout:
    """Where one run of `apc validate` stands, decided once at its start (:func:`layout_of`)
    and handed down to everything that lists, reads, shows or moves a path: the working folder
    (resolved), the PATH arguments as given and made absolute (none: the project around the
    working folder), the project roots they belong to (:func:`find_root`), and the root the
    report's paths are relative to (the git top level, else the project root: `report`, or
    :func:`report_root` of the working folder when the caller did not say)."""

    cwd: Path
    paths: tuple[Path, ...]
    targets: tuple[Path, ...]
    groups: tuple[Group, ...]
    report: Path | None = None

    def display(self, path: Path) -> str:
        """``path`` as the run shows it: relative to the working folder (:func:`display_root`)."""
        return display_root(path, self.cwd)

    def report_root(self) -> Path:
        """The root the report's paths are relative to."""
        return self.report if self.report is not None else report_root(self.cwd)


def layout_of(paths: Sequence[Path], cwd: Path | None = None, report: Path | None = None) -> Layout:
    """The :class:`Layout` of a run over ``paths`` from ``cwd`` (default: the working folder);
    CannotRun when a path does not exist."""
    here = (cwd or Path.cwd()).resolve()
    for path in paths:
        if not (here / path).exists() and not (here / path).is_symlink():
            raise CannotRun(f"{path}: no such file or folder")
    targets = [_absolute(here / p) for p in paths] or [find_root(here)]
    groups: dict[Path, list[Path]] = {}
    for target in targets:
        groups.setdefault(find_root(target), []).append(target)
    return Layout(
        here,
        tuple(paths),
        tuple(targets),
        tuple(Group(root, tuple(mine)) for root, mine in groups.items()),
        report,
    )


def _layout(
    tree: Path,
    cwd: Path,
    policy: Policy | None = None,
    extra: Sequence[str] = (),
    folders: list[str] | None = None,
) -> tuple[list[_ProjectFiles], list[Finding]]:
    """The projects under ``tree`` and their files (shown relative to ``cwd``). ``extra`` are
    files (relative to ``tree``) named on the command line that the listing left out
    (git-ignored). Folders that cannot be listed are IO005 findings (M4). ``folders``: the
    folders a walk listed are added to it (``project.walk_files``), those of a listing that
    depends on nothing else (none for git's list, a walk that met a symbolic link, whose
    target may change outside the tree, or a folder it could not list)."""
    unlistable: list[str] = []
    links: list[str] = []
    listed: list[str] = []
    files, tracked = list_files(tree, unlistable, links, listed)
    if folders is not None and not links and not unlistable:
        folders += listed
    found: list[Finding] = [_unlistable(tree, cwd, rel) for rel in unlistable]
    # a walk says which entries are links (only they can be folder links); git's list does not
    candidates = sorted(links) if tracked is None else files
    found += [_folder_link(tree, cwd, rel) for rel in outside_folder_links(tree, candidates)]
    files = sorted(set(files).union(extra))
    if policy is not None and policy.exclude:
        files = [f for f in files if not policy.excluded(f)]
    roots = project_roots(files)
    grouped = _grouped(files, roots)
    # Each project sees every tracked file below its root (nested projects' too): files x depth.
    tracked_in: dict[str, list[str]] = {r: [] for r in roots}
    root_set = frozenset(roots)
    for rel in tracked or ():
        for above in roots_above(rel, root_set):
            tracked_in[above].append(rel[len(above) + 1 :] if above else rel)
    layouts: list[_ProjectFiles] = []
    for rel_root, members in grouped.items():
        cut = len(rel_root) + 1 if rel_root else 0
        local = [m[cut:] for m in members]
        sub_tracked = None if tracked is None else frozenset(tracked_in[rel_root])
        root = tree / rel_root if rel_root else tree
        include = policy.include if policy is not None else ()
        layouts.append(_ProjectFiles(root, display_root(root, cwd), local, sub_tracked, include))
    return layouts, found


def _grouped(files: list[str], roots: list[str]) -> dict[str, list[str]]:
    """``files`` (sorted) by the deepest of ``roots`` holding each (:func:`owner`): the files
    below a root are one run of the sorted list (``root/`` up to ``root0``, "0" following "/"),
    so each root takes its run, deeper roots after shallower ones."""
    owners = [""] * len(files)
    for root in sorted(roots, key=lambda r: r.count("/") if r else -1):
        if root:
            start = bisect_left(files, root + "/")
            end = bisect_left(files, root + "0", start)
            owners[start:end] = [root] * (end - start)
    grouped: dict[str, list[str]] = {r: [] for r in roots}
    for rel, root in zip(files, owners, strict=True):
        grouped[root].append(rel)
    return grouped


ROOT_MARKERS = (".apc", ".git", "AGENTS.md")


def _unlistable(tree: Path, cwd: Path, rel: str) -> Finding:
    """IO005 for a folder that cannot be listed: its files are not checked (M4)."""
    shown = display_root(tree / rel if rel != "." else tree, cwd) or "."
    return io.IO_UNREADABLE.finding(
        shown, "cannot list this folder (permissions?): the files in it were not checked"
    )


def _folder_link(tree: Path, cwd: Path, rel: str) -> Finding:
    """IO004 for a symlinked agent folder that leads out of the tree: not followed."""
    return io.IO_SYMLINK.finding(
        display_root(tree / rel, cwd),
        "symbolic link to a folder outside the project: agent tools follow it, apc does not, so "
        "its files are not checked and are missing on another machine; commit the files instead",
    )


def find_root(start: Path) -> Path:
    """The project root around ``start``, found the way git finds its top level: the nearest
    ancestor (or ``start``) holding ``.apc/``; else the git work tree's top; else the nearest
    folder with ``AGENTS.md``; else the folder itself."""
    start = start.resolve()
    folder = start if start.is_dir() else start.parent
    chain = [folder, *folder.parents]
    for candidate in chain:  # one look each: a folder that goes away meanwhile is no crash
        if (candidate / ".apc").is_dir():
            return candidate
    for marker in ROOT_MARKERS[1:]:
        for candidate in chain:
            if (candidate / marker).exists():
                return candidate
    return folder


def _absolute(path: Path) -> Path:
    """``path`` made absolute with its folders resolved (a symlinked file itself is kept)."""
    path = path.absolute()
    return path.resolve() if path.is_dir() else path.parent.resolve() / path.name


def _under(path: Path, target: Path) -> bool:
    return path == target or target in path.parents


def report_root(cwd: Path) -> Path:
    """The folder `apc validate` reports paths from: the git top level around ``cwd``, else
    the project root (:func:`find_root`)."""
    top = None
    if maybe_in_git(cwd):
        from apc_tools.core import git

        top = git.toplevel(cwd)
    return top.resolve() if top is not None else find_root(cwd)
