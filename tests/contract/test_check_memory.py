"""Memory checks (MEM001-MEM004) through validate(): owner, secrets, local paths, transcripts."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.checks_base import check, run, where

AGENT = "---\nname: sofia\nmodel: inherit\ndescription: Support agent.\n---\nHelp customers.\n"
MEMORY = "# Memory — sofia\n\n## Project facts\n- Refunds within 14 days.\n"
MEM = ".apc/agents/sofia/memory.md"


def test_both_memory_locations_are_accepted(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {".apc/agents/sofia.md": AGENT, MEM: MEMORY, ".apc/memory.md": "# Project memory\n"},
    )
    assert [f for f in found if f.rule.startswith("MEM")] == []


def test_memory_without_agent_file(tmp_path: Path) -> None:
    files = {MEM: MEMORY, ".apc/memory.md": "# Project memory\n- fact\n"}
    found = check(tmp_path, files, MEM001=[(MEM, None, None)], MEM002=[], MEM004=[])
    assert found[0].severity.value == "warning"
    assert ".apc/agents/sofia.md" in found[0].message


def test_secret_in_memory(tmp_path: Path) -> None:
    value = "Zq8xP2mL9vRt4kWn"
    text = MEMORY + f'- Staging DB: password = "{value}"\n'
    found = run(tmp_path, {".apc/memory.md": text})
    assert where(found, "MEM002") == [(".apc/memory.md", 5, 27)]
    assert value not in found[0].message and value[:4] not in found[0].message


def test_local_path_in_memory(tmp_path: Path) -> None:
    text = MEMORY + "- Fixtures live in /Users/ana/src/app/tests/fixtures/.\n"
    found = run(tmp_path, {".apc/memory.md": text})
    assert [(f.rule, f.severity.value, f.line, f.column) for f in found] == [
        ("MEM003", "warning", 5, 20)
    ]


@pytest.mark.parametrize(
    ("dump", "line", "column"),
    [
        ("User: can we refund?\nAssistant: Let me check.\n", 5, 1),
        ("**User:** hi\n\n**Claude:** hello\n", 5, 3),
        ("## User\nhi\n## Assistant\nhello\n", 5, 4),
        ('```json\n{"role": "assistant", "content": "x"}\n```\n', 6, 2),
        ('{"type": "tool_use", "id": "toolu_1", "name": "bash"}\n', 5, 2),
        ("[Request interrupted by user]\n", 5, 1),
    ],
)
def test_transcript_content_in_memory(tmp_path: Path, dump: str, line: int, column: int) -> None:
    found = run(tmp_path, {".apc/memory.md": MEMORY + dump})
    assert where(found, "MEM004") == [(".apc/memory.md", line, column)]
    assert "curated facts only" in found[0].message


def test_one_finding_per_kind_of_evidence(tmp_path: Path) -> None:
    dump = "User: a\nAssistant: b\nUser: c\nAssistant: d\n"
    found = run(tmp_path, {".apc/memory.md": MEMORY + dump})
    assert len(where(found, "MEM004")) == 1
    assert "(4 occurrences)" in found[0].message


@pytest.mark.parametrize(
    "text",
    [
        "- User: prefers tabs over spaces.\n",  # one speaker label is a fact, not a dump
        "- The assistant must answer in Spanish.\n- Users get refunds in 14 days.\n",
        "- We store tool_use blocks in the runtime, never here.\n",
    ],
)
def test_curated_facts_are_not_transcripts(tmp_path: Path, text: str) -> None:
    found = run(tmp_path, {".apc/memory.md": MEMORY + text})
    assert where(found, "MEM004") == []
