"""BPA: runtime state found by its path alone (cheap, checked before any blob is read).

Two tables. Under a `.apc/` folder, the paths the APC spec forbids (folder-structure.mdx "Do not
place these paths in `.apc/`" plus the spec's `.apc/.gitignore` safe defaults): a `cache/` or
`tmp/` elsewhere in a repository is normal, so these apply inside `.apc/` only. Anywhere in the
tree, the files and folders that agent tools write for their own use (reference §5.1-5.12: only
the rows that are leaks by path alone; a `*.jsonl` is a hint for the content detectors, not a
leak). Paths are compared case-folded: on macOS and Windows `.Claude/Projects/` is the same
folder as `.claude/projects/`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from apc_tools.boundary.model import Detection, rule
from apc_tools.findings import Severity

APC_PATH = rule(
    "BPA001",
    "apc-runtime-path",
    Severity.ERROR,
    "A file sits at a path the APC spec reserves for runtime state inside `.apc/` (sessions/, "
    "conversations/, messages/, chats/, cache/, tmp/, private/, secrets/, "
    "agents/<slug>/auto-memory.md, plans/scratch/, *.local.json, *.secret.json, *.env).",
    "`.apc/` holds the reviewed, portable contract. Sessions, caches, scratch plans and private "
    "files are runtime state: they belong to the machine that made them. Remove the file from "
    "the index (`git rm --cached`), keep it outside `.apc/` (APX keeps it under "
    "`~/.apx/projects/<id>/`), and make sure `.apc/.gitignore` lists the path.",
    ".apc/agents/reviewer.md\n.apc/memory.md",
    ".apc/sessions/2026-01-01-01.md\n.apc/mcps.local.json",
)
TOOL_PATH = rule(
    "BPA002",
    "tool-runtime-path",
    Severity.ERROR,
    "A file sits where an agent tool keeps its own runtime state (`.claude/projects/`, "
    "`.claude/settings.local.json`, `CLAUDE.local.md`, `.codex/sessions/`, `rollout-*.jsonl`, "
    "`.aider.chat.history.md`, `.gemini/tmp/`, `.continue/sessions/`, "
    "`.specstory/history/`, `state.vscdb`, `.apx/`, `.claude/ide/*.lock`, `.codex/*.sqlite`, "
    "`.continue/dev_data/`, ...), or any file of an agent tool's home or state folder "
    "committed whole (a `.claude/` holding `projects/`, a `.qwen/` or any dot-folder holding "
    "`oauth_creds.json`, `.local/share/amp/`, `.config/github-copilot/`, `.crush/`, "
    "`.langgraph_api/`) other than the settings shared on purpose.",
    "These files are written by Claude Code, Codex, Gemini CLI, Antigravity, Qwen Code, Cursor, "
    "Aider, Cline, Continue, OpenCode, Crush, Copilot, Windsurf, Auggie, Amp, SpecStory, APX "
    "or another agent tool for one machine and one person: sessions, credentials, "
    "prompt logs, local permissions, caches. Remove the file from the index (`git rm --cached`), "
    "add the path to `.gitignore`, and if the file ever held a credential, rotate it. Teams "
    "that commit such a folder on purpose (some keep `.specstory/history/`) allow it in "
    "`.apc-tools.yaml`.",
    ".claude/settings.json\n.claude/agents/reviewer.md",
    ".claude/settings.local.json\n.aider.chat.history.md",
)
RULES = (APC_PATH, TOOL_PATH)


@dataclass(frozen=True)
class PathRule:
    """A glob over the case-folded repository path, the tool that writes there, what it is,
    the version (or source) it was seen in, and why it is runtime state rather than config."""

    glob: str
    tool: str
    what: str
    seen: str = ""
    why: str = ""


# The spec's forbidden paths, relative to the `.apc/` folder that holds them.
APC_FORBIDDEN: tuple[PathRule, ...] = (
    PathRule("**/sessions/**", "APC", "session records"),
    PathRule("**/conversations/**", "APC", "conversation records"),
    PathRule("messages/**", "APC", "message records"),
    PathRule("chats/**", "APC", "chat records"),
    PathRule("cache/**", "APC", "a cache"),
    PathRule("tmp/**", "APC", "temporary files"),
    PathRule("private/**", "APC", "private files"),
    PathRule("secrets/**", "APC", "secrets"),
    PathRule("agents/*/auto-memory.md", "APC", "unreviewed auto-memory"),
    PathRule("plans/scratch/**", "APC", "scratch plans"),
    PathRule("**/*.local.json", "APC", "machine-local settings (*.local.json)"),
    PathRule("**/*.secret.json", "APC", "secrets (*.secret.json)"),
    PathRule("**/*.env", "APC", "an environment file (*.env)"),
    PathRule("**/*.env.*", "APC", "an environment file (*.env.*)"),
    PathRule("**/.env", "APC", "an environment file (.env)"),
)

_SESSION = "prompts, tool inputs and outputs of one person's sessions"
_CREDENTIAL = "a credential of one account"
_CACHE = "a cache the tool rebuilds"
_CC = "Claude Code 2.x (~/.claude layout, reference §5.1)"
_CC_RUN = "Claude Code 2.1.197 (written by a run under the conformance harness)"

# Other tools' runtime state, anywhere in the tree (reference §5.1-5.12, §5.11 deny-list).
# A `ui_messages.json` is judged by its content (BTR001: Cline's ts/type/say records), not by
# its name: it is also an ordinary internationalisation file name.
TOOL_PATHS: tuple[PathRule, ...] = (
    # Claude Code
    PathRule("**/.claude/projects/**", "Claude Code", "session transcripts", _CC_RUN, _SESSION),
    PathRule(
        "**/.claude/settings.local.json",
        "Claude Code",
        "personal local settings",
        _CC,
        "the file Claude Code writes for one person's permission grants (not shared)",
    ),
    PathRule("**/claude.local.md", "Claude Code", "personal local memory", _CC, "personal notes"),
    PathRule(
        "**/.claude/agent-memory-local/**", "Claude Code", "local agent memory", _CC, "memory"
    ),
    PathRule("**/.claude/sessions/**", "Claude Code", "sessions", _CC, _SESSION),
    PathRule("**/.claude/history.jsonl", "Claude Code", "the prompt history", _CC, _SESSION),
    PathRule("**/.claude/.credentials.json", "Claude Code", "credentials", _CC, _CREDENTIAL),
    PathRule("**/.claude/todos/**", "Claude Code", "session todo lists", _CC, "per-session state"),
    PathRule(
        "**/.claude/shell-snapshots/**",
        "Claude Code",
        "shell snapshots",
        _CC,
        "a dump of one shell's functions, aliases and environment",
    ),
    PathRule(
        "**/.claude/session-env/**", "Claude Code", "session environments", _CC, "per-session"
    ),
    PathRule(
        "**/.claude/file-history/**",
        "Claude Code",
        "file edit history",
        _CC,
        "copies of edited files, per session (checkpoints)",
    ),
    PathRule("**/.claude/paste-cache/**", "Claude Code", "the paste cache", _CC, _CACHE),
    PathRule("**/.claude/statsig/**", "Claude Code", "telemetry state", _CC, "feature-flag cache"),
    PathRule("**/.claude/telemetry/**", "Claude Code", "telemetry", _CC, "queued usage events"),
    PathRule("**/.claude/debug/**", "Claude Code", "debug logs", _CC, "logs of one machine"),
    PathRule("**/.claude/image-cache/**", "Claude Code", "the image cache", _CC, _CACHE),
    PathRule(
        "**/.claude/ide/*.lock",
        "Claude Code",
        "an IDE connection lock file",
        _CC + "; the IDE extension writes <port>.lock with pid, workspaceFolders, authToken",
        "it holds the auth token of a live IDE connection",
    ),
    PathRule(
        "**/.claude/backups/.claude.json.backup*",
        "Claude Code",
        "a backup of the user state file",
        _CC_RUN,
        "a copy of ~/.claude.json (OAuth account, project trust, MCP servers)",
    ),
    PathRule(
        "**/.claude.json",
        "Claude Code",
        "the user state file (OAuth, trust, MCP)",
        _CC_RUN,
        "the OAuth account, per-project trust and history of one user",
    ),
    PathRule(
        "**/.claude.json.backup*",
        "Claude Code",
        "a backup of the user state file",
        _CC,
        "a copy of ~/.claude.json",
    ),
    # Codex
    PathRule("**/.codex/sessions/**", "Codex", "session rollouts", "codex-rs rollout/", _SESSION),
    PathRule(
        "**/.codex/archived_sessions/**", "Codex", "archived session rollouts", "codex-rs", _SESSION
    ),
    PathRule("**/rollout-*.jsonl", "Codex", "a session rollout", "codex-rs rollout/", _SESSION),
    PathRule(
        "**/rollout-*.jsonl.zst", "Codex", "a compressed session rollout", "codex-rs", _SESSION
    ),
    PathRule("**/.codex/history.jsonl", "Codex", "the prompt history", "codex-rs", _SESSION),
    PathRule(
        "**/.codex/auth.json",
        "Codex",
        "credentials",
        "codex-rs login/ (auth.json: OPENAI_API_KEY, tokens)",
        _CREDENTIAL,
    ),
    PathRule(
        "**/.codex/log/**", "Codex", "logs", "codex-rs tui (log/codex-tui.log)", "one machine's log"
    ),
    PathRule(
        "**/.codex/*.sqlite",
        "Codex",
        "a state database",
        "codex 0.171.0 (state_5, logs_2, goals_1, memories_1, queue_1, thread_history_1 .sqlite)",
        "threads, logs and memories of one user",
    ),
    PathRule(
        "**/.codex/*.sqlite-wal",
        "Codex",
        "a state database's write-ahead log",
        "codex-rs state/",
        "uncommitted pages of a state database (WAL mode)",
    ),
    PathRule(
        "**/.codex/*.sqlite-shm",
        "Codex",
        "a state database's shared memory",
        "codex-rs state/",
        "the WAL index of a state database",
    ),
    PathRule(
        "**/.codex/installation_id",
        "Codex",
        "the installation id",
        "codex 0.171.0 (written on first run, conformance harness)",
        "one installation's identity",
    ),
    PathRule("**/.codex/.tmp/**", "Codex", "temporary files and locks", "codex 0.171.0", "locks"),
    PathRule("**/.codex/thread-writer-locks/**", "Codex", "thread locks", "codex 0.171.0", "locks"),
    # Gemini CLI
    PathRule(
        "**/.gemini/tmp/**", "Gemini CLI", "sessions and checkpoints", "gemini-cli 0.x", _SESSION
    ),
    PathRule(
        "**/.gemini/history/**",
        "Gemini CLI",
        "the checkpoint shadow repository",
        "gemini-cli 0.x",
        "git snapshots of the working tree",
    ),
    PathRule("**/.gemini/sessions/**", "Gemini CLI", "sessions", "gemini-cli 0.x", _SESSION),
    PathRule(
        "**/.gemini/oauth_creds.json",
        "Gemini CLI",
        "OAuth credentials",
        "gemini-cli 0.56 (config/storage.ts OAUTH_FILE)",
        _CREDENTIAL,
    ),
    PathRule(
        "**/.gemini/google_accounts.json",
        "Gemini CLI",
        "the signed-in Google accounts",
        "gemini-cli 0.56 (config/storage.ts GOOGLE_ACCOUNTS_FILENAME)",
        "the e-mail addresses of one user",
    ),
    PathRule(
        "**/.gemini/projects.json",
        "Gemini CLI",
        "the project registry",
        "gemini-cli 0.61.0 (written on first run, conformance harness)",
        "the absolute paths of one machine's projects",
    ),
    PathRule(
        "**/.gemini/installation_id",
        "Gemini CLI",
        "the installation id",
        "gemini-cli 0.56 (config/storage.ts getInstallationIdPath)",
        "one installation's identity",
    ),
    # Cursor, VS Code
    PathRule("**/.cursor/chats/**", "Cursor", "chats", "Cursor (reference §5.6)", _SESSION),
    PathRule("**/.cursor/projects/**", "Cursor", "agent transcripts", "Cursor", _SESSION),
    PathRule("**/.cursor/snapshots/**", "Cursor", "snapshots", "Cursor", "file snapshots"),
    PathRule("**/.cursor/ide_state.json", "Cursor", "IDE state", "Cursor", "one editor's state"),
    PathRule("**/agent-transcripts/**", "Cursor", "agent transcripts", "Cursor CLI", _SESSION),
    PathRule("**/state.vscdb", "Cursor / VS Code", "the chat database", "VS Code", _SESSION),
    PathRule(
        "**/state.vscdb.backup", "Cursor / VS Code", "a chat database backup", "VS Code", _SESSION
    ),
    # SpecStory
    PathRule(
        "**/.specstory/history/**", "SpecStory", "saved chat sessions", "SpecStory 0.x", _SESSION
    ),
    PathRule(
        "**/.specstory/.project.json",
        "SpecStory",
        "the project identity file",
        "specstory-cli (lore fixtures .specstory/.project.json)",
        "a workspace id and the git identity of one machine",
    ),
    PathRule(
        "**/.specstory/statistics.json",
        "SpecStory",
        "session statistics",
        "specstory-cli",
        "counts of one person's sessions",
    ),
    # Aider
    PathRule("**/.aider.chat.history.md", "Aider", "the chat history", "aider 0.86", _SESSION),
    PathRule("**/.aider.input.history", "Aider", "the prompt history", "aider 0.86", _SESSION),
    PathRule("**/.aider.llm.history", "Aider", "the LLM conversation log", "aider 0.86", _SESSION),
    PathRule(
        "**/.aider.tags.cache.v*/**",
        "Aider",
        "the repository map cache",
        "aider 0.86 (repomap.py TAGS_CACHE_DIR)",
        _CACHE,
    ),
    PathRule(
        "**/.aider/oauth-keys.env",
        "Aider",
        "OAuth keys",
        "aider 0.86 (main.py, onboarding.py)",
        _CREDENTIAL,
    ),
    PathRule(
        "**/.aider/caches/**",
        "Aider",
        "model and help caches",
        "aider 0.86 (models.py, help.py)",
        _CACHE,
    ),
    PathRule(
        "**/.aider/analytics.json",
        "Aider",
        "the analytics identity",
        "aider 0.86 (analytics.py)",
        "one installation's id",
    ),
    PathRule(
        "**/.aider/installs.json",
        "Aider",
        "the install record",
        "aider 0.86 (main.py)",
        "one installation's record",
    ),
    # Cline, Roo Code
    PathRule(
        "**/api_conversation_history.json",
        "Cline / Roo Code",
        "a task's API history",
        "cline 3.x (core/storage/disk.ts GlobalFileNames)",
        _SESSION,
    ),
    PathRule(
        "**/task_metadata.json",
        "Cline / Roo Code",
        "a task's metadata",
        "cline 3.x (core/storage/disk.ts)",
        "files and models of one task",
    ),
    PathRule("**/cline_task_*.md", "Cline", "an exported task", "cline 3.x", _SESSION),
    PathRule("**/roo_task_*.md", "Roo Code", "an exported task", "Roo Code 3.x", _SESSION),
    PathRule("**/.cline/tasks/**", "Cline", "tasks", "cline 4.x", _SESSION),
    # Continue
    PathRule(
        "**/.continue/sessions/**",
        "Continue",
        "sessions",
        "continue 1.3 (core/util/paths.ts getSessionsFolderPath)",
        _SESSION,
    ),
    PathRule(
        "**/.continue/dev_data/**",
        "Continue",
        "development data (prompt and completion logs)",
        "continue 1.3 (core/util/paths.ts getDevDataPath: devdata.sqlite, <schema>/*.jsonl)",
        "logs of every prompt, completion and edit one person made",
    ),
    PathRule(
        "**/.continue/index/**",
        "Continue",
        "the code index (LanceDB and SQLite)",
        "continue 1.3 (core/util/paths.ts getIndexFolderPath: index.sqlite, lancedb/)",
        _CACHE + " (embeddings and chunks of one checkout)",
    ),
    # OpenCode, Copilot, Windsurf, APX
    PathRule("**/opencode/storage/session/**", "OpenCode", "session records", "opencode", _SESSION),
    PathRule("**/opencode/storage/message/**", "OpenCode", "message records", "opencode", _SESSION),
    PathRule("**/opencode/storage/part/**", "OpenCode", "message parts", "opencode", _SESSION),
    PathRule("**/opencode.db", "OpenCode", "the session database", "opencode", _SESSION),
    PathRule(
        "**/.copilot/session-state/**", "Copilot CLI", "session events", "copilot-cli", _SESSION
    ),
    PathRule(
        "**/.copilot/session-store.db",
        "Copilot CLI",
        "the session database",
        "copilot-cli",
        _SESSION,
    ),
    PathRule(
        "**/github.copilot-chat/transcripts/**", "Copilot Chat", "transcripts", "VS Code", _SESSION
    ),
    PathRule("**/chatsessions/*.jsonl", "Copilot Chat", "chat sessions", "VS Code", _SESSION),
    PathRule(
        "**/chateditingsessions/**", "Copilot Chat", "chat editing sessions", "VS Code", _SESSION
    ),
    PathRule("**/.codeium/windsurf/cascade/**", "Windsurf", "conversations", "Windsurf", _SESSION),
    PathRule(
        "**/.codeium/windsurf/**/*.pb",
        "Windsurf",
        "conversation or memory state",
        "Windsurf",
        _SESSION,
    ),
    PathRule(
        "**/.apx/**", "APX", "APX's home (runtime state, tokens, memory)", "APX", "runtime state"
    ),
)


@dataclass(frozen=True)
class HomeFolder:
    """The home or state folder of an agent tool, the folder a tool writes under ``~``,
    ``~/.config``, ``~/.local/share``, ``~/.local/state`` or ``~/.cache`` (case-folded, as it
    sits there: ``.gemini``, ``.config/github-copilot``), committed whole by a dotfiles
    repository or by someone who ran an agent with the repository as its home.

    ``marks``: sub-paths that only a user-level home holds (credentials, histories, logs, a
    project-hash folder, an installation id); any one committed shows the folder is the home,
    not a project's shared config folder of the same name. Empty: the folder is a home by where
    it is (``.local/share/amp/``) or by what it is (Crush's ``.crush/`` data directory).
    ``shared``: what a user may share from it on purpose (globs relative to the folder). Every
    other file in it is runtime state of the tool. ``seen``: the version and source file the
    row was learnt from. ``found``: the mark that made a committed folder a home."""

    folder: str
    tool: str
    marks: tuple[str, ...]
    shared: tuple[str, ...]
    seen: str = ""
    found: str = ""

    @property
    def marker(self) -> str:
        """What shows the folder is a home (a mark, or its place)."""
        return self.found or (self.marks[0] if self.marks else "")


# What a user shares from a VS Code-family agent IDE's user-data folder (`User/` settings).
_IDE_FILES = ("settings.json", "keybindings.json", "tasks.json", "mcp.json", "snippets/**")
_IDE_SHARED = (
    *(f"user/{p}{g}" for p in ("", "profiles/*/") for g in _IDE_FILES),
    "user/prompts/**",
)
_AG = "Antigravity 1.x (closed source; layout seen in Josh84-Axe/Flutter_partnerapp@edbe097)"
_GEMINI_SRC = "gemini-cli@5411f11 packages/core/src/config/storage.ts"
_QWEN_SRC = "qwen-code@013e660 packages/core/src/config/storage.ts"
_COPILOT_CLI = (
    "Copilot CLI 1.0 (docs.github.com copilot-cli-reference/cli-config-dir-reference: "
    "config.json is auto-managed state, session-state/, logs/, ide/, session-store.db)"
)
_CRUSH_SRC = (
    "crush@37f36e9 internal/config/config.go (defaultDataDirectory .crush), init.go (init), "
    "scope.go (~/.local/share/crush/crush.json), internal/commands/commands.go"
)

HOME_FOLDERS: tuple[HomeFolder, ...] = (
    HomeFolder(
        ".claude",
        "Claude Code",
        (
            "projects",
            "history.jsonl",
            ".credentials.json",
            "todos",
            "shell-snapshots",
            "session-env",
            "file-history",
            "statsig",
            "telemetry",
            "paste-cache",
            "plugins/installed_plugins.json",
            "plugins/known_marketplaces.json",
        ),
        (
            "settings.json",
            "agents/**",
            "commands/**",
            "skills/**",
            "rules/**",
            "claude.md",
            "output-styles/**",
            "hooks/**",
            "statusline*",
            "keybindings.json",
            "plugins/config.json",
        ),
        _CC_RUN + "; plugins/ layout: qwen-code@013e660 storage.ts (installed_plugins.json)",
    ),
    HomeFolder(
        ".codex",
        "Codex",
        ("sessions", "archived_sessions", "auth.json", "history.jsonl", "log", "installation_id"),
        ("config.toml", "agents.md", "prompts/**", "skills/**", "rules/**", "themes/**"),
        "codex 0.171.0 (written by a run under the conformance harness); codex-rs core",
    ),
    HomeFolder(
        ".gemini",
        "Gemini CLI / Antigravity",
        (
            "tmp",
            "history",
            "oauth_creds.json",
            "google_accounts.json",
            "installation_id",
            "user_id",
            "trustedfolders.json",
            "mcp-oauth-tokens.json",
            "projects.json",
            "acknowledgments",
            "policy_integrity.json",
            "antigravity",
            "antigravity-browser-profile",
        ),
        (
            "settings.json",
            "gemini.md",
            "agents.md",
            "system.md",
            "commands/**",
            "skills/**",
            "agents/**",
            "extensions/**",
            "policies/**",
            "keybindings.json",
            "antigravity/browserallowlist.txt",
            "antigravity/mcp_config.json",
            "antigravity/global_workflows/**",
        ),
        f"{_GEMINI_SRC}; {_AG}",
    ),
    HomeFolder(
        ".qwen",
        "Qwen Code",
        (
            "tmp",
            "projects",
            "ide",
            "debug",
            "history",
            "arena",
            "bin",
            "oauth_creds.json",
            "google_accounts.json",
            "installation_id",
            "mcp-oauth-tokens.json",
        ),
        (
            "settings.json",
            "qwen.md",
            "agents.md",
            "output-language.md",
            "commands/**",
            "agents/**",
            "skills/**",
            "extensions/**",
        ),
        _QWEN_SRC,
    ),
    HomeFolder(
        ".copilot",
        "GitHub Copilot CLI",
        (
            "session-state",
            "history-session-state",
            "logs",
            "ide",
            "session-store.db",
            "command-history-state.json",
            "permissions-config.json",
            "plugin-data",
            "installed-plugins",
            "pkg",
            "config.json",
        ),
        (
            "settings.json",
            "mcp-config.json",
            "lsp-config.json",
            "copilot-instructions.md",
            "instructions/**",
            "agents/**",
            "skills/**",
            "hooks/**",
        ),
        _COPILOT_CLI,
    ),
    HomeFolder(
        ".config/github-copilot",
        "GitHub Copilot (editor plugins)",
        (),
        ("intellij/mcp.json", "intellij/global-copilot-instructions.md", "mcp.json"),
        "copilot.vim 1.x / copilot-language-server (hosts.json, apps.json: oauth_token per "
        "host); JetBrains plugin (intellij/, <ide>/chat-sessions/ Xodus stores), seen in "
        "Albrtito/dotfiles@a56f22d",
    ),
    HomeFolder(".cache/github-copilot", "GitHub Copilot (editor plugins)", (), (), "its cache"),
    HomeFolder(".crush", "Crush", (), ("commands/**",), _CRUSH_SRC),
    HomeFolder(".local/share/crush", "Crush", (), (), _CRUSH_SRC),
    HomeFolder(
        ".opencode",
        "OpenCode",
        ("opencode.db", "opencode.db-wal", "opencode.db-shm", "init", "logs", "storage"),
        (
            "agent/**",
            "agents/**",
            "command/**",
            "commands/**",
            "mode/**",
            "modes/**",
            "plugin/**",
            "plugins/**",
            "tool/**",
            "tools/**",
            "themes/**",
            "skill/**",
            "skills/**",
            "package.json",
            "bun.lock",
            "package-lock.json",
            ".gitignore",
            "opencode.json",
            "opencode.jsonc",
            "agents.md",
            "readme.md",
        ),
        "opencode-ai/opencode (Go, now Crush) internal/config: data dir .opencode with "
        "opencode.db; sst/opencode packages/opencode/src/config: project .opencode/ folders",
    ),
    HomeFolder(
        ".local/share/opencode",
        "OpenCode",
        (),
        (),
        "sst/opencode packages/opencode/src/global (xdg data: auth.json, storage/, log/, "
        "snapshot/), seen in 812lcl/dotfiles@25f62d4",
    ),
    HomeFolder(".local/state/opencode", "OpenCode", (), (), "sst/opencode src/global (state)"),
    HomeFolder(
        ".codeium",
        "Windsurf / Codeium",
        (
            "windsurf/installation_id",
            "windsurf/cascade",
            "windsurf/database",
            "windsurf/code_tracker",
            "windsurf/implicit",
            "windsurf/user_settings.pb",
            "windsurf-next",
            "database",
            "installation_id",
        ),
        (
            "windsurf/mcp_config.json",
            "windsurf/global_workflows/**",
            "windsurf/memories/global_rules.md",
            "windsurf/skills/**",
        ),
        "Windsurf 1.x (closed source; ~/.codeium/windsurf, seen in kxdrsrt/dotfiles@5521f95)",
    ),
    HomeFolder(
        ".augment",
        "Augment Auggie",
        ("session.json", "sessions", "logs", "auggie.log"),
        (
            "settings.json",
            "rules/**",
            "commands/**",
            "agents/**",
            "skills/**",
            "hooks/**",
            "instructions/**",
            "guidelines.md",
        ),
        "auggie CLI 0.x (~/.augment/session.json: accessToken, tenantURL, scopes; seen in "
        "pratikmankawde/Storyteller@9a95398)",
    ),
    HomeFolder(
        ".local/share/amp",
        "Amp",
        (),
        (),
        "Amp CLI (closed source; secrets.json, threads/, history.jsonl, session.json seen in "
        "hackclub/club-dashboard@bd17989)",
    ),
    HomeFolder(".cache/amp", "Amp", (), (), "Amp CLI (its cache)"),
    HomeFolder(
        ".config/amp",
        "Amp",
        (),
        ("settings.json", "settings.jsonc", "agents.md", "commands/**", "skills/**"),
        "Amp CLI (~/.config/amp/settings.json is its user config)",
    ),
    HomeFolder(
        ".langgraph_api",
        "LangGraph CLI dev server",
        (),
        (),
        "langgraph-api langgraph_runtime_inmem (langgraph dev persists checkpoints, store and "
        "ops as .langgraph_api/*.pckl), seen in 7wikl/my_langgraph_cli@6eea504",
    ),
    HomeFolder(
        ".local/state/replit",
        "Replit Agent",
        (),
        (),
        "Replit Agent (closed source; agent/.agent_state_*.bin, repl_state.bin seen in "
        "hackclub/club-dashboard@bd17989)",
    ),
    HomeFolder(
        ".local/share/amazon-q",
        "Amazon Q Developer CLI",
        (),
        (),
        "amazon-q-developer-cli (data.sqlite3: conversations, auth_kv tokens; Linux data dir, "
        "as the tools that read it document)",
    ),
    HomeFolder(
        ".local/share/kiro-cli",
        "Kiro CLI",
        (),
        (),
        "kiro-cli (data.sqlite3: conversations and auth_kv tokens, as amazon-q's)",
    ),
    HomeFolder(
        ".local/share/goose",
        "Goose",
        (),
        (),
        "block/goose (etcetera app dirs: data dir sessions/)",
    ),
    HomeFolder(".local/state/goose", "Goose", (), (), "block/goose (state dir: logs/)"),
    HomeFolder(
        ".config/goose",
        "Goose",
        (),
        ("config.yaml", ".goosehints", "goosehints", "recipes/**", "agents.md"),
        "block/goose (config dir: config.yaml shared; secrets.yaml, memory/ are not)",
    ),
    HomeFolder(
        ".aider",
        "Aider",
        ("caches", "oauth-keys.env", "analytics.json", "installs.json"),
        ("*.md", ".aider.conf.yml"),
        "aider 0.86 (main.py, models.py, analytics.py, onboarding.py: ~/.aider)",
    ),
    HomeFolder(
        ".cline",
        "Cline CLI",
        ("tasks", "data", "logs"),
        ("rules/**", "workflows/**", "mcp_settings.json"),
        "cline 4.x CLI (~/.cline: data/, tasks/)",
    ),
    HomeFolder(
        ".local/share/zed",
        "Zed (agent threads)",
        (),
        (),
        "zed-industries/zed crates/paths (data_dir: threads/threads.db, db/, logs/)",
    ),
    *(
        HomeFolder(f"{parent}/{name}", f"{tool} (user data)", (), _IDE_SHARED, seen)
        for parent in (".config",)
        for name, tool, seen in (
            ("antigravity", "Antigravity", _AG),
            ("cursor", "Cursor", "Cursor (VS Code user-data layout: User/globalStorage)"),
            ("windsurf", "Windsurf", "Windsurf (VS Code user-data layout)"),
            ("kiro", "Kiro", "Kiro (VS Code user-data layout; kiro.kiroagent sessions)"),
        )
    ),
    HomeFolder(
        ".cursor",
        "Cursor",
        ("projects", "chats", "snapshots", "ide_state.json", "cli-config.json", "extensions"),
        ("mcp.json", "rules/**", "commands/**", "agents/**", "skills/**", "hooks.json"),
        "Cursor / cursor-agent (reference §5.6)",
    ),
    HomeFolder(
        ".continue",
        "Continue",
        ("sessions", "dev_data", "index", "logs"),
        (
            "config.json",
            "config.yaml",
            "config.yml",
            "config.ts",
            ".continuerc.json",
            ".continueignore",
            "rules/**",
            "prompts/**",
            "models/**",
            "mcpservers/**",
            "assistants/**",
            "agents/**",
            "docs/**",
        ),
        "continue 1.3 (core/util/paths.ts)",
    ),
)

# The general rule, for the tools no row names: a folder that directly holds a file only a
# user-level agent home holds, when the folder is a dot-folder (`~/.<tool>/`) or sits in a
# home's config, data, state or cache folder (`~/.config/<tool>/`, ...), is a tool's home.
# The marks are the user-level files the tools above write (oauth_creds.json of Gemini CLI and
# its forks, their installation ids and account lists, OAuth token stores of MCP clients).
GENERIC_MARKS = (
    "oauth_creds.json",
    "installation_id",
    "google_accounts.json",
    "mcp-oauth-tokens.json",
    ".credentials.json",
)
GENERIC_SHARED = (
    "settings.json",
    "config.json",
    "config.toml",
    "config.yaml",
    "*.md",
    "agents/**",
    "commands/**",
    "skills/**",
    "prompts/**",
    "rules/**",
    "themes/**",
    "mcp.json",
    "mcp_config.json",
)
HOME_PARENTS = (".config/", ".local/share/", ".local/state/", ".cache/")


def generic_home(name: str) -> HomeFolder:
    return HomeFolder(name, "an agent tool", GENERIC_MARKS, GENERIC_SHARED, "the general rule")


def _needles() -> tuple[tuple[str, HomeFolder, str], ...]:
    """(needle, row, mark) for every row: the folder and a mark below it, or the folder alone."""
    out: list[tuple[str, HomeFolder, str]] = []
    for home in HOME_FOLDERS:
        for mark in home.marks or ("",):
            out.append((f"{home.folder}/{mark}", home, mark))
    return tuple(out)


NEEDLES = _needles()
# The rows by the first segment of their folder (every one a dot-folder: ".claude", ".config"),
# each with its needles' ranks. A tree whose path has a dot-folder component is never stored by
# the subtree cache (:mod:`.subtrees`).
HOME_SEGMENTS = frozenset(h.folder.split("/")[0] for h in HOME_FOLDERS)


def _by_segment() -> dict[str, tuple[int, ...]]:
    out: dict[str, list[int]] = {}
    for rank, (_, home, _) in enumerate(NEEDLES):
        out.setdefault(home.folder.split("/")[0], []).append(rank)
    return {k: tuple(v) for k, v in out.items()}


_BY_SEGMENT = _by_segment()


def _dot_segments(every: str) -> list[int]:
    """Where a segment starting with "." starts in the NUL-joined listing, in order (every
    row's folder starts with one, so every needle occurrence at a segment start is here)."""
    places = [0] if every.startswith(".") else []
    for sep in ("/.", "\0."):
        at = every.find(sep)
        while at >= 0:
            places.append(at + 1)
            at = every.find(sep, at + 1)
    places.sort()
    return places


_GENERIC = {m: rank for rank, m in enumerate(GENERIC_MARKS, len(NEEDLES))}
_PARENTS = tuple(f"/{p}" for p in HOME_PARENTS)


def _generic(
    every: str, start: int, stop: int, hits: list[tuple[int, int, str, HomeFolder]]
) -> None:
    """The general rule on one path (``every[start:stop]``): its last segment one of
    :data:`GENERIC_MARKS`, directly in a dot-folder or a folder under a home's config, data,
    state or cache folder."""
    cut = every.rfind("/", start, stop)
    rank = _GENERIC.get(every[cut + 1 : stop]) if cut >= 0 else None
    if rank is None:
        return
    folder = every[start:cut]
    name = folder.rpartition("/")[2]
    if name.startswith(".") or ("/" + folder).removesuffix(name).endswith(_PARENTS):
        home = replace(generic_home(name), found=GENERIC_MARKS[rank - len(NEEDLES)])
        hits.append((start, rank, folder + "/", home))


def home_folders(paths: Iterable[str]) -> dict[str, HomeFolder]:
    """The committed tool home folders among ``paths`` (case-folded prefix -> its rule), in
    the order the paths list them (of two nested homes the first found applies): a named
    folder holding one of its marks (a `.claude/` that holds `projects/`, a `.qwen/` that
    holds `oauth_creds.json`), a folder that is a home by where it is (`.local/share/amp/`),
    and by the general rule a dot-folder (or a folder under `.config/`, `.local/share/`,
    `.local/state/`, `.cache/`) that holds one of :data:`GENERIC_MARKS`."""
    listed = list(paths)
    # One case-folded text of every path, NUL-separated (no path holds a NUL, casefold maps
    # no character to one): only the places where a dot-folder starts are looked at.
    every = "\0".join(listed).casefold()
    hits: list[tuple[int, int, str, HomeFolder]] = []  # (path start, rank, prefix, row)
    start = stop = -1  # the path the last place was in (each path's bounds found once)
    taken: set[int] = set()  # the ranks found in that path: each needle counts once a path
    for at in _dot_segments(every):
        if at > stop:  # a new path: its bounds, and the general rule on it
            stop = every.find("\0", at)
            stop = len(every) if stop < 0 else stop
            start = every.rfind("\0", 0, at) + 1
            taken = set()
            _generic(every, start, stop, hits)
        end = every.find("/", at, stop)
        if end < 0:
            continue  # a file name, not a folder
        ranks = _BY_SEGMENT.get(every[at:end])
        if ranks is None:
            continue
        for rank in ranks:
            needle, home, mark = NEEDLES[rank]
            if rank in taken or not every.startswith(needle, at, stop):
                continue
            after = at + len(needle)
            # a mark ends its segment (a folder or the file); a folder alone holds a file
            if (after == stop or every[after] == "/") if mark else after < stop:
                taken.add(rank)  # (the first place in the path: the outermost home)
                hits.append((start, rank, every[start:at] + home.folder + "/", _with(home, mark)))
    found: dict[str, HomeFolder] = {}
    for _, _, prefix, home in sorted(hits, key=lambda h: (h[0], h[1])):
        if home.tool == "an agent tool" and any(prefix.startswith(p) for p in found):
            continue  # inside a home a row names: that row's shared list decides
        found.setdefault(prefix, home)
    return found


@cache
def _with(home: HomeFolder, mark: str) -> HomeFolder:
    return replace(home, found=mark) if mark else home


# Shared in every home: no tool writes a README into its home, and a `.gitignore` there (Crush
# writes `.crush/.gitignore`, crush@37f36e9) is what keeps the rest out of git.
EVERY_HOME_SHARES = (".gitignore", "readme.md", "readme", "readme.txt")


@cache
def _shared(home: HomeFolder) -> tuple[tuple[str, ...], ...]:
    return tuple(_split_rooted(g) for g in (*EVERY_HOME_SHARES, *home.shared))


def _split_rooted(glob: str) -> tuple[str, ...]:
    return tuple(glob.split("/"))


def in_home(low: str, homes: Mapping[str, HomeFolder]) -> bool:
    """Is the case-folded path ``low`` inside a committed home folder (shared config too)?"""
    return bool(homes) and low.startswith(tuple(homes))


def detect_home(low: str, homes: Mapping[str, HomeFolder]) -> Iterator[Detection]:
    """BPA002 for a file inside a committed tool home folder that is not shared config."""
    for prefix, home in homes.items():
        if low.startswith(prefix):
            inner = tuple(low[len(prefix) :].split("/"))
            if any(segments_match(g, inner) for g in _shared(home)):
                return
            why = f"holding {home.found}" if home.found else "a home by where it is"
            yield Detection(
                TOOL_PATH,
                f"a file of a committed {home.tool} home folder ({home.folder}/, {why}): "
                "runtime state of one machine; `git rm --cached` it and keep only the "
                "shared settings",
                match=f"{home.folder}/ (home)",
            )
            return


_LITERAL = re.compile(r"[^*?\[\]{}]+")


def _needle(glob: str) -> str:
    """The longest literal run of a glob: a cheap ``in`` test before the segment match."""
    runs = [r.strip("/") for r in _LITERAL.findall(glob)]
    return max(runs, key=len, default="")


@cache
def _segment(pattern: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(pattern))


def segments_match(glob: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Does a path (its segments) match a glob (its segments, ``**`` = any number of folders)?

    A walk over the path with the set of glob positions reachable so far: linear in the path
    for a given glob, whatever the path holds (a regex with two ``**`` is quadratic on
    repeated folder names).
    """
    states = _closure(glob, {0})
    for part in parts:
        step: set[int] = set()
        for i in states:
            if i < len(glob):
                if glob[i] == "**":
                    step.add(i)
                elif _segment(glob[i]).match(part):
                    step.add(i + 1)
        states = _closure(glob, step)
        if not states:
            return False
    return len(glob) in states


def _closure(glob: tuple[str, ...], states: set[int]) -> set[int]:
    out = set(states)
    for i in sorted(states):
        while i < len(glob) and glob[i] == "**":
            i += 1
            out.add(i)
    return out


@dataclass(frozen=True)
class Compiled:
    """A path table ready for matching: each rule's glob as segments, and an index from a
    literal folder or file name to the rules that need it, so a path is tested only against
    the few rules whose literal segment it has (plus the rules with wildcards in every
    segment, which keep a cheap ``in`` test of their longest literal)."""

    rules: tuple[tuple[str, tuple[str, ...], PathRule], ...] = ()
    by_segment: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    wild: tuple[int, ...] = ()
    segments: frozenset[str] = frozenset()  # the keys of by_segment
    wild_needles: re.Pattern[str] | None = None  # any needle of a wild rule (None: no such)

    def rejects(self, low: str, parts: list[str]) -> bool:
        """No rule can match ``low`` (split into ``parts``): it has no segment a rule names,
        nor the needle of a wild rule (every rule needs its needle in the path)."""
        if not self.segments.isdisjoint(parts):
            return False
        return self.wild_needles is None or self.wild_needles.search(low) is None

    def candidates(self, parts: list[str]) -> Sequence[int]:
        by = self.by_segment
        found = [i for part in parts if part in by for i in by[part]]
        if not found:  # most paths: only the rules with wildcards in every segment
            return self.wild
        return sorted({*found, *self.wild})


def compile_table(table: tuple[PathRule, ...]) -> Compiled:
    """Each rule of ``table`` with its glob's needle and segments, indexed by literal segment."""
    rules = tuple((_needle(r.glob), _split(r.glob), r) for r in table)
    index: dict[str, list[int]] = {}
    wild: list[int] = []
    for i, (_, segments, _) in enumerate(rules):
        literal = next((g for g in segments if g != "**" and not _WILD.search(g)), None)
        if literal is None:
            wild.append(i)
        else:
            index.setdefault(literal, []).append(i)
    return Compiled(
        rules,
        {k: tuple(v) for k, v in index.items()},
        tuple(wild),
        frozenset(index),
        re.compile("|".join(re.escape(rules[i][0]) for i in wild)) if wild else None,
    )


_WILD = re.compile(r"[*?\[\]{}]")


def _split(glob: str) -> tuple[str, ...]:
    """A glob as segments; a glob without a slash matches the name in any folder."""
    glob = glob.strip().lstrip("/")
    if "/" not in glob.rstrip("/"):
        glob = "**/" + glob
    if glob.endswith("/"):
        glob += "**"
    return tuple(glob.split("/"))


def match_table(table: Compiled, low: str) -> PathRule | None:
    """The first rule of ``table`` whose glob matches the case-folded path ``low``."""
    if not table.rules:
        return None
    parts = low.split("/")
    if table.rejects(low, parts):  # most paths
        return None
    for index in table.candidates(parts):
        needle, glob, path_rule = table.rules[index]
        if needle in low and segments_match(glob, tuple(parts)):
            return path_rule
    return None


def extra_rules(globs: Iterable[str], tool: str) -> Compiled:
    """Policy-given runtime paths (``boundary.paths.BPA``), case-folded like the built-ins."""
    what = "runtime state named by the policy"
    return compile_table(tuple(PathRule(g.casefold(), tool, what) for g in globs))


def apc_relative(low: str) -> str | None:
    """The part of ``low`` below its innermost `.apc/` folder, or None outside `.apc/`."""
    if low.startswith(".apc/"):
        low = "/" + low
    index = low.rfind("/.apc/")
    return low[index + 6 :] if index >= 0 else None


APC_TABLE = compile_table(APC_FORBIDDEN)
TOOL_TABLE = compile_table(TOOL_PATHS)


def no_path_rule(low: str, extra: Compiled | None = None) -> bool:
    """:func:`detect_path` finds nothing in ``low`` (decided without building a detection)."""
    if ".apc/" in low:
        return False
    parts = low.split("/")
    return TOOL_TABLE.rejects(low, parts) and (extra is None or extra.rejects(low, parts))


def detect_path(low: str, extra: Compiled | None = None) -> Iterator[Detection]:
    """BPA detections for the case-folded repository path ``low``."""
    inner = apc_relative(low) if ".apc/" in low else None
    if inner:
        hit = match_table(APC_TABLE, inner)
        if hit is not None:
            yield Detection(
                APC_PATH,
                f"{hit.what} inside .apc/: runtime state must stay out of the contract; "
                "`git rm --cached` it and list the path in .apc/.gitignore",
                match=hit.glob,
            )
            return
    hit = match_table(TOOL_TABLE, low)
    if hit is None and extra is not None and extra.rules:
        hit = match_table(extra, low)
    if hit is not None:
        yield Detection(
            TOOL_PATH,
            f"{hit.what} ({hit.tool}): runtime state of one machine; `git rm --cached` it and "
            "add the path to .gitignore",
            match=hit.glob,
        )
