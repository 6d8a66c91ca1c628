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
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from apc_tools.boundary import decode, inputs
from apc_tools.boundary.decode import BZIP2, GZIP, LIMIT, PADDING, XZ, ZSTD, Budget, zstd_module
from apc_tools.boundary.model import BlobView, Detection
from apc_tools.boundary.records import MAX_PREAMBLE
from apc_tools.findings import Severity

__all__ = ["LIMIT", "PADDING", "Budget", "Unwrapped", "unwrap_binary", "unwrap_text", "zstd_module"]

SNIFF = 64  # bytes of a blob looked at for the UTF-16/32 NUL pattern
MAX_DEPTH = 8  # wrappers opened one inside another (gzip(gzip(gzip(...))), base64 of gzip)
# Notebook outputs that may hold a session (they pass the literal test) judged one by one;
# past this many the rest are judged together, and that is an error (BIO006).
MAX_PARTS = 20_000


@dataclass(frozen=True)
class Unwrapped:
    """The content found inside a wrapper (``view``), or why it could not be read."""

    how: str  # "gzip-compressed", "base64-wrapped", ...
    view: BlobView | None = None
    uninspected: str = ""  # a reason: the wrapper is known but cannot be opened here
    parts: tuple[BlobView, ...] = ()  # judged one by one instead of ``view`` (notebook outputs)
    notes: tuple[Detection, ...] = ()  # what kept it from being read whole (BIO006, BIO007)


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


def unwrap_binary(blob: BlobView, budget: Budget | None = None) -> Unwrapped | None:
    """A compressed blob's content (every member, within ``budget``), or UTF-16/32 text
    without a BOM, as a text view."""
    data = blob.data
    fmt = decode.format_of(data)
    if fmt is not None:
        if fmt.magic == ZSTD and zstd_module() is None:
            return Unwrapped(fmt.how, uninspected="no zstd decompressor is installed")
        found = decode.decode(fmt, data, blob.complete, budget or Budget())
        notes = _notes(fmt.how, found)
        if not found.data:
            return Unwrapped(fmt.how, notes=notes) if notes else None
        path = _strip_suffix(blob.path)
        inner = BlobView(path, found.data, len(found.data), found.complete, blob.contract)
        return Unwrapped(fmt.how, inner, notes=notes)
    codec = _utf16_32(data)
    if codec is not None:
        text = data[: LIMIT * 4].decode(codec, "replace").encode("utf-8", "replace")
        return Unwrapped(f"{codec.upper()} text without a byte-order mark", _view(blob, text))
    if _text_with_nuls(data):
        return Unwrapped(WITH_NULS, _view(blob, data[: LIMIT * 2].replace(b"\0", b"")[:LIMIT]))
    return None


def _notes(how: str, found: decode.Decoded) -> tuple[Detection, ...]:
    notes = []
    if found.cut:
        notes.append(inputs.over_budget(how, found.cut))
    if found.damage:
        notes.append(inputs.damaged(how, found.damage))
    return tuple(notes)


def too_deep(blob: BlobView) -> Detection | None:
    """BIO006 for a compressed blob inside :data:`MAX_DEPTH` other wrappers (not opened)."""
    fmt = decode.format_of(blob.data) if blob.binary else None
    if fmt is None:
        return None
    return inputs.over_budget(fmt.how, f"it is inside {MAX_DEPTH} other wrappers")


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
# The base64 body: lines of base64 characters, up to an empty line or any other character.
_BASE64_RUN = re.compile(rb"(?:[A-Za-z0-9+/=]++[ \t\r]*+\n?)*+")


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
    window = LIMIT * 4 // 3 + 4
    run = _BASE64_RUN.match(data, 0, window)  # the base64 body, up to what follows it
    end = run.end() if run else 0
    body = b"".join(data[:end].split())
    body = body[: len(body) - len(body) % 4]
    try:
        decoded = binascii.a2b_base64(body)
    except (binascii.Error, ValueError):
        return None
    # base64 of gzip: the decoded bytes are binary, opened as the next layer (within the budget)
    whole = blob.complete and end < window  # the body ended within the window
    view = BlobView(blob.path, decoded, len(decoded), whole and len(decoded) < LIMIT, blob.contract)
    return Unwrapped("base64-wrapped", view)


Pretest = Callable[[bytes], bool]  # may these bytes hold what the detectors look for?


def _notebook(blob: BlobView, pretest: Pretest | None = None) -> Unwrapped | None:
    """A notebook by its suffix, or (renamed) a JSON document whose tail names `nbformat`:
    every output's text (the outputs are part of the blob already read). Each output that
    passes ``pretest`` (the literal test of the detectors) is judged on its own: a session
    printed by a later cell must not hide behind the text of the ones before it (the detectors
    look for a session at the top of a view); past :data:`MAX_PARTS` of them the rest are
    judged together, and that is reported (BIO006)."""
    tail = blob.structured and b'"nbformat"' in blob.data[-4096:]
    if blob.suffix != ".ipynb" and not tail:
        return None
    if b'"outputs"' not in blob.data:
        return None
    texts: list[bytes] = []
    for outputs in _outputs(blob):
        for output in outputs:
            for text in _output_texts(output):
                text = text if text.endswith("\n") else text + "\n"
                texts.append(text.encode("utf-8", "replace"))
    if not texts:
        return None
    how = "inside a Jupyter notebook's output cells"
    whole = _view(blob, b"".join(texts))
    parts = [t for t in texts if pretest is None or pretest(t)]
    notes: tuple[Detection, ...] = ()
    if len(parts) > MAX_PARTS:
        notes = (
            inputs.over_budget(
                how,
                f"{len(parts)} of its outputs may hold records; past the {MAX_PARTS}th they were "
                "judged together, not one by one",
            ),
        )
        parts = [*parts[: MAX_PARTS - 1], b"".join(parts[MAX_PARTS - 1 :])]
    views = tuple(_view(blob, part) for part in parts)
    return Unwrapped(how, whole, parts=views or (whole,), notes=notes)


_OUTPUTS = re.compile(r'"outputs"[ \t\r\n]*:[ \t\r\n]*(?=\[)')
_DECODER = json.JSONDecoder()


def _outputs(blob: BlobView) -> list[list[Any]]:
    """The ``outputs`` list of every cell; of a notebook cut by the read limit, of every cell
    whose outputs are whole in what was read (each list decoded where it stands)."""
    try:
        notebook = json.loads(blob.text)
    except (ValueError, RecursionError):
        notebook = None
    if notebook is not None or blob.complete:
        cells = notebook.get("cells") if isinstance(notebook, dict) else None
        return [
            c["outputs"]
            for c in (cells if isinstance(cells, list) else ())
            if isinstance(c, dict) and isinstance(c.get("outputs"), list)
        ]
    out: list[list[Any]] = []
    text = blob.text
    done = 0  # where the last decoded list ended (a match inside it is part of it)
    for found in _OUTPUTS.finditer(text):
        if found.start() < done:
            continue
        try:
            value, done = _DECODER.raw_decode(text, found.end())
        except (ValueError, RecursionError):
            continue
        if isinstance(value, list):
            out.append(value)
    return out


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
                try:
                    out.append(json.dumps(value, ensure_ascii=False))
                except (ValueError, RecursionError):
                    continue
            elif mime in ("text/plain", "text/markdown"):
                out.append(_joined(value))
    return out


def _joined(value: Any) -> str:
    if isinstance(value, list):
        return "".join(v for v in value if isinstance(v, str))
    return value if isinstance(value, str) else ""


# YAML keys of the agent tools' session records (the YAML parse runs only when one is there),
# bare (``sessionId: x``) and quoted (``'sessionId': x``; ``"sessionId"`` is a JSON needle of
# the transcript detectors, :data:`YAML_QUOTED`).
_YAML_NAMES = ("sessionId", "parentUuid", "projectHash", "isSidechain", "session_id")
_YAML_ROLES = ("user", "assistant", "gemini")
YAML_KEYS = (
    *(f"{name}:".encode() for name in _YAML_NAMES),
    b"session_meta",
    *(f"role: {role}".encode() for role in _YAML_ROLES),
    *(f"'{name}'".encode() for name in _YAML_NAMES),
    b"'role'",
    *(f'role: "{role}"'.encode() for role in _YAML_ROLES),
    *(f"role: '{role}'".encode() for role in _YAML_ROLES),
)
YAML_QUOTED = (*(f'"{name}"'.encode() for name in _YAML_NAMES), b'"role"')
YAML_HEAD = 256 << 10
# The first line of a YAML list of records: "- {...}", "- key: ...", "- 'key': ..." (after blank
# lines, comments, a ``%YAML`` directive and a ``---`` marker).
# Each line has one reading only (a comment stops before its CR): with `#[^\n]*` a CRLF comment
# line could be read two ways, and a file of comment lines took exponential time to refuse.
_YAML_LIST = re.compile(rb"(?:[ \t]*(?:#[^\r\n]*|%[^\r\n]*|---[ \t]*)?\r?\n)*- [ \t]*[{\"'A-Za-z_]")


def yaml_values(blob: BlobView) -> list[tuple[Any, int]] | None:
    """The parsed head of a YAML blob that names a session key, or None: a ``.yaml``/``.yml``
    file, or (whatever its name) one that starts as a YAML list of records."""
    data = blob.data
    if blob.suffix in (".yaml", ".yml"):
        if not any(k in data for k in (*YAML_KEYS, *YAML_QUOTED)):
            return None
    elif not _YAML_LIST.match(data) or not any(k in data for k in (*YAML_KEYS, *YAML_QUOTED)):
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
    *YAML_QUOTED,
    GZIP,
    BZIP2,
    XZ.rstrip(b"\0"),
    ZSTD,
)
ALWAYS_SUFFIXES = (".ipynb",)  # notebooks: read whatever they hold (their outputs are JSON)


def unwrap_text(blob: BlobView, pretest: Pretest | None = None) -> Unwrapped | None:
    """base64-wrapped JSON, or the output cells of a notebook, as a view of their content
    (``pretest``: which notebook outputs must be judged one by one; None: all)."""
    return _base64(blob) or _notebook(blob, pretest)
