"""A new user follows the README from a fresh clone: install, `apc check sample_repo`, install
the hooks, commit, and see a leak refused. The README's own commands run in bash, unchanged but
for the repository URL, which points at the snapshot of this working tree (no network)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.conftest import REPO_ROOT, git
from tests.integrations.conftest import HookRepo

README = REPO_ROOT / "README.md"
REPOSITORY_URL = "https://github.com/apc-tools/apc-tools"


def readme_block(first_line: str) -> str:
    """The ```sh block of the README whose first line is ``first_line``."""
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if b.splitlines()[0] == first_line]
    assert len(found) == 1, first_line
    return found[0]


def test_readme_from_a_fresh_clone(tmp_path: Path, hook_repo: HookRepo) -> None:
    install = readme_block("# install and check the sample project")
    try_hooks = readme_block(
        "# try the hooks: a scratch repository that refuses a leaked agent session"
    )
    assert REPOSITORY_URL in try_hooks and f"rev: {hook_repo.rev}" in try_hooks
    clone = tmp_path / "apc-tools"
    git(tmp_path, "clone", "-q", str(hook_repo.path), str(clone))
    script = "set -x\n" + install + try_hooks.replace(REPOSITORY_URL, hook_repo.path.as_uri())
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=clone,
        env=hook_repo.env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    shown = done.stdout + done.stderr
    demo = tmp_path / "apc-demo"
    assert "no problems found" in shown, shown  # apc check sample_repo
    assert (demo / ".git" / "hooks" / "pre-commit").is_file(), shown
    log = git(demo, "log", "--format=%s").splitlines()
    assert log == ["adopt APC"], shown  # the clean commit passed, the leak did not land
    assert done.returncode == 1, shown  # the README's last command: the refused commit
    assert "BTR001" in shown and "session.jsonl" in shown, shown
    assert "session.jsonl" not in git(demo, "ls-tree", "-r", "--name-only", "HEAD")
