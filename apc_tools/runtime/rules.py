"""The runtime family's rules: RPR (what the repair changed) and WIR (what a provider rejects).

RPR rules are raised by :func:`apc_tools.runtime.repair.findings_for`, one per change of the
repair report; WIR rules by :func:`apc_tools.runtime.conformance.findings_for`, one per provider
sequencing rule the history breaks, in the provider's own words.
"""

from __future__ import annotations

from types import MappingProxyType

from apc_tools.findings import Rule, Severity
from apc_tools.runtime.io import IO_RULES

FAMILY = "runtime"

_CALL = (
    '{"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", '
    '"function": {"name": "ls", "arguments": "{}"}}]}'
)
_USE = '{"type": "tool_use", "id": "t1", "name": "ls", "input": {}}'
_RES = '{"type": "tool_result", "tool_use_id": "t1", "content": "a"}'
_TXT = '{"type": "text", "text": "go on"}'
_FC = '{"functionCall": {"name": "ls", "args": {}}}'
_USER = '{"role": "user", "content": "list files"}'
_TOOL = '{"role": "tool", "tool_call_id": "c1", "content": "a.txt"}'


def _rule(
    id_: str, name: str, severity: Severity, summary: str, explanation: str, good: str, bad: str
) -> Rule:
    return Rule(id_, name, severity, summary, explanation, good, bad, FAMILY)


RPR001 = _rule(
    "RPR001",
    "closed-call",
    Severity.WARNING,
    "A tool call had no result; the repair closed it with a synthetic error result.",
    "The turn ended (interrupt, crash, timeout) before the call was answered. The repair added a "
    "result reading 'not run: the turn was interrupted', flagged as an error where the wire "
    "format has a flag. If the tool may have run, check its effects before retrying.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_USER}, {_CALL}]",
)
RPR002 = _rule(
    "RPR002",
    "dropped-orphan",
    Severity.WARNING,
    "A tool result answered no open call; the repair dropped it.",
    "Results must follow the call they answer (in the same turn). A result whose call was trimmed "
    "away, or that comes before its call or after the turn ended, is dropped: fix the code that "
    "windows or stores the history so calls and results stay together.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_USER}, {_TOOL}]",
)
RPR003 = _rule(
    "RPR003",
    "dropped-duplicate",
    Severity.WARNING,
    "A call had a second result; the repair kept the first and dropped the rest.",
    "Each call occurrence gets exactly one result. Stop re-sending stored results.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_USER}, {_CALL}, {_TOOL}, {_TOOL}]",
)
RPR004 = _rule(
    "RPR004",
    "dropped-leading",
    Severity.WARNING,
    "A record before the first user message was dropped.",
    "A history starts at its first real user message (system and developer messages may come "
    "first). Leading assistant messages, calls and results usually come from a window that cut a "
    "turn in half: cut at a user message instead.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_CALL}, {_TOOL}, {_USER}]",
)
RPR005 = _rule(
    "RPR005",
    "moved-result",
    Severity.INFO,
    "Tool results were moved to the front of their message.",
    "Anthropic and Bedrock want the tool results first in the user message after the calls; "
    "other content follows them.",
    f'{{"role": "user", "content": [{_RES}, {_TXT}]}}',
    f'{{"role": "user", "content": [{_TXT}, {_RES}]}}',
)
RPR006 = _rule(
    "RPR006",
    "dropped-empty",
    Severity.INFO,
    "An assistant message with no content and no calls was dropped.",
    "An interrupted stream can leave an empty assistant message behind; providers reject it.",
    f"[{_USER}, " + '{"role": "assistant", "content": "hello"}]',
    f"[{_USER}, " + '{"role": "assistant", "content": null}]',
)
RPR007 = _rule(
    "RPR007",
    "merged-results",
    Severity.INFO,
    "Several result messages for one call message were merged into one.",
    "Anthropic, Bedrock and Gemini want all results of a turn in one message.",
    "one user message with every tool_result of the turn",
    "two consecutive user messages each holding some of the turn's tool_results",
)
RPR008 = _rule(
    "RPR008",
    "moved-content",
    Severity.INFO,
    "Content after a tool_use in the same Anthropic message was moved before the calls.",
    "Anthropic rejects text or thinking that follows a tool_use in its message (a retry appended "
    "to an aborted message does this). The repair keeps the content and moves it first.",
    f'{{"role": "assistant", "content": [{_TXT}, {_USE}]}}',
    f'{{"role": "assistant", "content": [{_USE}, {_TXT}]}}',
)
RPR009 = _rule(
    "RPR009",
    "merged-turns",
    Severity.INFO,
    "A Gemini model content was merged into the function call turn that followed it.",
    "Gemini wants a function call turn right after a user or function response turn; a model "
    "content just before it is folded into it.",
    f'{{"role": "model", "parts": [{{"text": "let me look"}}, {_FC}]}}',
    f'{{"role": "model", "parts": [{{"text": "let me look"}}]}}, '
    f'{{"role": "model", "parts": [{_FC}]}}',
)

WIR001 = _rule(
    "WIR001",
    "dangling-call",
    Severity.ERROR,
    "A tool call has no result where the provider requires one.",
    "Every call needs its result right after it (OpenAI chat, Anthropic, Gemini, Bedrock) or "
    "later in the input (Responses). Run `apc repair FILE` to close it.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_USER}, {_CALL}, {_USER}]",
)
WIR002 = _rule(
    "WIR002",
    "orphan-result",
    Severity.ERROR,
    "A tool result answers no call the provider can see.",
    "Drop the result or keep its call; `apc repair` drops orphans.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_USER}, {_TOOL}]",
)
WIR003 = _rule(
    "WIR003",
    "duplicate-result",
    Severity.ERROR,
    "A call has more than one result.",
    "Keep one result per call occurrence; `apc repair` keeps the first.",
    f"[{_USER}, {_CALL}, {_TOOL}]",
    f"[{_USER}, {_CALL}, {_TOOL}, {_TOOL}]",
)
WIR004 = _rule(
    "WIR004",
    "result-not-first",
    Severity.ERROR,
    "Tool results do not come first in the message after the calls.",
    "Anthropic and Bedrock want the tool_result/toolResult blocks at the start of the user "
    "message; put text after them (`apc repair` moves them).",
    "user content [tool_result, text]",
    "user content [text, tool_result]",
)
WIR005 = _rule(
    "WIR005",
    "content-after-call",
    Severity.ERROR,
    "An Anthropic assistant message has content after a tool_use block.",
    "Move the text before the tool_use blocks or into a later message (`apc repair` moves it).",
    "assistant content [text, tool_use]",
    "assistant content [tool_use, text]",
)
WIR006 = _rule(
    "WIR006",
    "empty-assistant",
    Severity.ERROR,
    "An assistant message has neither content nor tool calls.",
    "Drop it (`apc repair` does) or give it content.",
    '{"role": "assistant", "content": "done"}',
    '{"role": "assistant", "content": null}',
)
WIR007 = _rule(
    "WIR007",
    "call-turn-position",
    Severity.ERROR,
    "A Gemini function call turn does not follow a user or function response turn.",
    "Start the history at a user turn and keep one model turn per exchange (`apc repair` drops "
    "leading model turns and merges a model content into the call turn after it).",
    "user, model(functionCall), user(functionResponse)",
    "model(functionCall), user(functionResponse)",
)
WIR008 = _rule(
    "WIR008",
    "first-not-user",
    Severity.ERROR,
    "A Bedrock conversation does not start with a user message.",
    "Start at the first user message (`apc repair` drops leading records).",
    "user, assistant",
    "assistant, user",
)

_SESSION_CALL = (
    '{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","message":{"role":'
    '"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{}}]}}'
)
RPR010 = _rule(
    "RPR010",
    "started-call-left-open",
    Severity.WARNING,
    "A tool call has no result, but the session shows it started; the repair left it open.",
    "The session file records that the call ran or is running (Codex exec/collab events with its "
    "call_id, a Claude Code progress record or subagent transcript, a Gemini CLI status of "
    "executing/success/error). A synthetic 'not run: the turn was interrupted' would be false. "
    "Let the tool finish or record the real result; or resume the session with its own tool.",
    "a session whose started calls all have results",
    "a Codex rollout with an exec_command_end event for a call that has no output",
)
RPR011 = _rule(
    "RPR011",
    "reparented",
    Severity.INFO,
    "With --reparent, a record after a mid-chain dangling call was re-attached to the result.",
    "The user had already continued after the dangling call, so the synthetic result can stay "
    "on the conversation chain only if the record after the call points at it: its parentUuid "
    "was changed (the one existing line apc changes, and only when asked).",
    "a Claude Code session without mid-chain dangling calls",
    "a Claude Code session repaired with --reparent",
)
RPR012 = _rule(
    "RPR012",
    "call-left-open",
    Severity.WARNING,
    "A tool call has no result and the repair could not close it without rewriting the file.",
    "Session files are repaired add-only. A call in the middle of a Claude Code chain (the user "
    "continued after it) needs --reparent; a call without an id cannot be answered; a legacy "
    "Gemini CLI .json session would have to be rewritten (resume it once in Gemini CLI, which "
    "migrates it to .jsonl, then repair that).",
    "a session whose calls all have results",
    f"{_SESSION_CALL} followed by a user text record",
)
RPR013 = _rule(
    "RPR013",
    "nothing-to-repair",
    Severity.INFO,
    "The file is a known transcript format without tool-call pairs: there is nothing to repair.",
    "Aider and SpecStory histories are Markdown written for people; no agent replays them as a "
    "request, so no call can be left unanswered. Nothing was written.",
    "an agent session file",
    "# aider chat started at 2026-01-01 10:00:00",
)
RPR014 = _rule(
    "RPR014",
    "kept-unparsed-line",
    Severity.INFO,
    "A session line is not a JSON object; it was kept as it is.",
    "Session repairs are add-only: a line apc cannot read (the agent skips it too) is copied "
    "byte for byte and left out of the pairing.",
    "a session whose lines are all JSON objects",
    'a session with a line "just a string" in the middle',
)

RPR015 = _rule(
    "RPR015",
    "contract-not-valid",
    Severity.WARNING,
    "apc repair --all found the project's contract invalid; only its root was used.",
    "The sessions of a project are found from its validated contract. With error-level findings "
    "(run `apc validate`), nothing but the project root steers the search (no runtime folder "
    "from a broken apx_id), and the repair still never writes into the project.",
    "a project whose `apc validate` passes",
    "a project whose .apc/project.json is not valid JSON",
)
RPR016 = _rule(
    "RPR016",
    "session-skipped",
    Severity.WARNING,
    "apc repair --all could not check or repair one of the project's session files.",
    "The file is refused (a format apc does not support, a line cut mid-write, a session "
    "changed seconds ago) with the reason given; the other sessions are still handled.",
    "a project whose sessions are all readable",
    "a project with a Claude Code session whose last line is cut mid-write",
)

RULES: tuple[Rule, ...] = (
    RPR001,
    RPR002,
    RPR003,
    RPR004,
    RPR005,
    RPR006,
    RPR007,
    RPR008,
    RPR009,
    RPR010,
    RPR011,
    RPR012,
    RPR013,
    RPR014,
    RPR015,
    RPR016,
    WIR001,
    WIR002,
    WIR003,
    WIR004,
    WIR005,
    WIR006,
    WIR007,
    WIR008,
    *IO_RULES,
)

BY_ID = MappingProxyType({rule.id: rule for rule in RULES})

#: repair change kind -> its rule
CHANGE_RULES = MappingProxyType(
    {
        rule.name: rule
        for rule in (RPR001, RPR002, RPR003, RPR004, RPR005, RPR006, RPR007, RPR008, RPR009)
    }
)
