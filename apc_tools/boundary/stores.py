"""BDB: binary runtime stores, by their magic bytes (only the first bytes are read).

An SQLite database is runtime state when it is an agent tool's store: Cursor's and VS Code's
`state.vscdb` (table `cursorDiskKV`, `ItemTable`), a database under an agent tool's folder, or
one of the tools' store names. Applications commit SQLite test databases on purpose, so an
SQLite file elsewhere is not reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import PurePosixPath

from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.findings import Severity

STORE = rule(
    "BDB001",
    "runtime-store",
    Severity.ERROR,
    "A binary runtime store of an agent tool: an SQLite database such as Cursor's "
    "`state.vscdb`, or a database under an agent tool's folder.",
    "Agent tools keep chats, tool results and settings in SQLite stores; a committed copy "
    "carries all of it. Remove it (`git rm --cached`), add the path to `.gitignore`, and "
    "rewrite the branch if it was pushed.",
    "tests/fixtures/app.sqlite   (an application's own test database)",
    ".cursor/state.vscdb   (SQLite format 3, table cursorDiskKV)",
)
RULES = (STORE,)

SQLITE_MAGIC = b"SQLite format 3\x00"
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
        "globalstorage",
        "workspacestorage",
    }
)
STORE_NAMES = frozenset(
    {"state.vscdb", "opencode.db", "session-store.db", "store.db", "memory.db", "project.db"}
)
AGENT_TABLES = (b"cursorDiskKV", b"composerData", b"bubbleId", b"agent_messages")


def detect_store(blob: BlobView, forced: bool = False) -> Iterator[Detection]:
    if not blob.data.startswith(SQLITE_MAGIC):
        return
    parts = PurePosixPath(blob.low).parts
    folders = set(parts[:-1])
    agent_folder = bool(folders & AGENT_FOLDERS) or any(p.startswith(".aider") for p in parts[:-1])
    tables = [t.decode() for t in AGENT_TABLES if t in blob.data]
    if not (forced or agent_folder or blob.name in STORE_NAMES or tables):
        return
    why = f"tables {', '.join(tables)}" if tables else "under an agent tool's folder"
    yield Detection(
        STORE,
        f"SQLite runtime store ({why}): `git rm --cached` it and add the path to .gitignore",
        match="sqlite",
    )
