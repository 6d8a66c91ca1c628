"""Issue 15 item 1: every row of the runtime path table (apc_tools/boundary/paths.py) is an
error where the tool leaves it, at the top of a repository and inside a dotfiles repository;
the settings a user shares on purpose are not; a committed tool home folder makes every
runtime file in it an error.

Each row's example path is made from its glob (``**/`` dropped, ``*`` filled in), so a row
added to the table is tested without another line here."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apc_tools.boundary.paths import HOME_FOLDERS, TOOL_PATHS, PathRule
from apc_tools.findings import Finding, Severity
from tests.boundary.helpers import findings, repo


def example(row: PathRule) -> str:
    """A path the row's glob matches: `**/x/**` -> `x/f`, `*` -> `a1`."""
    path = row.glob.removeprefix("**/")
    if path.endswith("/**"):
        path = path[:-3] + "/f.json"
    return path.replace("/**/", "/a/").replace("*", "a1")


ROWS = {row.glob: row for row in TOOL_PATHS}
PREFIXES = ("", "home/dotfiles/")


@pytest.fixture(scope="module")
def scanned(tmp_path_factory: pytest.TempPathFactory) -> list[Finding]:
    files: dict[str, str | bytes] = {"README.md": "# dotfiles\n"}
    for row in TOOL_PATHS:
        for prefix in PREFIXES:
            files[prefix + example(row)] = "state\n"
    return findings(repo(tmp_path_factory.mktemp("paths"), files))


def test_every_row_has_its_tool_version_and_reason() -> None:
    for row in TOOL_PATHS:
        assert row.tool and row.what and row.seen and row.why, row


@pytest.mark.parametrize("glob", sorted(ROWS))
@pytest.mark.parametrize("prefix", PREFIXES)
def test_each_runtime_path_is_an_error(scanned: list[Finding], glob: str, prefix: str) -> None:
    row = ROWS[glob]
    path = prefix + example(row)
    hits = [f for f in scanned if f.path == path and f.rule == "BPA002"]
    assert hits, f"{path} ({glob}) not reported"
    assert hits[0].severity is Severity.ERROR
    assert f"({row.tool})" in hits[0].message


def test_readme_beside_them_is_clean(scanned: list[Finding]) -> None:
    assert not [f for f in scanned if f.path == "README.md"]


NEW_ROWS = {
    # issue 15 item 1: the paths found committed in public repositories
    ".claude/ide/61721.lock": json.dumps(
        {
            "pid": 4242,
            "workspaceFolders": ["/w/app"],
            "ideName": "Visual Studio Code",
            "transport": "ws",
            "authToken": "4f1e2a9c-8b7d-4c3e-9a1f-2b6d8e0c7a51",
        }
    ),
    ".claude/backups/.claude.json.backup.1767225600000": '{"numStartups": 3}\n',
    ".claude.json": '{"numStartups": 3, "oauthAccount": {"emailAddress": "a@b.example"}}\n',
    ".claude/debug/0b1c.txt": "[DEBUG] start\n",
    ".claude/telemetry/1p_failed_events.json": "[]\n",
    ".claude/image-cache/1/a.png": b"\x89PNG\r\n\x1a\n",
    ".claude/shell-snapshots/snapshot-bash-1.sh": "alias ll='ls -l'\n",
    ".claude/file-history/5d2c/a1b2@v1": "old text\n",
    ".claude/todos/5d2c-agent-5d2c.json": "[]\n",
    ".claude/session-env/5d2c/env": "X=1\n",
    ".claude/statsig/statsig.cached.evaluations.1": "{}\n",
    ".codex/log/codex-tui.log": "INFO start\n",
    ".codex/state_5.sqlite": b"SQLite format 3\x00",
    ".codex/state_5.sqlite-wal": b"\x37\x7f\x06\x82",
    ".codex/logs_2.sqlite-shm": b"\x00" * 16,
    ".codex/auth.json": '{"OPENAI_API_KEY": null, "last_refresh": "2026-01-01T00:00:00Z"}\n',
    ".codex/history.jsonl": '{"session_id": "s", "ts": 1, "text": "hi"}\n',
    ".continue/dev_data/devdata.sqlite": b"SQLite format 3\x00",
    ".continue/dev_data/0.2.0/chatInteraction.jsonl": '{"prompt": "x"}\n',
    ".continue/index/index.sqlite": b"SQLite format 3\x00",
    ".continue/index/lancedb/chunks.lance/data/0.lance": b"LANC",
    ".continue/sessions/sessions.json": "[]\n",
    ".specstory/statistics.json": '{"sessions": 3}\n',
    ".specstory/.project.json": '{"workspace_id": "w1", "project_name": "app"}\n',
    ".gemini/tmp/abc/logs.json": "[]\n",
    ".gemini/history/abc/HEAD": "ref: refs/heads/main\n",
    ".gemini/oauth_creds.json": '{"token_type": "Bearer", "expiry_date": 1}\n',
    ".gemini/google_accounts.json": '{"active": "a@b.example", "old": []}\n',
    ".aider.tags.cache.v4/cache.db": b"SQLite format 3\x00",
    ".aider/caches/model_prices_and_context_window.json": "{}\n",
    ".aider/oauth-keys.env": "OPENROUTER_API_KEY=x\n",
}


def test_the_paths_of_issue_15_are_errors(tmp_path: Path) -> None:
    found = findings(repo(tmp_path, dict(NEW_ROWS)))
    for path in NEW_ROWS:
        assert any(
            f.path == path and f.rule == "BPA002" and f.severity is Severity.ERROR for f in found
        ), path


SHARED_CONFIG = {
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(npm test)"]}}\n',
    ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews.\n---\nReview.\n",
    ".claude/commands/ship.md": "Ship it.\n",
    ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: PDFs.\n---\nUse it.\n",
    ".claude/CLAUDE.md": "# Global memory\n",
    ".codex/config.toml": 'model = "gpt-5"\n',
    ".gemini/settings.json": '{"theme": "Default"}\n',
    ".aider.conf.yml": "model: sonnet\n",
    ".aider.model.settings.yml": "- name: x\n",
    "locales/ui_messages.json": json.dumps({"en": {"GetReady": "Go!"}, "fr": {"GetReady": "Go"}}),
}


def test_shared_settings_are_not_runtime_state(tmp_path: Path) -> None:
    """The clean twin: what a project or a dotfiles repository shares on purpose."""
    assert findings(repo(tmp_path, dict(SHARED_CONFIG))) == []


def test_a_committed_claude_home_makes_every_runtime_file_an_error(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        f"dotfiles/{path}": text for path, text in SHARED_CONFIG.items() if path[:8] == ".claude/"
    }
    runtime = {
        "dotfiles/.claude/projects/-w/5d2c.jsonl": "{}\n",
        "dotfiles/.claude/plans/brave-otter.md": "# Plan\n",  # in no table: the home makes it
        "dotfiles/.claude/unknown-cache.json": "{}\n",
    }
    files.update(runtime)
    files["dotfiles/README.md"] = "# my dotfiles\n"
    found = findings(repo(tmp_path, files))
    errors = {f.path for f in found if f.severity is Severity.ERROR}
    assert errors == set(runtime)
    assert all(f.rule == "BPA002" for f in found), found


def test_without_projects_a_claude_folder_is_project_config(tmp_path: Path) -> None:
    """No `projects/`: `.claude/plans/` is only a folder of a project's config."""
    files = {".claude/plans/release.md": "# Release plan\n", ".claude/settings.json": "{}\n"}
    assert findings(repo(tmp_path, files)) == []


def test_each_home_folder_rule_names_its_source_and_how_a_home_is_known() -> None:
    """Each row says where it was learnt; a folder that is also a project's config folder has
    marks (a project's `.gemini/` is no home) and what may be shared from it; a folder with
    no marks is a home by where it is (under `.config/`, `.local/share/`, ...) or by what it
    is (Crush's `.crush/` data directory)."""
    for home in HOME_FOLDERS:
        assert home.seen and home.folder.startswith(".") and home.folder == home.folder.casefold()
        assert not home.marks or home.shared, home.folder


def test_cline_ui_messages_by_content_not_by_name(tmp_path: Path) -> None:
    cline = json.dumps(
        [
            {"ts": 1740470400000, "type": "say", "say": "text", "text": "make a chart"},
            {"ts": 1740470401000, "type": "say", "say": "api_req_started", "text": "{}"},
            {"ts": 1740470402000, "type": "ask", "ask": "followup", "text": "which?"},
        ]
    )
    i18n = json.dumps({"en": {"GetReady": "Go!", "Win": "You win"}})
    files = {"task/ui_messages.json": cline, "game/ui_messages.json": i18n}
    found = findings(repo(tmp_path, files))
    assert {(f.rule, f.path) for f in found} == {("BTR001", "task/ui_messages.json")}
