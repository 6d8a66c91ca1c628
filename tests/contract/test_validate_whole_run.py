"""`apc validate`'s whole-run result (contract/warm.py): an unchanged tree is answered from the
result cache without parsing or checking; any change of what the run depends on (a file's
content, the file list, a link target on disk, the policy) gives a fresh run.

Real git repositories and files, real SQLite databases; each test has its own
``XDG_CACHE_HOME``. Every answer is compared with the reference run (``batch=False``: every file
parsed in full in one process, no cache) on the same tree.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.contract import warm
from apc_tools.contract.listing import Layout, layout_of
from apc_tools.contract.validate import rooted, run_validate
from apc_tools.core import cache as store
from apc_tools.report.json_out import render_json
from tests.contract.test_validate_cache import VALIDATE_CASES, _prepare

KEYS = ("f", "n", "s", "k", "l", "x", "a")  # a stored Validation without its probes


def _text(found: warm.Validation) -> str:
    return render_json(found.result) + json.dumps([found.listed, found.skipped])


def _layout(targets: list[Path], work: Path) -> Layout:
    return layout_of(targets, work, warm.report_root(work.resolve()))


def _reference(targets: list[Path], work: Path, profile: str | None = None) -> str:
    layout = _layout(targets, work)
    return _text(rooted(run_validate(targets, profile=profile, cwd=work, batch=False), layout))


def _key(targets: list[Path], work: Path, profile: str | None = None) -> bytes | None:
    made = warm.gather(_layout(targets, work), profile=profile)
    return None if made is None else made[0]


def _hit(targets: list[Path], work: Path, profile: str | None = None) -> bool:
    return warm.lookup(_key(targets, work, profile)) is not None


def _run(targets: list[Path], work: Path, profile: str | None = None, **options: bool) -> str:
    return _text(warm.validate_tree(targets, profile=profile, cwd=work, **options))


@pytest.mark.parametrize("case", VALIDATE_CASES, ids=lambda c: f"{c.parent.parent.name}/{c.name}")
def test_every_validate_case_same_cold_warm_whole_and_without_cache(
    case: Path, tmp_path: Path, xdg: Path
) -> None:
    work, targets, profile = _prepare(case, tmp_path)
    reference = _reference(targets, work, profile)
    runs = {
        "no-cache": _run(targets, work, profile, cache=False),
        "cold": _run(targets, work, profile),
        "warm": _run(targets, work, profile),
        "warm again": _run(targets, work, profile),
    }
    assert {n: t == reference for n, t in runs.items()} == dict.fromkeys(runs, True)


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _repo(root: Path) -> Path:
    files = {
        "AGENTS.md": "# Project\n\nSee [the guide](docs/guide.md) and [notes](notes/local.md).\n",
        "docs/guide.md": "# Guide\n",
        "src/app.py": "print('hello')\n",
        ".gitignore": "notes/\n",
        ".cursor/rules/python.mdc": '---\ndescription: Python style\nglobs: "src/**/*.py"\n'
        "alwaysApply: false\n---\nUse type hints.\n",
        ".claude/skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Fill in PDF forms when "
        "the user asks for it.\n---\n# PDF\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    return root


def _rules(text: str) -> list[str]:
    return [f["rule"] for f in json.loads(text.split("\n}\n")[0] + "\n}")["findings"]]


def _fresh_and_right(root: Path) -> str:
    """The run after a change: not answered whole, and the same as the reference; then the
    next run is answered whole, still the same."""
    assert not _hit([root], root)
    reference = _reference([root], root)
    assert _run([root], root) == reference
    assert _hit([root], root)
    assert _run([root], root) == reference
    return reference


def test_an_unchanged_tree_is_answered_whole(tmp_path: Path, xdg: Path) -> None:
    root = _repo(tmp_path / "repo")
    assert not _hit([root], root)
    first = _run([root], root)
    assert _hit([root], root)
    assert _run([root], root) == first == _reference([root], root)
    # the answer does not import the parsers and checks (a fresh process)
    code = (
        "import sys; from pathlib import Path; from apc_tools.contract import warm; "
        f"warm.validate_tree([Path({str(root)!r})], cwd=Path({str(root)!r})); "
        "print(sorted(m for m in sys.modules if m.startswith(('ruamel', 'jsonschema', "
        "'apc_tools.contract.checks', 'apc_tools.contract.validate'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_edit_add_delete_rename_each_give_a_fresh_result(tmp_path: Path, xdg: Path) -> None:
    root = _repo(tmp_path / "repo")
    _fresh_and_right(root)
    skill = root / ".claude/skills/pdf/SKILL.md"
    skill.write_text(skill.read_text("utf-8").replace("name: pdf", "name: Pdf_Forms"), "utf-8")
    edited = _fresh_and_right(root)
    assert any(r.startswith("SKL") for r in _rules(edited))
    (root / ".claude/agents").mkdir(parents=True)
    (root / ".claude/agents/rev.md").write_text("---\nname: rev\n---\nReview.\n", "utf-8")
    added = _fresh_and_right(root)
    assert added != edited
    (root / "src/app.py").unlink()  # a file no check reads, but the rule's glob matched it
    _fresh_and_right(root)  # still tracked: the glob still matches git's file
    _git(root, "add", "-A")  # the index alone changes
    deleted = _fresh_and_right(root)
    assert "RUL003" in _rules(deleted)
    (root / "docs/guide.md").rename(root / "docs/manual.md")  # AGENTS.md's link now dangles
    renamed = _fresh_and_right(root)
    assert "AGM003" in _rules(renamed)
    # the same content again: the result stored for it answers, and it is right
    (root / "docs/manual.md").rename(root / "docs/guide.md")
    assert _hit([root], root)
    assert _run([root], root) == _reference([root], root) == deleted


def test_a_git_ignored_link_target_appearing_or_disappearing_misses(
    tmp_path: Path, xdg: Path
) -> None:
    root = _repo(tmp_path / "repo")
    absent = _fresh_and_right(root)  # notes/local.md is ignored and absent: AGM003
    assert _rules(absent).count("AGM003") == 1
    (root / "notes").mkdir()
    (root / "notes/local.md").write_text("# Mine\n", "utf-8")  # not in git's list: a probe
    present = _fresh_and_right(root)
    assert "AGM003" not in _rules(present)
    (root / "notes/local.md").unlink()
    assert not _hit([root], root)
    assert _run([root], root) == _reference([root], root) == absent


def test_apc_folder_and_its_gitignore_on_disk_are_asked_again(tmp_path: Path, xdg: Path) -> None:
    root = _repo(tmp_path / "repo")
    (root / ".apc").mkdir()
    (root / ".apc/project.json").write_text('{"name": "x", "version": "0.1"}\n', "utf-8")
    (root / ".gitignore").write_text("notes/\n.apc/.gitignore\n", "utf-8")  # hidden from git
    _fresh_and_right(root)
    (root / ".apc/.gitignore").write_text("local/\n", "utf-8")  # ignored: seen by the probe
    _fresh_and_right(root)


def test_a_policy_change_gives_a_fresh_result(tmp_path: Path, xdg: Path) -> None:
    root = _repo(tmp_path / "repo")
    _fresh_and_right(root)
    (root / ".apc-tools.yaml").write_text("version: 1\nseverity:\n  AGM003: info\n", "utf-8")
    changed = _fresh_and_right(root)
    found = json.loads(changed.split("\n}\n")[0] + "\n}")["findings"]
    assert [f["severity"] for f in found if f["rule"] == "AGM003"] == ["info"]


def test_without_cache_nothing_is_stored_or_read(
    tmp_path: Path, xdg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _repo(tmp_path / "repo")
    assert _run([root], root, cache=False) == _reference([root], root)
    assert not _hit([root], root)
    monkeypatch.setenv(store.NO_CACHE_ENV, "1")
    _run([root], root)
    monkeypatch.delenv(store.NO_CACHE_ENV)
    assert not _hit([root], root)


def test_a_damaged_whole_run_entry_is_run_again(tmp_path: Path, xdg: Path) -> None:
    root = _repo(tmp_path / "repo")
    reference = _run([root], root)
    key = _key([root], root)
    assert key is not None
    with store.Cache.open("validate") as opened:
        opened.put_many({key: b'{"f": [["X"]]}'})
    assert not _hit([root], root)
    assert _run([root], root) == reference
    assert _hit([root], root)


def test_a_stored_entry_round_trips(tmp_path: Path, xdg: Path) -> None:
    root = _repo(tmp_path / "repo")
    found = warm.validate_tree([root], cwd=root)
    again = warm.from_bytes(warm.to_bytes(found))
    assert again == found
    assert set(json.loads(warm.to_bytes(found))) == {*KEYS, "p"}
