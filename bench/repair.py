"""Benchmark `apc repair` against a plain read-and-write of the same file, in one run.

Generates OpenAI Chat Completions histories of 10,000, 100,000 and 1,000,000 messages (tool
calls, results, and a few interrupted turns whose calls were never answered) as a JSON array and
as JSONL in a temporary folder, then times, each in its own process:

* ``apc repair FILE -o OUT`` (the whole process: interpreter start, read, repair, write);
* plain: ``json.load`` + ``json.dump`` of the JSON array, and a line-by-line
  ``json.loads`` / ``json.dumps`` copy of the JSONL file.

It prints wall times (best of ``--repeat``), the ratio apc/plain (target <= 2x), the growth of
the apc time from the second-largest to the largest size (target <= 11x for 100k -> 1M), and the
peak RSS of every process (``os.wait4``): for JSONL, apc's peak RSS must not grow with the file.

    python bench/repair.py                       # 10k, 100k, 1M (a few minutes)
    python bench/repair.py --sizes 1000,10000    # quick
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed import compile_apc

ROOT = Path(__file__).resolve().parent.parent

PLAIN_JSON = (
    "import json, sys\n"
    "with open(sys.argv[1], encoding='utf-8') as fh:\n"
    "    data = json.load(fh)\n"
    "with open(sys.argv[2], 'w', encoding='utf-8') as fh:\n"
    "    json.dump(data, fh)\n"
)
PLAIN_JSONL = (
    "import json, sys\n"
    "with open(sys.argv[1], encoding='utf-8') as src, "
    "open(sys.argv[2], 'w', encoding='utf-8') as dst:\n"
    "    for line in src:\n"
    "        dst.write(json.dumps(json.loads(line)) + '\\n')\n"
)


def messages(count: int, interrupted_every: int) -> Iterator[dict[str, Any]]:
    """A history of ``count`` messages; every ``interrupted_every``-th turn loses its results."""
    yield {"role": "system", "content": "You are a coding agent. Be brief."}
    made, turn = 1, 0
    while made < count:
        turn += 1
        calls = [
            {
                "id": f"call_{turn}_{n}",
                "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": f"src/{n}.py"})},
            }
            for n in range(1 + turn % 2)
        ]
        turn_messages: list[dict[str, Any]] = [
            {"role": "user", "content": f"Step {turn}: look at the sources and fix the bug."},
            {"role": "assistant", "content": None, "tool_calls": calls},
        ]
        if turn % interrupted_every:
            turn_messages += [
                {"role": "tool", "tool_call_id": c["id"], "content": "def f():\n    return 1\n"}
                for c in calls
            ]
            turn_messages.append({"role": "assistant", "content": f"Done with step {turn}."})
        for message in turn_messages:
            if made >= count:
                return
            made += 1
            yield message


def generate(folder: Path, count: int) -> tuple[Path, Path]:
    interrupted_every = max(count // 40, 50)  # a few interrupted turns per history
    array, lines = folder / f"h{count}.json", folder / f"h{count}.jsonl"
    with array.open("w", encoding="utf-8") as a, lines.open("w", encoding="utf-8") as j:
        a.write("[")
        for index, message in enumerate(messages(count, interrupted_every)):
            text = json.dumps(message)
            a.write((", " if index else "") + text)
            j.write(text + "\n")
        a.write("]")
    return array, lines


def measure(command: list[str], cwd: Path) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak RSS in MiB) of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env()
    )
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    stderr = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(command)}\n{stderr}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # Linux: KiB


def _env() -> dict[str, str]:
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{path}" if path else str(ROOT)}


def best(command: list[str], repeat: int, cwd: Path) -> tuple[float, float, float]:
    """Best time of ``repeat`` runs (cwd outside any project: no contract to load)."""
    runs = [measure(command, cwd) for _ in range(repeat)]
    return min(r[0] for r in runs), min(r[1] for r in runs), max(r[2] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000,1000000", help="message counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure (best time)")
    parser.add_argument("--keep", type=Path, default=None, help="generate into this folder")
    args = parser.parse_args()
    sizes = [int(s.replace("_", "")) for s in args.sizes.split(",")]
    compile_apc()
    with tempfile.TemporaryDirectory(prefix="apc-bench-") as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        rows = [run_size(folder, size, args.repeat) for size in sizes]
    report(rows, sizes)
    return 0


def run_size(folder: Path, size: int, repeat: int) -> dict[str, Any]:
    array, lines = generate(folder, size)
    row: dict[str, Any] = {"size": size}
    for kind, source, plain in (("json", array, PLAIN_JSON), ("jsonl", lines, PLAIN_JSONL)):
        out = folder / f"out{size}.{kind}"
        apc = [sys.executable, "-m", "apc_tools", "repair", str(source), "-o", str(out)]
        row[kind] = {
            "mb": source.stat().st_size / 2**20,
            "plain": best([sys.executable, "-c", plain, str(source), str(out)], repeat, folder),
            "apc": best(apc, repeat, folder),
        }
        out.unlink()
        print(f"  measured {size:>9,} messages, {kind}", file=sys.stderr)
    array.unlink()
    lines.unlink()
    return row


def report(rows: list[dict[str, Any]], sizes: list[int]) -> None:
    print(
        f"{'messages':>10} {'format':>6} {'MiB':>7} {'plain s':>8} {'apc s':>8} {'ratio':>6}"
        f" {'plain cpu':>9} {'apc cpu':>8} {'ratio':>6} {'plain RSS':>10} {'apc RSS':>9}"
    )
    for row in rows:
        for kind in ("json", "jsonl"):
            m = row[kind]
            (pw, pc, pm), (aw, ac, am) = m["plain"], m["apc"]
            print(
                f"{row['size']:>10,} {kind:>6} {m['mb']:>7.1f} {pw:>8.2f} {aw:>8.2f}"
                f" {aw / pw:>5.2f}x {pc:>9.2f} {ac:>8.2f} {ac / pc:>5.2f}x"
                f" {pm:>8.0f}MB {am:>7.0f}MB"
            )
    print()
    for kind in ("json", "jsonl"):
        for label, at in (("wall", 0), ("cpu", 1)):
            worst = max(row[kind]["apc"][at] / row[kind]["plain"][at] for row in rows)
            line = f"{kind} {label}: worst apc/plain {worst:.2f}x (target <= 2x)"
            if len(rows) >= 2:
                growth = rows[-1][kind]["apc"][at] / rows[-2][kind]["apc"][at]
                scale = sizes[-1] / sizes[-2]
                line += (
                    f"; apc x{growth:.1f} from {sizes[-2]:,} to {sizes[-1]:,} messages"
                    f" (target <= x{scale * 1.1:.0f})"
                )
            print(line)
    rss = [row["jsonl"]["apc"][2] for row in rows]
    print(
        "jsonl: apc peak RSS "
        + ", ".join(f"{r:.0f}MB" for r in rss)
        + f" (growth {rss[-1] - rss[0]:+.0f}MB: must not grow with the file)"
    )


if __name__ == "__main__":
    sys.exit(main())
