"""The atomic store and the project boundary (apc_tools.runtime.store), on real files."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from apc_tools.findings import CannotRun
from apc_tools.runtime.store import (
    InsideProject,
    StoreError,
    _ensure_outside_root,
    atomic_write,
    ensure_outside,
)


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".apc-tmp"))


# --------------------------------------------------------------------------------------------
# atomic_write


def test_writes_a_new_file_from_str_and_bytes_chunks(tmp_path: Path) -> None:
    target = tmp_path / "out.jsonl"
    assert atomic_write(target, ["héllo ", b"w\xc3\xb6rld", "\n"]) is True
    assert target.read_text(encoding="utf-8") == "héllo wörld\n"
    assert leftovers(tmp_path) == []


def test_new_file_gets_the_mode_open_would_give(tmp_path: Path) -> None:
    mask = os.umask(0o022)
    try:
        target = tmp_path / "new.json"
        atomic_write(target, ["[]"])
    finally:
        os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o644


def test_replacing_keeps_the_original_mode(tmp_path: Path) -> None:
    target = tmp_path / "history.json"
    target.write_text("old")
    target.chmod(0o600)
    atomic_write(target, ["new"])
    assert target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600


def failing_chunks(after: int) -> Iterator[str]:
    for index in range(after):
        yield f"chunk {index}\n" * 1000
    raise RuntimeError("disk on fire")


def test_failure_mid_write_leaves_the_original_and_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "history.jsonl"
    target.write_text("original\n")
    with pytest.raises(RuntimeError, match="disk on fire"):
        atomic_write(target, failing_chunks(50))
    assert target.read_text() == "original\n"
    assert leftovers(tmp_path) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["history.jsonl"]


def test_failure_mid_write_of_a_new_file_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError):
        atomic_write(tmp_path / "out.json", failing_chunks(3))
    assert list(tmp_path.iterdir()) == []


def test_interrupt_mid_write_leaves_the_original(tmp_path: Path) -> None:
    target = tmp_path / "history.json"
    target.write_text("[]")

    def interrupted() -> Iterator[str]:
        yield "[{"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(target, interrupted())
    assert target.read_text() == "[]"
    assert leftovers(tmp_path) == []


def test_keep_false_leaves_the_target_untouched(tmp_path: Path) -> None:
    target = tmp_path / "history.json"
    target.write_text("same")
    before = target.stat()
    assert atomic_write(target, ["same"], keep=lambda: False) is False
    after = target.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    assert leftovers(tmp_path) == []


def test_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match=r"the folder .*nope does not exist"):
        atomic_write(tmp_path / "nope" / "out.json", ["[]"])


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_read_only_folder_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(StoreError, match="cannot write in"):
            atomic_write(folder / "out.json", ["[]"])
    finally:
        folder.chmod(0o700)


def test_store_errors_are_cannot_run() -> None:
    assert issubclass(StoreError, CannotRun)
    assert issubclass(InsideProject, StoreError)


# --------------------------------------------------------------------------------------------
# The project boundary, by root path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    (root / ".apc" / "agents").mkdir(parents=True)
    (root / "AGENTS.md").write_text("# Agents\n")
    return root


INSIDE = ["AGENTS.md", "out.json", ".apc/new.jsonl", "deep/not/yet/there.json", "."]


@pytest.mark.parametrize("rel", INSIDE)
def test_targets_inside_the_project_are_refused(project: Path, rel: str) -> None:
    with pytest.raises(InsideProject, match="inside the project tree"):
        _ensure_outside_root(project, project / rel)


def test_relative_and_dotdot_targets_are_resolved(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / ".apc")
    with pytest.raises(InsideProject):
        _ensure_outside_root(project, Path("../x.json"))
    assert _ensure_outside_root(project, Path("../../x.json")) == project.parent / "x.json"


def test_symlinked_folder_into_the_project_is_refused(project: Path, tmp_path: Path) -> None:
    link = tmp_path / "innocent"
    link.symlink_to(project / ".apc")
    with pytest.raises(InsideProject):
        _ensure_outside_root(project, link / "out.json")


def test_symlinked_file_into_the_project_is_refused(project: Path, tmp_path: Path) -> None:
    link = tmp_path / "history.json"
    link.symlink_to(project / "AGENTS.md")
    with pytest.raises(InsideProject):
        _ensure_outside_root(project, link)


def test_project_reached_through_a_symlinked_root_is_refused(project: Path, tmp_path: Path) -> None:
    alias = tmp_path / "alias"
    alias.symlink_to(project)
    with pytest.raises(InsideProject):
        _ensure_outside_root(alias, project / "x.json")
    with pytest.raises(InsideProject):
        _ensure_outside_root(project, alias / "x.json")


def test_outside_targets_are_allowed_and_resolved(project: Path, tmp_path: Path) -> None:
    sibling = tmp_path / "proj2" / "out.json"  # shares the root's name as a prefix
    assert _ensure_outside_root(project, sibling) == sibling.resolve()
    assert _ensure_outside_root(project, tmp_path / "out.json") == (tmp_path / "out.json")
    link = tmp_path / "link.json"
    real = tmp_path / "real.json"
    real.write_text("[]")
    link.symlink_to(real)
    assert _ensure_outside_root(project, link) == real.resolve()


def test_no_project_allows_everything(tmp_path: Path) -> None:
    assert _ensure_outside_root(None, tmp_path / "x.json") == tmp_path / "x.json"
    assert ensure_outside(None, tmp_path / "x.json") == tmp_path / "x.json"


# --------------------------------------------------------------------------------------------
# The project boundary, through the immutable Contract (as the CLI uses it)


def test_ensure_outside_takes_the_root_from_the_contract(
    git_repo: Callable[..., Path], tmp_path: Path
) -> None:
    from apc_tools.contract.validate import load_contract

    root = git_repo(
        {"AGENTS.md": "# Agents\n", ".apc/project.json": '{"name": "demo", "apc": "0.1"}\n'}
    )
    contract = load_contract(root)
    assert contract is not None
    with pytest.raises(InsideProject, match=str(root.resolve())):
        ensure_outside(contract, root / ".apc" / "sessions" / "x.jsonl")
    outside = tmp_path / "elsewhere.jsonl"
    assert ensure_outside(contract, outside) == outside.resolve()


# --------------------------------------------------------------------------------------------
# atomic_write holds the boundary itself, for any caller (issue 11, H1)


@pytest.mark.parametrize("rel", ["AGENTS.md", ".apc/agents/reviewer.md", "sub/new.jsonl"])
def test_atomic_write_refuses_a_target_inside_a_project(project: Path, rel: str) -> None:
    target = project / rel
    with pytest.raises(InsideProject, match="inside the project tree"):
        atomic_write(target, ["[]"])
    assert not target.exists() or target.read_text() != "[]"


def test_atomic_write_resolves_the_last_symlink_too(project: Path, tmp_path: Path) -> None:
    link = tmp_path / "out" / "fixed.json"
    link.parent.mkdir()
    link.symlink_to(project / "AGENTS.md")
    with pytest.raises(InsideProject, match="resolves to"):
        atomic_write(link, ["[]"])
    assert (project / "AGENTS.md").read_text() == "# Agents\n"
    assert leftovers(project) == [] and leftovers(link.parent) == []


def test_a_folder_holding_only_agents_md_is_a_project(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("# A\n")
    with pytest.raises(InsideProject):
        atomic_write(tmp_path / "deep" / "x.json", ["[]"])


# --------------------------------------------------------------------------------------------
# Targets that are not regular files are never replaced (H6)


def test_a_fifo_with_a_reader_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        assert atomic_write(fifo, ["[1, ", b"2]"]) is True
        assert os.read(reader, 100) == b"[1, 2]"
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(fifo.lstat().st_mode) and leftovers(tmp_path) == []


def test_a_fifo_without_a_reader_is_refused(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(StoreError, match="no process reads the FIFO"):
        atomic_write(fifo, ["[]"])
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_dev_null_is_written_through_and_stays_a_device() -> None:
    assert atomic_write(Path(os.devnull), ["[]"]) is True
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_device_is_never_replaced_in_place() -> None:
    with pytest.raises(StoreError, match="not a regular file"):
        atomic_write(Path(os.devnull), ["[]"], keep=lambda: True)


def test_a_folder_as_target_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir()
    with pytest.raises(StoreError, match="not a regular file"):
        atomic_write(tmp_path / "dir", ["[]"])


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_a_full_device_names_the_target() -> None:
    with pytest.raises(StoreError, match="cannot write /dev/full: No space left on device"):
        atomic_write(Path("/dev/full"), ["x" * (1 << 21)])


# --------------------------------------------------------------------------------------------
# Temporary files of killed runs are swept; a live writer's are not


def stale(folder: Path, name: str) -> Path:
    left = folder / f".{name}.0123456789ab.apc-tmp"
    left.write_text("half a history")
    old = time.time() - 3600
    os.utime(left, (old, old))
    return left


def test_a_stale_temporary_file_is_swept_by_the_next_write(tmp_path: Path) -> None:
    left = stale(tmp_path, "out.json")
    other = stale(tmp_path, "other.json")  # another file's: not this write's business
    atomic_write(tmp_path / "out.json", ["[]"])
    assert not left.exists() and other.exists()


def test_a_locked_temporary_file_is_kept(tmp_path: Path) -> None:
    import fcntl

    left = stale(tmp_path, "out.json")
    fd = os.open(left, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # as a live writer holds it
        atomic_write(tmp_path / "out.json", ["[]"])
        assert left.exists()
    finally:
        os.close(fd)


def test_a_fresh_temporary_file_is_kept(tmp_path: Path) -> None:
    fresh = tmp_path / ".out.json.0123456789ab.apc-tmp"
    fresh.write_text("being written")
    atomic_write(tmp_path / "out.json", ["[]"])
    assert fresh.exists()
