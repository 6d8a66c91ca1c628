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


def _ensure_outside_root(root: Path | None, target: Path) -> Path:
    resolved = Path(os.path.abspath(target)).resolve()
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
    :class:`InsideProject`, whoever calls: the runtime never writes into the contract.

    The text goes to a temporary file in the same folder, which is flushed, fsynced and renamed
    over ``path`` (the folder is fsynced after). An existing file keeps its permission bits. On
    any exception (SIGTERM too, under the CLI), the temporary file is removed and the exception
    re-raised: ``path`` is left as it was. A temporary file left by a killed run (SIGKILL) is
    removed by the next write to the same file. ``keep``, if given, is asked after the last
    chunk; when it returns False the temporary file is dropped and ``path`` is not touched.

    An existing target that is not a regular file is never replaced: a character device
    (``/dev/null``, a terminal) or a FIFO with a reader is written through; anything else, or
    any of them with ``keep`` (a replacement in place), is refused.
    ``before_replace``, if given, runs right before the rename; an exception it raises leaves
    ``path`` as it is (a live session file that changed meanwhile).
    """
    named, path = path, Path(os.path.realpath(path))
    _ensure_no_project_around(named, path)
    info = _stat(path)
    if info is not None and not stat.S_ISREG(info.st_mode):
        return _write_through(named, path, info, chunks, keep)
    folder = path.parent
    if not folder.is_dir():
        raise StoreError(f"cannot write {named}: the folder {folder} does not exist")
    mode = stat.S_IMODE(info.st_mode) if info is not None else _default_mode()
    _sweep(folder, path.name)
    try:
        fd, tmp = _new_temporary(folder, path.name)
    except OSError as exc:
        raise StoreError(f"cannot write in {folder}: {exc.strerror or exc}") from None
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
    _fsync_folder(folder)
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
) -> bool:
    """Write into a character device or a FIFO that has a reader, never replacing it."""
    fifo, device = stat.S_ISFIFO(info.st_mode), stat.S_ISCHR(info.st_mode)
    if keep is not None or not (fifo or device):
        raise StoreError(
            f"cannot write {named}: not a regular file (a folder, socket, block device or "
            "special file is never replaced); name a regular file"
        )
    flags = os.O_WRONLY | getattr(os, "O_CLOEXEC", 0) | (os.O_NONBLOCK if fifo else 0)
    try:
        fd = os.open(path, flags)  # a FIFO without a reader fails (ENXIO) instead of hanging
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
STALE_SECONDS = 5.0
"""A temporary file unlocked and unmodified for this long belongs to no live writer."""


def _new_temporary(folder: Path, name: str) -> tuple[int, Path]:
    """Create ``.<name>.<random>.apc-tmp`` in ``folder``, readable by its owner only, as
    ``tempfile.mkstemp`` does (without importing tempfile, shutil and random on every run),
    and hold an advisory lock on it while it is written: the mark of a live writer."""
    for _ in range(100):
        candidate = folder / f".{name}.{os.urandom(6).hex()}{TEMP_SUFFIX}"
        try:
            fd = os.open(candidate, _TEMP_FLAGS, 0o600)
        except FileExistsError:
            continue
        _lock(fd, blocking=True)
        return fd, candidate
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder))


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


def _sweep(folder: Path, name: str) -> None:
    """Remove the temporary files of ``name`` that a killed run left (SIGKILL, power loss):
    those no process holds locked and nobody wrote to for :data:`STALE_SECONDS`."""
    if os.name != "posix":
        return
    prefix = f".{name}."
    with suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and entry.name.endswith(TEMP_SUFFIX):
                _remove_if_stale(Path(entry.path))


def _remove_if_stale(tmp: Path) -> None:
    try:
        fd = os.open(tmp, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | os.O_NONBLOCK)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        old = time.time() - info.st_mtime >= STALE_SECONDS
        if stat.S_ISREG(info.st_mode) and old and _lock(fd, blocking=False):
            with suppress(OSError):
                tmp.unlink()
    finally:
        os.close(fd)


def _write_all(fd: int, chunks: Iterable[str | bytes]) -> None:
    with os.fdopen(fd, "wb", buffering=WRITE_BUFFER) as fh:
        for chunk in chunks:
            fh.write(chunk.encode("utf-8") if isinstance(chunk, str) else chunk)
        fh.flush()
        os.fsync(fh.fileno())


def _fsync_folder(folder: Path) -> None:
    """Make the rename durable. Not every platform can open a folder; that is not an error."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        with suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)
