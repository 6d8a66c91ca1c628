"""The atomic store and the project boundary (apc_tools.runtime.store), on real files."""

from __future__ import annotations

import os
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
