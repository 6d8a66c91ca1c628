"""The runtime store: atomic writes, and the refusal to write inside the project tree.

Runtime state (a repaired history) never lives in the repository. Every write goes through
:func:`atomic_write` (temporary file in the target's folder, flush, fsync, rename, fsync of the
folder), so a crash leaves the old file or the new one, never half of one; and every target is
first checked with :func:`ensure_outside` against the project root, which comes only from the
immutable :class:`~apc_tools.contract.model.Contract`.
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Iterable
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from apc_tools.findings import CannotRun

if TYPE_CHECKING:  # only its ``root`` is read, from the object the caller passes
    from apc_tools.contract.model import Contract

WRITE_BUFFER = 1 << 20


class StoreError(CannotRun):
    """A write was refused or failed. The message names the path and is safe to print."""


class InsideProject(StoreError):
    """The target lies inside the project tree, where runtime state must never be written."""


def ensure_outside(contract: Contract | None, target: Path) -> Path:
    """Return ``target`` resolved, or raise :class:`InsideProject` if it lies in the project.

    Symlinks of the target and of its existing parents are followed, so a link that points into
    the project is refused too. Without a contract (not in a project) every target is allowed.
    """
    return _ensure_outside_root(contract.root if contract is not None else None, target)


def resolve_target(target: Path) -> Path:
    """``target`` with every symlink resolved (the last one too); a link that changes while
    it is read (a folder swapped for a link meanwhile) is a :class:`StoreError`."""
    try:
        return Path(os.path.realpath(os.path.abspath(target)))
    except OSError as exc:
        raise StoreError(
            f"cannot write {target}: a folder of the path changed while it was resolved "
            f"({exc.strerror or exc}); nothing was written"
        ) from None


def _ensure_outside_root(root: Path | None, target: Path) -> Path:
    resolved = resolve_target(target)
    if root is None:
        return resolved
    real_root = root.resolve()
    if _within(real_root, resolved):
        raise InsideProject(
            f"refusing to write {target}: it lies inside the project tree {real_root} "
            "(runtime state never goes into the repository); write to a path outside it, "
            "or to stdout"
        )
    return resolved


def _within(root: Path, target: Path) -> bool:
    """True when ``target`` is ``root`` or below it (by path, and by file identity)."""
    if target == root or root in target.parents:
        return True
    try:
        root_stat = root.stat()
    except OSError:
        return False
    for folder in (target, *target.parents):
        with suppress(OSError):
            if os.path.samestat(folder.stat(), root_stat):
                return True  # the same folder under another name (case, bind mount)
    return False


def _default_mode() -> int:
    """0o666 minus the process umask: the mode ``open()`` would give a new file."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(
    path: Path,
    chunks: Iterable[str | bytes],
    *,
    keep: Callable[[], bool] | None = None,
    before_replace: Callable[[], None] | None = None,
) -> bool:
    """Write ``chunks`` (str as UTF-8) to ``path`` atomically; return True if it was replaced.

    ``path`` is resolved first (every symlink, the last one too), and a resolved target inside
    an APC project (a folder above it holds ``.apc/`` or ``AGENTS.md``) is refused with
    :class:`InsideProject`, whoever calls: the runtime never writes into the contract. The
    folder is then opened from ``/`` one component at a time without following a symlink, and
    must be the folder the guard judged (``st_dev``/``st_ino``); the temporary file is created,
    renamed and swept through that descriptor, never by path, so a folder swapped for a link
    into a project after the guard ran is refused, not written into (issue 14, item 7).

    The text goes to a temporary file in the same folder, which is flushed, fsynced and renamed
    over ``path`` (the folder is fsynced after). An existing file keeps its permission bits. On
    any exception (SIGTERM too, under the CLI), the temporary file is removed and the exception
    re-raised: ``path`` is left as it was. A temporary file left by a killed run (SIGKILL) is
    removed by the next write to the same file (:func:`sweep`, which a repair that writes
    nothing calls too). ``keep``, if given, is asked after the last
    chunk; when it returns False the temporary file is dropped and ``path`` is not touched.

    An existing target that is not a regular file is never replaced: a character device
    (``/dev/null``, a terminal) or a FIFO with a reader is written through; anything else, or
    any of them with ``keep`` (a replacement in place), is refused.
    ``before_replace``, if given, runs right before the rename; an exception it raises leaves
    ``path`` as it is (a live session file that changed meanwhile).
    """
    named, path = path, resolve_target(path)
    folder = path.parent
    _ensure_no_project_around(named, path)
    judged = _judged(named, folder)
    if not _BY_DESCRIPTOR:  # no dir_fd here (not POSIX): by path, as the guard judged it
        return _write_by_path(named, path, chunks, keep, before_replace)
    dfd = _open_folder(named, folder, judged)
    try:
        return _write_in(dfd, named, path, chunks, keep, before_replace)
    finally:
        os.close(dfd)


def _judged(named: Path, folder: Path) -> os.stat_result:
    """The guard's answer about the target's folder: its identity as the path resolved."""
    try:
        info = os.stat(folder)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise StoreError(f"cannot write {named}: {exc.strerror or exc}") from None
    if info is None or not stat.S_ISDIR(info.st_mode):
        raise StoreError(f"cannot write {named}: the folder {folder} does not exist")
    return info


_BY_DESCRIPTOR = (
    os.name == "posix" and {os.open, os.rename, os.stat, os.unlink} <= os.supports_dir_fd
)
_O_PATH = getattr(os, "O_PATH", 0)
_WALK_FLAGS = os.O_DIRECTORY if hasattr(os, "O_DIRECTORY") else 0
_WALK_FLAGS |= getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


def _open_folder(named: Path, folder: Path, judged: os.stat_result) -> int:
    """Open ``folder`` (a resolved path) from ``/`` one component at a time, never following a
    symlink (``O_NOFOLLOW|O_DIRECTORY``), and check it is the folder the guard judged (same
    ``st_dev``/``st_ino``): a folder swapped for a link, or for another folder, after the guard
    ran is refused instead of written into. Every later step goes through the descriptor."""
    changed = StoreError(
        f"cannot write {named}: the folder {folder} changed while it was written (a folder "
        "of the path was replaced, by a symlink or another folder); nothing was written"
    )
    parts = folder.parts
    try:
        fd = os.open(parts[0], _WALK_FLAGS | (_O_PATH or os.O_RDONLY))
    except OSError as exc:
        raise StoreError(f"cannot write {named}: {exc.strerror or exc}") from None
    try:
        for i, part in enumerate(parts[1:], start=2):
            last = i == len(parts)
            try:
                nfd = _open_at(fd, part, last)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                    raise changed from None  # realpath saw a folder there, now it is not one
                raise StoreError(f"cannot write {named}: {exc.strerror or exc}") from None
            os.close(fd)
            fd = nfd
        if not os.path.samestat(os.fstat(fd), judged):
            raise changed
    except BaseException:
        os.close(fd)
        raise
    return fd


def _open_at(fd: int, name: str, last: bool) -> int:
    """Open one folder below ``fd``; the last one readable when allowed (to sweep and fsync it),
    the ones above only for lookup where the system can (``O_PATH``, no read permission)."""
    if last:
        try:
            return os.open(name, _WALK_FLAGS | os.O_RDONLY, dir_fd=fd)
        except PermissionError:
            if not _O_PATH:
                raise
    return os.open(name, _WALK_FLAGS | (_O_PATH or os.O_RDONLY), dir_fd=fd)


def _write_in(
    dfd: int,
    named: Path,
    path: Path,
    chunks: Iterable[str | bytes],
    keep: Callable[[], bool] | None,
    before_replace: Callable[[], None] | None,
) -> bool:
    """:func:`atomic_write` through the descriptor of the target's folder."""
    name, folder = path.name, path.parent
    try:
        info: os.stat_result | None = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise StoreError(f"cannot write {named}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise StoreError(  # realpath followed every link: this one appeared since
            f"cannot write {named}: {path} became a symlink while it was written; "
            "nothing was written"
        )
    if info is not None and not stat.S_ISREG(info.st_mode):
        return _write_through(named, path, info, chunks, keep, dfd)
    mode = stat.S_IMODE(info.st_mode) if info is not None else _default_mode()
    _sweep(dfd, name)
    try:
        fd, tmp = _new_temporary(dfd, name)
    except OSError as exc:
        raise StoreError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    try:
        os.fchmod(fd, mode)
        _write_all(fd, chunks)
        if keep is not None and not keep():
            os.unlink(tmp, dir_fd=dfd)
            return False
        if before_replace is not None:
            before_replace()
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException as exc:
        with suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dfd)
        if isinstance(exc, OSError) and not isinstance(exc, StoreError):
            raise StoreError(f"cannot write {named}: {exc.strerror or exc}") from None
        raise
    _fsync_folder(dfd)
    return True


def _write_by_path(
    named: Path,
    path: Path,
    chunks: Iterable[str | bytes],
    keep: Callable[[], bool] | None,
    before_replace: Callable[[], None] | None,
) -> bool:
    """:func:`atomic_write` where folders cannot be opened (no ``dir_fd``): by path."""
    info = _stat(path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        return _write_through(named, path, info, chunks, keep, None)
    folder = path.parent
    mode = stat.S_IMODE(info.st_mode) if info is not None else _default_mode()
    try:
        fd, name = _new_temporary(None, path.name, folder)
    except OSError as exc:
        raise StoreError(f"cannot write in {folder}: {exc.strerror or exc}") from None
    tmp = folder / name
    try:
        _write_all(fd, chunks)
        if keep is not None and not keep():
            tmp.unlink()
            return False
        os.chmod(tmp, mode)
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException as exc:
        with suppress(FileNotFoundError):
            tmp.unlink()
        if isinstance(exc, OSError) and not isinstance(exc, StoreError):
            raise StoreError(f"cannot write {named}: {exc.strerror or exc}") from None
        raise
    return True


def _stat(path: Path) -> os.stat_result | None:
    try:
        return path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StoreError(f"cannot write {path}: {exc.strerror or exc}") from None


#: Agent homes whose AGENTS.md is the user's global instructions, not a project's: Codex reads
#: ``~/.codex/AGENTS.md`` (or ``$CODEX_HOME/AGENTS.md``) for every session, and keeps its
#: rollouts below that folder, so they are runtime state, not files of a project.
AGENT_HOMES = (".codex",)


def _agent_home(folder: Path) -> bool:
    codex_home = os.environ.get("CODEX_HOME")
    return folder.name in AGENT_HOMES or (
        bool(codex_home) and os.path.abspath(folder) == os.path.abspath(codex_home or "")
    )


def is_project_folder(folder: Path) -> bool:
    """Does ``folder`` hold an APC project (``.apc/``, or ``AGENTS.md`` outside an agent
    home)? The one test of the CLI's project discovery and of the atomic writer."""
    if (folder / ".apc").is_dir():
        return True
    return (folder / "AGENTS.md").is_file() and not _agent_home(folder)


def _ensure_no_project_around(named: Path, resolved: Path) -> None:
    """Refuse a resolved target that lies inside an APC project (the same test as the CLI's
    project discovery: :func:`is_project_folder` for a folder above it)."""
    for folder in resolved.parents:
        if is_project_folder(folder):
            raise InsideProject(
                f"refusing to write {named}: it resolves to {resolved}, inside the project tree "
                f"{folder} (runtime state never goes into the repository); write to a path "
                "outside it, or to stdout"
            )


def _write_through(
    named: Path,
    path: Path,
    info: os.stat_result,
    chunks: Iterable[str | bytes],
    keep: Callable[[], bool] | None,
    dfd: int | None,
) -> bool:
    """Write into a character device or a FIFO that has a reader, never replacing it (opened
    below the folder's descriptor ``dfd`` when there is one, never through a symlink)."""
    fifo, device = stat.S_ISFIFO(info.st_mode), stat.S_ISCHR(info.st_mode)
    if keep is not None or not (fifo or device):
        raise StoreError(
            f"cannot write {named}: not a regular file (a folder, socket, block device or "
            "special file is never replaced); name a regular file"
        )
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | (os.O_NONBLOCK if fifo else 0)
    try:
        if dfd is None:
            fd = os.open(path, flags)
        else:  # a FIFO without a reader fails (ENXIO) instead of hanging
            fd = os.open(path.name, flags | getattr(os, "O_NOFOLLOW", 0), dir_fd=dfd)
        if not os.path.samestat(os.fstat(fd), info):
            os.close(fd)
            raise StoreError(f"cannot write {named}: it was replaced while it was written")
        if fifo:
            os.set_blocking(fd, True)
        with os.fdopen(fd, "wb", buffering=WRITE_BUFFER) as fh:
            for chunk in chunks:
                fh.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
    except OSError as exc:
        reason = "no process reads the FIFO" if exc.errno == errno.ENXIO else exc.strerror
        raise StoreError(f"cannot write {named}: {reason or exc}") from None
    return True


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_TEMP_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
TEMP_SUFFIX = ".apc-tmp"
TEMP_RANDOM = 12  # hex digits between the name and the suffix (_new_temporary)
STALE_SECONDS = 5.0
"""A temporary file unlocked and unmodified for this long belongs to no live writer."""
STARTED = time.time()
"""When this run began (this module is imported before any write): an unlocked temporary file
last written before it was left by a run that ended (``kill -9`` five times in a row leaves
five, each younger than :data:`STALE_SECONDS` when the next run looks)."""


def _new_temporary(dfd: int | None, name: str, folder: Path | None = None) -> tuple[int, str]:
    """Create ``.<name>.<random>.apc-tmp`` in the folder of descriptor ``dfd`` (or in
    ``folder`` by path), readable by its owner only, as ``tempfile.mkstemp`` does (without
    importing tempfile, shutil and random on every run), and hold an advisory lock on it while
    it is written: the mark of a live writer. Returns the descriptor and the file's name."""
    for _ in range(100):
        candidate = f".{name}.{os.urandom(TEMP_RANDOM // 2).hex()}{TEMP_SUFFIX}"
        try:
            if dfd is not None:
                fd = os.open(candidate, _TEMP_FLAGS, 0o600, dir_fd=dfd)
            else:
                fd = os.open(Path(folder or ".") / candidate, _TEMP_FLAGS, 0o600)
        except FileExistsError:
            continue
        _lock(fd, blocking=True)
        return fd, candidate
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder or name))


def _lock(fd: int, *, blocking: bool) -> bool:
    """An exclusive ``flock`` on ``fd``: True when held (always True where there is none)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: no locks, and no sweeping (see _sweep)
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _readable(dfd: int) -> int | None:
    """A readable descriptor of the folder of ``dfd`` (which may be lookup-only), or None."""
    try:
        return os.open(".", os.O_RDONLY | _WALK_FLAGS, dir_fd=dfd)
    except OSError:
        return None


def sweep(path: Path) -> None:
    """Remove the temporary files a killed run left beside ``path`` (:func:`_sweep`), for a
    run that writes nothing there (a session already repaired); never raises."""
    if os.name != "posix":
        return
    try:
        target = resolve_target(path)
        dfd = os.open(target.parent, os.O_RDONLY | _WALK_FLAGS)
    except (OSError, StoreError):
        return
    try:
        _sweep(dfd, target.name)
    finally:
        os.close(dfd)


def _is_temporary(entry: str, name: str) -> bool:
    """``entry`` is named as :func:`_new_temporary` names a temporary file of ``name``."""
    prefix = f".{name}."
    if not entry.startswith(prefix) or not entry.endswith(TEMP_SUFFIX):
        return False
    middle = entry[len(prefix) : len(entry) - len(TEMP_SUFFIX)]
    return len(middle) == TEMP_RANDOM and not middle.strip("0123456789abcdef")


def _sweep(dfd: int, name: str) -> None:
    """Remove the temporary files of ``name`` that a killed run left (SIGKILL, power loss):
    those of apc's own naming, regular files of this user that no process holds locked and
    nobody wrote to since this run began (:data:`STARTED`) or for :data:`STALE_SECONDS`."""
    if os.name != "posix":
        return
    rfd = _readable(dfd)
    if rfd is None:
        return
    try:
        with suppress(OSError), os.scandir(rfd) as entries:
            for entry in entries:
                if _is_temporary(entry.name, name):
                    _remove_if_stale(dfd, entry.name)
    finally:
        os.close(rfd)


def _remove_if_stale(dfd: int, tmp: str) -> None:
    try:
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK
        fd = os.open(tmp, flags, dir_fd=dfd)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        old = info.st_mtime < STARTED or time.time() - info.st_mtime >= STALE_SECONDS
        mine = not hasattr(os, "getuid") or info.st_uid == os.getuid()
        if stat.S_ISREG(info.st_mode) and old and mine and _lock(fd, blocking=False):
            with suppress(OSError):
                os.unlink(tmp, dir_fd=dfd)
    finally:
        os.close(fd)


def _write_all(fd: int, chunks: Iterable[str | bytes]) -> None:
    with os.fdopen(fd, "wb", buffering=WRITE_BUFFER) as fh:
        for chunk in chunks:
            fh.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_folder(dfd: int) -> None:
    """Make the rename durable. Not every platform can open a folder; that is not an error."""
    fd = _readable(dfd)
    if fd is None:
        return
    try:
        with suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
