"""The boundary rules' case trees (tests/cases/{valid,invalid}/boundary/<RULE>-*/): each tree
is committed into a fresh git repository and scanned. ``case.json`` (``"command": "boundary"``)
may add:

- ``"write": {"path": "text"}``: files written at test time (paths that global git excludes
  drop, such as `.claude/settings.local.json`); ``{ghp}`` in the text becomes a random-looking
  GitHub token made here, so no token-shaped string is ever committed to this repository;
- ``"base": {"path": "text"}``: a first commit; the case tree is then committed on top and the
  range ``HEAD~1..HEAD`` is scanned;
- ``"gitlink": "vendor/lib"``: a submodule entry; ``"delete_blob": "path"``: the blob of that
  path is deleted from the object store after the commit and the repository is marked a
  partial clone (a promisor remote), so the blob is a partial clone's missing blob;
- ``"args"``: options of :class:`apc_tools.boundary.Options` (``mode``, ``secrets``, ...).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from apc_tools.findings import Finding
from tests.boundary.helpers import findings, init, token
from tests.conftest import git, write_tree


def _text(value: str) -> str:
    return value.replace("{ghp}", token("ghp_", 36))


def case_repo(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[Path, dict[str, Any], dict[str, Any]]:
    """A case folder of tests/cases made into its repository under ``tmp_path``: (the
    repository, the scan's options, the case's spec). ``"without": "zstd"`` takes the zstd
    module away for the test."""
    from tests.test_cases import case_spec

    spec = case_spec(case)
    if spec.get("without") == "zstd":
        from apc_tools.boundary import disguise

        monkeypatch.setattr(disguise, "zstd_module", lambda: None)
    work = tmp_path / "case"
    shutil.copytree(case, work, symlinks=True)
    (work / "case.json").unlink()
    root, args = build_boundary_case(work, spec)
    return root, args, spec


def run_boundary_case(work: Path, spec: dict[str, Any]) -> list[Finding]:
    root, args = build_boundary_case(work, spec)
    return findings(root, **args)


def build_boundary_case(work: Path, spec: dict[str, Any]) -> tuple[Path, dict[str, Any]]:
    """The case's repository (next to ``work``) and the scan's options."""
    root = init(work.parent / "repo")
    args = dict(spec.get("args", {}))
    if "base" in spec:
        write_tree(root, {k: _text(v) for k, v in spec["base"].items()})
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", "base")
        args.setdefault("mode", "range")
        args.setdefault("rev_range", "HEAD~1..HEAD")
    for item in work.rglob("*"):
        if item.is_file():
            target = root / item.relative_to(work)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(item.read_bytes())
    write_tree(root, {k: _text(v) for k, v in spec.get("write", {}).items()})
    git(root, "add", "-A")
    if "gitlink" in spec:
        head = git(root, "rev-parse", "HEAD").strip() if "base" in spec else "1" * 40
        git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},{spec['gitlink']}")
    git(root, "commit", "-q", "--allow-empty", "-m", "case")
    if "delete_blob" in spec:
        oid = git(root, "rev-parse", f"HEAD:{spec['delete_blob']}").strip()
        (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
        git(root, "config", "remote.origin.promisor", "true")  # missing blobs are expected
    return root, args
