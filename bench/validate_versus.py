"""`apc validate` on the 1,696-file benchmark corpus: this checkout against an older commit, each
installed as a user gets it (``pip install .`` into a virtualenv of its own), side by side.

Issue 31 asks that reading the new kinds (plugin manifests, marketplaces, hooks, settings, MCP
and Codex configurations, Gemini extensions, Copilot prompts) leave ``apc validate`` on the
benchmark corpus no slower than 1.1x what it was when the issue was filed (``--before``,
default b870319). The script stages the corpus as ``validate_corpus.py`` does, extracts
``--before`` with ``git archive``, installs both trees with pip (the virtualenvs are kept in
``--work`` and reused when the commit is the same), and times whole processes of
``apc validate DIR --format json --no-cache`` (no result cache: every file is read, parsed and
checked), alternating before/after run by run after one warm-up each. ``--serial`` sets
``APC_POOL_WORKERS=1`` (all the work in one process: the CPU figure then holds no fork and
pipe costs). It prints the median and best wall and CPU time (user+sys of the child and its
workers) of each, their ratios, and what each reported (the summary's counts), so a speed-up
that comes from reading less shows:

    python bench/validate_versus.py                       # 11 runs each, b870319 vs this tree
    python bench/validate_versus.py --runs 21 --serial
    python bench/validate_versus.py --before 69c47ef      # against another commit
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import validate_corpus  # noqa: E402

BEFORE = "b870319"  # main when issue 31 was filed


def install(source: Path, venv: Path) -> Path:
    """``pip install source`` into a new virtualenv ``venv``; the path of its ``apc``."""
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = venv / "bin" / "pip"
    subprocess.run([str(pip), "install", "-q", str(source)], check=True)
    return venv / "bin" / "apc"


def before_apc(commit: str, work: Path) -> Path:
    """The ``apc`` of ``commit``, installed once into ``work/venv-<sha>``."""
    sha = subprocess.run(
        ["git", "rev-parse", "--short=12", commit], cwd=ROOT, check=True, capture_output=True
    )
    name = sha.stdout.decode().strip()
    venv = work / f"venv-{name}"
    apc = venv / "bin" / "apc"
    if apc.exists():
        return apc
    shutil.rmtree(venv, ignore_errors=True)
    src = work / f"src-{name}"
    shutil.rmtree(src, ignore_errors=True)
    src.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit], cwd=ROOT, check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive.stdout, check=True)
    return install(src, venv)


def once(apc: Path, tree: Path, env: dict[str, str]) -> tuple[float, float, dict[str, int]]:
    """Wall seconds, CPU seconds (the child and its workers) and the report's summary."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [str(apc), "validate", str(tree), "--format", "json", "--no-cache"],
        capture_output=True,
        env=env,
        cwd=tree.parent,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(
            f"{apc} exited {done.returncode}: {done.stderr.decode(errors='replace')[-2000:]}"
        )
    summary = json.loads(done.stdout)["summary"]
    return wall, cpu, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE, help=f"the commit to compare with ({BEFORE})")
    parser.add_argument("--runs", type=int, default=11)
    parser.add_argument("--serial", action="store_true", help="APC_POOL_WORKERS=1 for both")
    parser.add_argument("--corpus", type=Path, default=validate_corpus.DEFAULT_CORPUS)
    parser.add_argument(
        "--work",
        type=Path,
        default=Path(tempfile.gettempdir()) / "apc-validate-versus",
        help="where the virtualenvs are kept (reused across runs)",
    )
    args = parser.parse_args()
    if not args.corpus.is_dir():
        parser.error(f"--corpus {args.corpus}: not a folder (see bench/README.md)")
    args.work.mkdir(parents=True, exist_ok=True)
    print(f"installing {args.before} and this tree with pip into {args.work} ...", flush=True)
    apcs = {"before": before_apc(args.before, args.work)}
    after_venv = args.work / "venv-this-tree"
    shutil.rmtree(after_venv, ignore_errors=True)
    apcs["after"] = install(ROOT, after_venv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if args.serial:
        env["APC_POOL_WORKERS"] = "1"
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "corpus"
        counts = validate_corpus.stage(args.corpus, tree)
        print(f"staged {sum(counts.values())} files; {args.runs} runs each", flush=True)
        results: dict[str, list[tuple[float, float]]] = {name: [] for name in apcs}
        summaries = {name: once(apc, tree, env)[2] for name, apc in apcs.items()}  # warm-up
        for run in range(args.runs):
            order = list(apcs.items()) if run % 2 == 0 else list(reversed(apcs.items()))
            for name, apc in order:
                wall, cpu, _ = once(apc, tree, env)
                results[name].append((wall, cpu))
    med: dict[str, tuple[float, float]] = {}
    for name, rows in results.items():
        walls, cpus = [w for w, _ in rows], [c for _, c in rows]
        med[name] = (statistics.median(walls), statistics.median(cpus))
        print(
            f"{name:6} wall median {med[name][0]:.3f} s (best {min(walls):.3f}), "
            f"CPU median {med[name][1]:.3f} s (best {min(cpus):.3f}); reported {summaries[name]}"
        )
    print(
        f"after / before: wall {med['after'][0] / med['before'][0]:.3f}x, "
        f"CPU {med['after'][1] / med['before'][1]:.3f}x"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
