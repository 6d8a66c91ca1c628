"""`apc validate`'s batch run: per-file Outcomes (contract/outcome.py) cached by content
(core/cache.py) and computed on several processes (core/pool.py) give exactly the findings of
the reference run (every file parsed in full in one process, ``batch=False``).

Real files and real SQLite databases; each test has its own ``XDG_CACHE_HOME``. The pool is
forced on small trees with ``APC_POOL_MIN_ITEMS`` / ``APC_POOL_WORKERS``.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.contract.validate import run_validate
from apc_tools.core import cache as store
from apc_tools.core import pool
from apc_tools.core.cache import Cache
from apc_tools.report.json_out import render_json
from tests.conftest import SHARED, needs_shared
from tests.test_cases import CASES, case_spec

VALIDATE_CASES = sorted(
    case
    for kind in ("valid", "invalid")
    for family in (CASES / kind).iterdir()
    for case in family.iterdir()
    if case.is_dir() and case_spec(case).get("command", "validate") == "validate"
)
ROOT = Path(__file__).resolve().parents[2]


def _prepare(case: Path, tmp_path: Path) -> tuple[Path, list[Path], str]:
    """The case's tree as tests/test_cases.py lays it out: (work folder, targets, profile)."""
    work = tmp_path / "case"
    shutil.copytree(case, work, symlinks=True)
    spec = case_spec(case)
    (work / "case.json").unlink(missing_ok=True)
    for rel, target in spec.get("links", {}).items():  # type: ignore[attr-defined]
        (work / rel).symlink_to(target)
    for rel, what in spec.get("generate", {}).items():  # type: ignore[attr-defined]
        if what == "fifo":
            os.mkfifo(work / rel)
        else:
            (work / rel).write_bytes(b"# Generated\n" + b"x" * (int(what) - 12))
    paths = spec.get("paths", [])
    targets = [work / p for p in paths] or [work]  # type: ignore[attr-defined]
    return work, targets, str(spec.get("profile", "default"))


def _json(targets: list[Path], work: Path, profile: str | None = None, **options: bool) -> str:
    outcome = run_validate(targets, profile=profile, cwd=work, **options)
    return render_json(outcome.result) + json.dumps([outcome.listed, outcome.skipped])


def _runs(targets: list[Path], work: Path, profile: str | None = None) -> dict[str, str]:
    return {
        "reference": _json(targets, work, profile, batch=False),
        "no-cache": _json(targets, work, profile, cache=False),
        "cold": _json(targets, work, profile),
        "warm": _json(targets, work, profile),
    }


def _same(runs: dict[str, str]) -> None:
    reference = runs["reference"]
    assert {name: text == reference for name, text in runs.items()} == dict.fromkeys(runs, True)


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_every_validate_case_same_cold_warm_and_without_cache(
    case: Path, tmp_path: Path, xdg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work, targets, profile = _prepare(case, tmp_path)
    runs = _runs(targets, work, profile)
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "2")  # and with the pool, whatever the tree's size
    monkeypatch.setenv(pool.WORKERS_ENV, "2")
    runs["pool"] = _json(targets, work, profile, cache=False)
    _same(runs)


def test_the_corpus_same_serial_pool_cold_and_warm(
    xdg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = SHARED / "corpus"
    needs_shared(corpus)
    runs = _runs([corpus], corpus)
    monkeypatch.setenv(pool.WORKERS_ENV, "1")
    runs["serial"] = _json([corpus], corpus, cache=False)
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "2")
    monkeypatch.setenv(pool.WORKERS_ENV, "3")
    runs["pool"] = _json([corpus], corpus, cache=False)
    _same(runs)
    assert json.loads(runs["warm"].split("\n}\n")[0] + "\n}")["summary"]["files"] > 500


def _tree(root: Path) -> Path:
    files = {
        "AGENTS.md": "# Project\n\nSee [the guide](docs/guide.md) and run `make test`.\n",
        "docs/guide.md": "# Guide\n",
        "src/app.py": "print('hello')\n",
        ".cursor/rules/python.mdc": '---\ndescription: Python style\nglobs: "src/**/*.py"\n'
        "alwaysApply: false\n---\nUse type hints.\n",
        ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill in PDF forms when "
        "the user asks for it.\n---\n# PDF\n",
        ".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: Reviews code\n---\n"
        "Review the diff.\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _rules(text: str) -> list[str]:
    return [f["rule"] for f in json.loads(text.split("\n}\n")[0] + "\n}")["findings"]]


def test_warm_run_after_edits_rechecks_the_file_and_every_cross_file_check(
    tmp_path: Path, xdg: Path
) -> None:
    root = _tree(tmp_path / "repo")
    first = _runs([root], root)
    _same(first)
    assert not {"AGM003", "RUL003", "SKL002"} & set(_rules(first["warm"]))

    (root / "docs" / "guide.md").unlink()  # AGENTS.md's link now dangles (a cross-file check)
    (root / "src" / "app.py").unlink()  # the rule's glob now matches nothing (dead-glob check)
    skill = root / ".claude/skills/pdf/SKILL.md"  # an edited, cached kind
    skill.write_text(skill.read_text().replace("name: pdf", "name: Pdf_Forms"), "utf-8")
    second = _runs([root], root)
    _same(second)
    rules = _rules(second["warm"])
    assert {"AGM003", "RUL003"} <= set(rules)
    assert any(r.startswith("SKL") for r in rules)

    (root / "docs" / "guide.md").write_text("# Guide again\n", "utf-8")  # and back
    (root / "src" / "app.py").write_text("print('back')\n", "utf-8")
    third = _runs([root], root)
    _same(third)
    assert not {"AGM003", "RUL003"} & set(_rules(third["warm"]))


def test_plans_read_the_imported_agents_of_a_cached_project_json(tmp_path: Path, xdg: Path) -> None:
    root = tmp_path / "repo"
    subprocess.run([sys.executable, "-m", "apc_tools", "init", str(root)], check=True)
    plan = root / ".apc/plans/p.md"
    plan.parent.mkdir(parents=True, exist_ok=True)
    plan.write_text(
        "---\ntitle: Ship it\nstatus: active\nowner: helper\ncreated: 2026-01-01\n---\n# Plan\n",
        "utf-8",
    )
    before = _runs([root], root)
    _same(before)
    assert "PLN001" in _rules(before["warm"])  # helper is no agent of the project
    project = root / ".apc/project.json"
    data = json.loads(project.read_text("utf-8"))
    data["agents"] = {"imported": ["helper"]}
    project.write_text(json.dumps(data, indent=2) + "\n", "utf-8")
    after = _runs([root], root)
    _same(after)
    assert "PLN001" not in _rules(after["warm"])


def test_a_policy_change_misses_and_the_result_follows_it(tmp_path: Path, xdg: Path) -> None:
    root = _tree(tmp_path / "repo")
    (root / "docs" / "guide.md").unlink()
    _same(_runs([root], root))
    with Cache.open("validate") as opened:
        stored = opened.count()
    assert stored >= 3  # the rule, the skill, the subagent (and the dead-glob findings)
    (root / ".apc-tools.yaml").write_text("version: 1\nseverity:\n  AGM003: info\n", "utf-8")
    runs = _runs([root], root)
    _same(runs)
    with Cache.open("validate") as opened:
        assert opened.count() >= 2 * stored - 1  # new keys: nothing read under the old policy
    found = json.loads(runs["warm"].split("\n}\n")[0] + "\n}")["findings"]
    assert [f["severity"] for f in found if f["rule"] == "AGM003"] == ["info"]


def test_a_damaged_cache_changes_nothing(tmp_path: Path, xdg: Path) -> None:
    root = _tree(tmp_path / "repo")
    reference = _json([root], root, batch=False)
    assert _json([root], root) == reference  # fills the cache
    database = store.database_path()
    with sqlite3.connect(database) as db:  # every stored value damaged
        db.execute("UPDATE entries SET value = X'7b22703a'")
    assert _json([root], root) == reference
    assert _json([root], root) == reference  # re-stored, then read back
    database.write_bytes(b"this is not a database" * 100)  # the file itself damaged
    for extra in ("-wal", "-shm"):
        database.with_name(database.name + extra).unlink(missing_ok=True)
    assert _json([root], root) == reference


def test_a_secret_is_never_stored(tmp_path: Path, xdg: Path) -> None:
    root = _tree(tmp_path / "repo")
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    agent = root / ".claude/agents/reviewer.md"
    agent.write_text(agent.read_text() + f"Use the token {token} to push.\n", "utf-8")
    rule = root / ".cursor/rules/python.mdc"
    rule.write_text(rule.read_text() + "password = 'Xq9#vLm2$Rt7wPz4'\n", "utf-8")
    runs = _runs([root], root)
    _same(runs)
    assert "SEC001" in _rules(runs["warm"])
    folder = store.database_path().parent
    stored = b"".join(p.read_bytes() for p in folder.iterdir() if p.is_file())
    assert stored  # the cache was written
    assert token.encode() not in stored
    assert b"Xq9#vLm2$Rt7wPz4" not in stored


def test_no_cache_flag_and_env_keep_the_cache_out(tmp_path: Path, xdg: Path) -> None:
    root = _tree(tmp_path / "repo")
    command = [sys.executable, "-m", "apc_tools", "validate", str(root), "--format", "json"]
    env = {**os.environ, "XDG_CACHE_HOME": str(xdg)}
    off = subprocess.run([*command, "--no-cache"], capture_output=True, env=env, cwd=ROOT)
    assert not store.database_path().exists()
    env_off = subprocess.run(command, capture_output=True, env={**env, "APC_NO_CACHE": "1"})
    assert not store.database_path().exists()
    cold = subprocess.run(command, capture_output=True, env=env, cwd=ROOT)
    assert store.database_path().exists()
    warm = subprocess.run(command, capture_output=True, env=env, cwd=ROOT)
    assert off.stdout == cold.stdout == warm.stdout
    assert json.loads(env_off.stdout)["summary"] == json.loads(warm.stdout)["summary"]
    assert off.returncode == cold.returncode == warm.returncode == env_off.returncode
