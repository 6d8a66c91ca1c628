"""`run_validate(texts=...)` and `plan_fixes(texts=...)`: bytes that stand in for some files on
disk (an editor's unsaved buffers, `apc lsp`) are judged exactly as the same bytes on disk
would be, and the disk is neither read for them nor written."""

from __future__ import annotations

import shutil
from pathlib import Path

from apc_tools.contract.fix import plan_fixes
from apc_tools.contract.validate import run_validate
from apc_tools.core.files import MAX_BYTES
from apc_tools.report.json_out import render_json
from tests.test_cases import CASES

AGENT = "---\nname: sales\nmodel: inherit\ndescription: Sells.\nskills: pricing\n---\n"


def project(tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(CASES / "invalid" / "agents" / "AGT006", root)
    (root / "case.json").unlink(missing_ok=True)
    (root / ".apc/agents/sales.md").write_text(AGENT)
    return root


def rules(root: Path, texts: dict[Path, bytes] | None = None) -> list[tuple[str, str]]:
    found = run_validate([], cwd=root, texts=texts).result.findings
    return sorted((f.rule, f.path) for f in found if f.path.startswith(".apc/agents"))


def test_a_buffer_is_judged_as_the_same_bytes_on_disk(tmp_path: Path) -> None:
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"
    edited = AGENT.replace("skills: pricing", "skills: pricing, funnel").encode()
    assert rules(root) == []
    from_buffer = rules(root, {agent: edited})
    assert from_buffer == [("AGT006", ".apc/agents/sales.md")]
    assert agent.read_text() == AGENT  # the disk is unchanged
    agent.write_bytes(edited)
    assert rules(root) == from_buffer
    same = render_json(run_validate([], cwd=root).result)
    agent.write_text(AGENT)
    assert render_json(run_validate([], cwd=root, texts={agent: edited}).result) == same


def test_a_huge_buffer_and_a_symlink(tmp_path: Path) -> None:
    """A buffer over the read limit is IO003 with its own size; a path that is a symlink on
    disk is read as the link it is (the buffer does not stand in for it)."""
    root = project(tmp_path)
    big = b"# Demo\n" + b"x" * MAX_BYTES
    found = run_validate([], cwd=root, texts={root / "AGENTS.md": big}).result.findings
    (too_large,) = [f for f in found if f.rule == "IO003"]
    assert str(len(big)) in too_large.message
    outside = tmp_path / "outside.md"
    outside.write_text(AGENT)
    link = root / ".apc/agents/linked.md"
    link.symlink_to(outside)
    texts = {link: AGENT.replace("sales", "linked").encode()}
    with_buffer = run_validate([], cwd=root, texts=texts).result.findings
    assert [f.rule for f in with_buffer if f.path.endswith("linked.md")] == ["IO004"]


def test_plan_fixes_from_a_buffer(tmp_path: Path) -> None:
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"
    buffer = AGENT.replace("name: sales", "name: seller").encode()
    outcome = plan_fixes([agent], unsafe=True, cwd=root, texts={agent: buffer})
    (fix,) = outcome.files
    assert fix.before == buffer and fix.after == AGENT.encode()
    assert plan_fixes([agent], unsafe=True, cwd=root).files == []  # the disk needs none
    assert agent.read_text() == AGENT
