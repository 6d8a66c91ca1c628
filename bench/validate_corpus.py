#!/usr/bin/env python3
"""Time `apc validate` against agnix and skillsaw on the corpus, in one run, on the same tree.

The corpus (default ../shared/corpus beside the checkout) is laid out in a temporary folder as
the peers expect it, one folder per source repository:

* VoltAgent ``categories/*/*.md`` (not README.md)  -> ``.claude/agents/``
* PatrickJS ``rules/*.mdc``                         -> ``.cursor/rules/``
* anthropics ``skills/*``                           -> ``.claude/skills/``
* every other file is copied unchanged; licence files and ``transcripts/`` are left out.

Each tool runs as a whole process (``time.perf_counter`` around the child; CPU and peak RSS are
the child's own, from ``os.wait4``): one warm-up run of each tool, then ``--runs`` rounds in
which agnix and every apc measure run once each, so the machine's load weighs on all of them
alike; the medians are reported (skillsaw, ~10 s a run, gets its own rounds afterwards).

apc is measured four ways, each with its own ``XDG_CACHE_HOME`` so the user's cache is never
used: **cold** (a new, empty cache folder per run), **warm** (the folder the warm-up filled),
**after a 10-file change** (10 agent-context files edited just before the run, a fresh edit each
run, the cache warm from before; the originals are restored right after) and ``--no-cache``
(when ``apc validate --help`` offers it; otherwise the table says "cache: not available").
apc's verdict (every finding and the summary) must be identical cold, warm and with
``--no-cache``, and the warm verdict after the change identical to a cold run on the same
changed tree; a difference prints MISMATCH and the script exits 1.

``--mode tree`` (default) runs each tool once over the whole staged tree; ``--mode per-repo``
runs it once per repository folder and sums each run's times (how agent-config-linters.md
measured agnix per repo). A tool that is missing or fails is reported, not fatal.

Targets (issue 19): apc cold <= 1.0x agnix wall, apc warm <= 0.3x agnix wall; skillsaw >= 10x
apc cold (issue 5).

    python bench/validate_corpus.py [--corpus DIR] [--runs N] [--apc CMD] [--agnix CMD]
        [--skillsaw CMD] [--only TOOL] [--mode tree|per-repo] [--json OUT] [--keep]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed import compile_apc
from timing import (
    Verdict,
    cache_state,
    child_env,
    has_no_cache,
    inherited_switches,
    load,
    same_verdicts,
    verdict,
)

ROOT = Path(__file__).resolve().parent.parent
# ../shared/corpus beside the checkout (as in CI), else the team's shared folder.
CORPUS_CANDIDATES = (ROOT.parent / "shared" / "corpus", Path("/work/shared/corpus"))
DEFAULT_CORPUS = next((p for p in CORPUS_CANDIDATES if p.is_dir()), CORPUS_CANDIDATES[0])
LICENCES = {"LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING", "NOTICE"}
SKIP_DIRS = {"transcripts"}
APC_TARGET = 1.0  # apc cold / agnix, wall (issue 19; issue 5's was 1.5)
WARM_TARGET = 0.3  # apc warm / agnix, wall (issue 19)
SKILLSAW_TARGET = 10.0
PEERS = Path("/work/venv-bench/bin")  # where the peers are installed (see bench/README.md)
# The files the 10-file change edits: agent-context files apc validates.
EDITS = 10
EDIT_NAMES = {"AGENTS.md", "CLAUDE.md", "GEMINI.md", "SKILL.md"}
EDIT_SUFFIXES = {".mdc"}


# --- staging -----------------------------------------------------------------------------------


def staged_path(repo: str, rel: Path) -> Path | None:
    """Where a corpus file goes in the staged tree (relative to the repo folder), or None."""
    parts = rel.parts
    if rel.name in LICENCES:
        return None
    if repo.startswith("VoltAgent__") and len(parts) == 3 and parts[0] == "categories":
        return None if rel.name == "README.md" else Path(".claude/agents") / rel.name
    if repo.startswith("PatrickJS__") and len(parts) == 2 and parts[0] == "rules":
        return Path(".cursor/rules") / rel.name if rel.suffix == ".mdc" else rel
    if repo.startswith("anthropics__") and len(parts) >= 2 and parts[0] == "skills":
        return Path(".claude/skills", *parts[1:])
    return rel


def stage(corpus: Path, dest: Path) -> dict[str, int]:
    """Copy the corpus into ``dest`` in the peers' layout; return files per repository."""
    counts: dict[str, int] = {}
    for repo_dir in sorted(p for p in corpus.iterdir() if p.is_dir() and p.name not in SKIP_DIRS):
        counts[repo_dir.name] = 0
        for src in sorted(p for p in repo_dir.rglob("*") if p.is_file()):
            target = staged_path(repo_dir.name, src.relative_to(repo_dir))
            if target is None:
                continue
            out = dest / repo_dir.name / target
            if out.exists():
                raise SystemExit(f"staging collision: {out} (from {src})")
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, out)
            counts[repo_dir.name] += 1
    return counts


# --- tools -------------------------------------------------------------------------------------


@dataclass
class Tool:
    name: str
    command: list[str] | None  # None: not found
    args: list[str]  # appended after the command; "{dir}" is the target folder
    env: dict[str, str] = field(default_factory=dict)
    version: str = "?"
    note: str = ""


@dataclass
class Timing:
    tool: str
    version: str
    command: str
    runs: int = 0
    median_s: float | None = None
    min_s: float | None = None
    cpu_s: float | None = None  # median user+sys CPU time of the child
    peak_rss_mib: float | None = None
    returncodes: list[int] = field(default_factory=list)
    findings: int | None = None
    files_reported: int | None = None
    problem: str = ""


def find_tool(name: str, given: str | None, args: list[str]) -> Tool:
    if given:
        return Tool(name, shlex.split(given), args)
    path = shutil.which(name) or (str(PEERS / name) if (PEERS / name).is_file() else None)
    if path:
        return Tool(name, [path], args)
    if name == "apc" and (ROOT / "apc_tools").is_dir():
        env = {
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
        }
        return Tool(
            name, [sys.executable, "-m", "apc_tools"], args, env, note="python -m apc_tools"
        )
    return Tool(name, None, args, note=f"{name} not found on PATH (give --{name} CMD)")


def tools(options: argparse.Namespace) -> list[Tool]:
    found = [
        find_tool("apc", options.apc, ["validate", "{dir}", "--format", "json"]),
        find_tool("agnix", options.agnix, ["--format", "json", "{dir}"]),
        find_tool(
            "skillsaw",
            options.skillsaw,
            ["lint", "--format", "json", "--no-progress", "-v", "{dir}"],
        ),
    ]
    for tool in found:
        if tool.command:
            tool.version = tool_version(tool)
    return found


def tool_version(tool: Tool) -> str:
    assert tool.command
    try:
        done = subprocess.run(
            [*tool.command, "--version"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, **tool.env},
        )
    except OSError as exc:
        return f"? ({exc})"
    text = (done.stdout or done.stderr).strip().splitlines()
    return text[0] if text else "?"


@dataclass
class Run:
    seconds: float
    cpu: float
    returncode: int
    peak_mib: float
    stdout: Path
    stderr: Path
    findings: int | None = None
    files_seen: int | None = None
    verdict: Verdict | None = None  # apc's (in per-repo mode: of all the repositories)


def run_once(
    tool: Tool,
    target: Path,
    out_dir: Path,
    env: dict[str, str] | None = None,
    extra: Sequence[str] = (),
) -> Run:
    """Run the tool once, timing the whole process."""
    assert tool.command
    argv = [*tool.command, *(a.replace("{dir}", str(target)) for a in tool.args), *extra]
    stdout, stderr = out_dir / f"{tool.name}.out", out_dir / f"{tool.name}.err"
    full_env = child_env({**tool.env, **(env or {})})
    with stdout.open("wb") as out, stderr.open("wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(  # run in the tree it checks, as a user would (not in
            argv,  # whatever repository the bench was started from: apc asks git there)
            cwd=target if target.is_dir() else target.parent,
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=full_env,
        )
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return Run(elapsed, cpu, child.returncode, usage.ru_maxrss / 1024, stdout, stderr)


def problem_of(returncode: int, stdout: Path, stderr: Path) -> str:
    err = stderr.read_text(encoding="utf-8", errors="replace")
    if "Traceback (most recent call last)" in err or returncode not in (0, 1):
        lines = [line for line in err.strip().splitlines() if line.strip()]
        return f"exit {returncode}: {lines[-1] if lines else 'no message'}"
    try:
        json.loads(stdout.read_text(encoding="utf-8", errors="replace"))
    except ValueError:
        return f"exit {returncode}: output is not JSON"
    return ""


def counts_of(tool: str, stdout: Path) -> tuple[int | None, int | None]:
    """(findings, files the tool says it checked) from the JSON output, when it says."""
    try:
        data = json.loads(stdout.read_text(encoding="utf-8"))
    except (ValueError, OSError):
        return None, None
    if not isinstance(data, dict):
        return None, None
    if tool == "agnix":
        return len(data.get("diagnostics", [])), data.get("files_checked")
    if tool == "skillsaw":
        return len(data.get("violations", [])), None
    summary = data.get("summary", {})
    return len(data.get("findings", [])), summary.get("files") if isinstance(
        summary, dict
    ) else None


# --- the measures ------------------------------------------------------------------------------


@dataclass
class Variant:
    """One row of the table: a tool, and for apc how its cache is set up.

    cache: "" (the tool's own default), "cold" (a new empty XDG_CACHE_HOME per run), "warm" (the
    shared XDG_CACHE_HOME filled by the warm-up); change: 10 files edited just before the run
    (a fresh edit each run, the originals restored right after)."""

    key: str
    tool: Tool
    cache: str = ""
    change: bool = False
    extra: tuple[str, ...] = ()
    timing: Timing | None = None
    runs: list[Run] = field(default_factory=list)
    verdicts: list[Verdict] = field(default_factory=list)
    filled: Verdict | None = None  # the warm-up's (it filled the warm cache)


class Edits:
    """Ten agent-context files of the staged tree, edited and restored."""

    def __init__(self, tree: Path) -> None:
        names = sorted(
            p
            for p in tree.rglob("*")
            if p.is_file()
            and (
                p.name in EDIT_NAMES
                or p.suffix in EDIT_SUFFIXES
                or (p.suffix == ".md" and p.parent.name in {"agents", "commands"})
            )
        )
        self.paths = names[:: max(1, len(names) // EDITS)][:EDITS]
        self.originals = {p: p.read_bytes() for p in self.paths}
        self.nonce = uuid.uuid4().hex[:8]

    def apply(self, n: int) -> None:
        for path, data in self.originals.items():
            path.write_bytes(data + b"\n\napc-bench edit %s-%d\n" % (self.nonce.encode(), n))

    def restore(self) -> None:
        for path, data in self.originals.items():
            path.write_bytes(data)


class Caches:
    def __init__(self, scratch: Path) -> None:
        self.root = scratch / "caches"
        self.root.mkdir()
        self.warm = self.new("warm")

    def new(self, name: str) -> Path:
        return Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.root))


def one_run(
    variant: Variant, targets: list[Path], scratch: Path, caches: Caches, edits: Edits, n: int
) -> Run:
    """One sample of ``variant``: a run per target, wall and CPU summed, the largest RSS."""
    cache = caches.warm
    if variant.cache == "cold" or variant.extra:
        cache = caches.new("cold")
    env = {"XDG_CACHE_HOME": str(cache)} if variant.cache else {}
    if variant.change:
        edits.apply(n)
    runs, counts, verdicts = [], [], []
    try:
        for target in targets:
            runs.append(run_once(variant.tool, target, scratch, env, variant.extra))
            counts.append(counts_of(variant.tool.name, runs[-1].stdout))
            if variant.tool.name == "apc":
                verdicts.append(apc_verdict(runs[-1].stdout))
    finally:
        if variant.change:
            edits.restore()
        if cache != caches.warm:
            if variant.extra and any(cache.iterdir()):
                print(f"NOTE: {variant.key} wrote to its cache folder")
            shutil.rmtree(cache, ignore_errors=True)
    last = runs[-1]
    return Run(
        sum(r.seconds for r in runs),
        sum(r.cpu for r in runs),
        next((r.returncode for r in runs if r.returncode), 0),
        max(r.peak_mib for r in runs),
        last.stdout,
        last.stderr,
        None if None in (c[0] for c in counts) else sum(c[0] or 0 for c in counts),
        None if None in (c[1] for c in counts) else sum(c[1] or 0 for c in counts),
        combined(verdicts) if verdicts and None not in verdicts else None,
    )


def apc_verdict(stdout: Path) -> Verdict | None:
    try:
        return verdict(stdout.read_bytes())
    except SystemExit:
        return None


def combined(verdicts: Sequence[Verdict | None]) -> Verdict:
    """One verdict of several runs (per-repo mode): counts added, digests digested in order."""
    if len(verdicts) == 1 and verdicts[0]:
        return verdicts[0]
    rules: Counter[str] = Counter()
    for v in verdicts:
        rules.update(dict(v.rules) if v else {})
    digest = hashlib.sha256("".join(v.digest for v in verdicts if v).encode()).hexdigest()
    total = sum(v.findings for v in verdicts if v)
    return Verdict(total, tuple(sorted(rules.items())), digest)


def measure(
    variants: list[Variant],
    targets: list[Path],
    count: int,
    scratch: Path,
    edits: Edits,
    check: list[Variant],
) -> bool | None:
    """``count`` rounds over ``variants`` (one run of each per round, so the load weighs on all),
    after one warm-up of each tool (page cache, .pyc; for apc it fills the warm cache).

    In per-repo mode a sample is one run per repository folder, summed. The verdict of each
    apc run is kept; on the last round the changed tree is also judged cold (``check``).
    Returns whether apc's warm-up wrote to its cache folder (None: no apc)."""
    caches = Caches(scratch)
    written = None
    try:
        warmed: set[str] = set()
        for variant in variants:
            if variant.tool.command and variant.tool.name not in warmed:
                warmed.add(variant.tool.name)
                warm = Variant("warm-up", variant.tool, "warm" if variant.cache else "")
                run = one_run(warm, targets, scratch, caches, edits, -1)
                variant.filled = run.verdict
                if variant.tool.name == "apc":
                    written = any(caches.warm.iterdir())
        for n in range(count):
            for variant in variants:
                if not variant.tool.command:
                    continue
                run = one_run(variant, targets, scratch, caches, edits, n)
                variant.runs.append(run)
                if run.verdict:
                    variant.verdicts.append(run.verdict)
        for variant in check:  # the last edit, judged from an empty cache
            edits.apply(count - 1)
            try:
                variant.runs.append(one_run(variant, targets, scratch, caches, edits, count - 1))
                if v := variant.runs[-1].verdict:
                    variant.verdicts.append(v)
            finally:
                edits.restore()
    finally:
        edits.restore()
        shutil.rmtree(caches.root, ignore_errors=True)
    for variant in variants:
        variant.timing = summarise(variant, count)
    return written


def summarise(variant: Variant, count: int) -> Timing:
    tool = variant.tool
    timing = Timing(variant.key, tool.version, shlex.join([*(tool.command or []), *variant.extra]))
    if not tool.command:
        timing.problem = tool.note
        return timing
    runs = variant.runs[:count]
    timing.runs = len(runs)
    timing.returncodes = [r.returncode for r in runs]
    timing.median_s = statistics.median(r.seconds for r in runs)
    timing.min_s = min(r.seconds for r in runs)
    timing.cpu_s = statistics.median(r.cpu for r in runs)
    timing.peak_rss_mib = max(r.peak_mib for r in runs)
    last = runs[-1]
    timing.problem = problem_of(last.returncode, last.stdout, last.stderr)
    timing.findings, timing.files_reported = last.findings, last.files_seen
    return timing


# --- report ------------------------------------------------------------------------------------


def ratio(a: Timing | None, b: Timing | None) -> float | None:
    if not a or not b or not a.median_s or not b.median_s:
        return None
    return a.median_s / b.median_s


def cpu_ratio(a: Timing | None, b: Timing | None) -> str:
    if not a or not b or not a.cpu_s or not b.cpu_s:
        return "n/a"
    return f"{a.cpu_s / b.cpu_s:.2f}x"


def report(timings: dict[str, Timing], files: int, mode: str, cache: str, start: str) -> list[str]:
    lines = [f"staged files: {files}   mode: {mode}   apc cache: {cache}", f"at start: {start}"]
    lines += [note] if (note := inherited_switches()) else []
    lines.append("")
    head = f"{'tool':<19} {'version':<18} {'runs':>4} {'median s':>9} {'min s':>7} {'cpu s':>7} "
    head += f"{'files/s':>8} "
    lines.append(head + f"{'peak RSS':>9} {'findings':>8} {'files seen':>10}  note")
    for t in timings.values():
        if t.median_s is None:
            lines.append(f"{t.tool:<19} {t.version[:18]:<18} {'-':>4}  {t.problem}")
            continue
        rate = files / t.median_s
        seen = "" if t.files_reported is None else str(t.files_reported)
        lines.append(
            f"{t.tool:<19} {t.version[:18]:<18} {t.runs:>4} {t.median_s:>9.3f} {t.min_s:>7.3f} "
            f"{t.cpu_s:>7.3f} {rate:>8.0f} {t.peak_rss_mib:>7.1f}Mi {t.findings!s:>8} {seen:>10}"
            f"  {t.problem}"
        )
    lines += ["", f"at end: {machine_load()}", ""]
    cold, warm, change, nocache = (
        timings.get(k) for k in ("apc cold", "apc warm", "apc 10-file change", "apc --no-cache")
    )
    agnix, skillsaw = timings.get("agnix"), timings.get("skillsaw")
    broken = bool(cold and cold.problem)
    note = "" if "written" in cache or "available (" in cache else " (no cache: warm = cold)"
    for label, a, b, target, most in (
        ("apc cold / agnix", cold, agnix, APC_TARGET, True),
        ("apc warm / agnix", warm, agnix, WARM_TARGET, True),
        ("apc 10-file change / apc warm (reference)", change, warm, None, True),
        ("apc --no-cache / agnix (reference)", nocache, agnix, None, True),
        ("skillsaw / apc cold", skillsaw, cold, SKILLSAW_TARGET, False),
        ("skillsaw / agnix (reference)", skillsaw, agnix, None, False),
    ):
        if a is None or b is None:
            continue
        line = verdict_line(label, ratio(a, b), None if broken else target, at_most=most)
        lines.append(f"{line}, cpu {cpu_ratio(a, b)}{note if a is warm else ''}")
    lines.append("(agnix uses both cores: compare the wall ratios for the targets, CPU for work)")
    if broken and cold:
        lines.append(
            f"note: apc did not complete ({cold.problem}); its time is only the time to fail, "
            f"so the apc ratios are not judged against the targets"
        )
    return lines


def machine_load() -> str:
    """CPUs and load average: the timings are only as quiet as the machine was."""
    return load()


def verdict_line(label: str, value: float | None, target: float | None, at_most: bool) -> str:
    if value is None:
        return f"{label}: n/a"
    if target is None:
        return f"{label}: {value:.2f}x"
    ok = value <= target if at_most else value >= target
    sign = "<=" if at_most else ">="
    return f"{label}: {value:.2f}x (target {sign} {target:g}x: {'met' if ok else 'NOT met'})"


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument(
        "--runs", type=positive, default=5, help="timed runs per tool (after 1 warm-up)"
    )
    parser.add_argument(
        "--skillsaw-runs",
        type=positive,
        default=None,
        help="timed runs for skillsaw (slow; default: --runs)",
    )
    parser.add_argument("--mode", choices=["tree", "per-repo"], default="tree")
    parser.add_argument(
        "--apc", help="command for apc (default: apc on PATH, else python -m apc_tools)"
    )
    parser.add_argument("--agnix", help="command for agnix (default: agnix on PATH)")
    parser.add_argument("--skillsaw", help="command for skillsaw (default: skillsaw on PATH)")
    parser.add_argument(
        "--only",
        action="append",
        choices=["apc", "agnix", "skillsaw"],
        help="run only these tools (repeatable)",
    )
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--keep", action="store_true", help="keep the staged tree (path printed)")
    options = parser.parse_args(argv)
    compile_apc()
    if not options.corpus.is_dir():
        print(f"corpus not found: {options.corpus}", file=sys.stderr)
        return 2
    scratch = Path(tempfile.mkdtemp(prefix="apc-bench-"))
    try:
        return run(options, scratch)
    finally:
        if options.keep:
            print(f"staged tree kept at {scratch / 'tree'}")
        else:
            shutil.rmtree(scratch, ignore_errors=True)


def run(options: argparse.Namespace, scratch: Path) -> int:
    tree, outputs = scratch / "tree", scratch / "outputs"
    outputs.mkdir(parents=True)
    per_repo = stage(options.corpus, tree)
    files = sum(per_repo.values())
    targets = [tree / name for name in per_repo] if options.mode == "per-repo" else [tree]
    start = machine_load()
    found = {t.name: t for t in tools(options) if not options.only or t.name in options.only}
    rounds: list[Variant] = []
    cache, no_cache = "-", False
    check: list[Variant] = []
    if "agnix" in found:
        rounds.append(Variant("agnix", found["agnix"]))
    if "apc" in found:
        apc = found["apc"]
        no_cache = bool(apc.command) and has_no_cache([*(apc.command or [])], "validate", apc.env)
        rounds += [
            Variant("apc cold", apc, "cold"),
            Variant("apc warm", apc, "warm"),
            Variant("apc 10-file change", apc, "warm", change=True),
        ]
        if no_cache:
            rounds.append(Variant("apc --no-cache", apc, "cold", extra=("--no-cache",)))
        check = [Variant("apc 10-file change, cold", apc, "cold", change=True)]
    edits = Edits(tree)
    written = measure(rounds, targets, options.runs, outputs, edits, check)
    if "apc" in found:
        cache = cache_state(no_cache, written)
    slow = [Variant("skillsaw", found["skillsaw"])] if "skillsaw" in found else []
    measure(slow, targets, options.skillsaw_runs or options.runs, outputs, edits, [])
    timings = {v.key: v.timing for v in rounds + slow if v.timing}
    print("\n".join(report(timings, files, options.mode, cache, start)))
    apc_rows = [v for v in rounds if v.tool.name == "apc"]
    same = agree(apc_rows, check, edits)
    if options.json:
        data = {
            "files": files,
            "per_repo": per_repo,
            "mode": options.mode,
            "apc_cache": cache,
            "load_start": start,
            "load_end": machine_load(),
            "verdicts_identical": same,
            "timings": {k: asdict(v) for k, v in timings.items()},
        }
        options.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0 if same else 1


def agree(rows: list[Variant], check: list[Variant], edits: Edits) -> bool:
    """apc's verdicts: cold, warm and --no-cache all alike; the 10-file change warm alike with
    the same changed tree judged cold. Prints MISMATCH when not."""
    if not rows:
        return True
    verdicts = {f"{row.key} warm-up": v for row in rows if (v := row.filled)}
    for row in rows:
        if not row.change:
            verdicts.update({f"{row.key} {n + 1}": v for n, v in enumerate(row.verdicts)})
    same = same_verdicts("apc validate: cold / warm / --no-cache", verdicts)
    changed = next((r for r in rows if r.change), None)
    if changed and changed.verdicts and check and check[0].verdicts:
        same &= same_verdicts(
            f"apc validate: after editing {len(edits.paths)} files, warm / cold",
            {
                "10-file change, warm": changed.verdicts[-1],
                "10-file change, cold": check[0].verdicts[-1],
            },
        )
    return same


if __name__ == "__main__":
    sys.exit(main())
