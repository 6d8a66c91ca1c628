"""Real git repositories for the boundary tests, and fixture content built at test time.

Token-shaped strings and files that people's global git excludes drop
(`.claude/settings.local.json`, `.aider*`) are generated here, never committed as files.
"""

from __future__ import annotations

import json
import random
import string
from pathlib import Path
from types import ModuleType

import pytest

from apc_tools.boundary import Options, Outcome, scan
from apc_tools.findings import Finding
from tests.conftest import git, write_tree


def init(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    git(root, "init", "-q", "-b", "main")
    return root


def commit(root: Path, files: dict[str, str | bytes], message: str = "change") -> str:
    write_tree(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def remove(root: Path, *paths: str, message: str = "remove") -> str:
    git(root, "rm", "-q", "--cached", *paths)
    for path in paths:
        (root / path).unlink()
    git(root, "commit", "-q", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def repo(tmp: Path, files: dict[str, str | bytes], name: str = "repo") -> Path:
    root = init(tmp / name)
    commit(root, files, "initial")
    return root


def live_clis(tmp: Path) -> tuple[ModuleType, Path, Path]:
    """The conformance harness with its installed CLIs (else the test is skipped), and a
    fresh project (holding one file) and HOME under ``tmp`` for one run."""
    harness = pytest.importorskip("tests.conformance.harness")
    from tests.conformance.installer import replay_only

    skipped = replay_only()
    if skipped:
        pytest.skip(skipped)
    if harness.binaries() is None:
        pytest.skip("the conformance CLIs are not installed")
    project, home = tmp / "proj", tmp / "home"
    project.mkdir()
    (project / "a.txt").write_text("hello\n")
    return harness, project, home


def run(root: Path, **options: object) -> Outcome:
    return scan(Options(cwd=root, **options))  # type: ignore[arg-type]


def findings(root: Path, **options: object) -> list[Finding]:
    return list(run(root, **options).result.findings)


def rules_at(found: list[Finding], path: str) -> set[str]:
    return {f.rule for f in found if f.path == path}


def token(prefix: str, length: int = 40, seed: int = 7) -> str:
    """A random-looking token with a public prefix (ghp_, sk-proj-...), made at test time."""
    rng = random.Random(seed)
    body = "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(length))
    return prefix + body


def jsonl(*records: object) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


# One small leak per tool of reference §5.12 (record shapes, not copies of anyone's data).
CLAUDE = jsonl(
    {
        "type": "user",
        "sessionId": "5d2c",
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/w",
        "uuid": "u1",
        "message": {"role": "user", "content": "list files"},
    },
    {
        "type": "assistant",
        "sessionId": "5d2c",
        "parentUuid": "u1",
        "uuid": "a1",
        "message": {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}],
        },
    },
)
CODEX = jsonl(
    {"timestamp": "t", "type": "session_meta", "payload": {"id": "x", "cwd": "/w"}},
    {"timestamp": "t", "type": "response_item", "payload": {"type": "message", "role": "user"}},
    {"timestamp": "t", "type": "event_msg", "payload": {"type": "turn_aborted"}},
)
GEMINI_CLI = json.dumps(
    {
        "sessionId": "s1",
        "projectHash": "ab" * 32,
        "startTime": "t",
        "lastUpdated": "t",
        "messages": [
            {"id": "m1", "timestamp": "t", "type": "user", "content": "hi"},
            {"id": "m2", "timestamp": "t", "type": "gemini", "content": "hello", "toolCalls": []},
        ],
    },
    indent=2,
)
CLINE_UI = json.dumps(
    [
        {"ts": 1, "type": "say", "say": "text", "text": "make a chart"},
        {"ts": 2, "type": "say", "say": "api_req_started", "text": "{}"},
    ],
    indent=2,
)
CONTINUE = json.dumps(
    {
        "sessionId": "c1",
        "title": "t",
        "workspaceDirectory": "/w",
        "history": [{"message": {"role": "user", "content": "hi"}, "contextItems": []}],
    }
)
COPILOT = jsonl(
    {"type": "session.start", "data": {"sessionId": "s"}, "id": "1", "timestamp": "t"},
    {"type": "tool.execution_start", "data": {"toolCallId": "c"}, "id": "2", "timestamp": "t"},
)
OPENCODE = json.dumps(
    {"id": "prt_1", "sessionID": "ses_1", "messageID": "msg_1", "type": "tool", "tool": "bash"}
)
CURSOR = jsonl(
    {"role": "user", "message": {"content": [{"type": "text", "text": "List the files."}]}},
    {"role": "assistant", "message": {"content": [{"type": "text", "text": "Here."}]}},
)
APX = jsonl(
    {"id": "1", "ts": "t", "channel": "cli", "type": "user", "actor_id": "u", "content": "hi"},
)
AIDER = "\n# aider chat started at 2026-01-01 10:00:00\n\n#### fix the bug\n\n> Applied edit\n"
SPECSTORY = (
    "<!-- Generated by SpecStory, Markdown v2.1.0 -->\n\n# 2026-01-01 10:00:00Z\n\n"
    "_**User (2026-01-01 10:00:00Z)**_\n\nfix it\n\n---\n\n_**Agent (m 2026-01-01)**_\n\nok\n"
)
OPENAI_CHAT = json.dumps(
    [
        {"role": "user", "content": "weather?"},
        {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function"}]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ]
)
CASSETTE = (
    'interactions:\n- request:\n    body: \'{"model": "gpt-4o", "messages": [{"role": "user"}]}\'\n'
    "    method: POST\n  response:\n    status:\n      code: 200\n"
)

# Tool -> (path where the tool leaves it, content): every row must be an error (BPA or BTR).
TOOL_LEAKS: dict[str, tuple[str, str]] = {
    "claude-code": (".claude/projects/-w/5d2c.jsonl", CLAUDE),
    "claude-code-local": (".claude/settings.local.json", '{"permissions": {"allow": []}}'),
    "claude-local-md": ("CLAUDE.local.md", "# my notes\n"),
    "codex": (".codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-x.jsonl", CODEX),
    "gemini-cli": (".gemini/tmp/abc/chats/session-2026-01-01T00-00-abcd1234.json", GEMINI_CLI),
    "cursor": ("agent-transcripts/u1/u1.jsonl", CURSOR),
    "cursor-db": (".cursor/state.vscdb", "SQLite format 3\x00"),
    "aider": (".aider.chat.history.md", AIDER),
    "aider-input": (".aider.input.history", "\n# 2026-01-01 10:00:00.1\n+hi\n"),
    "cline": ("tasks/1/ui_messages.json", CLINE_UI),
    "continue": (".continue/sessions/c1.json", CONTINUE),
    "opencode": ("opencode/storage/part/msg_1/prt_1.json", OPENCODE),
    "copilot": (".copilot/session-state/s/events.jsonl", COPILOT),
    "windsurf": (".codeium/windsurf/cascade/u.pb", "protobuf"),
    "specstory": (".specstory/history/2026-01-01_10-00-00Z-fix.md", SPECSTORY),
    "apx": (".apx/projects/p/messages/2026-01-01.jsonl", APX),
}
# Content alone must identify these, under a neutral name.
CONTENT_LEAKS: dict[str, str] = {
    "claude-code": CLAUDE,
    "codex": CODEX,
    "gemini-cli": GEMINI_CLI,
    "cline": CLINE_UI,
    "continue": CONTINUE,
    "copilot": COPILOT,
    "opencode": OPENCODE,
    "cursor": CURSOR,
    "apx": APX,
    "aider": AIDER,
    "specstory": SPECSTORY,
}
