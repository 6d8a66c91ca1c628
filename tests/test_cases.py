"""Every rule has a failing and a passing case under tests/cases/, and each behaves as labelled.

Layout: tests/cases/{valid,invalid}/<family>/<RULE-ID>[-suffix]/. An ``invalid`` case must raise
its rule; a ``valid`` case must not raise it and must have no error-level finding. A case folder
is a project tree, copied to a temporary folder (outside any git work tree) and validated. An
optional ``case.json`` changes what is run:

- ``{"paths": ["a/SKILL.md"], "profile": "agentskills"}`` validates those files with a profile;
- ``{"expect": "warning"}`` in a ``valid`` case: a form the reading tool accepts, which the rule
  still reports, but only at that severity (the same file under ``--profile agentskills`` or
  inside ``.apc/`` is then an ``invalid`` case);
- ``{"generate": {"AGENTS.md": 1100000}}`` writes a file of that many bytes (``"fifo"``: a FIFO)
  before the run, for inputs that do not belong in git;
- ``{"links": {"AGENTS.md": "/etc/hostname"}}`` makes those symlinks before the run (a link in
  git would be a copy of its target in the sdist, and the build machine's file at that);
- ``{"command": "boundary", "without": "zstd"}`` runs the gate as where no zstd module imports
- ``{"command": "repair-check", "wire": "anthropic", "file": "history.json"}`` runs the provider
  conformance checker and the repair report on a history (a JSON array of wire records);
- ``{"command": "boundary", ...}`` commits the tree into a fresh git repository and runs the
  boundary gate on it (see tests/boundary/cases.py for the other keys);
- ``{"command": "repair", "file": "h.jsonl", "args": {"skip_bad_lines": true}}`` runs
  ``apc repair`` on a history file with those options (the repaired text is discarded);
- ``{"command": "repair-project", "sessions": {"claude-code": "s.jsonl"}, "args": {...}}``
  runs ``apc repair --project <case> --all`` with the session files moved into the agents'
  stores of a home folder outside the project.
"""

from __future__ import annotations

import io
import json
import os
import shutil
from pathlib import Path

import pytest

from apc_tools.catalog import registry
from apc_tools.findings import Finding, Severity

CASES = Path(__file__).parent / "cases"


def _case_dirs(kind: str) -> list[Path]:
    base = CASES / kind
    if not base.is_dir():
        return []
    return sorted(
        d for family in base.iterdir() if family.is_dir() for d in family.iterdir() if d.is_dir()
    )


def rule_of(case: Path) -> str:
    return case.name.split("-")[0].upper()


def case_spec(case: Path) -> dict[str, object]:
    spec_file = case / "case.json"
    return json.loads(spec_file.read_text()) if spec_file.exists() else {}


def run_case(case: Path, tmp_path: Path) -> list[Finding]:
    work = tmp_path / "case"
    shutil.copytree(case, work, symlinks=True)
    spec_file = work / "case.json"
    spec = json.loads(spec_file.read_text()) if spec_file.exists() else {}
    if spec_file.exists():
        spec_file.unlink()
    for rel, target in spec.get("links", {}).items():
        (work / rel).symlink_to(target)
    for rel, what in spec.get("generate", {}).items():
        target = work / rel
        if what == "fifo":
            os.mkfifo(target)
        else:
            target.write_bytes(b"# Generated\n" + b"x" * (int(what) - 12))
    command = spec.get("command", "validate")
    if command == "validate":
        from apc_tools.contract.validate import validate

        targets = [work / p for p in spec.get("paths", [])] or [work]
        result = validate(targets, profile=spec.get("profile", "default"), cwd=work)
        return list(result.findings)
    if command == "repair-check":
        from apc_tools.runtime.conformance import findings_for as check_findings
        from apc_tools.runtime.repair import findings_for as repair_findings

        file = work / spec.get("file", "history.json")
        history = json.loads(file.read_text(encoding="utf-8"))
        wire = spec["wire"]
        return check_findings(history, wire, file.name) + repair_findings(history, wire, file.name)
    if command == "repair":
        from apc_tools.runtime.command import run_repair

        outcome = run_repair(
            work / spec.get("file", "history.jsonl"), **spec.get("args", {}), stdout=io.BytesIO()
        )
        return list(outcome.result.findings)
    if command == "boundary":
        from tests.boundary.cases import run_boundary_case

        return run_boundary_case(work, spec)
    if command == "repair-project":
        return _repair_project(work, tmp_path / "home", spec)
    raise AssertionError(f"{case}: unknown command {command!r}")


def _repair_project(work: Path, home: Path, spec: dict[str, object]) -> list[Finding]:
    """``apc repair --project work --all``, with the case's session files placed in the agents'
    stores under ``home`` (outside the project), quiet (an old mtime)."""
    from apc_tools.cli.repair import repair_all
    from apc_tools.runtime.sessions.discover import claude_slug

    sessions = spec.get("sessions", {})
    assert isinstance(sessions, dict)
    for tool, name in sessions.items():
        assert tool == "claude-code", tool
        store = home / ".claude" / "projects" / claude_slug(work.resolve())
        store.mkdir(parents=True, exist_ok=True)
        (work / name).rename(store / name)
        os.utime(store / name, (1_700_000_000, 1_700_000_000))
    args = spec.get("args", {})
    assert isinstance(args, dict)
    result = repair_all(
        work,
        check_only=bool(args.get("check_only")),
        in_place=bool(args.get("in_place")),
        home=home,
    )
    return list(result.findings)


@pytest.mark.parametrize("case", _case_dirs("invalid"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_invalid_case_raises_its_rule(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if case_spec(case).get("without") == "zstd":  # as where no zstd module can be imported
        from apc_tools.boundary import disguise

        monkeypatch.setattr(disguise, "zstd_module", lambda: None)
    found = run_case(case, tmp_path)
    rule = rule_of(case)
    assert rule in registry(), f"{case.name}: no rule {rule} in the registry"
    assert any(f.rule == rule for f in found), [f"{f.location()} {f.rule}" for f in found]


@pytest.mark.parametrize("case", _case_dirs("valid"), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_valid_case_is_clean(case: Path, tmp_path: Path) -> None:
    found = run_case(case, tmp_path)
    rule = rule_of(case)
    assert rule in registry(), f"{case.name}: no rule {rule} in the registry"
    expect = case_spec(case).get("expect")
    own = {f.severity for f in found if f.rule == rule}
    assert own == ({Severity(str(expect))} if expect else set()), found
    assert not [f for f in found if f.severity is Severity.ERROR], found


def test_every_rule_has_a_passing_and_a_failing_case() -> None:
    invalid = {rule_of(c) for c in _case_dirs("invalid")}
    valid = {rule_of(c) for c in _case_dirs("valid")}
    missing = [
        f"{r.id} ({'no invalid case' if r.id not in invalid else 'no valid case'})"
        for r in registry()
        if r.id not in invalid or r.id not in valid
    ]
    assert not missing, missing
