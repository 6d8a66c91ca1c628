"""Git, one small function per question, over NUL-separated output (pre-commit's ``git.py`` way).

Every call runs ``git`` with the repository's own hooks, fsmonitor and filters switched off, so
a scanned repository cannot make apc run its commands (``core.fsmonitor`` is a command line), and
with ``GIT_NO_LAZY_FETCH=1``, so a partial clone never fetches a missing object over the network.
Functions return ``None`` (or raise :class:`GitError`) instead of printing; callers decide what a
failure means.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from apc_tools.findings import CannotRun

# Settings that keep a scanned repository's configuration (or the user's, or one reached through
# ``include.path``) from running anything or changing what git answers: no fsmonitor command,
# no hooks, no signature checks (``log.showSignature`` would run ``gpg.program``; the signing
# programs point at a path that cannot exist, so nothing runs even if a check were asked for),
# root commits shown, replace refs ignored. Listings use plumbing (rev-list, diff-tree, ls-tree,
# cat-file), which porcelain settings do not reach anyway.
NO_PROGRAM = "/nonexistent/apc-tools-never-runs-a-configured-program"
SAFE_CONFIG: tuple[str, ...] = (
    "-c",
    "core.fsmonitor=false",
    "-c",
    "core.hooksPath=/dev/null",
    "-c",
    "core.untrackedCache=false",
    "-c",
    "core.useReplaceRefs=false",
    "-c",
    "log.showSignature=false",
    "-c",
    "log.showRoot=true",
    "-c",
    f"gpg.program={NO_PROGRAM}",
    "-c",
    f"gpg.openpgp.program={NO_PROGRAM}",
    "-c",
    f"gpg.x509.program={NO_PROGRAM}",
    "-c",
    f"gpg.ssh.program={NO_PROGRAM}",
)
TIMEOUT = 300


class GitError(Exception):
    """git could not answer (not installed, not a repository, a refusal): the message says why."""


SAFE_ENV: dict[str, str] = {
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_NO_REPLACE_OBJECTS": "1",  # refs/replace/ cannot swap a clean commit for a leaking one
    "GIT_GRAFT_FILE": os.devnull,  # .git/info/grafts cannot cut or rewire history
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_PAGER": "cat",
    "GIT_OPTIONAL_LOCKS": "0",
    "LC_ALL": "C",
}


def git_env() -> dict[str, str]:
    """The environment for git: no lazy fetch, no pager, no prompts, no locale surprises."""
    return {**os.environ, **SAFE_ENV}


def run(cwd: Path, args: Sequence[str], *, stdin: bytes | None = None) -> bytes:
    """``git -C cwd <safe config> args``: its stdout, or :class:`GitError` with git's own words."""
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *SAFE_CONFIG, *args],
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
            env=git_env(),
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from exc
    if done.returncode != 0:
        words = os.fsdecode(done.stderr).strip().splitlines()
        raise GitError(words[-1] if words else f"git {args[0]} failed")
    return done.stdout


# For the boundary prefilter's ``git grep`` and ``check-attr``: attributes only from the
# repository itself (no global file, no system file, no ``attr.tree`` or GIT_ATTR_SOURCE
# naming another tree), so what decides a blob's ``diff`` attribute is what apc inspects.
ATTR_CONFIG: tuple[str, ...] = (
    "-c",
    f"core.attributesFile={os.devnull}",
    "-c",
    "attr.tree=",
    "-c",
    "advice.graftFileDeprecated=false",  # GIT_GRAFT_FILE is set: no hint on stderr
)
ATTR_ENV = {"GIT_ATTR_NOSYSTEM": "1"}


def run_status(
    cwd: Path, args: Sequence[str], *, stdin: bytes | None = None, ok: Sequence[int] = (0,)
) -> bytes:
    """:func:`run` with :data:`ATTR_CONFIG` and :data:`ATTR_ENV`, accepting the exit codes
    ``ok`` (``git grep`` exits 1 when it lists nothing); anything on stderr is an error."""
    env = {**git_env(), **ATTR_ENV}
    env.pop("GIT_ATTR_SOURCE", None)
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *SAFE_CONFIG, *ATTR_CONFIG, *args],
            input=stdin,
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
            env=env,
        )
    except FileNotFoundError as exc:
        raise GitError("git is not installed (or not on PATH)") from exc
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from exc
    if done.returncode not in ok or done.stderr.strip():
        words = os.fsdecode(done.stderr).strip().splitlines()
        raise GitError(words[-1] if words else f"git {args[0]} failed ({done.returncode})")
    return done.stdout


def hooks_dir(cwd: Path) -> Path:
    """The folder git runs this repository's hooks from (``core.hooksPath`` honoured), for the
    one place apc writes a hook (``apc_tools.githook install``): asked without the
    ``core.hooksPath=/dev/null`` every other call sets; ``rev-parse`` runs no program."""
    pairs = zip(SAFE_CONFIG[::2], SAFE_CONFIG[1::2], strict=True)
    config = [part for pair in pairs if pair[1] != "core.hooksPath=/dev/null" for part in pair]
    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), *config, "rev-parse", "--git-path", "hooks"],
            capture_output=True,
            timeout=TIMEOUT,
            check=False,
            env=git_env(),
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise GitError(f"git could not run: {exc}") from exc
    if done.returncode != 0:
        words = os.fsdecode(done.stderr).strip().splitlines()
        raise GitError(words[-1] if words else "git rev-parse failed")
    path = Path(os.fsdecode(done.stdout).strip())
    return path if path.is_absolute() else cwd / path


def split_z(out: bytes) -> list[str]:
    """NUL-separated git output as file-system strings (no empty trailing entry)."""
    return [os.fsdecode(part) for part in out.split(b"\0") if part]


def toplevel(cwd: Path) -> Path | None:
    """The work tree's top folder holding ``cwd``, or None outside a work tree."""
    try:
        out = run(cwd, ["rev-parse", "--show-toplevel"])
    except GitError:
        return None
    return Path(os.fsdecode(out.strip()))


def ls_files(cwd: Path) -> list[tuple[bool, str]]:
    """(tracked, path from the top level) for the files under ``cwd`` that git does not ignore:
    tracked files plus untracked ones not excluded by the ignore rules."""
    out = run(
        cwd,
        ["ls-files", "-z", "-t", "-c", "-o", "--exclude-standard", "--full-name", "--", "."],
    )
    entries: list[tuple[bool, str]] = []
    for entry in split_z(out):
        if len(entry) >= 3:
            entries.append((entry[0] != "?", entry[2:]))
    return entries


def work_tree_files(root: Path) -> tuple[list[str], frozenset[str]] | None:
    """(files not ignored, tracked files) under ``root``, relative to it, or None outside a work
    tree (or when git cannot answer)."""
    top = toplevel(root)
    if top is None:
        return None
    try:
        entries = ls_files(root)
    except GitError:
        return None
    prefix = os.path.relpath(root.resolve(), top.resolve())
    prefix = "" if prefix == "." else PurePosixPath(Path(prefix)).as_posix() + "/"
    files: set[str] = set()
    tracked: set[str] = set()
    for is_tracked, name in entries:
        if name.startswith(prefix):
            rel = name[len(prefix) :]
            files.add(rel)
            if is_tracked:
                tracked.add(rel)
    return sorted(files), frozenset(tracked)


# ============================================================================ the boundary gate
# What `apc boundary` asks git: the repository, its listings, and its blobs. Listings run
# through :func:`run`; blobs come from one persistent ``git cat-file --batch`` process
# (:class:`BlobReader`, a plain subprocess).

SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"


@dataclass(frozen=True)
class Entry:
    """One blob (or gitlink) at a path: ``mode`` as git prints it, full object id, and the
    commit that added or changed it (range and history modes)."""

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


# --------------------------------------------------------------------------- the repository


@dataclass(frozen=True)
class Repo:
    """A work tree: its top level and the prefix of the folder git was asked from."""

    root: Path
    prefix: str  # the starting folder relative to root, POSIX, "" or ending in "/"


BARE = (
    "a bare repository (no work tree): run apc there in a clone or a work tree "
    "(`git clone`, `git worktree add`), e.g. `apc boundary --history -C CLONE`"
)


def open_repo(start: Path) -> Repo:
    """The repository holding ``start``, as git finds it; CannotRun with what to do otherwise."""
    if not start.is_dir():
        raise CannotRun(f"{start}: not a folder")
    try:
        out = run(start, ["rev-parse", "--show-toplevel", "--show-prefix"])
    except GitError as exc:
        raise CannotRun(_explain(start, str(exc))) from None
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 2 or not lines[0]:
        raise CannotRun(f"{start}: {BARE}")
    return Repo(Path(os.fsdecode(lines[0].encode("utf-8", "surrogateescape"))), lines[1])


def _explain(start: Path, stderr: str) -> str:
    text = stderr.strip()
    if "dubious ownership" in text:
        return (
            f"{start}: git refuses this repository (owned by another user): if you trust it, run "
            f"`git config --global --add safe.directory {start.absolute()}`"
        )
    if "must be run in a work tree" in text:
        return f"{start}: {BARE}"
    if "not a git repository" in text:
        return f"{start}: not a git repository: run apc boundary inside one (or use -C DIR)"
    return f"{start}: git failed: {text.splitlines()[-1] if text else 'unknown error'}"


def head(repo: Repo) -> str | None:
    """The commit at HEAD, or None before the first commit."""
    try:
        return run(repo.root, ["rev-parse", "--verify", "-q", "HEAD^{commit}"]).decode().strip()
    except GitError:
        return None


def empty_tree(repo: Repo) -> str:
    """The id of the empty tree in this repository's hash (SHA-1 or SHA-256)."""
    fmt = run(repo.root, ["rev-parse", "--show-object-format"]).decode().strip()
    if fmt == "sha256":
        return "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
    return "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def is_partial_clone(repo: Repo) -> bool:
    """A partial clone (``--filter``): a promisor remote or ``extensions.partialClone`` set, so
    missing blobs are expected; elsewhere a missing blob means a damaged repository."""
    pattern = r"^(remote\..*\.promisor|extensions\.partialclone)$"
    try:
        out = run(repo.root, ["config", "--get-regexp", pattern])
    except GitError:  # exit 1: no such key
        return False
    return any(line.strip() for line in out.split(b"\n"))


def is_shallow(repo: Repo) -> bool:
    return run(repo.root, ["rev-parse", "--is-shallow-repository"]).strip() == b"true"


def resolve_commit(repo: Repo, rev: str) -> str:
    """The full id of commit ``rev``; CannotRun (with the fix) when it is not in the clone."""
    if rev.startswith("-"):
        raise CannotRun(f"{rev!r} is not a revision")
    try:
        return run(repo.root, ["rev-parse", "--verify", "-q", f"{rev}^{{commit}}"]).decode().strip()
    except GitError:
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
    out = run(repo.root, ["ls-tree", "-r", "-z", "--full-tree", rev])
    for meta, name in _records(out):
        mode, kind, oid = meta.split(" ")
        if kind == "blob" or kind == "commit":
            yield Entry(mode, oid, name)


def _records(out: bytes) -> list[tuple[str, str]]:
    """The ``META\tNAME`` records of a ``-z`` listing, the name as :func:`os.fsdecode` gives
    it. With a UTF-8 file system encoding the whole listing is decoded at once (the records'
    NUL and tab separators are ASCII, where a UTF-8 decoding always restarts, so this is the
    same text as decoding each name; ten times fewer steps)."""
    if sys.getfilesystemencoding().replace("-", "").casefold() == "utf8":
        text = out.decode("utf-8", sys.getfilesystemencodeerrors())
        tokens = text.split("\0")
        if tokens and tokens[-1] == "":
            tokens.pop()
        return [(meta, name) for meta, _, name in (t.partition("\t") for t in tokens)]
    out_records: list[tuple[str, str]] = []
    for token in _tokens(out):
        meta, _, name = token.partition(b"\t")
        out_records.append((meta.decode(), os.fsdecode(name)))
    return out_records


def index_entries(repo: Repo) -> Iterator[Entry]:
    """Every entry of the index (``ls-files -s``); of a conflicted path, its stages in order."""
    out = run(repo.root, ["ls-files", "-s", "-z", "--full-name"])
    for meta, name in _records(out):
        mode, oid, _stage = meta.split(" ")
        yield Entry(mode, oid, name)


def staged_changes(repo: Repo, against: str) -> Iterator[Entry]:
    """Index entries that differ from the tree ``against`` (added, modified, type changed)."""
    out = run(
        repo.root,
        [
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
        ],
    )
    tokens = _tokens(out)
    for meta, name in zip(tokens[0::2], tokens[1::2], strict=False):
        _, mode, _, oid, _ = meta.decode().lstrip(":").split(" ")
        yield Entry(mode, oid, os.fsdecode(name))


@dataclass(frozen=True)
class Commit:
    """One commit of a walk and its parents as this clone knows them: a commit on the shallow
    boundary (its parents not fetched) has none."""

    oid: str
    parents: tuple[str, ...] = ()


def walk(repo: Repo, *revs: str) -> list[Commit]:
    """Every commit of ``git rev-list REVS`` (plumbing), oldest first."""
    out = run(repo.root, ["rev-list", "--reverse", "--parents", *revs, "--"])
    commits: list[Commit] = []
    for line in out.decode("ascii").splitlines():
        ids = line.split()
        if ids:
            commits.append(Commit(ids[0], tuple(ids[1:])))
    return commits


def shallow_commits(repo: Repo) -> frozenset[str]:
    """The commits on this clone's shallow boundary (``.git/shallow``): their parents are
    missing, so a walk that reaches one has not seen all of its history."""
    where = os.fsdecode(run(repo.root, ["rev-parse", "--git-path", "shallow"]).strip())
    path = Path(where) if os.path.isabs(where) else repo.root / where
    try:
        text = path.read_text("ascii", "replace")
    except FileNotFoundError:
        return frozenset()
    except OSError as exc:
        raise GitError(f"{path}: cannot read the shallow list: {exc.strerror or exc}") from None
    return frozenset(line.strip() for line in text.splitlines() if line.strip())


def commit_changes(repo: Repo, *revs: str) -> Iterator[Entry]:
    """Each blob a commit of ``git rev-list REVS`` adds or modifies (merges: against the
    first parent), oldest commit first, with the commit's id (:func:`walk`, then
    :func:`changes_of`)."""
    return changes_of(repo, walk(repo, *revs))


def changes_of(repo: Repo, commits: Sequence[Commit]) -> Iterator[Entry]:
    """Each blob (or gitlink) a commit of ``commits`` adds or modifies, against its first
    parent (a root commit: against the empty tree), in the order given, with the commit's id.
    One ``git diff-tree --stdin`` (plumbing: no ``log.*`` setting, no external diff)."""
    if not commits:
        return
    request = "".join(f"{c.oid} {c.parents[0]}\n" if c.parents else f"{c.oid}\n" for c in commits)
    out = run(
        repo.root,
        [
            "diff-tree",
            "--stdin",
            "--root",
            "-r",
            "-z",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            "--diff-filter=AMT",
        ],
        stdin=request.encode("ascii"),
    )
    commit: str | None = None
    tokens = iter(_tokens(out))
    for token in tokens:
        token = token.strip(b"\n")
        if token.startswith(b":"):
            name = next(tokens, b"")
            _, mode, _, oid, _ = token.decode().lstrip(":").split(" ")
            yield Entry(mode, oid, os.fsdecode(name), commit)
        elif token:
            commit = token.decode()


def changed_paths(repo: Repo, base: str, tip: str, paths: Sequence[str]) -> list[str]:
    """Which of ``paths`` differ between commits ``base`` and ``tip``."""
    out = run(
        repo.root, ["diff-tree", "-r", "--name-only", "-z", "--no-renames", base, tip, "--", *paths]
    )
    return [os.fsdecode(t) for t in _tokens(out)]


def path_entries(repo: Repo, rev: str, paths: Sequence[str]) -> dict[str, Entry]:
    """The blobs at ``paths`` (from the top level) in the tree of ``rev``, by path; a path
    absent there is absent here."""
    out = run(repo.root, ["ls-tree", "-z", "--full-tree", rev, "--", *paths])
    found: dict[str, Entry] = {}
    for token in _tokens(out):
        meta, _, name = token.partition(b"\t")
        mode, kind, oid = meta.decode().split(" ")
        if kind == "blob":
            found[os.fsdecode(name)] = Entry(mode, oid, os.fsdecode(name))
    return found


def refs(repo: Repo) -> list[tuple[str, str, str]]:
    """(object id, object type, ref name) of every ref (``for-each-ref``)."""
    out = run(repo.root, ["for-each-ref", "--format=%(objectname) %(objecttype) %(refname)"])
    rows: list[tuple[str, str, str]] = []
    for line in out.decode("utf-8", "surrogateescape").splitlines():
        oid, kind, name = line.split(" ", 2)
        rows.append((oid, kind, name))
    return rows


def object_type(repo: Repo, oid: str) -> str:
    return run(repo.root, ["cat-file", "-t", oid]).decode().strip()


def read_objects(repo: Repo, oids: Sequence[str]) -> dict[str, tuple[str, bytes]]:
    """(type, content) of each of ``oids`` present (one ``cat-file --batch``; for a few small
    objects such as tags: content is held whole)."""
    if not oids:
        return {}
    out = run(repo.root, ["cat-file", "--batch"], stdin="".join(o + "\n" for o in oids).encode())
    found: dict[str, tuple[str, bytes]] = {}
    at = 0
    for oid in oids:
        end = out.index(b"\n", at)
        header = out[at:end].split()
        at = end + 1
        if len(header) != 3:
            continue
        size = int(header[2])
        found[oid] = (header[1].decode(), out[at : at + size])
        at += size + 1
    return found


MAX_BATCH = 256  # tree ids written to cat-file before its answers are read (16 KiB at most)


class TreeReader:
    """Tree objects, one level of boundary/subtrees.py's descent at a time, through the
    ``git cat-file --batch`` process of a :class:`BlobReader` (``blobs``: the scan's own, so
    the blobs read next come from the same process, none started for them; else one of its
    own, closed with it). Ids are written :data:`MAX_BATCH` at a time (less than a pipe
    holds, so git never waits on a full pipe while this writes), then their answers read."""

    def __init__(self, repo: Repo, blobs: BlobReader | None = None) -> None:
        self.repo = repo
        self._own = blobs is None
        self._blobs = blobs if blobs is not None else BlobReader(repo)

    def read(self, oids: Sequence[str]) -> dict[str, bytes]:
        """The content of each of ``oids`` that is a tree (GitError when git stops)."""
        found: dict[str, bytes] = {}
        for start in range(0, len(oids), MAX_BATCH):  # never more asked than a pipe holds
            found.update(self._blobs.whole(oids[start : start + MAX_BATCH], b"tree"))
        return found

    def close(self) -> None:
        if self._own:
            self._blobs.close()

    def __enter__(self) -> TreeReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def message_of(raw: bytes) -> bytes:
    """The message of a commit or tag object: what follows its headers (and, for a commit,
    its ``gpgsig`` header, which is a header line)."""
    _, sep, message = raw.partition(b"\n\n")
    return message if sep else b""


def tag_target(raw: bytes) -> tuple[str, str, str]:
    """(object id, type, tag name) of a tag object: what it points at, and its own name."""
    found: dict[bytes, str] = {}
    for line in raw.split(b"\n\n", 1)[0].split(b"\n"):
        key, _, value = line.partition(b" ")
        if key in (b"object", b"type", b"tag") and key not in found:
            found[key] = value.decode("utf-8", "replace")
    return found.get(b"object", ""), found.get(b"type", ""), found.get(b"tag", "")


def absent_objects(repo: Repo, oids: Iterable[str]) -> set[str]:
    """Which of ``oids`` are not in this clone's object store. Asked of a partial clone,
    where ``cat-file --batch`` would stop at the first missing object (it cannot fetch it:
    ``GIT_NO_LAZY_FETCH``): the store's own listing is read instead, which never fetches."""
    out = run(
        repo.root,
        ["cat-file", "--batch-check=%(objectname)", "--batch-all-objects", "--unordered"],
    )
    present = set(out.split())
    return {oid for oid in oids if oid.encode("ascii") not in present}


# --------------------------------------------------------------------------- the fix's writes


def untrack(repo: Repo, paths: Sequence[str]) -> None:
    """``git rm --cached``: ``paths`` (literal, repository-relative) leave the index; the files
    in the working tree are never touched. Used by `apc boundary --staged --fix` only."""
    if not paths:
        return
    names = b"\0".join(os.fsencode(p) for p in paths)
    run(
        repo.root,
        [
            "--literal-pathspecs",
            "rm",
            "--cached",
            "--force",  # the staged content may differ from HEAD and the file: it leaves anyway
            "--quiet",
            "--ignore-unmatch",
            "--pathspec-from-file=-",
            "--pathspec-file-nul",
        ],
        stdin=names,
    )


def ever_committed(repo: Repo, path: str) -> bool:
    """Whether any commit reachable from a ref holds (or held) ``path`` (literal)."""
    try:
        out = run(repo.root, ["--literal-pathspecs", "rev-list", "-1", "--all", "--", path])
    except GitError:
        return False
    return bool(out.strip())


def ignored_paths(root: Path, paths: Sequence[str]) -> frozenset[str]:
    """Which of ``paths`` (relative to the work tree's top ``root``) git ignores and does not
    track (`git check-ignore`: an ignored file is not committed by `git add`)."""
    if not paths:
        return frozenset()
    names = b"".join(os.fsencode(p) + b"\0" for p in paths)
    out = run_status(root, ["check-ignore", "-z", "--stdin"], stdin=names, ok=(0, 1))
    return frozenset(split_z(out))


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


def _feed(stream: Any, data: bytes, strict: bool = False) -> None:
    """Write ``data`` to a process's stdin (in a thread); a closed pipe just ends it (raises,
    when ``strict``)."""
    view = memoryview(data)
    try:
        while view:
            view = view[stream.write(view) or 0 :]
        if strict:
            stream.flush()
    except (OSError, ValueError):
        if strict:
            raise


def _widen_pipe(fd: int) -> None:
    """Give git a 1 MiB pipe to write into (Linux; elsewhere the default stays): git then
    runs ahead of the reader instead of waking it every 64 KiB."""
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError, ValueError, AttributeError):
        pass


class _Ended(Exception):
    """The process's output ended before an answer was whole."""


class _Process:
    """One ``git cat-file --batch`` process and the unread part of its output.

    Its output is read in large chunks (``os.read`` of up to :data:`BlobReader.CHUNK`) and
    the answers are cut out of that buffer: one system call serves many small blobs."""

    def __init__(self, root: Path) -> None:
        try:
            self.popen = subprocess.Popen(
                ["git", "-C", str(root), *SAFE_CONFIG, "cat-file", "--batch"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env=git_env(),
                bufsize=0,
            )
        except FileNotFoundError:
            raise CannotRun("git is not installed (or not on PATH)") from None
        except OSError as exc:
            raise CannotRun(f"git cat-file could not start: {exc}") from None
        assert self.popen.stdout is not None
        self.fd = self.popen.stdout.fileno()
        _widen_pipe(self.fd)
        self.buf = b""
        self.pos = 0
        self.pending = 0  # answers asked for and not read yet
        self.writer: threading.Thread | None = None
        self.stopped = False  # its descriptors closed (their numbers may be reused)

    def _more(self, want: int) -> None:
        """Fill the buffer until it holds ``want`` unread bytes; :class:`_Ended` at the end."""
        parts = [self.buf[self.pos :]]
        have = len(parts[0])
        while have < want:
            if self.stopped:
                raise _Ended
            chunk = os.read(self.fd, max(BlobReader.CHUNK, want - have))
            if not chunk:
                self.buf, self.pos = b"".join(parts), 0
                raise _Ended
            parts.append(chunk)
            have += len(chunk)
        self.buf, self.pos = b"".join(parts), 0

    def header(self) -> bytes:
        end = self.buf.find(b"\n", self.pos)
        while end < 0:
            seen = len(self.buf) - self.pos
            self._more(seen + 1)
            end = self.buf.find(b"\n", seen)
        line = self.buf[self.pos : end]
        self.pos = end + 1
        return line

    def content(self, size: int, limit: int) -> bytes:
        """The next ``size`` bytes and the newline after them, of which the first ``limit``
        are kept; the rest is read in bounded chunks and dropped."""
        keep = min(size, limit)
        if len(self.buf) - self.pos < keep + 1:
            self._more(keep + (1 if keep == size else 0))
        data = self.buf[self.pos : self.pos + keep]
        self.pos += keep
        left = size - keep + 1  # what is dropped, and the newline
        while left > 0:
            have = len(self.buf) - self.pos
            if have >= left:
                self.pos += left
                break
            left -= have
            self.buf, self.pos = b"", 0
            if self.stopped:
                raise _Ended
            chunk = os.read(self.fd, min(BlobReader.CHUNK, left))
            if not chunk:
                raise _Ended
            self.buf = chunk
        return data

    def ask(self, request: bytes, count: int) -> None:
        """Send ``count`` requests from a writer thread (git never waits for the next one)."""
        self.pending = count
        self.writer = threading.Thread(target=_feed, args=(self.popen.stdin, request), daemon=True)
        self.writer.start()

    def stop(self) -> None:
        """End the process and reap it: at the end of its input when every answer was read,
        killed when it may be mid-answer. Its pipes close only once the writer is done (a
        closed descriptor's number may be reused by the next process's pipe)."""
        popen = self.popen
        self.stopped = True
        if self.pending or (self.writer is not None and self.writer.is_alive()):
            popen.kill()
        elif popen.stdin is not None:
            _close(popen.stdin)
        _reap(popen)
        if self.writer is not None:
            self.writer.join()
        for stream in (popen.stdin, popen.stdout):
            if stream is not None:
                _close(stream)


REAP_SECONDS = 5.0  # a git process told to end and still running after this is killed


def _reap(popen: subprocess.Popen[bytes]) -> None:
    """Wait for a git process told to end (its stdin closed, or killed); kill one that does
    not end within :data:`REAP_SECONDS`. Where the process can be waited for as a file
    (Linux's pidfd) this returns as it ends; ``Popen.wait`` with a timeout polls, sleeping
    0.5 ms, then 1 ms, ... between looks (a ``cat-file`` ends in ~0.2 ms: ~1 ms lost)."""
    if popen.returncode is None and _ended_within(popen.pid, REAP_SECONDS) is False:
        popen.kill()
    try:
        popen.wait(timeout=REAP_SECONDS)
    except subprocess.TimeoutExpired:
        popen.kill()
        popen.wait()


def _ended_within(pid: int, seconds: float) -> bool | None:
    """Whether the child ``pid`` (not yet waited for: its id cannot be reused) ended within
    ``seconds``; None when this system cannot tell without polling."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        fd = opener(pid)
    except OSError:  # an old kernel, a sandbox that refuses it
        return None
    try:
        import select

        ready, _, _ = select.select([fd], [], [], seconds)
        return bool(ready)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _close(stream: Any) -> None:
    with contextlib.suppress(OSError):
        stream.close()


class BlobReader:
    """Blobs through one persistent ``git -C ROOT <safe config> cat-file --batch`` process.

    :meth:`read_many` pipelines: a thread writes every object id while the answers are read,
    so a scan pays no round trip per blob.
    """

    CHUNK = 1 << 20

    def __init__(self, repo: Repo) -> None:
        self._root = repo.root
        self._process: _Process | None = None

    def read(self, ref: str, limit: int) -> Blob:
        """Up to ``limit`` bytes of object ``ref`` (an id or ``rev:path`` without a newline);
        the rest is drained in bounded chunks, never held."""
        for _, blob in self.read_many([ref], limit):
            return blob
        return Blob(b"", 0, missing=True)

    def read_many(
        self, oids: Sequence[str], limit: int, kinds: tuple[bytes, ...] = (b"blob",)
    ) -> Iterator[tuple[str, Blob]]:
        """``(oid, blob)`` for each of ``oids`` in order, each read as :meth:`read` does (an
        object of another type than ``kinds`` counts as missing, as does a name git could not
        take as one request line: empty, or with a newline or NUL).

        A writer thread feeds every id to the process while this generator reads the answers,
        so git never waits for the next request. An object git cannot give is answered
        ``<oid> missing`` and the reading goes on; should the process end instead (a partial
        clone's promisor object, which git will not fetch), that object counts as missing and
        a fresh process answers the rest. Left unfinished, the process is ended (the next read
        starts a fresh one)."""
        at = 0
        while at < len(oids):
            if not _askable(oids[at]):
                yield oids[at], Blob(b"", 0, missing=True)
                at += 1
                continue
            end = at + 1
            while end < len(oids) and _askable(oids[end]):
                end += 1
            answered = 0
            for blob in self._batch(oids[at:end], limit, kinds):
                yield oids[at + answered], blob
                answered += 1
            at += answered
            if at < end:  # the process ended before answering oids[at] (now reaped)
                yield oids[at], Blob(b"", 0, missing=True)
                at += 1

    def _batch(self, oids: Sequence[str], limit: int, kinds: tuple[bytes, ...]) -> Iterator[Blob]:
        """Answers of one ``cat-file --batch`` process, until the process ends."""
        process = self._process
        if process is not None and process.pending:  # an earlier reading left unfinished
            self._end()  # (should it go on, it counts its next object missing, then restarts)
            process = None
        if process is None:
            process = self._process = _Process(self._root)
        process.ask(b"".join(os.fsencode(oid) + b"\n" for oid in oids), len(oids))
        header, content = process.header, process.content
        try:
            for _ in oids:
                try:
                    line = header()
                    parts = line.split()
                    if len(parts) != 3 or not parts[2].isdigit():
                        blob = Blob(b"", 0, missing=True)  # "<name> missing" (or ambiguous)
                    else:
                        size = int(parts[2])
                        data = content(size, limit)
                        ok = parts[1] in kinds
                        blob = Blob(data, size) if ok else Blob(b"", 0, missing=True)
                except (_Ended, OSError, ValueError):
                    break
                process.pending -= 1
                yield blob
        finally:
            if process.pending:  # ended, or left unfinished: killed and reaped
                if self._process is process:
                    self._process = None
                process.stop()

    def whole(self, oids: Sequence[str], kind: bytes) -> dict[str, bytes]:
        """The content of each of ``oids`` (at most :data:`MAX_BATCH`, hexadecimal ids) that
        is a ``kind`` object, read whole; the ids are written at once, without a thread (less
        than a pipe holds). :class:`GitError` when git cannot start or stops (the process is
        then ended; the next read starts a fresh one)."""
        process = self._process
        if process is not None and process.pending:  # an earlier reading left unfinished
            self._end()
            process = None
        try:
            request = "".join(o + "\n" for o in oids).encode("ascii")
            if process is None:
                process = self._process = _Process(self._root)
        except (CannotRun, UnicodeEncodeError) as exc:
            raise GitError(f"git cat-file could not read trees: {exc}") from None
        found: dict[str, bytes] = {}
        process.pending = len(oids)
        try:
            _feed(process.popen.stdin, request, strict=True)
            for _ in oids:
                parts = process.header().split(b" ")
                if len(parts) == 3:  # (else "<oid> missing")
                    size = int(parts[2])
                    data = process.content(size, size)
                    if parts[1] == kind:
                        found[parts[0].decode("ascii")] = data
                process.pending -= 1
        except (_Ended, OSError, ValueError) as exc:
            self._end()
            raise GitError(f"git cat-file stopped: {exc}") from None
        return found

    def _end(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            process.stop()

    def close(self) -> None:
        self._end()

    def __enter__(self) -> BlobReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _askable(name: str) -> bool:
    """A name ``cat-file --batch`` reads as one request line."""
    return bool(name) and "\n" not in name and "\0" not in name and "\r" not in name[-1:]
