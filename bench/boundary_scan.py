"""Benchmark of `apc boundary` (issues 9 and 19), in one run, against the floors the issues name.

1. ``tracked``: ``apc boundary --tracked`` on a repository of at least 50,000 files and 300 MB of
   real source text (the Python standard library and the installed packages, each copy altered
   so every blob is distinct, plus five planted leaks so every verdict has findings; ``git gc``
   before timing), against ``git grep -I -F -e <markers> HEAD`` over the same tree, side by side
   in rounds: apc **cold** (a new, empty ``XDG_CACHE_HOME`` per run), **warm** (the cache filled
   by an earlier run), **after a 10-file change** (10 files changed and committed, a fresh change
   per run, the cache warm from before; the tree is reset afterwards) and ``--no-cache`` (when
   apc has it). Targets (issue 19): cold <= 1.5x git grep, warm <= 0.5x, change <= 1.2x warm.
2. ``staged``: ``--staged`` on a 10-file change in a 1,000-file and in the 50,000-file repository.
   Target: within 20% of each other (the staged scan must not grow with the repository).
3. ``secrets``: ``--secrets all`` (cold cache) against detect-secrets on a 5,000-file slice.
   Target: apc at least 20x faster per file.
4. ``history``: ``apc boundary --history`` on a 10,000-commit repository built with
   ``git fast-import`` (a few-hundred-file tree, a few files changed per commit, some commits
   adding files, one old commit adding a Claude Code session that a later one deletes), cold
   against a warm re-run. Target: warm <= 0.2x cold.

Every apc run prints JSON; its verdict (all findings and the summary) must be the same cold, warm
and with ``--no-cache``, and after the 10-file change the warm verdict must equal a cold run on
the same changed tree. A difference prints ``MISMATCH`` and the script exits 1.

Not run by CI. Timings are medians of ``--runs`` whole processes (wall, and the child's own CPU:
user+sys from ``os.wait4``); the measures of one part run alternately in rounds so the machine's
load weighs on all of them; the load average is printed with each table.

    python bench/boundary_scan.py                                   # every part, issue sizes
    python bench/boundary_scan.py --work /work/bench-trees/boundary --keep   # build once, reuse
    python bench/boundary_scan.py --work /work/bench-trees/boundary --keep --parts tracked \\
        --apc /tmp/bench-main/bin/apc                               # another apc, same trees
    python bench/boundary_scan.py --files 5000 --megabytes 30 --history-commits 500 --runs 1

Copies are made of source code only (``.py``, ``.pyi``, ``.c``, ``.h`` of at least 2,000
bytes, cut at 12,000), so the line that makes each copy distinct is a comment in its language.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed import compile_apc
from timing import (
    Sample,
    Series,
    Verdict,
    cache_state,
    has_no_cache,
    inherited_switches,
    load,
    ratio_line,
    run_child,
    same_verdicts,
    verdict,
)

from apc_tools.core.detect import MARKERS

# Source code only, so the line that makes each copy distinct is a comment in its language.
COMMENT = {
    ".py": b"\n# apc-bench copy %d\n",
    ".pyi": b"\n# apc-bench copy %d\n",
    ".c": b"\n/* apc-bench copy %d */\n",
    ".h": b"\n/* apc-bench copy %d */\n",
}
CHANGE = {
    ".py": b"\n# apc-bench change %s\n",
    ".pyi": b"\n# apc-bench change %s\n",
    ".c": b"\n/* apc-bench change %s */\n",
    ".h": b"\n/* apc-bench change %s */\n",
}
MIN_FILE = 2000
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
BASE_REF = "refs/bench/base"  # the tree every tracked measure starts from (planted leaks in)
SESSION_ID = "4f1c2b7e-9d3a-4c55-b0e1-7a2d9c6e8f10"
SESSION_LINE = json.dumps(
    {
        "parentUuid": None,
        "isSidechain": False,
        "userType": "external",
        "cwd": "/home/dev/app",
        "sessionId": SESSION_ID,
        "version": "1.0.51",
        "type": "user",
        "message": {"role": "user", "content": "fix the failing test"},
        "uuid": "6d0c1a2b-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
        "timestamp": "2025-06-01T10:00:00.000Z",
    }
).encode()
SESSION_PATH = f".claude/projects/-home-dev-app/{SESSION_ID}.jsonl"
# Leaks planted in the big tree, so that every verdict compared has findings to agree on: a
# session at its runtime path (path and content rules), the same session as a fixture (content
# only), an Aider history, and an interruption marker in notes (a warning).
PLANTED = {
    SESSION_PATH: SESSION_LINE + b"\n",
    "tests/fixtures/run.jsonl": SESSION_LINE + b"\n",
    ".aider.chat.history.md": (
        b"# aider chat started at 2025-06-01 10:00:00\n\n#### fix the failing test\n\nOk.\n"
    ),
    "notes/handoff.md": b"# Handoff\n\nThe agent stopped here:\n\n"
    b"[Request interrupted"
    b" by user for tool use]\n",  # split: this file is no leak itself
}
TARGET_COLD, TARGET_WARM, TARGET_CHANGE, TARGET_HISTORY = 1.5, 0.5, 1.2, 0.2


class Bench:
    """The apc under test, the scratch folder for cache folders, and the mismatches so far."""

    def __init__(self, apc: list[str], scratch: Path, prefilter: Sequence[str] = ()) -> None:
        self.apc = apc
        self.scratch = scratch
        self.prefilter = list(prefilter)  # APC_PREFILTER values for extra cold rows
        self.no_cache = has_no_cache(apc, "boundary")
        self.mismatches: list[str] = []
        self.written: bool | None = None  # whether a warm-up wrote to its cache folder
        done = subprocess.run([*apc, "--version"], capture_output=True, text=True)
        self.version = (done.stdout or done.stderr).strip() or "?"

    def cache_dir(self, name: str) -> Path:
        """A new, empty folder for XDG_CACHE_HOME."""
        self.scratch.mkdir(parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.scratch))

    def apc_run(
        self, args: Sequence[str], cwd: Path, cache: Path, prefilter: str | None = None
    ) -> Sample:
        """One timed apc run with ``cache`` as XDG_CACHE_HOME (exit 0 or 1: a complete scan)."""
        env = {"XDG_CACHE_HOME": str(cache), "APC_PREFILTER": prefilter}
        return run_child([*self.apc, *args], cwd, env)

    def cold(self, args: Sequence[str], cwd: Path, prefilter: str | None = None) -> Sample:
        cache = self.cache_dir("cold")
        try:
            return self.apc_run(args, cwd, cache, prefilter)
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    def uncached(self, args: Sequence[str], cwd: Path) -> Sample:
        """A ``--no-cache`` run; says so when it wrote to its (empty) cache folder anyway."""
        cache = self.cache_dir("nocache")
        try:
            sample = self.apc_run([*args, "--no-cache"], cwd, cache)
            if any(cache.iterdir()):
                print(f"  NOTE: --no-cache wrote to its cache folder ({cache})")
            return sample
        finally:
            shutil.rmtree(cache, ignore_errors=True)

    def filled(self, cache: Path) -> str:
        """After the warm-up: print the cache state; the note for the warm rows."""
        self.written = any(cache.iterdir())
        print(f"  cache: {cache_state(self.no_cache, self.written)}")
        return "" if self.written else "(no cache written: a warm run is a cold run)"

    def agree(self, label: str, verdicts: dict[str, Verdict]) -> None:
        if not same_verdicts(label, verdicts):
            self.mismatches.append(label)

    def header(self, title: str, modes: bool = False) -> None:
        print(f"\n== {title}")
        print(f"  apc: {shlex.join(self.apc)} ({self.version})")
        if modes and self.prefilter:
            print(f"  extra cold rows with APC_PREFILTER={', '.join(self.prefilter)}")
        if note := inherited_switches():
            print(note)
        print(f"  at start: {load()}")


# --- the big tree ------------------------------------------------------------------------------


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


def git(
    cwd: Path, *args: str, check: bool = True, stdin: bytes | None = None
) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, **GIT_ENV}
    command = ["git", "-c", "gc.auto=0", *args]
    return subprocess.run(command, cwd=cwd, env=env, check=check, capture_output=True, input=stdin)


def build(
    root: Path,
    files: int,
    megabytes: int,
    max_file: int,
    pool: Iterator[tuple[str, bytes]] | None = None,
) -> tuple[int, int]:
    """A repository of at least ``files`` files and ``megabytes`` MB, every blob distinct."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    total = count = 0
    pool = pool or source_pool(max_file)
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


def base(root: Path) -> None:
    """Reset ``root`` to its base commit: the built tree plus the planted leaks (committed and
    recorded in refs/bench/base the first time, so a tree built by an older script is reused)."""
    if git(root, "rev-parse", "-q", "--verify", BASE_REF, check=False).returncode != 0:
        git(root, "reset", "-q", "--hard", "HEAD")
        for rel, data in PLANTED.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_bytes(data)
        git(root, "add", "--", *PLANTED)
        git(root, "commit", "-q", "-m", "planted leaks")
        git(root, "update-ref", BASE_REF, "HEAD")
    git(root, "reset", "-q", "--hard", BASE_REF)


def tracked_files(root: Path) -> list[str]:
    return sorted(p for p in git(root, "ls-files", "-z").stdout.decode().split("\0") if p)


def commit_change(root: Path, paths: Sequence[str], tag: str) -> None:
    """Change ``paths`` (a comment line naming ``tag``, so every change makes new blobs) and
    commit them: what ``--tracked`` sees after a 10-file commit."""
    for rel in paths:
        path = root / rel
        path.write_bytes(path.read_bytes() + CHANGE[path.suffix] % tag.encode())
    git(root, "add", "--", *paths)
    git(root, "commit", "-q", "-m", f"bench change {tag}")


def apc_command(given: str | None) -> list[str]:
    if given:
        return shlex.split(given)
    found = shutil.which("apc")
    return [found] if found else [sys.executable, "-m", "apc_tools"]


def table(rows: dict[str, Series]) -> None:
    print(f"  {'measure':<31} {'runs':>4} {'median wall':>12} {'best wall':>10} {'median cpu':>11}")
    for name, series in rows.items():
        if not series.samples:
            continue
        print(
            f"  {name:<31} {len(series.samples):>4} {series.wall:>11.3f}s {series.best:>9.3f}s "
            f"{series.cpu:>10.3f}s"
        )


def judge(
    results: list[dict[str, object]],
    name: str,
    num: Series,
    den: Series,
    target: float | None,
    note: str = "",
) -> None:
    value, cpu = num.wall / den.wall, num.cpu / den.cpu
    print(ratio_line(name, value, cpu, target, note))
    results.append(
        {
            "measure": name,
            "wall_ratio": round(value, 3),
            "cpu_ratio": round(cpu, 3),
            "target": target,
            "met": None if target is None else value <= target,
            "numerator_s": round(num.wall, 4),
            "denominator_s": round(den.wall, 4),
        }
    )


# --- 1. tracked --------------------------------------------------------------------------------


def tracked(big: Path, bench: Bench, runs: int) -> list[dict[str, object]]:
    base(big)
    files = tracked_files(big)
    sources = [p for p in files if Path(p).suffix in CHANGE]
    changed = sources[:: max(1, len(sources) // 10)][:10]
    bench.header(f"tracked: {len(files)} files, {runs} rounds, apc against git grep", True)
    grep = ["git", "grep", "-I", "-F", *(x for m in MARKERS for x in ("-e", m)), "HEAD"]
    args = ["boundary", "--tracked", "--format", "json"]
    warm_cache = bench.cache_dir("warm")
    run_child(grep, big)  # warm-up: page cache
    filled = bench.apc_run(args, big, warm_cache)  # warm-up, and it fills the warm cache
    note = bench.filled(warm_cache)
    rows = {
        "git grep -I -F (floor)": Series("grep"),
        "apc cold": Series("cold"),
        "apc warm": Series("warm"),
        "apc after a 10-file change": Series("change"),
        "apc --no-cache": Series("no-cache"),
    }
    grep_s, cold_s, warm_s, change_s, none_s = rows.values()
    modes = {m: Series(f"cold APC_PREFILTER={m}") for m in bench.prefilter}
    rows.update({f"apc cold, APC_PREFILTER={m}": series for m, series in modes.items()})
    nonce = uuid.uuid4().hex[:8]
    change_verdicts: dict[str, Verdict] = {}
    for i in range(runs):
        grep_s.samples.append(run_child(grep, big))
        cold_s.samples.append(bench.cold(args, big))
        warm_s.samples.append(bench.apc_run(args, big, warm_cache))
        if bench.no_cache:
            none_s.samples.append(bench.uncached(args, big))
        for mode, series in modes.items():
            series.samples.append(bench.cold(args, big, mode))
        commit_change(big, changed, f"{nonce}-{i}")
        try:
            change_s.samples.append(bench.apc_run(args, big, warm_cache))
            if i == runs - 1:  # the same changed tree, judged from nothing
                change_verdicts["10-file change, warm"] = verdict(change_s.samples[-1].stdout)
                change_verdicts["10-file change, cold"] = verdict(bench.cold(args, big).stdout)
        finally:
            git(big, "reset", "-q", "--hard", BASE_REF)
    shutil.rmtree(warm_cache, ignore_errors=True)
    table(rows)
    print(f"  at end: {load()}")
    results: list[dict[str, object]] = []
    judge(results, "tracked cold / git grep", cold_s, grep_s, TARGET_COLD)
    judge(results, "tracked warm / git grep", warm_s, grep_s, TARGET_WARM, note)
    judge(results, "tracked 10-file change / warm", change_s, warm_s, TARGET_CHANGE)
    if none_s.samples:
        judge(results, "tracked --no-cache / git grep (reference)", none_s, grep_s, None)
    for mode, series in modes.items():
        judge(results, f"tracked cold APC_PREFILTER={mode} / git grep", series, grep_s, None)
    verdicts = {"fill": verdict(filled.stdout)}
    for series in (cold_s, warm_s, none_s, *modes.values()):
        for n, sample in enumerate(series.samples):
            verdicts[f"{series.name} {n + 1}"] = verdict(sample.stdout)
    bench.agree("tracked: cold / warm / --no-cache / prefilter modes", verdicts)
    bench.agree("tracked: after the change, warm / cold", change_verdicts)
    if verdicts["fill"].findings < len(PLANTED):
        print(f"  NOTE: fewer findings than the {len(PLANTED)} planted leaks")
    return results


# --- 2. staged ---------------------------------------------------------------------------------


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


def staged(big: Path, work: Path, bench: Bench, runs: int) -> list[dict[str, object]]:
    """Both repositories share one cache folder (warm after the first round), as a developer's
    pre-commit runs would."""
    small = work / "small"
    if not small.exists():
        subset(big, small, 1000)
    base(big)
    change_ten(small)
    change_ten(big)
    bench.header("staged: 10 staged files, a 1,000-file and the big repository")
    args = ["boundary", "--staged", "--format", "json"]
    cache = bench.cache_dir("staged")
    in_small, in_big = Series("small"), Series("big")
    for _ in range(runs * 2):
        in_small.samples.append(bench.apc_run(args, small, cache))
        in_big.samples.append(bench.apc_run(args, big, cache))
    shutil.rmtree(cache, ignore_errors=True)
    files = len(tracked_files(big))
    table({"1,000-file repository": in_small, f"{files}-file repository": in_big})
    print(f"  at end: {load()}")
    results: list[dict[str, object]] = []
    judge(results, "staged big / small", in_big, in_small, 1.2)
    git(big, "reset", "-q", "--hard", BASE_REF)
    return results


# --- 3. secrets --------------------------------------------------------------------------------


def secrets(big: Path, work: Path, bench: Bench, args: argparse.Namespace) -> list[object]:
    detect = args.detect_secrets or shutil.which("detect-secrets")
    if detect is None:
        print("\n== secrets: detect-secrets not found (pip install detect-secrets): skipped")
        return []
    n = args.secrets_files
    slice_repo = work / "slice"
    if not slice_repo.exists():
        subset(big, slice_repo, n)
    bench.header(f"secrets: --secrets all on {n} files (cold cache) against detect-secrets")
    ours = Series("apc")
    for _ in range(args.runs):
        ours.samples.append(bench.cold(["boundary", "--secrets", "all"], slice_repo))
    plain = work / "slice-plain"
    if not plain.exists():
        shutil.copytree(slice_repo / "src", plain / "src")
    theirs = Series("detect-secrets", [run_child([detect, "scan", "--all-files", "."], plain)])
    table({"apc --secrets all": ours, "detect-secrets (1 run)": theirs})
    print(f"  at end: {load()}")
    value = theirs.wall / ours.wall
    print(f"  detect-secrets / apc per file: {value:.1f}x (target >= 20x: ", end="")
    print("met)" if value >= 20 else "NOT met)")
    return [{"measure": "detect-secrets / apc", "value": round(value, 2), "met": value >= 20}]


# --- 4. history --------------------------------------------------------------------------------


def history_blob(text: bytes, suffix: str, rev: int) -> bytes:
    return text + (COMMENT[suffix] % rev).replace(b"copy", b"rev")


def build_history(
    root: Path,
    commits: int,
    files: int,
    seed: int = 19,
    pool: Iterator[tuple[str, bytes]] | None = None,
) -> int:
    """A ``commits``-commit repository from one ``git fast-import`` stream: the first commit adds
    ``files`` source files, each later one changes 1-4 of them, every 25th adds a file, and
    commit ``commits // 10`` adds a Claude Code session that 50 commits later are deleted."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    rng = random.Random(seed)
    pool = pool or source_pool(4000)
    texts: dict[str, tuple[str, bytes]] = {}

    def new_path(n: int) -> str:
        suffix, text = next(pool)
        path = f"src/pkg{n // 50:03d}/mod{n % 50:02d}{suffix}"
        texts[path] = (suffix, text)
        return path

    for n in range(files):
        new_path(n)
    session_at, removed_at = max(2, commits // 10), max(3, commits // 10 + 50)
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", "--done"],
        cwd=root,
        stdin=subprocess.PIPE,
        env={**os.environ, **GIT_ENV},
    )
    assert proc.stdin
    out = proc.stdin

    def data(payload: bytes) -> None:
        out.write(b"data %d\n" % len(payload) + payload + b"\n")

    when = 1_700_000_000
    for rev in range(1, commits + 1):
        when += 3600
        out.write(b"commit refs/heads/main\n")
        out.write(b"committer bench <bench@example.com> %d +0000\n" % when)
        data(b"change %d" % rev)
        if rev == 1:
            touched = list(texts)
        else:
            touched = rng.sample(sorted(texts), rng.randint(1, 4))
            if rev % 25 == 0:
                touched.append(new_path(len(texts)))
        for path in touched:
            suffix, text = texts[path]
            out.write(b"M 100644 inline %s\n" % path.encode())
            data(history_blob(text, suffix, rev))
        if rev == session_at:
            out.write(b"M 100644 inline %s\n" % SESSION_PATH.encode())
            data(SESSION_LINE + b"\n")
        if rev == removed_at:
            out.write(b"D %s\n" % SESSION_PATH.encode())
        out.write(b"\n")
    out.write(b"done\n")
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    git(root, "reset", "-q", "--hard", "main")
    git(root, "gc", "-q")
    return len(texts)


def history(work: Path, bench: Bench, args: argparse.Namespace) -> list[dict[str, object]]:
    repo = work / f"history-{args.history_commits}"
    if not (repo / ".git").exists():
        print(f"building {repo} with git fast-import ...", flush=True)
        count = build_history(repo, args.history_commits, args.history_files)
        print(f"  {args.history_commits} commits, {count} files at the tip, gc done")
    commits = git(repo, "rev-list", "--count", "HEAD").stdout.decode().strip()
    runs = args.history_runs or args.runs
    bench.header(f"history: {commits} commits, {runs} rounds, cold against a warm re-run", True)
    cmd = ["boundary", "--history", "--format", "json"]
    warm_cache = bench.cache_dir("hwarm")
    filled = bench.apc_run(cmd, repo, warm_cache)  # fills the warm cache
    note = bench.filled(warm_cache)
    cold_s, warm_s, none_s = Series("cold"), Series("warm"), Series("no-cache")
    modes = {m: Series(f"cold APC_PREFILTER={m}") for m in bench.prefilter}
    for _ in range(runs):
        cold_s.samples.append(bench.cold(cmd, repo))
        warm_s.samples.append(bench.apc_run(cmd, repo, warm_cache))
        if bench.no_cache:
            none_s.samples.append(bench.uncached(cmd, repo))
        for mode, series in modes.items():
            series.samples.append(bench.cold(cmd, repo, mode))
    shutil.rmtree(warm_cache, ignore_errors=True)
    rows = {"apc cold": cold_s, "apc warm re-run": warm_s, "apc --no-cache": none_s}
    rows.update({f"apc cold, APC_PREFILTER={m}": series for m, series in modes.items()})
    table(rows)
    print(f"  at end: {load()}")
    results: list[dict[str, object]] = []
    judge(results, "history warm / cold", warm_s, cold_s, TARGET_HISTORY, note)
    print(f"  verdict cold: {verdict(cold_s.samples[-1].stdout)}")
    print(f"  verdict warm: {verdict(warm_s.samples[-1].stdout)}")
    verdicts = {"fill": verdict(filled.stdout)}
    for series in (cold_s, warm_s, none_s, *modes.values()):
        for n, sample in enumerate(series.samples):
            verdicts[f"{series.name} {n + 1}"] = verdict(sample.stdout)
    bench.agree("history: cold / warm / --no-cache / prefilter modes", verdicts)
    if verdicts["fill"].findings == 0:
        print("  MISMATCH (history): the planted session was not reported")
        bench.mismatches.append("history: planted session")
    return results


# --- main --------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> tuple[list[object], list[str]]:
    work = Path(args.work or tempfile.mkdtemp(prefix="apc-bench-"))
    parts = {p.strip() for p in args.parts.split(",") if p.strip()}
    unknown = parts - {"tracked", "staged", "secrets", "history", "none"}
    if unknown:
        raise SystemExit(f"unknown parts: {', '.join(sorted(unknown))}")
    big = work / "big"
    if parts & {"tracked", "staged", "secrets"} and not (big / ".git").exists():
        print(f"building {work} ...", flush=True)
        count, size = build(big, args.files, args.megabytes, args.max_file_bytes)
        print(f"  {count} files, {size / 1e6:.0f} MB, every blob distinct, gc done")
    if (big / ".git").exists():
        base(big)
    scratch = Path(tempfile.mkdtemp(prefix="apc-bench-cache-"))
    modes = [m.strip() for m in (args.prefilter or "").split(",") if m.strip()]
    bench = Bench(apc_command(args.apc), scratch, modes)
    results: list[object] = []
    try:
        if "tracked" in parts:
            results += tracked(big, bench, args.runs)
        if "staged" in parts:
            results += staged(big, work, bench, args.runs)
        if "secrets" in parts:
            results += secrets(big, work, bench, args)
        if "history" in parts:
            results += history(work, bench, args)
    finally:
        shutil.rmtree(bench.scratch, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return results, bench.mismatches


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=50_000)
    parser.add_argument("--megabytes", type=int, default=300)
    parser.add_argument("--max-file-bytes", type=int, default=12_000)
    parser.add_argument("--secrets-files", type=int, default=5_000)
    parser.add_argument("--history-commits", type=int, default=10_000)
    parser.add_argument("--history-files", type=int, default=300)
    parser.add_argument("--history-runs", type=int, help="rounds for history (default: --runs)")
    parser.add_argument("--runs", type=int, default=5, help="rounds per part (medians)")
    parser.add_argument("--work", help="build here, or reuse what is there (default: a new temp)")
    parser.add_argument(
        "--parts",
        default="tracked,staged,secrets,history",
        help="which measures, comma-separated: tracked, staged, secrets, history (none: build)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the built repositories")
    parser.add_argument("--apc", help="the apc command (default: apc on PATH, else python -m)")
    parser.add_argument("--detect-secrets", help="the detect-secrets command")
    parser.add_argument(
        "--prefilter",
        help="also time cold runs with APC_PREFILTER set to each of these (e.g. 0,git), "
        "their verdicts compared too",
    )
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    compile_apc()
    results, mismatches = run(args)
    if args.json:
        data = {"results": results, "mismatches": mismatches}
        Path(args.json).write_text(json.dumps(data, indent=2) + "\n")
    if mismatches:
        print(f"\nMISMATCH in: {'; '.join(mismatches)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
