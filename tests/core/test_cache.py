"""core/cache.py: the result store. Real SQLite files in temporary folders, real processes."""

from __future__ import annotations

import os
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from apc_tools.core import cache as store
from apc_tools.core.cache import Cache, key

ROOT = Path(__file__).resolve().parents[2]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture
def home(xdg: Path) -> Path:
    return xdg


def db_path(home: Path) -> Path:
    return home / "apc-tools" / "results" / "cache.sqlite3"


def test_round_trip_persists_across_opens(home: Path) -> None:
    items = {key("a", str(i)): f"value {i}".encode() for i in range(10)}
    with Cache.open("ns") as cache:
        assert cache.enabled, cache.error
        assert cache.get_many(list(items)) == {}
        cache.put_many(items)
    with Cache.open("ns") as cache:
        wanted = [*items, key("absent")]
        assert cache.get_many(wanted) == items
        assert cache.hits == 10 and cache.misses == 1
    with Cache.open("other") as cache:  # namespaces never see each other's entries
        assert cache.get_many(list(items)) == {}
    assert store.database_path() == db_path(home)


def test_location_and_permissions(home: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key("x"): b"1"})
    path = db_path(home)
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_relative_xdg_is_ignored(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert store.cache_root() == tmp_path / ".cache" / "apc-tools"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert store.cache_root() == tmp_path / ".cache" / "apc-tools"


def test_key_is_stable_and_parts_never_run_together() -> None:
    assert key("ab", "c") == key("ab", "c")
    assert key("ab", "c") != key("a", "bc")
    assert key("a", b"b") == key("a", "b")
    assert len(key("x")) == 24


def test_keyers_make_the_same_keys() -> None:
    assert store.keyer("a", "b")("c", "d") == key("a", "b", "c", "d")
    assert store.text_keyer("a", "b")("c\0d") == key("a", "b", "c\0d")
    assert store.text_keyer("a")("b") != key("ab")


def test_version_is_part_of_every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = key("same")
    monkeypatch.setattr(store, "__version__", "99.0.0")
    assert key("same") != before


def test_code_digest_is_part_of_every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    before = key("same")
    monkeypatch.setattr(store, "_code_digest", b"another checkout")
    assert key("same") != before


@pytest.mark.parametrize("how", ["argument", "env"])
def test_disabled_writes_nothing(home: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    if how == "env":
        monkeypatch.setenv(store.NO_CACHE_ENV, "1")
    with Cache.open("ns", enabled=how != "argument") as cache:
        assert not cache.enabled
        cache.put_many({key("x"): b"1"})
        assert cache.get_many([key("x")]) == {}
    assert not home.exists()


@pytest.mark.parametrize("value", ["", "0", "false", "no"])
def test_env_values_that_keep_the_cache(
    home: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(store.NO_CACHE_ENV, value)
    with Cache.open("ns") as cache:
        assert cache.enabled


def test_corrupt_file_is_ignored(home: Path) -> None:
    path = db_path(home)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database, " * 200)
    with Cache.open("ns") as cache:
        assert not cache.enabled and cache.error
        cache.put_many({key("x"): b"1"})
        assert cache.get_many([key("x")]) == {}
    assert path.read_bytes().startswith(b"this is not a database")


def test_truncated_database_is_ignored(home: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key(str(i)): os.urandom(500) for i in range(2000)})
    path = db_path(home)
    data = path.read_bytes()
    path.write_bytes(data[:100] + b"\xff" * 5000 + data[5100:])  # the header damaged
    for suffix in ("-wal", "-shm"):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
    with Cache.open("ns") as cache:
        got = cache.get_many([key(str(i)) for i in range(2000)])
        cache.put_many({key("y"): b"1"})
    assert all(len(v) == 500 for v in got.values())  # whatever is read is whole, or nothing


def test_folder_in_place_of_the_file(home: Path) -> None:
    db_path(home).mkdir(parents=True)
    with Cache.open("ns") as cache:
        assert not cache.enabled
        cache.put_many({key("x"): b"1"})


def test_symlink_in_place_of_the_file_is_refused(home: Path, tmp_path: Path) -> None:
    target = tmp_path / "elsewhere.db"
    target.write_bytes(b"")
    path = db_path(home)
    path.parent.mkdir(parents=True)
    path.symlink_to(target)
    with Cache.open("ns") as cache:
        assert not cache.enabled
        cache.put_many({key("x"): b"1"})
    assert target.read_bytes() == b""


def test_symlinked_wal_is_refused(home: Path, tmp_path: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key("x"): b"1"})
    path = db_path(home)
    wal = path.with_name(path.name + "-wal")
    wal.unlink(missing_ok=True)
    target = tmp_path / "elsewhere"
    target.write_bytes(b"")
    wal.symlink_to(target)
    with Cache.open("ns") as cache:
        assert not cache.enabled
    assert target.read_bytes() == b""


def test_folder_open_to_others_is_made_private(home: Path) -> None:
    folder = db_path(home).parent
    folder.mkdir(parents=True, mode=0o755)
    folder.chmod(0o755)
    with Cache.open("ns") as cache:
        assert cache.enabled
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@pytest.mark.skipif(IS_ROOT, reason="root reads and writes whatever the permissions")
def test_unreadable_file_is_ignored(home: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key("x"): b"1"})
    path = db_path(home)
    path.chmod(0)
    try:
        with Cache.open("ns") as cache:
            assert cache.get_many([key("x")]) == {}
            cache.put_many({key("y"): b"1"})
    finally:
        path.chmod(0o600)


@pytest.mark.skipif(IS_ROOT, reason="root writes whatever the permissions")
def test_read_only_folder(home: Path) -> None:
    root = home / "apc-tools"
    root.mkdir(parents=True)
    root.chmod(0o500)
    try:
        with Cache.open("ns") as cache:
            assert not cache.enabled
            cache.put_many({key("x"): b"1"})
            assert cache.get_many([key("x")]) == {}
    finally:
        root.chmod(0o700)


DISK_FULL = textwrap.dedent(
    """
    import os, resource, signal, sys
    sys.path.insert(0, sys.argv[1])
    from apc_tools.core.cache import Cache, key
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # EFBIG instead of a kill
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    with Cache.open("ns") as cache:
        for batch in range(40):
            cache.put_many({key(str(batch), str(i)): os.urandom(1000) for i in range(100)})
        got = cache.get_many([key("0", "0")])
        print("enabled" if cache.enabled else "disabled", cache.error is not None, len(got))
    """
)


def test_full_disk_goes_uncached_without_a_traceback(home: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", DISK_FULL, str(ROOT)],
        capture_output=True,
        text=True,
        env={**os.environ, "XDG_CACHE_HOME": str(home)},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stdout.split()[:2] == ["disabled", "True"]


WORKER = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, sys.argv[1])
    from apc_tools.core.cache import Cache, key
    me, other = sys.argv[2], sys.argv[3]
    seen = 0
    for batch in range(60):
        with Cache.open("ns") as cache:
            assert cache.enabled, cache.error
            cache.put_many({key(me, str(batch), str(i)): (me * 50).encode() for i in range(200)})
            every = [key(other, str(b), str(i)) for b in range(60) for i in range(200)]
            got = cache.get_many(every)
            assert all(v == (other * 50).encode() for v in got.values())
            seen = max(seen, len(got))
            assert cache.error is None, cache.error
    print(seen)
    """
)


def test_two_processes_share_the_cache(home: Path) -> None:
    env = {**os.environ, "XDG_CACHE_HOME": str(home)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(ROOT), me, other],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for me, other in (("a", "b"), ("b", "a"))
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    for proc, (_out, err) in zip(procs, outs, strict=True):
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    with Cache.open("ns") as cache:
        assert cache.count() == 2 * 60 * 200
        every = [key(m, str(b), str(i)) for m in "ab" for b in range(60) for i in range(200)]
        got = cache.get_many(every)
    assert len(got) == len(every)
    assert got[key("a", "7", "3")] == b"a" * 50


def test_a_held_write_lock_means_uncached_not_stuck(home: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key("x"): b"1"})
    holder = sqlite3.connect(db_path(home), isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another run in the middle of a long write
    try:
        started = time.monotonic()
        with Cache.open("ns") as cache:
            assert cache.get_many([key("x")]) == {key("x"): b"1"}  # a reserved lock: reads go on
            cache.put_many({key("y"): b"2"})
            assert not cache.enabled  # the write timed out: uncached from here
        assert time.monotonic() - started < store.BUSY_MS / 1000 * 3 + 5
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_size_bound_evicts_least_recently_used(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(store.MAX_BYTES_ENV, str(256 * 1024))
    old = {key("old", str(i)): os.urandom(200) for i in range(300)}
    with Cache.open("ns") as cache:
        cache.put_many(old)
    db = sqlite3.connect(db_path(home))
    with db:
        db.execute("UPDATE entries SET used = used - 100")  # last used 100 days ago
    db.close()
    with Cache.open("ns") as cache:
        for batch in range(10):
            cache.put_many({key("new", str(batch), str(i)): os.urandom(200) for i in range(200)})
    with Cache.open("ns") as cache:
        kept_old = len(cache.get_many(list(old)))
        total = cache.count()
    assert kept_old == 0  # the oldest went first
    assert 0 < total < 2300 * 3 // 4
    # checked when a run that wrote closes: the file holds at most the bound and one run's
    # writes (a rollback journal: nothing is kept beside it)
    assert db_path(home).stat().st_size < 1024 * 1024


def test_read_marks_entries_used(home: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key("x"): b"1"})
    db = sqlite3.connect(db_path(home))
    with db:
        db.execute("UPDATE entries SET used = 5")
    with Cache.open("ns") as cache:
        assert cache.get_many([key("x")])
    used = db.execute("SELECT used FROM entries").fetchone()[0]
    db.close()
    assert used == int(time.time() // 86400)


def test_fifty_thousand_keys_in_one_lookup(home: Path) -> None:
    items = {key(str(i)): b"v" for i in range(50_000)}
    with Cache.open("ns") as cache:
        started = time.perf_counter()
        cache.put_many(items)
        wrote = time.perf_counter() - started
    with Cache.open("ns") as cache:
        started = time.perf_counter()
        got = cache.get_many(list(items))
        read = time.perf_counter() - started
    assert got == items
    assert wrote < 10 and read < 10, (wrote, read)  # about 0.2 s and 0.15 s on a quiet core


def test_import_is_light() -> None:
    code = "import sys, apc_tools.core.cache; print('sqlite3' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "False", done.stderr


def test_a_namespace_is_empty_until_written(home: Path) -> None:
    with Cache.open("first") as cache:
        cache.put_many({key("x"): b"1"})
    for name in ("second", "third", "first"):
        with Cache.open(name) as cache:
            assert cache.get_many([key("x")]) == ({key("x"): b"1"} if name == "first" else {})
            cache.put_many({key("y"): name.encode()})
        with Cache.open(name) as cache:
            assert cache.get_many([key("y")]) == {key("y"): name.encode()}


def test_one_connection_serves_the_opens_of_a_run(home: Path) -> None:
    """The caches a process opens one after another share one connection (each close of the
    last connection checkpointed the WAL); a database removed meanwhile is made again."""
    with Cache.open("ns") as cache:
        cache.put_many({key("x"): b"1"})
        first = cache._db
    with Cache.open("ns") as cache, Cache.open("other") as other:
        assert cache._db is first and other._db is first
        assert cache.get_many([key("x")]) == {key("x"): b"1"}
    for side in ("", "-wal", "-shm"):
        Path(f"{db_path(home)}{side}").unlink(missing_ok=True)
    with Cache.open("ns") as cache:
        assert cache.enabled, cache.error
        assert cache._db is not first
        assert cache.get_many([key("x")]) == {}
        cache.put_many({key("y"): b"2"})
    assert db_path(home).is_file()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork")
def test_a_forked_process_opens_its_own_connection(home: Path) -> None:
    with Cache.open("ns") as cache:
        cache.put_many({key("parent"): b"1"})
        held = cache._db
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never the inherited connection
        code = 1
        try:
            with Cache.open("ns") as mine:
                ok = mine.enabled and mine._db is not held
                mine.put_many({key("child"): b"2"})
                ok = ok and mine.get_many([key("parent")]) == {key("parent"): b"1"}
            os.write(writing, b"ok" if ok and mine.error is None else b"no")
            code = 0
        finally:
            os._exit(code)
    os.close(writing)
    answer = os.read(reading, 2)
    os.close(reading)
    assert os.waitpid(pid, 0)[1] == 0
    assert answer == b"ok"
    with Cache.open("ns") as cache:  # the parent's connection still works and sees the row
        assert cache._db is held
        assert cache.get_many([key("child")]) == {key("child"): b"2"}
