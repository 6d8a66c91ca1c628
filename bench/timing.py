"""What the benchmarks share: whole-process timing (wall and the child's own CPU), medians, the
machine's load, apc's verdict from its JSON report, and whether an apc has a result cache.

A verdict is everything apc reported: the findings (each as its whole JSON object, compared as a
multiset) and the summary. Two runs agree when their verdicts are equal; a benchmark prints a
``MISMATCH`` line when they do not, because a faster run that says something else is not the
same program any more.
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Sample:
    """One whole-process run: wall seconds, CPU seconds (user+sys of the child), exit status,
    peak RSS (MiB) and what it printed."""

    wall: float
    cpu: float
    code: int
    rss_mib: float
    stdout: bytes
    stderr: bytes


# apc's switches that would make a cold run warm or bypass what is measured: never inherited;
# a benchmark sets them itself where it means to.
SWITCHES = ("APC_NO_CACHE", "APC_PREFILTER")


def child_env(env: Mapping[str, str | None] | None = None) -> dict[str, str]:
    """The environment of a timed child: ours without apc's switches, then ``env`` (a None
    value removes the variable)."""
    merged: dict[str, str | None] = {**os.environ, "NO_COLOR": "1"}
    merged.update(dict.fromkeys(SWITCHES))
    merged.update(env or {})
    return {k: v for k, v in merged.items() if v is not None}


def inherited_switches() -> str:
    """A note naming apc's switches set in our environment (they are not passed on)."""
    found = [f"{k}={os.environ[k]}" for k in SWITCHES if k in os.environ]
    return f"  NOTE: not passed to apc: {', '.join(found)}" if found else ""


def run_child(
    command: Sequence[str],
    cwd: Path | None = None,
    env: Mapping[str, str | None] | None = None,
    ok: Sequence[int] = (0, 1),
) -> Sample:
    """Run ``command`` once and time it; exit with a message when its status is not in ``ok``.

    CPU and RSS are the child's own (``os.wait4``), not the cumulative ``RUSAGE_CHILDREN``."""
    full_env = child_env(env)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen(
            list(command), cwd=cwd, env=full_env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
        )
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - start
        child.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        sample = Sample(
            wall,
            usage.ru_utime + usage.ru_stime,
            code,
            usage.ru_maxrss / 1024,
            out.read(),
            err.read(),
        )
    if code not in ok:
        tail = sample.stderr.decode(errors="replace")[-800:]
        raise SystemExit(f"{' '.join(command)} (in {cwd}): exit {code}\n{tail}")
    return sample


@dataclass
class Series:
    """The samples of one measure."""

    name: str
    samples: list[Sample] = field(default_factory=list)

    @property
    def wall(self) -> float:
        return statistics.median(s.wall for s in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(s.cpu for s in self.samples)

    @property
    def best(self) -> float:
        return min(s.wall for s in self.samples)


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load avg {one:.2f} / {five:.2f} / {fifteen:.2f} (1/5/15 min, {os.cpu_count()} cpus)"


@dataclass(frozen=True)
class Verdict:
    """What apc reported: the number of findings, per rule, and a digest of all of it."""

    findings: int
    rules: tuple[tuple[str, int], ...]
    digest: str

    def __str__(self) -> str:
        rules = ", ".join(f"{rule} {n}" for rule, n in self.rules) or "none"
        return f"{self.findings} findings ({rules}) [{self.digest[:12]}]"


def verdict(stdout: bytes) -> Verdict:
    """The verdict of an apc ``--format json`` report (a clear error when it is not one)."""
    try:
        data = json.loads(stdout)
        findings = data["findings"]
        summary = data.get("summary")
    except (ValueError, KeyError, TypeError) as exc:
        head = stdout[:300].decode(errors="replace")
        raise SystemExit(f"apc printed no JSON report ({exc}): {head!r}") from None
    items = sorted(json.dumps(f, sort_keys=True) for f in findings)
    digest = hashlib.sha256(
        json.dumps([items, summary], sort_keys=True).encode("utf-8")
    ).hexdigest()
    rules = Counter(str(f.get("rule")) for f in findings)
    return Verdict(len(findings), tuple(sorted(rules.items())), digest)


def same_verdicts(label: str, verdicts: Mapping[str, Verdict]) -> bool:
    """Print the verdict of each run kind; a loud MISMATCH line when they are not all equal."""
    distinct = set(verdicts.values())
    if len(distinct) <= 1:
        shown = next(iter(distinct)) if distinct else "no runs"
        kinds = Counter(n.rsplit(" ", 1)[0] if n[-1:].isdigit() else n for n in verdicts)
        runs = ", ".join(kind if n == 1 else f"{kind} x{n}" for kind, n in kinds.items())
        print(f"  verdict ({label}): identical in {len(verdicts)} runs ({runs}): {shown}")
        return True
    print(f"  MISMATCH ({label}): the verdicts differ")
    for name, value in verdicts.items():
        print(f"    MISMATCH {name}: {value}")
    return False


def has_no_cache(apc: Sequence[str], subcommand: str, env: Mapping[str, str] | None = None) -> bool:
    """Whether ``apc SUBCOMMAND`` takes ``--no-cache`` (from its ``--help``)."""
    done = subprocess.run(
        [*apc, subcommand, "--help"],
        capture_output=True,
        text=True,
        env=child_env(env),
    )
    return "--no-cache" in done.stdout


def cache_state(flag: bool, written: bool | None) -> str:
    """What the header says about apc's cache: the --no-cache flag, and whether the warm-up
    wrote anything under its XDG_CACHE_HOME (None: not known yet)."""
    if flag:
        state = "available (--no-cache)"
    elif written:
        state = "written to XDG_CACHE_HOME, but no --no-cache flag"
    else:
        state = "not available"
    if written is False and flag:
        state += ", but the warm-up wrote nothing to XDG_CACHE_HOME"
    return state


def ratio_line(name: str, value: float, cpu: float, target: float | None, note: str = "") -> str:
    """``name: 1.23x wall (0.98x cpu), target <= 1.5x: met``."""
    text = f"  {name}: {value:.2f}x wall ({cpu:.2f}x cpu)"
    if target is not None:
        text += f", target <= {target:g}x: {'met' if value <= target else 'NOT met'}"
    return text + (f" {note}" if note else "")
