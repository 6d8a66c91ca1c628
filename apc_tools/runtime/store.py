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


def _mode_for(path: Path) -> int:
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return _default_mode()


def atomic_write(
    path: Path,
    chunks: Iterable[str | bytes],
    *,
    keep: Callable[[], bool] | None = None,
    before_replace: Callable[[], None] | None = None,
) -> bool:
    """Write ``chunks`` (str as UTF-8) to ``path`` atomically; return True if it was replaced.

    The text goes to a temporary file in the same folder, which is flushed, fsynced and renamed
    over ``path`` (the folder is fsynced after). An existing file keeps its permission bits. On
    any exception, the temporary file is removed and the exception re-raised: ``path`` is left
    as it was. ``keep``, if given, is asked after the last chunk; when it returns False the
    temporary file is dropped and ``path`` is not touched (nothing changed, nothing to write).
    ``before_replace``, if given, runs right before the rename; an exception it raises leaves
    ``path`` as it is (a live session file that changed meanwhile).
    """
    folder = path.parent
    if not folder.is_dir():
        raise StoreError(f"cannot write {path}: the folder {folder} does not exist")
    mode = _mode_for(path)
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
    except BaseException:
        with suppress(FileNotFoundError):
            tmp.unlink()
        raise
    _fsync_folder(folder)
    return True


_TEMP_FLAGS = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_TEMP_FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _new_temporary(folder: Path, name: str) -> tuple[int, Path]:
    """Create ``.<name>.<random>.apc-tmp`` in ``folder``, readable by its owner only, as
    ``tempfile.mkstemp`` does (without importing tempfile, shutil and random on every run)."""
    for _ in range(100):
        candidate = folder / f".{name}.{os.urandom(6).hex()}.apc-tmp"
        try:
            return os.open(candidate, _TEMP_FLAGS, 0o600), candidate
        except FileExistsError:
            continue
    raise FileExistsError(errno.EEXIST, "no free temporary file name", str(folder))


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
