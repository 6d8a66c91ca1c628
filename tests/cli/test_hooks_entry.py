"""`python -m apc_tools.hooks`: the entries the pre-push hook and the GitHub Action call."""

from __future__ import annotations

import subprocess
import sys

from apc_tools.hooks import pre_push_args
from tests.conftest import REPO_ROOT


def test_pre_push_scans_the_pushed_range_or_the_tree() -> None:
    env = {"PRE_COMMIT_FROM_REF": "a" * 40, "PRE_COMMIT_TO_REF": "b" * 40}
    assert pre_push_args(env, ["--strict"]) == [
        "boundary",
        "--range",
        f"{'a' * 40}..{'b' * 40}",
        "--strict",
    ]
    # a pushed branch whose root commit is new: pre-commit gives no range, the tree is scanned
    assert pre_push_args({}, []) == ["boundary", "--tracked"]
    assert pre_push_args({"PRE_COMMIT_TO_REF": "b" * 40}, []) == ["boundary", "--tracked"]


def test_usage_errors_exit_2() -> None:
    for args in ([], ["nope"], ["github-summary", "only-one"]):
        done = subprocess.run(
            [sys.executable, "-m", "apc_tools.hooks", *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and done.stderr.startswith("usage:"), args
