"""The blob reader (core/git.py ``BlobReader``): one plain ``git cat-file --batch`` process,
its answers cut out of large reads. Every test reads a real repository made in a temporary
folder and compares with what ``git cat-file`` itself prints."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.core import git as gitio
from tests.conftest import REPO_ROOT, git, stored_object


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    return root


def _cat(root: Path, oid: str) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "-p" if oid == "HEAD^{tree}" else "blob", oid],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout


CHUNK = gitio.BlobReader.CHUNK


def _sizes() -> list[int]:
    # empty, tiny, around the read chunk (an answer cut at any place of a chunk), several chunks
    return [0, 1, 2, 100, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 7, 5, 0, 4096]


def test_every_blob_in_order_as_git_prints_it(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    rng = random.Random(7)
    contents = [rng.randbytes(n) for n in _sizes()]
    contents += [b"no newline at the end", b"\n\n\n", b"a\nb 12\n", b"missing\n"]
    oids = [stored_object(root, c) for c in contents]
    order = oids + oids[::-1]  # repeated ids are answered each time
    with gitio.BlobReader(gitio.open_repo(root)) as reader:
        answers = list(reader.read_many(order, 1 << 30))
    assert [oid for oid, _ in answers] == order
    by_oid = dict(zip(oids, contents, strict=True))
    for oid, blob in answers:
        assert blob.complete and blob.data == by_oid[oid] == _cat(root, oid)
        assert blob.size == len(by_oid[oid])


def test_a_blob_over_the_limit_is_cut_and_the_rest_drained(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    rng = random.Random(3)
    big, after = rng.randbytes(3 * CHUNK + 11), b"the next blob\n"
    oids = [stored_object(root, big), stored_object(root, after), stored_object(root, b"x" * 10)]
    for limit in (0, 1, 9, 10, CHUNK, 2 * CHUNK + 5):
        with gitio.BlobReader(gitio.open_repo(root)) as reader:
            answers = [blob for _, blob in reader.read_many(oids, limit)]
        first, second, third = answers
        assert first.data == big[:limit] and first.size == len(big) and not first.missing
        assert not first.complete
        assert second.data == after[:limit] and second.size == len(after)
        assert third.data == (b"x" * 10)[:limit] and third.complete == (limit >= 10)


def test_missing_objects_and_hostile_names_are_missing_and_the_rest_is_read(
    tmp_path: Path,
) -> None:
    root = _repo(tmp_path)
    (root / "a.txt").write_bytes(b"alpha\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-q", "-m", "one")
    good = stored_object(root, b"good\n")
    hostile = [
        "0" * 40,  # no such object
        "",  # an empty request line
        f"{good}\n{good}",  # two requests in one name
        f"{good}\0",
        f"{good}\r",
        "HEAD:no such file 12",  # a missing answer that ends in digits before "missing"
        "HEAD:a b",
        "--batch-all-objects",
        "HEAD",  # a commit, not a blob
        "HEAD^{tree}",
    ]
    order = [good, *[name for one in hostile for name in (one, good)], "HEAD:a.txt"]
    with gitio.BlobReader(gitio.open_repo(root)) as reader:
        answers = list(reader.read_many(order, 1 << 20))
        assert reader.read("bad\nname", 10).missing
        assert reader.read("HEAD:a.txt", 3).data == b"alp"
    assert [oid for oid, _ in answers] == order
    for oid, blob in answers:
        if oid == good:
            assert blob.data == b"good\n" and blob.complete
        elif oid == "HEAD:a.txt":
            assert blob.data == b"alpha\n"
        else:
            assert blob.missing and blob.data == b"" and not blob.complete, oid


def _committed_folder(root: Path, name: str, tree_rev: str) -> tuple[str, str, bytes]:
    """Commit ``d/<name>`` (its name without ``.txt`` and a newline); the id of the tree
    ``tree_rev`` names, the blob's id, and the tree's raw bytes (``git cat-file tree``)."""
    (root / "d").mkdir()
    (root / "d" / name).write_bytes(name.removesuffix(".txt").encode() + b"\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "one")
    tree = git(root, "rev-parse", tree_rev).strip()
    blob = git(root, "rev-parse", f"HEAD:d/{name}").strip()
    raw = subprocess.run(
        ["git", "cat-file", "tree", tree], cwd=root, capture_output=True, check=True
    ).stdout
    return tree, blob, raw


def test_other_kinds_when_asked_for(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    tree, blob, raw = _committed_folder(root, "f.txt", "HEAD^{tree}")
    with gitio.BlobReader(gitio.open_repo(root)) as reader:
        trees = list(reader.read_many([tree, blob, tree], 1 << 20, kinds=(b"tree",)))
        blobs = list(reader.read_many([tree, blob], 1 << 20))
    assert [b.data for _, b in trees] == [raw, b"", raw]
    assert [b.missing for _, b in trees] == [False, True, False]
    assert [b.missing for _, b in blobs] == [True, False]


def test_a_killed_cat_file_costs_one_object_and_a_fresh_process_reads_the_rest(
    tmp_path: Path,
) -> None:
    root = _repo(tmp_path)
    rng = random.Random(11)
    contents = [rng.randbytes(300_000) for _ in range(40)]  # far more than the pipe holds
    oids = [stored_object(root, c) for c in contents]
    reader = gitio.BlobReader(gitio.open_repo(root))
    answers = reader.read_many(oids, 1 << 30)
    first = next(answers)
    assert first[1].data == contents[0]
    process = reader._process
    assert process is not None
    old = process.popen
    os.kill(old.pid, signal.SIGKILL)
    rest = list(answers)
    assert old.returncode is not None  # reaped: no zombie
    assert [oid for oid, _ in rest] == oids[1:]
    missing = [i for i, (_, blob) in enumerate(rest, start=1) if blob.missing]
    assert len(missing) == 1, missing  # the answer cut by the kill
    for index, (_oid, blob) in enumerate(rest, start=1):
        if index not in missing:
            assert blob.data == contents[index]
    assert reader._process is not None and reader._process.popen.pid != old.pid
    newer = reader._process.popen
    reader.close()
    assert newer.returncode is not None and reader._process is None


def test_an_abandoned_read_ends_its_process_and_the_next_read_starts_afresh(
    tmp_path: Path,
) -> None:
    root = _repo(tmp_path)
    contents = [bytes([65 + i]) * 200_000 for i in range(20)]
    oids = [stored_object(root, c) for c in contents]
    with gitio.BlobReader(gitio.open_repo(root)) as reader:
        answers = reader.read_many(oids, 1 << 30)
        assert next(answers)[1].data == contents[0]
        process = reader._process
        assert process is not None
        # a second read while the first still has answers pending: the first's process ends
        assert [b.data for _, b in reader.read_many(oids[3:5], 1 << 30)] == contents[3:5]
        assert process.popen.returncode is not None
        # the first reading goes on: what its process had already sent, then the object cut
        # off by its end counts missing, then a fresh process answers the rest
        rest = [blob for _, blob in answers]
        assert len(rest) == len(oids) - 1
        cut = [i for i, blob in enumerate(rest, start=1) if blob.missing]
        assert len(cut) == 1
        assert all(b.data == contents[i] for i, b in enumerate(rest, start=1) if i not in cut)
        kept = reader._process
        assert kept is not None and kept.popen.returncode is None
        # every answer read (the generator not exhausted): the same process serves the next
        whole = reader.read_many(oids[:2], 1 << 30)
        assert [next(whole)[1].data, next(whole)[1].data] == contents[:2]
        assert reader.read(oids[7], 5).data == contents[7][:5]
        assert reader._process is kept
    assert kept.popen.returncode is not None


def test_the_reader_imports_no_gitpython(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    oid = stored_object(root, b"hello\n")
    code = (
        "import sys; from pathlib import Path; from apc_tools.core import git as g\n"
        f"r = g.BlobReader(g.open_repo(Path({str(root)!r})))\n"
        f"assert r.read({oid!r}, 99).data == b'hello\\n'\n"
        "r.close(); assert 'git' not in sys.modules, 'GitPython imported'\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_outside_a_repository_every_object_is_missing(tmp_path: Path) -> None:
    root = _repo(tmp_path)
    oid = stored_object(root, b"x\n")
    reader = gitio.BlobReader(gitio.Repo(tmp_path / "gone", ""))
    with reader:
        answers = list(reader.read_many([oid, oid], 10))
    assert [b.missing for _, b in answers] == [True, True]


@pytest.mark.parametrize("limit", [0, 4])
def test_an_empty_request_starts_no_process(tmp_path: Path, limit: int) -> None:
    root = _repo(tmp_path)
    with gitio.BlobReader(gitio.open_repo(root)) as reader:
        assert list(reader.read_many([], limit)) == []
        assert reader._process is None


@pytest.mark.parametrize("pidfd", [True, False])
def test_a_process_told_to_end_is_reaped_and_one_that_does_not_is_killed(
    pidfd: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``_reap``: waited for as it ends (a pidfd where Linux has one, else polling); one
    still running after ``REAP_SECONDS`` is killed."""
    if not pidfd:
        monkeypatch.delattr(os, "pidfd_open", raising=False)
    root = _repo(tmp_path)
    ending = subprocess.Popen(
        ["git", "-C", str(root), "cat-file", "--batch"], stdin=subprocess.PIPE
    )
    assert ending.stdin is not None
    ending.stdin.close()
    gitio._reap(ending)
    assert ending.returncode == 0
    monkeypatch.setattr(gitio, "REAP_SECONDS", 0.2)
    stuck = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    gitio._reap(stuck)
    assert stuck.returncode == -signal.SIGKILL


def test_trees_and_blobs_from_one_process(tmp_path: Path) -> None:
    """A tree reader over a blob reader reads through its process: the blobs read after the
    trees (and trees after blobs) come from the same ``cat-file``."""
    root = _repo(tmp_path)
    tree, blob, content = _committed_folder(root, "a.txt", "HEAD:d")
    repo = gitio.open_repo(root)
    with gitio.BlobReader(repo) as blobs:
        reader = gitio.TreeReader(repo, blobs)
        assert reader.read([tree, blob]) == {tree: content}
        process = blobs._process
        assert [b.data for _, b in blobs.read_many([blob], 100)] == [b"a\n"]
        assert reader.read([tree]) == {tree: content}
        assert blobs._process is process  # one process throughout
        reader.close()  # not its own: the blob reader's process goes on
        assert blobs._process is process
