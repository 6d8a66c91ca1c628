"""`apc boundary --staged --fix` in real git repositories: leaked runtime files leave the index
(the working files stay), their ignore lines land in the right .gitignore, the retried commit
passes, and a file already in history is never rewritten (the message names git filter-repo)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from apc_tools.boundary.fix import ignore_line
from tests.boundary.helpers import CLAUDE, repo, token
from tests.cli.test_cli import apc
from tests.conftest import git
from tests.integrations.leaks import PROJECT

SETTINGS = '{"permissions": {"allow": ["Bash(ls)"]}}\n'


def index(root: Path) -> set[str]:
    return set(git(root, "ls-files", "-z").split("\0")) - {""}


def ignored(root: Path, path: str) -> bool:
    """Whether the ignore rules match ``path`` (tracked or not: `--no-index`)."""
    done = subprocess.run(
        ["git", "check-ignore", "-q", "--no-index", "--", path], cwd=root, check=False
    )
    return done.returncode == 0


def test_staged_leaks_are_untracked_ignored_and_the_commit_passes(tmp_path: Path) -> None:
    root = repo(tmp_path, PROJECT)
    leaks = {
        "notes/session [1].jsonl": CLAUDE,
        ".claude/settings.local.json": SETTINGS,
        ".apc/sessions/2026-01-01.json": '{"messages": []}\n',
    }
    for rel, text in leaks.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "src/new.py").write_text("x = 1\n")
    git(root, "add", "-f", "--", *leaks, "src/new.py")
    gitignore_before = (root / ".apc/.gitignore").read_text()
    refused = apc("boundary", "--staged", cwd=root)
    assert refused.returncode == 1
    head = git(root, "rev-parse", "HEAD")

    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    for rel, text in leaks.items():
        assert (root / rel).read_text(encoding="utf-8") == text  # the working file is kept
        assert rel not in index(root)
        assert ignored(root, rel), rel
        assert f"{rel}: " in done.stdout
    assert "src/new.py" in index(root)  # what is not a leak stays staged
    assert (root / ".gitignore").read_text() == (
        ".claude/settings.local.json\n/notes/session \\[1\\].jsonl\n"
    )
    apc_lines = (root / ".apc/.gitignore").read_text()
    assert apc_lines == gitignore_before + "/sessions/2026-01-01.json\n"
    assert "filter-repo" not in done.stdout  # nothing was committed before
    assert git(root, "rev-parse", "HEAD") == head
    git(root, "add", ".gitignore", ".apc/.gitignore")
    assert apc("boundary", "--staged", cwd=root).returncode == 0
    git(root, "commit", "-q", "-m", "retry")
    assert apc("boundary", "--tracked", cwd=root).returncode == 0


def test_a_leak_already_committed_is_never_rewritten(tmp_path: Path) -> None:
    root = repo(tmp_path, {**PROJECT, "logs/session.jsonl": CLAUDE})
    leaked = git(root, "rev-parse", "HEAD").strip()
    (root / "logs/session.jsonl").write_text(CLAUDE + CLAUDE, encoding="utf-8")
    git(root, "add", "logs/session.jsonl")
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "git filter-repo --invert-paths --path=logs/session.jsonl" in done.stdout
    assert "rotate" in done.stdout
    assert git(root, "rev-parse", "HEAD").strip() == leaked  # history untouched
    assert git(root, "cat-file", "-t", f"{leaked}:logs/session.jsonl").strip() == "blob"
    assert (root / "logs/session.jsonl").read_text(encoding="utf-8") == CLAUDE + CLAUDE
    status = git(root, "status", "--porcelain")
    assert "D  logs/session.jsonl" in status  # the next commit drops it from the tree


def test_fix_only_on_the_index(tmp_path: Path) -> None:
    root = repo(tmp_path, {**PROJECT, "logs/session.jsonl": CLAUDE})
    for mode in (["--tracked"], ["--history"], ["--range", "HEAD..HEAD"], []):
        done = apc("boundary", *mode, "--fix", cwd=root)
        assert done.returncode == 2, (mode, done.stdout, done.stderr)
        assert "--staged" in done.stderr and "filter-repo" in done.stderr
    assert "logs/session.jsonl" in index(root)


def test_a_secret_in_a_contract_file_is_reported_not_untracked(tmp_path: Path) -> None:
    root = repo(tmp_path, PROJECT)
    key = token("sk-proj-", 48, seed=5)
    (root / "AGENTS.md").write_text(PROJECT["AGENTS.md"] + f"\nKey: {key}\n", encoding="utf-8")
    git(root, "add", "AGENTS.md")
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 1
    assert "AGENTS.md" in index(root) and not (root / ".gitignore").exists()
    assert key not in done.stdout + done.stderr


def test_a_symlinked_gitignore_is_not_written(tmp_path: Path) -> None:
    root = repo(tmp_path, PROJECT)
    outside = tmp_path / "elsewhere"
    outside.write_text("keep\n")
    (root / ".gitignore").symlink_to(outside)
    (root / "session.jsonl").write_text(CLAUDE, encoding="utf-8")
    git(root, "add", "session.jsonl")
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert "session.jsonl" not in index(root)
    assert outside.read_text() == "keep\n"
    assert "add the lines by hand" in done.stdout
    # untracked, but nothing stops the next `git add` re-adding it: the fix is not complete
    assert done.returncode == 1, done.stdout + done.stderr


def test_ignore_lines() -> None:
    assert ignore_line(".apc/sessions/a.json") == (".apc/.gitignore", "/sessions/a.json")
    assert ignore_line("pkg/.apc/cache/x") == ("pkg/.apc/.gitignore", "/cache/x")
    assert ignore_line(".claude/settings.local.json") == (
        ".gitignore",
        "/.claude/settings.local.json",
    )
    assert ignore_line("a/#b/!c*?.md") == (".gitignore", "/a/\\#b/\\!c\\*\\?.md")
    assert ignore_line("trailing ") == (".gitignore", "/trailing\\ ")


HOSTILE = (
    "a b.md",
    "-x.md",
    "nl\nsrc",
    "st*r.md",
    "!bang.md",
    "#hash.md",
    "[br].md",
    "trail ",
    "back\\slash.md",
    "cr\r",
    "tab\tx.md",
    "ff\x0cx.md",
)


def test_hostile_names_get_exactly_their_own_ignore_line(tmp_path: Path) -> None:
    """Each hostile name is untracked and ignored by one line that ignores it and nothing the
    user keeps: a line feed in a name never writes a pattern of its own (`src`), and a second
    run adds no line twice."""
    root = repo(tmp_path, PROJECT)
    leaks = [f".apc/sessions/{n}" for n in HOSTILE] + [f".claude/projects/p/{n}" for n in HOSTILE]
    for rel in leaks:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("hi\n", encoding="utf-8")
    (root / "src").mkdir(exist_ok=True)
    (root / "src/main.py").write_text("x = 1\n")
    (root / "-x.md").write_text("keep\n")
    git(root, "add", "-f", "--", *leaks, "src/main.py", "-x.md")
    before = (root / ".apc/.gitignore").read_text()
    done = apc("boundary", "--staged", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert index(root) & set(leaks) == set()
    assert {"src/main.py", "-x.md"} <= index(root)
    for rel in leaks:
        assert (root / rel).read_text(encoding="utf-8") == "hi\n"
        assert ignored(root, rel), repr(rel)
    for keep in ("src/main.py", "src", "-x.md", "src/nl"):
        assert not ignored(root, keep), keep
    # the Claude Code runtime folder gets its one pattern, whatever its files are called
    # (a committed .claude/projects/ is a Claude Code home: the folder, its shared files kept)
    assert (root / ".gitignore").read_text().startswith("/.claude/**\n!/.claude/**/\n")
    assert "nl" not in (root / ".gitignore").read_text()
    lines = (root / ".apc/.gitignore").read_text().split("\n")
    assert "/sessions/nl?src" in lines and "src" not in lines
    written = {p: (root / p).read_bytes() for p in (".gitignore", ".apc/.gitignore")}
    assert (root / ".apc/.gitignore").read_text().startswith(before)
    git(root, "add", "-f", "--", *leaks)
    again = apc("boundary", "--staged", "--fix", cwd=root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert {p: (root / p).read_bytes() for p in written} == written  # no line added twice


def test_a_locked_index_untracks_nothing_and_says_so(tmp_path: Path) -> None:
    """git rm --cached fails as a whole when another git holds the index: nothing leaves it, no
    .gitignore is written, the leak is still reported (exit 1) and the message says why."""
    root = repo(tmp_path, PROJECT)
    (root / ".claude").mkdir(exist_ok=True)
    (root / ".claude/settings.local.json").write_text(SETTINGS, encoding="utf-8")
    git(root, "add", "-f", ".claude/settings.local.json")
    lock = root / ".git/index.lock"
    lock.write_text("")
    try:
        done = apc("boundary", "--staged", "--fix", cwd=root)
    finally:
        lock.unlink()
    assert done.returncode == 1, done.stdout + done.stderr
    assert ".claude/settings.local.json" in index(root)
    assert not (root / ".gitignore").exists()
    assert "nothing was untracked" in done.stdout and "index.lock" in done.stdout
    assert "untracked nothing: the index is as it was" in done.stdout
    assert "review the .gitignore change" not in done.stdout
