"""This repository's hooks, run by the real pre-commit framework against real repositories."""

from __future__ import annotations

from collections.abc import Callable

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
    refused = project.run("git", "push", "origin", "main")
    shown = refused.stdout + refused.stderr
    assert refused.returncode != 0 and "tmp/session.jsonl" in shown and "BTR001" in shown
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
