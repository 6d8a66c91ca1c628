"""contract.project.walk_files (os.scandir) lists exactly what the os.walk listing it replaced
did: symlinked folders listed not entered, dependency folders skipped, broken links listed,
unlistable folders reported. Real trees on disk, and the shared corpus."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from apc_tools.contract.project import SKIP_DIRS, walk_files
from tests.conftest import SHARED, needs_shared


def os_walk_listing(root: Path, unlistable: list[str]) -> list[str]:
    """The listing as walk_files made it with os.walk (before the scandir walk)."""

    def failed(error: OSError) -> None:
        rel = os.path.relpath(os.fsdecode(error.filename), root)
        unlistable.append("." if rel == "." else rel.replace(os.sep, "/"))

    out: list[str] = []
    for folder, dirs, names in os.walk(root, onerror=failed, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        base = os.path.relpath(folder, root)
        names = names + [d for d in dirs if os.path.islink(os.path.join(folder, d))]
        for name in names:
            rel = name if base == "." else f"{base}/{name}"
            out.append(rel.replace(os.sep, "/"))
    return sorted(out)


def test_same_listing_as_os_walk(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    outside = tmp_path / "outside"
    (outside / "agents").mkdir(parents=True)
    (outside / "agents" / "x.md").write_text("x")
    for rel in ("AGENTS.md", ".claude/agents/a.md", "node_modules/p/AGENTS.md", "a/b/c/SKILL.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("text")
    (root / ".claude" / "linked").symlink_to(outside / "agents")  # listed, not entered
    (root / "node_modules" / "more").symlink_to(outside)
    (root / "dangling.md").symlink_to(tmp_path / "nowhere")
    (root / "a" / "file-link.md").symlink_to(root / "AGENTS.md")
    locked = root / "locked"
    locked.mkdir()
    (locked / "hidden.md").write_text("x")
    locked.chmod(0)
    try:
        theirs: list[str] = []
        mine: list[str] = []
        expected = os_walk_listing(root, theirs)
        assert walk_files(root, mine) == expected
        assert ".claude/linked" in expected and "dangling.md" in expected
        assert not any(p.startswith("node_modules/") for p in expected)
        if os.access(locked, os.R_OK):  # root ignores the mode: nothing unlistable then
            assert mine == theirs == []
        else:
            assert mine == theirs == ["locked"]
    finally:
        locked.chmod(0o755)


@pytest.mark.parametrize("name", ["corpus", "corpus/transcripts"])
def test_same_listing_as_os_walk_on_the_corpus(name: str) -> None:
    root = SHARED / name
    needs_shared(root)
    theirs: list[str] = []
    mine: list[str] = []
    assert walk_files(root, mine) == os_walk_listing(root, theirs)
    assert mine == theirs
