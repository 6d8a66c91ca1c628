"""A session must not hide behind a leading line, a BOM, another encoding, blank padding or
an inline allow comment (review of the gate, items 1 and 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.boundary.helpers import AIDER, CLAUDE, CODEX, findings, repo

DISGUISES: dict[str, bytes] = {
    "rollout.txt": b"# exported\n" + CODEX.encode(),
    "bom.jsonl": b"\xef\xbb\xbf" + CLAUDE.encode(),
    "garbage.jsonl": b"garbage\n" + CLAUDE.encode(),
    "u16.jsonl": CLAUDE.encode("utf-16"),
    "u16be.jsonl": b"\xfe\xff" + CLAUDE.encode("utf-16-be"),
    "u32.jsonl": CLAUDE.encode("utf-32"),
    "pad.jsonl": b"\n" * 1_200_000 + CODEX.encode(),
    "smallpad.jsonl": b"\n" * 9000 + CODEX.encode(),
}


@pytest.mark.parametrize("name", sorted(DISGUISES))
def test_disguised_session_is_still_a_session(tmp_path: Path, name: str) -> None:
    root = repo(tmp_path, {name: DISGUISES[name]})
    found = [f for f in findings(root) if f.rule == "BTR001"]
    assert [f.path for f in found] == [name]


def test_padded_session_reports_the_line_of_its_first_record(tmp_path: Path) -> None:
    root = repo(tmp_path, {"pad.jsonl": b"\n" * 1_200_000 + CODEX.encode()})
    (found,) = [f for f in findings(root) if f.rule == "BTR001"]
    assert found.line == 1_200_001


def test_prose_with_a_json_line_far_down_is_not_a_session(tmp_path: Path) -> None:
    prose = "".join(f"line {i}\n" for i in range(20)) + CLAUDE
    assert findings(repo(tmp_path, {"notes.txt": prose})) == []


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("s.jsonl", "// apc: allow BTR001\n" + CLAUDE),
        ("s.txt", CLAUDE.rstrip("\n") + " // apc: allow BTR001\n"),
        ("notes.aider.md", AIDER.replace("\n#", "\n<!-- apc: allow BTR001 -->\n#", 1)),
        ("history.md", AIDER.replace("10:00:00", "10:00:00 <!-- apc: allow BTR001 -->")),
    ],
)
def test_inline_allow_never_silences_a_session(tmp_path: Path, name: str, content: str) -> None:
    root = repo(tmp_path, {name: content})
    assert "BTR001" in {f.rule for f in findings(root)}
    assert "BTR001" in {f.rule for f in findings(root, inline_allow=False)}


def test_inline_allow_does_not_cover_a_path_rule(tmp_path: Path) -> None:
    history = AIDER.replace("10:00:00", "10:00:00 <!-- apc: allow BPA002, BTR001 -->")
    root = repo(tmp_path, {".aider.chat.history.md": history})
    assert {"BPA002", "BTR001"} <= {f.rule for f in findings(root)}
