"""Pinned versions of the three CLIs and their install into a cache folder outside the checkout.

``npm install --prefix <cache>/<key>`` where the key names every pinned version, so a new pin is a
new folder and an existing folder is reused across runs (together about 760 MB). Run as a
program (``python -m tests.conformance.installer``) it installs and prints the folder; the tests
only look (``installed()``) and never install. Two installers at once (two checkouts, or two CI
runs on one machine) take turns on a lock file beside the folder: the second finds the first's
install and reuses it, instead of a second ``npm install`` into the same folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# The versions the suite verifies; bump these (and re-run the suite) to verify a newer release.
PINS: dict[str, str] = {
    "@anthropic-ai/claude-code": "2.1.197",
    "@openai/codex": "0.171.0",
    "@google/gemini-cli": "0.61.0",
}
NAMES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
}
LABELS = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


def version(tool: str) -> str:
    return PINS[NAMES[tool]]


def label(tool: str) -> str:
    """``Claude Code 2.1.197``: how a verified rule names the tool."""
    return f"{LABELS[tool]} {version(tool)}"


def cache_root() -> Path:
    override = os.environ.get("APC_CONFORMANCE_CACHE")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "apc-tools" / "conformance"


def cache_key() -> str:
    return "+".join(f"{name.rsplit('/', 1)[-1]}-{ver}" for name, ver in PINS.items())


def cache_dir() -> Path:
    return cache_root() / cache_key()


@dataclass(frozen=True)
class Binaries:
    claude: Path  # the native executable (the postinstall copies it over bin/claude.exe)
    codex: Path  # the native musl binary inside @openai/codex-linux-x64, run directly
    gemini: Path  # the bundled JavaScript entry point, run with node
    node: str


def _codex_native(modules: Path) -> Path | None:
    for pkg in sorted(modules.glob("@openai/codex-*")):
        for exe in sorted(pkg.glob("vendor/*/bin/codex")):
            if exe.is_file():
                return exe
    return None


TIER_ENV = "APC_CONFORMANCE"  # "full": a missing CLI fails; "replay": the live tier is skipped


def replay_only() -> str | None:
    """Why the live tier is skipped though the CLIs may be installed: ``APC_CONFORMANCE=replay``
    (``.ci/run`` runs the live tier once, beside the main run, from the unpacked sdist)."""
    if os.environ.get(TIER_ENV) == "replay":
        return f"{TIER_ENV}=replay: the live tier runs in another step"
    return None


def binaries(root: Path | None = None) -> Binaries | None:
    """The installed CLIs at the pinned versions, or None when any is missing."""
    modules = (root or cache_dir()) / "node_modules"
    node = shutil.which("node")
    claude = modules / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    gemini = modules / "@google" / "gemini-cli" / "bundle" / "gemini.js"
    codex = _codex_native(modules)
    if node is None or codex is None or not claude.is_file() or not gemini.is_file():
        return None
    # a placeholder stub stays when the postinstall did not run: it is a script, not ELF
    if claude.read_bytes()[:4] != b"\x7fELF":
        return None
    for name, ver in PINS.items():
        manifest = modules / name / "package.json"
        if not manifest.is_file() or f'"version": "{ver}"' not in manifest.read_text("utf-8"):
            return None
    return Binaries(claude=claude, codex=codex, gemini=gemini, node=node)


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``path`` (created) until the block ends (POSIX ``flock``)."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def install(root: Path | None = None) -> Binaries:
    root = root or cache_dir()
    found = binaries(root)
    if found is not None:
        return found
    with _locked(root.with_name(root.name + ".lock")):
        found = binaries(root)  # another installer may have finished while this one waited
        return found if found is not None else _install(root)


def _install(root: Path) -> Binaries:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("conformance: npm is not on PATH; cannot install the pinned CLIs")
    root.mkdir(parents=True, exist_ok=True)
    specs = [f"{name}@{ver}" for name, ver in PINS.items()]
    subprocess.run(
        [
            npm,
            "install",
            "--prefix",
            str(root),
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
            *specs,
        ],
        check=True,
        env={**os.environ, "DISABLE_AUTOUPDATER": "1"},
    )
    found = binaries(root)
    if found is None:
        raise SystemExit(f"conformance: npm install into {root} did not yield the pinned CLIs")
    return found


if __name__ == "__main__":
    bins = install()
    print(cache_dir())
    sys.exit(0)
