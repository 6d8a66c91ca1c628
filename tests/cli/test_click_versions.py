"""`apc`, `apc --help` and every command's `--help` with the oldest click the package accepts
and the newest one tested, each installed from PyPI into a folder of its own (issue 17).

click 8.1 printed a group's help for a bare command itself; click 8.2 and later raise a usage
error instead (help on stderr, exit 2), which apc's escaping of usage errors turned into one
line of literal ``\\x0a``. A bare ``apc`` must print its help to stdout and exit 0 with both.

The versions are pinned here: the floor is read from pyproject.toml (``click>=X`` -> ``X``),
the newest is ``CLICK_NEWEST`` (raise it when click releases; the click the test environment
installed, usually the newest of all, is driven too). Each version is installed once with
``pip install --target`` into a cache outside the checkout (``$APC_TEST_CACHE`` or
``~/.cache/apc-tools-tests``), keyed by version, so a re-run needs no network. The installed
console script ``apc`` runs with that folder first on ``PYTHONPATH``: the real entry point,
with the pinned click shadowing the one of the environment.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from tests.conftest import REPO_ROOT

CLICK_NEWEST = "8.5.1"
"""The newest click release tested (PyPI, December 2026)."""


def click_floor() -> str:
    """The lowest click pyproject.toml accepts, as a release number (``>=8.1`` -> ``8.1.0``)."""
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [req] = [Requirement(d) for d in project["project"]["dependencies"] if d.startswith("click")]
    [floor] = [s.version for s in req.specifier if s.operator == ">="]
    release = Version(floor).release
    return ".".join(map(str, (*release, 0, 0)[:3]))


def cache_root() -> Path:
    configured = os.environ.get("APC_TEST_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "apc-tools-tests"


def click_folder(version: str) -> Path:
    """A folder holding exactly click ``version`` (installed from PyPI on first use)."""
    folder = cache_root() / f"click-{version}"
    if (folder / "click" / "__init__.py").is_file():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".click-{version}-", dir=folder.parent))
    pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-compile"]
    done = subprocess.run(
        [*pip, "--target", str(partial), f"click=={version}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, f"pip could not install click=={version}:\n{done.stderr}"
    try:
        partial.rename(folder)  # whole or not at all: a concurrent run may have won the race
    except OSError:
        shutil.rmtree(partial, ignore_errors=True)
    return folder


def apc_script() -> Path:
    script = Path(sys.executable).parent / ("apc.exe" if os.name == "nt" else "apc")
    assert script.is_file(), f"the console script {script} is missing: pip install -e ."
    return script


def environment(click_path: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "FORCE_COLOR")}
    env["COLUMNS"] = "100"
    if click_path is not None:
        env["PYTHONPATH"] = str(click_path)
    return env


def run(click_path: Path | None, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``apc`` with ``args``, the click of ``click_path`` first on the path."""
    return subprocess.run(
        [str(apc_script()), *args],
        capture_output=True,
        text=True,
        env=environment(click_path),
        timeout=120,
    )


def loaded_click(click_path: Path | None) -> str:
    code = "import click, importlib.metadata as m; print(m.version('click'), click.__file__)"
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=environment(click_path),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    version, where = done.stdout.split()
    assert click_path is None or Path(where).is_relative_to(click_path), where
    return version


def commands() -> list[str]:
    from apc_tools.cli import main

    return sorted(main.commands)


@pytest.fixture(
    scope="module",
    params=["floor", "newest", "installed"],
)
def click_under_test(request: pytest.FixtureRequest) -> tuple[str, Path | None]:
    """(the click version expected, the folder to put first on PYTHONPATH or None)."""
    if request.param == "installed":
        from importlib.metadata import version

        return version("click"), None
    version = click_floor() if request.param == "floor" else CLICK_NEWEST
    return version, click_folder(version)


def test_the_floor_is_what_pyproject_says() -> None:
    assert click_floor() == "8.1.0"
    assert Version(CLICK_NEWEST) >= Version("8.2")  # the newest tested raises NoArgsIsHelpError


def test_bare_apc_prints_the_help_to_stdout(click_under_test: tuple[str, Path | None]) -> None:
    version, folder = click_under_test
    assert loaded_click(folder) == version  # the pinned click is the one apc imports

    bare = run(folder)
    helped = run(folder, "--help")
    short = run(folder, "-h")
    for done in (bare, helped, short):
        assert (done.returncode, done.stderr) == (0, ""), (version, done.stderr)
    assert bare.stdout == helped.stdout == short.stdout
    text = bare.stdout
    assert text.startswith("Usage: apc [OPTIONS] COMMAND [ARGS]...\n"), text
    assert "\\x0a" not in text and text.count("\n") > 10
    listed = re.findall(r"^  ([a-z]+)  ", text.partition("Commands:\n")[2], re.M)
    assert listed == commands()


def test_every_command_has_readable_help(click_under_test: tuple[str, Path | None]) -> None:
    version, folder = click_under_test
    for name in commands():
        done = run(folder, name, "--help")
        assert (done.returncode, done.stderr) == (0, ""), (version, name, done.stderr)
        assert done.stdout.startswith(f"Usage: apc {name} "), (version, done.stdout)
        assert "\\x0a" not in done.stdout and "Options:" in done.stdout
        assert "-h, --help" in done.stdout


def test_usage_errors_stay_escaped_and_exit_2(click_under_test: tuple[str, Path | None]) -> None:
    """The fix for the bare command leaves real usage errors alone: stderr, exit 2, the
    hostile name on the one error line."""
    version, folder = click_under_test
    done = run(folder, "no-such\ncommand")
    assert done.returncode == 2 and done.stdout == "", (version, done.stdout)
    [error] = [line for line in done.stderr.splitlines() if line.startswith("Error:")]
    assert "No such command" in error and "no-such" in error and "command'" in error
    assert "Usage: apc [OPTIONS] COMMAND" in done.stderr and "\\x0a" not in done.stderr
