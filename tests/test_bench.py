"""A cheap smoke test of the benchmarks' own machinery (bench/ is not run by CI): the repositories
they build hold what the tables claim, and a verdict that differs is reported as a MISMATCH.

The trees here are tiny (a synthetic text pool instead of the standard library); the real apc
runs on them as a child process, as the benchmarks run it."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))

import boundary_scan  # noqa: E402
import timing  # noqa: E402

APC = [sys.executable, "-m", "apc_tools"]


def pool() -> itertools.cycle[tuple[str, bytes]]:
    return itertools.cycle(
        [(".py", b"def f(x):\n    return x + 1\n" * 40), (".c", b"int x;\n" * 90)]
    )


def rev_paths(repo: Path, rev: str) -> set[str]:
    out = boundary_scan.git(repo, "ls-tree", "-r", "--name-only", "-z", rev).stdout.decode()
    return {p for p in out.split("\0") if p}


def apc_json(repo: Path, cache: Path, *args: str) -> timing.Verdict:
    sample = timing.run_child(
        [*APC, "boundary", *args, "--format", "json"], repo, {"XDG_CACHE_HOME": str(cache)}
    )
    assert sample.code == 1, sample.stderr.decode(errors="replace")
    return timing.verdict(sample.stdout)


def test_history_repository_has_the_commits_and_the_one_old_session(tmp_path: Path) -> None:
    repo = tmp_path / "history"
    files = boundary_scan.build_history(repo, commits=60, files=6, pool=pool())
    assert files == 6 + 60 // 25  # a file added every 25th commit
    count = boundary_scan.git(repo, "rev-list", "--count", "HEAD").stdout.decode().strip()
    assert count == "60"
    assert boundary_scan.SESSION_PATH in rev_paths(repo, "HEAD~54")  # commit 6 added it
    assert boundary_scan.SESSION_PATH not in rev_paths(repo, "HEAD")  # commit 56 deleted it
    found = apc_json(repo, tmp_path / "cache", "--history")
    assert dict(found.rules) == {"BPA002": 1, "BTR001": 1}


def test_big_tree_base_has_the_planted_leaks_and_a_change_is_ten_new_blobs(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "big"
    count, _ = boundary_scan.build(repo, files=40, megabytes=0, max_file=4000, pool=pool())
    assert count == 40
    boundary_scan.base(repo)
    assert set(boundary_scan.PLANTED) <= rev_paths(repo, boundary_scan.BASE_REF)
    before = apc_json(repo, tmp_path / "cache", "--tracked")
    assert dict(before.rules) == {"BMK002": 1, "BPA002": 2, "BTR001": 3}
    sources = [p for p in boundary_scan.tracked_files(repo) if p.endswith((".py", ".c"))]
    boundary_scan.commit_change(repo, sources[::4][:10], "t-1")
    diff = boundary_scan.git(repo, "diff", "--name-only", boundary_scan.BASE_REF, "HEAD")
    assert len(diff.stdout.split()) == 10
    after = apc_json(repo, tmp_path / "cache", "--tracked")
    assert after == before  # a comment line changes no finding
    boundary_scan.base(repo)
    head = boundary_scan.git(repo, "rev-parse", "HEAD", boundary_scan.BASE_REF).stdout.split()
    assert head[0] == head[1]


def test_a_differing_verdict_is_a_mismatch(capsys: pytest.CaptureFixture[str]) -> None:
    one = timing.verdict(b'{"findings": [{"rule": "BTR001", "path": "a"}], "summary": {}}')
    same = timing.verdict(b'{"findings": [{"path": "a", "rule": "BTR001"}], "summary": {}}')
    other = timing.verdict(b'{"findings": [], "summary": {}}')
    assert timing.same_verdicts("x", {"cold 1": one, "warm 1": same})
    assert "identical in 2 runs" in capsys.readouterr().out
    assert not timing.same_verdicts("x", {"cold 1": one, "warm 1": other})
    out = capsys.readouterr().out
    assert "MISMATCH (x)" in out and "MISMATCH warm 1: 0 findings" in out


def test_a_report_that_is_not_json_stops_the_benchmark() -> None:
    with pytest.raises(SystemExit, match="no JSON report"):
        timing.verdict(b"Traceback (most recent call last):")


def test_the_switches_are_not_inherited(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("APC_NO_CACHE", "1")
    env = timing.child_env({"XDG_CACHE_HOME": "/x"})
    assert "APC_NO_CACHE" not in env and env["XDG_CACHE_HOME"] == "/x"
    assert timing.child_env({"APC_PREFILTER": "git"})["APC_PREFILTER"] == "git"
    done = subprocess.run([*APC, "boundary", "--help"], capture_output=True, text=True)
    assert timing.has_no_cache(APC, "boundary") == ("--no-cache" in done.stdout)
