"""The outcome of ``apc repair`` on EVERY file of ../shared/corpus/transcripts, pinned.

Each file is either repaired (its dangling calls closed, every other line byte-identical,
``--check`` clean afterwards, a second repair changes nothing), left as it is with a report
(nothing to repair, or calls that demonstrably ran / cannot be closed add-only), or refused with
exit 2 naming its format. A file added to the corpus without a row here fails the test.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest

from apc_tools.findings import CannotRun
from apc_tools.runtime.command import run_repair
from tests.conftest import TRANSCRIPTS, needs_shared

HTTP = ("refused", "HTTP recording")
RUNSTATE = ("refused", "OpenAI Agents SDK RunState")
OPENCODE = ("refused", "OpenCode storage file")
COPILOT = ("refused", "Copilot CLI session events")
CLINE_UI = ("refused", "Cline/Roo/Kilo UI state")
AIDER = ("nothing", "Aider chat history")
SPECSTORY = ("nothing", "SpecStory history")
CLEAN = ("clean", "")

#: file name (without its folder) -> (outcome, detail). Outcomes: refused (exit 2 naming the
#: format), nothing (RPR013, nothing written), clean (no finding, output byte-identical),
#: repaired (N calls closed), open (the rule that reports calls left open), torn (exit 2 naming
#: the line).
EXPECTED: dict[str, tuple[str, object]] = {
    "AlexShchuka__mozgoslav__.aider.chat.history.md": AIDER,
    "AlexShchuka__mozgoslav__.aider.input.history": AIDER,
    "Aquaticat__Monochromatic__.aider.chat.history.md": AIDER,
    "BeehiveInnovations__zen-mcp-server__.aider.chat.history.md": AIDER,
    "BeehiveInnovations__zen-mcp-server__.aider.input.history": AIDER,
    "codemie-ai__codemie-code__tests__integration__session__fixtures__claude__-tmp-private__"
    "4c2ddfdc-b619-4525-8d03-1950fb1b0257.jsonl": CLEAN,
    "codemie-ai__codemie-code__tests__integration__session__fixtures__session-9eda1058.jsonl": (
        CLEAN
    ),
    "daaain__claude-code-log__test__test_data__edge_cases.jsonl": ("repaired", 2),
    "daaain__claude-code-log__test__test_data__representative_messages.jsonl": CLEAN,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__claude__schema_drift.jsonl": (
        "refused",
        "Claude Code-like log with tool_use/tool_result records",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__claude__small.jsonl": (
        "repaired",
        1,
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__claude__subagent__"
    "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl": ("open", "RPR012"),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__claude__subagent__"
    "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f__subagents__agent-a0ad4f44468bdf20d.jsonl": (
        "open",
        "RPR012",
    ),
    "kvsankar__agent-history__tests__fixtures__rejections__claude_with_rejection.jsonl": CLEAN,
    "wesm__agentsview__internal__parser__testdata__claude__valid_session.jsonl": ("repaired", 1),
    "yigitkonur__cli-continues__test-fixtures__cline__tasks__test-task-1__ui_messages.json": (
        CLINE_UI
    ),
    "yigitkonur__cli-continues__test-fixtures__kilo-code__tasks__test-task-1__ui_messages.json": (
        CLINE_UI
    ),
    "yigitkonur__cli-continues__test-fixtures__roo-code__tasks__test-task-1__ui_messages.json": (
        CLINE_UI
    ),
    "codemie-ai__codemie-code__tests__integration__session__fixtures__codex__turn-2.jsonl": CLEAN,
    "codemie-ai__codemie-code__tests__integration__session__fixtures__codex__"
    "turn-spawn-skill.jsonl": ("open", "RPR010"),
    "daaain__claude-code-log__test__test_data__codex__malformed__"
    "rollout-66666666-6666-4666-8666-666666666666.jsonl": ("torn", "line 3"),
    "daaain__claude-code-log__test__test_data__codex__sessions__2026__01__02__"
    "rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl": CLEAN,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__codex__large.jsonl": CLEAN,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__codex__schema_drift.jsonl": (
        "refused",
        "Codex-like log without the rollout envelope",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__codex__small.jsonl": CLEAN,
    "kvsankar__agent-history__tests__fixtures__rejections__codex_with_escalation.jsonl": (
        "repaired",
        2,
    ),
    "simonw__claude-code-transcripts__tests__sample_codex_session.jsonl": CLEAN,
    "wesm__agentsview__internal__parser__testdata__codex__function_calls.jsonl": ("repaired", 2),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__copilot__large.jsonl": COPILOT,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__copilot__"
    "schema_drift.jsonl": COPILOT,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__copilot__small.jsonl": COPILOT,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__copilot__subdir_v1__"
    "aaaabbbb-1111-2222-3333-ccccddddeeee__events.jsonl": COPILOT,
    "Mai0313__VibeCodingTracker__examples__test_conversation_gemini.json": CLEAN,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__gemini__jsonl_v040.jsonl": (
        CLEAN
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__gemini__large.json": CLEAN,
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__gemini__schema_drift.json": (
        "refused",
        "Gemini CLI session (unknown variant)",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__gemini__small.json": CLEAN,
    "kvsankar__agent-history__tests__fixtures__rejections__gemini_with_tool_error.jsonl": CLEAN,
    "wesm__agentsview__internal__parser__testdata__gemini__system_messages.json": CLEAN,
    "wesm__agentsview__internal__parser__testdata__gemini__tool_calls.json": ("open", "RPR010"),
    "codemie-ai__codemie-code__src__agents__plugins__claude____tests____fixtures__"
    "history-multi-clear.jsonl": ("nothing", "Claude Code prompt history"),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__cursor__small.jsonl": (
        "refused",
        "Cursor agent transcript",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__droid__"
    "session_store_small.jsonl": ("refused", "Factory Droid session"),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__grok__chat_history.jsonl": (
        "refused",
        "Grok CLI chat history",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__kimi__small.jsonl": (
        "refused",
        "Kimi Code CLI session",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__pi__small.jsonl": (
        "refused",
        "pi session",
    ),
    "jazzyalex__agent-sessions__Resources__Fixtures__stage0__agents__qwen__"
    "019f0000-0000-7000-8000-000000000004.jsonl": ("refused", "Qwen Code session"),
    "simonw__claude-code-transcripts__tests__sample_windsurf_export.json": (
        "refused",
        "Windsurf export",
    ),
    "yigitkonur__cli-continues__test-fixtures__amp__threads__test-thread-1.json": (
        "refused",
        "Amp thread",
    ),
    "yigitkonur__cli-continues__test-fixtures__kiro__workspace-sessions__test-workspace__"
    "test-session-1.json": ("refused", "Kiro session"),
}
_FOLDER_DEFAULTS = {
    "specstory-history": SPECSTORY,
    "opencode-storage": OPENCODE,
}


def _expected(path: Path) -> tuple[str, object]:
    if path.name in EXPECTED:
        return EXPECTED[path.name]
    if path.parent.name in _FOLDER_DEFAULTS:
        return _FOLDER_DEFAULTS[path.parent.name]
    if path.name.startswith("openai__openai-agents-python__tests__fixtures__run_state"):
        return RUNSTATE
    if path.suffix == ".yaml" or "__recordings__" in path.name:
        return HTTP
    raise AssertionError(f"{path.name}: no expected outcome pinned for this corpus file")


def _corpus() -> list[Path]:
    if not TRANSCRIPTS.exists():
        return []
    return sorted(
        p
        for p in TRANSCRIPTS.rglob("*")
        if p.is_file() and "LICENSES" not in p.parts and p.name != "SOURCES.md"
    )


FILES = _corpus()


def test_every_corpus_file_is_pinned() -> None:
    needs_shared(TRANSCRIPTS)
    assert len(FILES) >= 101
    for path in FILES:
        _expected(path)


@pytest.mark.parametrize("source", FILES, ids=lambda p: f"{p.parent.name}/{p.name[-50:]}")
def test_corpus_file_outcome(source: Path, tmp_path: Path) -> None:
    needs_shared(TRANSCRIPTS)
    outcome, detail = _expected(source)
    file = tmp_path / source.name
    shutil.copyfile(source, file)
    original = file.read_bytes()
    out = tmp_path / "out" / source.name
    out.parent.mkdir()
    if outcome in ("refused", "torn"):
        for kwargs in ({"check_only": True}, {"out": out}):
            with pytest.raises(CannotRun) as caught:
                run_repair(file, **kwargs)  # type: ignore[arg-type]
            assert str(detail) in str(caught.value)
        assert not out.exists() and file.read_bytes() == original
        return
    checked = run_repair(file, check_only=True)
    repaired = run_repair(file, out=out)
    assert file.read_bytes() == original
    rules = {f.rule for f in repaired.result.findings} - {"RPR014"}
    if outcome == "nothing":
        assert rules == {"RPR013"} and str(detail) in (repaired.format or "")
        assert not out.exists()
        return
    written = out.read_bytes()
    if outcome == "clean":
        assert rules == set() and written == original
        assert not [f for f in checked.result.findings if f.rule.startswith("WIR")]
        return
    if outcome == "open":
        assert rules == {detail} and written == original
        return
    assert outcome == "repaired" and repaired.changes == detail and rules == {"RPR001"}
    assert [f for f in checked.result.findings if f.rule == "WIR001"]
    _assert_add_only(original, written)
    after = run_repair(out, check_only=True)
    assert not [f for f in after.result.findings if f.rule.startswith("WIR")]
    again = tmp_path / "again.jsonl"
    assert run_repair(out, out=again).changes == 0
    assert again.read_bytes() == written


def _assert_add_only(original: bytes, written: bytes) -> None:
    """Every original line is in the output, in order, byte for byte."""
    old = original.split(b"\n")
    new = iter(written.split(b"\n"))
    for line in old:
        if line == b"" and line is old[-1]:
            continue
        assert any(candidate == line for candidate in new), line[:80]


def test_the_stdout_form_matches_the_file_form(tmp_path: Path) -> None:
    needs_shared(TRANSCRIPTS)
    name = "kvsankar__agent-history__tests__fixtures__rejections__codex_with_escalation.jsonl"
    file = tmp_path / name
    shutil.copyfile(TRANSCRIPTS / "codex-rollout-jsonl" / name, file)
    stdout = io.BytesIO()
    run_repair(file, stdout=stdout)
    run_repair(file, out=tmp_path / "o.jsonl")
    assert stdout.getvalue() == (tmp_path / "o.jsonl").read_bytes()
