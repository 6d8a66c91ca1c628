"""`apc boundary --staged --fix` writes the tool's pattern to .gitignore (`.aider*`,
`.claude/settings.local.json`, `.specstory/`, a home folder with its shared files re-included,
a runtime path's folder), so the tool's next file is ignored too; every leak message names the
fix (issue 32). Real git repositories, real `apc` subprocesses."""

from __future__ import annotations

import json
from pathlib import Path

from apc_tools.boundary.ignores import patterns
from apc_tools.boundary.paths import home_folders
from tests.boundary.helpers import CLAUDE, repo
from tests.cli.test_cli import apc
from tests.conftest import git
from tests.integrations.leaks import PROJECT

SETTINGS = '{"permissions": {"allow": ["Bash(ls)"]}}\n'
LEAKS = {
    ".aider.chat.history.md": "# aider chat started at 2026-01-01 10:00:00\n\n#### hi\n",
    ".claude/settings.local.json": SETTINGS,
    "web/.claude/settings.local.json": SETTINGS,
    ".specstory/history/2026-01-01_10-00-00Z-hello.md": "# Chat\n\n_**User**_\n\nhi\n",
    ".qwen/oauth_creds.json": '{"access_token": "x", "expiry_date": 1}\n',
    ".qwen/tmp/abc/logs.json": "[]\n",
    ".claude/projects/-home-me-app/5d2c.jsonl": CLAUDE,
}
# the next file each tool writes, after the fix: ignored without another fix
NEXT = (
    ".aider.input.history",
    ".aider.tags.cache.v4/cache.db",
    ".specstory/history/2026-02-02_09-00-00Z-again.md",
    ".qwen/tmp/def/logs.json",
    ".qwen/history/x.json",
    ".claude/projects/-home-me-app/7e1f.jsonl",
)
SHARED = (".qwen/settings.json", ".qwen/agents/reviewer.md", ".claude/settings.json")


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def status(root: Path) -> dict[str, str]:
    """`git status --porcelain --ignored` by path: `!!` ignored, `??` untracked, `A ` staged."""
    out = git(root, "status", "--porcelain=v1", "-z", "--ignored", "--untracked-files=all")
    return {line[3:]: line[:2] for line in out.split("\0") if line}


def test_every_leak_message_names_the_fix(tmp_path: Path) -> None:
    root = repo(tmp_path, PROJECT)
    write(root, LEAKS)
    git(root, "add", "-f", "--", *LEAKS)
    refused = apc("boundary", "--staged", "--format", "json", cwd=root)
    assert refused.returncode == 1, refused.stderr
    found = json.loads(refused.stdout)["findings"]
    assert {f["path"] for f in found} == set(LEAKS)
    for finding in found:
        assert "`apc boundary --staged --fix`" in finding["message"], finding


def test_the_fix_writes_the_tools_pattern_and_the_next_file_is_ignored(tmp_path: Path) -> None:
    root = repo(tmp_path, PROJECT)
    write(root, LEAKS)
    git(root, "add", "-f", "--", *LEAKS)
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = (root / ".gitignore").read_text(encoding="utf-8").splitlines()
    for line in (
        ".aider*",
        ".claude/settings.local.json",
        "/web/.claude/settings.local.json",
        ".specstory/",
        "/.qwen/**",
        "!/.qwen/settings.json",
        "/.claude/**",  # a committed ~/.claude (it holds projects/): a home
        "!/.claude/settings.json",
    ):
        assert line in lines, (line, lines)
    assert len(lines) == len(set(lines))  # one line once
    assert "added `.aider*` to .gitignore" in done.stdout
    # the tool's next files, and the leaks, are ignored; shared configuration is not
    write(root, {rel: "x\n" for rel in (*NEXT, *SHARED)})
    shown = status(root)
    for rel in (*LEAKS, *NEXT):
        assert shown.get(rel) == "!!", (rel, shown)
    for rel in SHARED:
        assert shown.get(rel) == "??", (rel, shown)
    git(root, "add", "-A")  # what a user does next: takes the .gitignore, no runtime file
    assert not set(LEAKS) & set(git(root, "diff", "--cached", "--name-only").split())
    assert apc("boundary", "--staged", cwd=root).returncode == 0
    git(root, "commit", "-q", "-m", "retry")
    assert apc("boundary", "--tracked", cwd=root).returncode == 0


def test_a_leak_no_tool_names_gets_its_exact_line(tmp_path: Path) -> None:
    """A session found by its content at an ordinary path: only that file is ignored."""
    root = repo(tmp_path, PROJECT)
    write(root, {"notes/run.jsonl": CLAUDE, "notes/todo.md": "buy milk\n"})
    git(root, "add", "--", "notes/run.jsonl")
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / ".gitignore").read_text() == "/notes/run.jsonl\n"
    assert status(root)["notes/todo.md"] == "??"


def test_a_pattern_that_misses_the_file_falls_back_to_the_exact_path(tmp_path: Path) -> None:
    """The path rules are case-blind, git's ignore rules are not (core.ignorecase off):
    `git check-ignore` shows the tool's pattern does not ignore the file, so its exact line is
    written too and the fix holds."""
    root = repo(tmp_path, PROJECT)
    git(root, "config", "core.ignorecase", "false")
    write(root, {".AIDER.chat.history.md": "x\n"})
    git(root, "add", "-f", "--", ".AIDER.chat.history.md")
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / ".gitignore").read_text().splitlines() == [".aider*", "/.AIDER.chat.history.md"]
    assert status(root)[".AIDER.chat.history.md"] == "!!"
    assert apc("boundary", "--staged", cwd=root).returncode == 0


def test_a_file_a_deeper_gitignore_re_includes_is_an_incomplete_fix(tmp_path: Path) -> None:
    """No line of the root .gitignore wins over a deeper one: the fix says so and exits 1."""
    root = repo(tmp_path, {**PROJECT, "sub/.gitignore": "!.aider.chat.history.md\n"})
    write(root, {"sub/.aider.chat.history.md": "y\n"})
    git(root, "add", "-f", "--", "sub/.aider.chat.history.md")
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "sub/.aider.chat.history.md: still not ignored" in done.stdout
    assert "the fix is incomplete" in done.stdout


def test_patterns_come_from_one_table() -> None:
    homes = home_folders([".qwen/oauth_creds.json", "x/.gemini/oauth_creds.json"])
    assert patterns(".aider.llm.history", homes) == (".aider*",)
    assert patterns("a/b/.aider.chat.history.md", homes) == (".aider*",)
    assert patterns("CLAUDE.local.md", homes) == ("CLAUDE.local.md",)  # spelt as the path
    assert patterns("sub/.codex/sessions/2026/r.jsonl", homes) == ("/sub/.codex/sessions/",)
    assert patterns(".qwen/oauth_creds.json", homes)[:2] == ("/.qwen/**", "!/.qwen/**/")
    assert "!/x/.gemini/settings.json" in patterns("x/.gemini/oauth_creds.json", homes)
    assert patterns("notes/run.jsonl", homes) == ()
    assert patterns("a [1]/.claude/settings.local.json", {}) == (
        "/a \\[1\\]/.claude/settings.local.json",
    )
