"""The wild corpus of issue 29: `apc boundary` on public repositories that committed agent state.

Each ``bench/wild/<owner>+<name>.json`` names one public repository, the commit it is pinned by,
whether it is a ``leak`` (it committed an agent tool's home, state or credentials) or ``clean``
(it holds agent-looking material on purpose: project config folders, docs), the tool, the paths
that make it so and a note. For each manifest whose snapshot is under the mirrors folder
(``/work/.mirror/<owner>+<name>/repo``, a bare git directory brought by the search tool's
``fetch``: fetch them first; this script never uses the network), the repository is cloned from
the snapshot into a temporary folder (``git clone --no-hardlinks --no-checkout``), the pinned
commit checked out, and every apc given by ``--apc`` (repeatable, side by side: e.g. main's before
a change, installed in another venv, and the branch's) runs ``apc boundary --tracked --format
json`` and ``apc boundary --history --format json`` there, each with an empty cache of its own.

Printed per repository and apc: the errors of each mode, whether the gate fails (exit 1: ``FAIL``)
or passes (``pass``), and for a clean repository each error (a false alarm, with its rule and
path). The totals count the leak repositories the gate fails in either mode and the clean
repositories with any error. ``--json FILE`` writes every result. Not run by CI.

    python bench/wild_gate.py --apc .venv-before/bin/apc --apc .venv/bin/apc
    python bench/wild_gate.py --apc .venv/bin/apc --only hackclub+club-dashboard --show
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODES = ("--tracked", "--history")


@dataclass
class Run:
    code: int
    errors: int
    rules: list[str] = field(default_factory=list)
    findings: list[dict[str, object]] = field(default_factory=list)
    note: str = ""


def _git(*args: str, cwd: Path | None = None) -> None:
    subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, env=_quiet_env(), timeout=600
    )


def _quiet_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "APC_"))}
    env["GIT_TERMINAL_PROMPT"] = "0"
    env["GIT_CONFIG_NOSYSTEM"] = "1"
    return env


def _absent(repo: Path) -> list[str]:
    """The paths (at any commit) whose blobs the snapshot lacks (files of 4 MiB and more)."""
    listed = subprocess.run(
        [
            "git",
            "log",
            "--all",
            "--root",
            "--raw",
            "--no-abbrev",
            "--no-renames",
            "--format=",
            "-z",
        ],
        cwd=repo,
        check=True,
        capture_output=True,
        env=_quiet_env(),
        timeout=600,
    ).stdout.decode("utf-8", "surrogateescape")
    by_oid: dict[str, set[str]] = {}
    fields = listed.split("\0")
    for head, path in zip(fields[::2], fields[1::2], strict=False):
        parts = head.strip().split()
        if len(parts) >= 5 and parts[1] != "160000" and set(parts[3]) != {"0"}:
            by_oid.setdefault(parts[3], set()).add(path)
    checked = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=repo,
        input="\n".join(by_oid).encode(),
        check=True,
        capture_output=True,
        env=_quiet_env(),
        timeout=600,
    ).stdout.decode("ascii", "replace")
    missing = [line.split()[0] for line in checked.splitlines() if line.endswith(" missing")]
    return sorted({path for oid in missing for path in by_oid.get(oid, ())})


def _policy(absent: list[str], into: Path) -> Path:
    """A policy (``--config``) that excludes the absent blobs' paths, glob characters as ``?``."""
    globs = ["".join("?" if c in "*?[]{}\\" else c for c in p) for p in absent]
    into.write_text("version: 1\nexclude: " + json.dumps(globs) + "\n", encoding="utf-8")
    return into


def _boundary(apc: str, repo: Path, mode: str, timeout: int, config: Path) -> Run:
    with tempfile.TemporaryDirectory(prefix="apc-wild-cache-") as cache:
        env = _quiet_env() | {"XDG_CACHE_HOME": cache}
        command = [apc, "boundary", mode, "--format", "json", "--no-progress"]
        try:
            done = subprocess.run(
                [*command, "--config", str(config)],
                cwd=repo,
                capture_output=True,
                env=env,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Run(-1, 0, note=f"timed out after {timeout} s")
    try:
        report = json.loads(done.stdout)
    except ValueError:
        tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        return Run(done.returncode, 0, note=tail[0][:200])
    findings = [f for f in report.get("findings", []) if f.get("severity") == "error"]
    rules = sorted({str(f.get("rule")) for f in findings})
    return Run(done.returncode, int(report["summary"]["error"]), rules, findings)


def _checkout(mirror: Path, commit: str, into: Path) -> None:
    _git("clone", "--quiet", "--no-hardlinks", "--no-checkout", str(mirror), str(into))
    _git("-c", "advice.detachedHead=false", "checkout", "--quiet", commit, cwd=into)


def _verdict(run: Run) -> str:
    if run.note:
        return f"exit {run.code} ({run.note})"
    gate = "FAIL" if run.code == 1 else "pass" if run.code == 0 else f"exit {run.code}"
    return f"{gate} {run.errors:>4} err {','.join(run.rules)}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--apc", action="append", required=True, help="an apc (repeatable)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--manifests", type=Path, default=HERE / "wild")
    parser.add_argument("--only", action="append", default=[], help="owner+name (repeatable)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per apc run")
    parser.add_argument("--show", action="store_true", help="print every error finding")
    parser.add_argument("--json", type=Path, help="write every result to this file")
    args = parser.parse_args(argv)

    apcs = [str(Path(a).resolve()) if os.sep in a else a for a in args.apc]
    manifests = sorted(args.manifests.glob("*.json"))
    if args.only:
        manifests = [m for m in manifests if m.stem in args.only]
    totals = {a: {"leak": 0, "caught": 0, "clean": 0, "alarms": 0} for a in apcs}
    results: list[dict[str, object]] = []
    skipped: list[str] = []
    for manifest in manifests:
        meta = json.loads(manifest.read_text(encoding="utf-8"))
        mirror = args.mirrors / manifest.stem / "repo"
        if not mirror.is_dir():
            skipped.append(manifest.stem)
            continue
        kind = meta["kind"]
        print(f"\n{meta['repo']} @ {meta['commit'][:12]}  [{kind}: {meta['tool']}]")
        with tempfile.TemporaryDirectory(prefix="apc-wild-") as tmp:
            repo = Path(tmp) / "repo"
            try:
                _checkout(mirror, meta["commit"], repo)
            except subprocess.CalledProcessError as exc:
                print(f"  cannot check out: {exc.stderr.decode('utf-8', 'replace').strip()}")
                continue
            absent = _absent(repo)
            config = _policy(absent, Path(tmp) / "policy.yaml")
            if absent:
                print(f"  {len(absent)} paths whose blobs the snapshot lacks (>= 4 MiB): excluded")
            for apc in apcs:
                runs = {mode: _boundary(apc, repo, mode, args.timeout, config) for mode in MODES}
                line = "  ".join(f"{m[2:]}: {_verdict(r)}" for m, r in runs.items())
                print(f"  {apc}\n    {line}")
                failed = any(r.code == 1 for r in runs.values())
                total = totals[apc]
                total[kind] = total.get(kind, 0) + 1
                if kind == "leak" and failed:
                    total["caught"] += 1
                if kind == "clean" and any(r.errors for r in runs.values()):
                    total["alarms"] += 1
                if kind == "clean" or args.show:
                    seen: set[tuple[object, object]] = set()
                    for run in runs.values():
                        for f in run.findings:
                            if (f.get("rule"), f.get("path")) not in seen:
                                seen.add((f.get("rule"), f.get("path")))
                                alarm = "false alarm: " if kind == "clean" else ""
                                print(f"      {alarm}{f.get('rule')} {f.get('path')}")
                results.append(
                    {
                        "repo": meta["repo"],
                        "commit": meta["commit"],
                        "kind": kind,
                        "apc": apc,
                        "absent": len(absent),
                        **{
                            m[2:]: {"exit": r.code, "errors": r.errors, "rules": r.rules}
                            for m, r in runs.items()
                        },
                    }
                )
    print("\nTotals")
    for apc, total in totals.items():
        print(
            f"  {apc}: leak repositories failed {total['caught']}/{total['leak']}; "
            f"clean repositories with an error {total['alarms']}/{total['clean']}"
        )
    if skipped:
        print(f"  not under {args.mirrors} (fetch them first): {', '.join(skipped)}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
