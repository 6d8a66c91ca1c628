"""What Codex sends from a folder (AGM002 on the chain, AGM007, AGM008) through validate() and
`apc validate` on real trees; the readings themselves are held by tests/conformance (the real
Codex 0.171.0 against the loopback mock)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from tests.checks_base import run, where
from tests.conftest import git, run_apc

LINE = "r" * 99 + "\n"  # 100 bytes a line


def lines(count: int) -> str:
    return LINE * count


def messages(found: list, rule: str) -> list[str]:  # type: ignore[type-arg]
    return [f.message for f in found if f.rule == rule]


def test_a_nested_file_is_cut_where_its_parents_leave_off(tmp_path: Path) -> None:
    # 30,000 bytes at the root leave 2,768 for packages/api/AGENTS.md (5,000): cut on line 28
    found = run(tmp_path, {"AGENTS.md": lines(300), "packages/api/AGENTS.md": lines(50)})
    assert where(found, "AGM002") == [("packages/api/AGENTS.md", 28, 69)]
    (message,) = messages(found, "AGM002")
    assert "first 2768 bytes" in message and "AGENTS.md (29.3 KiB)" in message
    assert where(found, "AGM008") == []


def test_a_nested_file_after_a_full_budget_is_never_sent(tmp_path: Path) -> None:
    files = {
        "AGENTS.md": lines(320),  # 32,000
        "a/AGENTS.md": lines(10),  # 1,000: cut at 768
        "a/b/AGENTS.md": "# b\n",
        "a/c/AGENTS.md": "# c\n",
        "d/AGENTS.md": "# d\n",  # beside a: only the root is above it
    }
    found = run(tmp_path, files)
    assert where(found, "AGM002") == [("a/AGENTS.md", 8, 69)]
    assert where(found, "AGM008") == [("a/b/AGENTS.md", 1, 1), ("a/c/AGENTS.md", 1, 1)]
    message = messages(found, "AGM008")[0]
    assert "AGENTS.md (31.2 KiB), a/AGENTS.md (0.8 KiB)" in message
    assert all(f.severity.value == "warning" for f in found if f.rule in ("AGM002", "AGM008"))


def test_a_file_alone_over_the_budget_keeps_its_own_message(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.md": lines(400), "a/AGENTS.md": "# a\n"})
    assert where(found, "AGM002") == [("AGENTS.md", 328, 69)]
    assert messages(found, "AGM002")[0].startswith("AGENTS.md is 40000 bytes")
    assert where(found, "AGM008") == [("a/AGENTS.md", 1, 1)]


def test_whitespace_only_parents_cost_nothing(tmp_path: Path) -> None:
    files = {"AGENTS.md": lines(300), "a/AGENTS.md": "\n\n", "a/b/AGENTS.md": "# b\n"}
    found = run(tmp_path, files)
    assert where(found, "AGM002") == where(found, "AGM008") == []


def test_a_parent_linked_again_counts_twice(tmp_path: Path) -> None:
    files = {"AGENTS.md": lines(200), "a/b/AGENTS.md": "# b\n"}
    run(tmp_path, files)
    os.symlink("../AGENTS.md", tmp_path / "a/AGENTS.md")
    found = run(tmp_path, files)
    assert where(found, "AGM002") == [("a/AGENTS.md", 128, 69)]  # 20,000 + 12,768
    message = messages(found, "AGM008")[0]
    assert "a/AGENTS.md (12.5 KiB, the text of AGENTS.md again)" in message


def test_the_override_shadows_the_file_beside_it_only(tmp_path: Path) -> None:
    files = {
        "AGENTS.override.md": "# Local\n\nSee [notes](docs/missing.md).\n",
        "a/AGENTS.md": "# a\n",
    }
    found = run(tmp_path, files)
    assert where(found, "AGM007") == [("AGENTS.md", 1, 1)]
    assert "AGENTS.override.md instead" in messages(found, "AGM007")[0]
    # the override is validated as an AGENTS.md (here: its broken link)
    assert [(f.path, f.line) for f in found if f.rule == "AGM003"] == [("AGENTS.override.md", 3)]
    assert all(f.path != "a/AGENTS.md" for f in found)


def test_the_override_takes_the_budget_of_its_folder(tmp_path: Path) -> None:
    files = {"AGENTS.md": "# small\n", "AGENTS.override.md": lines(330), "a/AGENTS.md": "# a\n"}
    found = run(tmp_path, files)
    assert where(found, "AGM002") == [("AGENTS.override.md", 328, 69)]
    assert where(found, "AGM008") == [("a/AGENTS.md", 1, 1)]
    assert "AGENTS.override.md (32.0 KiB)" in messages(found, "AGM008")[0]


def test_an_empty_override_still_shadows(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.override.md": " \n"})
    assert where(found, "AGM007") == [("AGENTS.md", 1, 1)]
    assert "the override is empty: nothing is sent" in messages(found, "AGM007")[0]


def test_a_dangling_override_link_shadows_nothing(tmp_path: Path) -> None:
    # Codex 0.171.0 falls through to AGENTS.md when the override is a link to nothing
    run(tmp_path, {})
    os.symlink("nowhere.md", tmp_path / "AGENTS.override.md")
    found = run(tmp_path, {})
    assert where(found, "AGM007") == []


def test_from_a_file_argument_and_in_a_git_repository(
    git_repo: Callable[..., Path],
) -> None:
    root = git_repo({"AGENTS.md": lines(330), "packages/api/AGENTS.md": "# api\n"})
    done = run_apc(root / "packages", "validate", "api/AGENTS.md", "--format", "json")
    found = json.loads(done.stdout)["findings"]
    assert [(f["rule"], f["path"]) for f in found] == [("AGM008", "packages/api/AGENTS.md")]
    assert done.returncode == 0  # a warning
    strict = run_apc(root, "validate", "--strict", "packages/api/AGENTS.md")
    assert strict.returncode == 1
    git(root, "status")  # the repository is untouched
