"""BDB: binary runtime stores, known by their content wherever they lie (issue 29, rule 2).

- An SQLite database whose schema is a conversation store (read from the bytes by
  :mod:`.sqlite_schema`, never opened): a message table with a role column, LangGraph's
  checkpoint tables, Zed's threads, Cursor's and VS Code's `cursorDiskKV`/`ItemTable`, OpenCode's
  session/message/part; or any SQLite database under an agent tool's folder. A database is never
  judged by its name: an application's test database elsewhere is not reported.
- Its write-ahead log (`-wal`, magic 0x377f0682/3) when the log's own page 1 holds such a
  schema or it lies in an agent folder; a `-wal`/`-shm`/`-journal` beside a reported database is
  reported with it (:func:`siblings`, run by the engine over the findings of one commit).
- A pickle stream that names LangGraph's checkpoint keys (the LangGraph API dev server's
  `.langgraph_checkpoint.N.pckl`, `PersistentDict` of `langgraph.checkpoint.memory`): its opcodes
  are read with :mod:`pickletools` (nothing is unpickled).
- Inside an agent tool's folder: LevelDB/IndexedDB tables and logs, H2 MVStore files, Xodus
  logs and protobuf conversation files (`*.pb`), which hold chats of editor-based agents.

Each format, the tool it was learnt from and the source file are listed in docs/boundary.md
("A store is known by its content").
"""

from __future__ import annotations

import pickletools
import struct
from collections.abc import Iterable, Iterator
from pathlib import PurePosixPath

from apc_tools.boundary import sqlite_schema
from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.findings import Severity

STORE = rule(
    "BDB001",
    "runtime-store",
    Severity.ERROR,
    "A binary runtime store of an agent tool: an SQLite database whose schema is a "
    "conversation store (Crush, LangGraph checkpoints, Zed threads, Cursor's `state.vscdb`, ...) "
    "at any path, its -wal/-shm files, a pickled LangGraph checkpoint, or an embedded store "
    "(SQLite, LevelDB, MVStore, Xodus, protobuf) under an agent tool's folder.",
    "Agent tools keep chats, tool results and settings in SQLite stores; a committed copy "
    "carries all of it. Remove it (`git rm --cached`), add the path to `.gitignore`, and "
    "rewrite the branch if it was pushed.",
    "testdata/memory.db   (an application's test database: tables users, items)",
    "data/agent.db   (SQLite, table messages(id, session_id, role, parts, ...))",
)
RULES = (STORE,)

SQLITE_MAGIC = sqlite_schema.HEADER
# The wal-index header of a `-shm` file starts with its version, 3007000, in the writer's byte
# order (https://www.sqlite.org/walformat.html section 2.1).
SHM_MAGICS = ((3007000).to_bytes(4, "little"), (3007000).to_bytes(4, "big"))
LEVELDB_TABLE_MAGIC = (0xDB4775248B80FB57).to_bytes(8, "little")  # the last 8 bytes of a table
H2_MAGIC = b"H:2,"  # an MVStore file header ("H:2,block:...,blockSize:...")
PICKLE_PROTOCOLS = tuple(bytes([0x80, n]) for n in range(2, 6))
# Every blob this module reports is binary (always read) or starts with one of these.
NEEDLES: tuple[bytes, ...] = (SQLITE_MAGIC,)  # holds a NUL: binary, always read by the prefilter
AGENT_FOLDERS = frozenset(
    {
        ".apc",
        ".apx",
        ".claude",
        ".codex",
        ".gemini",
        ".cursor",
        ".continue",
        ".copilot",
        ".cline",
        ".roo",
        ".opencode",
        "opencode",
        ".codeium",
        ".specstory",
        ".windsurf",
        ".crush",
        ".qwen",
        ".goose",
        ".augment",
        ".kiro",
        ".langgraph_api",
        "globalstorage",
        "workspacestorage",
    }
)
AGENT_TABLES = (b"cursorDiskKV", b"composerData", b"bubbleId", b"agent_messages")
MESSAGE_TABLES = frozenset(
    {
        "messages",
        "message",
        "chat_messages",
        "conversation_messages",
        "thread_messages",
        "session_messages",
        "chat_history",
        "message_store",
        "agent_messages",
        "turns",
    }
)
ROLE_COLUMNS = frozenset({"role", "sender_role", "author_role", "message_role", "speaker"})
CONTENT_COLUMNS = frozenset(
    {"content", "parts", "text", "body", "data", "message", "content_json", "blocks"}
)
LINKS = frozenset({"session_id", "thread_id", "conversation_id", "chat_id", "sessionid"})
SIDE_SUFFIXES = ("-wal", "-shm", "-journal")
MAX_PICKLE_OPS = 20000
CHECKPOINT_KEYS = (b"channel_values", b"channel_versions", b"versions_seen")
PICKLE_NAMES = frozenset(
    {"msgpack", "messages", "__start__", "run_id", "thread_id", "assistant_id"}
)


def conversation_schema(tables: sqlite_schema.Tables) -> str:
    """What makes ``tables`` a conversation store ("" if nothing does)."""
    for name, columns in tables.items():
        cols = set(columns)
        if name in MESSAGE_TABLES and cols & ROLE_COLUMNS and cols & (CONTENT_COLUMNS | LINKS):
            return f"table {name}({', '.join(sorted(cols & (ROLE_COLUMNS | CONTENT_COLUMNS)))})"
        if "thread_id" in cols and ({"checkpoint", "checkpoint_id"} <= cols or "channel" in cols):
            return f"LangGraph checkpoint table {name}"
        if name == "threads" and {"summary", "data_type", "data"} <= cols:
            return "Zed agent threads"
        if name in ("cursordiskkv", "itemtable") and {"key", "value"} <= cols:
            return f"table {name}"
    message = tables.get("message", ())
    if "session" in tables and "part" in tables and "session_id" in message:
        return "OpenCode session/message/part"
    return ""


def in_agent_folder(low: str) -> bool:
    parts = PurePosixPath(low).parts[:-1]
    return bool(set(parts) & AGENT_FOLDERS) or any(p.startswith(".aider") for p in parts)


def detect_store(blob: BlobView, forced: bool = False) -> Iterator[Detection]:
    data = blob.data
    agent_folder = in_agent_folder(blob.low)
    why = ""
    if data.startswith(SQLITE_MAGIC):
        what = conversation_schema(sqlite_schema.tables(data))
        legacy = [t.decode() for t in AGENT_TABLES if t in data]
        if what or legacy:
            why = f"SQLite conversation store ({what or 'tables ' + ', '.join(legacy)})"
        elif agent_folder or forced:
            why = "SQLite runtime store (under an agent tool's folder)"
    elif data[:4] in sqlite_schema.WAL_MAGICS:
        what = conversation_schema(sqlite_schema.wal_tables(data))
        if what:
            why = f"SQLite write-ahead log of a conversation store ({what})"
        elif agent_folder or forced:
            why = "SQLite write-ahead log (under an agent tool's folder)"
    elif data[:2] in PICKLE_PROTOCOLS:
        why = _checkpoint_pickle(data)
        if not why and (agent_folder or forced):
            why = "pickled runtime state (under an agent tool's folder)"
    elif agent_folder or forced:
        why = _embedded(blob)
    if why:
        yield Detection(
            STORE,
            f"{why}: `git rm --cached` it and add the path to .gitignore",
            # a database keeps the fingerprint it had before stores were judged by content
            match="sqlite" if data.startswith(SQLITE_MAGIC) else "store",
        )


def _embedded(blob: BlobView) -> str:
    """An embedded store's file that agent tools keep in their folders ("" if none)."""
    data, name = blob.data, blob.name
    if data[:4] in SHM_MAGICS and name.endswith("-shm"):
        return "SQLite shared-memory index"
    if blob.complete and data.endswith(LEVELDB_TABLE_MAGIC):
        return "LevelDB table"
    if "leveldb" in blob.low and (name.startswith("manifest-") or name.endswith((".log", ".ldb"))):
        return "LevelDB log"
    if data.startswith(H2_MAGIC):
        return "H2 MVStore file"
    if name.endswith(".xd"):
        return "Xodus log"
    if name.endswith(".pb"):
        return "protobuf conversation file"
    return ""


def _checkpoint_pickle(data: bytes) -> str:
    """What LangGraph state a pickle stream holds ("" if none), from its opcodes alone
    (:func:`pickletools.genops` never builds an object): checkpoints name their keys
    (``channel_values``, ``channel_versions``, ``versions_seen``, often inside msgpack bytes
    held by the pickle), pending writes pair the ``msgpack`` serde tag with a channel name,
    the API server's run store names ``run_id``/``thread_id``/``assistant_id``."""
    keys: set[bytes] = set()
    exact: set[str] = set()
    try:
        for count, (_, arg, _) in enumerate(pickletools.genops(data)):
            if count > MAX_PICKLE_OPS:
                break
            if isinstance(arg, str):
                if arg in PICKLE_NAMES:
                    exact.add(arg)
                arg = arg.encode("utf-8", "replace")
            if isinstance(arg, bytes):
                keys.update(k for k in CHECKPOINT_KEYS if k in arg)
                if len(keys) >= 2:
                    break
    except (ValueError, IndexError, EOFError, OverflowError, struct.error):  # cut or damaged
        pass
    if len(keys) >= 2:
        return "pickled LangGraph checkpoints (channel_values, channel_versions)"
    if {"msgpack", "messages"} <= exact or {"msgpack", "__start__"} <= exact:
        return "pickled LangGraph checkpoint writes or channel values (msgpack)"
    if {"run_id", "thread_id", "assistant_id"} <= exact:
        return "pickled LangGraph API runs and threads"
    return ""


def main_path(path: str) -> str:
    """The database a `-wal`/`-shm`/`-journal` file belongs to (``path`` itself otherwise)."""
    for suffix in SIDE_SUFFIXES:
        if path.endswith(suffix):
            return path[: -len(suffix)]
    return path


def siblings(reported: Iterable[str], present: Iterable[str]) -> dict[str, str]:
    """The files of ``present`` that belong with a reported store: a database and its
    `-wal`/`-shm`/`-journal` are one store (the schema may sit in either; a SHM has no
    header), so when one of them is reported the others are too. Path -> the reported one."""
    done = set(reported)
    by_main = {main_path(path): path for path in sorted(done)}
    return {
        path: by_main[main_path(path)]
        for path in present
        if path not in done and main_path(path) in by_main
    }


def side_detection(path: str, store: str) -> Detection:
    return Detection(
        STORE,
        f"SQLite file of the same runtime store as {store} (a database and its -wal/-shm are "
        "one store): `git rm --cached` them all and add them to .gitignore",
        match="store",
    )
