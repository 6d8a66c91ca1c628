"""Decompress a blob the way the tools that read it do, within a budget of decompressed bytes.

Every framing people produce is read: each member of a multi-member gzip (``gzip >> log.gz``,
``cat a.gz b.gz``), each stream of a multi-stream bzip2 or xz file (with xz's zero padding),
each frame of a zstd file (skippable frames skipped). A stream whose check fails (gzip's CRC and
size, bzip2's block and stream CRCs, xz's index and check, zstd's checksum), that is cut off, or
that is followed by other data, is *damaged*: what decompressed before the damage is returned and
judged (a failing call's output is recovered by decoding again in smaller steps, down to one
byte, paid from the budget), and the damage is reported.

Work is bounded by what a blob expands to, not by its size (:class:`Budget`): at most
:data:`BLOB_BUDGET` decompressed bytes per blob (all layers and members together), and per scan
:data:`SCAN_BUDGET` plus :data:`EARNED` bytes for each byte of compressed input read. Of what is
decompressed, leading blank space is dropped (at most :data:`PADDING` of it) and at most
:data:`LIMIT` bytes of content are kept. Whatever a budget cuts short is reported, never passed.
"""

from __future__ import annotations

import bz2
import importlib
import io
import lzma
import struct
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

LIMIT = 1 << 20  # content bytes kept per layer (the transcript detectors' head)
# Decompressed blank space skipped before a layer's content: as much as a plain blob may hold
# under the default read limit (a session behind 6 MiB of compressed spaces is still read).
PADDING = 8 * LIMIT
BLOB_BUDGET = LIMIT + PADDING  # decompressed bytes per blob, every layer and member together
# Decompressed bytes per scan (in each worker process): a floor, and EARNED more for each byte of
# compressed input. A real compressed file earns its own reading (text compresses 3-20x); 400
# tiny bzip2 blobs of 8 MiB of blank space each (3.2 GB of work from 40 KB) spend the floor and
# are reported instead of read.
SCAN_BUDGET = 512 << 20
EARNED = 64
STEP = 64 << 10  # decompressed bytes asked for per call
SALVAGE = 2 * LIMIT  # a failing call's output is recovered only this far into a stream
MAX_BLOCKS = 1 << 16  # zstd blocks walked per frame to find where it ends
XZ_MEMORY = 160 << 20  # the memory an xz stream's decoder may ask for

GZIP = b"\x1f\x8b"
BZIP2 = b"BZh"
XZ = b"\xfd7zXZ\x00"
ZSTD = b"\x28\xb5\x2f\xfd"

_ERRORS = (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error, struct.error)


class Stats:
    """Decompressed bytes in this process (the hang-guard tests count work by them)."""

    decoded = 0


class Budget:
    """The decompressed bytes a scan may still spend, and the current blob's share."""

    def __init__(self, scan: int = SCAN_BUDGET, blob: int = BLOB_BUDGET) -> None:
        self.scan = scan
        self.per_blob = blob
        self.blob = blob
        self.earned = False
        self.scan_cut = False  # the current blob was cut by the scan's budget (not cached)

    def start(self) -> None:
        """A new blob: its own share, nothing earned yet."""
        self.blob = self.per_blob
        self.earned = False
        self.scan_cut = False

    def earn(self, compressed: int) -> None:
        """The blob's compressed size pays for its reading (once per blob: inner layers are
        output already counted)."""
        if not self.earned:
            self.earned = True
            self.scan += EARNED * compressed

    def left(self) -> int:
        return min(self.blob, self.scan)

    def take(self, size: int) -> None:
        self.blob -= size
        self.scan -= size
        Stats.decoded += size

    def why_cut(self) -> str:
        if self.scan <= 0:
            self.scan_cut = True
            return f"the scan's decoding budget ({SCAN_BUDGET >> 20} MiB and {EARNED}x the "
            "compressed bytes read) is spent"
        return f"the blob's decoding budget ({self.per_blob >> 20} MiB) is spent"


@dataclass(frozen=True)
class Decoded:
    """A layer's content (blank padding dropped, at most :data:`LIMIT` bytes) and what kept
    it from being all of it."""

    data: bytes
    complete: bool  # the whole decompressed content (the streams ended within the window)
    damage: str = ""  # why the streams are damaged ("" if not)
    cut: str = ""  # the budget that stopped the reading before the content's end ("" if none)


class _Member(Protocol):
    """One gzip member, bzip2/xz stream or zstd frame(s): ``read`` raises on damage."""

    source: bytes
    damage: str  # a check that failed although the data decompressed

    @property
    def eof(self) -> bool: ...

    @property
    def rest(self) -> bytes:  # what follows the member (valid at eof)
        ...

    def read(self, size: int) -> bytes: ...


# --------------------------------------------------------------------------- members


def _gzip_header(data: bytes) -> int:
    """The length of a gzip member's header (RFC 1952); ValueError if it is not one."""
    if len(data) < 10 or data[:3] != b"\x1f\x8b\x08":
        raise ValueError("not a gzip member")
    flags = data[3]
    pos = 10
    if flags & 4:  # FEXTRA
        (extra,) = struct.unpack_from("<H", data, pos)
        pos += 2 + extra
    for bit in (8, 16):  # FNAME, FCOMMENT: zero-terminated
        if flags & bit:
            end = data.find(b"\0", pos)
            if end < 0:
                raise ValueError("gzip header cut off")
            pos = end + 1
    if flags & 2:  # FHCRC
        pos += 2
    if pos > len(data):
        raise ValueError("gzip header cut off")
    return pos


class _Own:
    """A member that finds its own end (``eof``, ``rest``) and checks (``damage``)."""

    def __init__(self, data: bytes) -> None:
        self.source = data
        self.eof = False
        self.rest = b""
        self.damage = ""


class _GzipMember(_Own):
    """A gzip member inflated raw, its CRC-32 and size checked here (zlib's own check would
    raise and drop the output of the call that reaches a damaged trailer)."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self._inflate = zlib.decompressobj(-zlib.MAX_WBITS)
        self._pending = data[_gzip_header(data) :]
        self._crc = 0
        self._size = 0

    def read(self, size: int) -> bytes:
        if self.eof:
            return b""
        out = self._inflate.decompress(self._pending, size)
        self._pending = self._inflate.unconsumed_tail
        self._crc = zlib.crc32(out, self._crc)
        self._size += len(out)
        if self._inflate.eof:
            trailer = self._inflate.unused_data
            if len(trailer) < 8:
                return out  # not eof: the stream reports it cut off after this output
            self.eof = True
            crc, length = struct.unpack_from("<II", trailer)
            if crc != self._crc or length != self._size & 0xFFFFFFFF:
                self.damage = "its CRC check fails"
            self.rest = trailer[8:]
        return out


class _Fed:
    """bz2, lzma and ``compression.zstd`` decompressors: fed once, then drained."""

    def __init__(self, decompressor: Any, data: bytes) -> None:
        self.source = data
        self._d = decompressor
        self._pending = data
        self.damage = ""

    @property
    def eof(self) -> bool:
        return bool(self._d.eof)

    @property
    def rest(self) -> bytes:
        return bytes(self._d.unused_data)

    def read(self, size: int) -> bytes:
        if self._d.eof:
            return b""
        out: bytes = self._d.decompress(self._pending, max_length=size)
        self._pending = b""
        return out


def zstd_module() -> Any | None:
    """The stdlib ``compression.zstd`` (Python 3.14+) or the ``zstandard`` package, if any."""
    for name in ("compression.zstd", "zstandard"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def zstd_frames_end(data: bytes) -> int | None:
    """Where the zstd frames (RFC 8878, skippable ones too) at the start of ``data`` end: the
    offset after the last whole frame that is followed by no other frame; None when a frame is
    cut off. ValueError when a frame is not one (or has more than :data:`MAX_BLOCKS` blocks)."""
    pos = 0
    while pos < len(data):
        if len(data) - pos < 8:
            return None
        magic = int.from_bytes(data[pos : pos + 4], "little")
        if magic & 0xFFFFFFF0 == 0x184D2A50:  # a skippable frame
            pos += 8 + int.from_bytes(data[pos + 4 : pos + 8], "little")
        elif data[pos : pos + 4] == ZSTD:
            end = _zstd_frame_end(data, pos)
            if end is None:
                return None
            pos = end
        else:
            return pos  # other data follows: the caller reports it
        if pos > len(data):
            return None
    return pos


def _zstd_frame_end(data: bytes, start: int) -> int | None:
    descriptor = data[start + 4]
    if descriptor & 0x08:
        raise ValueError("zstd frame header: reserved bit set")
    single = descriptor >> 5 & 1
    content_size = (1 if single else 0, 2, 4, 8)[descriptor >> 6]
    pos = start + 5 + (0 if single else 1) + (0, 1, 2, 4)[descriptor & 3] + content_size
    for _ in range(MAX_BLOCKS):
        if pos + 3 > len(data):
            return None
        header = int.from_bytes(data[pos : pos + 3], "little")
        kind = header >> 1 & 3
        if kind == 3:
            raise ValueError("zstd block: reserved type")
        pos += 3 + (1 if kind == 1 else header >> 3)
        if header & 1:  # the last block
            end = pos + (4 if descriptor & 0x04 else 0)
            return end if end <= len(data) else None
    raise ValueError(f"zstd frame of more than {MAX_BLOCKS} blocks")


class _ZstandardFrames(_Own):
    """Every frame of a zstd blob through the ``zstandard`` package's stream reader (which
    never verifies that the last frame is whole: :func:`zstd_frames_end` does)."""

    def __init__(self, module: Any, data: bytes) -> None:
        super().__init__(data)
        reader = module.ZstdDecompressor().stream_reader(io.BytesIO(data), read_across_frames=True)
        self._read = reader.read
        self._module = module

    def read(self, size: int) -> bytes:
        if self.eof:
            return b""
        try:
            out: bytes = self._read(size)
        except self._module.ZstdError as exc:
            raise ValueError(str(exc)) from None
        if not out:
            end = zstd_frames_end(self.source)
            if end is None:
                return b""  # not eof: cut off
            self.eof = True
            self.rest = self.source[end:]
        return out


def _gunzip(data: bytes) -> _Member:
    return _GzipMember(data)


def _bunzip(data: bytes) -> _Member:
    return _Fed(bz2.BZ2Decompressor(), data)


def _unxz(data: bytes) -> _Member:
    # A header may ask for a dictionary of 1.5 GiB; xz -9 needs 65 MiB (more: damaged, BIO007)
    return _Fed(lzma.LZMADecompressor(lzma.FORMAT_XZ, memlimit=XZ_MEMORY), data)


def _unzstd(data: bytes) -> _Member:
    module = zstd_module()
    if module is None:  # pragma: no cover - callers check first
        raise ValueError("no zstd module")
    if module.__name__ == "zstandard":
        return _ZstandardFrames(module, data)
    return _Fed(module.ZstdDecompressor(), data)  # pragma: no cover - Python 3.14+


@dataclass(frozen=True)
class Format:
    magic: bytes
    how: str
    member: Callable[[bytes], _Member]
    starts: tuple[bytes, ...]  # what the next member may start with


ZSTD_SKIPPABLE = tuple(bytes([0x50 + i, 0x2A, 0x4D, 0x18]) for i in range(16))
FORMATS: tuple[Format, ...] = (
    Format(GZIP, "gzip-compressed", _gunzip, (GZIP,)),
    Format(BZIP2, "bzip2-compressed", _bunzip, (BZIP2,)),
    Format(XZ, "xz-compressed", _unxz, (XZ,)),
    Format(ZSTD, "zstd-compressed", _unzstd, (ZSTD, *ZSTD_SKIPPABLE)),
)


# --------------------------------------------------------------------------- the stream


class Stream:
    """The members of one compressed blob, one after another, as one stream of bytes."""

    def __init__(self, fmt: Format, data: bytes, whole: bool, budget: Budget) -> None:
        self._fmt = fmt
        self._budget = budget  # what recovering from damage decodes again is paid from it
        self._whole = whole  # ``data`` is all of the input (else an end is no damage)
        self._member: _Member | None = None
        self._next = data
        self._delivered = 0  # of the current member
        self.damage = ""
        self.cut = ""  # a limit, not damage, stopped it (the decoder's memory)
        self.finished = False

    def read(self, size: int) -> bytes:
        """At most ``size`` decompressed bytes; b"" at the end or at damage (``finished``)."""
        while not self.finished:
            member = self._member
            if member is None:
                member = self._open()
                if member is None:
                    continue
            try:
                out = member.read(size)
            except _ERRORS as exc:
                if "memory" in str(exc).casefold():  # a header asking for a huge window
                    self.finished = True
                    self.cut = f"its decoder would need more memory than allowed ({_reason(exc)})"
                    return b""
                self._damaged(f"its data is damaged ({_reason(exc)})")
                return self._salvage(member, size)
            if member.damage and not self.damage:
                self.damage = member.damage
            if out:
                self._delivered += len(out)
                return out
            if not member.eof:  # no output, no end: the input is cut off
                self._damaged("it is cut off before its end")
                continue
            self._member, self._next = None, member.rest
        return b""

    def _open(self) -> _Member | None:
        data = self._next.lstrip(b"\0")  # xz's stream padding; zeros after a gzip or tar
        if not data:
            self.finished = True
            return None
        if not data.startswith(self._fmt.starts):
            self._damaged("other data follows its end")
            return None
        try:
            self._member = self._fmt.member(data)
        except _ERRORS as exc:
            self._damaged(f"its header is damaged ({_reason(exc)})")
            return None
        self._delivered = 0
        return self._member

    def _damaged(self, why: str) -> None:
        self.finished = True
        if self._whole and not self.damage:
            self.damage = why
        elif not self._whole and why.startswith("its data"):
            self.damage = self.damage or why  # a cut input ends early, but fails no check

    def _salvage(self, member: _Member, size: int) -> bytes:
        """The output of the call that failed, as far as it goes: the member decoded again from
        its start (only as far as :data:`SALVAGE` into it, every byte paid from the budget),
        in smaller and smaller steps down to one byte, each pass keeping what the last gave."""
        got = bytearray()
        step = max(1, size // 8)
        while self._delivered + size <= SALVAGE:
            try:
                again = self._fmt.member(member.source)
                if not self._skip(again, self._delivered + len(got)):
                    break
                while len(got) < size:
                    chunk = again.read(min(step, size - len(got)))
                    if not chunk:
                        return bytes(got)
                    got += chunk  # paid by the caller, as any output
                break
            except _ERRORS:
                if step == 1:
                    break
                step = max(1, step // 8)
        return bytes(got)

    def _skip(self, member: _Member, size: int) -> bool:
        """Decode ``size`` bytes of ``member`` and drop them (False: the budget is short)."""
        if self._budget.left() < size + STEP:
            return False
        while size > 0:
            chunk = member.read(min(STEP, size))
            if not chunk:
                return False
            self._budget.take(len(chunk))
            size -= len(chunk)
        return True


def _reason(exc: BaseException) -> str:
    return str(exc).strip() or type(exc).__name__


def format_of(data: bytes) -> Format | None:
    for fmt in FORMATS:
        if data.startswith(fmt.magic):
            return fmt
    return None


def decode(fmt: Format, data: bytes, whole: bool, budget: Budget) -> Decoded:
    """A compressed layer's content: leading blank space dropped (at most :data:`PADDING`),
    at most :data:`LIMIT` bytes kept, within ``budget``; ``whole``: ``data`` is all the input."""
    budget.earn(len(data))
    stream = Stream(fmt, data, whole, budget)
    parts: list[bytes] = []
    kept = blank = 0
    cut = ""
    while kept < LIMIT:
        room = budget.left()
        if room <= 0:
            cut = budget.why_cut()
            break
        chunk = stream.read(min(STEP, room, LIMIT - kept))
        if not chunk:
            break
        budget.take(len(chunk))
        if not kept:
            stripped = chunk.lstrip()
            blank += len(chunk) - len(stripped)
            if blank > PADDING:
                cut = f"more than {PADDING >> 20} MiB of blank space comes before its content"
                break
            chunk = stripped
            if not chunk:
                continue
        parts.append(chunk)
        kept += len(chunk)
    if stream.finished:
        cut = stream.cut
    complete = stream.finished and not stream.cut and kept < LIMIT
    return Decoded(b"".join(parts), complete, stream.damage, cut)
