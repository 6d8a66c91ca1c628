"""Issue 29, rules 2 and 3: a store is known by its content and a session by its records,
wherever they lie and whatever tool wrote them; each shape with a clean twin that must pass.

Where the shapes come from (each built here with the standard library from the tool's own
source, none copied from anyone's data):

- Crush: the schema of charmbracelet/crush `internal/db/migrations/20250424200609_initial.sql`
  (commit 37f36e93824e5c4f892e4a817f7f628e2682fe14), the database in WAL mode as Crush opens it.
- LangGraph: `SqliteSaver.setup` of langchain-ai/langgraph
  `libs/checkpoint-sqlite/langgraph/checkpoint/sqlite/__init__.py` and `PersistentDict.dump`
  (`pickle.dump(dict(self), f, 2)`) of `libs/checkpoint/langgraph/checkpoint/memory/__init__.py`
  (commit f09cfe8ffc1eeffd68f4b628ed69c30f7cad229f), which the LangGraph API dev server writes as
  `.langgraph_api/.langgraph_checkpoint.N.pckl` (checkpoints as msgpack bytes).
- Zed: `ThreadsDatabase` of zed-industries/zed `crates/agent/src/db.rs` (table `threads`).
- OpenCode: `session.sql.ts` of sst/opencode `packages/opencode/src/session/` (session, message,
  part with a JSON `data` column).
- Goose: block/goose `crates/goose/src/session/storage.rs` (e3e6f126): a JSON Lines session whose
  first line is `SessionMetadata` (working_dir, description, message_count, ...) and the rest
  `Message`s (role, created, content blocks text/toolRequest/toolResponse).
- fluux-agent: processone/fluux-agent `docs/SESSION_FORMAT.md` (a `session` header, then
  `message` lines with role, content, ts).
- Gemini CLI: the chat file of `~/.gemini/tmp/<hash>/chats/` (sessionId, projectHash, startTime,
  messages) and the prompt log `logs.json` (`[{sessionId, messageId, type: "user", message,
  timestamp}]`), as google-gemini/gemini-cli `packages/core/src/services/chatRecordingService.ts`
  and `packages/core/src/core/logger.ts` write them.
"""

from __future__ import annotations

import itertools
import json
import pickle
import sqlite3
from pathlib import Path

from apc_tools.findings import Finding, Severity
from tests.boundary.helpers import commit, findings, jsonl, live_clis, repo
from tests.conftest import run_apc

CRUSH_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    created_at INTEGER NOT NULL   -- Unix timestamp in milliseconds
);
CREATE TABLE IF NOT EXISTS files (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    path TEXT NOT NULL,
    content TEXT NOT NULL,
    version INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE,
    UNIQUE(path, session_id, version)
);
CREATE TABLE IF NOT EXISTS messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]',
    model TEXT,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    finished_at INTEGER,  -- Unix timestamp in milliseconds
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
"""
LANGGRAPH_SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT,
    type TEXT,
    checkpoint BLOB,
    metadata BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL,
    checkpoint_ns TEXT NOT NULL DEFAULT '',
    checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL,
    idx INTEGER NOT NULL,
    channel TEXT NOT NULL,
    type TEXT,
    value BLOB,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
"""
ZED_SCHEMA = """
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY,
    summary TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    data_type TEXT NOT NULL,
    data BLOB NOT NULL
)
"""
OPENCODE_SCHEMA = """
CREATE TABLE session (id text PRIMARY KEY, project_id text NOT NULL, title text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL);
CREATE TABLE message (id text PRIMARY KEY, session_id text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
CREATE TABLE part (id text PRIMARY KEY, message_id text NOT NULL, session_id text NOT NULL,
    time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL);
"""
APP_SCHEMA = """
CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT);
CREATE TABLE items (id INTEGER PRIMARY KEY, user_id INTEGER, title TEXT, body TEXT);
CREATE TABLE messages (id INTEGER PRIMARY KEY, user_id INTEGER, body TEXT, sent_at TEXT);
"""


_NUMBER = itertools.count()


def errors(found: list[Finding], path: str) -> set[str]:
    return {f.rule for f in found if f.path == path and f.severity is Severity.ERROR}


def database(tmp: Path, schema: str, rows: int = 40, wal: bool = False) -> dict[str, bytes]:
    """A real SQLite file (and, in WAL mode, its -wal and -shm as SQLite left them open)."""
    path = tmp / f"db{next(_NUMBER)}.sqlite"
    connection = sqlite3.connect(path)
    if wal:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA wal_autocheckpoint=0")
    connection.executescript(schema)
    table = "messages" if "messages (" in schema else None
    if table and "role TEXT" in schema:
        for i in range(rows):
            connection.execute(
                "INSERT INTO messages (id, session_id, role, parts, created_at, updated_at) "
                "VALUES (?, 's1', ?, ?, 1, 1)",
                (str(i), "user" if i % 2 else "assistant", json.dumps([{"text": "x" * 500}])),
            )
    connection.commit()
    out = {"": path.read_bytes()}
    for side in ("-wal", "-shm"):
        if Path(f"{path}{side}").exists():
            out[side] = Path(f"{path}{side}").read_bytes()
    connection.close()
    return out


# --------------------------------------------------------------------------- stores by content


def test_a_crush_store_and_its_wal_and_shm_at_any_path(tmp_path: Path) -> None:
    db = database(tmp_path, CRUSH_SCHEMA, wal=True)
    assert db["-wal"][:4] in (b"\x37\x7f\x06\x82", b"\x37\x7f\x06\x83") and "-shm" in db
    files = {
        "data/agent.db": db[""],
        "data/agent.db-wal": db["-wal"],
        "data/agent.db-shm": db["-shm"],
    }
    found = findings(repo(tmp_path, files))
    for path in files:
        assert errors(found, path) == {"BDB001"}, (path, found)


def test_a_wal_alone_is_known_by_the_schema_in_its_frames(tmp_path: Path) -> None:
    db = database(tmp_path, CRUSH_SCHEMA, wal=True)
    files = {"backup/x-wal": db["-wal"], "backup/x-shm": db["-shm"], "other/y-shm": db["-shm"]}
    found = findings(repo(tmp_path, files))
    assert errors(found, "backup/x-wal") == {"BDB001"}
    assert errors(found, "backup/x-shm") == {"BDB001"}  # judged with its WAL
    assert errors(found, "other/y-shm") == set()  # no header, no main file, no agent folder


def test_langgraph_zed_and_opencode_schemas(tmp_path: Path) -> None:
    files = {
        "checkpoints.sqlite": database(tmp_path, LANGGRAPH_SCHEMA)[""],
        "state/threads.db": database(tmp_path, ZED_SCHEMA)[""],
        "var/opencode-copy.bin": database(tmp_path, OPENCODE_SCHEMA)[""],
    }
    found = findings(repo(tmp_path, files))
    for path in files:
        assert errors(found, path) == {"BDB001"}, path


def test_an_application_database_is_not_judged_by_its_name(tmp_path: Path) -> None:
    app = database(tmp_path, APP_SCHEMA, wal=True)
    files = {
        "testdata/memory.db": app[""],
        "testdata/memory.db-wal": app["-wal"],
        "testdata/memory.db-shm": app["-shm"],
        "tests/fixtures/session-store.db": app[""],
    }
    found = findings(repo(tmp_path, files))
    assert [f for f in found if f.rule == "BDB001"] == []


def test_a_large_store_with_an_interior_schema_page(tmp_path: Path) -> None:
    tables = "".join(
        f"CREATE TABLE t{i} (id INTEGER PRIMARY KEY, v{'w' * 300} TEXT);" for i in range(60)
    )
    leak = database(tmp_path, tables + CRUSH_SCHEMA)[""]
    clean = database(tmp_path, tables + APP_SCHEMA)[""]
    found = findings(repo(tmp_path, {"a/leak.db": leak, "a/clean.db": clean}))
    assert errors(found, "a/leak.db") == {"BDB001"}
    assert errors(found, "a/clean.db") == set()


def _langgraph_pickle(checkpoint: bool) -> bytes:
    """The shape `PersistentDict.dump` pickles: thread -> namespace -> checkpoint id ->
    ((serde type, msgpack bytes), (type, metadata), parent)."""
    body = (
        b"\x86\xa1v\x04\xa2ts\xb92026-03-20T08:28:49+00:00\xaechannel_values\x81\xa8messages\x90"
        b"\xb0channel_versions\x80\xadversions_seen\x80"
    )
    if not checkpoint:
        body = b"\x93\x01\x02\x03"
    storage = {"a4f69d66": {"": {"1f12436d": (("msgpack", body), ("msgpack", b"\x80"), None)}}}
    return pickle.dumps(storage, 2)


def test_pickled_langgraph_checkpoints_are_read_by_opcodes_not_unpickled(tmp_path: Path) -> None:
    weights = pickle.dumps({"weights": [0.1, 0.2], "bias": 0.3, "messages": 2}, 2)
    files = {
        "state/graph.pckl": _langgraph_pickle(True),
        "models/model.pkl": weights,
        "models/other.pkl": _langgraph_pickle(False),
    }
    found = findings(repo(tmp_path, files))
    assert errors(found, "state/graph.pckl") == {"BDB001"}
    assert errors(found, "models/model.pkl") == set()
    assert errors(found, "models/other.pkl") == set()


def test_a_hostile_sqlite_header_is_no_traceback(tmp_path: Path) -> None:
    page = bytearray(database(tmp_path, CRUSH_SCHEMA)[""][:4096])
    page[100] = 0x05  # an interior page pointing at itself and nowhere
    page[108:112] = (1).to_bytes(4, "big")
    loop = bytes(page)
    cut = database(tmp_path, CRUSH_SCHEMA)[""][:300]
    found = findings(repo(tmp_path, {"x/loop.db": loop, "x/cut.db": cut}))
    assert not [f for f in found if f.rule.startswith("BIO") and f.severity is Severity.ERROR]


# --------------------------------------------------------------------------- sessions by records


GOOSE = jsonl(
    {"working_dir": "/home/u/p", "description": "fix tests", "schedule_id": None,
     "message_count": 3, "total_tokens": 1200},
    {"id": "m1", "role": "user", "created": 1740000000,
     "content": [{"type": "text", "text": "run the tests"}]},
    {"id": "m2", "role": "assistant", "created": 1740000003,
     "content": [{"type": "toolRequest", "id": "t1", "toolCall": {"status": "success"}}]},
    {"id": "m3", "role": "user", "created": 1740000004,
     "content": [{"type": "toolResponse", "id": "t1", "toolResult": {"status": "success"}}]},
)  # fmt: skip
FLUUX = jsonl(
    {"type": "session", "version": 1, "created": "2025-02-08T19:00:00Z", "jid": "a@example.com"},
    {"type": "message", "role": "user", "content": "Hello!", "msg_id": "a",
     "ts": "2025-02-08T19:00:01Z"},
    {"type": "message", "role": "assistant", "content": "Hi!", "msg_id": "b",
     "ts": "2025-02-08T19:00:02Z"},
)  # fmt: skip
ZED_THREAD = json.dumps(
    {
        "summary": "Refactor the parser",
        "updated_at": "2025-05-01T10:00:00Z",
        "version": "0.2.0",
        "messages": [
            {"id": 0, "role": "user", "segments": [{"type": "text", "text": "refactor it"}],
             "tool_uses": [], "tool_results": []},
            {"id": 1, "role": "assistant", "segments": [{"type": "text", "text": "reading"}],
             "tool_uses": [{"id": "t1", "name": "read_file", "input": {}}], "tool_results": []},
            {"id": 2, "role": "user", "segments": [],
             "tool_uses": [], "tool_results": [{"tool_use_id": "t1", "content": "..."}]},
        ],
    },
    indent=2,
)  # fmt: skip
PROMPT_LOG = json.dumps(
    [
        {"sessionId": "9f0c", "messageId": i, "type": "user", "message": f"prompt {i}",
         "timestamp": f"2025-07-01T10:0{i}:00Z"}
        for i in range(3)
    ],
    indent=2,
)  # fmt: skip
# The clean twins: what SDKs commit as fixtures (a request body with tool calls, a recorded
# request/response pair, a fine-tuning line): no session identity.
REQUEST = json.dumps(
    {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "weather?"},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "w"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
    }
)  # fmt: skip
RECORDING = json.dumps(
    [
        {"request": {"messages": [{"role": "user", "content": "hi"}], "created_at": 1},
         "response": {"role": "assistant", "content": "hello", "created_at": 2,
                      "thread_id": "t"}},
    ]
)  # fmt: skip
FINE_TUNE = jsonl(
    {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]},
    {"messages": [{"role": "user", "content": "c"}, {"role": "assistant", "content": "d"}]},
)


def test_sessions_of_formats_no_table_names_are_errors(tmp_path: Path) -> None:
    files = {
        "notes/goose.jsonl": GOOSE,
        "history/2025.jsonl": FLUUX,
        "export/thread.json": ZED_THREAD,
        "docs/logs.json": PROMPT_LOG,
    }
    found = findings(repo(tmp_path, files))
    for path in files:
        assert errors(found, path) == {"BTR001"}, (path, found)


def test_sdk_fixtures_stay_warnings(tmp_path: Path) -> None:
    files = {
        "tests/fixtures/request.json": REQUEST,
        "tests/fixtures/recording.json": RECORDING,
        "data/train.jsonl": FINE_TUNE,
    }
    found = findings(repo(tmp_path, files))
    for path in files:
        assert errors(found, path) == set(), (path, found)
    assert {f.rule for f in found if f.path == "tests/fixtures/request.json"} == {"BTR002"}


def _gemini_chat(messages: int) -> str:
    return json.dumps(
        {
            "sessionId": "8a20078e-2d5e-4f81-a640-9b879bbb7e6d",
            "projectHash": "ab14fe397f91d5f283525b3178d2314aef552f761131c42172a21b7bf735e73d",
            "startTime": "2026-03-27T10:19:12.584Z",
            "lastUpdated": "2026-03-27T10:22:00.022Z",
            "messages": [
                {
                    "id": f"m{i}",
                    "timestamp": "2026-03-27T10:19:12.584Z",
                    "type": "user" if i % 2 == 0 else "gemini",
                    "content": [{"text": "explain the build " * 40}],
                }
                for i in range(messages)
            ],
        },
        indent=2,
    )


def test_a_pretty_printed_session_longer_than_the_read_window(tmp_path: Path) -> None:
    big = _gemini_chat(2600)
    assert len(big) > 2_000_000
    geo = json.dumps({"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"name": f"p{i}", "role": "user"},
         "geometry": {"type": "Point", "coordinates": [i, i]}} for i in range(30000)
    ]}, indent=2)  # fmt: skip
    assert len(geo) > 2_000_000
    found = findings(repo(tmp_path, {"chats/session.json": big, "maps/points.json": geo}))
    assert errors(found, "chats/session.json") == {"BTR001"}
    assert errors(found, "maps/points.json") == set()


def test_a_tokenizer_vocab_is_no_gemini_session(tmp_path: Path) -> None:
    vocab = {f"tok{i}": i for i in range(2000)}
    vocab.update({"history": 7001, "start_time": 7002, "meta": 7003, "lastUpdated": 7004})
    drift = {
        "history": [{"role": "user", "parts": [{"text": "a"}]}, {"role": "gemini", "parts": []}],
        "meta": {"model": "gemini-pro"},
        "start_time": "2025-12-16T23:47:00.000Z",
    }
    root = repo(
        tmp_path, {"tokenizer/vocab.json": json.dumps(vocab), "x/chat.json": json.dumps(drift)}
    )
    found = findings(root)
    assert errors(found, "tokenizer/vocab.json") == set()
    assert errors(found, "x/chat.json") == {"BTR001"}


def test_through_the_command_line(tmp_path: Path) -> None:
    db = database(tmp_path, CRUSH_SCHEMA, wal=True)
    root = repo(
        tmp_path, {"store/agent.db": db[""], "store/agent.db-wal": db["-wal"], "s.jsonl": GOOSE}
    )
    done = run_apc(root, "boundary", "--tracked", "--format", "json", "--no-cache", timeout=120)
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    at = {(f["rule"], f["path"]) for f in report["findings"] if f["severity"] == "error"}
    assert at == {
        ("BDB001", "store/agent.db"),
        ("BDB001", "store/agent.db-wal"),
        ("BTR001", "s.jsonl"),
    }
    assert "run the tests" not in done.stdout  # never a line of the session


def test_embedded_stores_in_an_agent_folder_and_their_clean_twins(tmp_path: Path) -> None:
    table = b"\x00" * 64 + (0xDB4775248B80FB57).to_bytes(8, "little")  # a LevelDB table's footer
    log = b"\x8a\x1c\x00\x00\x10\x00\x01" + b"\x00" * 40  # a LevelDB log record
    mvstore = b"H:2,block:2,blockSize:1000,chunk:1,created:18a\n" + b"\x00" * 64
    proto = b"\x0a\x24" + b"3f2b\x00" * 8
    pickled = pickle.dumps({"seen": 1}, 2)
    stores = {
        "Local Storage/leveldb/000005.ldb": table,
        "Local Storage/leveldb/000003.log": log,
        "ai/chat.mv.db": mvstore,
        "conversations/0c1d.pb": proto,
        "state/cache.pkl": pickled,
    }
    files = {f".goose/{path}": data for path, data in stores.items()}
    files.update({f"vendor/app/{path}": data for path, data in stores.items()})
    found = findings(repo(tmp_path, files))
    for path in stores:
        assert errors(found, f".goose/{path}") == {"BDB001"}, path
        assert errors(found, f"vendor/app/{path}") == set(), path


def test_hostile_stores_give_no_traceback(tmp_path: Path) -> None:
    header = database(tmp_path, APP_SCHEMA)[""][:100]
    many = header + b"CREATE TABLE messages(role TEXT, content TEXT);" * 200_000  # no b-tree
    broken = b"\x80\x04\x95" + b"\xff" * 64  # a pickle header, then no valid opcode
    cut = _langgraph_pickle(True)[:40]
    wal = b"\x37\x7f\x06\x82" + b"\x00\x2d\xe2\x18" + (4096).to_bytes(4, "big") + b"\x01" * 5000
    files = {"a/many.db": many, "a/broken.pkl": broken, "a/cut.pckl": cut, "a/x.db-wal": wal}
    done = run_apc(repo(tmp_path, files), "boundary", "--format", "json", timeout=120)
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    at = {(f["rule"], f["path"]) for f in json.loads(done.stdout)["findings"]}
    assert ("BDB001", "a/many.db") in at  # the CREATE TABLE text is found without the b-tree


def test_a_side_file_changed_alone_is_judged_with_its_unchanged_database(tmp_path: Path) -> None:
    main = database(tmp_path, CRUSH_SCHEMA)[""]  # the schema in the database itself
    wal = b"\x37\x7f\x06\x82\x00\x2d\xe2\x18" + (4096).to_bytes(4, "big") + b"\x00" * 20
    root = repo(tmp_path, {"s/a.db": main, "s/a.db-wal": wal, "s/notes.txt": "x\n"})
    first = findings(root)  # fills the caches
    assert errors(first, "s/a.db-wal") == {"BDB001"}
    commit(root, {"s/a.db-wal": wal + b"\x01" * 24})  # only the WAL changes
    warm = findings(root)
    cold = findings(root, cache=False)
    assert errors(warm, "s/a.db-wal") == errors(cold, "s/a.db-wal") == {"BDB001"}
    assert errors(warm, "s/a.db") == errors(cold, "s/a.db") == {"BDB001"}


REAL = Path(__file__).parent / "data" / "stores" / "langgraph"


def test_stores_the_real_langgraph_wrote(tmp_path: Path) -> None:
    """tests/boundary/data/stores/langgraph/README.md: LangGraph 1.2.24's own files, renamed
    and moved out of any agent folder, and a clean twin (an application's pickled cache)."""
    files: dict[str, str | bytes] = {
        "state/graph.sqlite": (REAL / "checkpoints.sqlite").read_bytes(),
        "cache/app.pkl": pickle.dumps({"hits": 3, "keys": ["a", "b"]}, 2),
    }
    for n in (1, 2, 3):
        files[f"runs/store.{n}.bin"] = (REAL / f".langgraph_checkpoint.{n}.pckl").read_bytes()
    found = findings(repo(tmp_path, files))
    for path in files:
        assert errors(found, path) == (set() if path == "cache/app.pkl" else {"BDB001"}), path


def test_a_long_chat_the_real_gemini_cli_wrote(tmp_path: Path) -> None:
    """Gemini CLI (the conformance tier's install, a mock model answering 2.8 MB) writes its
    chat as JSON Lines; before 0.40 it wrote the same records as one pretty-printed document
    (`session-*.json`: sessionId, projectHash, startTime, lastUpdated, messages). Both, renamed
    and moved, are sessions; the document is longer than the read window."""
    harness, project, home = live_clis(tmp_path)
    reply = " ".join(f"line {i} of a long explanation of the build." for i in range(60000))
    script = harness.Script([harness.Text(reply)])
    with harness.MockServer(script) as mock:
        harness.run_gemini(project, home, mock, "explain the build in detail")
    (chat,) = home.glob(".gemini/tmp/*/chats/session-*.jsonl")
    lines = [json.loads(line) for line in chat.read_text().splitlines() if line.strip()]
    head = lines[0]
    messages = [r for r in lines if "type" in r and "id" in r]
    document = json.dumps({**head, "messages": messages}, indent=2)
    assert len(document) > 2_000_000 and head.get("sessionId") and head.get("projectHash")
    files = {
        "notes/run.jsonl": chat.read_bytes(),
        "notes/run.json": document,
        "data/big.json": json.dumps({"rows": [{"line": reply[:200]}] * 12000}, indent=2),
    }
    found = findings(repo(tmp_path, files, name="leaks"))
    assert errors(found, "notes/run.jsonl") == {"BTR001"}
    assert errors(found, "notes/run.json") == {"BTR001"}
    assert errors(found, "data/big.json") == set()
