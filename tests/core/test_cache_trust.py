"""What makes the result cache one a run may believe (core/cache.py, ``refusal``; issue 30,
points 1 and 2): a cache inside the judged repository that git tracks, that HEAD or the
scanned commits hold, or that git does not ignore, is the pull request's input, and a run
goes uncached (one note on stderr) instead of believing it; so does a cache folder of
another user, one open to others' writes, a symlinked one, one in the git folder, and one a
relative ``HOME`` would put in the working folder.

Real repositories, a forged database really committed, real ``apc`` processes.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from tests.boundary.helpers import CLAUDE, commit, init
from tests.conftest import git, run_apc

IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
SESSION = "logs/session.jsonl"  # in a folder: the --tracked subtree cache answers it whole
INSIDE = ".apc-cache"  # where the GitLab recipe keeps XDG_CACHE_HOME, in the checkout
PROJECT = {"AGENTS.md": "# Agents\n", ".apc/project.json": "{}\n"}  # validate: errors


def _tag(namespace: str) -> bytes:
    return hashlib.sha256(namespace.encode()).digest()[:4]


def forge(database: Path) -> int:
    """Make every verdict of ``database`` say "nothing found" (what a pull request commits);
    how many rows it changed. A self-contained file: no -wal beside it."""
    db = sqlite3.connect(database)
    changed = 0
    rows = db.execute("SELECT key, value FROM entries").fetchall()
    for key, value in rows:
        tag = key[:4]
        new = None
        if tag == _tag("boundary-blob"):
            new = b"[]"
        elif tag == _tag("boundary-tree") and value.startswith(b"["):  # (not the root pointer)
            files, _rows, *rest = json.loads(value)
            new = json.dumps([files, [], *rest]).encode()
        elif tag == _tag("boundary-run"):
            new = b"[]"
        elif tag == _tag("validate"):
            data = json.loads(value)
            if isinstance(data, dict) and "f" in data:  # a whole run
                data["f"], data["a"] = [], []
            elif isinstance(data, dict) and "p" in data:  # one file's outcome
                data["p"], data["c"], data["s"] = [], [], []
            else:
                continue
            new = json.dumps(data, separators=(",", ":")).encode()
        if new is not None:
            db.execute("UPDATE entries SET value = ? WHERE key = ?", (new, key))
            changed += 1
    db.commit()
    db.execute("PRAGMA journal_mode = DELETE")
    db.close()
    return changed


def env_inside(root: Path) -> dict[str, str]:
    return {"XDG_CACHE_HOME": str(root / INSIDE)}


def database_in(root: Path) -> Path:
    return root / INSIDE / "apc-tools" / "results" / "cache.sqlite3"


def exclude(root: Path) -> None:
    with (root / ".git" / "info" / "exclude").open("a") as handle:
        handle.write(f"/{INSIDE}/\n")


def scans(base: str) -> list[list[str]]:
    return [
        ["boundary", "--range", f"{base}..HEAD"],
        ["check", "--range", f"{base}..HEAD"],
        ["boundary", "--tracked"],
        ["boundary", "--history"],
    ]


def committed_forgery(tmp_path: Path) -> tuple[Path, str]:
    """A repository whose last commit adds a session and, beside it, a forged cache database
    filled by real runs over that very session: the checkout holds it where XDG_CACHE_HOME
    points (as a CI checkout of the pull request would)."""
    root = init(tmp_path / "repo")
    base = commit(root, {"README.md": "hello\n"}, "base")
    commit(root, {SESSION: CLAUDE}, "a session")
    exclude(root)  # as the GitLab recipe does: ignored, so the runs fill it
    for args in scans(base):
        assert run_apc(root, *args, env=env_inside(root)).returncode == 1, args
    assert forge(database_in(root)) > 0
    for side in ("-wal", "-shm"):
        database_in(root).with_name("cache.sqlite3" + side).unlink(missing_ok=True)
    git(root, "add", "-f", INSIDE)
    git(root, "commit", "-q", "--amend", "--no-edit")  # the same commit adds both
    shutil.rmtree(root / INSIDE)
    git(root, "checkout", "-q", "--", ".")
    assert database_in(root).is_file()
    return root, base


def test_a_committed_forged_cache_decides_nothing(tmp_path: Path) -> None:
    root, base = committed_forgery(tmp_path)
    for args in scans(base):
        plain = run_apc(root, *args, "--no-cache")
        assert plain.returncode == 1, (args, plain.stdout, plain.stderr)
        done = run_apc(root, *args, "--format", "json", env=env_inside(root))
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr
        notes = [line for line in done.stderr.splitlines() if "result cache" in line]
        assert len(notes) == 1, done.stderr  # one line, once per run
        assert "not a cache" in notes[0] and "running without it" in notes[0]
        report = json.loads(done.stdout)
        assert SESSION in {f["path"] for f in report["findings"]}
        if args[0] == "boundary" and args[1] in ("--tracked", "--history"):
            # the committed database is a file of the scan like any other
            assert report["summary"]["files"] >= 3, report["summary"]


def test_a_forged_cache_staged_or_at_head_decides_nothing(tmp_path: Path) -> None:
    """The session only staged; the forged database committed at HEAD (tracked), then only
    staged (in the index, not yet committed): both refused."""
    root, _ = committed_forgery(tmp_path)
    git(root, "rm", "-q", "--cached", SESSION)
    git(root, "commit", "-q", "-m", "drop the session")
    git(root, "add", SESSION)
    done = run_apc(root, "boundary", "--staged", env=env_inside(root))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "git tracks files in it" in done.stderr
    git(root, "reset", "-q", "--", SESSION)
    git(root, "rm", "-rq", "--cached", INSIDE)
    git(root, "commit", "-q", "-m", "untrack the cache")
    git(root, "add", "-f", INSIDE)  # staged again, not committed
    git(root, "add", SESSION)
    done = run_apc(root, "boundary", "--staged", env=env_inside(root))
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "git tracks files in it" in done.stderr


def test_a_forged_validate_cache_decides_nothing(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    commit(root, PROJECT, "a project with errors")
    exclude(root)
    first = run_apc(root, "validate", env=env_inside(root))
    assert first.returncode == 1, first.stdout
    assert forge(database_in(root)) > 0
    git(root, "add", "-f", INSIDE)
    git(root, "commit", "-q", "-m", "the cache")
    for args in (["validate"], ["check"], ["validate", "--statistics"]):
        done = run_apc(root, *args, env=env_inside(root))
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "not a cache" in done.stderr and "Traceback" not in done.stderr


def test_an_ignored_never_committed_cache_inside_the_tree_is_used(tmp_path: Path) -> None:
    """The GitLab recipe: `.apc-cache/` in the project folder, ignored, never committed: used,
    without a note."""
    root = init(tmp_path / "repo")
    base = commit(root, {"README.md": "hello\n", ".gitignore": f"/{INSIDE}/\n"}, "base")
    commit(root, {SESSION: CLAUDE}, "a session")
    for args in scans(base):
        done = run_apc(root, *args, env=env_inside(root))
        assert done.returncode == 1 and "result cache" not in done.stderr, done.stderr
    assert database_in(root).is_file()
    rows = sqlite3.connect(database_in(root)).execute("SELECT count(*) FROM entries").fetchone()
    assert rows[0] > 0
    # not ignored any more (the pull request edits .gitignore): refused, uncached, same verdict
    (root / ".gitignore").write_text("\n")
    git(root, "commit", "-q", "-am", "unignore")  # (-a: only the tracked .gitignore)
    done = run_apc(root, "boundary", "--tracked", env=env_inside(root))
    assert done.returncode == 1
    assert "git does not ignore it (add /.apc-cache/ to .gitignore)" in done.stderr


def test_a_cache_in_the_git_folder_or_through_a_link_in_the_tree_is_refused(
    tmp_path: Path,
) -> None:
    root = init(tmp_path / "repo")
    commit(root, {SESSION: CLAUDE, ".gitignore": "/linked/\n"}, "a session")
    done = run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(root / ".git" / "c")})
    assert done.returncode == 1 and "inside the git folder" in done.stderr, done.stderr
    assert not (root / ".git" / "c").exists()
    (tmp_path / "elsewhere").mkdir()
    (root / "linked").symlink_to(tmp_path / "elsewhere")
    (root / "real").mkdir()
    for target in (tmp_path / "elsewhere", root / "real"):  # out of the tree, or in it
        (root / "linked").unlink(missing_ok=True)
        (root / "linked").symlink_to(target)
        done = run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(root / "linked")})
        assert done.returncode == 1
        assert f"through the symlink {root / 'linked'}" in done.stderr, done.stderr
        assert not list(target.iterdir())
    # a link outside the tree to a folder in it: the folder is the tree's, not ignored
    (tmp_path / "outside").symlink_to(root / "real")
    done = run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(tmp_path / "outside")})
    assert done.returncode == 1
    assert "git does not ignore it (add /real/ to .gitignore)" in done.stderr


def test_a_cache_in_a_folder_that_is_not_a_work_tree_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    for rel, text in PROJECT.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text)
    done = run_apc(folder, "validate", env={"XDG_CACHE_HOME": str(folder / "c")})
    assert done.returncode == 1 and "which is not a git work tree" in done.stderr
    assert not (folder / "c").exists()


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_cache_open_to_others_writes_is_refused(xdg: Path, tmp_path: Path, what: str) -> None:
    root = init(tmp_path / "repo")
    commit(root, {SESSION: CLAUDE}, "a session")
    assert run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)}).returncode == 1
    database = xdg / "apc-tools" / "results" / "cache.sqlite3"
    target = database.parent if what == "folder" else database
    target.chmod(0o777 if what == "folder" else 0o666)
    done = run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)})
    assert done.returncode == 1
    assert f"{target} is writable by others" in done.stderr, done.stderr


@pytest.mark.skipif(not IS_ROOT, reason="giving a folder to another user needs root")
def test_a_cache_of_another_user_is_refused(xdg: Path, tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    commit(root, {SESSION: CLAUDE}, "a session")
    assert run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)}).returncode == 1
    database = xdg / "apc-tools" / "results" / "cache.sqlite3"
    os.chown(database, 4242, 4242)
    done = run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)})
    assert done.returncode == 1 and "belongs to another user (uid 4242)" in done.stderr


def test_a_symlinked_results_folder_is_refused(xdg: Path, tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    commit(root, {SESSION: CLAUDE}, "a session")
    (xdg / "apc-tools").mkdir(parents=True)
    (tmp_path / "odd").mkdir(mode=0o700)
    (xdg / "apc-tools" / "results").symlink_to(tmp_path / "odd")
    done = run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)})
    assert done.returncode == 1 and "is a symlink" in done.stderr, done.stderr
    assert not list((tmp_path / "odd").iterdir())


def test_a_relative_home_never_puts_the_cache_in_the_scanned_tree(tmp_path: Path) -> None:
    """XDG_CACHE_HOME unset and HOME=. (issue 30, point 2): the cache goes to the user's home
    of the password database (absolute), never ./.cache in the working folder. (Asked of a
    real process started in the tree; a real run would fill the user's own cache.)"""
    import pwd
    import subprocess
    import sys

    root = init(tmp_path / "repo")
    home = Path(pwd.getpwuid(os.getuid()).pw_dir)
    for value in (".", "", "relative/home"):
        env = {k: v for k, v in os.environ.items() if k != "XDG_CACHE_HOME"}
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from apc_tools.core import cache; print(cache.database_path())",
            ],
            cwd=root,
            env={**env, "HOME": value, "PYTHONPATH": str(Path(__file__).parents[2])},
            capture_output=True,
            text=True,
            check=True,
        )
        assert done.stdout.strip() == str(home / ".cache/apc-tools/results/cache.sqlite3")
        assert root not in Path(done.stdout.strip()).parents


# --------------------------------------------------------------------------- rows of another type


def every_command(base: str) -> list[list[str]]:
    return [*scans(base), ["boundary", "--staged"], ["validate"], ["check"]]


@pytest.mark.parametrize(
    "change",
    [
        "value = 42",  # an INTEGER where a BLOB is expected
        "value = CAST(value AS TEXT)",  # the same bytes as TEXT
        "value = 4.5",
        "value = x'00ff'",  # a BLOB that decodes to nothing
        "value = CAST(replace(hex(zeroblob(50000)), '00', '[') AS BLOB)",  # deep nesting
        "used = 'yesterday'",  # the last-used stamp as TEXT
        "key = CAST(key AS TEXT)",
    ],
)
def test_rows_of_another_type_are_misses(xdg: Path, tmp_path: Path, change: str) -> None:
    """A database written by hand or by another version (issue 30, point 3): every run gives
    the verdict of an uncached run, never a traceback."""
    root = init(tmp_path / "repo")
    base = commit(root, PROJECT, "a project with errors")
    commit(root, {SESSION: CLAUDE}, "a session")
    (root / "staged.jsonl").write_text(CLAUDE)
    git(root, "add", "staged.jsonl")
    env = {"XDG_CACHE_HOME": str(xdg)}
    expected = {}
    for args in every_command(base):
        done = run_apc(root, *args, "--format", "json", env=env)
        expected[tuple(args)] = (done.returncode, json.loads(done.stdout)["findings"])
        assert done.returncode == 1, (args, done.stderr)
    database = xdg / "apc-tools" / "results" / "cache.sqlite3"
    db = sqlite3.connect(database)
    with db:
        assert db.execute(f"UPDATE entries SET {change}").rowcount > 0
    db.close()
    for _ in range(2):  # the damaged rows, then what the first run stored again
        for args in every_command(base):
            done = run_apc(root, *args, "--format", "json", env=env)
            assert "Traceback" not in done.stderr, (args, done.stderr)
            got = (done.returncode, json.loads(done.stdout)["findings"])
            assert got == expected[tuple(args)], args


def test_a_database_made_by_hand_gives_misses(xdg: Path) -> None:
    """A table without column types (SQLite keeps whatever is stored), rows of every type
    under keys apc looks up: each is a miss, the cache stays usable and takes new rows."""
    from apc_tools.core.cache import SCHEMA, Cache, key

    folder = xdg / "apc-tools" / "results"
    folder.mkdir(parents=True, mode=0o700)
    db = sqlite3.connect(folder / "cache.sqlite3")
    db.execute("CREATE TABLE entries (key PRIMARY KEY, value, used) WITHOUT ROWID")
    db.execute(f"PRAGMA user_version = {SCHEMA}")
    tag = _tag("ns")
    values = [42, "text", 4.5, None, b"fine"]
    keys = [key("k", str(i)) for i in range(len(values))]
    with db:
        db.executemany(
            "INSERT INTO entries VALUES (?, ?, ?)",
            [(tag + k, v, "not a day") for k, v in zip(keys, values, strict=True)],
        )
    db.close()
    with Cache.open("ns") as opened:
        assert opened.enabled, opened.error
        assert opened.get_many(keys) == {keys[-1]: b"fine"}
        opened.put_many({k: b"new" for k in keys})
        assert opened.get_many(keys) == dict.fromkeys(keys, b"new")


# --------------------------------------------------------------------------- no shared mapping

TRUNCATE = """
import os, sys, time
end, count = time.monotonic() + float(sys.argv[1]), 0
while time.monotonic() < end and count < 2_000_000:
    for path in sys.argv[2:]:
        try:
            os.truncate(path, 0)
            count += 1
        except OSError:
            pass
print(count)
"""

READ = """
import sys, time
from apc_tools.core.cache import Cache, key
keys = [key("k", str(i)) for i in range(20000)]
end, reads = time.monotonic() + float(sys.argv[1]), 0
while time.monotonic() < end and reads < 200:
    with Cache.open("ns") as opened:
        if not opened.get_many(keys) and opened.enabled:
            opened.put_many({k: b"v" * 50 for k in keys})
    reads += 1
print(reads)
"""


def test_truncating_the_side_files_under_readers_never_kills_them(
    xdg: Path, tmp_path: Path
) -> None:
    """Issue 30, point 4: another process truncating ``-shm`` (and ``-journal``, ``-wal``) in
    a loop while apc processes read and write the cache: SQLite maps no file, so no reader
    dies of SIGBUS; real apc runs give their verdict. Bounded: 4 seconds, 200 reads each."""
    import subprocess
    import sys

    folder = xdg / "apc-tools" / "results"
    sides = [str(folder / f"cache.sqlite3{side}") for side in ("-shm", "-journal", "-wal")]
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    here = Path(__file__).parents[2]
    seed = subprocess.run(
        [sys.executable, "-c", READ, "0.2"], cwd=here, env=env, capture_output=True
    )
    assert seed.returncode == 0, seed.stderr
    for side in sides[:1]:  # a -shm another process left (apc 0.1.0 used WAL)
        Path(side).write_bytes(b"\0" * 32768)
    cutter = subprocess.Popen(
        [sys.executable, "-c", TRUNCATE, "4", *sides], stdout=subprocess.PIPE, cwd=here
    )
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", READ, "3"],
            cwd=here,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for _ in range(3)
    ]
    root = init(tmp_path / "repo")
    commit(root, {SESSION: CLAUDE, **{f"docs/{i}.md": f"page {i}\n" for i in range(50)}})
    runs = [run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)}) for _ in range(3)]
    for reader in readers:
        out, err = reader.communicate(timeout=60)
        assert reader.returncode == 0, (reader.returncode, err[-2000:])
        assert int(out) > 0
    cutter.communicate(timeout=60)
    assert [done.returncode for done in runs] == [1, 1, 1], [done.stderr for done in runs]


def test_two_runs_at_once_share_the_cache(xdg: Path, tmp_path: Path) -> None:
    """Two gates at once (two pre-commit hooks in two repositories): both judge, both fill
    the one cache, and the next run of each is answered from it (nothing new stored)."""
    import subprocess
    import sys

    roots = []
    for name in ("one", "two"):
        root = init(tmp_path / name)
        commit(root, {SESSION: CLAUDE, **{f"{name}/{i}.md": f"{name} {i}\n" for i in range(200)}})
        roots.append(root)
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    command = [sys.executable, "-m", "apc_tools", "boundary", "--no-progress"]
    both = [
        subprocess.Popen(command, cwd=r, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for r in roots
    ]
    for run in both:
        _out, err = run.communicate(timeout=120)
        assert run.returncode == 1 and b"Traceback" not in err, err
    database = xdg / "apc-tools" / "results" / "cache.sqlite3"
    db = sqlite3.connect(database)
    rows = db.execute("SELECT count(*) FROM entries").fetchone()[0]
    db.close()
    for root in roots:
        assert run_apc(root, "boundary", env={"XDG_CACHE_HOME": str(xdg)}).returncode == 1
    db = sqlite3.connect(database)
    assert db.execute("SELECT count(*) FROM entries").fetchone()[0] == rows
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    db.close()


# --------------------------------------------------------------------------- the docs' recipe


def gitlab_recipe() -> dict[str, object]:
    import re

    from ruamel.yaml import YAML

    from tests.conftest import REPO_ROOT

    text = (REPO_ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if ".apc-cache" in b]
    return YAML(typ="safe").load("apc:\n" + block)["apc"]  # type: ignore[no-any-return]


def test_the_gitlab_recipe_keeps_the_cache_ignored_and_refuses_a_committed_one(
    tmp_path: Path,
) -> None:
    """docs/ci.md's GitLab recipe, run in a real clone as the job runs it: the cache in the
    project folder is used (ignored by the before_script line, though the merge request's
    .gitignore says nothing), and a merge request that commits a database there is not."""
    import subprocess

    recipe = gitlab_recipe()
    folder = str(recipe["variables"]["XDG_CACHE_HOME"])  # type: ignore[index]
    assert recipe["cache"]["paths"] == [".apc-cache/"]  # type: ignore[index]
    origin = init(tmp_path / "origin")
    base = commit(origin, {"README.md": "hello\n"}, "base")
    commit(origin, {SESSION: CLAUDE}, "a session")
    project = tmp_path / "builds" / "project"
    git(tmp_path, "clone", "-q", str(origin), str(project))
    env = {**os.environ, "CI_PROJECT_DIR": str(project)}
    for line in recipe["before_script"]:  # type: ignore[index]
        subprocess.run(["sh", "-c", line], cwd=project, env=env, check=True)
    xdg = {"XDG_CACHE_HOME": folder.replace("$CI_PROJECT_DIR", str(project))}
    for _ in range(2):
        done = run_apc(project, "check", "--range", f"{base}..HEAD", env=xdg)
        assert done.returncode == 1 and "result cache" not in done.stderr, done.stderr
    assert database_in(project).is_file()
    assert git(project, "status", "--porcelain") == ""  # ignored: nothing to commit
    # the merge request commits a database there: refused, and the session still found
    git(project, "add", "-f", INSIDE)
    git(project, "commit", "-q", "-m", "a cache")
    done = run_apc(project, "check", "--range", f"{base}..HEAD", env=xdg)
    assert done.returncode == 1 and "not a cache" in done.stderr, done.stderr
    for line in recipe["after_script"]:  # type: ignore[index]
        subprocess.run(["sh", "-c", line], cwd=project, env=env, check=True)
    assert not (project / INSIDE).exists()  # GitLab saves no committed cache
    # deleted from git by the next commit, and back on disk (a CI cache restored it): a commit
    # of the clone held it, so a --tracked scan still refuses it
    git(project, "checkout", "-q", "HEAD", "--", INSIDE)
    git(project, "rm", "-rq", "--cached", INSIDE)
    git(project, "commit", "-q", "-m", "no cache")
    assert database_in(project).is_file()
    done = run_apc(project, "boundary", "--tracked", env=xdg)
    assert done.returncode == 1 and "a commit of this clone adds" in done.stderr, done.stderr
