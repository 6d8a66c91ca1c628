"""The progress line: stderr only, forced by --progress, else only on a terminal for big scans."""

from __future__ import annotations

from pathlib import Path

import pytest

from apc_tools.cli.common import LARGE_SCAN, ProgressLine, progress_line


def test_flags_and_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    assert progress_line("apc x", False) is None
    forced = progress_line("apc x", True)
    assert forced is not None and forced.minimum == 0
    monkeypatch.setattr("sys.stderr.isatty", lambda: False)
    assert progress_line("apc x", None) is None
    monkeypatch.setattr("sys.stderr.isatty", lambda: True)
    auto = progress_line("apc x", None)
    assert auto is not None and auto.minimum == LARGE_SCAN
    history = progress_line("apc x", None, large=0)
    assert history is not None and history.minimum == 0


def test_redraws_on_stderr_only_when_the_percentage_moves(
    capsys: pytest.CaptureFixture[str],
) -> None:
    bar = ProgressLine("apc check")
    for done in range(1, 401):
        bar(done, 400)
    bar.close()
    out, err = capsys.readouterr()
    assert out == ""
    frames = err.split("\r")[1:]
    assert len(frames) == 101  # 0% .. 100%, each once
    assert frames[-1] == "apc check: 400/400 blobs (100%)\n"  # close() ends the line


def test_small_scans_stay_silent_unless_forced(capsys: pytest.CaptureFixture[str]) -> None:
    bar = ProgressLine("apc check", minimum=100)
    bar(5, 10)
    bar.close()
    assert capsys.readouterr() == ("", "")


def test_an_error_exit_starts_its_own_line_after_the_progress(tmp_path: Path) -> None:
    """A scan that stops with exit 2 (a damaged repository: a blob is missing) ends the
    progress line before `apc: error:`, so the error is not written after the bar."""
    from tests.conftest import git, run_apc

    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    for i in range(3):
        (repo / f"f{i}.txt").write_text(f"x{i}\n")
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "a")
    oid = git(repo, "rev-parse", "HEAD:f1.txt").strip()
    (repo / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    done = run_apc(repo, "boundary", "--progress", "--no-cache")
    assert done.returncode == 2, done.stderr
    assert "blobs (" in done.stderr
    error_at = done.stderr.index("apc: error:")
    assert done.stderr[error_at - 1] == "\n"  # on a line of its own
