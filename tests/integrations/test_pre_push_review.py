"""The pre-push hook through the real pre-commit and `git push` to a local bare remote: tags,
deletions and force pushes (review of issue 14 item 3)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

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


def test_push_tags_sends_only_tags_not_the_local_branches(hooked_project: MakeProject) -> None:
    """`git push --tags` sends tags only: a local branch that is not pushed is no reason to
    refuse; an annotated tag of a commit that adds and removes a session is scanned."""
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.run("git", "checkout", "-q", "-b", "wip", check=True)
    project.write({"src/wip.py": "w = 1\n"})
    assert project.commit("local work", "--no-verify").returncode == 0
    project.run("git", "checkout", "-q", "main", check=True)
    project.run("git", "tag", "-a", "-m", "release", "v1", "main", check=True)
    done = project.run("git", "push", "--tags", "origin")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refs/tags/v1" in remote_refs(remote, project)
    assert "refs/heads/wip" not in remote_refs(remote, project)
    project.run("git", "checkout", "-q", "-b", "leaky", check=True)
    add_and_remove_session(project, "notes/s.jsonl")
    project.run("git", "tag", "-a", "-m", "leaky", "v2", "leaky", check=True)
    project.run("git", "checkout", "-q", "main", check=True)
    push_refused(project, "--tags", "origin", shows=("notes/s.jsonl", "BTR001"))
    assert "refs/tags/v2" not in remote_refs(remote, project)


def test_a_deletion_push_is_not_scanned_and_passes(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    project.run("git", "branch", "old", check=True)
    assert project.run("git", "push", "-q", "origin", "main", "old").returncode == 0
    for args in (("origin", ":old"), ("--delete", "origin", "old")):
        project.run("git", "push", "-q", "--no-verify", "origin", "main:refs/heads/old")
        done = project.run("git", "push", *args)
        assert done.returncode == 0, (args, done.stdout + done.stderr)
        assert "refs/heads/old" not in remote_refs(remote, project)


def test_a_force_push_scans_the_rewritten_commits(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    project.write({"src/a.py": "a = 1\n"})
    assert project.commit("a", "--no-verify").returncode == 0
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.run("git", "reset", "-q", "--hard", "HEAD~1", check=True)
    add_and_remove_session(project, "logs/s.jsonl")
    push_refused(project, "--force", "origin", "main", shows=("logs/s.jsonl",))
    project.run("git", "reset", "-q", "--hard", "HEAD~2", check=True)
    project.write({"src/b.py": "b = 1\n"})
    assert project.commit("b", "--no-verify").returncode == 0
    done = project.run("git", "push", "--force", "origin", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    head = project.run("git", "rev-parse", "HEAD").stdout
    assert head in project.run("git", "-C", str(remote), "rev-parse", "main").stdout


def test_git_push_remote_tag_name_is_read_as_the_tag(hooked_project: MakeProject) -> None:
    """`git push origin tag v1` pushes refs/tags/v1 (git's `tag <tag>` form): the hook scans
    it and does not refuse a ref named `tag` it cannot find."""
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.write({"src/c.py": "c = 1\n"})
    assert project.commit("clean", "--no-verify").returncode == 0
    project.run("git", "tag", "-a", "-m", "one", "v1", check=True)
    done = project.run("git", "push", "origin", "tag", "v1")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refs/tags/v1" in remote_refs(remote, project)
    add_and_remove_session(project, "notes/t.jsonl")
    project.run("git", "tag", "v2", check=True)
    push_refused(project, "origin", "tag", "v2", shows=("notes/t.jsonl", "BTR001"))
    assert "refs/tags/v2" not in remote_refs(remote, project)


def test_abbreviated_options_push_many_refs_as_git_reads_them(
    hooked_project: MakeProject,
) -> None:
    """Issue 30 item 17: `--al`, `--mirr`, `--tag` (git accepts a unique prefix of a long
    option) pushed every branch or tag while the hook scanned the first ref only."""
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    branches_clean_and_leaky(project)
    for args in (("--al", "origin"), ("origin", "--mirr"), ("--all", "--no-al", "--al", "origin")):
        push_refused(project, *args, shows=("refs/heads/leaky", "only the first ref"))
        assert "refs/heads/leaky" not in remote_refs(remote, project), args
    project.run("git", "tag", "-a", "-m", "ok", "v1", "clean", check=True)
    project.run("git", "tag", "-a", "-m", "ok", "v2", "leaky", check=True)
    push_refused(project, "--tag", "origin", shows=("refs/tags/v2", "only the first ref"))
    assert "refs/tags/v2" not in remote_refs(remote, project)
    # options with values, glued or not, are not read as refs: one ref, scanned, pushed
    project.run("git", "-C", str(remote), "config", "receive.advertisePushOptions", "true")
    done = project.run("git", "push", "--push-o=x", "-o", "y", "--rep=origin", "origin", "clean")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refs/heads/clean" in remote_refs(remote, project)


def tag_with_message(project: Project, name: str, target: str, message: str) -> None:
    note = project.root.parent / "tag-message.txt"
    note.write_text(message, encoding="utf-8")
    project.run("git", "tag", "-a", "-F", str(note), name, target, check=True)


def test_the_tags_a_push_sends_are_scanned(hooked_project: MakeProject) -> None:
    """Issue 30 item 19: an annotated tag pushed with --follow-tags (or push.followTags), a tag
    of a commit the remote already has pushed beside a branch, a tag pushed as the ref itself,
    and a tag of a blob: the tag's message and the tagged blob are scanned."""
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    old = project.run("git", "rev-parse", "HEAD", check=True).stdout.strip()
    project.write({"src/new.py": "n = 1\n"})
    assert project.commit("clean work", "--no-verify").returncode == 0
    tag_with_message(project, "v1", "HEAD", CLAUDE_SESSION)
    push_refused(project, "--follow-tags", "origin", "main", shows=("(tag message", "BTR001"))
    project.run("git", "config", "push.followTags", "true", check=True)
    push_refused(project, "origin", "main", shows=("(tag message", "BTR001"))
    done = project.run("git", "push", "--no-follow-tags", "origin", "main")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refs/tags/v1" not in remote_refs(remote, project)
    project.run("git", "config", "--unset", "push.followTags", check=True)
    # the tag itself is the pushed ref (its commit is new)
    project.write({"src/more.py": "m = 1\n"})
    assert project.commit("more", "--no-verify").returncode == 0
    tag_with_message(project, "v2", "HEAD", CLAUDE_SESSION)
    push_refused(project, "origin", "v2", shows=("(tag message", "BTR001"))
    # a tag of a commit the remote has, beside a branch that sends commits
    tag_with_message(project, "v0", old, CLAUDE_SESSION)
    push_refused(project, "origin", "main", "v0", shows=("(tag message", "BTR001"))
    # a tag of a blob that holds a session, beside the branch
    blob = project.run("git", "hash-object", "-w", "--stdin", check=True)  # empty blob
    assert blob.stdout.strip()
    session = project.root / "session.jsonl"
    session.write_text(CLAUDE_SESSION, encoding="utf-8")
    leaked = project.run("git", "hash-object", "-w", str(session), check=True).stdout.strip()
    session.unlink()
    project.run("git", "tag", "-a", "-m", "data", "vb", leaked, check=True)
    push_refused(project, "origin", "main", "vb", shows=("(tag vb)", "BTR001"))
    for tag in ("v0", "v1", "v2", "vb"):
        assert f"refs/tags/{tag}" not in remote_refs(remote, project), tag
    # a clean tag of a blob is pushed
    project.run("git", "tag", "-a", "-m", "data", "vc", blob.stdout.strip(), check=True)
    done = project.run("git", "push", "origin", "main", "vc")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refs/tags/vc" in remote_refs(remote, project)


# `git push` run where /proc is empty: a user and mount namespace with a tmpfs over /proc
EMPTY_PROC = ("unshare", "-rm", "sh", "-c", 'mount -t tmpfs none /proc && exec "$@"', "sh")


def empty_proc_available() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        [*EMPTY_PROC, "sh", "-c", "test ! -e /proc/self"], capture_output=True, check=False
    )
    return probe.returncode == 0


def test_a_push_whose_command_line_cannot_be_read_says_so_or_exits_2(
    hooked_project: MakeProject,
) -> None:
    """Issue 30 item 18: where /proc cannot be read, `git push origin clean leaky` scans
    `clean` only: the push says so (a warning naming what was scanned, shown by pre-commit);
    where the configuration makes the push send several refs (a mirror remote), exit 2."""
    if not empty_proc_available():
        pytest.skip("no user and mount namespaces here (unshare -rm)")
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    branches_clean_and_leaky(project)
    done = project.run(*EMPTY_PROC, "git", "push", "origin", "clean", "leaky")
    shown = done.stdout + done.stderr
    assert "warning: cannot read the `git push` command line" in shown, shown
    assert "only refs/heads/clean" in shown and "was NOT scanned" in shown, shown
    project.run("git", "checkout", "-q", "-b", "leaky2", "main", check=True)
    add_and_remove_session(project, "notes/t.jsonl")
    project.run("git", "checkout", "-q", "main", check=True)
    project.write({"src/main2.py": "m = 2\n"})
    assert project.commit("main moves", "--no-verify").returncode == 0
    project.run("git", "config", "remote.origin.mirror", "true", check=True)
    refused = project.run(*EMPTY_PROC, "git", "push", "origin")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0, shown
    assert "cannot read the `git push` command line" in shown and "mirror" in shown, shown
    assert "refs/heads/leaky2" in shown
