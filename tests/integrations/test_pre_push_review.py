"""The pre-push hook through the real pre-commit and `git push` to a local bare remote: tags,
deletions and force pushes (review of issue 14 item 3)."""

from __future__ import annotations

from tests.integrations.leaks import PROJECT
from tests.integrations.test_pre_commit import (
    ALL_HOOKS,
    MakeProject,
    add_and_remove_session,
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
