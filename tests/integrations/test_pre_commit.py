"""This repository's hooks, run by the real pre-commit framework against real repositories."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.integrations.conftest import Project
from tests.integrations.leaks import CLAUDE_SESSION, INVALID_AGENT, MARKER, PROJECT

MakeProject = Callable[[dict[str, str], tuple[str, ...]], Project]
COMMIT_HOOKS = ("apc-validate", "apc-boundary")
ALL_HOOKS = (*COMMIT_HOOKS, "apc-boundary-push", "apc-boundary-history")


def head_message(project: Project) -> str:
    return project.run("git", "log", "-1", "--format=%s", check=True).stdout.strip()


def test_clean_commit_passes_and_each_leak_is_refused_with_the_finding(
    hooked_project: MakeProject,
) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    project.write({"src/more.py": "y = 2\n", "AGENTS.md": PROJECT["AGENTS.md"] + "\nMore.\n"})
    done = project.commit("clean change")
    assert done.returncode == 0, done.stdout + done.stderr
    assert head_message(project) == "clean change"

    cases = {
        "session": ({"notes/session.jsonl": CLAUDE_SESSION}, "BTR001", "notes/session.jsonl"),
        "marker": ({"AGENTS.md": PROJECT["AGENTS.md"] + f"\n{MARKER}\n"}, "AGM005", "AGENTS.md"),
        "agent": ({".apc/agents/Bad Agent.md": INVALID_AGENT}, "AGT", ".apc/agents/Bad Agent.md"),
    }
    for name, (files, rule, path) in cases.items():
        project.write(files)
        refused = project.commit(f"leak {name}")
        shown = refused.stdout + refused.stderr
        assert refused.returncode != 0, (name, shown)
        assert rule in shown and path in shown, (name, shown)
        assert head_message(project) == "clean change"
        project.run("git", "reset", "-q", "--hard", "HEAD", check=True)
        project.run("git", "clean", "-q", "-fd", check=True)


def test_all_files_catches_a_leak_committed_with_no_verify(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, COMMIT_HOOKS)
    project.write({"logs/old-session.jsonl": CLAUDE_SESSION})
    assert project.commit("sneak it in", "--no-verify").returncode == 0
    assert project.run("pre-commit", "run").returncode == 0  # nothing staged: nothing to say
    done = project.run("pre-commit", "run", "--all-files")
    assert done.returncode == 1
    assert "logs/old-session.jsonl" in done.stdout and "BTR001" in done.stdout
    one = project.run("pre-commit", "run", "--files", "logs/old-session.jsonl")
    assert one.returncode == 1 and "BTR001" in one.stdout


def test_push_of_a_leaking_commit_is_refused(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = project.root.parent / "remote.git"
    project.run("git", "init", "-q", "--bare", "-b", "main", str(remote), check=True)
    project.run("git", "remote", "add", "origin", remote.as_uri(), check=True)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.write({"tmp/session.jsonl": CLAUDE_SESSION})
    project.commit("leak", "--no-verify")
    project.run("git", "rm", "-q", "tmp/session.jsonl", check=True)
    project.commit("and hide it", "--no-verify")
    push_refused(project, "origin", "main", shows=("tmp/session.jsonl", "BTR001"))
    history = project.run("pre-commit", "run", "--hook-stage", "manual", "apc-boundary-history")
    assert history.returncode == 1 and "tmp/session.jsonl" in history.stdout


def test_a_staged_file_named_like_an_option_cannot_switch_the_gate_off(
    hooked_project: MakeProject,
) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    project.write({"--write-baseline": "x\n", "notes/session.jsonl": CLAUDE_SESSION})
    refused = project.commit("leak behind an option-named file")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0, shown
    assert "BTR001" in shown and "notes/session.jsonl" in shown
    assert head_message(project) == "start"
    written = [p.name for p in project.root.rglob("*baseline*") if p.name != "--write-baseline"]
    assert written == []


def test_apc_fix_hook_fixes_and_fails_so_the_user_restages(hooked_project: MakeProject) -> None:
    """apc-fix (off by default) works like ruff's hook with --fix: it repairs the file, and
    pre-commit fails the commit because a file changed; the retried commit passes."""
    project = hooked_project(PROJECT, ("apc-fix", *COMMIT_HOOKS))
    renamed = PROJECT[".apc/project.json"].replace('"demo"', '"demo 2"')
    project.write({".apc/project.json": renamed.replace('"apc"', '"apf"')})
    refused = project.commit("legacy key")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0, shown
    assert "files were modified by this hook" in shown and "fixed 1 finding" in shown
    assert head_message(project) == "start"
    assert (project.root / ".apc/project.json").read_text() == renamed
    retried = project.commit("legacy key, fixed")
    assert retried.returncode == 0, retried.stdout + retried.stderr
    assert head_message(project) == "legacy key, fixed"


def remote_for(project: Project, name: str = "remote.git") -> Path:
    remote = project.root.parent / name
    project.run("git", "init", "-q", "--bare", "-b", "main", str(remote), check=True)
    project.run("git", "remote", "add", "origin", remote.as_uri(), check=True)
    return remote


def remote_refs(remote: Path, project: Project) -> str:
    return project.run("git", "-C", str(remote), "for-each-ref", "--format=%(refname)").stdout


def push_refused(project: Project, *args: str, shows: tuple[str, ...] = ("BTR001",)) -> str:
    """``git push ARGS`` through the hooks: refused, its output naming each of ``shows``."""
    refused = project.run("git", "push", *args)
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0, shown
    for text in shows:
        assert text in shown, (text, shown)
    return shown


def add_and_remove_session(project: Project, path: str) -> None:
    project.write({path: CLAUDE_SESSION})
    assert project.commit("add notes", "--no-verify").returncode == 0
    project.run("git", "rm", "-q", path, check=True)
    assert project.commit("remove them", "--no-verify").returncode == 0


def branches_clean_and_leaky(project: Project) -> None:
    """main pushed; `clean` with a clean commit and `leaky` adding and removing a session, each
    off main and not pushed."""
    project.run("git", "checkout", "-q", "-b", "clean", check=True)
    project.write({"src/ok.py": "ok = 1\n"})
    assert project.commit("clean", "--no-verify").returncode == 0
    project.run("git", "checkout", "-q", "-b", "leaky", "main", check=True)
    add_and_remove_session(project, "notes/s.jsonl")
    project.run("git", "checkout", "-q", "main", check=True)


def test_push_of_an_orphan_branch_scans_its_whole_history(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.run("git", "checkout", "-q", "--orphan", "gh-pages", check=True)
    project.run("git", "rm", "-rq", "--cached", ".", check=True)
    project.run("git", "clean", "-qfdx", check=True)
    project.write({"index.html": "<p>site</p>\n"})
    assert project.commit("site", "--no-verify").returncode == 0
    add_and_remove_session(project, "drafts/session.jsonl")
    project.run("git", "checkout", "-q", "main", check=True)  # a clean tree at HEAD
    push_refused(project, "origin", "gh-pages", shows=("BTR001", "drafts/session.jsonl"))
    assert "refs/heads/gh-pages" not in remote_refs(remote, project)


def test_a_clean_orphan_branch_is_pushed(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    project.run("git", "checkout", "-q", "--orphan", "gh-pages", check=True)
    project.write({"index.html": "<p>site</p>\n"})
    assert project.commit("site", "--no-verify").returncode == 0
    project.run("git", "checkout", "-q", "main", check=True)
    done = project.run("git", "push", "origin", "gh-pages")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "refs/heads/gh-pages" in remote_refs(remote, project)


def test_first_push_to_an_empty_remote_scans_every_commit(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    add_and_remove_session(project, "logs/run.jsonl")
    push_refused(project, "origin", "main", shows=("BTR001", "logs/run.jsonl"))
    assert remote_refs(remote, project) == ""


def test_a_new_branch_is_scanned_from_where_the_remote_has_it(
    hooked_project: MakeProject,
) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote_for(project)
    add_and_remove_session(project, "logs/old.jsonl")  # pushed before the hook existed
    assert project.run("git", "push", "-q", "--no-verify", "origin", "main").returncode == 0
    project.run("git", "checkout", "-q", "-b", "feature", check=True)
    project.write({"src/new.py": "z = 3\n"})
    assert project.commit("clean work", "--no-verify").returncode == 0
    done = project.run("git", "push", "origin", "feature")
    shown = done.stdout + done.stderr
    assert done.returncode == 0, shown  # only the new commit is scanned, not main's past
    add_and_remove_session(project, "tmp2/s.jsonl")
    shown = push_refused(project, "origin", "feature", shows=("tmp2/s.jsonl", "BTR001"))
    assert "logs/old.jsonl" not in shown


def test_two_refs_in_one_push_are_refused_with_what_to_do(hooked_project: MakeProject) -> None:
    project = hooked_project(PROJECT, ALL_HOOKS)
    remote = remote_for(project)
    assert project.run("git", "push", "-q", "origin", "main").returncode == 0
    branches_clean_and_leaky(project)
    for order in (("clean", "leaky"), ("leaky", "clean")):
        push_refused(
            project, "origin", *order, shows=("pre-commit gives its hooks only the first ref",)
        )
        assert "refs/heads/clean" not in remote_refs(remote, project)
    everything = project.run("git", "push", "origin", "--all")
    assert everything.returncode != 0 and "only the first ref" in everything.stdout
    # one ref at a time: each is scanned
    assert project.run("git", "push", "origin", "clean").returncode == 0
    refused = project.run("git", "push", "origin", "leaky")
    assert refused.returncode != 0 and "notes/s.jsonl" in refused.stdout + refused.stderr
    assert "refs/heads/leaky" not in remote_refs(remote, project)
    # a second ref that sends no new commit is no reason to refuse
    done = project.run("git", "push", "origin", "clean", "main:refs/heads/copy")
    assert done.returncode == 0, done.stdout + done.stderr
