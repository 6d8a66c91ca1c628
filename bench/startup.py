"""Start-up cost of `apc repair` on a small history: this checkout against an older commit.

Issue 6 replaced the click-free `apc repair` path (apc_tools/entry.py, which emulated click so
that a repair would not import it) with the one click front end. This script measures what that
costs. It extracts ``--before`` (default: a42d565, the last commit with entry.py) with
``git archive`` into a temporary folder, compiles both copies to bytecode (as `pip install`
does, see installed.py), and times whole processes, each in a folder outside any project:

* ``python -m apc_tools repair h.json -o out.json`` on a 20-message history with one
  interrupted turn (so the repair writes and reports one change);
* ``python -m apc_tools --version`` (the lightest command).

It prints the median and best wall time and the median CPU (user+sys of the child) of
``--runs`` runs after one warm-up, for both trees (alternating run by run), and their
difference. ``--after REF`` takes
the second tree from a commit too (default: this checkout as it is on disk), so the start-up
budget of one main can be compared with another's:

    python bench/startup.py                   # 30 runs each
    python bench/startup.py --runs 50 --before a42d565
    python bench/startup.py --before bac5249 --after main   # main before / after a merge
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BEFORE = "a42d565"
CALL = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}


def history(count: int = 20) -> list[dict[str, object]]:
    """``count`` messages of user/assistant chat ending in an unanswered tool call."""
    items: list[dict[str, object]] = []
    for n in range(count - 1):
        role = "user" if n % 2 == 0 else "assistant"
        items.append({"role": role, "content": f"message {n}"})
    items.append({"role": "assistant", "content": None, "tool_calls": [CALL]})
    return items


def extract(commit: str, into: Path) -> Path:
    """The package of ``commit`` (apc_tools, with schemas/ where it ships) under ``into``."""
    data = subprocess.run(
        ["git", "archive", "--format=tar", commit, "apc_tools", "schemas"],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    schemas = into / "schemas"
    if schemas.is_dir() and not (into / "apc_tools" / "schemas").exists():
        schemas.rename(into / "apc_tools" / "schemas")  # setuptools' package-dir mapping
    return into


def once(tree: Path, args: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one ``python -m apc_tools ARGS`` with ``tree`` first."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    for name in ("FORCE_COLOR", "NO_COLOR"):
        env.pop(name, None)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "apc_tools", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{tree}: apc {' '.join(args)} exited {code}")
    return wall, usage.ru_utime + usage.ru_stime


def series(
    trees: dict[str, Path], args: list[str], cwd: Path, runs: int
) -> dict[str, dict[str, float]]:
    """Per tree: median and best wall, median CPU of ``runs`` runs, the trees alternating run
    by run (so the machine's load weighs on both), after one warm-up each."""
    for tree in trees.values():
        once(tree, args, cwd)  # warm-up: file cache, bytecode
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in trees}
    for _ in range(runs):
        for name, tree in trees.items():
            samples[name].append(once(tree, args, cwd))
    return {
        name: {
            "median": statistics.median(s[0] for s in got),
            "best": min(s[0] for s in got),
            "cpu": statistics.median(s[1] for s in got),
        }
        for name, got in samples.items()
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default=BEFORE, help="the commit to compare with")
    parser.add_argument(
        "--after", help="the commit to measure (default: this checkout, as it is on disk)"
    )
    parser.add_argument("--runs", type=int, default=30, help="timed runs per measure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="apc-startup-") as tmp:
        work = Path(tmp) / "run"
        work.mkdir()
        (work / "h.json").write_text(json.dumps(history()), encoding="utf-8")
        trees = {f"before ({args.before})": extract(args.before, Path(tmp) / "before")}
        if args.after:
            trees[f"after ({args.after})"] = extract(args.after, Path(tmp) / "after")
        else:
            trees["after (this checkout)"] = ROOT
        for tree in trees.values():
            compileall.compile_dir(str(tree / "apc_tools"), quiet=1)
        commands = {
            "apc repair h.json -o out.json": ["repair", "h.json", "-o", "out.json"],
            "apc --version": ["--version"],
        }
        one, five, _ = os.getloadavg()
        print(f"load avg {one:.2f} / {five:.2f} (1/5 min, {os.cpu_count()} cpus) at start")
        print(f"{'command':32} {'tree':28} {'median':>8} {'best':>8} {'cpu':>8}")
        for label, argv in commands.items():
            results = series(trees, argv, work, args.runs)
            for name, r in results.items():
                print(
                    f"{label:32} {name:28} {r['median'] * 1000:6.1f}ms "
                    f"{r['best'] * 1000:6.1f}ms {r['cpu'] * 1000:6.1f}ms"
                )
            first, last = results.values()
            delta = (last["median"] - first["median"]) * 1000
            cpu = (last["cpu"] - first["cpu"]) * 1000
            print(f"{'':32} {'difference (median)':28} {delta:+6.1f}ms {'':8} {cpu:+6.1f}ms")
        one, five, _ = os.getloadavg()
        print(f"load avg {one:.2f} / {five:.2f} at end")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
