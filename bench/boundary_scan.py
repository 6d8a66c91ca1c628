"""Benchmark of `apc boundary` (issue 9), in one run, against the floors the issue names.

1. ``--tracked`` on a repository of at least 50,000 files and 300 MB of real source text (the
   Python standard library and the installed packages, each copy altered so every blob is
   distinct; ``git gc`` before timing) against ``git grep -I -F -e <markers> HEAD`` over the same
   tree. Target: apc at most 3x the floor.
2. ``--staged`` on a 10-file change in a 1,000-file and in the 50,000-file repository. Target:
   within 20% of each other (the staged scan must not grow with the repository).
3. ``--secrets all`` against detect-secrets on a 5,000-file slice. Target: apc at least 20x
   faster per file.

Not run by CI. Each timing is the best of ``--runs`` whole-process runs (the installed ``apc``
when on PATH, else ``python -m apc_tools``). detect-secrets is taken from PATH or
``--detect-secrets``; when missing, that part is reported as skipped.

    python bench/boundary_scan.py                      # the sizes of the issue
    python bench/boundary_scan.py --files 5000 --megabytes 30 --runs 1   # a quick look
    python bench/boundary_scan.py --work /tmp/b --keep --parts staged   # reuse a built tree

Copies are made of source code only (``.py``, ``.pyi``, ``.c``, ``.h`` of at least 2,000
bytes, cut at 12,000), so the line that makes each copy distinct is a comment in its language.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

from apc_tools.core.detect import MARKERS

# Source code only, so the line that makes each copy distinct is a comment in its language.
COMMENT = {
    ".py": b"\n# apc-bench copy %d\n",
    ".pyi": b"\n# apc-bench copy %d\n",
    ".c": b"\n/* apc-bench copy %d */\n",
    ".h": b"\n/* apc-bench copy %d */\n",
}
MIN_FILE = 2000
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def source_pool(max_bytes: int) -> Iterator[tuple[str, bytes]]:
    """Real source files (suffix, UTF-8 text), round and round, each cut to ``max_bytes``
    at a line end."""
    roots = {sysconfig.get_paths()["stdlib"], sysconfig.get_paths()["purelib"]}
    files = sorted(
        p
        for root in roots
        for p in Path(root).rglob("*")
        if p.suffix in COMMENT and p.is_file() and not p.is_symlink()
    )
    texts = []
    for path in files:
        try:
            data = path.read_bytes()
            data.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(data) > max_bytes:
            data = data[: data.rfind(b"\n", 0, max_bytes) + 1]
        if b"\0" not in data and len(data) >= MIN_FILE:
            texts.append((path.suffix, data))
    if not texts:
        raise SystemExit("no source text found to build the benchmark repository")
    while True:
        yield from texts


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **GIT_ENV}
    command = ["git", "-c", "gc.auto=0", *args]
    return subprocess.run(command, cwd=cwd, env=env, check=check, capture_output=True)


def build(root: Path, files: int, megabytes: int, max_file: int) -> tuple[int, int]:
    """A repository of at least ``files`` files and ``megabytes`` MB, every blob distinct."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    total = count = 0
    pool = source_pool(max_file)
    while count < files or total < megabytes * 1_000_000:
        suffix, text = next(pool)
        data = text + COMMENT[suffix] % count
        target = root / "src" / f"pkg{count // 200:04d}" / f"mod{count % 200:03d}{suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        total += len(data)
        count += 1
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "bench tree")
    git(root, "gc", "-q")
    return count, total


def apc_command() -> list[str]:
    found = shutil.which("apc")
    return [found] if found else [sys.executable, "-m", "apc_tools"]


def best(command: Sequence[str], cwd: Path, runs: int, ok: Sequence[int] = (0, 1)) -> float:
    """The best wall time of ``runs`` runs (seconds); the exit status must be in ``ok``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        done = subprocess.run(command, cwd=cwd, capture_output=True)
        times.append(time.perf_counter() - start)
        if done.returncode not in ok:
            err = done.stderr.decode(errors="replace")[-500:]
            raise SystemExit(f"{' '.join(command)}: exit {done.returncode}\n{err}")
    return min(times)


def best_pair(
    first: tuple[Sequence[str], Path], second: tuple[Sequence[str], Path], runs: int
) -> tuple[float, float]:
    """Best times of two commands run alternately (the machine's load then weighs on both)."""
    a, b = [], []
    for _ in range(runs):
        a.append(best(first[0], first[1], 1))
        b.append(best(second[0], second[1], 1))
    return min(a), min(b)


def change_ten(root: Path) -> None:
    """Stage a change to 10 files (a typical commit)."""
    for path in sorted(p for p in (root / "src").rglob("*") if p.is_file())[::97][:10]:
        path.write_bytes(path.read_bytes() + b"\n# changed\n")
    git(root, "add", "-A")


def subset(source: Path, target: Path, files: int) -> Path:
    """A repository of the first ``files`` files of ``source``, committed."""
    target.mkdir(parents=True)
    git(target, "init", "-q", "-b", "main")
    paths = sorted(p for p in (source / "src").rglob("*") if p.is_file())[:files]
    for path in paths:
        dest = target / path.relative_to(source)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest)
    git(target, "add", "-A")
    git(target, "commit", "-q", "-m", "subset")
    git(target, "gc", "-q")
    return target


def judge(name: str, value: float, target: str, passed: bool) -> dict[str, object]:
    verdict = "meets" if passed else "MISSES"
    print(f"  {name}: {value:.2f} ({verdict} target {target})")
    return {"measure": name, "value": round(value, 3), "target": target, "met": passed}


def tracked(big: Path, apc: list[str], runs: int) -> dict[str, object]:
    grep = ["git", "grep", "-I", "-F", *(x for m in MARKERS for x in ("-e", m)), "HEAD"]
    ours_cmd = [*apc, "boundary", "--tracked", "--format", "json"]
    floor, ours = best_pair((grep, big), (ours_cmd, big), runs)
    print(f"tracked: apc {ours:.2f}s, git grep {floor:.2f}s")
    return judge("tracked / git grep", ours / floor, "<= 3.0", ours <= 3 * floor)


def staged(big: Path, work: Path, apc: list[str], runs: int) -> dict[str, object]:
    small = work / "small"
    if not small.exists():
        subset(big, small, 1000)
    change_ten(small)
    change_ten(big)
    command = [*apc, "boundary", "--staged"]
    in_small, in_big = best_pair((command, small), (command, big), runs * 2)
    files = len(git(big, "ls-files", "-z").stdout.split(b"\0")) - 1
    print(f"staged (10 files): 1,000-file repo {in_small:.3f}s, {files}-file {in_big:.3f}s")
    return judge("staged big / small", in_big / in_small, "<= 1.2", in_big <= 1.2 * in_small)


def secrets(big: Path, work: Path, apc: list[str], args: argparse.Namespace) -> list[object]:
    detect = args.detect_secrets or shutil.which("detect-secrets")
    if detect is None:
        print("detect-secrets: not found (pip install detect-secrets): skipped")
        return []
    n = args.secrets_files
    slice_repo = work / "slice"
    if not slice_repo.exists():
        subset(big, slice_repo, n)
    ours = best([*apc, "boundary", "--secrets", "all"], slice_repo, args.runs)
    plain = work / "slice-plain"
    if not plain.exists():
        shutil.copytree(slice_repo / "src", plain / "src")
    theirs = best([detect, "scan", "--all-files", "."], plain, 1, ok=(0,))
    print(
        f"secrets ({n} files): apc {ours:.2f}s ({ours / n * 1e3:.2f} ms/file), "
        f"detect-secrets {theirs:.2f}s ({theirs / n * 1e3:.2f} ms/file)"
    )
    return [judge("detect-secrets / apc per file", theirs / ours, ">= 20", theirs >= 20 * ours)]


def run(args: argparse.Namespace) -> list[object]:
    work = Path(args.work or tempfile.mkdtemp(prefix="apc-bench-"))
    big = work / "big"
    if not (big / ".git").exists():
        print(f"building {work} ...", flush=True)
        count, size = build(big, args.files, args.megabytes, args.max_file_bytes)
        print(f"  {count} files, {size / 1e6:.0f} MB, every blob distinct, gc done")
    apc = apc_command()
    results: list[object] = []
    if "tracked" in args.parts:
        results.append(tracked(big, apc, args.runs))
    if "staged" in args.parts:
        results.append(staged(big, work, apc, args.runs))
    if "secrets" in args.parts:
        results += secrets(big, work, apc, args)
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--megabytes", type=int, default=300)
    parser.add_argument("--max-file-bytes", type=int, default=12_000)
    parser.add_argument("--secrets-files", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", help="build here, or reuse what is there (default: a new temp)")
    parser.add_argument(
        "--parts", default="tracked,staged,secrets", help="which measures (comma-separated)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the built repositories")
    parser.add_argument("--detect-secrets", help="the detect-secrets command")
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    results = run(args)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
