"""`python -m apc_tools.hooks`: the entries the pre-push hook and the GitHub Action call."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.hooks import (
    Refused,
    git_push_options,
    github_summary,
    parse_push,
    plan,
    push_sources,
)
from tests.conftest import REPO_ROOT, git, write_tree


def commit(repo: Path, name: str) -> str:
    write_tree(repo, {name: f"{name}\n"})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", name)
    return git(repo, "rev-parse", "HEAD").strip()


def test_pre_push_scans_the_pushed_commits_never_the_tree(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    one = commit(repo, "a")
    two = commit(repo, "b")
    env = {"PRE_COMMIT_FROM_REF": one, "PRE_COMMIT_TO_REF": two}
    args, _ = plan(repo, env, ["--strict"])
    assert args == ["boundary", "--range", f"{one}..{two}", "--strict"]
    # a new root (pre-commit gives no range, only the ref): the whole history, not HEAD's tree
    args, note = plan(repo, {"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main"}, [])
    assert args == ["boundary", "--history"] and "root commit" in note
    # by hand, no remote: everything HEAD holds is unpushed
    assert plan(repo, {}, [])[0] == ["boundary", "--history"]
    # the remote has it all: nothing to scan
    env = {"PRE_COMMIT_FROM_REF": two, "PRE_COMMIT_TO_REF": two}
    assert plan(repo, env, [])[0] is None


def test_pre_push_refuses_values_that_are_not_commits(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    one = commit(repo, "a")
    for env in (
        {"PRE_COMMIT_FROM_REF": "--all", "PRE_COMMIT_TO_REF": one},
        {"PRE_COMMIT_FROM_REF": one, "PRE_COMMIT_TO_REF": "HEAD"},
        {"PRE_COMMIT_FROM_REF": one, "PRE_COMMIT_TO_REF": "f" * 40},
        {"PRE_COMMIT_LOCAL_BRANCH": "--output=x", "PRE_COMMIT_REMOTE_NAME": "origin"},
        {"PRE_COMMIT_REMOTE_NAME": "origin"},
    ):
        with pytest.raises(Refused):
            plan(repo, env, [])
    assert not (repo / "x").exists()


BOTH = ("refs/heads/", "refs/tags/")


def test_push_command_lines_that_send_several_refs() -> None:
    assert push_sources(["origin", "main"]) == (["main"], ())
    assert push_sources(["-u", "-o", "ci.skip", "origin", "+a:b", "c"]) == (["a", "c"], ())
    assert push_sources(["origin", "--all"]) == ([], ("refs/heads/",))
    assert push_sources(["--tags", "origin"]) == ([], ("refs/tags/",))
    assert push_sources(["origin", "refs/heads/*:refs/heads/*"]) == ([], BOTH)
    assert push_sources(["origin", ":"]) == ([], BOTH)
    assert push_sources(["origin", ":gone", "^refs/heads/x"]) == ([], ())
    assert push_sources(["--delete", "origin", "a", "b"]) == ([], ())
    assert push_sources(["origin", "--", "-weird"]) == (["-weird"], ())
    assert push_sources(["--mirror", "origin"]) == ([], BOTH)
    assert push_sources(["origin", "tag", "v1", "main"]) == (["refs/tags/v1", "main"], ())
    assert push_sources(["origin", "main", "tag"]) == (["main", "tag"], ())  # a ref named tag
    assert push_sources(["--tags", "origin", "main"]) == (["main"], ("refs/tags/",))


def test_the_push_command_line_is_read_as_git_reads_it() -> None:
    """Issue 30 item 17: unique prefixes of long options, `--no-` forms, bundled short options
    and option values, with the installed git's own list of push options."""
    options = git_push_options(REPO_ROOT)
    assert {"all", "mirror", "tags", "follow-tags", "push-option", "no-tags"} <= set(options)
    for given in (options, None):  # git's list, and the built-in one
        assert push_sources(["--al", "origin"], given) == ([], ("refs/heads/",))
        assert push_sources(["origin", "--mirr"], given) == ([], BOTH)
        assert push_sources(["--tag", "origin", "main"], given) == (["main"], ("refs/tags/",))
        assert push_sources(["--all", "--no-all", "origin", "a"], given) == (["a"], ())
        assert push_sources(["--no-al", "--al", "origin"], given) == ([], ("refs/heads/",))
        assert push_sources(["--push-o", "x", "--rep=r", "origin", "a"], given) == (["a"], ())
        assert push_sources(["-fo", "v", "-u", "origin", "a"], given) == (["a"], ())
        assert push_sources(["-uo", "origin", "r", "a"], given) == (["a"], ())  # -o origin
        assert push_sources(["-ovalue", "origin", "a"], given) == (["a"], ())
        assert push_sources(["--force-with-lease", "origin", "a"], given) == (["a"], ())
        assert push_sources(["--end-of-options", "origin", "--all"], given) == (["--all"], ())
        assert push_sources(["-fd", "origin", "a"], given) == ([], ())
        assert parse_push(["--follow", "origin"], given).follow_tags is True
        assert parse_push(["--follow-tags", "--no-follow", "o"], given).follow_tags is False
        for bad in (["--fo", "origin"], ["--nope", "origin"], ["-x", "origin"]):
            with pytest.raises(Refused):  # ambiguous or unknown: git would not have pushed
                push_sources(bad, given)


def test_usage_errors_exit_2() -> None:
    for args in ([], ["nope"], ["github-summary", "only-one"]):
        done = subprocess.run(
            [sys.executable, "-m", "apc_tools.hooks", *args],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.returncode == 2 and done.stderr.startswith("usage:"), args


def test_the_step_summary_says_how_many_results_the_sarif_left_out(tmp_path: Path) -> None:
    from apc_tools.findings import Registry, Result
    from apc_tools.report import render
    from apc_tools.report.sarif import RESULT_LIMIT
    from tests.report_rules import LEGACY, MISSING

    findings = [MISSING.finding(f"e/{i}.md", "e", 1) for i in range(RESULT_LIMIT + 7)]
    result = Result.of([*findings, LEGACY.finding("w.md", "w", 2)], files=RESULT_LIMIT + 8)
    registry = Registry.of([MISSING, LEGACY])
    for fmt in ("json", "sarif"):
        text = render(result, fmt, registry, color=False, version="1")
        (tmp_path / f"report.{fmt}").write_text(text, encoding="utf-8")
    report, sarif = str(tmp_path / "report.json"), str(tmp_path / "report.sarif")
    text = github_summary(report, sarif, "a..b")
    assert f"holds the {RESULT_LIMIT} most severe of {RESULT_LIMIT + 8} findings: 8 were" in text
    assert "the commits of `a..b`" in text
    whole = github_summary(report, sarif, "e..t", "every commit of `t`")
    assert "Scanned: every commit of `t`." in whole
    (tmp_path / "small.sarif").write_text(
        render(Result.of(findings[:3], 3), "sarif", registry, color=False, version="1"), "utf-8"
    )
    assert "left out" not in github_summary(report, str(tmp_path / "small.sarif"))
    assert "left out" not in github_summary(report, str(tmp_path / "missing.sarif"))


def test_pre_push_excludes_what_the_remote_tracking_branches_hold(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    git(repo, "remote", "add", "origin", (tmp_path / "nowhere.git").as_uri())
    root = commit(repo, "root")
    git(repo, "checkout", "-q", "-b", "a")
    commit(repo, "a1")
    a = commit(repo, "a2")
    git(repo, "checkout", "-q", "-b", "b", root)
    b = commit(repo, "b1")
    git(repo, "update-ref", "refs/remotes/origin/a", a)
    git(repo, "update-ref", "refs/remotes/origin/b", b)
    git(repo, "merge", "-q", "--no-ff", "-m", "merge a", "a")
    tip = commit(repo, "new")
    env = {
        "PRE_COMMIT_LOCAL_BRANCH": "refs/heads/b",
        "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/b",
        "PRE_COMMIT_REMOTE_NAME": "origin",
        "PRE_COMMIT_REMOTE_URL": (tmp_path / "nowhere.git").as_uri(),
        "PRE_COMMIT_FROM_REF": b,
        "PRE_COMMIT_TO_REF": tip,
    }
    args, note = plan(repo, env, [])
    # two bases (origin/a, origin/b): the smaller range a..tip, which also holds b1
    assert args == ["boundary", "--range", f"{a}..{tip}"]
    assert "scanning the 2 commits being pushed" in note and "1 more the remote" in note
    # pushed to a URL, nothing is known to be on the other side but FROM
    url = {**env, "PRE_COMMIT_REMOTE_NAME": "file:///else*where"}
    assert plan(repo, url, [])[0] == ["boundary", "--range", f"{b}..{tip}"]
    del url["PRE_COMMIT_FROM_REF"], url["PRE_COMMIT_TO_REF"]
    assert plan(repo, url, [])[0] == ["boundary", "--history"]
