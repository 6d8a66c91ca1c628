"""This repository passes its own gate: `apc boundary` on the tree at HEAD finds nothing,
errors or warnings (our `.apc-tools.yaml` excludes the case trees and allows the files that
explain the interruption markers), and its policy file is valid."""

from __future__ import annotations

import pytest

from apc_tools.boundary import Options, scan
from apc_tools.core import git
from tests.conftest import REPO_ROOT


def test_this_repository_passes_its_own_boundary_gate() -> None:
    if git.toplevel(REPO_ROOT) is None:
        pytest.skip("not a git checkout (e.g. an unpacked sdist)")
    outcome = scan(Options(cwd=REPO_ROOT))
    assert outcome.result.files > 100
    assert [f"{f.location()} {f.rule}" for f in outcome.result.findings] == []
