"""Shared fixtures: real git repositories in temporary folders, with a pinned author."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest
from hypothesis import settings

# CI runs the property tests harder (HYPOTHESIS_PROFILE=ci is set by .ci/run). The repair
# property tests ask for REPAIR_EXAMPLES explicitly (issue 3: 2,000 per wire format in CI).
# CI is derandomized so that a gate run is reproducible; dev runs keep exploring new examples.
settings.register_profile("ci", max_examples=300, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=100, deadline=None)
# The second run of .ci/run, from the unpacked sdist: every test, the dev budget, reproducible.
settings.register_profile("sdist", max_examples=100, deadline=None, derandomize=True)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "dev")
settings.load_profile(PROFILE)
REPAIR_EXAMPLES = 2000 if PROFILE == "ci" else 200
FUZZ_EXAMPLES = 300 if PROFILE == "ci" else 60  # issue 11: hostile bytes, a fixed CI budget


def pytest_configure(config: pytest.Config) -> None:
    """Point apc's result cache (core/cache.py, under ``$XDG_CACHE_HOME``) at a folder of this
    test session, for every test and every process it starts: a test never reads or fills the
    user's own cache. The pinned conformance CLIs stay where they are installed."""
    if "APC_TEST_KEEP_XDG" in os.environ:  # pragma: no cover - a debugging escape hatch
        return
    if "APC_CONFORMANCE_CACHE" not in os.environ:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        os.environ["APC_CONFORMANCE_CACHE"] = str(Path(base) / "apc-tools" / "conformance")
    folder = tempfile.mkdtemp(prefix="apc-test-cache-")
    config.stash[_CACHE_FOLDER] = folder
    os.environ["XDG_CACHE_HOME"] = folder


def pytest_unconfigure(config: pytest.Config) -> None:
    folder = config.stash.get(_CACHE_FOLDER, None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)


_CACHE_FOLDER = pytest.StashKey[str]()


@pytest.fixture
def xdg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A result cache of this test's own (``$XDG_CACHE_HOME`` in its tmp folder), with apc's
    cache and pool switches cleared: the cache on, its default bound, the default pool."""
    from apc_tools.core import cache, pool

    folder = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CACHE_HOME", str(folder))
    for name in (cache.NO_CACHE_ENV, cache.MAX_BYTES_ENV, pool.MIN_ITEMS_ENV, pool.WORKERS_ENV):
        monkeypatch.delenv(name, raising=False)
    return folder


REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
TRANSCRIPTS = CORPUS / "transcripts"

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Author",
    "GIT_COMMITTER_EMAIL": "author@example.com",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    )
    return done.stdout


def stored_object(cwd: Path, data: str | bytes, kind: str = "blob") -> str:
    """``git hash-object -w``: ``data`` written as a ``kind`` object of the repository at
    ``cwd`` (no file, no index entry); its id."""
    raw = data.encode() if isinstance(data, str) else data
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(
        ["git", "hash-object", "-t", kind, "-w", "--stdin"],
        cwd=cwd,
        env=env,
        input=raw,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


@pytest.fixture
def git_repo(tmp_path: Path) -> Callable[..., Path]:
    """Make a real git repository from a mapping of relative path -> text, committed."""

    def make(files: dict[str, str | bytes], *, commit: bool = True, name: str = "repo") -> Path:
        root = tmp_path / name
        root.mkdir()
        git(root, "init", "-q", "-b", "main")
        for rel, content in files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                target.write_bytes(content)
            else:
                target.write_text(content, encoding="utf-8")
        if commit and files:
            git(root, "add", "-A")
            git(root, "commit", "-q", "-m", "initial")
        return root

    return make


def checkout_files(root: Path = REPO_ROOT) -> list[str]:
    """The files of a checkout: tracked, and untracked ones git does not ignore (what the next
    commit would hold: the hook tests' snapshot and the sdist's expected contents)."""
    out = subprocess.run(
        ["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"],
        cwd=root,
        capture_output=True,
        check=True,
    ).stdout
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def apc_env(extra: Mapping[str, str] | None = None, *, no_color: bool = True) -> dict[str, str]:
    """The environment of ``python -m apc_tools`` run from this checkout: the caller's, its
    colour switches cleared (``NO_COLOR=1`` unless ``no_color`` is False), ``PYTHONPATH`` at
    the checkout, then ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    env["PYTHONPATH"] = str(REPO_ROOT)
    if no_color:
        env["NO_COLOR"] = "1"
    env.update(extra or {})
    return env


def run_apc(
    cwd: Path,
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    no_color: bool = True,
    timeout: int = 300,
) -> subprocess.CompletedProcess[str]:
    """``python -m apc_tools ARGS`` in ``cwd`` (:func:`apc_env`), its output as text."""
    return subprocess.run(
        [sys.executable, "-m", "apc_tools", *map(str, args)],
        cwd=cwd,
        env=apc_env(env, no_color=no_color),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


def needs_shared(path: Path) -> None:
    if not path.exists():
        pytest.skip(
            f"{path} is not present: these tests read the shared corpus of real agent files, "
            f"expected at {SHARED} (a folder named `shared` beside the checkout). Put a copy "
            "of it there (or a symlink to it) to run them"
        )
