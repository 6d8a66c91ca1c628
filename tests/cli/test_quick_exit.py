"""The console script's way out (``apc_tools.start.run``): after the command, the streams are
flushed, the exit handlers run and the process ends without the interpreter's finalization;
anything unusual leaves the way Python always does. Real processes, real exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, apc_env, run_apc, write_tree


def _run_with(main_body: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``start.run()`` in a new interpreter, with ``start.main`` replaced by ``main_body``."""
    code = "import os, sys, atexit, threading, time\nfrom apc_tools import start\n"
    code += "def main():\n" + textwrap.indent(textwrap.dedent(main_body), "    ") + "\n"
    code += "start.main = main\nstart.run()\n"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=apc_env(None),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_validate_run_ends_with_its_output_its_code_and_the_cache_closed(
    tmp_path: Path,
) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            "AGENTS.md": "# P\n\nSee [the guide](missing.md).\n",
            ".apc/project.json": '{"name": "p", "apc": "0.1.0"}\n',
            ".apc/agents/a.md": "---\nname: [\n---\n",
        },
    )
    xdg = tmp_path / "xdg"
    env = {"XDG_CACHE_HOME": str(xdg)}
    cold = run_apc(root, "validate", "--format", "json", env=env)
    assert cold.returncode == 1, cold.stderr
    report = json.loads(cold.stdout)  # the whole report was written before the process ended
    assert report["summary"]["error"] >= 1
    database = xdg / "apc-tools" / "results" / "cache.sqlite3"
    assert database.is_file()
    # the exit handler closed the database: the last connection's close checkpoints the WAL
    # into the database and removes it
    assert not database.with_name("cache.sqlite3-wal").exists()
    warm = run_apc(root, "validate", "--format", "json", env=env)
    assert (warm.returncode, warm.stdout, warm.stderr) == (1, cold.stdout, cold.stderr)


def test_buffered_output_and_exit_handlers_survive_and_finalization_is_skipped(
    tmp_path: Path,
) -> None:
    done = _run_with(
        """
        class Tidy:
            def __del__(self):
                open("finalized.txt", "w").write("yes")
        start.kept = Tidy()  # freed only by the interpreter's finalization
        def handler():
            open("handler.txt", "w").write("ran")
            print("bye", file=sys.stderr)
        atexit.register(handler)
        sys.stdout.write("partial line, not flushed")
        sys.exit(3)
        """,
        tmp_path,
    )
    assert done.returncode == 3, done.stderr
    assert done.stdout == "partial line, not flushed"
    assert done.stderr == "bye\n"
    assert (tmp_path / "handler.txt").read_text() == "ran"
    assert not (tmp_path / "finalized.txt").exists()


def test_a_command_that_returns_exits_0(tmp_path: Path) -> None:
    done = _run_with('print("done")', tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (0, "done\n", "")


@pytest.mark.parametrize("code", [0, 1, 2, 255, 256, 300, -1])
def test_exit_codes_are_what_python_gives(tmp_path: Path, code: int) -> None:
    python = subprocess.run([sys.executable, "-c", f"import sys; sys.exit({code})"])
    assert _run_with(f"sys.exit({code})", tmp_path).returncode == python.returncode


def test_a_running_thread_is_waited_for(tmp_path: Path) -> None:
    done = _run_with(
        """
        def later():
            time.sleep(0.3)
            open("thread.txt", "w").write("finished")
        threading.Thread(target=later).start()
        """,
        tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "thread.txt").read_text() == "finished"


def test_a_message_and_an_exception_leave_the_usual_way(tmp_path: Path) -> None:
    message = _run_with('sys.exit("apc: something to say")', tmp_path)
    assert (message.returncode, message.stderr) == (1, "apc: something to say\n")
    crash = _run_with('raise ValueError("boom")', tmp_path)
    assert crash.returncode == 1
    assert "Traceback" in crash.stderr and "ValueError: boom" in crash.stderr


def test_a_profiler_still_writes_its_profile(tmp_path: Path) -> None:
    """``python -m cProfile`` writes the profile after the program returns: under a profiler
    (or a tracer) the process leaves the usual way."""
    out = tmp_path / "apc.prof"
    done = subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(out), "-m", "apc_tools", "--version"],
        cwd=tmp_path,
        env=apc_env(None),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "apc, version" in done.stdout
    import pstats

    assert pstats.Stats(str(out)).total_calls > 0


def test_the_console_script_and_python_m_use_it() -> None:
    text = (REPO_ROOT / "pyproject.toml").read_text("utf-8")
    assert 'apc = "apc_tools.start:run"' in text
    assert "run()" in (REPO_ROOT / "apc_tools" / "__main__.py").read_text("utf-8")
