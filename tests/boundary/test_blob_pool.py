"""The blob stage on every core (apc_tools/boundary/blobs.py, ``_BlobStage.pooled``).

Above a threshold the blobs a scan reads are cut into contiguous chunks, each read (its own
``cat-file``) and judged in a forked worker, and the parent merges the findings, the verdicts
to store and the missing entries in the serial order. Here the pool is forced on every tree
(``APC_POOL_MIN_ITEMS=2``, three workers) and each report must be byte-identical to the serial
one (``APC_POOL_WORKERS=1``): every boundary case, the real transcript corpus, the cache the
parent fills; a worker that raises or dies costs nothing; a missing blob is still exit 2;
progress is reported as in a serial run; a small scan never forks.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apc_tools.boundary import blobs
from apc_tools.boundary.engine import Options, scan
from apc_tools.core import cache as store
from apc_tools.core import pool
from apc_tools.findings import CannotRun
from apc_tools.report.json_out import render_json
from tests.boundary.cases import case_repo
from tests.boundary.helpers import commit, init, repo
from tests.boundary.test_fail_closed import clone, partial_origin
from tests.conftest import TRANSCRIPTS, git, needs_shared
from tests.test_cases import CASES, case_spec

BOUNDARY_CASES = sorted(
    case
    for kind in ("valid", "invalid")
    for family in (CASES / kind).iterdir()
    for case in family.iterdir()
    if (case / "case.json").is_file() and case_spec(case).get("command") == "boundary"
)
SESSION = (
    '{"type":"user","sessionId":"9eda0c53-1f0e-4a4c-9a57-3c1a1d2f0b11","parentUuid":null,'
    '"uuid":"a1","cwd":"/work","message":{"role":"user","content":"fix the build"}}\n'
)


@pytest.fixture(autouse=True)
def _no_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-unused"))
    monkeypatch.delenv(store.NO_CACHE_ENV, raising=False)
    monkeypatch.delenv(pool.MIN_ITEMS_ENV, raising=False)
    monkeypatch.delenv(pool.WORKERS_ENV, raising=False)


@pytest.fixture
def chunks_by(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A file each process that judges a chunk appends its pid to (inherited through fork)."""
    log = tmp_path / "chunks.log"
    log.touch()
    real = blobs._BlobStage._chunk

    def logged(self: Any, oids: list[str], reader: Any) -> Any:
        with open(log, "a") as handle:
            handle.write(f"{os.getpid()}\n")
        return real(self, oids, reader)

    monkeypatch.setattr(blobs._BlobStage, "_chunk", logged)
    yield log


def pids(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()]


def scan_json(root: Path, monkeypatch: pytest.MonkeyPatch, how: str, **options: Any) -> str:
    """The JSON report (or why it cannot run) with the blob stage ``serial`` or ``pool``."""
    with monkeypatch.context() as patch:
        if how == "serial":
            patch.setenv(pool.WORKERS_ENV, "1")
        else:
            patch.setenv(pool.MIN_ITEMS_ENV, "2")
            patch.setenv(pool.WORKERS_ENV, "3")
        options.setdefault("cache", False)
        try:
            return render_json(scan(Options(cwd=root, **options)).result)
        except CannotRun as exc:
            return f"cannot run: {exc}"


def same_both_ways(root: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> str:
    serial = scan_json(root, monkeypatch, "serial", **options)
    pooled = scan_json(root, monkeypatch, "pool", **options)
    assert pooled == serial, options
    return serial


def build(case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, dict]:
    root, args, _ = case_repo(case, tmp_path, monkeypatch)
    return root, args


@pytest.mark.parametrize("case", BOUNDARY_CASES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_boundary_case_is_the_same_serial_and_pooled(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, args = build(case, tmp_path, monkeypatch)
    same_both_ways(root, monkeypatch, **args)
    with monkeypatch.context() as patch:  # and with the prefilter off (every blob judged)
        patch.setenv("APC_PREFILTER", "0")
        same_both_ways(root, monkeypatch, **args)


def test_the_real_transcripts_serial_and_pooled_in_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks_by: Path
) -> None:
    needs_shared(TRANSCRIPTS)
    root = init(tmp_path / "repo")
    shutil.copytree(TRANSCRIPTS, root / "corpus", symlinks=False)
    for path in sorted((root / "corpus").rglob("*")):  # each also under a plain source name
        if path.is_file() and path.stat().st_size < 4 << 20:
            flat = "_".join(path.relative_to(root / "corpus").parts)
            (root / "renamed").mkdir(exist_ok=True)
            (root / "renamed" / f"{flat}.py").write_bytes(path.read_bytes())
    for index in range(40):
        (root / "src").mkdir(exist_ok=True)
        (root / "src" / f"m{index}.py").write_text(f"def f{index}():\n    return {index}\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "corpus")
    report = same_both_ways(root, monkeypatch)
    assert '"BTR001"' in report
    used = pids(chunks_by)
    assert os.getpid() in used and len(set(used)) == 3  # the parent and two workers
    same_both_ways(root, monkeypatch, mode="history")
    git(root, "update-ref", "-d", "HEAD")
    same_both_ways(root, monkeypatch, mode="staged")


def many(count: int = 30) -> dict[str, str | bytes]:
    files: dict[str, str | bytes] = {f"src/m{i}.py": f"x = {i}\n" for i in range(count)}
    files["logs/session.py"] = SESSION
    files["notes.md"] = "a note\n[Request interrupted by user]\n"
    return files


def test_the_cache_the_parent_fills_is_the_serial_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks_by: Path
) -> None:
    root = repo(tmp_path, many())
    rows: dict[str, set[tuple[Any, ...]]] = {}
    for how in ("serial", "pool"):
        xdg = tmp_path / f"xdg-{how}"
        monkeypatch.setenv("XDG_CACHE_HOME", str(xdg))
        # a PATH argument: the per-blob verdicts of every file (the whole tree's scan keeps
        # most in its folders' verdicts, boundary/subtrees.py)
        cold = scan_json(root, monkeypatch, how, cache=True, paths=(root,))
        warm = scan_json(root, monkeypatch, "serial", cache=True, paths=(root,))
        assert warm == cold == scan_json(root, monkeypatch, "serial", paths=(root,))
        db = sqlite3.connect(xdg / "apc-tools" / "results" / "cache.sqlite3")
        try:
            rows[how] = set(db.execute("SELECT key, value FROM entries"))
        finally:
            db.close()
    assert rows["pool"] == rows["serial"] and len(rows["serial"]) > 30
    assert len(set(pids(chunks_by))) > 1


@pytest.mark.parametrize("how", ["raises", "dies"])
def test_a_failed_worker_chunk_is_judged_again_here(
    how: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = repo(tmp_path, many())
    serial = scan_json(root, monkeypatch, "serial")
    parent = os.getpid()
    real = blobs._BlobStage._chunk

    def failing(self: Any, oids: list[str], reader: Any) -> Any:
        if os.getpid() != parent:
            if how == "dies":
                os._exit(9)
            raise RuntimeError("boom in a worker")
        return real(self, oids, reader)

    monkeypatch.setattr(blobs._BlobStage, "_chunk", failing)
    assert scan_json(root, monkeypatch, "pool") == serial
    assert '"BTR001"' in serial and '"BMK002"' in serial


def test_a_missing_blob_under_the_pool_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks_by: Path
) -> None:
    root = repo(tmp_path, many())
    oid = git(root, "rev-parse", "HEAD:src/m7.py").strip()
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    pooled = scan_json(root, monkeypatch, "pool")
    assert pooled.startswith("cannot run:") and "src/m7.py" in pooled and "damaged" in pooled
    assert pooled == scan_json(root, monkeypatch, "serial")
    assert len(set(pids(chunks_by))) > 1  # the worker that read it reported it missing


def test_a_partial_clone_under_the_pool_is_exit_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks_by: Path
) -> None:
    origin = partial_origin(tmp_path)
    commit(origin, {f"src/m{i}.py": f"x = {i}\n" for i in range(20)}, "small files")
    part = clone(origin, tmp_path / "partial", "--no-checkout", "--filter=blob:limit=1k")
    pooled = scan_json(part, monkeypatch, "pool")
    assert pooled.startswith("cannot run: 1 blob (first: big/data.jsonl")
    assert "partial clone" in pooled
    assert pooled == scan_json(part, monkeypatch, "serial")
    assert len(set(pids(chunks_by))) > 1


def test_progress_is_reported_as_in_a_serial_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks_by: Path
) -> None:
    root = repo(tmp_path, many())
    calls: dict[str, list[tuple[int, int]]] = {}
    for how in ("serial", "pool"):
        seen: list[tuple[int, int]] = []
        with monkeypatch.context() as patch:
            patch.setenv(pool.WORKERS_ENV, "1" if how == "serial" else "3")
            if how == "pool":
                patch.setenv(pool.MIN_ITEMS_ENV, "2")
            scan(Options(cwd=root, cache=False), progress=lambda d, t, s=seen: s.append((d, t)))
        calls[how] = seen
    total = len(many())
    assert calls["pool"] == calls["serial"] == [(i, total) for i in range(1, total + 1)]
    assert len(set(pids(chunks_by))) > 1


def test_a_small_scan_never_forks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunks_by: Path
) -> None:
    """Without the test knob a pre-commit sized scan (and anything below
    :data:`blobs.POOL_MIN_BLOBS`) stays in this process."""
    root = repo(tmp_path, many(60))
    scan(Options(cwd=root, cache=False))
    git(root, "rm", "-q", "--cached", "src/m1.py")
    (root / "src" / "m2.py").write_text("y = 2\n")
    git(root, "add", "src/m2.py")
    scan(Options(cwd=root, cache=False, mode="staged"))
    assert set(pids(chunks_by)) <= {os.getpid()}
