"""Fixtures for the tests that run this repository's hooks with the real pre-commit framework.

The hook repository is a snapshot of the working tree (tracked and untracked files git does not
ignore) committed into a temporary repository and tagged ``v<version>``, so the hooks under test
are exactly the code being tested, installed by pre-commit the way a user's pre-commit installs
them (``pip install .`` of the tagged repository into its own virtualenv). ``PRE_COMMIT_HOME``
is one folder per test session: pre-commit builds that environment once for every test. The
hooks have no ``additional_dependencies``: pip takes apc-tools' own dependencies from the package
index it is configured with (once per session), and no hook reaches the network when it runs.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from apc_tools import __version__
from tests.conftest import GIT_ENV, REPO_ROOT, checkout_files, git


@dataclass(frozen=True)
class HookRepo:
    path: Path
    rev: str
    home: Path  # PRE_COMMIT_HOME shared by the session

    def config(self, *hook_ids: str) -> str:
        hooks = "".join(f"      - id: {hook}\n" for hook in hook_ids)
        return f"repos:\n  - repo: {self.path.as_uri()}\n    rev: {self.rev}\n    hooks:\n{hooks}"

    def env(self) -> dict[str, str]:
        """The environment of a user's shell: this interpreter's bin first (pre-commit, apc
        are found there), git pinned, the shared pre-commit cache."""
        bin_dir = str(Path(sys.executable).parent)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PRE_COMMIT", "GIT_"))}
        env.update(GIT_ENV)
        env["PATH"] = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        env["PRE_COMMIT_HOME"] = str(self.home)
        env["PRE_COMMIT_COLOR"] = "never"
        env.pop("PYTHONPATH", None)
        return env


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> HookRepo:
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("the hook tests snapshot a git checkout of apc-tools")
    base = tmp_path_factory.mktemp("hooks")
    repo = base / "apc-tools"
    for rel in checkout_files(REPO_ROOT):
        source = REPO_ROOT / rel
        if not source.is_file() or source.is_symlink():
            continue  # deleted in the work tree but still in the index, or a link
        target = repo / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "apc-tools snapshot")
    rev = f"v{__version__}"
    git(repo, "tag", rev)
    return HookRepo(repo, rev, base / "pre-commit-home")


@dataclass
class Project:
    root: Path
    hooks: HookRepo

    def run(self, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
        done = subprocess.run(
            list(args),
            cwd=self.root,
            env=self.hooks.env(),
            capture_output=True,
            text=True,
            timeout=900,
        )
        if check:
            assert done.returncode == 0, done.stdout + done.stderr
        return done

    def write(self, files: dict[str, str | bytes]) -> None:
        for rel, content in files.items():
            target = self.root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")

    def commit(self, message: str, *extra: str) -> subprocess.CompletedProcess[str]:
        self.run("git", "add", "-A", check=True)
        return self.run("git", "commit", "-q", "-m", message, *extra)


@pytest.fixture
def hooked_project(
    tmp_path: Path, hook_repo: HookRepo
) -> Iterator[Callable[[dict[str, str], tuple[str, ...]], Project]]:
    """A real repository with the given files committed (hooks not yet run) and this
    repository's hooks installed for pre-commit and pre-push."""

    def make(files: dict[str, str], hook_ids: tuple[str, ...]) -> Project:
        root = tmp_path / "project"
        root.mkdir()
        project = Project(root, hook_repo)
        project.run("git", "init", "-q", "-b", "main", check=True)
        project.write({**files, ".pre-commit-config.yaml": hook_repo.config(*hook_ids)})
        project.run("git", "add", "-A", check=True)
        project.run("git", "commit", "-q", "--no-verify", "-m", "start", check=True)
        project.run(
            "pre-commit",
            "install",
            "--hook-type",
            "pre-commit",
            "--hook-type",
            "pre-push",
            check=True,
        )
        return project

    yield make
