"""A new user follows the README from a fresh clone: install, `apc check sample_repo`, install
the hooks from the clone (its path, `git rev-parse HEAD`), commit, scan the history with the
manual hook, and see a leak refused. The README's own lines run in bash verbatim: the clone is a
clone of the snapshot of this working tree, so no network is needed but the package index."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from ruamel.yaml import YAML

from tests.conftest import REPO_ROOT, git
from tests.integrations.conftest import HookRepo

README = REPO_ROOT / "README.md"
TRY_HOOKS = "# try the hooks: a scratch repository that refuses a leaked agent session"
PUBLISHED = "# the published form, for later: the same hooks from the public repository"


def readme_block(first_line: str, lang: str = "sh") -> str:
    """The ```sh (or ``lang``) block of the README whose first line is ``first_line``."""
    blocks = re.findall(rf"```{lang}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    found = [b for b in blocks if b.splitlines()[0] == first_line]
    assert len(found) == 1, first_line
    return found[0]


def walkthrough_config() -> dict[str, object]:
    """The .pre-commit-config.yaml the walk-through writes (between `cat` and `END`)."""
    block = readme_block(TRY_HOOKS)
    body = block.partition("<<END\n")[2].partition("\nEND\n")[0]
    return YAML(typ="safe").load(body)  # type: ignore[no-any-return]


def hook_ids(config: dict[str, object]) -> list[str]:
    [repo] = config["repos"]  # type: ignore[index]
    return [hook["id"] for hook in repo["hooks"]]


def test_the_readme_configuration_lists_every_hook_the_readme_runs() -> None:
    """Issue 17: the README ran `apc-boundary-history`, which its configuration lacked."""
    published = YAML(typ="safe").load(readme_block(PUBLISHED, "yaml"))
    tried = walkthrough_config()
    readme = README.read_text(encoding="utf-8")
    run = set(re.findall(r"pre-commit run --hook-stage manual ([\w-]+)", readme))
    hooks_file = YAML(typ="safe").load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    assert run == {"apc-boundary-history"}
    assert run <= set(hook_ids(tried)) and hook_ids(tried) == hook_ids(published)
    assert set(hook_ids(tried)) <= {hook["id"] for hook in hooks_file}
    [repo] = tried["repos"]  # type: ignore[index]
    assert (repo["repo"], repo["rev"]) == ("$APC_TOOLS", "$APC_REV")  # the clone, its commit


def test_readme_from_a_fresh_clone(tmp_path: Path, hook_repo: HookRepo) -> None:
    install = readme_block("# install and check the sample project")
    try_hooks = readme_block(TRY_HOOKS)
    clone = tmp_path / "apc-tools"
    git(tmp_path, "clone", "-q", str(hook_repo.path), str(clone))
    for tag in git(clone, "tag").split():
        git(clone, "tag", "-d", tag)  # a fresh clone of the unpublished tool has no tag
    script = "set -x\n" + install + try_hooks  # verbatim
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
    assert (demo / ".git" / "hooks" / "pre-push").is_file(), shown
    config = YAML(typ="safe").load((demo / ".pre-commit-config.yaml").read_text("utf-8"))
    [repo] = config["repos"]
    assert repo["repo"] == str(clone) and repo["rev"] == git(clone, "rev-parse", "HEAD").strip()
    assert re.search(r"^apc boundary \(the whole history\)\.+Passed$", done.stdout, re.M), shown
    log = git(demo, "log", "--format=%s").splitlines()
    # the clean commit passed, the leak was refused, and after `apc boundary --staged --fix`
    # the commit went through without it
    assert log == ["my notes", "adopt APC"], shown
    assert done.returncode == 0, shown
    assert "BTR001" in shown and "session.jsonl" in shown, shown
    assert "apc boundary --staged --fix" in shown or "untracked 1 file" in shown, shown
    assert "session.jsonl" not in git(demo, "ls-tree", "-r", "--name-only", "HEAD")
    assert "/session.jsonl" in git(demo, "show", "HEAD:.gitignore")
    assert (demo / "session.jsonl").is_file()  # the session itself is kept, untracked
