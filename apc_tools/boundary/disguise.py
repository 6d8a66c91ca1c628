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


def _bounded(decompress: Callable[[bytes, int], bytes], data: bytes) -> bytes | None:
    try:
        return decompress(data, LIMIT)
    except (OSError, EOFError, ValueError, lzma.LZMAError, zlib.error):
        return None


def _gunzip(data: bytes, limit: int) -> bytes:
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, limit)


def _bunzip(data: bytes, limit: int) -> bytes:
    return bz2.BZ2Decompressor().decompress(data, max_length=limit)


def _unxz(data: bytes, limit: int) -> bytes:
    return lzma.LZMADecompressor().decompress(data, max_length=limit)


def zstd_module() -> Any | None:
    """The stdlib ``compression.zstd`` (Python 3.14+) or the ``zstandard`` package, if any."""
    for name in ("compression.zstd", "zstandard"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


def _unzstd(data: bytes, limit: int) -> bytes:
    """At most ``limit`` bytes out of a zstd stream (never the whole of a zstd bomb)."""
    module = zstd_module()
    if module is None:  # pragma: no cover - callers check first
        raise ValueError("no zstd module")
    try:
        if module.__name__ == "zstandard":
            with module.ZstdDecompressor().stream_reader(io.BytesIO(data)) as reader:
                out: bytes = reader.read(limit)
                return out
        result: bytes = module.ZstdDecompressor().decompress(data, max_length=limit)
        return result
    except Exception as exc:  # each module has its own ZstdError: all mean "cannot read"
        raise ValueError(str(exc)) from None


_COMPRESSED: tuple[tuple[bytes, str, Callable[[bytes, int], bytes]], ...] = (
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
        out = _bounded(decompress, data)
        if not out:
            return None
        inner = BlobView(_strip_suffix(blob.path), out, len(out), len(out) < LIMIT, blob.contract)
        return Unwrapped(how, inner)
    codec = _utf16_32(data)
    if codec is not None:
        text = data[: LIMIT * 4].decode(codec, "replace").encode("utf-8", "replace")
        return Unwrapped(f"{codec.upper()} text without a byte-order mark", _view(blob, text))
    return None


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


def _base64(blob: BlobView) -> Unwrapped | None:
    blank = _BLANK.match(blob.data)
    start = blank.end() if blank else 0
    if not blob.data.startswith(_BASE64_STARTS, start):
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
        out = _bounded(_gunzip, decoded)
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
        outputs = cell.get("outputs") if isinstance(cell, dict) else None
        for output in outputs if isinstance(outputs, list) else ():
            for text in _output_texts(output):
                parts.append(text if text.endswith("\n") else text + "\n")
                size += len(text)
            if size > LIMIT:
                break
    if not parts:
        return None
    return Unwrapped(
        "inside a Jupyter notebook's output cells", _view(blob, "".join(parts).encode())
    )


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
    from apc_tools.core.parse import load_yaml  # only for these few blobs

    located = load_yaml(text)
    if located.data is None or not located.ok:
        return None
    return [(located.data, 1)]


def unwrap_text(blob: BlobView) -> Unwrapped | None:
    """base64-wrapped JSON, or the output cells of a notebook, as a view of their content."""
    return _base64(blob) or _notebook(blob)
