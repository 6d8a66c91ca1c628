"""core/globs.py and core/gitignore.py: the matcher without backtracking keeps the semantics.

Rule and policy globs are checked on a table (Cursor/minimatch meaning: ``**`` alone spans
folders, elsewhere it is a ``*``; a pattern without a slash matches a file name anywhere).
Gitignore lines are compared with git itself: hypothesis writes a .gitignore and paths, and
``git check-ignore --no-index`` is the oracle.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apc_tools.core import gitignore
from apc_tools.core.globs import Budget, FileIndex, compile_glob, glob_match
from tests.conftest import FUZZ_EXAMPLES

TABLE = [
    ("*.ts", "a/b/c.ts", True),
    ("*.ts", "c.ts", True),
    ("*.ts", "c.tsx", False),
    ("src/**", "src", False),
    ("src/**", "src/a/b", True),
    ("src/", "src/a", True),
    ("/src/*.ts", "src/a.ts", True),
    ("./src/*.ts", "src/a.ts", True),
    ("src/**/*.ts", "src/x.ts", True),
    ("src/**/*.ts", "src/a/b/x.ts", True),
    ("src/**/*.ts", "lib/x.ts", False),
    ("src/*.ts", "src/a/x.ts", False),
    ("src/*.{ts,tsx}", "src/a.tsx", True),
    ("src/*.{ts,tsx}", "src/a.js", False),
    ("[!a]*.md", "b.md", True),
    ("[!a]*.md", "a.md", False),
    ("[a-c]?.md", "bx.md", True),
    ("a?c", "abc", True),
    ("a?c", "a/c", False),
    ("**", "x/y", True),
    ("a**b", "axxb", True),
    ("a**b", "ax/xb", False),
    ("docs/big-skill/SKILL.md", "docs/big-skill/SKILL.md", True),
    ("docs/big-skill/SKILL.md", "docs/big-skill/SKILL.mdx", False),
    ("*a*a*a*b", "xaaab", True),
    ("*a*a*a*b", "xaab", False),
    ("a/" + "**/" * 200 + "Q", "a/b/c/Q", True),
    ("a/" + "**/" * 200 + "Q", "a/b/c/d/e/f.txt", False),
]


@pytest.mark.parametrize(("pattern", "path", "expected"), TABLE)
def test_glob_semantics(pattern: str, path: str, expected: bool) -> None:
    assert glob_match(pattern, path) is expected


def test_file_index_answers_like_matching_every_file() -> None:
    files = ["src/a.ts", "src/q/x.ts", "lib/x.ts", "README.md", "docs/big-skill/SKILL.md"]
    index = FileIndex(files)
    for pattern in ("src/**/x.ts", "*.js", "src/a.ts", "SKILL.md", "lib/*", "*.md", "q/x.ts"):
        expected = any(glob_match(pattern, f) for f in files)
        assert index.any_match(compile_glob(pattern), Budget(10**6)) is expected


def test_file_index_says_none_when_the_budget_is_spent() -> None:
    index = FileIndex([f"src/f{i}.ts" for i in range(100)])
    budget = Budget(50)
    assert index.any_match(compile_glob("*.js"), budget) is None
    assert index.any_match(compile_glob("src/f1.ts"), budget) is True  # a lookup costs nothing


# --------------------------------------------------------------------------- git as the oracle

SEGMENTS = st.sampled_from(["a", "b", "ab", "x.env", "sessions", "cache", "f1", ".apc", "c d"])
LINE_PARTS = st.sampled_from(
    ["a", "b", "*", "**", "?", "[ab]", "[!a]", "*.env", "sessions", "cache", "\\!a", "x*", "f?"]
)


@st.composite
def lines(draw: st.DrawFn) -> str:
    body = "/".join(draw(st.lists(LINE_PARTS, min_size=1, max_size=4)))
    if draw(st.booleans()):
        body = "/" + body
    if draw(st.booleans()):
        body += "/"
    return ("!" if draw(st.integers(0, 4)) == 0 else "") + body


PATHS = st.lists(SEGMENTS, min_size=1, max_size=4).map("/".join)


def git_ignored(text: str, paths: list[str]) -> set[str]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        subprocess.run(["git", "init", "-q"], cwd=root, check=True)
        (root / ".gitignore").write_text(text)
        done = subprocess.run(
            ["git", "check-ignore", "--no-index", "--stdin", "-z"],
            cwd=root,
            input="\0".join(paths) + "\0",
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode in (0, 1), done.stderr
        return {p for p in done.stdout.split("\0") if p}


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(st.lists(lines(), min_size=1, max_size=6), st.lists(PATHS, min_size=1, max_size=12))
def test_gitignore_agrees_with_git(entries: list[str], paths: list[str]) -> None:
    text = "\n".join(entries) + "\n"
    patterns = gitignore.parse_lines(text)
    ours = {p for p in paths if gitignore.is_ignored(patterns, p)}
    assert ours == git_ignored(text, paths)
