"""Benchmark: our pre-commit hooks against detect-secrets' hook, both run by pre-commit.

Builds a real repository of real source text, stages a 10-file change (AGENTS.md and nine
source files, so that apc-validate triggers too), and times ``pre-commit run`` of

- ``apc-validate`` + ``apc-boundary`` from a snapshot of this working tree (a tagged temporary
  clone, installed by pre-commit with ``language: python``, as a user's pre-commit installs it);
- detect-secrets' hook (``entry: detect-secrets-hook``, ``files: .*``, as its own
  ``.pre-commit-hooks.yaml`` defines it) from PyPI's ``detect-secrets``, installed by the same
  framework (a ``repo: local`` hook with ``additional_dependencies``);

on the same staged files. Each hook environment is built once before timing. Target: ours
together no slower than detect-secrets' hook. Not run by CI; results in bench/README.md.

    python bench/hooks.py [--runs 7] [--files 2000] [--detect-secrets 1.5.0] [--keep]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from apc_tools import __version__  # noqa: E402

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def sh(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        args, cwd=cwd, env=env or environment(), capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def environment(home: Path | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))}
    env.update(GIT_ENV)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    if home is not None:
        env["PRE_COMMIT_HOME"] = str(home)
    return env


def snapshot(dest: Path) -> Path:
    """This working tree, committed and tagged v<version>: the hook repository."""
    listing = sh(ROOT, "git", "ls-files", "-z", "-c", "-o", "--exclude-standard")
    for rel in filter(None, listing.split("\0")):
        source = ROOT / rel
        if source.is_file() and not source.is_symlink():
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / rel)
    sh(dest, "git", "init", "-q", "-b", "main")
    sh(dest, "git", "add", "-A")
    sh(dest, "git", "commit", "-q", "--no-verify", "-m", "snapshot")
    sh(dest, "git", "tag", f"v{__version__}")
    return dest


def source_texts() -> list[tuple[str, str]]:
    """Real source text: this repository's Python and Markdown files."""
    out = []
    for path in sorted(ROOT.rglob("*")):
        if path.suffix in (".py", ".md") and ".venv" not in path.parts and path.is_file():
            out.append((path.suffix, path.read_text(encoding="utf-8", errors="replace")))
    return out


def make_project(dest: Path, files: int) -> list[str]:
    """A repository of ``files`` distinct source files plus a valid contract; returns the 10
    paths of the staged change."""
    texts = source_texts()
    sh(dest, "git", "init", "-q", "-b", "main")
    sh(dest, sys.executable, "-m", "apc_tools", "init")
    for i in range(files):
        suffix, text = texts[i % len(texts)]
        target = dest / f"src/pkg{i // 100}/mod{i}{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(f"# copy {i}\n{text}", encoding="utf-8")
    sh(dest, "git", "add", "-A")
    sh(dest, "git", "commit", "-q", "--no-verify", "-m", "project")
    change = ["AGENTS.md"] + [f"src/pkg0/mod{i}{texts[i % len(texts)][0]}" for i in range(9)]
    for rel in change:
        with (dest / rel).open("a", encoding="utf-8") as out:
            out.write("\nA changed line.\n")
    sh(dest, "git", "add", *change)
    return change


def configs(dest: Path, hook_repo: Path, ds_version: str) -> tuple[Path, Path]:
    ours = dest / "ours.yaml"
    ours.write_text(
        f"repos:\n  - repo: {hook_repo.as_uri()}\n    rev: v{__version__}\n    hooks:\n"
        "      - id: apc-validate\n      - id: apc-boundary\n",
        encoding="utf-8",
    )
    theirs = dest / "detect-secrets.yaml"
    theirs.write_text(
        "repos:\n  - repo: local\n    hooks:\n      - id: detect-secrets\n"
        "        name: Detect secrets\n        entry: detect-secrets-hook\n"
        "        language: python\n        files: .*\n"
        f"        additional_dependencies: [detect-secrets=={ds_version}]\n",
        encoding="utf-8",
    )
    return ours, theirs


def time_run(project: Path, config: Path, env: dict[str, str], runs: int) -> list[float]:
    cmd = ["pre-commit", "run", "--config", str(config)]
    sh(project, "pre-commit", "install-hooks", "--config", str(config), env=env)
    subprocess.run(cmd, cwd=project, env=env, capture_output=True, check=False)  # warm-up
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, cwd=project, env=env, capture_output=True, check=False)
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--detect-secrets", default="1.5.0")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    if shutil.which("pre-commit", path=environment()["PATH"]) is None:
        raise SystemExit("pre-commit is not installed: pip install -e '.[test]'")
    work = Path(tempfile.mkdtemp(prefix="apc-bench-hooks-"))
    try:
        hook_repo = snapshot(work / "apc-tools")
        project = work / "project"
        project.mkdir()
        change = make_project(project, args.files)
        ours, theirs = configs(work, hook_repo, args.detect_secrets)
        env = environment(work / "pre-commit-home")
        times = {
            "apc-validate + apc-boundary": time_run(project, ours, env, args.runs),
            f"detect-secrets {args.detect_secrets}": time_run(project, theirs, env, args.runs),
        }
        report(times, change, args.files, args.runs)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def report(times: dict[str, list[float]], change: list[str], files: int, runs: int) -> None:
    print(f"pre-commit run on a {len(change)}-file change in a {files + 5}-file repository")
    print(f"(median of {runs} runs after a warm-up; each hook environment built beforehand)\n")
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, median in medians.items():
        spread = f"{min(times[name]):.3f}-{max(times[name]):.3f}"
        print(f"{name:32} {median:7.3f} s  (range {spread} s)")
    ours, theirs = medians.values()
    verdict = "met" if ours <= theirs else "NOT met"
    print(f"\nours / detect-secrets = {ours / theirs:.2f}  (target <= 1.00: {verdict})")


if __name__ == "__main__":
    main()
