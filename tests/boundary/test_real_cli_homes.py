"""Issue 15 item 1, on the files the CLIs themselves write: a HOME used by one run of Claude
Code, Codex and Gemini CLI, committed whole as a dotfiles repository, has every runtime file
reported as an error and its settings passed.

``data/cli-home-files.txt`` lists what a run under the conformance harness wrote (versions in
its header). When the harness and its installed CLIs are there (the conformance issue's
``tests/conformance/``), the live test makes a fresh HOME the same way and scans that."""

from __future__ import annotations

import shutil
from pathlib import Path

from apc_tools.findings import Finding, Severity
from tests.boundary.helpers import findings, live_clis, repo

DATA = Path(__file__).parent / "data" / "cli-home-files.txt"


def observed() -> list[tuple[str, bool]]:
    out = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            path, _, tag = line.partition(" ")
            out.append((path, tag == "shared"))
    return out


def _content(path: str) -> str | bytes:
    if path.endswith((".sqlite", "-wal", "-shm")):
        return b"SQLite format 3\x00" + b"\x00" * 84
    return '{"x": 1}\n' if path.endswith(".json") else "state\n"


def _verdicts(found: list[Finding], prefix: str, paths: list[str]) -> dict[str, bool]:
    errors = {f.path for f in found if f.severity is Severity.ERROR}
    return {path: prefix + path in errors for path in paths}


def test_the_files_the_clis_wrote_are_errors_in_a_dotfiles_repository(tmp_path: Path) -> None:
    rows = observed()
    assert len(rows) > 20
    files: dict[str, str | bytes] = {f"dotfiles/{p}": _content(p) for p, _ in rows}
    files["dotfiles/README.md"] = "# my dotfiles\n"
    verdicts = _verdicts(findings(repo(tmp_path, files)), "dotfiles/", [p for p, _ in rows])
    assert [p for p, shared in rows if not shared and not verdicts[p]] == []
    assert [p for p, shared in rows if shared and verdicts[p]] == []


def test_live_cli_homes(tmp_path: Path) -> None:
    harness, project, home = live_clis(tmp_path)
    runs = (
        (harness.run_claude, harness.ToolCall("Bash", {"command": "ls"})),
        (harness.run_codex, harness.ToolCall("exec_command", {"cmd": "ls"})),
        (harness.run_gemini, harness.ToolCall("run_shell_command", {"command": "ls"})),
    )
    for run, call in runs:
        with harness.MockServer(harness.Script([call, harness.Text("FINAL")])) as mock:
            run(project, home, mock, "list the files")
    root = tmp_path / "dot"
    shutil.copytree(home, root / "dotfiles")
    written = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    files = {p: (root / p).read_bytes() for p in written}
    shutil.rmtree(root)
    found = findings(repo(tmp_path, files, name="dotrepo"))
    shared = (".claude/settings.json", ".codex/config.toml", ".gemini/settings.json")
    for path, is_error in _verdicts(found, "", written).items():
        inner = path.removeprefix("dotfiles/")
        if inner in shared or inner.startswith(".codex/skills/"):
            assert not is_error, path
        else:
            assert is_error, path
