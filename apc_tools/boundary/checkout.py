"""``--tracked`` blobs read from the checked-out files, when their bytes are the blob's.

A blob of HEAD's tree is, in a work tree that matches HEAD, also a file on disk: reading that
file costs the page cache a copy, where ``git cat-file`` inflates (and resolves the deltas of)
every object, which is most of a cold scan's CPU. A file is used only when its bytes hash to
the blob id (``blob <size>\\0<bytes>`` under the repository's object format): the verdict is then
about exactly the committed content, as if git had given it. Anything else goes to
``cat-file`` as before: a file edited or not checked out, a clean/smudge filter, an end-of-line
conversion, a symlink, a file above the read limit (cat-file reads its head and reports its
size), a path with a symlinked or missing folder, anything that is not a regular file.

Nothing is trusted from stat data or the index, and nothing is executed (no filter, no
attribute lookup). Files are opened relative to the work tree's top with ``O_NOFOLLOW``,
``O_NONBLOCK`` (a FIFO does not block) and every folder on the way checked once by ``lstat``
(a symlinked folder is never followed). Answers come in the order asked, like
:meth:`~apc_tools.core.git.BlobReader.read_many`'s, read in the calling thread: a reading
thread measured slower (each of its system calls hands the GIL back and forth with the
detectors), and the work saved is most of what the second core did for ``cat-file``.

``APC_CHECKOUT_READ=0`` turns it off (a test and debug switch: the boundary cases run both
ways in tests/boundary/test_checkout_read.py).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Generator, Mapping, Sequence
from pathlib import Path
from typing import Any

from apc_tools.core.git import Blob, Entry

ENV = "APC_CHECKOUT_READ"
FILE_MODES = frozenset(("100644", "100755"))
FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
FLAGS |= getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
# Below these many blobs to read, cat-file alone (the store's listing that keeps a damaged
# repository exit 2 costs more than the reading saves).
MIN_BLOBS = 256


def enabled() -> bool:
    return os.environ.get(ENV, "1").strip() != "0"


_HASHES: dict[int, Callable[[bytes], Any]] = {40: hashlib.sha1, 64: hashlib.sha256}


def _algorithm(oid: str) -> Callable[[bytes], Any] | None:
    """The hash an object id of this length names (SHA-1 or SHA-256), None for another."""
    return _HASHES.get(len(oid))


class CheckoutReader:
    """The blobs of ``paths_of`` (oid -> its entries) from the files under ``root`` where
    they hash to their id; None for every other (the caller reads those through git)."""

    def __init__(self, root: Path, paths_of: Mapping[str, Sequence[Entry]]) -> None:
        self._root = root
        self._paths_of = paths_of
        self._folders: dict[str, bool] = {"": True}
        self._fd: int | None = None

    def read_many(
        self, oids: Sequence[str], limit: int
    ) -> Generator[tuple[str, Blob | None], None, None]:
        """``(oid, blob or None)`` for each of ``oids`` in order."""
        try:
            self._fd = os.open(self._root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        except OSError:
            for oid in oids:
                yield oid, None
            return
        try:
            for oid in oids:
                yield oid, self._one(oid, limit)
        finally:
            os.close(self._fd)
            self._fd = None

    def _one(self, oid: str, limit: int) -> Blob | None:
        algorithm = _algorithm(oid)
        if algorithm is None:
            return None
        for entry in self._paths_of.get(oid, ()):
            if entry.mode in FILE_MODES:
                data = self._file(entry.path, limit)
                if data is not None and _hashes_to(data, oid, algorithm):
                    return Blob(data, len(data))
        return None

    def _file(self, path: str, limit: int) -> bytes | None:
        """The bytes of the regular file at ``path`` (no symlink on the way), when at most
        ``limit``; else None."""
        folder, _, name = path.rpartition("/")
        if not name or not self._folder(folder):
            return None
        try:
            fd = os.open(path, FLAGS, dir_fd=self._fd)
        except (OSError, ValueError):
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            parts = []
            want = info.st_size + 1  # one byte more: a file that grew is not the blob
            got = 0
            while got < want:
                ask = want - got
                chunk = os.read(fd, ask)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
                if len(chunk) < ask:  # a regular file reads short at its end (or on a
                    break  # signal: then the bytes do not hash to the blob, git reads it)
            if got > limit:
                return None
            return parts[0] if len(parts) == 1 else b"".join(parts)
        except OSError:
            return None
        finally:
            os.close(fd)

    def _folder(self, folder: str) -> bool:
        """Every folder of ``folder`` (relative to the top) is a real folder, no symlink
        (each checked once, outermost first)."""
        known = self._folders.get(folder)
        if known is not None:
            return known
        parts = folder.split("/")
        ok = True
        for depth in range(1, len(parts) + 1):
            prefix = "/".join(parts[:depth])
            seen = self._folders.get(prefix)
            if seen is None:
                try:
                    seen = stat.S_ISDIR(os.lstat(prefix, dir_fd=self._fd).st_mode)
                except (OSError, ValueError):
                    seen = False
                self._folders[prefix] = seen
            if not seen:
                ok = False
                break
        self._folders[folder] = ok
        return ok


def _hashes_to(data: bytes, oid: str, algorithm: Callable[[bytes], Any]) -> bool:
    digest = algorithm(b"blob %d\0" % len(data))
    digest.update(data)
    return bool(digest.hexdigest() == oid)
