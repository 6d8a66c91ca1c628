"""Run Claude Code, Codex and Gemini CLI against the loopback mock, each with a temporary HOME.

``from tests.conformance.harness import MockServer, Script, ToolCall, Text, run_claude,
run_codex, run_gemini, binaries``. Each ``run_*`` takes the project folder the CLI works in, a
fresh HOME (``tmp_path / "home"``), the running mock and a prompt, and returns a ``Run`` with the
exit code, the output and the CLI's HOME, so a test reads the request bodies from ``mock`` and the
session files the CLI wrote from ``run.home``. ``extra_args`` go after the fixed arguments (e.g.
``["--resume", ID]``); ``version`` picks one of the tool's pinned versions (default: the first).
``start`` starts the same command without waiting (to interrupt it).

Telemetry, auto-update and non-essential traffic are off in every run; the only network a CLI
reaches is the mock on 127.0.0.1 (proxies are cleared).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.conformance.installer import Binaries, binaries, label, version, versions
from tests.conformance.mock import Hang, MockServer, Parallel, Recorded, Script, Text, ToolCall

__all__ = [
    "Binaries",
    "Hang",
    "MockServer",
    "Parallel",
    "Recorded",
    "Run",
    "Script",
    "Text",
    "ToolCall",
    "binaries",
    "claude_cli",
    "claude_command",
    "codex_command",
    "gemini_command",
    "label",
    "run_claude",
    "run_codex",
    "run_gemini",
    "start",
    "version",
    "versions",
]

TIMEOUT = 120

_PASSTHROUGH = ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR", "SYSTEMROOT")
_QUIET = {
    # shared by all three: no update checks, no telemetry, no colour
    "NO_COLOR": "1",
    "CI": "1",
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
    # Claude Code
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_BUG_COMMAND": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "CLAUDE_CODE_DISABLE_TERMINAL_TITLE": "1",
    "CLAUDE_CODE_IDE_SKIP_AUTO_INSTALL": "1",
    # Gemini CLI
    "GEMINI_CLI_NO_RELAUNCH": "true",
    "GEMINI_TELEMETRY_ENABLED": "false",
    "GEMINI_CLI_DISABLE_AUTOUPDATER": "true",
    # Codex
    "CODEX_DISABLE_UPDATE_CHECK": "1",
    "RUST_LOG": "error",
}


@dataclass
class Run:
    tool: str
    returncode: int
    stdout: str
    stderr: str
    home: Path
    cwd: Path


def _env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    env = {k: os.environ[k] for k in _PASSTHROUGH if k in os.environ}
    env.update(_QUIET)
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")})
    env.update(
        {"XDG_CACHE_HOME": str(home / ".cache"), "XDG_DATA_HOME": str(home / ".local/share")}
    )
    env.update(extra)
    return env


def _bins() -> Binaries:
    found = binaries()
    if found is None:
        raise RuntimeError(
            "the pinned CLIs are not installed (python -m tests.conformance.installer)"
        )
    return found


# --- Claude Code ---------------------------------------------------------------------------


def claude_command(
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str,
    extra_args: list[str] | None = None,
    version: str | None = None,
) -> tuple[list[str], dict[str, str]]:
    home.mkdir(parents=True, exist_ok=True)
    config = home / ".claude"
    config.mkdir(exist_ok=True)
    settings = config / "settings.json"
    if not settings.exists():
        settings.write_text(json.dumps({"autoUpdates": False, "telemetry": False}), "utf-8")
    env = _env(
        home,
        {
            "ANTHROPIC_BASE_URL": mock.url,
            "ANTHROPIC_API_KEY": "sk-ant-mock-not-a-secret",
            "CLAUDE_CONFIG_DIR": str(config),
        },
    )
    args = [
        str(_bins().of("claude", version)),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--model",
        "claude-sonnet-4-5",
        "--allowedTools",
        "Read,Bash,Glob,Grep,Write,Edit",
        *(extra_args or []),
    ]
    return args, env


def run_claude(
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str = "hello",
    extra_args: list[str] | None = None,
    version: str | None = None,
) -> Run:
    args, env = claude_command(cwd, home, mock, prompt, extra_args, version)
    return _run("claude", args, env, cwd, home)


def claude_cli(
    cwd: Path, home: Path, mock: MockServer, args: list[str], version: str | None = None
) -> Run:
    """Run another Claude Code command (``plugin marketplace add``, ``plugin install``) with the
    same HOME and environment as :func:`run_claude`."""
    _, env = claude_command(cwd, home, mock, "", version=version)
    return _run("claude", [str(_bins().of("claude", version)), *args], env, cwd, home)


# --- Codex -----------------------------------------------------------------------------------


def codex_command(
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str,
    extra_args: list[str] | None = None,
    version: str | None = None,
) -> tuple[list[str], dict[str, str]]:
    codex_home = home / ".codex"
    codex_home.mkdir(parents=True, exist_ok=True)
    config = codex_home / "config.toml"
    config.write_text(
        "\n".join(
            [
                'model = "gpt-5.5"',
                'model_provider = "mock"',
                'approval_policy = "never"',
                'sandbox_mode = "danger-full-access"',
                "check_for_update_on_startup = false",
                "",
                "[analytics]",
                "enabled = false",
                "",
                "[feedback]",
                "enabled = false",
                "",
                "[otel]",
                'exporter = "none"',
                "",
                "[model_providers.mock]",
                'name = "mock"',
                f'base_url = "{mock.url}/v1"',
                'wire_api = "responses"',
                'env_key = "MOCK_OPENAI_KEY"',
                "request_max_retries = 0",
                "stream_max_retries = 0",
                "",
            ]
        ),
        "utf-8",
    )
    env = _env(home, {"CODEX_HOME": str(codex_home), "MOCK_OPENAI_KEY": "sk-mock-not-a-secret"})
    args = [
        str(_bins().of("codex", version)),
        "exec",
        "--skip-git-repo-check",
        "--json",
        *(extra_args or []),
        prompt,
    ]
    return args, env


def run_codex(
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str = "hello",
    extra_args: list[str] | None = None,
    version: str | None = None,
) -> Run:
    args, env = codex_command(cwd, home, mock, prompt, extra_args, version)
    return _run("codex", args, env, cwd, home)


# --- Gemini CLI --------------------------------------------------------------------------------


def gemini_command(
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str,
    extra_args: list[str] | None = None,
    version: str | None = None,
) -> tuple[list[str], dict[str, str]]:
    gemini_dir = home / ".gemini"
    gemini_dir.mkdir(parents=True, exist_ok=True)
    settings = gemini_dir / "settings.json"
    if not settings.exists():
        settings.write_text(
            json.dumps(
                {
                    "security": {
                        "auth": {"selectedType": "gemini-api-key"},
                        "folderTrust": {"enabled": False},
                    },
                    "privacy": {"usageStatisticsEnabled": False},
                    "telemetry": {"enabled": False},
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
                },
                indent=2,
            ),
            "utf-8",
        )
    env = _env(
        home,
        {
            "GOOGLE_GEMINI_BASE_URL": mock.url,
            "GEMINI_API_KEY": "mock-gemini-key-not-a-secret",
        },
    )
    args = [
        _bins().node,
        str(_bins().of("gemini", version)),
        "--model",
        "gemini-2.5-pro",
        "--output-format",
        "json",
        "--approval-mode",
        "yolo",
        *(extra_args or []),
        "-p",
        prompt,
    ]
    return args, env


def run_gemini(
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str = "hello",
    extra_args: list[str] | None = None,
    version: str | None = None,
) -> Run:
    args, env = gemini_command(cwd, home, mock, prompt, extra_args, version)
    return _run("gemini", args, env, cwd, home)


def _run(tool: str, args: list[str], env: dict[str, str], cwd: Path, home: Path) -> Run:
    done = subprocess.run(
        args,
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        stdin=subprocess.DEVNULL,
    )
    return Run(tool, done.returncode, done.stdout, done.stderr, home, cwd)


_COMMANDS = {"claude": claude_command, "codex": codex_command, "gemini": gemini_command}


def start(
    tool: str,
    cwd: Path,
    home: Path,
    mock: MockServer,
    prompt: str = "hello",
    extra_args: list[str] | None = None,
) -> subprocess.Popen[str]:
    """Start a CLI without waiting, in its own process group (to send it SIGINT or SIGKILL).

    The Popen's pid is the CLI itself (Claude Code's and Codex's native binaries, node for Gemini
    CLI, which runs in-process with GEMINI_CLI_NO_RELAUNCH), so ``os.kill(p.pid, sig)`` reaches it.
    """
    args, env = _COMMANDS[tool](cwd, home, mock, prompt, extra_args)
    return subprocess.Popen(
        args,
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
