"""``--tracked`` blobs read from the checked-out files (apc_tools/boundary/checkout.py).

A file is used only when its bytes hash to the blob id; every other blob comes from
``cat-file``. Every boundary case and the transcript corpus give the same JSON report with the
checkout read on and off (``APC_CHECKOUT_READ``), with the checkout as committed and with every
file edited after the commit; the reader itself is tried on real files (edited, a FIFO, a
symlinked folder, a symlink, over the read limit, missing, a folder in a file's place, a
SHA-256 repository); git's trace shows which runs start ``cat-file``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from apc_tools.boundary import Options, checkout, scan
from apc_tools.core import git as gitio
from apc_tools.core.git import Entry
from apc_tools.findings import CannotRun
from apc_tools.report.json_out import render_json
from tests.boundary.cases import case_repo
from tests.boundary.helpers import CLAUDE, commit, init
from tests.boundary.test_cache_verdicts import BOUNDARY_CASES
from tests.boundary.test_corpus import corpus_files
from tests.conftest import TRANSCRIPTS, git, needs_shared


@pytest.fixture(autouse=True)
def _every_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the checkout read run on trees of a few files (its threshold is for speed)."""
    monkeypatch.setattr(checkout, "MIN_BLOBS", 0)


def report(root: Path, monkeypatch: pytest.MonkeyPatch, on: bool, **args: Any) -> str:
    monkeypatch.setenv(checkout.ENV, "1" if on else "0")
    try:
        return render_json(scan(Options(cwd=root, cache=False, **args)).result)
    except CannotRun as exc:
        return f"cannot run: {exc}"


def traced(root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[str, str]:
    """The report with the checkout read on, and git's trace of the run."""
    trace = tmp_path / f"trace-{len(list(tmp_path.glob('trace-*')))}"
    monkeypatch.setenv("GIT_TRACE", str(trace))
    try:
        out = report(root, monkeypatch, True)
    finally:
        monkeypatch.delenv("GIT_TRACE")
    return out, trace.read_text(errors="replace") if trace.exists() else ""


def started_cat_file(trace: str) -> bool:
    return any(line.endswith("git cat-file --batch") for line in trace.splitlines())


TRUSTED = (".apc-tools.yaml", ".apc-baseline.json")  # read from the work tree (trusted.py)


def edit_every_file(root: Path) -> int:
    """Change every checked-out regular file after the commit (the blobs stay as they were),
    but the policy and the baseline, which the scan reads from the work tree."""
    edited = 0
    for rel in gitio.split_z(git(root, "ls-files", "-z").encode("utf-8", "surrogateescape")):
        path = root / rel
        if path.is_file() and not path.is_symlink() and path.name not in TRUSTED:
            path.write_bytes(path.read_bytes() + b"\n# edited after the commit\n")
            edited += 1
    return edited


def corpus_repo(tmp_path: Path) -> Path:
    """A repository holding the transcript corpus, committed (``-f``: whatever ignores say)."""
    needs_shared(TRANSCRIPTS)
    root = init(tmp_path / "corpus")
    for kind, name, _ in corpus_files():
        target = root / kind / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(TRANSCRIPTS / kind / name, target)
    git(root, "add", "-A", "-f")
    git(root, "commit", "-q", "-m", "corpus")
    return root


# --------------------------------------------------------------------------- every case


@pytest.mark.parametrize("case", BOUNDARY_CASES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_boundary_case_same_with_and_without_the_checkout(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, args, _ = case_repo(case, tmp_path, monkeypatch)
    off = report(root, monkeypatch, False, **args)
    assert report(root, monkeypatch, True, **args) == off
    edit_every_file(root)  # every file now differs from its blob: each read through git
    assert report(root, monkeypatch, True, **args) == off


def test_transcript_corpus_same_with_and_without_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = corpus_repo(tmp_path)
    off = report(root, monkeypatch, False)
    assert '"BTR001"' in off
    on, trace = traced(root, monkeypatch, tmp_path)
    assert on == off
    assert not started_cat_file(trace), trace  # every blob from its file
    assert edit_every_file(root) > checkout_misses()  # past the misses: git reads the rest
    on, trace = traced(root, monkeypatch, tmp_path)
    assert on == off and started_cat_file(trace)


def checkout_misses() -> int:
    from apc_tools.boundary import blobs

    return blobs.MAX_CHECKOUT_MISSES


# --------------------------------------------------------------------------- what is read


def test_the_committed_blob_is_judged_not_the_edited_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init(tmp_path / "r")
    commit(root, {"notes/run.jsonl": CLAUDE, "src/a.py": "a = 1\n"})
    clean, trace = traced(root, monkeypatch, tmp_path)
    assert '"BTR001"' in clean and not started_cat_file(trace)
    (root / "notes" / "run.jsonl").write_text("nothing here\n")  # cleaned, not committed
    (root / "src" / "a.py").write_text(CLAUDE)  # a session in the work tree only
    edited, trace = traced(root, monkeypatch, tmp_path)
    assert edited == clean  # HEAD's blobs, read through git where the files differ
    assert started_cat_file(trace)


def test_a_blob_gone_from_the_store_is_exit_2_even_with_its_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = init(tmp_path / "r")
    commit(root, {"gone.txt": "still checked out\n", "a.txt": "a\n"})
    oid = git(root, "rev-parse", "HEAD:gone.txt").strip()
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    out = report(root, monkeypatch, True)
    assert out.startswith("cannot run:") and "gone.txt" in out and "damaged" in out
    assert out == report(root, monkeypatch, False)


def test_crlf_checkout_is_read_through_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    origin = init(tmp_path / "origin")
    commit(origin, {"notes/a.txt": "[Request interrupted by user]\nline\n", "b.txt": "b\n"})
    root = tmp_path / "crlf"
    subprocess.run(
        ["git", "-c", "core.autocrlf=true", "clone", "-q", str(origin), str(root)], check=True
    )
    git(root, "config", "core.autocrlf", "true")
    assert b"\r\n" in (root / "notes" / "a.txt").read_bytes()
    off = report(root, monkeypatch, False)
    assert '"BMK002"' in off or '"BMK001"' in off
    on, trace = traced(root, monkeypatch, tmp_path)
    assert on == off and started_cat_file(trace)


# --------------------------------------------------------------------------- the reader


def reader_repo(tmp_path: Path, *init_args: str) -> tuple[Path, dict[str, list[Entry]]]:
    root = tmp_path / "r"
    root.mkdir()
    git(root, "init", "-q", *init_args)
    files = {
        "plain.txt": "plain\n",
        "edited.txt": "as committed\n",
        "fifo.txt": "a fifo later\n",
        "deep/er/file.txt": "deep\n",
        "linked/inner.txt": "behind a symlinked folder later\n",
        "big.txt": "x" * 5000,
        "gone.txt": "deleted later\n",
        "folder.txt": "a folder later\n",
        "target.txt": "t\n",
    }
    commit(root, files)
    os.symlink("target.txt", root / "link")
    git(root, "add", "link")
    git(root, "commit", "-q", "-m", "link")
    entries = list(gitio.tree_entries(gitio.open_repo(root), "HEAD"))
    by_oid: dict[str, list[Entry]] = {}
    for entry in entries:
        by_oid.setdefault(entry.oid, []).append(entry)
    return root, by_oid


def read_back(root: Path, by_oid: dict[str, list[Entry]], limit: int) -> dict[str, bytes | None]:
    got = dict(checkout.CheckoutReader(root, by_oid).read_many(list(by_oid), limit))
    return {by_oid[o][0].path: (None if b is None else b.data) for o, b in got.items()}


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_the_reader_takes_only_files_that_are_their_blob(
    tmp_path: Path, object_format: str
) -> None:
    root, by_oid = reader_repo(tmp_path, f"--object-format={object_format}")
    (root / "edited.txt").write_text("edited\n")
    (root / "fifo.txt").unlink()
    os.mkfifo(root / "fifo.txt")  # opened without blocking, and not a regular file
    shutil.move(root / "linked", root / "real")
    os.symlink("real", root / "linked")  # same bytes behind it: still never followed
    (root / "gone.txt").unlink()
    (root / "folder.txt").unlink()
    (root / "folder.txt").mkdir()
    got = read_back(root, by_oid, 4096)
    assert got["plain.txt"] == b"plain\n"
    assert got["deep/er/file.txt"] == b"deep\n"
    assert got["target.txt"] == b"t\n"
    for path in ("edited.txt", "fifo.txt", "linked/inner.txt", "gone.txt", "folder.txt"):
        assert got[path] is None, path
    assert got["big.txt"] is None  # over the limit: cat-file reads its head and its size
    assert got["link"] is None  # a symlink's blob is its target text: through git
    assert read_back(root, by_oid, 10_000)["big.txt"] == b"x" * 5000


def test_the_reader_outside_a_folder_it_can_open_answers_none(tmp_path: Path) -> None:
    _, by_oid = reader_repo(tmp_path)
    got = dict(checkout.CheckoutReader(tmp_path / "nowhere", by_oid).read_many(list(by_oid), 9))
    assert set(got) == set(by_oid) and all(b is None for b in got.values())


def test_the_reader_left_unfinished_closes_its_folder(tmp_path: Path) -> None:
    root = init(tmp_path / "r")
    commit(root, {f"f{i:03}.txt": f"{i}\n" for i in range(50)})
    by_oid: dict[str, list[Entry]] = {}
    for entry in gitio.tree_entries(gitio.open_repo(root), "HEAD"):
        by_oid.setdefault(entry.oid, []).append(entry)
    before = sorted(os.listdir("/proc/self/fd")) if Path("/proc/self/fd").is_dir() else None
    reader = checkout.CheckoutReader(root, by_oid)
    answers = reader.read_many(list(by_oid), 100)
    assert next(answers)[1] is not None
    answers.close()  # the caller stops early (the engine switches to git)
    assert reader._fd is None
    if before is not None:
        assert sorted(os.listdir("/proc/self/fd")) == before


def test_the_pool_reads_from_the_checkout_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forked workers each read their chunk's files (and cat-file for the rest): the report is
    the serial one through git, as committed and with files edited after the commit."""
    from apc_tools.core import pool

    root = corpus_repo(tmp_path)
    commit(root, {f"src/m{i}.py": f"x = {i}\n" for i in range(40)})
    monkeypatch.setenv(pool.WORKERS_ENV, "1")
    serial = report(root, monkeypatch, False)
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "2")
    monkeypatch.setenv(pool.WORKERS_ENV, "3")
    monkeypatch.setattr("apc_tools.boundary.blobs.POOL_MIN_BLOBS", 2)
    assert report(root, monkeypatch, True) == serial
    for index in range(0, 40, 3):
        (root / "src" / f"m{index}.py").write_text("edited\n")
    assert report(root, monkeypatch, True) == serial
