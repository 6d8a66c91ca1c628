"""The native git pre-push hook (``python -m apc_tools.githook``) through a real ``git push`` to
a local bare remote: the pushes pre-commit runs no hook for (issue 30 item 19: a tag pushed alone
on a commit the remote has, a tag of a blob pushed alone), a push of several refs, and the
install beside pre-commit's own hook (its migration mode runs ``pre-push.legacy`` first)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.integrations.conftest import Project
from tests.integrations.leaks import CLAUDE_SESSION, PROJECT
from tests.integrations.test_pre_commit import (
    ALL_HOOKS,
    MakeProject,
    add_and_remove_session,
    branches_clean_and_leaky,
    push_refused,
    remote_for,
    remote_refs,
)
from tests.integrations.test_pre_push_review import tag_with_message

INSTALL = (sys.executable, "-m", "apc_tools.githook", "install")


def blob_of(project: Project, text: str) -> str:
    path = project.root / "blob.tmp"
    path.write_text(text, encoding="utf-8")
    oid = project.run("git", "hash-object", "-w", str(path), check=True).stdout.strip()
    path.unlink()
    return oid


def plain_project(tmp_path: Path, make: MakeProject) -> Project:
    """A repository with no pre-commit hook: the native hook alone."""
    project = make(PROJECT, ())
    for hook in (project.root / ".git" / "hooks").glob("pre-*"):
        hook.unlink()
    return project


def test_a_tag_pushed_alone_is_scanned_beside_pre_commit(hooked_project: MakeProject) -> None:
    """pre-commit runs no hook for a push with no new commit; the native hook, installed as
    pre-commit's ``pre-push.legacy``, scans the tag's message and the blob a tag names."""
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    done = project.run(*INSTALL, check=True)
    assert "pre-push.legacy" in done.stderr, done.stderr
    assert (project.root / ".git/hooks/pre-push.legacy").is_file()
    # a tag of a commit the remote already has, its message a session: refused
    tag_with_message(project, "v1", "HEAD", CLAUDE_SESSION)
    push_refused(project, "origin", "v1", shows=("(tag message", "BTR001", "apc-pre-push"))
    # a tag of a blob that holds a session, pushed alone: refused
    project.run(
        "git", "tag", "-a", "-m", "data", "vb", blob_of(project, CLAUDE_SESSION), check=True
    )
    push_refused(project, "origin", "vb", shows=("(tag refs/tags/vb)", "BTR001"))
    for tag in ("v1", "vb"):
        assert f"refs/tags/{tag}" not in remote_refs(remote, project), tag
    # the clean twins are pushed: a tag with a plain message, a tag of a clean blob
    project.run("git", "tag", "-a", "-m", "release 1.0", "v2", "HEAD", check=True)
    project.run("git", "tag", "-a", "-m", "data", "vc", blob_of(project, "x = 1\n"), check=True)
    for tag in ("v2", "vc"):
        done = project.run("git", "push", "origin", tag)
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"refs/tags/{tag}" in remote_refs(remote, project), tag
        assert "the tag" in done.stderr, done.stderr


def test_the_native_hook_scans_every_ref_of_a_push(
    tmp_path: Path, hooked_project: MakeProject
) -> None:
    """git hands the hook every ref: `git push origin clean leaky` is scanned whole (each ref
    its own scan) and refused for the leaky one; the clean one alone goes through; a deletion
    sends nothing."""
    project = plain_project(tmp_path, hooked_project)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.run(*INSTALL, check=True)
    assert (project.root / ".git/hooks/pre-push").is_file()
    branches_clean_and_leaky(project)
    shown = push_refused(project, "origin", "clean", "leaky", shows=("notes/s.jsonl", "BTR001"))
    assert "refs/heads/clean: scanning" in shown and "refs/heads/leaky: scanning" in shown, shown
    assert "refs/heads/leaky" not in remote_refs(remote, project)
    done = project.run("git", "push", "origin", "clean")
    assert done.returncode == 0, done.stdout + done.stderr
    done = project.run("git", "push", "origin", ":clean")
    assert done.returncode == 0 and "a deletion sends nothing" in done.stderr, done.stderr
    # a new history (an orphan branch) is scanned whole
    project.run("git", "checkout", "-q", "--orphan", "fresh", check=True)
    project.run("git", "rm", "-rq", "--cached", ".", check=True)
    add_and_remove_session(project, "logs/t.jsonl")
    push_refused(project, "origin", "fresh", shows=("logs/t.jsonl",))


def test_install_keeps_a_foreign_hook_and_is_idempotent(
    tmp_path: Path, hooked_project: MakeProject
) -> None:
    project = plain_project(tmp_path, hooked_project)
    hook = project.root / ".git/hooks/pre-push"
    hook.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    refused = project.run(*INSTALL)
    assert refused.returncode == 2, refused.stderr
    assert "another pre-push hook" in refused.stderr and "--force" in refused.stderr
    assert hook.read_text(encoding="utf-8") == "#!/bin/sh\nexit 0\n"
    project.run(*INSTALL, "--force", check=True)
    first = hook.read_text(encoding="utf-8")
    assert "apc_tools.githook pre-push" in first
    project.run(*INSTALL, check=True)  # its own hook: rewritten in place
    assert hook.read_text(encoding="utf-8") == first
    # core.hooksPath is where git runs hooks from: the install goes there
    project.run("git", "config", "core.hooksPath", "githooks", check=True)
    project.run(*INSTALL, check=True)
    assert (project.root / "githooks/pre-push").is_file()


def test_unreadable_input_from_git_fails_closed(tmp_path: Path) -> None:
    """A line that is not git's four fields (or an object not in the repository) exits 2."""
    repo = tmp_path / "r"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for data in (
        b"garbage\n",
        b"refs/heads/x " + b"1" * 40 + b" refs/heads/x " + b"0" * 40 + b"\n",
    ):
        done = subprocess.run(
            [sys.executable, "-m", "apc_tools.githook", "pre-push", "origin", "url"],
            cwd=repo,
            input=data,
            capture_output=True,
            check=False,
        )
        assert done.returncode == 2, done
        assert b"apc-pre-push: error:" in done.stderr and b"Traceback" not in done.stderr
