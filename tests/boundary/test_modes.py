"""The four git sources of the gate, PATH restriction, -C, and what it refuses to run on."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from apc_tools.findings import CannotRun
from tests.boundary.helpers import CLAUDE, commit, findings, init, remove, repo, rules_at
from tests.conftest import git, write_tree

CLEAN = {"README.md": "# Project\n", "src/app.py": "print('hi')\n"}


def test_tracked_reads_the_tree_at_head_not_the_working_tree(tmp_path: Path) -> None:
    root = repo(tmp_path, {**CLEAN, "notes/session.jsonl": CLAUDE})
    (root / "notes" / "session.jsonl").unlink()  # deleted in the working tree only
    write_tree(root, {"untracked.jsonl": CLAUDE})  # never committed
    found = findings(root)
    assert rules_at(found, "notes/session.jsonl") == {"BTR001"}
    assert not rules_at(found, "untracked.jsonl")


def test_clean_repository_has_no_findings(tmp_path: Path) -> None:
    assert findings(repo(tmp_path, CLEAN)) == []


def test_staged_scans_index_changes_only(tmp_path: Path) -> None:
    root = repo(tmp_path, {**CLEAN, "old.jsonl": CLAUDE})
    write_tree(root, {"new.jsonl": CLAUDE, "worktree-only.jsonl": CLAUDE})
    git(root, "add", "new.jsonl")
    found = findings(root, mode="staged")
    assert {f.path for f in found} == {"new.jsonl"}


def test_staged_with_paths_reads_their_index_blobs_changed_or_not(tmp_path: Path) -> None:
    root = repo(tmp_path, {**CLEAN, "old.jsonl": CLAUDE})
    (root / "old.jsonl").write_text("clean now\n")  # not staged: the index still holds the leak
    found = findings(root, mode="staged", paths=(Path("old.jsonl"), Path("README.md")))
    assert rules_at(found, "old.jsonl") == {"BTR001"}


def test_staged_before_the_first_commit(tmp_path: Path) -> None:
    root = init(tmp_path / "fresh")
    write_tree(root, {"a.jsonl": CLAUDE, "README.md": "x\n"})
    git(root, "add", "-A")
    found = findings(root, mode="staged")
    assert rules_at(found, "a.jsonl") == {"BTR001"}


def test_range_finds_a_leak_deleted_in_the_next_commit_and_names_its_commit(
    tmp_path: Path,
) -> None:
    root = repo(tmp_path, CLEAN)
    base = git(root, "rev-parse", "HEAD").strip()
    leak = commit(root, {"dump/s.jsonl": CLAUDE}, "oops")
    remove(root, "dump/s.jsonl")
    found = findings(root, mode="range", rev_range=f"{base}..HEAD")
    assert [(f.rule, f.path, f.commit) for f in found] == [("BTR001", "dump/s.jsonl", leak)]
    assert findings(root) == []  # the tree at HEAD is clean


def test_range_merge_commit_against_first_parent(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    base = git(root, "rev-parse", "HEAD").strip()
    git(root, "checkout", "-q", "-b", "feature")
    side = commit(root, {"side.jsonl": CLAUDE}, "side")
    git(root, "checkout", "-q", "main")
    commit(root, {"main.txt": "m\n"}, "main work")
    git(root, "merge", "-q", "--no-edit", "feature")
    found = findings(root, mode="range", rev_range=f"{base}..HEAD")
    # found once, at the commit that added it (the merge brings the same blob: deduplicated)
    assert [(f.path, f.commit) for f in found] == [("side.jsonl", side)]


def test_history_reads_every_reachable_commit(tmp_path: Path) -> None:
    root = repo(tmp_path, {**CLEAN, "a/s.jsonl": CLAUDE})
    first = git(root, "rev-parse", "HEAD").strip()
    remove(root, "a/s.jsonl")
    git(root, "checkout", "-q", "-b", "other")
    other = commit(root, {"b/.aider.chat.history.md": "x\n"}, "other")
    git(root, "checkout", "-q", "main")
    found = findings(root, mode="history")
    assert {(f.rule, f.path, f.commit) for f in found} == {
        ("BTR001", "a/s.jsonl", first),
        ("BPA002", "b/.aider.chat.history.md", other),
    }


def test_paths_restrict_and_cwd_is_found_like_git(tmp_path: Path) -> None:
    root = repo(tmp_path, {"a/s.jsonl": CLAUDE, "b/s.jsonl": CLAUDE})
    assert {f.path for f in findings(root, paths=(Path("a"),))} == {"a/s.jsonl"}
    sub = root / "b"
    assert {f.path for f in findings(sub, paths=(Path("s.jsonl"),))} == {"b/s.jsonl"}
    assert {f.path for f in findings(sub)} == {"a/s.jsonl", "b/s.jsonl"}


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(CannotRun, match="not a git repository"):
        findings(tmp_path)


def test_path_outside_the_repository(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    with pytest.raises(CannotRun, match="outside the repository"):
        findings(root, paths=(tmp_path,))


def test_bad_range(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    with pytest.raises(CannotRun, match=r"BASE\.\.HEAD"):
        findings(root, mode="range", rev_range="HEAD")
    with pytest.raises(CannotRun, match="no such commit"):
        findings(root, mode="range", rev_range="nope..HEAD")


def test_shallow_clone_missing_the_base(tmp_path: Path) -> None:
    origin = repo(tmp_path, CLEAN, name="origin")
    base = git(origin, "rev-parse", "HEAD").strip()
    commit(origin, {"x.txt": "1\n"}, "two")
    commit(origin, {"y.txt": "2\n"}, "three")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{origin}", str(clone)],
        check=True,
        capture_output=True,
    )
    with pytest.raises(CannotRun, match="shallow clone"):
        findings(clone, mode="range", rev_range=f"{base}..HEAD")
    with pytest.raises(CannotRun, match=r"--history in a shallow clone.*--unshallow"):
        findings(clone, mode="history")
    assert findings(clone) == []  # --tracked needs only HEAD's tree


@pytest.mark.skipif(os.name != "posix" or os.geteuid() != 0, reason="needs root to chown")
def test_safe_directory_refusal(tmp_path: Path) -> None:
    root = repo(tmp_path, CLEAN)
    for folder, dirs, names in os.walk(root):
        for name in [*dirs, *names]:
            os.lchown(os.path.join(folder, name), 12345, 12345)
    os.chown(root, 12345, 12345)
    with pytest.raises(CannotRun, match=r"safe\.directory"):
        findings(root)


def test_git_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = repo(tmp_path, CLEAN)
    empty = tmp_path / "nobin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert shutil.which("git") is None
    with pytest.raises(CannotRun, match="git is not installed"):
        findings(root)


def test_partial_clone_refuses_missing_blobs_and_never_fetches(tmp_path: Path) -> None:
    origin = repo(tmp_path, {**CLEAN, "big/data.jsonl": CLAUDE}, name="origin")
    git(origin, "config", "uploadpack.allowFilter", "true")
    clone = tmp_path / "partial"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--no-checkout",
            "--filter=blob:none",
            f"file://{origin}",
            str(clone),
        ],
        check=True,
        capture_output=True,
    )
    oid = git(clone, "rev-parse", "HEAD:big/data.jsonl").strip()
    with pytest.raises(CannotRun, match=r"blobs .* missing from this partial clone"):
        findings(clone)  # never a pass on blobs it could not read (tests/boundary/test_fail_closed)
    missing = subprocess.run(
        ["git", "cat-file", "-e", oid],
        cwd=clone,
        env={**os.environ, "GIT_NO_LAZY_FETCH": "1"},
        capture_output=True,
    )
    assert missing.returncode != 0  # still not fetched
