"""`run_validate(session=...)` (contract/session.py, what `apc lsp` keeps between its runs): after
every change below, made on real files (and an editor's buffers), the run with the session
gives exactly what a run from scratch gives, while the session takes what did not change from
its earlier runs (the projects not touched, the files not read again; the stats say so).

The racy margin (``warm.RACY_NS``, 2 s) is shortened to 50 ms, and the test waits past it where
the session should trust what it saw, as tests/contract/test_validate_stat_memo.py does.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from apc_tools.contract import warm
from apc_tools.contract.session import Session
from apc_tools.contract.validate import run_validate
from apc_tools.report.json_out import render_json
from tests.test_cases import CASES

MARGIN = 50_000_000
AGENTS = "# Demo\n\nSee [the guide](docs/guide.md) and [the sub-project](sub/README.md).\n"
SKILL = "---\nname: pricing\ndescription: Prices things.\n---\n\n# Pricing\n"
PLUGIN_AGENT = "---\nname: helper\n---\n\nHelps.\n"
MARKET = {"name": "m", "owner": {"name": "o"}, "plugins": [{"name": "p", "source": "./plug"}]}


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch, xdg: Path) -> None:
    monkeypatch.setattr(warm, "RACY_NS", MARGIN)


def _settle() -> None:
    time.sleep(3 * MARGIN / 1e9)


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    shutil.copytree(CASES / "invalid" / "agents" / "AGT006", root)
    (root / "case.json").unlink(missing_ok=True)
    (root / "AGENTS.md").write_text(AGENTS)
    (root / ".apc/skills/pricing.md").write_text(SKILL)
    sub = root / "sub"
    (sub / ".apc").mkdir(parents=True)
    shutil.copyfile(root / ".apc/project.json", sub / ".apc/project.json")
    shutil.copyfile(root / ".apc/.gitignore", sub / ".apc/.gitignore")
    (sub / "AGENTS.md").write_text("# Sub\n")
    (sub / "README.md").write_text("the sub-project\n")
    (root / ".claude-plugin").mkdir()
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps(MARKET))
    (root / "plug/agents").mkdir(parents=True)
    (root / "plug/agents/helper.md").write_text(PLUGIN_AGENT)
    return root


def _json(root: Path, session: Session | None, texts: dict[Path, bytes] | None) -> str:
    return render_json(run_validate([], cwd=root, texts=texts, session=session).result)


def _same(root: Path, session: Session, texts: dict[Path, bytes] | None = None) -> str:
    """The session's run, held to a run from scratch (no session, the result cache off)."""
    mine = _json(root, session, texts)
    os.environ["APC_NO_CACHE"] = "1"
    try:
        fresh = _json(root, None, texts)
    finally:
        del os.environ["APC_NO_CACHE"]
    assert mine == fresh
    return mine


def _rules(out: str) -> set[tuple[str, str]]:
    return {(f["rule"], f["path"]) for f in json.loads(out)["findings"]}


def test_every_change_is_judged_as_from_scratch(tmp_path: Path, trusting: None) -> None:
    root = _tree(tmp_path)
    session = Session()
    _settle()
    first = _same(root, session)
    assert ("AGT006", ".apc/agents/sales.md") in _rules(first)  # sales-funnel: no such skill
    assert any(rule == "AGM003" for rule, _ in _rules(first))  # docs/guide.md: a dead link
    assert _same(root, session) == first
    assert session.stats["judged"] == 0 and session.stats["kept_whole"] == 2
    assert session.stats["read"] == 0 < session.stats["kept"]

    # an editor's buffer: only its project is judged again, nothing read from disk
    agent = root / ".apc/agents/sales.md"
    fixed = agent.read_bytes().replace(b", sales-funnel", b"")
    session.stats.clear()
    assert ("AGT006", ".apc/agents/sales.md") not in _rules(_same(root, session, {agent: fixed}))
    assert session.stats["judged"] == 1 and session.stats["kept_whole"] == 1
    assert session.stats.get("read", 0) == 0
    assert _same(root, session) == first  # the buffer closed: the disk again

    # a file the link names appears (no contract file: the listing changes)
    (root / "docs").mkdir()
    (root / "docs/guide.md").write_text("the guide\n")
    assert not any(rule == "AGM003" for rule, _ in _rules(_same(root, session)))
    _settle()
    _same(root, session)

    # an edit that keeps the size and the mtime (the ctime tells)
    skill = root / ".apc/skills/pricing.md"
    was = os.stat(skill)
    skill.write_text(SKILL.replace("name: pricing", "name: pricinx"))
    os.utime(skill, ns=(was.st_atime_ns, was.st_mtime_ns))
    assert os.stat(skill).st_size == was.st_size
    assert ("SKL004", ".apc/skills/pricing.md") in _rules(_same(root, session))
    _settle()
    _same(root, session)

    # another file edited (its project judged again, the AGENTS.md checks taken from before),
    # then the nested project's README, which the link reaches by a question to the disk, goes
    # while a file is edited again: the earlier judgement's disk answers no longer hold
    shutil.copyfile(skill, root / ".apc/skills/pricing.tmp")
    skill.write_text(SKILL + "\nMore.\n")
    _same(root, session)
    _settle()
    _same(root, session)
    (root / "sub/README.md").unlink()
    skill.write_text(SKILL + "\nMore, again.\n")
    gone = _same(root, session)
    assert ("AGM003", "AGENTS.md") in _rules(gone)
    _settle()
    assert _same(root, session) == gone

    # the marketplace stops naming the plugin: its agent is no subagent any more
    plugin = ("AGT010", "plug/agents/helper.md")
    assert any(path == plugin[1] for _, path in _rules(gone))
    (root / ".claude-plugin/marketplace.json").write_text(json.dumps({**MARKET, "plugins": []}))
    assert not any(path == plugin[1] for _, path in _rules(_same(root, session)))
    _settle()
    _same(root, session)

    # the policy: a rule disabled
    (root / ".apc-tools.yaml").write_text("version: 1\ndisable: [AGT006]\n")
    assert ("AGT006", ".apc/agents/sales.md") not in _rules(_same(root, session))
    _settle()

    # a new nested project takes the agents folder's neighbour
    (root / "plug/.apc").mkdir()
    shutil.copyfile(root / ".apc/project.json", root / "plug/.apc/project.json")
    _same(root, session)
    _settle()
    _same(root, session)
    session.stats.clear()
    _same(root, session)
    assert session.stats["judged"] == 0 and session.stats["kept_whole"] == 3
