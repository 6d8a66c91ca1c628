"""`apc boundary` as a command: options, output formats, exit codes, escaped file names."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.boundary.helpers import CLAUDE, commit, repo, token
from tests.conftest import git, run_apc


def apc(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_apc(cwd, "boundary", *args, timeout=120)


def test_exit_codes_and_text_output(tmp_path: Path) -> None:
    root = repo(tmp_path, {"README.md": "# x\n"})
    clean = apc(root)
    assert clean.returncode == 0 and "no problems found in 1 file" in clean.stdout
    commit(root, {"notes.txt": CLAUDE})
    leak = apc(root)
    assert leak.returncode == 1
    assert "notes.txt:1: error BTR001 Claude Code session" in leak.stdout
    assert "list files" not in leak.stdout  # never a line of the transcript


def test_json_output_and_commit_in_range_mode(tmp_path: Path) -> None:
    root = repo(tmp_path, {"README.md": "# x\n"})
    head = commit(root, {"s.jsonl": CLAUDE})
    done = apc(root, "--range", "HEAD~1..HEAD", "--format", "json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["version"] == 2
    (finding,) = report["findings"]
    assert finding["rule"] == "BTR001" and finding["commit"] == head
    assert len(finding["fingerprint"]) == 32
    text = apc(root, "--range", "HEAD~1..HEAD")
    assert f"(commit {head[:12]})" in text.stdout


def test_dash_c_paths_and_modes(tmp_path: Path) -> None:
    root = repo(tmp_path, {"a/s.jsonl": CLAUDE, "b/ok.txt": "x\n"})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert apc(elsewhere, "-C", str(root), "b").returncode == 0
    assert apc(elsewhere, "-C", str(root), "a").returncode == 1
    assert apc(root, "--staged").returncode == 0  # nothing staged
    assert apc(root, "--history").returncode == 1
    (root / "c.jsonl").write_text(CLAUDE)
    git(root, "add", "c.jsonl")
    assert apc(root, "--staged").returncode == 1


def test_could_not_run_is_exit_2_with_what_to_do(tmp_path: Path) -> None:
    done = apc(tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith("apc: error: ") and "not a git repository" in done.stderr
    assert "Traceback" not in done.stderr
    root = repo(tmp_path, {"README.md": "x\n"})
    bad = apc(root, "--range", "HEAD~5..HEAD")
    assert bad.returncode == 2 and "no such commit" in bad.stderr
    both = apc(root, "--staged", "--range", "HEAD..HEAD")
    assert both.returncode == 2


def test_hostile_file_names_are_escaped(tmp_path: Path) -> None:
    name = "evil\x1b[31mred\nline.jsonl"
    root = repo(tmp_path, {name: CLAUDE})
    done = apc(root)
    assert done.returncode == 1
    assert "\x1b[31m" not in done.stdout
    lines = [line for line in done.stdout.splitlines() if "BTR001" in line]
    assert len(lines) == 1 and "\\x1b" in lines[0]


def test_write_baseline_then_pass(tmp_path: Path) -> None:
    root = repo(tmp_path, {"AGENTS.md": f"token {token('ghp_', 36)}\n"})
    done = apc(root, "--write-baseline")
    assert done.returncode == 0 and "wrote 1 accepted finding" in done.stdout
    assert apc(root).returncode == 0
    assert apc(root, "--secrets", "all", "--no-inline-allow", "--strict").returncode == 0


def test_progress_goes_to_stderr_only_when_asked(tmp_path: Path) -> None:
    root = repo(tmp_path, {"README.md": "# x\n", "a.txt": "a\n"})
    shown = apc(root, "--progress")
    assert "apc boundary: 2/2 blobs" in shown.stderr and shown.returncode == 0
    assert "blobs" not in shown.stdout
    assert apc(root, "--no-progress").stderr == ""


def test_conflicting_mode_flags_are_exit_2(tmp_path: Path) -> None:
    root = repo(tmp_path, {"README.md": "x\n"})
    for flags in (("--staged", "--tracked"), ("--tracked", "--history"), ("--history", "--staged")):
        done = apc(root, *flags)
        assert done.returncode == 2, flags
        assert "choose one of" in done.stderr and all(f in done.stderr for f in flags)
    assert apc(root, "--tracked").returncode == 0
    assert apc(root, "--history").returncode == 0


def test_a_path_nowhere_is_exit_2_and_a_deleted_tracked_path_is_scanned(tmp_path: Path) -> None:
    root = repo(tmp_path, {"s.jsonl": CLAUDE, "README.md": "x\n"})
    missing = apc(root, "nonexist.txt")
    assert missing.returncode == 2 and "nonexist.txt" in missing.stderr
    assert apc(root, "README.md", "nonexist/").returncode == 2
    (root / "s.jsonl").unlink()
    assert apc(root, "s.jsonl").returncode == 1  # still at HEAD: the gate reads git, not disk
    assert apc(root, "--staged", "README.md").returncode == 0


def test_write_baseline_counts_in_words(tmp_path: Path) -> None:
    root = repo(tmp_path, {"s.jsonl": CLAUDE})
    done = apc(root, "--write-baseline")
    assert done.returncode == 0 and done.stdout.startswith("wrote 1 accepted finding to ")


def test_bare_repository_is_exit_2_with_advice(tmp_path: Path) -> None:
    root = repo(tmp_path, {"s.jsonl": CLAUDE})
    git(tmp_path, "clone", "-q", "--bare", str(root), "bare.git")
    for flags in ((), ("--history",)):
        done = apc(tmp_path / "bare.git", *flags)
        assert done.returncode == 2
        assert "bare repository" in done.stderr and "git worktree add" in done.stderr


def test_a_secret_in_agents_override_md_is_a_contract_secret(tmp_path: Path) -> None:
    """Codex sends AGENTS.override.md instead of AGENTS.md: a contract file, scanned for secrets
    by default (``--secrets contract``), as AGENTS.md is."""
    root = repo(tmp_path, {"AGENTS.override.md": f"token {token('ghp_', 36)}\n"})
    done = apc(root, "--format", "json")
    assert done.returncode == 1
    found = json.loads(done.stdout)["findings"]
    assert [(f["rule"], f["path"]) for f in found] == [("BSC001", "AGENTS.override.md")]
