"""FileIndex.any_match (its loop inlines Budget.spend and Glob.match's suffix test) answers and
spends exactly as the plain loop does, whatever the budget: the dead-glob findings, including
the "budget spent" ones, are unchanged."""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core.globs import Budget, FileIndex, Glob, compile_glob


def plain_any_match(index: FileIndex, glob: Glob, budget: Budget) -> bool | None:
    if glob.literal_path is not None:
        return glob.literal_path in index.paths
    if budget.left <= 0:
        return None
    candidates: Iterable[str]
    if glob.literal_name is not None:
        candidates = index.by_name.get(glob.literal_name, ())
    else:
        candidates = (f for f in index.files if glob.needle in f)
    for path in candidates:
        if not budget.spend(len(path) * glob.cost):
            return None
        if glob.match(path):
            return True
    return False


NAMES = st.sampled_from(["a.ts", "b.ts", "x.md", "README.md", "index.js", "a", "ts", "src"])
PATHS = st.lists(NAMES, min_size=1, max_size=4).map("/".join)
GLOBS = st.sampled_from(
    [
        "*.ts",
        "**/*.ts",
        "src/**",
        "src/*.md",
        "a.ts",
        "src/a.ts",
        "**/README.md",
        "*",
        "*.{ts,md}",
        "x*",
        "**/src/**/*.js",
        "?.ts",
        "[ab].ts",
        "nothing/*.py",
        "src/",
        "!*.ts",
    ]
)


@given(
    st.lists(PATHS, max_size=40, unique=True),
    st.lists(GLOBS, min_size=1, max_size=8),
    st.integers(min_value=-5, max_value=400),
)
def test_same_answers_and_same_spending(files: list[str], globs: list[str], units: int) -> None:
    index = FileIndex(files)
    fast, plain = Budget(units), Budget(units)
    for pattern in globs:
        glob = compile_glob(pattern)
        assert index.any_match(glob, fast) == plain_any_match(index, glob, plain), pattern
        assert fast.left == plain.left


@given(st.lists(PATHS | st.sampled_from(["", "/", "a/", "/a.ts", "src//a.ts"]), max_size=20))
def test_anywhere_globs_match_as_the_segment_table_does(paths: list[str]) -> None:
    """``**/<name>`` is matched on the path's last name alone (Glob.anywhere): the same answer
    as the table over every folder segment (_match_parts)."""
    from apc_tools.core.globs import _match_parts

    for pattern in ["**/*.ts", "**/README.md", "**/x*", "**/?.ts", "**/[ab].ts", "**/*.{ts,md}"]:
        glob = compile_glob(pattern)
        assert glob.anywhere is not None
        for path in paths:
            plain = glob.needle in path and path.endswith(glob.suffix)
            plain = plain and _match_parts(glob.parts, tuple(path.split("/")))
            assert glob.match(path) == plain, (pattern, path)
    assert compile_glob("src/**").anywhere is None
    assert compile_glob("**/src/**/*.js").anywhere is None
