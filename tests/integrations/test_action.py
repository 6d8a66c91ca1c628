"""The GitHub Action: action.yml's shape, and its script run locally like the runner runs it,
against real repositories (a bare origin, a shallow checkout as actions/checkout makes)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from tests.conftest import GIT_ENV, REPO_ROOT, git, write_tree
from tests.integrations.leaks import CLAUDE_SESSION, PROJECT

ACTION = REPO_ROOT / "action.yml"
SCRIPT = REPO_ROOT / "action" / "apc-check.sh"
ZERO = "0" * 40
LEAKS = 12  # more than GitHub's 10 annotations per severity


def action() -> dict[str, object]:
    data = YAML(typ="safe").load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_inputs_reach_the_shell_only_through_env() -> None:
    steps = action()["runs"]["steps"]  # type: ignore[index]
    runs = [step for step in steps if "run" in step]
    assert runs
    for step in runs:
        assert "${{" not in step["run"], step["run"]
    check = next(step for step in steps if step.get("id") == "check")
    script_vars = set(re.findall(r"\$\{?(APC_[A-Z_]+)", SCRIPT.read_text(encoding="utf-8")))
    assert script_vars <= set(check["env"]), script_vars - set(check["env"])
    assert set(check["env"]) - {"APC_PYTHON"} == {
        f"APC_{name.upper().replace('-', '_')}"
        for name in action()["inputs"]  # type: ignore[union-attr]
        if name not in ("sarif-file", "python-version")
    } | {"APC_SARIF"}


@dataclass
class Remote:
    origin: Path
    url: str
    base: str  # main's tip when the pull request is opened
    head: str  # the pull request's head
    merge_base: str
    leak_commit: str


def make_remote(tmp_path: Path) -> Remote:
    """main with a clean project; a feature branch that leaks LEAKS sessions in one commit and
    changes something else in the next; main moves on after the branch point."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    dev = tmp_path / "dev"
    git(tmp_path, "init", "-q", "-b", "main", str(dev))
    write_tree(dev, PROJECT)
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "project")
    for i in range(30):  # history below the branch point, for the deepening to walk
        write_tree(dev, {"src/app.py": f"print({i})\n"})
        git(dev, "commit", "-q", "-am", f"work {i}")
    merge_base = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "checkout", "-q", "-b", "feature")
    write_tree(dev, {f"notes/s{i:02}.jsonl": CLAUDE_SESSION for i in range(LEAKS)})
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "add notes")
    leak = git(dev, "rev-parse", "HEAD").strip()
    write_tree(dev, {"src/other.py": "x = 1\n"})
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "more")
    head = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "checkout", "-q", "main")
    write_tree(dev, {"src/app.py": "print('main moved')\n"})
    git(dev, "commit", "-q", "-am", "main moves on")
    base = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "merge", "-q", "--no-ff", "-m", "Merge feature", "feature")
    merge = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "reset", "-q", "--hard", base)
    url = origin.as_uri()
    git(dev, "push", "-q", url, "main", "feature", f"{merge}:refs/pull/1/merge")
    return Remote(origin, url, base, head, merge_base, leak)


def shallow_checkout(tmp_path: Path, remote: Remote, ref: str) -> Path:
    """What actions/checkout does by default: one commit, fetched by ref, detached."""
    work = tmp_path / "workspace"
    git(tmp_path, "init", "-q", str(work))
    git(work, "remote", "add", "origin", remote.url)
    git(work, "fetch", "-q", "--no-tags", "--depth=1", "origin", f"+{ref}:refs/remotes/checkout")
    git(work, "checkout", "-q", "--detach", "refs/remotes/checkout")
    assert (work / ".git" / "shallow").is_file()
    return work


@dataclass
class Run:
    code: int
    stdout: str
    stderr: str
    summary: str
    outputs: dict[str, str]
    sarif: dict[str, object] | None


def run_action(
    work: Path,
    event_name: str,
    event: dict[str, object],
    tmp_path: Path,
    raw: bytes | None = None,
    **inputs: str,
) -> Run:
    """The script for ``event`` (or the event file's bytes ``raw``, as they are)."""
    event_file = tmp_path / "event.json"
    event_file.write_bytes(json.dumps(event).encode() if raw is None else raw)
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir(exist_ok=True)
    summary, outputs = tmp_path / "summary.md", tmp_path / "output.txt"
    summary.write_text("", encoding="utf-8")
    outputs.write_text("", encoding="utf-8")
    env = {
        **os.environ,
        **GIT_ENV,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PYTHONPATH": str(REPO_ROOT),
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(event_file),
        "GITHUB_STEP_SUMMARY": str(summary),
        "GITHUB_OUTPUT": str(outputs),
        "GITHUB_WORKSPACE": str(work),
        "GITHUB_SHA": git(work, "rev-parse", "HEAD").strip(),
        "RUNNER_TEMP": str(runner_temp),
        "APC_PATHS": "",
        "APC_ARGS": "",
        "APC_SARIF": "",
        "APC_WORKING_DIRECTORY": "",
        "APC_FETCH": "true",
        "APC_PYTHON": sys.executable,
    }
    env.update({f"APC_{k.upper()}": v for k, v in inputs.items()})
    done = subprocess.run(
        ["bash", str(SCRIPT)], cwd=work, env=env, capture_output=True, text=True, timeout=300
    )
    values = dict(
        line.split("=", 1) for line in outputs.read_text(encoding="utf-8").splitlines() if line
    )
    sarif_path = work / values["sarif-file"] if values.get("sarif-file") else work / "none"
    return Run(
        done.returncode,
        done.stdout,
        done.stderr,
        summary.read_text(encoding="utf-8"),
        values,
        json.loads(sarif_path.read_text(encoding="utf-8")) if sarif_path.exists() else None,
    )


def annotations(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("::")]


def test_pull_request_from_a_shallow_checkout(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/pull/1/merge")
    event = {
        "pull_request": {"base": {"sha": remote.base}, "head": {"sha": remote.head}},
        "repository": {"default_branch": "main"},
    }
    run = run_action(work, "pull_request", event, tmp_path)
    assert run.code == 1, run.stderr
    assert run.outputs["range"] == f"{remote.merge_base}..{remote.head}"
    sarif_file = run.outputs["sarif-file"]
    assert run.outputs["exit-code"] == "1"
    # outside the workspace, so no later step can commit it
    assert Path(sarif_file).is_relative_to(tmp_path / "runner-temp")
    assert git(work, "status", "--porcelain", "--ignored") == ""
    leaks = [a for a in annotations(run.stdout) if "file=notes/s" in a]
    assert len(leaks) >= LEAKS and all(a.startswith("::error ") for a in leaks)
    assert run.sarif is not None
    results = run.sarif["runs"][0]["results"]  # type: ignore[index]
    commits = {r["properties"]["commit"] for r in results if "notes/s" in str(r["locations"])}
    assert commits == {remote.leak_commit}
    errors = sum(1 for r in results if r["level"] == "error")
    assert f"| error | {errors} | 10 | {errors - 10} |" in run.summary
    assert f"{errors - 10} more findings are in `{sarif_file}`" in run.summary
    assert f"`{remote.merge_base}..{remote.head}`" in run.summary


def test_push_of_a_new_branch_starts_at_the_default_branch(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    event = {
        "before": ZERO,
        "after": remote.head,
        "created": True,
        "repository": {"default_branch": "main"},
    }
    run = run_action(work, "push", event, tmp_path)
    assert run.code == 1, run.stderr
    assert run.outputs["range"] == f"{remote.merge_base}..{remote.head}"
    assert any("file=notes/s00.jsonl" in a for a in annotations(run.stdout))


def test_push_of_commits_without_a_leak_passes(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    event = {"before": remote.leak_commit, "after": remote.head}
    run = run_action(work, "push", event, tmp_path)
    assert run.outputs["range"] == f"{remote.leak_commit}..{remote.head}"
    # the tree at HEAD is validated too, but only the range's commits are scanned for leaks
    assert not [a for a in annotations(run.stdout) if "notes/s" in a]
    assert run.code == 0, run.stdout + run.stderr
    assert "No problems found." in run.summary


@pytest.mark.parametrize("event_name", ["merge_group", "workflow_dispatch"])
def test_merge_group_and_other_events(tmp_path: Path, event_name: str) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    event = {"merge_group": {"base_sha": remote.base, "head_sha": remote.head}}
    run = run_action(work, event_name, event, tmp_path)
    assert run.code == 1, run.stderr
    expected = f"{remote.base}..{remote.head}" if event_name == "merge_group" else ""
    assert run.outputs["range"] == expected
    assert any("file=notes/s00.jsonl" in a for a in annotations(run.stdout))


def test_deleted_branch_checks_nothing(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/main")
    run = run_action(work, "push", {"before": remote.head, "after": ZERO}, tmp_path)
    assert run.code == 0 and "nothing to check" in run.stderr


# --------------------------------------------------------------------------- fails closed


def commits(repo: Path, count: int, label: str) -> None:
    for i in range(count):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"{label} {i}")


def add_and_remove(repo: Path, path: str) -> str:
    """A commit that adds a session at ``path`` and one that removes it; the first's id."""
    write_tree(repo, {path: CLAUDE_SESSION})
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"add {path}")
    leak = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "rm", "-q", path)
    git(repo, "commit", "-q", "-m", f"remove {path}")
    return leak


@dataclass
class SideBranch:
    url: str
    base: str
    head: str
    leak: str


def make_side_branch_remote(tmp_path: Path) -> SideBranch:
    """main, and a pull request whose head merges a long side branch forked far below the
    merge base: the side branch added and removed a session, then 120 more commits."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    dev = tmp_path / "dev"
    git(tmp_path, "init", "-q", "-b", "main", str(dev))
    write_tree(dev, PROJECT)
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "project")
    old = git(dev, "rev-parse", "HEAD").strip()
    commits(dev, 20, "main")
    git(dev, "checkout", "-q", "-b", "feature")
    commits(dev, 2, "feature")
    git(dev, "checkout", "-q", "-b", "side", old)
    leak = add_and_remove(dev, "notes/side.jsonl")
    commits(dev, 120, "side")
    git(dev, "checkout", "-q", "feature")
    git(dev, "merge", "-q", "--no-ff", "-m", "merge side", "side")
    head = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "checkout", "-q", "main")
    commits(dev, 3, "main moves on")
    base = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "push", "-q", origin.as_uri(), "main", "feature")
    return SideBranch(origin.as_uri(), base, head, leak)


def checkout(tmp_path: Path, url: str, ref: str) -> Path:
    work = tmp_path / "workspace"
    git(tmp_path, "init", "-q", str(work))
    git(work, "remote", "add", "origin", url)
    git(work, "fetch", "-q", "--no-tags", "--depth=1", "origin", f"+{ref}:refs/remotes/checkout")
    git(work, "checkout", "-q", "--detach", "refs/remotes/checkout")
    return work


def on_shallow_boundary(work: Path, rev_range: str) -> set[str]:
    shallow = work / ".git" / "shallow"
    cut = set(shallow.read_text().split()) if shallow.exists() else set()
    return cut & set(git(work, "rev-list", rev_range, "--").split())


def test_a_side_branch_below_the_merge_base_is_fetched_whole(tmp_path: Path) -> None:
    remote = make_side_branch_remote(tmp_path)
    work = checkout(tmp_path, remote.url, "refs/heads/feature")
    event = {"pull_request": {"base": {"sha": remote.base}, "head": {"sha": remote.head}}}
    run = run_action(work, "pull_request", event, tmp_path)
    assert run.code == 1, run.stdout + run.stderr
    rev_range = run.outputs["range"]
    assert rev_range.endswith(f"..{remote.head}")
    assert on_shallow_boundary(work, rev_range) == set()
    assert run.sarif is not None
    results = run.sarif["runs"][0]["results"]  # type: ignore[index]
    side = [r for r in results if "notes/side.jsonl" in json.dumps(r["locations"])]
    assert side and {r["properties"]["commit"] for r in side} == {remote.leak}


def test_fetch_false_on_a_shallow_checkout_exits_2(tmp_path: Path) -> None:
    remote = make_side_branch_remote(tmp_path)
    work = checkout(tmp_path, remote.url, "refs/heads/feature")
    git(work, "fetch", "-q", "--no-tags", "--depth=1", "origin", remote.base)
    event = {"pull_request": {"base": {"sha": remote.base}, "head": {"sha": remote.head}}}
    run = run_action(work, "pull_request", event, tmp_path, fetch="false")
    assert run.code == 2, run.stdout + run.stderr
    assert "shallow" in run.stderr and "fetch-depth: 0" in run.stderr
    assert "scanning HEAD" not in run.stderr
    assert run.outputs["exit-code"] == "2"
    assert "::error title=apc-tools could not run::" in run.stdout


def test_fetch_false_with_the_whole_history_checked_out_runs(tmp_path: Path) -> None:
    remote = make_side_branch_remote(tmp_path)
    work = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--no-checkout", remote.url, str(work))
    git(work, "checkout", "-q", "--detach", remote.head)
    event = {"pull_request": {"base": {"sha": remote.base}, "head": {"sha": remote.head}}}
    run = run_action(work, "pull_request", event, tmp_path, fetch="false")
    assert run.code == 1, run.stdout + run.stderr
    assert any("notes/side.jsonl" in a for a in annotations(run.stdout))


@dataclass
class Unrelated:
    url: str
    main: str
    orphan: str
    leak: str


def make_unrelated_remote(tmp_path: Path) -> Unrelated:
    """main, and an orphan branch (no commit in common) whose history added and removed a
    session; its tree at the tip is clean."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    dev = tmp_path / "dev"
    git(tmp_path, "init", "-q", "-b", "main", str(dev))
    write_tree(dev, PROJECT)
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "project")
    commits(dev, 5, "main")
    main = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "checkout", "-q", "--orphan", "pages")
    git(dev, "rm", "-rq", "--cached", ".")
    git(dev, "clean", "-qfdx")
    write_tree(dev, {"index.html": "<p>site</p>\n"})
    git(dev, "add", "-A")
    git(dev, "commit", "-q", "-m", "site")
    leak = add_and_remove(dev, "drafts/s.jsonl")
    commits(dev, 60, "pages")
    orphan = git(dev, "rev-parse", "HEAD").strip()
    git(dev, "push", "-q", origin.as_uri(), "main", "pages")
    return Unrelated(origin.as_uri(), main, orphan, leak)


@pytest.mark.parametrize("kind", ["new-branch", "force-push"])
def test_a_push_of_unrelated_history_scans_all_of_it(tmp_path: Path, kind: str) -> None:
    remote = make_unrelated_remote(tmp_path)
    work = checkout(tmp_path, remote.url, "refs/heads/pages")
    before = ZERO if kind == "new-branch" else remote.main
    event = {
        "ref": "refs/heads/pages",
        "before": before,
        "after": remote.orphan,
        "repository": {"default_branch": "main"},
    }
    run = run_action(work, "push", event, tmp_path)
    assert run.code == 1, run.stdout + run.stderr
    assert "scanning HEAD" not in run.stderr
    assert run.outputs["range"].endswith(f"..{remote.orphan}")
    assert on_shallow_boundary(work, remote.orphan) == set()
    assert any("file=drafts/s.jsonl" in a for a in annotations(run.stdout)), run.stdout
    assert f"every commit of `{remote.orphan}`" in run.summary


def test_the_first_push_of_the_default_branch_scans_all_of_it(tmp_path: Path) -> None:
    remote = make_unrelated_remote(tmp_path)
    work = checkout(tmp_path, remote.url, "refs/heads/pages")
    event = {
        "ref": "refs/heads/pages",
        "before": ZERO,
        "after": remote.orphan,
        "repository": {"default_branch": "pages"},
    }
    run = run_action(work, "push", event, tmp_path)
    assert run.code == 1, run.stdout + run.stderr
    assert any("file=drafts/s.jsonl" in a for a in annotations(run.stdout))


def test_a_pull_request_with_no_merge_base_exits_2(tmp_path: Path) -> None:
    remote = make_unrelated_remote(tmp_path)
    work = checkout(tmp_path, remote.url, "refs/heads/pages")
    event = {"pull_request": {"base": {"sha": remote.main}, "head": {"sha": remote.orphan}}}
    run = run_action(work, "pull_request", event, tmp_path)
    assert run.code == 2, run.stdout + run.stderr
    assert "no merge base" in run.stderr and "scanning HEAD" not in run.stderr
    assert run.outputs["exit-code"] == "2"


BAD_VALUES = [
    "main",
    "HEAD",
    "HEAD~1",
    "--output=/tmp/apc-action-pwned",
    "-n",
    "a" * 39,
    "A" * 40,
    "a" * 41,
    "a" * 40 + "\n",
    "a" * 40 + "\0",
    " " + "a" * 40,
    "a" * 40 + "..HEAD",
    "",
    17,
    None,
]


@pytest.mark.parametrize("event_name", ["pull_request", "push", "merge_group"])
def test_event_values_that_are_not_commit_ids_exit_2(tmp_path: Path, event_name: str) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    for value in BAD_VALUES:
        events: dict[str, dict[str, object]] = {
            "pull_request": {
                "pull_request": {"base": {"sha": remote.base}, "head": {"sha": value}},
            },
            "push": {"before": remote.leak_commit, "after": value},
            "merge_group": {"merge_group": {"base_sha": value, "head_sha": remote.head}},
        }
        run = run_action(work, event_name, events[event_name], tmp_path)
        assert run.code == 2, (value, run.stdout + run.stderr)
        assert "scanning HEAD" not in run.stderr
        assert "not a commit id" in run.stderr or "has no" in run.stderr, (value, run.stderr)
        assert run.outputs["exit-code"] == "2"
        assert "::error title=apc-tools could not run::" in run.stdout
    assert not Path("/tmp/apc-action-pwned").exists()
    assert not (work / "apc-action-pwned").exists()


def test_a_hostile_default_branch_name_exits_2(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    for branch in ("--upload-pack=touch pwned", "a..b", "-x"):
        event = {"before": ZERO, "after": remote.head, "repository": {"default_branch": branch}}
        run = run_action(work, "push", event, tmp_path)
        assert run.code == 2 and "not a branch name" in run.stderr, (branch, run.stderr)
    assert not (work / "pwned").exists()


def test_every_git_call_of_the_script_ends_its_options_before_a_revision() -> None:
    text = SCRIPT.read_text(encoding="utf-8")
    calls = re.findall(r"\bgit ((?:[^\n]|\\\n)*)", text)
    with_revisions = [c for c in calls if "$" in c and not c.startswith("rev-parse --git-path")]
    assert with_revisions
    for call in with_revisions:
        words = call.split()
        if words[0] in ("hash-object", "check-ref-format", "rev-parse") and "--verify" not in call:
            continue  # no revision: stdin, a branch name checked by check-ref-format
        assert "--end-of-options" in call or " -- " in call + " ", call


def test_a_sarif_file_inside_the_work_tree_is_git_ignored(tmp_path: Path) -> None:
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    event = {"before": remote.leak_commit, "after": remote.head}
    run = run_action(work, "push", event, tmp_path, sarif="reports/apc.sarif")
    assert run.outputs["sarif-file"] == "reports/apc.sarif"
    assert (work / "reports" / "apc.sarif").is_file()
    assert git(work, "status", "--porcelain") == ""
    git(work, "add", "-A")
    assert git(work, "diff", "--cached", "--name-only") == ""


def malformed_events(remote: Remote) -> dict[str, bytes]:
    push = json.dumps({"before": remote.leak_commit, "after": remote.head})
    return {
        "truncated": push[: len(push) // 2].encode(),
        "byte-order mark": b"\xef\xbb\xbf" + push.encode(),
        "array": f"[{push}]".encode(),
        # the scan of the first `after` would find the leak; json.loads keeps the last
        "duplicate keys": (
            f'{{"before": "{remote.merge_base}", "after": "{remote.head}", '
            f'"after": "{remote.merge_base}"}}'
        ).encode(),
        "deep nesting": b'{"after": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "not UTF-8": push.replace("before", "bef\xf6re").encode("latin-1"),
    }


@pytest.mark.parametrize("event_name", ["push", "pull_request", "workflow_dispatch"])
def test_a_malformed_event_file_exits_2_with_the_reason(tmp_path: Path, event_name: str) -> None:
    """Issue 30 item 20: an event file that is not one JSON object (truncated, a UTF-8 BOM, an
    array, a key given twice, 100,000-deep nesting) gave a traceback, or was read as an event
    without the key; now it exits 2 naming the file and what is wrong with it."""
    remote = make_remote(tmp_path)
    work = shallow_checkout(tmp_path, remote, "refs/heads/feature")
    reasons = {
        "truncated": "not valid JSON",
        "byte-order mark": "byte-order mark",
        "array": "not an object",
        "duplicate keys": "'after' is given twice",
        "deep nesting": "nested too deeply",
        "not UTF-8": "not UTF-8",
    }
    for name, raw in malformed_events(remote).items():
        run = run_action(work, event_name, {}, tmp_path, raw=raw)
        shown = run.stdout + run.stderr
        assert run.code == 2, (name, shown)
        assert "Traceback" not in shown, (name, shown)
        assert f"the event file {tmp_path / 'event.json'} is not usable" in run.stderr, name
        assert reasons[name] in run.stderr, (name, run.stderr)
        assert run.outputs["exit-code"] == "2", name
        assert "::error title=apc-tools could not run::" in run.stdout, name


def tagged_remote(tmp_path: Path) -> tuple[Remote, dict[str, str]]:
    """The remote of :func:`make_remote` with tags pushed on main's tip, which the default
    branch already holds: `v1` (annotated, a session as its message), `v1-clean` (annotated,
    clean), `vb` (annotated, of a blob holding a session) and `vc` (of a clean blob). Returns
    each tag's object id, and its peeled id under NAME^{}."""
    remote = make_remote(tmp_path)
    dev = tmp_path / "dev"
    message = tmp_path / "message.txt"
    message.write_text(CLAUDE_SESSION, encoding="utf-8")
    git(dev, "tag", "-a", "-F", str(message), "v1", "main")
    git(dev, "tag", "-a", "-m", "release", "v1-clean", "main")
    (tmp_path / "session.jsonl").write_text(CLAUDE_SESSION, encoding="utf-8")
    leaked = git(dev, "hash-object", "-w", str(tmp_path / "session.jsonl")).strip()
    git(dev, "tag", "-a", "-m", "data", "vb", leaked)
    (tmp_path / "clean.txt").write_text("plain data\n", encoding="utf-8")
    clean = git(dev, "hash-object", "-w", str(tmp_path / "clean.txt")).strip()
    git(dev, "tag", "-a", "-m", "data", "vc", clean)
    git(dev, "push", "-q", remote.url, "main", "--tags")
    ids: dict[str, str] = {}
    for name in ("v1", "v1-clean", "vb", "vc"):
        ids[name] = git(dev, "rev-parse", name).strip()
        ids[name + "^{}"] = git(dev, "rev-parse", name + "^{}").strip()
    return remote, ids


def tag_event(name: str, after: str) -> dict[str, object]:
    return {
        "ref": f"refs/tags/{name}",
        "before": ZERO,
        "after": after,
        "created": True,
        "repository": {"default_branch": "main"},
    }


def test_a_tag_push_scans_the_tag_message_and_a_tagged_blob(tmp_path: Path) -> None:
    """Issue 30 item 19: a tag push event whose `after` is the tagged commit (which the
    default branch holds) scanned nothing; the tag's message, and a blob it tags, are scanned,
    whether `after` names the commit or the tag object."""
    remote, ids = tagged_remote(tmp_path)
    for name, after in (("v1", ids["v1^{}"]), ("v1", ids["v1"])):
        work = shallow_checkout(tmp_path, remote, f"refs/tags/{name}")
        run = run_action(work, "push", tag_event(name, after), tmp_path)
        assert run.code == 1, (after, run.stdout + run.stderr)
        leaks = [a for a in annotations(run.stdout) if "BTR001" in a and "tag message" in a]
        assert leaks, run.stdout
        assert run.outputs["range"] == f"{ids['v1^{}']}..{ids['v1']}"
        clean = run_action(work, "push", tag_event("v1-clean", ids["v1-clean^{}"]), tmp_path)
        assert clean.code == 0, clean.stdout + clean.stderr
        assert clean.outputs["range"].endswith(f"..{ids['v1-clean']}")
        subprocess.run(["rm", "-rf", str(work)], check=True)
    work = shallow_checkout(tmp_path, remote, "refs/heads/main")
    blob = run_action(work, "push", tag_event("vb", ids["vb"]), tmp_path)
    assert blob.code == 1, blob.stdout + blob.stderr
    assert any("BTR001" in a and "(tag " in a for a in annotations(blob.stdout)), blob.stdout
    assert "the blob it tags" in blob.summary
    clean_blob = run_action(work, "push", tag_event("vc", ids["vc"]), tmp_path)
    assert clean_blob.code == 0, clean_blob.stdout + clean_blob.stderr
    wrong = run_action(work, "push", tag_event("vb", ids["v1"]), tmp_path)  # after is not vb
    assert wrong.code == 2 and "is neither refs/tags/vb" in wrong.stderr, wrong.stderr
