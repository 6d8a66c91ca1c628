"""Reading and writing history files: a JSON array, a JSON object holding the list, or JSONL.

Every layout is read as a stream, so a file of any size is processed with memory bounded by the
largest single record (and, for a JSON object, by the keys around the list):

* JSONL is read line by line; a broken line is an error naming its 1-based line number, or, with
  ``skip_bad_lines``, is left out and reported (:data:`BAD_LINE`).
* A JSON array, or the list under ``messages``, ``input`` or ``contents`` of a JSON object, is
  read record by record with :meth:`json.JSONDecoder.raw_decode` over a sliding buffer.

Writing mirrors the input: the same layout, the same keys around the list in the same order, the
same indentation (compact, ``indent=N``, tabs, or one record per line inside a pretty-printed
list), the same separators, line ending and final newline, with the encoder of ``json.dumps``
(``ensure_ascii=False`` unless the input escaped its non-ASCII characters). The style is learnt
from the records as they are read (:class:`_Learner`); and a caller may hand back a record's
text as read (:class:`RawText`) to have it copied byte for byte.

Every problem with the file itself is a :class:`HistoryError` (a :class:`CannotRun`: exit 2)
whose message names the file and, where it has one, the line and column.

One module per job: :mod:`.layout` (what a file is: layout, style and record types, detected
from its first bytes), :mod:`.style` (the style learner), :mod:`.scanner` (the JSON scanner),
:mod:`.reader` (:class:`HistoryReader`), :mod:`.writer` (:func:`render_history`).
"""

from __future__ import annotations

from apc_tools.runtime.io.layout import (
    BAD_LINE,
    CHUNK_CHARS,
    DEFAULT_MAX_RECORD_BYTES,
    HEAD_BYTES,
    IO_RULES,
    JSONL_SUFFIXES,
    LIST_KEYS,
    BadLine,
    History,
    HistoryError,
    Layout,
    Located,
    MiB,
    RawText,
    Record,
    Style,
    replay,
)
from apc_tools.runtime.io.reader import HistoryReader, read_history
from apc_tools.runtime.io.writer import render_history, write_history

__all__ = [
    "BAD_LINE",
    "CHUNK_CHARS",
    "DEFAULT_MAX_RECORD_BYTES",
    "HEAD_BYTES",
    "IO_RULES",
    "JSONL_SUFFIXES",
    "LIST_KEYS",
    "BadLine",
    "History",
    "HistoryError",
    "HistoryReader",
    "Layout",
    "Located",
    "MiB",
    "RawText",
    "Record",
    "Style",
    "read_history",
    "render_history",
    "replay",
    "write_history",
]
