"""Git, one small function per question, over NUL-separated output.

Every command runs with ``-c core.fsmonitor=false`` (a repository's config must not start a
program when we read its index), without hooks, filters or textconv (blobs are read raw with
``cat-file --batch``), and with ``GIT_NO_LAZY_FETCH=1``: in a partial clone a missing blob is
reported, never fetched over the network. Paths are decoded with ``os.fsdecode`` (undecodable
bytes survive as surrogates, which the renderers show escaped).

GitPython is imported lazily (``apc --version`` must not pay for it); it runs the listings and
keeps one persistent ``git cat-file --batch`` process for every blob of a scan
(:class:`BlobReader`). ``Repo.index`` is never used: it parses the index in Python.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from apc_tools.findings import CannotRun

CONFIG = ("core.fsmonitor=false", "core.hooksPath=/dev/null", "core.untrackedCache=false")
GIT_ENV = {"GIT_NO_LAZY_FETCH": "1", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C", "LANGUAGE": "C"}
SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"
NULL_OID = "0" * 40


class GitFailed(Exception):
    """A git command exited non-zero; ``stderr`` is its message."""

    def __init__(self, args: Sequence[str], status: int, stderr: str) -> None:
        super().__init__(f"git {' '.join(args)}: exit {status}: {stderr.strip()}")
        self.status = status
        self.stderr = stderr


@dataclass(frozen=True)
class Entry:
    """One blob (or gitlink) at a path: ``mode`` as git prints it, full object id."""

    mode: str
    oid: str
    path: str
    commit: str | None = None

    @property
    def is_submodule(self) -> bool:
        return self.mode == SUBMODULE_MODE

    @property
    def is_symlink(self) -> bool:
        return self.mode == SYMLINK_MODE


def _git_module() -> Any:
    """GitPython, imported on first use; a missing git executable is a CannotRun."""
    os.environ.setdefault("GIT_PYTHON_REFRESH", "quiet")
    try:
        import git
    except ImportError as exc:  # GitPython not installed, or git unusable
        raise CannotRun(f"cannot use git: {exc}; install git (and GitPython)") from None
    return git


def _command(cwd: Path) -> Any:
    git = _git_module()
    cmd = git.Git(str(cwd))
    cmd.update_environment(**GIT_ENV)
    cmd.set_persistent_git_options(c=list(CONFIG))
    return cmd


def run(cwd: Path, *args: str) -> bytes:
    """``git ARGS`` in ``cwd``: stdout as bytes; :class:`GitFailed` on a non-zero exit."""
    git = _git_module()
    cmd = _command(cwd)
    full = [cmd.GIT_PYTHON_GIT_EXECUTABLE or "git"]
    for item in CONFIG:
        full += ["-c", item]
    full += list(args)
    try:
        status, out, err = cmd.execute(
            full,
            with_extended_output=True,
            with_exceptions=False,
            stdout_as_string=False,
            strip_newline_in_stdout=False,
        )
    except git.exc.GitCommandNotFound:
        raise CannotRun("git is not installed or not on PATH: install git") from None
    if status != 0:
        raise GitFailed(args, status, err if isinstance(err, str) else os.fsdecode(err))
    return bytes(out)


# --------------------------------------------------------------------------- the repository


@dataclass(frozen=True)
class Repo:
    """A work tree: its top level and the prefix of the folder git was asked from."""

    root: Path
    prefix: str  # the starting folder relative to root, POSIX, "" or ending in "/"


def open_repo(start: Path) -> Repo:
    """The repository holding ``start``, as git finds it; CannotRun with what to do otherwise."""
    if not start.is_dir():
        raise CannotRun(f"{start}: not a folder")
    try:
        out = run(start, "rev-parse", "--show-toplevel", "--show-prefix")
    except GitFailed as exc:
        raise CannotRun(_explain(start, exc.stderr)) from None
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 2 or not lines[0]:
        raise CannotRun(f"{start}: not inside a git work tree (a bare repository has no HEAD tree)")
    return Repo(Path(os.fsdecode(lines[0].encode("utf-8", "surrogateescape"))), lines[1])


def _explain(start: Path, stderr: str) -> str:
    text = stderr.strip()
    if "dubious ownership" in text:
        return (
            f"{start}: git refuses this repository (owned by another user): if you trust it, run "
            f"`git config --global --add safe.directory {start.absolute()}`"
        )
    if "not a git repository" in text:
        return f"{start}: not a git repository: run apc boundary inside one (or use -C DIR)"
    return f"{start}: git failed: {text.splitlines()[-1] if text else 'unknown error'}"


def head(repo: Repo) -> str | None:
    """The commit at HEAD, or None before the first commit."""
    try:
        return run(repo.root, "rev-parse", "--verify", "-q", "HEAD^{commit}").decode().strip()
    except GitFailed:
        return None


def empty_tree(repo: Repo) -> str:
    """The id of the empty tree in this repository's hash (SHA-1 or SHA-256)."""
    fmt = run(repo.root, "rev-parse", "--show-object-format").decode().strip()
    if fmt == "sha256":
        return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
    return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def is_shallow(repo: Repo) -> bool:
    return run(repo.root, "rev-parse", "--is-shallow-repository").strip() == b"true"


def resolve_commit(repo: Repo, rev: str) -> str:
    """The full id of commit ``rev``; CannotRun (with the fix) when it is not in the clone."""
    if rev.startswith("-"):
        raise CannotRun(f"{rev!r} is not a revision")
    try:
        return run(repo.root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}").decode().strip()
    except GitFailed:
        pass
    if is_shallow(repo):
        raise CannotRun(
            f"{rev}: not in this shallow clone: fetch the history of the range (`git fetch "
            "--unshallow`, or `fetch-depth: 0` in actions/checkout)"
        )
    raise CannotRun(f"{rev}: no such commit in this repository (fetch it first?)")


# --------------------------------------------------------------------------- listings


def _tokens(out: bytes) -> list[bytes]:
    parts = out.split(b"\0")
    if parts and parts[-1] == b"":
        parts.pop()
    return parts


def tree_entries(repo: Repo, rev: str) -> Iterator[Entry]:
    """Every blob and gitlink of the tree at ``rev`` (``ls-tree -r``), whole repository."""
    out = run(repo.root, "ls-tree", "-r", "-z", "--full-tree", rev)
    for token in _tokens(out):
        meta, _, name = token.partition(b"\t")
        mode, kind, oid = meta.decode().split(" ")
        if kind in ("blob", "commit"):
            yield Entry(mode, oid, os.fsdecode(name))


def index_entries(repo: Repo) -> Iterator[Entry]:
    """Every entry of the index (``ls-files -s``); of a conflicted path, its stages in order."""
    out = run(repo.root, "ls-files", "-s", "-z", "--full-name")
    for token in _tokens(out):
        meta, _, name = token.partition(b"\t")
        mode, oid, _stage = meta.decode().split(" ")
        yield Entry(mode, oid, os.fsdecode(name))


def staged_changes(repo: Repo, against: str) -> Iterator[Entry]:
    """Index entries that differ from the tree ``against`` (added, modified, type changed)."""
    out = run(
        repo.root,
        "diff-index",
        "--cached",
        "--raw",
        "-z",
        "--no-renames",
        "--no-abbrev",
        "--diff-filter=AMT",
        "--ignore-submodules=none",
        against,
        "--",
    )
    tokens = _tokens(out)
    for meta, name in zip(tokens[0::2], tokens[1::2], strict=False):
        _, mode, _, oid, _ = meta.decode().lstrip(":").split(" ")
        yield Entry(mode, oid, os.fsdecode(name))


def commit_changes(repo: Repo, *revs: str) -> Iterator[Entry]:
    """Each blob a commit of ``git log REVS`` adds or modifies (merges: against the first
    parent), oldest commit first, with the commit's id."""
    out = run(
        repo.root,
        "log",
        "--format=%x01%H",
        "-z",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        "--no-ext-diff",
        "--no-textconv",
        "--diff-merges=first-parent",
        "--diff-filter=AMT",
        "--reverse",
        *revs,
        "--",
    )
    commit: str | None = None
    tokens = iter(_tokens(out))
    for token in tokens:
        token = token.lstrip(b"\n")
        if token.startswith(b"\x01"):
            commit = token[1:].decode()
            continue
        if token.startswith(b":"):
            name = next(tokens, b"")
            _, mode, _, oid, _ = token.decode().lstrip(":").split(" ")
            yield Entry(mode, oid, os.fsdecode(name), commit)


def changed_paths(repo: Repo, base: str, tip: str, paths: Sequence[str]) -> list[str]:
    """Which of ``paths`` differ between commits ``base`` and ``tip``."""
    out = run(repo.root, "diff", "--name-only", "-z", "--no-renames", base, tip, "--", *paths)
    return [os.fsdecode(t) for t in _tokens(out)]


# --------------------------------------------------------------------------- blobs


@dataclass(frozen=True)
class Blob:
    """What was read of one object: up to ``limit`` bytes of it, and its full size."""

    data: bytes
    size: int
    missing: bool = False

    @property
    def complete(self) -> bool:
        return not self.missing and len(self.data) == self.size


class BlobReader:
    """Blobs through GitPython's one persistent ``git cat-file --batch`` process."""

    CHUNK = 1 << 20

    def __init__(self, repo: Repo) -> None:
        self._cmd = _command(repo.root)

    def read(self, ref: str, limit: int) -> Blob:
        """Up to ``limit`` bytes of object ``ref`` (an id or ``rev:path``); the rest is
        drained in bounded chunks, never held."""
        try:
            _, kind, size, stream = self._cmd.stream_object_data(ref)
        except ValueError:  # "<ref> missing": absent from a partial or damaged clone
            return Blob(b"", 0, missing=True)
        data = stream.read(min(size, limit))
        while stream.read(self.CHUNK):
            pass
        if kind not in (b"blob", "blob"):
            return Blob(b"", 0, missing=True)
        return Blob(data, size)

    def close(self) -> None:
        self._cmd.clear_cache()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
