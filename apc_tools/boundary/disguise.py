"""Sessions in disguise: the content under a wrapper the detectors cannot read as it is.

Each wrapper is recognised by a cheap literal test first (magic bytes, the first characters, a
file suffix plus a key name), then unwrapped as far as :data:`LIMIT` bytes of output, never the
whole blob: gzip, bzip2 and xz (the standard library's decompressors, with ``max_length``),
zstd (``compression.zstd`` on Python 3.14+, else the ``zstandard`` package, a dependency; where
neither imports, the blob is reported as not inspected, BIO005), UTF-16/UTF-32 without a
byte-order mark (the NUL pattern of ASCII text), base64-wrapped JSON (and base64 of gzip),
the output cells of a Jupyter notebook, and a session serialised as YAML. :func:`unwrap`
returns the inner content as a :class:`~.model.BlobView` for the detectors, or ``None``.
"""

from __future__ import annotations

import binascii
import bz2
import importlib
import io
import json
import lzma
import re
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apc_tools.boundary.model import BlobView
from apc_tools.boundary.records import MAX_PREAMBLE
from apc_tools.findings import Severity

LIMIT = 1 << 20  # decompressed bytes looked at (the transcript detectors' head)
SNIFF = 64  # bytes of a blob looked at for the UTF-16/32 NUL pattern

GZIP = b"\x1f\x8b"
BZIP2 = b"BZh"
XZ = b"\xfd7zXZ\x00"
ZSTD = b"\x28\xb5\x2f\xfd"


@dataclass(frozen=True)
class Unwrapped:
    """The content found inside a wrapper (``view``), or why it could not be read."""

    how: str  # "gzip-compressed", "base64-wrapped", ...
    view: BlobView | None = None
    uninspected: str = ""  # a reason: the wrapper is known but cannot be opened here
    parts: tuple[BlobView, ...] = ()  # judged one by one instead of ``view`` (notebook outputs)


Reader = Callable[[int], bytes]  # the next at most N decompressed bytes; b"" at the end


def _bounded(opener: Callable[[bytes], Reader], data: bytes) -> bytes | None:
    """At most :data:`LIMIT` decompressed bytes, after any leading blank padding: a session
    behind 6 MiB of compressed spaces is still read (the padding is decompressed and dropped,
    up to :data:`PADDING`), and a bomb never costs more than that."""
    try:
        read = opener(data)
        skipped = 0
        while True:
            chunk = read(LIMIT)
            if not chunk:
                return None
            out = chunk.lstrip()
            if out:
                break
            skipped += len(chunk)
            if skipped > PADDING:
                raise Padded
        while len(out) < LIMIT:
            more = read(LIMIT - len(out))
            if not more:
                break
            out += more
        return out
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
        return None


# Decompressed blank space skipped before a wrapper's content: as much as a plain blob may
# hold under the default read limit. Each MiB costs ~5 ms, and a blob of 8 MiB of compressed
# spaces is 50 bytes, so more would let a few thousand tiny blobs stall the gate.
PADDING = 8 * LIMIT


class Padded(Exception):
    """More leading blank space than :data:`PADDING`: the content was not reached."""


def _gunzip(data: bytes) -> Reader:
    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending = [data]

    def read(limit: int) -> bytes:
        out = stream.decompress(pending[0], limit)
        pending[0] = stream.unconsumed_tail
        return out

    return read


def _feeding(decompressor: Any, data: bytes) -> Reader:
    """bz2, lzma and ``compression.zstd`` decompressors: fed once, then drained."""
    pending = [data]

    def read(limit: int) -> bytes:
        if decompressor.eof:
            return b""
        out: bytes = decompressor.decompress(pending[0], max_length=limit)
        pending[0] = b""
        return out

    return read


def _bunzip(data: bytes) -> Reader:
    return _feeding(bz2.BZ2Decompressor(), data)


def _unxz(data: bytes) -> Reader:
    return _feeding(lzma.LZMADecompressor(), data)


def zstd_module() -> Any | None:
    """The stdlib ``compression.zstd`` (Python 3.14+) or the ``zstandard`` package, if any."""
    for name in ("compression.zstd", "zstandard"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _unzstd(data: bytes) -> Reader:
    """A zstd stream read piece by piece (never the whole of a zstd bomb)."""
    module = zstd_module()
    if module is None:  # pragma: no cover - callers check first
        raise ValueError("no zstd module")

    def guarded(read: Reader) -> Reader:
        def inner(limit: int) -> bytes:
            try:
                return read(limit)
            except Exception as exc:  # each module has its own ZstdError: "cannot read"
                raise ValueError(str(exc)) from None

        return inner

    try:
        if module.__name__ == "zstandard":
            reader = module.ZstdDecompressor().stream_reader(io.BytesIO(data))
            return guarded(reader.read)
        return guarded(_feeding(module.ZstdDecompressor(), data))
    except Exception as exc:
        raise ValueError(str(exc)) from None


_COMPRESSED: tuple[tuple[bytes, str, Callable[[bytes], Reader]], ...] = (
    (GZIP, "gzip-compressed", _gunzip),
    (BZIP2, "bzip2-compressed", _bunzip),
    (XZ, "xz-compressed", _unxz),
    (ZSTD, "zstd-compressed", _unzstd),
)


def _utf16_32(data: bytes) -> str | None:
    """The codec of ASCII-range text in UTF-16/32 without a BOM, by where the NULs fall."""
    head = data[: SNIFF - SNIFF % 4]
    if len(head) < 8:
        return None
    size = len(head)

    def zeros(offsets: tuple[int, ...], step: int) -> bool:
        return all(head[i] == 0 for o in offsets for i in range(o, size, step))

    def filled(offset: int, step: int) -> bool:
        return all(head[i] != 0 for i in range(offset, size, step))

    if zeros((1, 2, 3), 4) and filled(0, 4):
        return "utf-32-le"
    if zeros((0, 1, 2), 4) and filled(3, 4):
        return "utf-32-be"
    if zeros((1,), 2) and filled(0, 2):
        return "utf-16-le"
    if zeros((0,), 2) and filled(1, 2):
        return "utf-16-be"
    return None


def _view(blob: BlobView, data: bytes, suffix: str = "") -> BlobView:
    path = blob.path + (suffix or "")
    return BlobView(path, data, len(data), len(data) < LIMIT, blob.contract)


def unwrap_binary(blob: BlobView) -> Unwrapped | None:
    """A compressed blob's head, or UTF-16/32 text without a BOM, as a text view."""
    data = blob.data
    for magic, how, decompress in _COMPRESSED:
        if not data.startswith(magic):
            continue
        if magic == ZSTD and zstd_module() is None:
            return Unwrapped(how, uninspected="no zstd decompressor is installed")
        try:
            out = _bounded(decompress, data)
        except Padded:
            return Unwrapped(how, uninspected=f"more than {PADDING >> 20} MiB of blank space")
        if not out:
            return None
        inner = BlobView(_strip_suffix(blob.path), out, len(out), len(out) < LIMIT, blob.contract)
        return Unwrapped(how, inner)
    codec = _utf16_32(data)
    if codec is not None:
        text = data[: LIMIT * 4].decode(codec, "replace").encode("utf-8", "replace")
        return Unwrapped(f"{codec.upper()} text without a byte-order mark", _view(blob, text))
    if _text_with_nuls(data):
        return Unwrapped(WITH_NULS, _view(blob, data[: LIMIT * 2].replace(b"\0", b"")[:LIMIT]))
    return None


WITH_NULS = "text with NUL bytes"
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 13))


def _text_with_nuls(data: bytes) -> bool:
    """Text made "binary" by NUL bytes put into it (git's test: a NUL in the first 8000 bytes;
    a session with one NUL appended would pass as binary): all but a few of the other bytes of
    the head are text (random or compressed data has ~12% control bytes)."""
    head = data[:8000].replace(b"\0", b"")
    if len(head) < 64:
        return False
    control = len(head) - len(head.translate(None, _CONTROL))
    return control * 100 <= len(head)


_COMPRESSED_SUFFIXES = (".gz", ".gzip", ".bz2", ".xz", ".zst", ".zstd")


def _strip_suffix(path: str) -> str:
    low = path.casefold()
    for suffix in _COMPRESSED_SUFFIXES:
        if low.endswith(suffix):
            return path[: -len(suffix)]
    return path


# --------------------------------------------------------------------------- text wrappers

# base64 of `{"`, `{\n`, `{\r`, `{ `, `[{`, `[\n`, `[ `, `["` and of a gzip stream.
_BASE64_STARTS = (b"eyJ", b"ewo", b"ew0", b"eyA", b"W3s", b"Wwo", b"WyA", b"WyJ", b"H4sI")
_BASE64_HEAD = re.compile(rb"[A-Za-z0-9+/=\r\n]{64,}")


_BLANK = re.compile(rb"[ \t\r\n]*")


def _base64_start(data: bytes) -> int | None:
    """Where a base64 body starts: after blank space and at most :data:`MAX_PREAMBLE` other
    lines (a title such as ``# notes`` above it), as for a JSON value."""
    index = 0
    for _ in range(MAX_PREAMBLE + 1):
        blank = _BLANK.match(data, index)
        index = blank.end() if blank else index
        if data.startswith(_BASE64_STARTS, index):
            return index
        newline = data.find(b"\n", index, index + 4096)
        if newline < 0:
            return None
        index = newline + 1
    return None


def _base64(blob: BlobView) -> Unwrapped | None:
    start = _base64_start(blob.data)
    if start is None:
        return None
    data = blob.data[start:]
    head = data[:4096]
    if not _BASE64_HEAD.fullmatch(head.rstrip()):
        return None
    body = b"".join(data[: LIMIT * 4 // 3 + 4].split())
    body = body[: len(body) - len(body) % 4]
    try:
        decoded = binascii.a2b_base64(body)
    except (binascii.Error, ValueError):
        return None
    if decoded.startswith(GZIP):
        try:
            out = _bounded(_gunzip, decoded)
        except Padded:
            return Unwrapped("base64-wrapped gzip", uninspected="too much blank space")
        if not out:
            return None
        return Unwrapped("base64-wrapped gzip", _view(blob, out))
    return Unwrapped("base64-wrapped", _view(blob, decoded))


def _notebook(blob: BlobView) -> Unwrapped | None:
    """A notebook by its suffix, or (renamed) a JSON document whose tail names `nbformat`."""
    tail = blob.structured and b'"nbformat"' in blob.data[-4096:]
    if blob.suffix != ".ipynb" and not tail:
        return None
    if b'"outputs"' not in blob.data:
        return None
    try:
        notebook = json.loads(blob.text)
    except (ValueError, RecursionError):
        return None
    cells = notebook.get("cells") if isinstance(notebook, dict) else None
    if not isinstance(cells, list):
        return None
    parts: list[str] = []
    size = 0
    for cell in cells:
        if size > LIMIT:
            break
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for output in outputs if isinstance(outputs, list) else ():
            for text in _output_texts(output):
                parts.append(text if text.endswith("\n") else text + "\n")
                size += len(text)
            if size > LIMIT:
                break
    if not parts:
        return None
    # Each output is judged on its own: a session printed by a later cell must not hide behind
    # the text of the ones before it (the detectors look for a session at the top of a view).
    pieces = [*parts[: MAX_PARTS - 1], "".join(parts[MAX_PARTS - 1 :])]
    return Unwrapped(
        "inside a Jupyter notebook's output cells",
        _view(blob, "".join(parts).encode()),
        parts=tuple(_view(blob, piece.encode()) for piece in pieces if piece),
    )


MAX_PARTS = 4096  # notebook outputs judged one by one; the rest are judged together


def _output_texts(output: Any) -> list[str]:
    """The text of one notebook output: a stream's text, a result's text/plain or JSON."""
    if not isinstance(output, dict):
        return []
    out: list[str] = []
    text = output.get("text")
    if text is not None:
        out.append(_joined(text))
    data = output.get("data")
    if isinstance(data, dict):
        for mime, value in data.items():
            if mime == "application/json" or mime.endswith("+json"):
                out.append(json.dumps(value))
            elif mime in ("text/plain", "text/markdown"):
                out.append(_joined(value))
    return out


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


# YAML keys of the agent tools' session records (the YAML parse runs only when one is there).
YAML_KEYS = (
    b"sessionId:",
    b"parentUuid:",
    b"session_meta",
    b"projectHash:",
    b"isSidechain:",
    b"session_id:",
    b"role: user",
    b"role: assistant",
    b"role: gemini",
)
YAML_HEAD = 256 << 10


def yaml_values(blob: BlobView) -> list[tuple[Any, int]] | None:
    """The parsed head of a YAML blob that names a session key, or None."""
    if blob.suffix not in (".yaml", ".yml") or not any(k in blob.data for k in YAML_KEYS):
        return None
    text = blob.text
    if len(text) > YAML_HEAD:
        cut = text.rfind("\n- ", 0, YAML_HEAD)  # end at a top-level list item
        text = text[: cut + 1] if cut > 0 else text[:YAML_HEAD]
    from apc_tools.core.parse import YAML_ALIAS, YAML_TAG, load_yaml  # only for these blobs

    located = load_yaml(text)
    # An anchor, an alias (read as null, never expanded) or a tag does not make the records
    # around it any less a session: only a document that does not parse is let go.
    refused = (YAML_ALIAS, YAML_TAG)
    if located.data is None or any(
        p.rule.severity is Severity.ERROR and p.rule not in refused for p in located.problems
    ):
        return None
    return [(located.data, 1)]


# What the wrappers cannot be found without, for the prefilter (:mod:`.prefilter`): the base64
# starts, a renamed notebook's ``"outputs"``, the YAML session keys, and the compressed
# formats' magic bytes (xz's up to its NUL; a compressed blob is nearly always binary, and
# binary blobs are always read, but one without a NUL in its first 8000 bytes is text to git).
# UTF-16/32 without a BOM and NUL-padded text have NULs: binary, always read.
NEEDLES: tuple[bytes, ...] = (
    *_BASE64_STARTS,
    b'"outputs"',
    *YAML_KEYS,
    GZIP,
    BZIP2,
    XZ.rstrip(b"\0"),
    ZSTD,
)
ALWAYS_SUFFIXES = (".ipynb",)  # notebooks: read whatever they hold (their outputs are JSON)


def unwrap_text(blob: BlobView) -> Unwrapped | None:
    """base64-wrapped JSON, or the output cells of a notebook, as a view of their content."""
    return _base64(blob) or _notebook(blob)
