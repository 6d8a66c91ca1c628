"""Pinned versions of the three CLIs and their install into a cache folder outside the checkout.

A tool may have several pinned versions (Claude Code: 2.1.197 and the newest release): the
validate cases run on every one of them (``observed/<tool>@<version>.json``), the repair suite on
the first. ``npm install --prefix <cache>/<key>`` where the key names the versions inside: the
first pin of every package together in one folder (as before a second version existed), each
further pin in a folder of its own (npm holds one version of a package per folder); a new pin is
a new folder and an existing folder is reused across runs (about 760 MB, plus 390 MB per further
Claude Code). Run as a program (``python -m tests.conformance.installer``) it installs and prints
the folders; the tests only look (``binaries()``) and never install. Two installers at once (two
checkouts, or two CI runs on one machine) take turns on a lock file beside each folder: the second
finds the first's install and reuses it, instead of a second ``npm install`` into the same folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

# The versions the suite verifies, oldest first; add one (and record it, docs/conformance.md) to
# verify a newer release. The first of each is the one the repair suite runs.
PINS: dict[str, tuple[str, ...]] = {
    "@anthropic-ai/claude-code": ("2.1.197", "2.1.332"),
    "@openai/codex": ("0.171.0",),
    "@google/gemini-cli": ("0.61.0",),
}
NAMES = {
    "claude": "@anthropic-ai/claude-code",
    "codex": "@openai/codex",
    "gemini": "@google/gemini-cli",
}
LABELS = {"claude": "Claude Code", "codex": "Codex", "gemini": "Gemini CLI"}


def versions(tool: str) -> tuple[str, ...]:
    return PINS[NAMES[tool]]


def version(tool: str) -> str:
    """The first pinned version (the repair suite's)."""
    return versions(tool)[0]


def label(tool: str, ver: str | None = None) -> str:
    """``Claude Code 2.1.197``: how a verified rule names the tool."""
    return f"{LABELS[tool]} {ver or version(tool)}"


def cache_root() -> Path:
    override = os.environ.get("APC_CONFORMANCE_CACHE")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "apc-tools" / "conformance"


def cache_key(pins: dict[str, str] | None = None) -> str:
    pins = pins if pins is not None else {name: vers[0] for name, vers in PINS.items()}
    return "+".join(f"{name.rsplit('/', 1)[-1]}-{ver}" for name, ver in pins.items())


def cache_dir() -> Path:
    """The folder of the first pin of every package."""
    return cache_root() / cache_key()


def folders() -> dict[Path, dict[str, str]]:
    """Each install folder and the package versions it holds (package name -> version)."""
    out = {cache_dir(): {name: vers[0] for name, vers in PINS.items()}}
    for name, vers in PINS.items():
        for ver in vers[1:]:
            out[cache_root() / cache_key({name: ver})] = {name: ver}
    return out


@dataclass(frozen=True)
class Binaries:
    claude: Path  # the native executable (the postinstall copies it over bin/claude.exe)
    codex: Path  # the native musl binary inside @openai/codex-linux-x64, run directly
    gemini: Path  # the bundled JavaScript entry point, run with node
    node: str
    # (tool, version) -> its executable, for every pinned version (the fields above: the first)
    pinned: dict[tuple[str, str], Path] = field(default_factory=dict)

    def of(self, tool: str, ver: str | None = None) -> Path:
        return self.pinned[(tool, ver or version(tool))]


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


def _executable(tool: str, modules: Path) -> Path | None:
    if tool == "codex":
        return _codex_native(modules)
    if tool == "gemini":
        gemini = modules / "@google" / "gemini-cli" / "bundle" / "gemini.js"
        return gemini if gemini.is_file() else None
    claude = modules / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
    # a placeholder stub stays when the postinstall did not run: it is a script, not ELF
    if not claude.is_file() or claude.read_bytes()[:4] != b"\x7fELF":
        return None
    return claude


def _found(root: Path, pins: dict[str, str]) -> dict[tuple[str, str], Path] | None:
    """The executables of ``pins`` installed in ``root``, or None when one is missing."""
    modules = root / "node_modules"
    out = {}
    for tool, name in NAMES.items():
        if name not in pins:
            continue
        manifest = modules / name / "package.json"
        if not manifest.is_file() or f'"version": "{pins[name]}"' not in manifest.read_text(
            "utf-8"
        ):
            return None
        exe = _executable(tool, modules)
        if exe is None:
            return None
        out[(tool, pins[name])] = exe
    return out


def binaries() -> Binaries | None:
    """The installed CLIs at every pinned version, or None when any is missing."""
    node = shutil.which("node")
    if node is None:
        return None
    pinned: dict[tuple[str, str], Path] = {}
    for root, pins in folders().items():
        found = _found(root, pins)
        if found is None:
            return None
        pinned.update(found)
    first = {tool: pinned[(tool, version(tool))] for tool in NAMES}
    return Binaries(first["claude"], first["codex"], first["gemini"], node, pinned)


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


def install() -> Binaries:
    for root, pins in folders().items():
        if _found(root, pins) is None:
            with _locked(root.with_name(root.name + ".lock")):
                # another installer may have finished while this one waited
                if _found(root, pins) is None:
                    _install(root, pins)
    found = binaries()
    if found is None:
        raise SystemExit("conformance: node is not on PATH; cannot run the pinned CLIs")
    return found


def _install(root: Path, pins: dict[str, str]) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("conformance: npm is not on PATH; cannot install the pinned CLIs")
    root.mkdir(parents=True, exist_ok=True)
    specs = [f"{name}@{ver}" for name, ver in pins.items()]
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
    if _found(root, pins) is None:
        raise SystemExit(f"conformance: npm install into {root} did not yield {', '.join(specs)}")


if __name__ == "__main__":
    install()
    for folder in folders():
        print(folder)
    sys.exit(0)
