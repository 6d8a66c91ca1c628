#!/usr/bin/env python3
"""Time `apc validate` against agnix and skillsaw on the corpus, in one run, on the same tree.

The corpus (default ../shared/corpus beside the checkout) is laid out in a temporary folder as
the peers expect it, one folder per source repository:

* VoltAgent ``categories/*/*.md`` (not README.md)  -> ``.claude/agents/``
* PatrickJS ``rules/*.mdc``                         -> ``.cursor/rules/``
* anthropics ``skills/*``                           -> ``.claude/skills/``
* every other file is copied unchanged; licence files and ``transcripts/`` are left out.

Each tool runs as a whole process (``time.perf_counter`` around the child), one warm-up run,
then the median of N runs. Peak RSS is the child's own ``ru_maxrss`` from ``os.wait4``.
``--mode tree`` (default) runs each tool once over the whole staged tree; ``--mode per-repo``
runs it once per repository folder and sums the medians (how agent-config-linters.md measured
agnix per repo). A tool that is missing or fails is reported, not fatal.

Targets: apc wall time <= 1.5x agnix (1.0x stretch), skillsaw >= 10x apc.

    python bench/validate_corpus.py [--corpus DIR] [--runs N] [--apc CMD] [--agnix CMD]
        [--skillsaw CMD] [--json OUT] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from installed import compile_apc

ROOT = Path(__file__).resolve().parent.parent
# ../shared/corpus beside the checkout (as in CI), else the team's shared folder.
CORPUS_CANDIDATES = (ROOT.parent / "shared" / "corpus", Path("/work/shared/corpus"))
DEFAULT_CORPUS = next((p for p in CORPUS_CANDIDATES if p.is_dir()), CORPUS_CANDIDATES[0])
LICENCES = {"LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING", "NOTICE"}
SKIP_DIRS = {"transcripts"}
APC_TARGET = 1.5
SKILLSAW_TARGET = 10.0


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
    path = shutil.which(name)
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


def run_once(tool: Tool, target: Path, out_dir: Path) -> Run:
    """Run the tool once, timing the whole process."""
    assert tool.command
    argv = [*tool.command, *(a.replace("{dir}", str(target)) for a in tool.args)]
    stdout, stderr = out_dir / f"{tool.name}.out", out_dir / f"{tool.name}.err"
    env = {**os.environ, **tool.env, "NO_COLOR": "1"}
    with stdout.open("wb") as out, stderr.open("wb") as err:
        start = time.perf_counter()
        child = subprocess.Popen(argv, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
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


def measure(tool: Tool, targets: list[Path], count: int, scratch: Path) -> Timing:
    timing = Timing(tool.name, tool.version, shlex.join(tool.command or []))
    if not tool.command:
        timing.problem = tool.note
        return timing
    medians, mins, cpus, rss, findings, files = [], [], [], 0.0, 0, 0
    for target in targets:
        run_once(tool, target, scratch)  # warm-up (page cache, .pyc)
        runs = [run_once(tool, target, scratch) for _ in range(count)]
        rss = max(rss, *(r.peak_mib for r in runs))
        timing.returncodes += [r.returncode for r in runs]
        last = runs[-1]
        timing.problem = timing.problem or problem_of(last.returncode, last.stdout, last.stderr)
        found, checked = counts_of(tool.name, last.stdout)
        findings += found or 0
        files += checked or 0
        medians.append(statistics.median(r.seconds for r in runs))
        mins.append(min(r.seconds for r in runs))
        cpus.append(statistics.median(r.cpu for r in runs))
    timing.runs, timing.median_s, timing.min_s = count, sum(medians), sum(mins)
    timing.cpu_s, timing.peak_rss_mib, timing.findings = sum(cpus), rss, findings
    timing.files_reported = files or None
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


def report(timings: dict[str, Timing], files: int, mode: str, load: str) -> list[str]:
    lines = [f"staged files: {files}   mode: {mode}   {load}", ""]
    head = f"{'tool':<9} {'version':<18} {'runs':>4} {'median s':>9} {'min s':>7} {'cpu s':>7} "
    head += f"{'files/s':>8} "
    lines.append(head + f"{'peak RSS':>9} {'findings':>8} {'files seen':>10}  note")
    for t in timings.values():
        if t.median_s is None:
            lines.append(f"{t.tool:<9} {t.version[:18]:<18} {'-':>4}  {t.problem}")
            continue
        rate = files / t.median_s
        seen = "" if t.files_reported is None else str(t.files_reported)
        lines.append(
            f"{t.tool:<9} {t.version[:18]:<18} {t.runs:>4} {t.median_s:>9.3f} {t.min_s:>7.3f} "
            f"{t.cpu_s:>7.3f} {rate:>8.0f} {t.peak_rss_mib:>7.1f}Mi {t.findings!s:>8} {seen:>10}"
            f"  {t.problem}"
        )
    lines.append("")
    apc, agnix, skillsaw = (timings.get(k) for k in ("apc", "agnix", "skillsaw"))
    apc_target = None if apc and apc.problem else APC_TARGET
    skillsaw_target = None if apc and apc.problem else SKILLSAW_TARGET
    lines += verdict("apc / agnix", ratio(apc, agnix), apc_target, at_most=True)
    lines += verdict("skillsaw / apc", ratio(skillsaw, apc), skillsaw_target, at_most=False)
    lines += verdict("skillsaw / agnix (reference)", ratio(skillsaw, agnix), None, at_most=False)
    lines += [
        f"cpu-time ratios (less sensitive to a busy machine; agnix may use several threads): "
        f"apc / agnix {cpu_ratio(apc, agnix)}, skillsaw / apc {cpu_ratio(skillsaw, apc)}"
    ]
    if apc and apc.problem:
        lines.append(
            f"note: apc did not complete ({apc.problem}); its time is only the time to fail, "
            f"so the apc ratios are not judged against the targets (apc <= {APC_TARGET:g}x "
            f"agnix, skillsaw >= {SKILLSAW_TARGET:g}x apc)"
        )
    return lines


def machine_load() -> str:
    """CPUs and load average at the end: the timings are only as quiet as the machine was."""
    one, five, _ = os.getloadavg()
    return f"cpus: {os.cpu_count()}   load avg 1/5 min: {one:.2f} / {five:.2f}"


def verdict(label: str, value: float | None, target: float | None, at_most: bool) -> list[str]:
    if value is None:
        return [f"{label}: n/a"]
    if target is None:
        return [f"{label}: {value:.2f}x"]
    ok = value <= target if at_most else value >= target
    sign = "<=" if at_most else ">="
    return [f"{label}: {value:.2f}x (target {sign} {target:g}x: {'met' if ok else 'NOT met'})"]


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
    timings: dict[str, Timing] = {}
    for tool in tools(options):
        if options.only and tool.name not in options.only:
            continue
        runs = (
            options.skillsaw_runs
            if tool.name == "skillsaw" and options.skillsaw_runs
            else options.runs
        )
        timings[tool.name] = measure(tool, targets, runs, outputs)
    print("\n".join(report(timings, files, options.mode, machine_load())))
    if options.json:
        data = {
            "files": files,
            "per_repo": per_repo,
            "mode": options.mode,
            "timings": {k: asdict(v) for k, v in timings.items()},
        }
        options.json.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
