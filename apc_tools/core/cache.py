"""A result store outside the repository: verdicts keyed by what they are a pure function of.

One SQLite database, ``$XDG_CACHE_HOME/apc-tools/results/cache.sqlite3`` (``~/.cache`` when
``XDG_CACHE_HOME`` is unset or not absolute), folder 0700, file 0600. Each value is stored under
a *namespace* (``"boundary-blob"``, ``"validate"``, ...) and a *key*: :func:`key` digests its
parts together with apc's version and a digest of apc's own source, so a new release (or an
edited checkout) never reads verdicts an older one wrote.

The cache is an accelerator, never an input: :meth:`Cache.open` never raises, and a database
that cannot be opened, read or written (corrupt, wrong permissions, a folder or a symlink where
the file should be, a read-only folder, a full disk, a lock held too long by another run) turns
the cache into a no-op for the rest of the run, which proceeds uncached and gives the same
result. ``--no-cache`` or ``APC_NO_CACHE=1`` opens the no-op cache directly.

Writes are SQLite transactions (atomic; a rollback journal, and nothing memory-mapped: no
``mmap_size``, no WAL, whose wal-index is a shared mapping of the ``-shm`` file, so another
process truncating a file under apc makes a read fail, never a SIGBUS; runs share the file,
a writer waiting at most :data:`BUSY_MS` for readers). A database apc 0.1.0 left in WAL mode
is taken out of it in exclusive locking mode (the wal-index then lives in the process, not
the ``-shm``). Size is bounded: when the live pages pass :data:`MAX_BYTES`
(``APC_CACHE_MAX_BYTES`` overrides it), the least recently used rows (by a coarse last-used
stamp, in days: a warm run rewrites it at most once a day) are deleted until it is under three
quarters of the bound. The bound is checked when a run that wrote closes, so the file holds at
most the bound and one run's writes (SQLite reuses the freed pages; it is never vacuumed).

``sqlite3`` is imported only when a cache is opened (``apc --version`` stays light).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from apc_tools import __version__

if TYPE_CHECKING:  # pragma: no cover
    import sqlite3

FOLDER = "results"  # beside conformance/ (tests/conformance/installer.py)
FILE = "cache.sqlite3"
MAX_BYTES = 512 * 1024 * 1024  # the bound on live data; about 2 million blob verdicts
BUSY_MS = 1500  # how long a run waits for another run's write lock before going uncached
CHUNK = 900  # keys per SELECT ... IN (...) (SQLite before 3.32 allows 999 parameters)
CHUNK_NEW = 8000  # SQLite 3.32 and later (32,766 parameters): fewer, larger queries
NO_CACHE_ENV = "APC_NO_CACHE"
MAX_BYTES_ENV = "APC_CACHE_MAX_BYTES"
SCHEMA = 2

_code_digest: bytes | None = None
# What decoding a stored value that is not one raises (a row of another version, written by
# hand, damaged, nested past the parser's depth): each reader takes it as a miss.
UNDECODABLE = (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError)


def disabled_by_env() -> bool:
    """``APC_NO_CACHE`` set to anything but empty, ``0``, ``false`` or ``no``."""
    value = os.environ.get(NO_CACHE_ENV, "").strip().casefold()
    return value not in ("", "0", "false", "no", "off")


def cache_root() -> Path | None:
    """``$XDG_CACHE_HOME/apc-tools`` (an absolute XDG_CACHE_HOME only, as the XDG spec says),
    else ``~/.cache/apc-tools`` with an absolute home: ``$HOME``, else (``HOME=.``, unset) the
    user's home in the password database; None when there is none (the run goes uncached: a
    relative folder would be inside whatever folder apc was started in, the scanned tree)."""
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "apc-tools"
    home = _home()
    return None if home is None else Path(home) / ".cache" / "apc-tools"


def _home() -> str | None:
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return home
    try:
        import pwd

        home = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError, OSError):  # pragma: no cover - Windows, or no entry
        try:
            home = os.fspath(Path.home())
        except RuntimeError:
            return None
    return home if os.path.isabs(home) else None


def database_path() -> Path | None:
    root = cache_root()
    return None if root is None else root / FOLDER / FILE


def _code() -> bytes:
    """A digest of apc's own ``.py`` files by their content (computed once): an edited or
    other checkout with the same version number never shares verdicts with this one, and two
    installs of one wheel (a rebuilt CI image, another virtualenv) share them all, whatever
    their paths, inodes and times. A file the install's ``RECORD`` lists, with its size and
    not changed since ``RECORD`` was written (its ctime: an edit always moves it), is digested
    by the SHA-256 that ``RECORD`` holds (no read: the digest of its bytes); any other file
    (a checkout, an edited install) by its bytes."""
    global _code_digest
    if _code_digest is None:
        digest = hashlib.sha256()
        package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
        recorded, written = _recorded(package)
        try:
            for rel in _sources(package):
                path = os.path.join(package, rel)
                info = os.stat(path)
                known = recorded.get(rel)
                if (
                    known is not None
                    and known[1] == info.st_size
                    and max(info.st_ctime_ns, info.st_mtime_ns) <= written
                ):
                    sha = known[0]
                else:
                    with open(path, "rb") as handle:
                        sha = hashlib.sha256(handle.read()).digest()
                digest.update(rel.encode("utf-8", "surrogateescape") + b"\0" + sha)
        except OSError:  # pragma: no cover - an unreadable install: no cache sharing at all
            digest.update(os.urandom(16))
        _code_digest = digest.digest()
    return _code_digest


def _recorded(package: str) -> tuple[dict[str, tuple[bytes, int]], int]:
    """What the wheel install's ``RECORD`` beside ``package`` says of its ``.py`` files
    (path relative to the package -> SHA-256 and size) and when it was written (its ctime);
    nothing for a checkout or an editable install (whose RECORD lists no source)."""
    import base64

    name = os.path.basename(package)
    record = os.path.join(os.path.dirname(package), f"{name}-{__version__}.dist-info", "RECORD")
    out: dict[str, tuple[bytes, int]] = {}
    try:
        written = os.stat(record).st_ctime_ns
        with open(record, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, ValueError):
        return {}, 0
    prefix = name + "/"
    for line in lines:
        parts = line.rsplit(",", 2)  # path (which may hold a comma), hash, size
        if len(parts) != 3 or not parts[0].startswith(prefix) or not parts[0].endswith(".py"):
            continue
        path, hashed, shown = parts
        algorithm, _, value = hashed.partition("=")
        try:
            size = int(shown)
            sha = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
        except ValueError:
            continue
        if algorithm == "sha256" and len(sha) == 32:
            out[path[len(prefix) :]] = (sha, size)
    return out, written


def _sources(package: str) -> list[str]:
    """The ``.py`` files below ``package`` (POSIX paths relative to it), sorted."""
    out: list[str] = []
    stack = [("", package)]
    while stack:
        base, folder = stack.pop()
        with os.scandir(folder) as listing:
            for entry in listing:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((f"{base}{entry.name}/", entry.path))
                elif entry.name.endswith(".py"):
                    out.append(base + entry.name)
    return sorted(out)


def key(*parts: bytes | str) -> bytes:
    """A stable digest (24 bytes) of ``parts`` (each length-prefixed, so parts never run into
    one another) with apc's version and code digest: a new release never reads old verdicts."""
    return keyer(*parts)()


def keyer(*parts: bytes | str) -> Callable[..., bytes]:
    """``make`` such that ``make(*more) == key(*parts, *more)``, the common parts hashed once
    (a scan makes one key per blob)."""
    base = hashlib.sha256()
    _feed(base, (__version__, _code(), *parts))

    def make(*more: bytes | str) -> bytes:
        digest = base.copy()
        _feed(digest, more)
        return digest.digest()[:24]

    return make


def text_keyer(*parts: bytes | str) -> Callable[[str], bytes]:
    """``keyer(*parts)`` for one more part, a text: the same keys, fewer steps (one per blob)."""
    base = hashlib.sha256()
    _feed(base, (__version__, _code(), *parts))
    copy = base.copy

    def make(text: str) -> bytes:
        data = text.encode("utf-8", "surrogatepass")
        digest = copy()
        digest.update(len(data).to_bytes(8, "big") + data)
        return digest.digest()[:24]

    return make


def _feed(digest: Any, parts: Iterable[bytes | str]) -> None:
    for part in parts:
        data = part.encode("utf-8", "surrogatepass") if isinstance(part, str) else part
        digest.update(len(data).to_bytes(8, "big"))
        digest.update(data)


def max_bytes() -> int:
    try:
        value = int(os.environ.get(MAX_BYTES_ENV, "") or MAX_BYTES)
    except ValueError:
        return MAX_BYTES
    return max(value, 64 * 1024)


class Cache:
    """A namespace of the result store (see the module docstring). Never raises."""

    def __init__(self, namespace: str, connection: sqlite3.Connection | None = None) -> None:
        self.namespace = namespace
        # Stored keys are this tag and the key: one short primary key (a WITHOUT ROWID table
        # looks 50,000 keys up about a third faster than with a separate namespace column).
        self._tag = hashlib.sha256(namespace.encode("utf-8", "surrogatepass")).digest()[:4]
        self._db: Any = connection
        self.hits = 0
        self.misses = 0
        self.written = 0
        self.error: str | None = None  # why the cache stopped working, if it did
        self.judged: Judged | None = None  # what the run judges (Cache.open)
        self._empty: bool | None = None  # the namespace holds nothing (asked once)

    @property
    def enabled(self) -> bool:
        return self._db is not None

    @classmethod
    def open(cls, namespace: str, *, enabled: bool = True, judged: Judged | None = None) -> Cache:
        """The cache for ``namespace`` in a run that judges ``judged`` (default: no tree, as
        for a library call on no repository); a no-op cache when disabled (``enabled=False``
        or ``APC_NO_CACHE``), when the cache is not one to trust for that run
        (:func:`refusal`: said once on stderr) or when the database cannot be used."""
        out = cls(namespace)
        out.judged = judged
        if not enabled or disabled_by_env():
            return out
        try:
            path = database_path()
            why = "no absolute home folder to keep it in" if path is None else None
            if path is not None:
                why = refusal(path.parent, judged or Judged(()))
            if why is not None:
                _note(path, why)
                out.error = f"not used: {why}"
                return out
            assert path is not None
            out._db = _connection(path)
        except Exception as exc:
            out.error = f"{type(exc).__name__}: {exc}"
        return out

    def _fail(self, exc: BaseException) -> None:
        self.error = f"{type(exc).__name__}: {exc}"
        db, self._db = self._db, None
        _forget(db)
        with contextlib.suppress(Exception):  # already failing: drop it
            db.close()

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        """The stored values of ``keys`` (missing ones absent); marks the found ones used."""
        if self._db is None or not keys:
            self.misses += len(keys)
            return {}
        if self._is_empty():  # a first run: nothing to look up
            self.misses += len(keys)
            return {}
        out: dict[bytes, bytes] = {}
        stamp = _stamp()
        tag = self._tag
        unique = [tag + k for k in dict.fromkeys(keys)]
        stale: list[bytes] = []
        import sqlite3

        step = CHUNK_NEW if sqlite3.sqlite_version_info >= (3, 32) else CHUNK
        try:
            for start in range(0, len(unique), step):
                chunk = unique[start : start + step]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, value, used FROM entries WHERE key IN ({marks})", chunk
                )
                for k, value, used in rows:
                    if type(value) is not bytes:  # another version's or a hand-made row
                        continue  # a miss (rewritten by this run), never a value
                    out[k[4:]] = value
                    if type(used) is not int or used < stamp:
                        stale.append(k)
            if stale:
                self._touch(stale, stamp)
        except Exception as exc:
            self._fail(exc)
            self.misses += len(keys)
            return {}
        self.hits += len(out)
        self.misses += len(unique) - len(out)
        return out

    def _is_empty(self) -> bool:
        if self._empty is None:
            try:
                # every stored key of this namespace starts with its 4-byte tag: [tag, tag + 1)
                low = self._tag
                number = int.from_bytes(low, "big") + 1
                high = number.to_bytes(4, "big") if number < 1 << 32 else b"\xff" * 64
                row = self._db.execute(
                    "SELECT 1 FROM entries WHERE key >= ? AND key < ? LIMIT 1", (low, high)
                ).fetchone()
                self._empty = row is None
            except Exception:
                self._empty = False  # the lookups will fail and say why
        return self._empty

    def _touch(self, keys: list[bytes], stamp: int) -> None:
        with contextlib.suppress(Exception), self._db:  # busy or read-only: reads still count
            self._db.executemany(
                "UPDATE entries SET used = ? WHERE key = ?", ((stamp, k) for k in keys)
            )

    def get(self, one: bytes) -> bytes | None:
        return self.get_many([one]).get(one)

    def put_many(self, items: Mapping[bytes, bytes]) -> None:
        """Store ``items`` in one transaction (all or nothing); never raises."""
        if self._db is None or not items:
            return
        stamp = _stamp()
        try:
            with self._db:
                self._db.executemany(
                    "INSERT OR REPLACE INTO entries (key, value, used) VALUES (?, ?, ?)",
                    ((self._tag + k, v, stamp) for k, v in items.items()),
                )
            self.written += len(items)
            self._empty = False
        except Exception as exc:
            self._fail(exc)

    def count(self) -> int:
        """How many entries this namespace holds (0 when the cache is not usable)."""
        if self._db is None:
            return 0
        try:
            row = self._db.execute(
                "SELECT count(*) FROM entries WHERE substr(key, 1, 4) = ?", (self._tag,)
            )
            return int(row.fetchone()[0])
        except Exception as exc:
            self._fail(exc)
            return 0

    def close(self) -> None:
        """Evict over the bound (when this run wrote) and let go of the connection (which
        stays open for the next :meth:`open` of this process: :func:`_connection`); never
        raises."""
        if self._db is None:
            return
        try:
            if self.written:
                _evict(self._db, max_bytes())
        except Exception as exc:
            self._fail(exc)
        self._db = None

    def __enter__(self) -> Cache:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


# --------------------------------------------------------------------------- trust
# What makes a cache one a run may believe, decided here for every command (``refusal``): the
# cache may only save work, never decide a verdict, so one that the judged repository (a pull
# request) could have written is not used.


@dataclass(frozen=True)
class Judged:
    """What a run judges: the work trees or folders ``roots`` (validate: each project root;
    the gate: the repository's top level) and, for a gate over commits, the ``git rev-list``
    arguments naming them (``("--end-of-options", "A..B")``, ``("--all",)``)."""

    roots: tuple[Path, ...]
    revs: tuple[str, ...] = ()


_verdicts: dict[tuple[str, Judged], str | None] = {}
_noted: set[tuple[str, str]] = set()


def refusal(folder: Path, judged: Judged) -> str | None:
    """Why the cache in ``folder`` (the database's folder) must not be used by a run judging
    ``judged``, or None when it may be. Refused: a folder that is a symlink, or is not a folder
    of this user closed to others' writes; one inside the git folder of a judged repository;
    one inside a judged tree unless git ignores it there and neither the index, nor HEAD, nor a
    commit of the clone's refs or of the judged range holds anything under it (a pull request
    that commits a forged database would otherwise decide its own verdict); one inside a
    judged folder that is not a git work tree. Asked once per process and folder; never raises
    (a question git cannot answer refuses)."""
    token = (os.path.realpath(folder), judged)
    if token not in _verdicts:
        try:
            _verdicts[token] = _refusal(folder, Path(token[0]), judged)
        except Exception as exc:
            _verdicts[token] = f"cannot tell whether it is safe ({type(exc).__name__}: {exc})"
    return _verdicts[token]


def _refusal(folder: Path, real: Path, judged: Judged) -> str | None:
    why = _unsafe_folder(folder)
    if why is not None:
        return why
    lexical = Path(os.path.abspath(folder))
    for root in judged.roots:
        top = Path(os.path.realpath(root))
        if lexical != top and top in lexical.parents:
            # every folder from the tree down to it a real one (a link in it is the tree's)
            here = top
            for part in lexical.relative_to(top).parts:
                here = here / part
                if os.path.islink(here):
                    return f"inside {top}, through the symlink {here}"
        if real != top and top not in real.parents:
            continue
        why = _inside(real, top, judged.revs)
        if why is not None:
            return why
    return None


def _unsafe_folder(folder: Path) -> str | None:
    """The folder and the database files in it: not symlinks, this user's, not writable by
    others (who could then have written the verdicts)."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        return None  # made afresh, 0700 (_private_folder)
    if stat.S_ISLNK(info.st_mode):
        return f"{folder} is a symlink"
    for one, what in ((folder, "folder"), *((folder / n, "file") for n in _FILES)):
        try:
            info = os.lstat(one)
        except FileNotFoundError:
            continue
        if what == "folder" and not stat.S_ISDIR(info.st_mode):
            return f"{one} is not a folder"
        if what == "file" and not stat.S_ISREG(info.st_mode):
            return f"{one} is not a regular file"
        if hasattr(os, "getuid") and info.st_uid != os.getuid():
            return f"{one} belongs to another user (uid {info.st_uid})"
        if stat.S_IMODE(info.st_mode) & 0o022:
            return f"{one} is writable by others (mode {stat.S_IMODE(info.st_mode):o})"
    return None


def _inside(real: Path, top: Path, revs: Sequence[str]) -> str | None:
    """The cache folder ``real`` lies in the judged folder ``top``: usable only as an ignored,
    never committed folder of its git work tree."""
    from apc_tools.core import git as gitio

    where = f"inside {top}"
    try:
        out = gitio.run(top, ["rev-parse", "--show-toplevel", "--absolute-git-dir"])
    except gitio.GitError:
        return f"{where}, which is not a git work tree"
    lines = os.fsdecode(out).split("\n")
    work, gitdir = Path(os.path.realpath(lines[0])), Path(os.path.realpath(lines[1]))
    if real == gitdir or gitdir in real.parents:
        return f"inside the git folder {gitdir}"
    rel = real.relative_to(work).as_posix()
    safe = ["--literal-pathspecs"]
    asked = [
        ("git tracks", [*safe, "ls-files", "-z", "--", rel]),
        ("HEAD holds", [*safe, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", rel]),
    ]
    # a commit of the clone's history (or of the judged range) that held one: a checkout of it
    # put the file there, and a CI cache saved after it may have brought it back since
    asked.append(("a commit of this clone adds", [*safe, "rev-list", "-1", "--all", "--", rel]))
    if revs:
        asked.append(("commits this run judges add", [*safe, "rev-list", "-1", *revs, "--", rel]))
    for what, args in asked:
        try:
            out = gitio.run(work, args)
        except gitio.GitError:
            if args[1] == "ls-tree" and gitio.head(gitio.Repo(work, "")) is None:
                continue  # before the first commit: no HEAD
            raise
        if out.strip(b"\0\n"):
            return f"{where}, and {what} files in it: the repository's input, not a cache"
    ignored = gitio.run_status(
        work, ["check-ignore", "--no-index", "--", f"{rel}/{FILE}"], ok=(0, 1)
    )
    if not ignored.strip():
        first = rel.split("/")[0]
        return f"{where}, and git does not ignore it (add /{first}/ to .gitignore)"
    return None


def _note(path: Path | None, why: str) -> None:
    """Say once per process why the cache is not used."""
    shown = "" if path is None else f" {path.parent}"
    if (shown, why) in _noted:
        return
    _noted.add((shown, why))
    with contextlib.suppress(Exception):
        sys.stderr.write(
            f"apc: note: not using the result cache{shown}: {why}; running without it\n"
        )


def _stamp() -> int:
    """The coarse last-used stamp: days since the epoch."""
    return int(time.time() // 86400)


def _private_folder(folder: Path) -> None:
    """Make ``folder`` (0700), and refuse one that is a symlink, not ours, or open to others."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(folder)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise OSError(f"{folder}: not a folder")
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise OSError(f"{folder}: owned by another user")
    if stat.S_IMODE(info.st_mode) & 0o077:
        os.chmod(folder, 0o700)


def _regular_or_absent(path: Path) -> bool:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return True
    return stat.S_ISREG(info.st_mode) and (not hasattr(os, "getuid") or info.st_uid == os.getuid())


# The connection this process keeps open between the caches it opens one after another (each
# open and close cost a run a few milliseconds: the close of the last connection checkpoints
# the WAL into the database): (process id, database path, the file's device and inode, the
# connection). Reused only by the process that opened it (a forked worker opens its own), for
# the same path while it names the same file; closed at exit.
_held: list[tuple[int, Path, tuple[int, int], Any]] = []


def _connection(path: Path) -> sqlite3.Connection:
    """The held connection to the database at ``path``, or a new one (which is then held)."""
    for one in (path, *(path.with_name(path.name + side) for side in _SIDES)):
        if not _regular_or_absent(one):
            raise OSError(f"{one}: not a regular file of this user (refused)")
    if _held:
        pid, held_path, ident, db = _held[0]
        if pid == os.getpid() and held_path == path and _identity(path) == ident:
            return db
        _release()
    db = _connect(path)
    made = _identity(path)
    if made is None:
        db.close()
        raise OSError(f"{path}: gone")
    if not _registered:
        import atexit

        atexit.register(_release)
        _registered.append(True)
    _held.append((os.getpid(), path, made, db))
    return db


_registered: list[bool] = []
_SIDES = ("-wal", "-shm", "-journal")  # SQLite's files beside the database
_FILES = (FILE, *(FILE + side for side in _SIDES))


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.lstat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino) if stat.S_ISREG(info.st_mode) else None


def _release() -> None:
    """Close the held connection (in the process that opened it: a forked worker only
    forgets the one it inherited)."""
    if not _held:
        return
    pid, _path, _ident, db = _held.pop()
    if pid == os.getpid():
        with contextlib.suppress(Exception):
            db.close()


def _forget(db: Any) -> None:
    """Stop holding ``db`` (a connection that failed: it is being closed)."""
    if _held and _held[0][3] is db:
        _held.clear()


def _connect(path: Path) -> sqlite3.Connection:
    import sqlite3

    _private_folder(path.parent)
    for one in (path, *(path.with_name(path.name + side) for side in _SIDES)):
        if not _regular_or_absent(one):
            raise OSError(f"{one}: not a regular file of this user (refused)")
    # Create the file ourselves: 0600, never through a symlink planted in its place.
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags, 0o600)
    try:
        header = os.read(handle, 100)
    finally:
        os.close(handle)
    db = sqlite3.connect(path, timeout=BUSY_MS / 1000, isolation_level="DEFERRED")
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_MS}")
        # No memory mapping of any file: another process truncating the database or a -shm
        # under a mapping kills the reader with SIGBUS; a read() only fails (and the run goes
        # uncached). So no mmap of the database, and a rollback journal, not WAL (whose
        # wal-index is a shared mapping of the -shm file).
        db.execute("PRAGMA mmap_size = 0")
        if len(header) >= 20 and 2 in (header[18], header[19]):  # WAL, as apc 0.1.0 made it
            # In exclusive locking mode SQLite keeps the wal-index in this process's memory
            # (never the -shm) and can leave WAL; another process using the file: busy.
            db.execute("PRAGMA locking_mode = EXCLUSIVE")
            mode = db.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            db.execute("PRAGMA locking_mode = NORMAL")  # (released at the next access)
            if str(mode).casefold() != "delete":
                raise sqlite3.OperationalError(f"journal mode {mode}, not delete")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA:
            db.execute("BEGIN IMMEDIATE")  # one run makes the table; another waits, then sees it
            try:
                if db.execute("PRAGMA user_version").fetchone()[0] != SCHEMA:
                    db.execute("DROP TABLE IF EXISTS entries")  # another layout: start afresh
                    db.execute(
                        "CREATE TABLE entries (key BLOB PRIMARY KEY, value BLOB NOT NULL,"
                        " used INTEGER NOT NULL) WITHOUT ROWID"
                    )
                    db.execute(f"PRAGMA user_version = {SCHEMA}")
                db.commit()
            except BaseException:
                db.rollback()
                raise
        # A quick sanity read: a file that is not a database fails here, not mid-run.
        db.execute("SELECT 1 FROM entries LIMIT 1").fetchall()
    except Exception:
        db.close()
        raise
    return db


def _evict(db: sqlite3.Connection, bound: int) -> int:
    """Delete the least recently used rows until the live data is under 3/4 of ``bound``."""
    page = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    live = (pages - free) * page
    if live <= bound:
        return 0
    rows = db.execute("SELECT count(*) FROM entries").fetchone()[0]
    drop = max(1, int(rows * (1 - (bound * 3 // 4) / live)))
    with db:
        db.execute(
            "DELETE FROM entries WHERE key IN (SELECT key FROM entries ORDER BY used LIMIT ?)",
            (drop,),
        )
    return int(drop)


def store_size(path: Path | None = None) -> int:
    """Bytes of the database file and its journal or WAL (0 when absent)."""
    path = path or database_path()
    if path is None:
        return 0
    total = 0
    for one in (path, *(path.with_name(path.name + side) for side in ("-wal", "-journal"))):
        try:
            total += os.lstat(one).st_size
        except OSError:
            continue
    return total
