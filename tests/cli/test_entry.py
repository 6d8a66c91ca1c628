"""The plain `apc repair` path of apc_tools.entry (no click) against the click command.

Every case runs the same arguments twice, each in its own copy of the same folder: through
`python -m apc_tools` (the entry point, which takes the plain path for these arguments) and
through the click group `apc_tools.cli.main`; exit code, stdout, stderr and every file left in
the folder must be the same.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from apc_tools.entry import _plain_repair
from tests.conftest import REPO_ROOT, write_tree

CALL = {"id": "call_1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
BROKEN = [
    {"role": "user", "content": "list the files"},
    {"role": "assistant", "content": None, "tool_calls": [CALL]},
    {"role": "tool", "tool_call_id": "nobody", "content": "orphan"},
    {"role": "user", "content": "hello?"},
]
PROJECT = {"AGENTS.md": "# Agents\n\nRun the tests.\n", ".apc/project.json": '{"name": "d"}\n'}
CLICK = "import sys; from apc_tools.cli import main; sys.argv[0] = 'apc'; main()"


def folder(root: Path) -> Path:
    """A runtime folder with a broken history, a clean one, and an APC project beside it."""
    lines = "".join(json.dumps(r) + "\n" for r in BROKEN)
    write_tree(root / "run", {"h.jsonl": lines, "h.json": json.dumps(BROKEN), "sub/x": "x"})
    write_tree(root / "proj", PROJECT)
    return root


def run(cwd: Path, args: list[str], plain: bool, env: dict[str, str]) -> tuple[Any, ...]:
    command = [sys.executable, "-m", "apc_tools"] if plain else [sys.executable, "-c", CLICK]
    environ = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **env}
    if "FORCE_COLOR" not in env:
        environ.pop("FORCE_COLOR", None)
    environ.pop("NO_COLOR", None)
    done = subprocess.run(command + args, cwd=cwd, env=environ, capture_output=True)
    root = str(cwd.parent).encode()  # messages may name the folder: its copies differ
    files = {
        p.relative_to(cwd.parent).as_posix(): p.read_bytes().replace(root, b"<root>")
        for p in sorted(cwd.parent.rglob("*"))
        if p.is_file()
    }
    return done.returncode, *(o.replace(root, b"<root>") for o in (done.stdout, done.stderr)), files


CASES: list[tuple[list[str], dict[str, str]]] = [
    (["repair", "h.jsonl", "-o", "out.jsonl"], {}),
    (["repair", "h.json", "--output", "out.json", "--format", "json"], {}),
    (["repair", "h.jsonl"], {}),
    (["repair", "--check", "h.jsonl"], {}),
    (["repair", "h.json", "--check", "--format", "sarif", "--wire", "openai-chat"], {}),
    (["repair", "h.jsonl", "--in-place", "--format", "github"], {}),
    (["repair", "h.jsonl", "-o", "a.jsonl", "-o", "b.jsonl", "--strict"], {}),
    (["repair", "h.jsonl", "-o", "out.jsonl"], {"FORCE_COLOR": "1"}),
    (["repair", "h.jsonl", "-o", "out.jsonl", "--no-color"], {"FORCE_COLOR": "1"}),
    (["repair", "missing.jsonl", "-o", "out.jsonl"], {}),
    (["repair", "h.jsonl", "-o", "../proj/out.jsonl"], {}),
    (["repair", "h.jsonl", "-o", "out.jsonl", "--project", "../proj"], {}),
    (["repair", "h.jsonl", "--project", "sub"], {}),
    (["repair", "h.jsonl", "-o", "new/out.jsonl", "--skip-bad-lines"], {}),
    (["repair", "h.jsonl", "--in-place", "-o", "out.jsonl"], {}),
]


@pytest.mark.parametrize(("args", "env"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_plain_path_matches_click(tmp_path: Path, args: list[str], env: dict[str, str]) -> None:
    assert _plain_repair(args) is not None or "missing" in " ".join(args)
    plain = run(folder(tmp_path / "a") / "run", args, True, env)
    click = run(folder(tmp_path / "b") / "run", args, False, env)
    assert plain == click
    assert plain[0] in (0, 1, 2)


def test_plain_path_does_not_import_click(tmp_path: Path) -> None:
    cwd = folder(tmp_path) / "run"
    code = (
        "import runpy, sys\n"
        "sys.argv = ['apc', 'repair', 'h.jsonl', '-o', 'out.jsonl']\n"
        "try:\n"
        "    runpy.run_module('apc_tools', run_name='__main__')\n"
        "except SystemExit as exit:\n"
        "    print('EXIT', exit.code, 'click' in sys.modules, file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True)
    assert done.stderr.decode().endswith("EXIT 0 False\n"), done.stderr
    assert (cwd / "out.jsonl").is_file()


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["validate"],
        ["repair"],
        ["repair", "--help"],
        ["repair", "h.jsonl", "-h"],
        ["repair", "h.jsonl", "--output=out.jsonl"],
        ["repair", "h.jsonl", "-oout.jsonl"],
        ["repair", "-"],
        ["repair", "--", "h.jsonl"],
        ["repair", "h.jsonl", "more.jsonl"],
        ["repair", "h.jsonl", "--wire", "OpenAI-Chat"],
        ["repair", "h.jsonl", "--format", "xml"],
        ["repair", "h.jsonl", "-o"],
        ["repair", "h.jsonl", "-o", "-x"],
        ["repair", "h.jsonl", "--in-place=yes"],
        ["repair", "h.jsonl", "--unknown"],
        ["repair", "sub"],
        ["repair", "h.jsonl", "-o", "sub"],
        ["repair", "h.jsonl", "--project", "h.json"],
        ["repair", "h.jsonl", "--config", "sub"],
    ],
)
def test_anything_else_goes_to_click(
    tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(folder(tmp_path) / "run")
    assert _plain_repair(args) is None


def test_click_refusals_are_the_same_through_the_entry_point(tmp_path: Path) -> None:
    for args in (["repair", "sub", "-o", "out.jsonl"], ["repair", "h.jsonl", "--wire", "x"]):
        plain = run(folder(tmp_path / "a") / "run", args, True, {})
        click = run(folder(tmp_path / "b") / "run", args, False, {})
        assert plain[0] == click[0] == 2
        # the usage line names the program as started ("python -m apc_tools" / "apc")
        assert plain[2].splitlines()[2:] == click[2].splitlines()[2:]
        assert b"Error: Invalid value" in plain[2]
        shutil.rmtree(tmp_path / "a")
        shutil.rmtree(tmp_path / "b")
