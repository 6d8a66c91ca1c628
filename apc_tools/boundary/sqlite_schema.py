"""The tables of an SQLite database, read from its bytes (never opened with SQLite).

An SQLite file's schema is the table ``sqlite_schema`` rooted at page 1: a table b-tree whose
rows are ``(type, name, tbl_name, rootpage, sql)`` (https://www.sqlite.org/fileformat2.html,
sections 1.3, 1.6, 2.1, 2.6). This module walks that b-tree in the bytes the gate read, follows
overflow chains for long ``CREATE`` statements, and takes each table's column names from its
``CREATE TABLE`` text. Nothing is executed: a hostile file can at worst end the walk early.
Every loop is bounded (pages, cells, overflow pages, the bytes that are there). The same walk
reads page images out of a write-ahead log (``-wal``: 32-byte header, then frames of a 24-byte
header and one page, https://www.sqlite.org/walformat.html), where the schema sits when the
database was created or changed since the last checkpoint.

Where the b-tree cannot be walked (the schema lies past what was read, a damaged page), the
``CREATE TABLE`` statements are looked for in the bytes themselves (they are stored as plain
text in the schema's cells).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

HEADER = b"SQLite format 3\x00"
WAL_MAGICS = (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83")
MAX_PAGES = 256  # schema pages walked
MAX_CELLS = 4096  # schema rows read
MAX_OVERFLOW = 64  # overflow pages of one row
MAX_OVERFLOW_TOTAL = 1024  # overflow pages of the whole walk (a hostile chain is shared)
MAX_TABLES = 256
MAX_STATEMENT = 4096  # characters of one CREATE TABLE read for its column names

Tables = dict[str, tuple[str, ...]]  # table name (case-folded) -> column names (case-folded)
Page = Callable[[int], bytes | None]  # page number -> its bytes (page 1 with the file header)


def tables(data: bytes) -> Tables:
    """The tables of the database file ``data`` (as far as it was read)."""
    if not data.startswith(HEADER) or len(data) < 100:
        return {}
    size = _page_size(data[16:18])
    if size is None:
        return {}
    usable = size - data[20]

    def page(number: int) -> bytes | None:
        start = (number - 1) * size
        chunk = data[start : start + size]
        return chunk if len(chunk) == size else None

    return _walk(page, usable) or _scan(data)


def wal_tables(data: bytes) -> Tables:
    """The tables whose schema a write-ahead log's frames hold (the last image of each page)."""
    if data[:4] not in WAL_MAGICS or len(data) < 32:
        return {}
    size = int.from_bytes(data[8:12], "big")
    if size == 1:
        size = 65536
    if size < 512 or size > 65536 or size & (size - 1):
        return {}
    images: dict[int, bytes] = {}
    offset = 32
    while offset + 24 + size <= len(data) and len(images) < 1 << 16:
        number = int.from_bytes(data[offset : offset + 4], "big")
        images[number] = data[offset + 24 : offset + 24 + size]
        offset += 24 + size
    if 1 not in images or not images[1].startswith(HEADER):
        return _scan(data)
    usable = size - images[1][20]
    return _walk(images.get, usable) or _scan(data)


def _page_size(raw: bytes) -> int | None:
    size = int.from_bytes(raw, "big")
    if size == 1:
        return 65536
    if size < 512 or size > 65536 or size & (size - 1):
        return None
    return size


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """An SQLite varint at ``at``: (value, the offset after it); IndexError past the end."""
    value = 0
    for i in range(8):
        byte = data[at + i]
        value = (value << 7) | (byte & 0x7F)
        if byte < 0x80:
            return value, at + i + 1
    return (value << 8) | data[at + 8], at + 9


def _walk(page: Page, usable: int) -> Tables:
    """The ``CREATE TABLE`` rows of the b-tree rooted at page 1."""
    out: Tables = {}
    todo, cells = [1], 0
    budget = [MAX_OVERFLOW_TOTAL]
    seen: set[int] = set()
    try:
        while todo and len(seen) < MAX_PAGES:
            number = todo.pop()
            if number in seen or number < 1:
                continue
            seen.add(number)
            raw = page(number)
            if raw is None:
                return out
            base = 100 if number == 1 else 0
            kind = raw[base]
            count = int.from_bytes(raw[base + 3 : base + 5], "big")
            if kind == 0x05:  # interior table page: child pointers
                todo.append(int.from_bytes(raw[base + 8 : base + 12], "big"))
                pointers = base + 12
                for i in range(min(count, MAX_CELLS - len(todo))):
                    cell = int.from_bytes(raw[pointers + 2 * i : pointers + 2 * i + 2], "big")
                    todo.append(int.from_bytes(raw[cell : cell + 4], "big"))
                continue
            if kind != 0x0D:  # not a table leaf: not a schema page
                return out
            pointers = base + 8
            for i in range(count):
                cells += 1
                if cells > MAX_CELLS or len(out) >= MAX_TABLES:
                    return out
                cell = int.from_bytes(raw[pointers + 2 * i : pointers + 2 * i + 2], "big")
                payload = _payload(page, raw, cell, usable, budget)
                row = _record(payload) if payload else None
                if row and row[0] == "table" and isinstance(row[4], str):
                    name, columns = _create_table(row[4])
                    if name:
                        out[name] = columns
    except (IndexError, ValueError):
        return out
    return out


def _payload(page: Page, raw: bytes, cell: int, usable: int, budget: list[int]) -> bytes:
    """One leaf cell's payload, its overflow pages followed (bounded per row and, through
    ``budget``, per walk)."""
    size, at = _varint(raw, cell)
    _, at = _varint(raw, at)  # the rowid
    most = usable - 35
    if size <= most:
        return raw[at : at + size]
    least = (usable - 12) * 32 // 255 - 23
    local = least + (size - least) % (usable - 4)
    if local > most:
        local = least
    parts = [raw[at : at + local]]
    following = int.from_bytes(raw[at + local : at + local + 4], "big")
    got = local
    for _ in range(MAX_OVERFLOW):
        if not following or got >= size or budget[0] <= 0:
            break
        budget[0] -= 1
        chunk = page(following)
        if chunk is None:
            break
        parts.append(chunk[4:usable])
        got += usable - 4
        following = int.from_bytes(chunk[:4], "big")
    return b"".join(parts)[:size]


def _record(payload: bytes) -> list[object] | None:
    """The values of an SQLite record (ints, floats as None, text, blobs)."""
    header_size, at = _varint(payload, 0)
    types: list[int] = []
    while at < header_size and len(types) < 16:
        kind, at = _varint(payload, at)
        types.append(kind)
    if len(types) < 5:
        return None
    values: list[object] = []
    body = header_size
    widths = {1: 1, 2: 2, 3: 3, 4: 4, 5: 6, 6: 8, 7: 8}
    for kind in types:
        if kind in widths:
            width = widths[kind]
            values.append(int.from_bytes(payload[body : body + width], "big") if kind < 7 else None)
            body += width
        elif kind in (0, 8, 9):
            values.append(None if kind == 0 else kind - 8)
        elif kind >= 12:
            width = (kind - 12) // 2
            chunk = payload[body : body + width]
            values.append(chunk.decode("utf-8", "replace") if kind % 2 else chunk)
            body += width
        else:
            return None
    return values


_CREATE = re.compile(
    r"""CREATE\s+(?:TEMP(?:ORARY)?\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"""
    r"""(?:["`\[]?\w+["`\]]?\s*\.\s*)?["`\[]?(?P<name>[\w$]+)["`\]]?\s*\(""",
    re.IGNORECASE,
)
_COMMENT = re.compile(r"--[^\n]*|/\*.*?(?:\*/|$)", re.DOTALL)
_WORD = re.compile(r"""["`\[]?([\w$]+)""")  # after the definition's leading blanks
_CONSTRAINTS = frozenset({"primary", "foreign", "unique", "check", "constraint"})


def _create_table(sql: str) -> tuple[str, tuple[str, ...]]:
    """The table name and column names of one ``CREATE TABLE`` statement."""
    sql = _COMMENT.sub(" ", sql.lstrip())
    found = _CREATE.match(sql)
    if not found:
        return "", ()
    return found.group("name").casefold(), _columns(sql, found.end())


def _columns(sql: str, start: int) -> tuple[str, ...]:
    columns: list[str] = []
    depth, item = 0, list[str]()
    for char in sql[start : start + MAX_STATEMENT]:
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                break
            depth -= 1
        elif char == "," and depth == 0:
            columns.append("".join(item))
            item = []
            continue
        item.append(char)
    columns.append("".join(item))
    out = []
    for definition in columns:
        word = _WORD.match(definition.lstrip())
        if word and word.group(1).casefold() not in _CONSTRAINTS:
            out.append(word.group(1).casefold())
    return tuple(out)


def _scan(data: bytes) -> Tables:
    """``CREATE TABLE`` statements found as text in the bytes (a schema the walk missed)."""
    out: Tables = {}
    for found in _iter_creates(data):
        name, columns = _create_table(found)
        if name and name not in out:
            out[name] = columns
        if len(out) >= MAX_TABLES:
            break
    return out


def _iter_creates(data: bytes) -> Iterator[str]:
    at, seen = data.find(b"CREATE TABLE"), 0
    while at >= 0 and seen < MAX_TABLES:
        seen += 1
        yield data[at : at + MAX_STATEMENT].decode("utf-8", "replace")
        at = data.find(b"CREATE TABLE", at + 12)
