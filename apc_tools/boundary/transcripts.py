"""BTR: session content found by what it is, whatever the file is called.

Two kinds, two rules. An agent tool's **own** session or history format (Claude Code, Codex,
Gemini CLI, Cline/Roo, Continue, Copilot, OpenCode, Cursor, APX and the other CLIs of
reference §5, plus the Markdown exports of Aider, SpecStory and session-extractor tools) is
BTR001, an error: nobody commits those on purpose. A **generic** provider wire history (OpenAI
chat or Responses items, Anthropic, Gemini or Bedrock message lists, framework message dumps) or
recorded API traffic (VCR/YAML cassettes, HTTP recordings) is BTR002, a warning, because SDK and
application repositories commit them as test fixtures; inside `.apc/` or a contract file it is
an error.

Detection is data: each :class:`RecordFormat` is a test over one JSON object (a JSON Lines
record, or an object nested in a JSON document) and needs ``min_records`` matches; each
:class:`DocumentFormat` is a test over the top-level object; each :class:`TextFormat` is a set
of line patterns for Markdown/YAML/HTML. Records are parsed, not grepped: a source file that
merely mentions ``"parentUuid"`` is not JSON and never matches. Only the head of a blob is read
(:data:`HEAD_BYTES`, after any leading blank padding): a session announces itself in its first
records. A BOM is dropped and UTF-16/32 with a BOM decoded (:func:`~.model.as_utf8`), and a few
leading lines that are not JSON (a title, ``# exported``) are skipped (:func:`~.records.json_body`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from apc_tools.boundary.disguise import yaml_values
from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.boundary.records import Record, opens_json, records, top_values
from apc_tools.findings import Severity

HEAD_BYTES = 1 << 20

SESSION = rule(
    "BTR001",
    "agent-session",
    Severity.ERROR,
    "Committed records of an agent tool's own session or history format (Claude Code, Codex, "
    "Gemini CLI, Cline/Roo, Continue, Copilot, OpenCode, Cursor, APX, other agent CLIs), any "
    "other JSON/JSONL session known by its records (messages of two roles with two marks of a "
    "real session: a session id, timestamps, tool calls with results, a metadata header), a "
    "prompt log, or a Markdown/HTML export of an agent session (Aider, SpecStory, "
    "session-extractor tools).",
    "Sessions are runtime state: they hold prompts, tool inputs and outputs, file contents, "
    "paths and sometimes credentials, and they belong to the machine that recorded them. "
    "Remove the file from the index (`git rm --cached`), add its path to `.gitignore`, and if "
    "it was pushed, rewrite the branch. A sanitized example belongs under "
    "`docs/examples/sessions/` (allowed by default).",
    "docs/examples/sessions/short-review.md   (sanitized, allowed by default)",
    '{"type":"user","sessionId":"9eda...","parentUuid":null,"message":{"role":"user",...}}',
)
GENERIC = rule(
    "BTR002",
    "provider-history",
    Severity.WARNING,
    "Committed provider wire history (OpenAI chat or Responses items, Anthropic, Gemini or "
    "Bedrock messages) or recorded API traffic (VCR/YAML cassettes, HTTP recordings); an error "
    "inside `.apc/` or a contract file.",
    "SDK and application repositories commit recorded conversations on purpose, as test "
    "fixtures, so outside the contract this is a warning: check that the fixture holds no "
    "private prompt, path or credential, then allow its folder in `.apc-tools.yaml` "
    "(`allow: {BTR002: [tests/cassettes/**]}`). Inside `.apc/` or a contract file it is runtime "
    "state in the contract: an error.",
    "tests/cassettes/test_tool_call.yaml   (allowed in .apc-tools.yaml)",
    '.apc/memory.md holding [{"role": "user", ...}, {"role": "assistant", "tool_calls": ...}]',
)
RULES = (SESSION, GENERIC)

Test = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True)
class RecordFormat:
    name: str  # what the message calls it
    session: bool  # True: an agent tool's own format (BTR001); False: generic (BTR002)
    test: Test
    min_records: int = 1
    keys: str = ""  # the keys that identify it, for the message
    gate: frozenset[str] = frozenset()  # a record needs one of these keys to be tested
    # The literals (in the JSON text) one of which every matching record holds, for the
    # prefilter (:mod:`.prefilter`); empty: the quoted gate keys (a record without a gate key
    # is never tested, so one of them is always there). A key or value written with a
    # ``\\u`` escape is covered by :data:`JSON_ESCAPE`.
    needles: tuple[str, ...] = ()


@dataclass(frozen=True)
class DocumentFormat:
    name: str
    session: bool
    test: Test
    keys: str = ""
    needles: tuple[str, ...] | None = None  # literals one of which a match holds (None: none)


@dataclass(frozen=True)
class TextFormat:
    name: str
    session: bool
    needles: tuple[bytes, ...]  # any of these must occur before the patterns run
    patterns: tuple[re.Pattern[str], ...]  # each must match (the first one gives the line)
    min_first: int = 1  # how often the first pattern must match
    suffixes: tuple[str, ...] = ()  # only files with these suffixes ("" = no suffix)
    head: int = 0  # > 0: the needles must occur in the first ``head`` bytes (a file header)


def _str(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    return value if isinstance(value, str) else ""


def _has(record: Mapping[str, Any], *keys: str) -> bool:
    return all(k in record for k in keys)


def _dict(record: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def _list(record: Mapping[str, Any], key: str) -> list[Any]:
    value = record.get(key)
    return value if isinstance(value, list) else []


# --------------------------------------------------------------------------- agent tools' formats

CLAUDE_TYPES = frozenset({"user", "assistant", "system"})
CLAUDE_ENVELOPE = ("sessionId", "parentUuid", "isSidechain", "uuid", "cwd", "userType")
CODEX_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})
GEMINI_CLI_TYPES = frozenset({"user", "gemini", "info", "error", "warning", "model"})
COPILOT_PREFIXES = frozenset(
    {"session", "user", "assistant", "tool", "subagent", "permission", "hook", "abort", "skill"}
)
CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
RESPONSES_ITEMS = frozenset(
    {"function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output"}
)


def _claude(r: Mapping[str, Any]) -> bool:
    kind = _str(r, "type")
    if kind == "summary":
        return "leafUuid" in r
    if kind == "file-history-snapshot":
        return "snapshot" in r or "messageId" in r
    if kind in ("user", "assistant"):
        message = _dict(r, "message")
        return "content" in message and "role" not in r and any(k in r for k in CLAUDE_ENVELOPE)
    return kind == "system" and "parentUuid" in r and "sessionId" in r


def _claude_minimal(r: Mapping[str, Any]) -> bool:  # exports with only type/timestamp/message
    message = _dict(r, "message")
    return _str(r, "type") in ("user", "assistant") and "timestamp" in r and "content" in message


def _qwen(r: Mapping[str, Any]) -> bool:
    return "parentUuid" in r and "sessionId" in r and "parts" in _dict(r, "message")


def _claude_history(r: Mapping[str, Any]) -> bool:
    return _has(r, "display", "project", "timestamp")


def _codex(r: Mapping[str, Any]) -> bool:
    return _str(r, "type") in CODEX_TYPES and isinstance(r.get("payload"), dict)


def _codex_history(r: Mapping[str, Any]) -> bool:
    return _has(r, "session_id", "ts", "text")


def _codex_legacy(r: Mapping[str, Any]) -> bool:
    if "created_at" not in r:
        return False
    if _str(r, "type") in ("function_call", "function_result"):
        return True
    return _str(r, "role") in ("user", "assistant") and isinstance(r.get("message"), str)


def _gemini_cli(r: Mapping[str, Any]) -> bool:
    if _has(r, "sessionId", "projectHash"):
        return True
    if isinstance(r.get("$set"), dict) or "$rewindTo" in r:
        return True
    if _str(r, "type") == "gemini" and "content" in r:
        return True
    return _str(r, "role") == "gemini" and "parts" in r


def _cline_ui(r: Mapping[str, Any]) -> bool:
    kind = _str(r, "type")
    return "ts" in r and kind in ("say", "ask") and kind in r


CLINE_MARKS = ("<environment_details>", "[TASK RESUMPTION]")


def _cline_api(r: Mapping[str, Any]) -> bool:
    """A message of Cline's `api_conversation_history.json` (Anthropic MessageParam + `ts`):
    Cline wraps the first prompt in `<task>`, appends `<environment_details>` to each user
    turn (core/task getEnvironmentDetails) and writes `[TASK RESUMPTION]` on resume
    (core/prompts/responses.ts taskResumptionMessage)."""
    if _str(r, "role") not in ("user", "assistant"):
        return False
    content = r.get("content")
    if isinstance(content, str):
        return any(m in content for m in CLINE_MARKS)
    if not isinstance(content, list):
        return False
    for block in content[:16]:
        text = block.get("text") if isinstance(block, dict) else None
        if isinstance(text, str) and any(m in text for m in CLINE_MARKS):
            return True
    return False


def _copilot(r: Mapping[str, Any]) -> bool:
    kind = _str(r, "type")
    return "." in kind and kind.split(".", 1)[0] in COPILOT_PREFIXES and "data" in r


def _opencode(r: Mapping[str, Any]) -> bool:
    if "sessionID" in r and ("messageID" in r or "role" in r):
        return True
    return _has(r, "projectID", "directory") and _str(r, "id").startswith(("ses_", "s_"))


def _cursor(r: Mapping[str, Any]) -> bool:
    return _str(r, "role") in ("user", "assistant") and "content" in _dict(r, "message")


def _envelope_message(r: Mapping[str, Any]) -> bool:  # Factory Droid, pi
    kind = _str(r, "type")
    if kind in ("session_start", "session") and "cwd" in r:
        return True
    if kind in ("model_change", "thinking_level_change") and "parentId" in r:
        return True
    return kind == "message" and "role" in _dict(r, "message") and "parentId" in r


GROK_KEYS = ("synthetic_reason", "prompt_index", "model_fingerprint", "reasoning_effort")


def _grok(r: Mapping[str, Any]) -> bool:
    kind = _str(r, "type")
    if kind == "backend_tool_call" or (kind == "tool_result" and "tool_call_id" in r):
        return "role" not in r
    return kind in ("user", "assistant") and any(k in r for k in GROK_KEYS)


def _kimi(r: Mapping[str, Any]) -> bool:
    kind = _str(r, "type")
    return kind.startswith(("turn.", "context.", "llm.", "tools.")) or (
        kind == "metadata" and "protocol_version" in r
    )


def _apx(r: Mapping[str, Any]) -> bool:
    return _has(r, "channel", "actor_id", "content") and _str(r, "type") in (
        "user",
        "agent",
        "tool",
        "system",
    )


RECORD_FORMATS: tuple[RecordFormat, ...] = (
    RecordFormat(
        "Claude Code session",
        True,
        _claude,
        1,
        "sessionId/parentUuid/message",
        frozenset({*CLAUDE_ENVELOPE, "leafUuid", "snapshot", "messageId"}),
    ),
    RecordFormat(
        "Qwen Code session",
        True,
        _qwen,
        1,
        "parentUuid/sessionId/message.parts",
        frozenset({"parentUuid"}),
    ),
    RecordFormat(
        "Claude Code prompt history",
        True,
        _claude_history,
        2,
        "display/project",
        frozenset({"display"}),
    ),
    RecordFormat(
        "Codex rollout",
        True,
        _codex,
        1,
        "type/payload (session_meta, response_item)",
        frozenset({"payload"}),
    ),
    RecordFormat(
        "Codex prompt history",
        True,
        _codex_history,
        2,
        "session_id/ts/text",
        frozenset({"session_id"}),
    ),
    RecordFormat(
        "Codex session log",
        True,
        _codex_legacy,
        2,
        "created_at/role/function_result",
        frozenset({"created_at"}),
    ),
    RecordFormat(
        "Gemini CLI session",
        True,
        _gemini_cli,
        1,
        "sessionId/projectHash/type gemini",
        frozenset({"projectHash", "$set", "$rewindTo", "type", "role"}),
        needles=('"projectHash"', '"$set"', '"$rewindTo"', '"gemini"'),
    ),
    RecordFormat(
        "Cline/Roo task UI messages", True, _cline_ui, 2, "ts/type say|ask", frozenset({"ts"})
    ),
    RecordFormat(
        "Cline/Roo task API history",
        True,
        _cline_api,
        1,
        "role/content with <environment_details> or [TASK RESUMPTION]",
        frozenset({"role"}),
        needles=CLINE_MARKS,
    ),
    RecordFormat(
        "Copilot CLI session events",
        True,
        _copilot,
        2,
        "type session.*/tool.*, data",
        frozenset({"data"}),
        needles=tuple(f'"{prefix}.' for prefix in sorted(COPILOT_PREFIXES)),
    ),
    RecordFormat(
        "OpenCode session storage",
        True,
        _opencode,
        1,
        "sessionID/messageID",
        frozenset({"sessionID", "projectID"}),
    ),
    RecordFormat(
        "Cursor agent transcript", True, _cursor, 2, "role/message.content", frozenset({"message"})
    ),
    RecordFormat(
        "agent CLI session (Droid, pi)",
        True,
        _envelope_message,
        2,
        "type/message",
        frozenset({"message", "cwd", "parentId"}),
        needles=('"cwd"', '"parentId"'),
    ),
    RecordFormat(
        "Grok CLI chat history",
        True,
        _grok,
        2,
        "type/tool_call_id/prompt_index",
        frozenset({"type"}),
        needles=('"backend_tool_call"', '"tool_call_id"', *(f'"{k}"' for k in GROK_KEYS)),
    ),
    RecordFormat(
        "Kimi CLI wire log",
        True,
        _kimi,
        2,
        "type turn.*/context.*",
        frozenset({"type"}),
        needles=('"turn.', '"context.', '"llm.', '"tools.', '"protocol_version"'),
    ),
    RecordFormat("APX message log", True, _apx, 1, "channel/actor_id/type", frozenset({"channel"})),
    RecordFormat(
        "Claude Code-style session export",
        True,
        _claude_minimal,
        2,
        "type/message",
        frozenset({"message"}),
        needles=('"timestamp"',),
    ),
)


def _gemini_session_doc(d: Mapping[str, Any]) -> bool:
    messages = _list(d, "messages")
    if not messages or not any(k in d for k in ("lastUpdated", "startTime", "sessionId")):
        return False
    shaped = [m for m in messages if isinstance(m, dict) and _has(m, "id", "type", "content")]
    return bool(shaped) and all(_str(m, "type") in GEMINI_CLI_TYPES for m in shaped)


def _gemini_drift_doc(d: Mapping[str, Any]) -> bool:
    """A Gemini CLI session of the older shape: ``history`` is a list of messages (a
    tokenizer's ``vocab.json`` also has ``history``, ``start_time`` and ``meta`` keys, each
    mapped to a token id)."""
    if not ("start_time" in d or "lastUpdated" in d) or "meta" not in d:
        return False
    history = _list(d, "history")
    return bool(history) and all(
        isinstance(m, dict) and "role" in m and ("parts" in m or "content" in m)
        for m in history[:16]
    )


def _windsurf_doc(d: Mapping[str, Any]) -> bool:
    return "app" in d and "messages" in _dict(d, "conversation")


def _thread_doc(d: Mapping[str, Any]) -> bool:  # Amp threads
    messages = _list(d, "messages")
    return (
        "title" in d
        and bool(messages)
        and all(isinstance(m, dict) and "role" in m for m in messages)
        and any(isinstance(m, dict) and "messageId" in m for m in messages)
    )


def _history_doc(d: Mapping[str, Any]) -> bool:  # Kiro, Continue
    history = _list(d, "history")
    return (
        "sessionId" in d
        and bool(history)
        and any(isinstance(h, dict) and "role" in _dict(h, "message") for h in history)
    )


def _opencode_session_doc(d: Mapping[str, Any]) -> bool:
    messages = _list(d, "messages")
    return (
        _has(d, "id", "version", "directory")
        and isinstance(d.get("time"), dict)
        and all(isinstance(m, str) for m in messages)
    )


def _runstate_doc(d: Mapping[str, Any]) -> bool:
    return "$schemaVersion" in d and any(
        k in d for k in ("generated_items", "original_input", "model_responses")
    )


def _recording_doc(d: Mapping[str, Any]) -> bool:
    interactions = _list(d, "interactions")
    return bool(interactions) and all(
        isinstance(i, dict) and "request" in i for i in interactions[:5]
    )


DOCUMENT_FORMATS: tuple[DocumentFormat, ...] = (
    DocumentFormat(
        "Gemini CLI session", True, _gemini_session_doc, "messages/lastUpdated", ('"messages"',)
    ),
    DocumentFormat(
        "Gemini CLI session", True, _gemini_drift_doc, "history/start_time/meta", ('"history"',)
    ),
    DocumentFormat(
        "Windsurf conversation export", True, _windsurf_doc, "app/conversation", ('"conversation"',)
    ),
    DocumentFormat("Amp thread", True, _thread_doc, "title/messages.messageId", ('"messages"',)),
    DocumentFormat(
        "Kiro/Continue session", True, _history_doc, "sessionId/history", ('"sessionId"',)
    ),
    DocumentFormat(
        "OpenCode session", True, _opencode_session_doc, "id/version/directory", ('"directory"',)
    ),
    DocumentFormat(
        "OpenAI Agents SDK run state", False, _runstate_doc, "$schemaVersion", ('"$schemaVersion"',)
    ),
    DocumentFormat(
        "recorded API traffic", False, _recording_doc, "interactions/request", ('"interactions"',)
    ),
)

# --------------------------------------------------------------------------- generic histories


def _chat_message(r: Mapping[str, Any]) -> bool:
    return _str(r, "role") in CHAT_ROLES and any(
        k in r for k in ("content", "tool_calls", "tool_call_id")
    )


def _gemini_content(r: Mapping[str, Any]) -> bool:
    return _str(r, "role") in ("user", "model", "function") and isinstance(r.get("parts"), list)


def _responses_item(r: Mapping[str, Any]) -> bool:
    return _str(r, "type") in RESPONSES_ITEMS and "call_id" in r


def _framework_message(r: Mapping[str, Any]) -> bool:  # pydantic-ai, LangChain
    if _str(r, "kind") in ("request", "response") and isinstance(r.get("parts"), list):
        return True
    return _str(r, "type") in ("human", "ai", "tool") and "content" in _dict(r, "data")


GENERIC_FORMATS: tuple[RecordFormat, ...] = (
    RecordFormat(
        "provider chat messages", False, _chat_message, 2, "role/content", frozenset({"role"})
    ),
    RecordFormat("Gemini contents", False, _gemini_content, 2, "role/parts", frozenset({"parts"})),
    RecordFormat(
        "OpenAI Responses items", False, _responses_item, 1, "type/call_id", frozenset({"call_id"})
    ),
    RecordFormat(
        "framework message history",
        False,
        _framework_message,
        2,
        "kind/parts",
        frozenset({"parts", "data"}),
        needles=('"parts"', '"human"', '"ai"', '"tool"'),
    ),
)

# --------------------------------------------------------------------------- by its records

# Rule 3 of issue 29: a session is known by its records, whatever tool wrote it. Messages (a
# role and content) and at least two marks of a real session: a session/thread/conversation
# id, timestamps on the messages, tool calls with their results, a metadata header (the
# document holding the messages, or the first record of JSON Lines, with at least two of: an
# id, a title, a time, the run's environment). A provider request/response fixture has none
# of these but tool calls and its model: it stays a generic history (BTR002); recorded HTTP
# traffic (request/response pairs) never counts.
ROLES = frozenset({*CHAT_ROLES, "model", "gemini", "human", "ai", "agent"})
CONTENT_KEYS = ("content", "parts", "text", "segments", "message", "blocks")
SESSION_IDS = frozenset(
    {
        "sessionId",
        "session_id",
        "sessionID",
        "thread_id",
        "threadId",
        "threadID",
        "conversation_id",
        "conversationId",
        "conversationID",
        "chat_id",
        "chatId",
        "chatID",
    }
)
TIME_KEYS = frozenset(
    {
        "timestamp",
        "ts",
        "time",
        "created",
        "created_at",
        "createdAt",
        "updated_at",
        "updatedAt",
        "date",
        "datetime",
        "sent_at",
        "start_time",
        "startTime",
        "lastUpdated",
        "created_timestamp",
    }
)
HEADER_GROUPS = (
    frozenset({"id", "uuid", *SESSION_IDS}),
    frozenset({"title", "summary", "name", "description"}),
    TIME_KEYS,
    frozenset({"model", "cwd", "working_dir", "directory", "project", "version", "workspace"}),
)
CALL_KEYS = frozenset({"tool_calls", "toolCalls", "tool_uses", "function_call", "tool_use"})
RESULT_KEYS = frozenset({"tool_call_id", "tool_results", "toolResults", "tool_result"})
CALL_BLOCKS = frozenset(
    {"tool_use", "function_call", "tool-call", "tool_call", "toolCall", "toolRequest"}
)
RESULT_BLOCKS = frozenset(
    {
        "tool_result",
        "function_call_output",
        "tool-result",
        "functionResponse",
        "toolResult",
        "toolResponse",
    }
)
TRAFFIC_KEYS = frozenset({"request", "response", "interactions", "http_interactions"})
# What a record must name for the rule to be tested, for the prefilter (a role, or a prompt
# log's session id).
BY_RECORDS_NEEDLES = ('"role"', '"sessionId"', '"session_id"')


def _message(d: Mapping[str, Any]) -> str:
    """The role of a message record ("" if it is none): a role and content, not an API
    resource (``"object": "thread.message"`` of a provider's response fixture)."""
    role = _str(d, "role")
    if role not in ROLES or "object" in d:
        return ""
    return role if any(k in d for k in CONTENT_KEYS) or role == "tool" else ""


def _calls(d: Mapping[str, Any]) -> tuple[bool, bool]:
    """Does the message hold a tool call, a tool result?"""
    call = any(d.get(k) for k in CALL_KEYS)
    result = _str(d, "role") == "tool" or any(k in d for k in RESULT_KEYS)
    for key in ("content", "parts"):
        for block in _list(d, key)[:32]:
            if isinstance(block, dict):
                kind = _str(block, "type")
                call = call or kind in CALL_BLOCKS or "functionCall" in block
                result = result or kind in RESULT_BLOCKS or "functionResponse" in block
    return call, result


def _header(d: Mapping[str, Any]) -> bool:
    """At least two of the header groups, one of them a title or a time (a request body's id
    and model are not a header)."""
    present = [any(k in d for k in group) for group in HEADER_GROUPS]
    return sum(present) >= 2 and (present[1] or present[2])


@dataclass
class _Marks:
    messages: int = 0
    line: int = 0
    roles: set[str] = field(default_factory=set)
    timed: int = 0
    session: bool = False
    call: bool = False
    result: bool = False
    header: bool = False
    prompts: int = 0  # prompt-log records: {sessionId, type: "user", message, timestamp}

    def add(self, unit: Mapping[str, Any], role: str, line: int) -> None:
        self.messages += 1
        self.line = self.line or line
        self.roles.add(role)
        self.timed += any(k in unit for k in TIME_KEYS)
        self.session = self.session or any(unit.get(k) for k in SESSION_IDS)
        call, result = _calls(unit)
        self.call, self.result = self.call or call, self.result or result

    def verdict(self) -> Verdict | None:
        if self.prompts >= 2:
            return Verdict(
                "agent prompt log", True, self.line, self.prompts, "sessionId/type user/timestamp"
            )
        if self.messages < 2 or len(self.roles) < 2:
            return None
        marks = [
            name
            for name, present in (
                ("a session id", self.session),
                ("timestamps", self.timed >= 2),
                ("tool calls with results", self.call and self.result),
                ("a metadata header", self.header),
            )
            if present
        ]
        if len(marks) < 2:
            return None
        keys = "role/content with " + ", ".join(marks)
        return Verdict("chat session (known by its records)", True, self.line, self.messages, keys)


def _prompt(d: Mapping[str, Any]) -> bool:
    return (
        _str(d, "type") == "user"
        and isinstance(d.get("message"), str)
        and any(d.get(k) for k in ("sessionId", "session_id"))
        and any(k in d for k in TIME_KEYS)
    )


def by_records(values: list[tuple[Any, int]], found: list[Record]) -> Verdict | None:
    """Rule 3: a session of a format no table names, known by its messages and marks."""
    tops = [v for v, _ in values]
    if any(isinstance(v, dict) and TRAFFIC_KEYS & v.keys() for v in tops[:4]):
        return None
    marks = _Marks()
    first = tops[0] if tops else None
    if isinstance(first, dict) and not _message(first) and _header(first):
        marks.header = True  # the document holding the messages, or JSON Lines' first record
        marks.session = any(first.get(k) for k in SESSION_IDS)
    inner: set[int] = set()
    for record in found:
        d = record.value
        if id(d) in inner:
            continue
        if record.depth <= 1 and TRAFFIC_KEYS & d.keys() and {"request", "response"} & d.keys():
            return None
        if _prompt(d):
            marks.prompts += 1
            marks.line = marks.line or record.line
            continue
        wrapped = d.get("message")
        if isinstance(wrapped, dict) and _message(wrapped):  # an envelope around a message
            inner.add(id(wrapped))
            marks.add({**wrapped, **d}, _message(wrapped), record.line)
            continue
        role = _message(d)
        if role:
            marks.add(d, role, record.line)
    return marks.verdict()


# --------------------------------------------------------------------------- text formats

_M = re.MULTILINE
_EXPORT_SUFFIXES = (".md", ".markdown", ".mdx", ".txt", ".html", ".htm", "")
# A speaker heading holds only the speaker, maybe a (model, time) note and a colon:
# "## User", "**Assistant:**", "_**Agent (claude-opus 2026-01-12 15:08:42Z)**_", "### 🧑 Human".
_SPEAKER = (
    r"^(?:#{1,6}[ \t]+|_?\*\*)(?:[^\w\s]{1,3}[ \t]*)?(?:{who})(?:[ \t]*\([^)\n]{0,80}\))?"
    r"[ \t]*:?[ \t]*(?:\*\*_?)?:?[ \t]*\r?$"
)
_HUMAN = re.compile(_SPEAKER.replace("{who}", "User|Human|You|Prompt"), _M | re.IGNORECASE)
_MODEL = re.compile(
    _SPEAKER.replace("{who}", "Assistant|Agent|Claude|Model|AI|Gemini|Codex|Copilot|Response"),
    _M | re.IGNORECASE,
)
_SESSION_ID = re.compile(
    r"(?i)\bsession(?:[ _-]?id)?\b[^\n]{0,24}?[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-"
)
_TOOL_CALL = re.compile(
    r"(?i)<tool-use\b|\btool[ _-]?(?:use|call|input)s?\b[ \t*_]*[:(]|\*\*tool(?: use| call)?:?\*\*"
    r"|^[ \t#]*(?:🔧[ \t]*)?tool:|\"tool_use\"",
    _M,
)
_TOOL_RESULT = re.compile(
    r"(?i)<tool-result\b|\btool[ _-]?(?:result|output)s?\b|\*\*(?:result|output):?\*\*"
    r"|\"tool_result\"",
    _M,
)

TEXT_FORMATS: tuple[TextFormat, ...] = (
    TextFormat(
        "Aider chat history",
        True,
        (b"aider chat started at",),
        (re.compile(r"^# aider chat started at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d", _M),),
        head=4096,
    ),
    TextFormat(
        "Aider prompt history",
        True,
        (b"# 20",),
        (re.compile(r"^# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\r?\n\+", _M),),
        min_first=2,
        head=64,
    ),
    TextFormat(
        "SpecStory session export",
        True,
        (b"Generated by SpecStory",),
        (re.compile(r"^<!-- Generated by SpecStory", _M),),
        head=1024,
    ),
    TextFormat(
        "Cline task export",
        True,
        (b"**User:**",),
        (
            re.compile(r"^\*\*User:\*\*", _M),
            re.compile(r"^\*\*Assistant:\*\*", _M),
        ),
        suffixes=_EXPORT_SUFFIXES,
    ),
    TextFormat(  # SpecStory's speaker lines without its header (the header cut or renamed)
        "SpecStory session export",
        True,
        (b"_**User",),
        (
            re.compile(r"^_\*\*User(?:[ \t]*\([^)\n]{0,80}\))?\*\*_[ \t]*\r?$", _M),
            re.compile(r"^_\*\*(?:Assistant|Agent)(?:[ \t]*\([^)\n]{0,80}\))?\*\*_[ \t]*\r?$", _M),
        ),
        suffixes=_EXPORT_SUFFIXES,
    ),
    TextFormat(  # ZeroSumQuant/claude-conversation-extractor save_as_markdown
        "Claude Code conversation export (claude-conversation-extractor)",
        True,
        (b"# Claude Conversation Log",),
        (
            re.compile(r"^# Claude Conversation Log[ \t]*\r?$", _M),
            re.compile(r"^## [^\w\s]{0,3}[ \t]*User[ \t]*\r?$", _M),
            re.compile(r"^## [^\w\s]{0,3}[ \t]*Claude[ \t]*\r?$", _M),
        ),
        suffixes=_EXPORT_SUFFIXES,
        head=512,
    ),
    TextFormat(  # Claude Code's `/export` text: `> ` prompts, `⏺` replies and tool lines, `⎿`
        "Claude Code /export transcript",
        True,
        ("\u23fa".encode(),),
        (
            re.compile(r"^> \S", _M),
            re.compile(r"^\u23fa [^\n]", _M),
            re.compile(r"^[ \t]{1,6}\u23bf ", _M),
        ),
        suffixes=_EXPORT_SUFFIXES,
    ),
    TextFormat(  # the same with only the welcome box (a reply without a tool line)
        "Claude Code /export transcript",
        True,
        (b"Welcome to Claude Code",),
        (
            re.compile(r"^> \S", _M),
            re.compile(r"^\u23fa [^\n]", _M),
            re.compile(r"\u273b Welcome to Claude Code"),
        ),
        suffixes=_EXPORT_SUFFIXES,
    ),
    TextFormat(
        "HTML export of an agent session",
        True,
        (b"message",),
        (
            re.compile(r"""class=["'][^"'\n]{0,80}\bmessage\b[^"'\n]{0,40}\b(?:user|human)\b"""),
            re.compile(r"""class=["'][^"'\n]{0,80}\bmessage\b[^"'\n]{0,40}\bassistant\b"""),
            re.compile(r"""class=["'][^"'\n]{0,40}\btool[-_](?:use|result|call)\b|data-tool-id="""),
        ),
        suffixes=(".html", ".htm"),
    ),
    TextFormat(
        "recorded API traffic (cassette)",
        False,
        (b"interactions:",),
        (
            re.compile(r"^interactions:[ \t]*\r?$", _M),
            re.compile(r"^[ \t-]*request:[ \t]*\r?$", _M),
            re.compile(r"\b(?:role|model|messages|contents|tool_calls|functionCall)\b"),
        ),
        suffixes=(".yaml", ".yml", ".json", ""),
    ),
)


# --------------------------------------------------------------------------- the literals

# A JSON key or value may be written with a ``\u`` escape (``"session\u0049d"`` is a
# ``sessionId`` key): a blob holding one is always a candidate of the prefilter.
JSON_ESCAPE = "\\u"
# Suffixes read whatever their content: the export detector (:func:`_export`) needs only a
# ``#``, ``**`` or ``<h``, which nearly every Markdown, text or HTML file holds.
ALWAYS_SUFFIXES = _EXPORT_SUFFIXES


def _json_needles() -> tuple[str, ...]:
    out = [JSON_ESCAPE]
    for fmt in (*RECORD_FORMATS, *GENERIC_FORMATS):
        found = fmt.needles or tuple(f'"{key}"' for key in sorted(fmt.gate))
        if not found:
            raise ValueError(f"{fmt.name}: a record format declares no literal and no gate")
        out += found
    out += BY_RECORDS_NEEDLES
    for doc in DOCUMENT_FORMATS:
        if not doc.needles:
            raise ValueError(f"{doc.name}: a document format declares no literal")
        out += doc.needles
    return tuple(dict.fromkeys(out))


def _text_needles() -> tuple[bytes, ...]:
    """The text formats' literals, but for formats read only at :data:`ALWAYS_SUFFIXES`."""
    out: list[bytes] = []
    for fmt in TEXT_FORMATS:
        if fmt.suffixes and set(fmt.suffixes) <= set(ALWAYS_SUFFIXES):
            continue
        out += fmt.needles
    return tuple(out)


# What the session detectors cannot match without (one of these is in the bytes of every blob
# they report, but at :data:`ALWAYS_SUFFIXES`); the YAML sessions' keys are
# :data:`~.disguise.YAML_KEYS`.
JSON_NEEDLES = _json_needles()
NEEDLES: tuple[bytes, ...] = (*(n.encode() for n in JSON_NEEDLES), *_text_needles())


# --------------------------------------------------------------------------- detection


@dataclass(frozen=True)
class Verdict:
    name: str
    session: bool
    line: int
    count: int
    keys: str
    unit: str = "records"


def classify(blob: BlobView) -> Verdict | None:
    """What kind of session content the blob holds, if any (agent formats win over generic)."""
    if blob.binary:
        return None
    return _classify_json(blob) or _classify_text(blob) or _classify_yaml(blob)


def _classify_json(blob: BlobView) -> Verdict | None:
    if not opens_json(blob.data):
        return None
    values = top_values(blob.text, blob.complete)
    if not values:
        return None
    blob.structured = True
    return classify_values(values)


def classify_values(values: list[tuple[Any, int]]) -> Verdict | None:
    """The session format of parsed values (a JSON document, JSON Lines, a YAML document)."""
    for value, line in values[:1]:
        if isinstance(value, dict):
            for fmt in DOCUMENT_FORMATS:
                if fmt.test(value):
                    return Verdict(fmt.name, fmt.session, line, 1, fmt.keys)
    found = list(records(values))
    verdict = _first(RECORD_FORMATS, found)
    if verdict is not None:
        return verdict
    return by_records(values, found) or _first(GENERIC_FORMATS, found)


def _classify_yaml(blob: BlobView) -> Verdict | None:
    """A session serialised as YAML (parsed only when the blob names a session key)."""
    values = yaml_values(blob)
    if not values:
        return None
    verdict = classify_values(values)
    return replace(verdict, name=f"{verdict.name} (as YAML)") if verdict else None


def _first(table: tuple[RecordFormat, ...], found: list[Record]) -> Verdict | None:
    """The first format of ``table`` with enough matching records (one pass over them; a
    record is tested only against the formats whose gate keys it has)."""
    hits: dict[int, list[Record]] = {}
    by_key = _gate_index(table)
    for record in found:
        candidates = {i for key in record.value if key in by_key for i in by_key[key]}
        for index in candidates:
            if table[index].test(record.value):
                hits.setdefault(index, []).append(record)
    for index, fmt in enumerate(table):
        matched = hits.get(index, [])
        if len(matched) >= fmt.min_records:
            return Verdict(fmt.name, fmt.session, matched[0].line, len(matched), fmt.keys)
    return None


@cache
def _gate_index(table: tuple[RecordFormat, ...]) -> dict[str, tuple[int, ...]]:
    """Gate key -> the formats of ``table`` (by index) that a record with that key may be."""
    index: dict[str, list[int]] = {}
    for i, fmt in enumerate(table):
        for key in fmt.gate:
            index.setdefault(key, []).append(i)
    return {key: tuple(ids) for key, ids in index.items()}


def _has_needle(blob: BlobView, needles: tuple[bytes, ...], head: int = 0) -> bool:
    data = blob.data[:head] if head else blob.data
    return any(n in data for n in needles)


def _classify_text(blob: BlobView) -> Verdict | None:
    for fmt in TEXT_FORMATS:
        if fmt.suffixes and blob.suffix not in fmt.suffixes:
            continue
        if not _has_needle(blob, fmt.needles, fmt.head):
            continue
        text = blob.text
        first = list(fmt.patterns[0].finditer(text))
        if len(first) < fmt.min_first or not all(p.search(text) for p in fmt.patterns[1:]):
            continue
        line = text.count("\n", 0, first[0].start()) + 1
        return Verdict(fmt.name, fmt.session, line, len(first), "", "headers")
    return _export(blob) if blob.suffix in _EXPORT_SUFFIXES else None


def _export(blob: BlobView) -> Verdict | None:
    """A Markdown/HTML export of an agent session: speakers of both sides, and a session id or
    tool calls with their input."""
    if not _has_needle(blob, (b"**", b"#", b"<h")):
        return None
    text = blob.text
    humans = list(_HUMAN.finditer(text))
    if not humans:
        return None
    models = list(_MODEL.finditer(text))
    if not models:
        return None
    if len(humans) + len(models) < 3:
        # One exchange: the prompt first, then a session id or a tool call with its result.
        if humans[0].start() > models[0].start():
            return None
        if not (
            _SESSION_ID.search(text) or (_TOOL_CALL.search(text) and _TOOL_RESULT.search(text))
        ):
            return None
    elif not (_SESSION_ID.search(text) or _TOOL_CALL.search(text)):
        return None
    first = min(humans[0].start(), models[0].start())
    count = len(humans) + len(models)
    line = text.count("\n", 0, first) + 1
    return Verdict("agent session export", True, line, count, "", "speaker headings")


def detect_transcript(blob: BlobView, verdict: Verdict) -> Iterator[Detection]:
    """The BTR detection for a classified blob (severity by kind and place)."""
    where = f" ({verdict.count} {verdict.unit})" if verdict.count > 1 else ""
    keys = f"; identified by {verdict.keys}" if verdict.keys else ""
    if verdict.session:
        yield Detection(
            SESSION,
            f"{verdict.name}{where}{keys}: agent runtime state; `git rm --cached` it and "
            "add the path to .gitignore",
            verdict.line,
            None,
            match=verdict.name,
        )
        return
    inside = blob.contract or blob.in_apc
    yield Detection(
        GENERIC,
        f"{verdict.name}{where}{keys}: "
        + (
            "a recorded conversation inside the contract is runtime state: remove it"
            if inside
            else "a recorded conversation; if it is a deliberate test fixture, allow its "
            "folder for BTR002 in .apc-tools.yaml"
        ),
        verdict.line,
        None,
        match=verdict.name,
        severity=Severity.ERROR if inside else None,
    )
