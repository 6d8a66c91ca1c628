"""A run decides where the repository is once, at its start, and hands that down (issue 33):
`apc validate`, `apc boundary` and `apc check`, run from a subfolder of a real repository, ask
git for its top level only where a step cannot be handed it (counted in ``GIT_TRACE``).

What is left: `apc validate` asks for the report root, and its file listing for the prefix of
the folder it lists (``git ls-files`` relative to the top); `apc check` asks for the
repository, the validate half's listing asks as `apc validate`'s does, and the boundary half
opens the repository from the working folder (``--show-prefix``: the PATHs it covers). The
range's head and base trees are written to a folder outside any repository: no git there.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import git, run_apc

RUNS = [
    (("validate", "--no-cache"), 2),  # 3 before issue 33 (rooted() asked again)
    (("boundary",), 1),  # 2 before (the CLI asked again for --format full's lines)
    (("boundary", "--staged"), 1),
    (("check",), 3),  # 5 before (the baseline and the CLI asked again)
    (("check", "--range", "HEAD~1..HEAD"), 2),  # 7 before (base policy, base and head trees)
]


@pytest.mark.parametrize(("args", "most"), RUNS, ids=[" ".join(a) for a, _ in RUNS])
def test_a_run_asks_git_for_the_repository_once_per_half(
    git_repo: Callable[..., Path], tmp_path: Path, xdg: Path, args: tuple[str, ...], most: int
) -> None:
    root = git_repo(
        {
            "AGENTS.md": "# Agents\n\nHello.\n",
            ".apc/project.json": '{"apc": "0.1", "name": "x"}\n',
            "sub/notes.txt": "one\n",
        }
    )
    (root / "sub" / "notes.txt").write_text("two\n", encoding="utf-8")
    git(root, "commit", "-q", "-am", "second")
    trace = tmp_path / "trace"
    done = run_apc(root / "sub", *args, "--format", "json", env={"GIT_TRACE": str(trace)})
    assert done.returncode == 0, done.stderr
    asked = [
        line
        for line in trace.read_text(encoding="utf-8").splitlines()
        if "built-in: git rev-parse" in line and "--show-toplevel" in line
    ]
    assert len(asked) <= most, "\n".join(asked)
    assert '"findings"' in done.stdout  # the run itself was made, and reported
