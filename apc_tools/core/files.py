"""Reading files safely: size cap, binary and encoding checks, symlinks kept inside the project.

:func:`read_text` never raises for a bad file: it returns the text, or a finding that names the
file and says what is wrong. Nothing in a checked repository is ever executed or imported.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "input"
MAX_BYTES = 1024 * 1024


_rule = rule_family(FAMILY)


IO_BINARY = _rule(
    "IO001",
    "binary-file",
    Severity.ERROR,
    "A contract file is binary (it holds NUL bytes).",
    "Agent-context files are text. Replace the file with its text, or move it out of the "
    "contract locations.",
    "AGENTS.md holding Markdown text",
    "AGENTS.md holding a PNG image",
)
IO_ENCODING = _rule(
    "IO002",
    "not-utf8",
    Severity.ERROR,
    "A contract file is not valid UTF-8.",
    "Every agent tool reads these files as UTF-8. Re-save the file as UTF-8; the finding points "
    "at the first byte that is not.",
    "AGENTS.md saved as UTF-8",
    "AGENTS.md saved as Latin-1 with an accented letter",
)
IO_TOO_LARGE = _rule(
    "IO003",
    "file-too-large",
    Severity.ERROR,
    "A contract file is larger than 1 MiB and is not read.",
    "Agent-context files are read into every prompt; a file this large is almost certainly a "
    "mistake (a log, a dump, a transcript). Shrink it or move it out of the contract.",
    "a 4 KiB skill",
    "a 3 MiB SKILL.md",
)
IO_SYMLINK = _rule(
    "IO004",
    "symlink-outside",
    Severity.ERROR,
    "A contract file is a symbolic link that points outside the project (or nowhere).",
    "Links are never followed outside the project: on another machine they resolve to something "
    "else or to nothing. Commit the file itself.",
    ".apc/skills/x.md -> ../docs/x.md (inside the project)",
    ".apc/skills/x.md -> /home/me/notes/x.md",
)
IO_UNREADABLE = _rule(
    "IO005",
    "unreadable-file",
    Severity.ERROR,
    "A contract file cannot be read (permissions, a folder where a file belongs, an I/O error).",
    "Make the file readable by the user running apc.",
    "-rw-r--r-- AGENTS.md",
    "---------- AGENTS.md",
)
IO_EMPTY = _rule(
    "IO006",
    "empty-file",
    Severity.WARNING,
    "A contract file is empty (or holds only white space).",
    "An empty agent-context file tells agents nothing; fill it in or delete it.",
    "# Project\\n\\nUse pytest.",
    "(0 bytes)",
)

RULES = (IO_BINARY, IO_ENCODING, IO_TOO_LARGE, IO_SYMLINK, IO_UNREADABLE, IO_EMPTY)


@dataclass(frozen=True)
class TextFile:
    path: str  # display path
    text: str  # BOM removed
    sha256: str
    had_bom: bool


def _inside(root: Path, target: Path) -> bool:
    return target == root or root in target.parents


def _utf8_error(data: bytes, exc: UnicodeDecodeError, path: str) -> Finding:
    before = data[: exc.start]
    line = before.count(b"\n") + 1
    column = len(before) - (before.rfind(b"\n") + 1) + 1
    return IO_ENCODING.finding(
        path, f"byte 0x{data[exc.start]:02x} is not valid UTF-8", line, column
    )


def check_link(abspath: Path, root: Path, display: str) -> Finding | None:
    """A finding when ``abspath`` is a symlink that leaves ``root`` or dangles; else None."""
    if not abspath.is_symlink():
        return None
    try:
        target = abspath.resolve(strict=True)
    except (OSError, RuntimeError):
        return IO_SYMLINK.finding(display, "symbolic link points nowhere (not followed)")
    if not _inside(root.resolve(), target):
        return IO_SYMLINK.finding(
            display, "symbolic link points outside the project (not followed)"
        )
    return None


# Texts that stand in for some files' bytes on disk (an editor's unsaved buffers, apc lsp):
# absolute path (folders resolved) -> bytes. Read by read_bytes; see :func:`overlaid`.
_OVERLAY: ContextVar[tuple[Mapping[str, bytes], frozenset[str]] | None] = ContextVar(
    "apc_overlay", default=None
)


def overlay_key(path: Path | str) -> str:
    """The key of ``path`` in an overlay: absolute, its folders resolved (the file itself is
    not: a symlink stays a symlink, and is read from disk as such)."""
    full = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))


@contextmanager
def overlaid(texts: Mapping[Path, bytes] | None) -> Iterator[None]:
    """Within the block, :func:`read_bytes` gives ``texts[path]`` in place of the bytes on disk
    of each regular file (or missing file) named there, as if the file held them: the same
    size limit, the same findings. A path that is a symlink or not a file is read from disk."""
    if not texts:
        yield
        return
    keyed = {overlay_key(path): data for path, data in texts.items()}
    names = frozenset(os.path.basename(key) for key in keyed)
    token = _OVERLAY.set((keyed, names))
    try:
        yield
    finally:
        _OVERLAY.reset(token)


def overlay_bytes(abspath: Path | str) -> bytes | None:
    """The overlay's bytes for ``abspath`` (see :func:`overlaid`), or None: read the disk."""
    overlay = _OVERLAY.get()
    if overlay is None:
        return None
    texts, names = overlay
    if os.path.basename(abspath) not in names:  # most files: one set test
        return None
    # the callers read the files of a resolved project root: the key is the path as given
    # (its folders below the root are the project's own, not links: a walk does not follow them)
    data = texts.get(os.path.abspath(abspath))
    if data is None:
        return None
    try:
        info = os.lstat(abspath)
    except OSError:
        return data  # an unsaved buffer of a file not (or no longer) on disk
    return data if stat.S_ISREG(info.st_mode) else None


def read_text(abspath: Path, root: Path, display: str) -> TextFile | Finding:
    """Read a contract file as UTF-8 text, or return the finding that says why not."""
    data = read_bytes(abspath, root, display)
    return data if isinstance(data, Finding) else decode(data, display)


def read_bytes(
    abspath: Path | str, root: Path, display: str, stated: os.stat_result | None = None
) -> bytes | Finding:
    """The bytes of a contract file (at most :data:`MAX_BYTES`), or the finding that says why
    they cannot be read; :func:`decode` makes them text (one read serves a content hash and
    the parse). ``stated`` is the file's ``os.lstat`` when the caller just made it. Within
    :func:`overlaid`, a file named there holds the overlay's bytes."""
    given = overlay_bytes(abspath) if _OVERLAY.get() is not None else None
    if given is not None:
        if len(given) > MAX_BYTES:
            return IO_TOO_LARGE.finding(
                display,
                f"file is {len(given)} bytes; the limit is {MAX_BYTES} (1 MiB), so it was not read",
            )
        return given
    info = stated
    if info is None:
        try:
            info = os.lstat(abspath)
        except OSError:
            info = None  # said below, as for any other file
    if info is not None and not stat.S_ISLNK(info.st_mode):
        # The common case in one system call: not a link, so lstat is stat.
        if not stat.S_ISREG(info.st_mode):
            return IO_UNREADABLE.finding(display, "not a regular file")
        if info.st_size > MAX_BYTES:
            return IO_TOO_LARGE.finding(
                display,
                f"file is {info.st_size} bytes; the limit is {MAX_BYTES} (1 MiB), so it was not "
                "read",
            )
        try:
            return read_capped(abspath, info.st_size, MAX_BYTES)
        except OSError as exc:
            return IO_UNREADABLE.finding(display, f"cannot read: {exc.strerror or exc}")
    abspath = Path(abspath)
    link = check_link(abspath, root, display)
    if link is not None:
        return link
    try:
        size = os.stat(abspath).st_size
        if not abspath.is_file():
            return IO_UNREADABLE.finding(display, "not a regular file")
        if size > MAX_BYTES:
            return IO_TOO_LARGE.finding(
                display,
                f"file is {size} bytes; the limit is {MAX_BYTES} (1 MiB), so it was not read",
            )
        data = read_capped(abspath, size, MAX_BYTES)
    except OSError as exc:
        return IO_UNREADABLE.finding(display, f"cannot read: {exc.strerror or exc}")
    return data


def read_capped(path: str | os.PathLike[str], size: int, cap: int) -> bytes:
    """The bytes of the file at ``path`` up to ``cap + 1`` (one more than the cap, so a caller
    sees a file that outgrew it), read to its end.

    ``size`` is what a stat just said the file holds: the first read asks for one byte more
    than that, so the common file takes one buffer of its own size (``open().read(cap + 1)``
    allocates ``cap + 1`` bytes for every file, which cost more than the reading). A file that
    grew since, or a short read, is read on until its end or past the cap.
    """
    fd = os.open(path, os.O_RDONLY | _OPEN_FLAGS)
    try:
        left = cap + 1
        parts: list[bytes] = []
        ask = min(max(size, 0) + 1, left)
        while left > 0:
            chunk = os.read(fd, ask)
            if not chunk:
                break
            parts.append(chunk)
            left -= len(chunk)
            ask = min(left, 1 << 16)
    finally:
        os.close(fd)
    return parts[0] if len(parts) == 1 else b"".join(parts)


_OPEN_FLAGS = getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def decode(data: bytes, display: str) -> TextFile | Finding:
    if b"\x00" in data:  # anywhere: a NUL after the first 8 KiB is still binary
        return IO_BINARY.finding(display, "binary file (NUL bytes); expected text")
    had_bom = data.startswith(b"\xef\xbb\xbf")
    try:
        text = data[3 if had_bom else 0 :].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = 3 if had_bom else 0
        exc.start += offset
        return _utf8_error(data, exc, display)
    return TextFile(display, text, hashlib.sha256(data).hexdigest(), had_bom)


def folder_inside(root: Path, path: Path) -> bool:
    """``path``'s folder, every link resolved, is ``root`` or below it (the fixers write only
    there; a folder that does not resolve is not inside)."""
    try:
        parent = path.parent.resolve(strict=True)
        base = root.resolve(strict=True)
    except (OSError, RuntimeError):
        return False
    return parent == base or base in parent.parents
