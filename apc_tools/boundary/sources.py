"""What a scan reads: the blobs of one git source, never the working tree.

- ``staged``: the index blobs that differ from HEAD (from the empty tree before the first
  commit); with PATHs, those paths' index blobs whether changed or not (``pre-commit run
  --all-files`` and ``--files X`` really scan what is committed).
- ``tracked`` (the default): every blob of the tree at HEAD.
- ``range A..B``: every blob (and symlink target) a commit reachable from B and not from A
  adds or modifies (merge commits against their first parent), each with its commit; the
  message of each of those commits, and of B's tags when B names an annotated tag (a tag of a
  tree or a blob: that tree or blob, and no commit); with ``--tag`` (a push's tags), each
  tag's messages and the tree or blob it ends at too. A commit of the walk on the shallow
  boundary (its parents not fetched) stops the scan: part of the range is not in the clone.
- ``history``: the same over every commit reachable from any ref, plus every annotated tag's
  message and the trees and blobs that are reachable only through a tag.

Messages are scanned only when no PATH narrows the scan (a message has no path).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from apc_tools.boundary.verdicts import TagObjects, changes_cached
from apc_tools.core import git as gitio
from apc_tools.core.cache import Cache
from apc_tools.core.git import Entry, Repo
from apc_tools.findings import CannotRun

MODES = ("staged", "tracked", "range", "history")


@dataclass(frozen=True)
class Scope:
    """PATH arguments as repository paths: exact files and folder prefixes (None: everything)."""

    paths: tuple[str, ...] | None = None
    absent: tuple[str, ...] = ()  # PATH arguments not on disk (they must be in the source)

    def check(self, entries: Iterable[Entry]) -> None:
        """CannotRun naming a PATH that is neither on disk nor in the scanned source."""
        left = set(self.absent)
        for entry in entries:
            if not left:
                return
            left -= {p for p in left if entry.path == p or entry.path.startswith(p + "/")}
        if left:
            raise CannotRun(f"{sorted(left)[0]}: no such file or folder (on disk or in git)")

    def covers(self, path: str) -> bool:
        if self.paths is None:
            return True
        return any(path == p or path.startswith(p + "/") or p == "" for p in self.paths)

    @property
    def whole(self) -> bool:
        return self.paths is None or "" in self.paths


def scope_of(repo: Repo, cwd: Path, paths: Sequence[Path]) -> Scope:
    """Repository-relative POSIX forms of ``paths`` (relative to ``cwd``, as git reads them)."""
    if not paths:
        return Scope()
    root = repo.root.resolve()
    out: list[str] = []
    absent: list[str] = []
    for path in paths:
        full = path if path.is_absolute() else cwd / path
        absolute = Path(os.path.normpath(full.absolute()))
        try:
            rel = absolute.resolve().relative_to(root) if absolute.exists() else None
        except ValueError:
            rel = None
        if rel is None:
            try:
                rel = absolute.relative_to(root)
            except ValueError:
                raise CannotRun(f"{path}: outside the repository {repo.root}") from None
        posix = PurePosixPath(rel).as_posix()
        out.append("" if posix == "." else posix)
        if not absolute.exists() and not absolute.is_symlink():
            absent.append(posix)
    return Scope(tuple(sorted(set(out))), tuple(absent))


@dataclass(frozen=True)
class Source:
    """The entries to scan and what the scan covered."""

    entries: list[Entry]
    base: str | None = None  # range mode: the base commit (policy and baseline come from it)
    tip: str | None = None
    messages: tuple[Entry, ...] = ()  # commit and tag objects whose messages are scanned
    commit: str | None = None  # tracked mode: the commit whose tree was listed
    tree_size: int = 0  # tracked mode: the entries of that whole tree (before PATHs narrow it)


COMMIT_MESSAGE = "(commit message)"
UNSHALLOW = "fetch the history (`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"


def staged(repo: Repo, scope: Scope) -> Source:
    if scope.paths is not None:
        entries = [e for e in gitio.index_entries(repo) if scope.covers(e.path)]
        return Source(_unique(entries))
    against = gitio.head(repo) or gitio.empty_tree(repo)
    return Source(list(gitio.staged_changes(repo, against)))


def tracked(repo: Repo, scope: Scope) -> Source:
    commit = gitio.head(repo)
    if commit is None:
        return Source([])
    whole = list(gitio.tree_entries(repo, commit))
    entries = whole if scope.paths is None else [e for e in whole if scope.covers(e.path)]
    return Source(entries, commit=commit, tree_size=len(whole))


def commit_range(repo: Repo, spec: str, scope: Scope, listing: Cache | None = None) -> Source:
    if ".." not in spec or "..." in spec:
        raise CannotRun(f"--range {spec!r}: expected BASE..HEAD (two commits, two dots)")
    left, right = spec.split("..", 1)
    if not left.strip() or not right.strip():
        # `--range "$BASE..$HEAD"` with an unset variable: git reads an empty side as HEAD,
        # an empty range that would pass with exit 0 on nothing read.
        raise CannotRun(f"--range {spec!r}: BASE and HEAD must both be named (one is empty)")
    base = gitio.resolve_commit(repo, left)
    if _peeled_kind(repo, right) in ("tree", "blob"):  # a tag of a tree or a blob: no commits
        messages: list[Entry] = []
        entries, _ = _tags(repo, _object(repo, right), right, messages, listing)
        entries = [e for e in entries if scope.covers(e.path)]
        return Source(entries, base, base, tuple(messages) if scope.whole else ())
    tip = gitio.resolve_commit(repo, right)
    walked = gitio.walk(repo, f"{base}..{tip}")
    boundary = gitio.shallow_commits(repo) if walked else frozenset()
    cut = [c.oid for c in walked if c.oid in boundary]
    if cut:
        raise CannotRun(
            f"--range {spec}: {len(cut)} commit{'s' if len(cut) > 1 else ''} of the range "
            f"({cut[0][:12]}{', ...' if len(cut) > 1 else ''}) lie on the shallow boundary of "
            "this clone (their parents were not fetched), so commits of the range are "
            f"missing (a merged side branch is cut off): {UNSHALLOW}"
        )
    entries = [e for e in changes_cached(repo, walked, listing) if scope.covers(e.path)]
    messages = []
    if scope.whole:
        messages = [Entry("commit", c.oid, COMMIT_MESSAGE, c.oid) for c in walked]
        named = gitio.run(repo.root, ["rev-parse", "--verify", "-q", right])
        tag, _ = _tags(repo, named.decode().strip(), right, messages, listing)
        entries += tag
    return Source(entries, base, tip, tuple(messages))


def history(repo: Repo, scope: Scope, listing: Cache | None = None) -> Source:
    if gitio.head(repo) is None and not gitio.refs(repo):
        return Source([])
    if gitio.is_shallow(repo):
        raise CannotRun(
            f"--history in a shallow clone would scan only the fetched commits: {UNSHALLOW}"
        )
    walked = gitio.walk(repo, "--all")
    entries = list(changes_cached(repo, walked, listing))
    messages = [Entry("commit", c.oid, COMMIT_MESSAGE, c.oid) for c in walked]
    for oid, kind, name in gitio.refs(repo):
        if kind != "commit":  # an annotated tag, or a ref straight at a tree or a blob
            entries += _tags(repo, oid, name, messages, listing)[0]
    entries = [e for e in entries if scope.covers(e.path)]
    return Source(entries, messages=tuple(messages) if scope.whole else ())


def _tags(
    repo: Repo, oid: str, name: str, messages: list[Entry], listing: Cache | None = None
) -> tuple[list[Entry], str]:
    """Follow a chain of annotated tags from ``oid``: each tag's message goes to ``messages``;
    a tree or blob at its end is returned as entries (a commit is walked anyway), each with
    the id of the last tag in place of a commit."""
    entries: list[Entry] = []
    seen: set[str] = set()
    last = ""
    objects = TagObjects(repo, listing)
    kind = objects.kind(oid)
    while kind == "tag" and oid not in seen and len(seen) < 64:
        seen.add(oid)
        told = objects.target(oid)
        if told is None:
            raise CannotRun(f"{name}: tag object {oid} is missing: the repository is damaged")
        target, target_kind, own = told
        label = name if not last else own  # the ref's name, then each inner tag's own name
        messages.append(Entry("tag", oid, f"(tag message {label})", oid))
        last, oid, kind = oid, target, target_kind
    if kind == "tag":
        raise CannotRun(f"{name}: a chain of more than 64 tags: not followed to its end")
    last = last or oid  # a ref straight at a tree or a blob: that object's id
    if kind == "tree":
        entries = [Entry(e.mode, e.oid, e.path, last) for e in gitio.tree_entries(repo, oid)]
    elif kind == "blob":
        entries = [Entry("100644", oid, f"(tag {name})", last)]
    return entries, kind


def _object(repo: Repo, name: str) -> str:
    """The id of the object ``name`` names (not peeled); CannotRun when there is none."""
    if name.startswith("-"):
        raise CannotRun(f"{name!r} is not a revision")
    try:
        return gitio.run(repo.root, ["rev-parse", "--verify", "-q", name]).decode().strip()
    except gitio.GitError:
        raise CannotRun(f"{name}: no such tag or commit in this repository") from None


def _peeled_kind(repo: Repo, name: str) -> str | None:
    """The type of the object at the end of ``name``'s tag chain (None: not an object)."""
    if name.startswith("-"):
        return None
    try:
        return gitio.run(repo.root, ["cat-file", "-t", f"{name}^{{}}"]).decode().strip()
    except gitio.GitError:
        return None


def with_tags(
    repo: Repo, source: Source, scope: Scope, tags: Sequence[str], listing: Cache | None = None
) -> Source:
    """``source`` and the tags ``tags`` (what a push sends beside its commits: ``apc boundary
    --tag``): each annotated tag's message chain, and the tree or blob a tag ends at."""
    if not tags:
        return source
    entries, messages = list(source.entries), list(source.messages)
    for name in tags:
        found, _ = _tags(repo, _object(repo, name), name, messages, listing)
        entries += [e for e in found if scope.covers(e.path)]
    unique = list({m.oid: m for m in reversed(messages)}.values())[::-1]  # each message once
    return Source(
        entries,
        source.base,
        source.tip,
        tuple(unique) if scope.whole else (),
        source.commit,
        source.tree_size,
    )


def _unique(entries: Iterable[Entry]) -> list[Entry]:
    """One entry per path (a conflicted path lists several stages: keep the last)."""
    by_path: dict[str, Entry] = {}
    for entry in entries:
        by_path[entry.path] = entry
    return list(by_path.values())


def read_source(
    repo: Repo,
    mode: str,
    scope: Scope,
    rev_range: str | None,
    listing: Cache | None = None,
    tags: Sequence[str] = (),
) -> Source:
    """The entries of ``mode``; ``listing`` keeps what diff-tree lists per commit (range and
    history modes: :func:`.verdicts.changes_cached`); range mode adds ``tags``
    (:func:`with_tags`)."""
    if mode == "staged":
        return staged(repo, scope)
    if mode == "tracked":
        return tracked(repo, scope)
    if mode == "range":
        if not rev_range:
            raise CannotRun("--range needs BASE..HEAD")
        return with_tags(repo, commit_range(repo, rev_range, scope, listing), scope, tags, listing)
    if mode == "history":
        return history(repo, scope, listing)
    raise CannotRun(f"unknown mode {mode!r}; known: {', '.join(MODES)}")
