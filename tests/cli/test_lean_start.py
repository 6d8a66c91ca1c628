"""The lean start (apc_tools/start.py): a warm `apc validate` answered before click is imported
prints exactly what the click command line prints (stdout, stderr, exit code), in every format
and with every option it handles; anything else goes to click with the arguments untouched.

Each run is a real process state: a fork of the test process with its own standard streams
(files, as a shell redirect gives them), working folder, environment and ``sys.argv``; the
click command is reached by ``apc_tools.cli.main`` (the old console script). Real git
repositories, real files, real caches (one ``XDG_CACHE_HOME`` per test).
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path

import pytest

import apc_tools.cli
from apc_tools import start
from apc_tools.core import cache as store
from apc_tools.core import pool
from tests.conftest import CORPUS, needs_shared
from tests.contract.test_validate_cache import VALIDATE_CASES, _prepare
from tests.contract.test_validate_whole_run import _repo

Run = tuple[bytes, bytes, int, bool]  # stdout, stderr, exit code, whether click was reached


def _fork(entry: Callable[[], None], argv: list[str], cwd: Path, env: dict[str, str]) -> Run:
    """``entry()`` with ``sys.argv = ["apc", *argv]`` in a child process, its stdout and stderr
    files (as a shell redirect gives them: not a terminal)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        with tempfile.TemporaryFile() as flag:
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the child
                code = 70
                try:
                    os.chdir(cwd)
                    os.environ.clear()
                    os.environ.update(env)
                    os.dup2(out.fileno(), 1)
                    os.dup2(err.fileno(), 2)
                    sys.stdout = io.open(1, "w", encoding="utf-8", closefd=False)  # noqa: UP020, SIM115
                    sys.stderr = io.open(  # noqa: UP020, SIM115
                        2, "w", encoding="utf-8", errors="backslashreplace", closefd=False
                    )
                    sys.argv = ["apc", *argv]
                    original = apc_tools.cli.main

                    def reached() -> None:
                        os.write(flag.fileno(), b"click")
                        original()

                    apc_tools.cli.main = reached  # type: ignore[assignment]
                    try:
                        entry()
                        code = 0
                    except SystemExit as exc:
                        code = exc.code if isinstance(exc.code, int) else 1
                    sys.stdout.flush()
                    sys.stderr.flush()
                except BaseException:
                    traceback.print_exc()
                    code = 71
                os._exit(code)
            _, status = os.waitpid(pid, 0)
            flag.seek(0)
            reached_click = flag.read() == b"click"
        out.seek(0)
        err.seek(0)
        return out.read(), err.read(), os.waitstatus_to_exitcode(status), reached_click


def _env(xdg: Path, **more: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "FORCE_COLOR", store.NO_CACHE_ENV, pool.MIN_ITEMS_ENV)
        and not k.endswith("_COMPLETE")
    }
    env["XDG_CACHE_HOME"] = str(xdg)
    env.update(more)
    return env


def _click() -> None:
    apc_tools.cli.main()


def _both(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[Run, Run]:
    """(the lean start, the click command line) on a warm cache: the first run fills it."""
    _fork(start.main, argv, cwd, env)
    lean = _fork(start.main, argv, cwd, env)
    click = _fork(_click, argv, cwd, env)
    return lean, click


def _same(lean: Run, click: Run) -> None:
    assert lean[:3] == click[:3]
    assert click[3]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = _repo(tmp_path / "repo")
    (root / "bad").mkdir()
    (root / "bad/AGENTS.md").write_bytes(b"# x\n\x1b[31mred\x1b[0m \xff\n")  # escaped, IO002
    return root


FORMATS = ("text", "concise", "full", "json", "sarif", "github", "gitlab")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "options",
    [
        [],
        ["--list-files"],
        ["--strict", "--no-color"],
        ["--no-inline-allow", "--profile", "agentskills"],
        ["--profile=default", "--list-files", "--strict"],
    ],
    ids=lambda o: " ".join(o) or "plain",
)
def test_a_warm_run_is_answered_without_click_and_prints_the_same(
    repo: Path, tmp_path: Path, fmt: str, options: list[str]
) -> None:
    env = _env(tmp_path / "xdg")
    lean, click = _both(["validate", "--format", fmt, *options], repo, env)
    _same(lean, click)
    assert not lean[3]  # answered by the lean start
    assert lean[2] == 1  # the tree has errors


@pytest.mark.parametrize(
    "env_more", [{"NO_COLOR": "1"}, {"FORCE_COLOR": "1"}, {"FORCE_COLOR": "1", "NO_COLOR": "1"}]
)
@pytest.mark.parametrize("fmt", ["text", "full", "json"])
def test_colour_switches_give_the_same_bytes(
    repo: Path, tmp_path: Path, fmt: str, env_more: dict[str, str]
) -> None:
    env = _env(tmp_path / "xdg", **env_more)
    lean, click = _both(["validate", f"--format={fmt}", "--list-files"], repo, env)
    _same(lean, click)
    assert not lean[3]


def test_paths_a_subfolder_and_config_are_answered_the_same(repo: Path, tmp_path: Path) -> None:
    (repo / "policy.yaml").write_text("version: 1\nseverity:\n  AGM003: info\n", "utf-8")
    env = _env(tmp_path / "xdg")
    for argv, cwd in (
        (["validate", "AGENTS.md", ".cursor"], repo),
        (["validate", "--config", "policy.yaml", "."], repo),
        (["validate", "--format", "json", ".."], repo / "docs"),
        (["validate", str(repo / "bad/AGENTS.md"), "docs/guide.md"], repo),
    ):
        lean, click = _both(argv, cwd, env)
        _same(lean, click)
        assert not lean[3], argv


def test_a_baseline_is_applied_the_same(repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path / "xdg")
    wrote = subprocess.run(
        [sys.executable, "-m", "apc_tools", "check", "--write-baseline"],
        cwd=repo,
        env=env,
        capture_output=True,
    )
    assert (repo / start.BASELINE_FILE).is_file(), wrote.stderr
    lean, click = _both(["validate", "--format", "json"], repo, env)
    _same(lean, click)
    assert json.loads(lean[0])["summary"]["error"] == 0  # the baseline accepted them


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "--help"],
        ["validate", "-h"],
        ["validate", "--format", "yaml"],
        ["validate", "--format"],
        ["validate", "--strict=1"],
        ["validate", "--no-cache", "--format", "json"],
        ["validate", "--select", "AGM", "--format", "json"],
        ["validate", "--statistics"],
        ["validate", "--report-file", "sarif:out.sarif"],
        ["validate", "--", "AGENTS.md"],
        ["validate", "missing.md"],
        ["validate", "--config", "docs"],
        ["validate", "--config", "absent.yaml"],
        ["validate", "--fix"],
        ["validate", "--unknown"],
        ["--version"],
        ["rules", "AGM003"],
    ],
)
def test_anything_else_goes_to_click_untouched(repo: Path, tmp_path: Path, argv: list[str]) -> None:
    env = _env(tmp_path / "xdg")
    lean, click = _both(argv, repo, env)
    assert lean[:3] == click[:3]
    assert lean[3]  # click answered


def test_no_cache_env_and_completion_go_to_click(repo: Path, tmp_path: Path) -> None:
    for more in ({store.NO_CACHE_ENV: "1"}, {"_APC_COMPLETE": "bash_source"}):
        env = _env(tmp_path / "xdg", **more)
        lean, click = _both(["validate", "--format", "json"], repo, env)
        assert lean[:3] == click[:3]
        assert lean[3]


def test_a_cold_run_is_made_without_click_and_the_next_is_answered(
    repo: Path, tmp_path: Path
) -> None:
    env = _env(tmp_path / "xdg")
    cold = _fork(start.main, ["validate", "--format", "json"], repo, env)
    assert not cold[3]  # a miss: the run made here, on what the lookup gathered
    reference = _fork(_click, ["validate", "--format", "json"], repo, _env(tmp_path / "other"))
    assert cold[:3] == reference[:3]
    warm = _fork(start.main, ["validate", "--format", "json"], repo, env)
    assert warm[:3] == cold[:3]
    assert not warm[3]


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_every_validate_case_the_same_cold_and_warm(case: Path, tmp_path: Path) -> None:
    work, targets, profile = _prepare(case, tmp_path)
    for fmt in ("json", "text"):
        argv = ["validate", *map(str, targets), "--profile", profile, "--format", fmt]
        env = _env(tmp_path / f"xdg-{fmt}")
        cold = _fork(start.main, argv, work, env)
        lean, click = _fork(start.main, argv, work, env), _fork(_click, argv, work, env)
        reference = _fork(_click, argv, work, {**env, store.NO_CACHE_ENV: "1"})
        assert cold[:3] == lean[:3] == click[:3] == reference[:3]


@pytest.mark.parametrize("fmt", ["json", "sarif", "text"])
def test_the_corpus_the_same(tmp_path: Path, fmt: str) -> None:
    needs_shared(CORPUS)
    env = _env(tmp_path / "xdg")
    argv = ["validate", str(CORPUS), "--format", fmt]
    lean, click = _both(argv, tmp_path, env)
    _same(lean, click)
    assert not lean[3]


def test_a_warm_run_imports_neither_click_nor_a_parser(repo: Path, tmp_path: Path) -> None:
    env = _env(tmp_path / "xdg")
    code = (
        "import sys, atexit\n"
        "def report():\n"
        "    loaded = sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'ruamel',\n"
        "        'jsonschema', 'git') or m.startswith(('apc_tools.contract.checks',\n"
        "        'apc_tools.contract.validate', 'apc_tools.core.parse', 'apc_tools.cli',\n"
        "        'apc_tools.core.schemas')))\n"
        "    sys.stderr.write('LOADED %r\\n' % loaded)\n"
        "atexit.register(report)\n"
        "sys.argv = ['apc', 'validate', '--format', 'json']\n"
        "from apc_tools.start import main\n"
        "main()\n"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], cwd=repo, env=env, capture_output=True)
        for _ in range(2)
    ]
    cold = runs[0].stderr
    assert b"'apc_tools.contract.validate'" in cold  # cold: the run was made...
    assert b"'click'" not in cold and b"'apc_tools.cli'" not in cold, cold  # ... without click
    assert b"LOADED []" in runs[1].stderr, runs[1].stderr


def test_the_file_names_are_those_of_the_policy_and_the_baseline() -> None:
    from apc_tools.boundary.policy import BASELINE_FILE
    from apc_tools.core.policy import POLICY_FILE
    from apc_tools.report import FORMATS as REPORT_FORMATS

    assert (start.POLICY_FILE, start.BASELINE_FILE) == (POLICY_FILE, BASELINE_FILE)
    assert start.FORMATS == REPORT_FORMATS
