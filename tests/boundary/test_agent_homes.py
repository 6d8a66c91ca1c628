"""Issue 29 rule 1: an agent tool's home folder is runtime state as a whole.

Each case is one tool's home or state folder as the tool writes it (the source named beside
each case; file names and record shapes from that source, or from a public repository that
committed the folder, values made here), committed whole under a dotfiles prefix and at the
root of a repository run with it as HOME: every file is an error (BPA002) except the tool's
shared configuration. Its clean twin is the project configuration folder of the same name (or
the shared files alone), which must give no finding at all.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from apc_tools.findings import Severity
from tests.boundary.helpers import findings, repo, token

SQLITE = b"SQLite format 3\x00" + b"\x00" * 84
PICKLE = b"\x80\x05\x95\x10\x00\x00\x00\x00\x00\x00\x00}\x94\x8c\x04data\x94K\x01s."
OAUTH = json.dumps(
    {
        "access_token": token("", 86, seed=11),
        "token_type": "Bearer",
        "refresh_token": token("", 86, seed=12),
        "resource_url": "portal.qwen.ai",
        "expiry_date": 1775511001480,
    }
)


@dataclass(frozen=True)
class Home:
    tool: str
    source: str
    state: dict[str, str | bytes]  # every one an error
    shared: dict[str, str | bytes]  # committed beside it, clean
    twin: dict[str, str | bytes]  # the project config folder alone: clean


HOMES = [
    Home(
        "Qwen Code",
        "QwenLM/qwen-code@013e660 packages/core/src/config/storage.ts; digen21/qwen-hack@204bdb3",
        {
            ".qwen/oauth_creds.json": OAUTH,
            ".qwen/installation_id": "3f1c2a9e-8d7b-4c6a-9e5f-1a2b3c4d5e6f\n",
            ".qwen/google_accounts.json": '{"active": null, "old": []}\n',
            ".qwen/tmp/9c1f/shell_history": "ls\n",
            ".qwen/projects/-home-u-app/chats/s.jsonl": '{"x": 1}\n',
            ".qwen/debug/s1.txt": "debug\n",
        },
        {".qwen/settings.json": '{"model": {"name": "qwen3-coder"}}\n', ".qwen/QWEN.md": "# x\n"},
        {".qwen/settings.json": "{}\n", ".qwen/commands/review.toml": 'prompt = "review"\n'},
    ),
    Home(
        "Gemini CLI without tmp/",
        "google-gemini/gemini-cli@5411f11 packages/core/src/config/storage.ts; "
        "jharrys/personal-home@2662a31",
        {
            ".gemini/oauth_creds.json": OAUTH,
            ".gemini/google_accounts.json": '{"active": "a@b.c", "old": []}\n',
            ".gemini/installation_id": "0d4e2f6a-1b3c-4d5e-8f9a-0b1c2d3e4f5a\n",
            ".gemini/user_id": "7c9e6679-7425-40de-944b-e07fc1f90ae7\n",
            ".gemini/trustedFolders.json": '{"/home/u/app": "TRUST_FOLDER"}\n',
        },
        {".gemini/settings.json": "{}\n", ".gemini/GEMINI.md": "# rules\n"},
        {".gemini/settings.json": "{}\n", ".gemini/commands/fix.toml": 'prompt = "fix"\n'},
    ),
    Home(
        "Antigravity",
        "Antigravity 1.x layout in Josh84-Axe/Flutter_partnerapp@edbe097 (closed source)",
        {
            ".gemini/antigravity/brain/09e6464d-8ca0-46ad-a7ac-eaec275609a6/task.md": "- [x] a\n",
            ".gemini/antigravity/conversations/09e6464d-8ca0-46ad-a7ac-eaec275609a6.pb": (
                b"\x0a\x24\x00\x01\x02\xff"
            ),
            ".gemini/antigravity/installation_id": "5b1e9c2d-3f4a-4b5c-8d6e-7f8a9b0c1d2e\n",
            ".gemini/antigravity/user_settings.pb": b"\x08\x01\x12\x00",
            ".gemini/antigravity/browser_recordings/a/1763721164315090700.jpg": b"\xff\xd8\xff",
            ".gemini/antigravity/implicit/a.pb": b"\x08\x02",
            ".gemini/antigravity-browser-profile/Default/Preferences": '{"profile": {}}\n',
        },
        {
            ".gemini/antigravity/browserAllowlist.txt": "localhost\n",
            ".gemini/antigravity/mcp_config.json": '{"mcpServers": {}}\n',
            ".gemini/GEMINI.md": "# rules\n",
        },
        {".gemini/antigravity/browserAllowlist.txt": "localhost\n", ".gemini/GEMINI.md": "# r\n"},
    ),
    Home(
        "GitHub Copilot CLI",
        "docs.github.com copilot-cli-reference/cli-config-dir-reference; XEFF09/dotfiles@b942224",
        {
            ".copilot/session-state/3cc3555e/events.jsonl": '{"type": "session.start"}\n',
            ".copilot/session-state/3cc3555e/workspace.yaml": "cwd: /home/u/app\n",
            ".copilot/logs/process-1781779613986-83399.log": "started\n",
            ".copilot/command-history-state.json": '{"commandHistory": ["fix it"]}\n',
            ".copilot/config.json": '{"trusted_folders": ["/home/u/app"]}\n',
            ".copilot/ide/1234.lock": '{"pid": 1}\n',
        },
        {
            ".copilot/mcp-config.json": '{"mcpServers": {}}\n',
            ".copilot/copilot-instructions.md": "# mine\n",
            ".copilot/agents/reviewer.agent.md": "---\nname: reviewer\n---\nReview.\n",
        },
        {".copilot/mcp-config.json": '{"mcpServers": {}}\n', ".copilot/skills/a/SKILL.md": "x\n"},
    ),
    Home(
        "GitHub Copilot CLI under XDG_CONFIG_HOME",
        "github/copilot-cli issue 1954 ($XDG_CONFIG_HOME/.copilot); artas-linux/dotfiles@840688e",
        {".config/.copilot/config.json": '{"logged_in_users": [{"login": "u"}]}\n'},
        {".config/.copilot/mcp-config.json": '{"mcpServers": {}}\n'},
        {".config/.copilot/mcp-config.json": '{"mcpServers": {}}\n'},
    ),
    Home(
        "GitHub Copilot editor plugins",
        "copilot-language-server (hosts.json, apps.json); JetBrains chat-sessions in "
        "Albrtito/dotfiles@a56f22d",
        {
            ".config/github-copilot/versions.json": '{"copilot-intellij": "1.5.0"}\n',
            ".config/github-copilot/py/chat-sessions/2dgJ3V80/00000000000.xd": b"\x00\x01\x02",
            ".config/github-copilot/py/chat-sessions/2dgJ3V80/xd.lck": "lock\n",
            ".cache/github-copilot/logs/language-server.log": "ok\n",
        },
        {".config/github-copilot/intellij/mcp.json": '{"servers": {}}\n'},
        {".config/github-copilot/intellij/mcp.json": '{"servers": {}}\n'},
    ),
    Home(
        "Crush",
        "charmbracelet/crush@37f36e9 internal/config/config.go, init.go; ylor/dotfiles@d3021d6",
        {
            ".crush/crush.db": SQLITE,
            ".crush/crush.db-wal": b"\x37\x7f\x06\x82" + b"\x00" * 28,
            ".crush/crush.db-shm": b"\x00" * 32,
            ".crush/init": "",
            ".crush/logs/crush.log": '{"level": "info"}\n',
            ".local/share/crush/crush.json": '{"providers": {}}\n',
        },
        {
            ".crush/commands/review.md": "Review the diff.\n",
            ".crush/.gitignore": "# written by crush\n",
        },
        {".crush.json": '{"lsp": {}}\n', "crush.json": '{"lsp": {}}\n'},
    ),
    Home(
        "OpenCode",
        "sst/opencode packages/opencode/src/global (xdg data, state); 812lcl/dotfiles@25f62d4",
        {
            ".local/share/opencode/auth.json": '{"anthropic": {"type": "oauth"}}\n',
            ".local/share/opencode/storage/session/info/ses_1.json": '{"id": "ses_1"}\n',
            ".local/share/opencode/log/2026-01-01T000000.log": "INFO\n",
            ".local/state/opencode/prompt-history.jsonl": '{"input": "hi"}\n',
            ".opencode/opencode.db": SQLITE,
        },
        {".opencode/agent/review.md": "---\ndescription: r\n---\nReview.\n"},
        {
            ".opencode/agent/review.md": "---\ndescription: r\n---\nReview.\n",
            ".opencode/command/test.md": "Run the tests.\n",
            ".opencode/package.json": '{"dependencies": {}}\n',
            "opencode.json": '{"$schema": "https://opencode.ai/config.json"}\n',
            ".config/opencode/opencode.json": '{"theme": "system"}\n',
        },
    ),
    Home(
        "Windsurf / Codeium",
        "Windsurf 1.x ~/.codeium/windsurf in kxdrsrt/dotfiles@5521f95 (closed source)",
        {
            ".codeium/windsurf/cascade/6d2036c4-93b5-4289-a6e5-8a57cef427ea.pb": b"\x0a\x02",
            ".codeium/windsurf/installation_id": "6d2036c4\n",
            ".codeium/windsurf/database/9c06/3/embedding_database.sqlite": SQLITE,
        },
        {
            ".codeium/windsurf/mcp_config.json": '{"mcpServers": {}}\n',
            ".codeium/windsurf/memories/global_rules.md": "Be brief.\n",
        },
        {
            ".codeium/windsurf/mcp_config.json": '{"mcpServers": {}}\n',
            ".windsurf/rules/a.md": "a\n",
        },
    ),
    Home(
        "Augment Auggie",
        "auggie CLI ~/.augment (session.json: accessToken, tenantURL, scopes) in "
        "pratikmankawde/Storyteller@9a95398",
        {
            ".augment/session.json": json.dumps(
                {
                    "accessToken": token("", 64, seed=21).lower(),
                    "tenantURL": "https://d1.api.augmentcode.com/",
                    "scopes": ["email"],
                }
            ),
            ".augment/sessions/s1.json": '{"chatHistory": []}\n',
        },
        {".augment/settings.json": '{"model": "sonnet"}\n', ".augment/rules/a.md": "a\n"},
        {".augment/settings.json": "{}\n", ".augment/commands/x.md": "x\n"},
    ),
    Home(
        "Amp",
        "Amp CLI ~/.local/share/amp, ~/.config/amp in hackclub/club-dashboard@bd17989",
        {
            ".local/share/amp/history.jsonl": '"hi"\n',
            ".local/share/amp/session.json": '{"agentMode": "smart"}\n',
            ".local/share/amp/threads/T-16c2227a.json": '{"v": 1, "messages": []}\n',
            ".config/amp/cache.json": "{}\n",  # any file but the shared settings
        },
        {".config/amp/settings.json": '{"amp.notifications.enabled": false}\n'},
        {".config/amp/settings.json": "{}\n", "AGENTS.md": "# Agents\n"},
    ),
    Home(
        "LangGraph CLI dev server",
        "langgraph-api langgraph_runtime_inmem (.langgraph_api/*.pckl); 7wikl/my_langgraph_cli",
        {
            ".langgraph_api/.langgraph_checkpoint.1.pckl": PICKLE,
            ".langgraph_api/.langgraph_ops.pckl": PICKLE,
            ".langgraph_api/store.pckl": PICKLE,
        },
        {},
        {"langgraph.json": '{"graphs": {"agent": "./agent.py:graph"}}\n'},
    ),
    Home(
        "Replit Agent",
        "Replit Agent ~/.local/state/replit/agent in hackclub/club-dashboard@bd17989",
        {
            ".local/state/replit/agent/.latest.json": '{"latest": "main"}\n',
            ".local/state/replit/agent/repl_state.bin": b"\x00\x01",
        },
        {},
        {".replit": 'run = "npm start"\n'},
    ),
    Home(
        "Cursor / Antigravity user data",
        "the VS Code user-data layout (User/globalStorage/state.vscdb, logs/)",
        {
            ".config/Antigravity/logs/20260101/main.log": "start\n",
            ".config/Cursor/User/globalStorage/storage.json": '{"telemetry": {}}\n',
        },
        {
            ".config/Cursor/User/settings.json": '{"editor.fontSize": 13}\n',
            ".config/Antigravity/User/keybindings.json": "[]\n",
        },
        {".config/Cursor/User/settings.json": "{}\n"},
    ),
    Home(
        "Amazon Q Developer CLI, Kiro CLI, Goose",
        "the data.sqlite3 of amazon-q / kiro-cli (conversations, auth_kv); block/goose app dirs",
        {
            ".local/share/amazon-q/data.sqlite3": SQLITE,
            ".local/share/kiro-cli/data.sqlite3": SQLITE,
            ".local/share/goose/sessions/20260101_1.jsonl": '{"role": "user"}\n',
            ".local/state/goose/logs/cli/goose.log": "INFO\n",
            ".config/goose/secrets.yaml": "OPENAI_API_KEY: x\n",
        },
        {".config/goose/config.yaml": "GOOSE_PROVIDER: openai\n"},
        {".config/goose/config.yaml": "GOOSE_PROVIDER: openai\n", ".goosehints": "Be brief.\n"},
    ),
    Home(
        "Aider and Cline CLI homes",
        "aider 0.86 main.py/analytics.py (~/.aider); cline 4.x CLI (~/.cline)",
        {
            ".aider/analytics.json": '{"uuid": "1b2c"}\n',
            ".aider/caches/model_prices.json": "{}\n",
            ".cline/data/state.json": "{}\n",
            ".cline/tasks/1740470400000/ui_messages.json": "[]\n",
        },
        {".aider/CONVENTIONS.md": "Use type hints.\n", ".cline/rules/a.md": "a\n"},
        {".aider.conf.yml": "model: sonnet\n", ".clinerules/a.md": "a\n"},
    ),
    Home(
        "Claude Code plugins",
        "qwen-code@013e660 storage.ts (~/.claude/plugins/installed_plugins.json); "
        "812lcl/dotfiles@25f62d4",
        {
            ".claude/plugins/installed_plugins.json": '{"plugins": {}}\n',
            ".claude/plugins/data/codex/state/s.json": '{"jobs": []}\n',
            ".claude/plugins/claude-hud/transcript-cache/09fd.json": '{"lines": 3}\n',
        },
        {".claude/settings.json": "{}\n", ".claude/skills/brain/SKILL.md": "---\nname: b\n---\n"},
        {".claude/settings.json": "{}\n", ".claude/agents/r.md": "---\nname: r\n---\n"},
    ),
    Home(
        "a tool no row names (the general rule)",
        "the marks Gemini CLI and its forks write (oauth_creds.json, installation_id)",
        {
            ".newagent/oauth_creds.json": OAUTH,
            ".newagent/history/2026-01-01.json": '{"prompt": "hi"}\n',
            ".config/otheragent/installation_id": "1b2c\n",
            ".config/otheragent/logs/a.log": "x\n",
        },
        {".newagent/settings.json": "{}\n", ".config/otheragent/config.toml": "x = 1\n"},
        {".newagent/settings.json": "{}\n", "docs/installation_id": "how the id is made\n"},
    ),
]


def _ids(case: Home) -> str:
    return case.tool


@pytest.mark.parametrize("prefix", ["", "dotfiles/"])
@pytest.mark.parametrize("case", HOMES, ids=_ids)
def test_a_committed_home_is_runtime_state_but_its_shared_config(
    tmp_path: Path, case: Home, prefix: str
) -> None:
    files = {prefix + p: c for p, c in {**case.state, **case.shared}.items()}
    files["README.md"] = "# home\n"
    found = findings(repo(tmp_path, files))
    home = {f.path for f in found if f.rule == "BPA002" and f.severity is Severity.ERROR}
    assert sorted(prefix + p for p in case.state if prefix + p not in home) == []
    errors = {f.path for f in found if f.severity is Severity.ERROR}
    assert sorted(errors & {prefix + p for p in case.shared}) == []


@pytest.mark.parametrize("case", HOMES, ids=_ids)
def test_the_project_config_folder_of_the_same_name_stays_clean(tmp_path: Path, case: Home) -> None:
    found = findings(repo(tmp_path, {**case.twin, "README.md": "# project\n"}))
    assert found == []


def test_every_home_through_apc_boundary(tmp_path: Path) -> None:
    """All the homes at once under a dotfiles prefix, through the `apc` command (exit 1, each
    state file reported in JSON), and the twins (exit 0), in --tracked and --history."""
    files: dict[str, str | bytes] = {}
    for case in HOMES:
        files.update({f"home/{p}": c for p, c in {**case.state, **case.shared}.items()})
    root = repo(tmp_path, files)
    clean = repo(tmp_path, {k: v for c in HOMES for k, v in c.twin.items()}, "clean")
    for mode in ("--tracked", "--history"):
        out = _apc(root, mode)
        assert out.returncode == 1, out.stderr
        paths = {f["path"] for f in json.loads(out.stdout)["findings"] if f["rule"] == "BPA002"}
        state = {f"home/{p}" for c in HOMES for p in c.state}
        assert state <= paths
        assert not paths & {f"home/{p}" for c in HOMES for p in c.shared}
        twin = _apc(clean, mode)
        assert twin.returncode == 0 and json.loads(twin.stdout)["findings"] == [], twin.stdout


def _apc(root: Path, mode: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "apc_tools", "boundary", mode, "--format", "json", "--no-cache"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
