"""GitHub annotations end to end: `apc boundary --format github` on a real repository whose
leaking file's name holds `%`, `:`, `,` and a newline, read back the way the runner reads it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.cli.test_cli import apc
from tests.integrations.leaks import CLAUDE_SESSION, PROJECT
from tests.report.test_github import parse, runner_lines

HOSTILE = "logs/100%25 done: a,b\n::error file=x::forged.jsonl"


def test_hostile_file_name_gives_exactly_one_annotation_naming_it(
    git_repo: Callable[..., Path],
) -> None:
    repo = git_repo({**PROJECT, HOSTILE: CLAUDE_SESSION})
    for command in ("boundary", "check"):
        done = apc(command, "--format", "github", cwd=repo)
        assert done.returncode == 1, done.stderr
        lines = runner_lines(done.stdout)
        commands, summary = lines[:-1], lines[-1]
        assert "error" in summary and not summary.startswith("::")
        parsed = [parse(line) for line in commands]  # every line is exactly one command
        found = json.loads(apc(command, "--format", "json", cwd=repo).stdout)["findings"]
        assert len(parsed) == len(found)
        ours = [(kind, props) for kind, props, _ in parsed if props.get("file") == HOSTILE]
        assert ours and all(kind == "error" for kind, _ in ours), commands
        assert all(props["title"].startswith("BTR") for _, props in ours)
        assert not any(props.get("file") == "x" for _, props, _ in parsed)
