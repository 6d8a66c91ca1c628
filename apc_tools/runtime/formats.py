"""Which kind of file ``apc repair`` was given, recognised before any wire format is guessed.

People keep their agent's *session files*, not HTTP request bodies. Voting on the records of
such a file for a wire format misreads it (a Cursor transcript as OpenAI chat, a Gemini CLI
session as Bedrock), so every known session and transcript format is fingerprinted first, from
the file's first bytes (:data:`HEAD_BYTES`) and, for JSONL, its first :data:`HEAD_RECORDS`
records. Each :class:`Format` declares how it is recognised and what ``apc repair`` does with it:

* ``session``: an agent's own session file, repaired add-only by the module named in
  ``handler`` (:mod:`apc_tools.runtime.sessions`);
* ``wire``: a wire history in a known container (``list_key`` names the list of records);
* ``nothing``: recognised, and there is nothing to repair (Markdown transcripts);
* ``refused``: recognised and not supported: exit 2 naming the format, nothing written.

A file that matches no fingerprint is a plain wire history and goes to wire detection. ``--wire``
never overrides a recognised format (:func:`identify` runs first whatever ``--wire`` says).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

HEAD_BYTES = 1 << 20
"""How much of a file the fingerprints look at."""

HEAD_RECORDS = 50
"""How many leading JSONL records the fingerprints look at."""

Kind = Literal["session", "wire", "nothing", "refused"]


@dataclass(frozen=True)
class Head:
    """The first bytes of a file, read once: the text, and what parsed of it."""

    path: Path
    text: str
    top: Mapping[str, Any] | None = None  # the file is one JSON object (read whole)
    items: Sequence[Any] = ()  # JSON array elements, or the first JSONL records
    keys: frozenset[str] = field(default_factory=frozenset)  # top-level keys (object)


@dataclass(frozen=True)
class Format:
    """One known file format and what ``apc repair`` does with it."""

    name: str
    kind: Kind
    match: Callable[[Head], bool]
    advice: str = ""
    handler: str = ""  # session formats: the module of apc_tools.runtime.sessions
    wire: str = ""  # wire formats in a container: the wire of the records
    list_key: str = ""


# --------------------------------------------------------------------------------------------
# Reading the head


def read_head(path: Path) -> Head | None:
    """The head of a regular file, or None (a stream, a device: left to the wire reader)."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as fh:
            data = fh.read(HEAD_BYTES + 1)
    except OSError:
        return None
    at_eof = len(data) <= HEAD_BYTES
    text = data[:HEAD_BYTES].decode("utf-8", errors="replace").lstrip("\ufeff")
    return _parse_head(path, text, at_eof)


def head_of_stream(path: Path, stream: IO[bytes]) -> tuple[Head, IO[bytes]]:
    """The head of a stream (stdin), and a stream that reads it from its start again (a pipe
    is read once: the bytes read are put back in front)."""
    from apc_tools.runtime.io import replay

    data = stream.read(HEAD_BYTES + 1)
    at_eof = len(data) <= HEAD_BYTES
    text = data[:HEAD_BYTES].decode("utf-8", errors="replace").lstrip("\ufeff")
    return _parse_head(path, text, at_eof), replay(data, stream)


def _parse_head(path: Path, text: str, at_eof: bool) -> Head:
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        return Head(path, text)
    if at_eof:
        try:
            value = json.loads(stripped)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):  # one object; on one line it may be a JSONL record too
            one_line = "\n" not in stripped.rstrip()
            return Head(path, text, value, [value] if one_line else (), frozenset(value))
        if isinstance(value, list):
            return Head(path, text, None, value[:HEAD_RECORDS])
    records = _jsonl_records(stripped, at_eof)
    if records or not stripped.startswith("{"):
        return Head(path, text, None, records)
    return Head(path, text, None, (), frozenset(_TOP_KEY.findall(stripped)))


_TOP_KEY = re.compile(r'^(?:\{\s*|\s{1,2})"([^"\\]{1,64})"\s*:', re.MULTILINE)


def _jsonl_records(text: str, at_eof: bool) -> list[Any]:
    lines = text.splitlines() if at_eof else text.splitlines()[:-1]
    records: list[Any] = []
    for line in lines:
        if len(records) == HEAD_RECORDS:
            break
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except (ValueError, RecursionError):
            records.append(None)
    return records if any(isinstance(r, dict) for r in records) else []


# --------------------------------------------------------------------------------------------
# Fingerprints


def _dicts(head: Head) -> list[Mapping[str, Any]]:
    return [r for r in head.items if isinstance(r, dict)]


def _first(head: Head) -> Mapping[str, Any]:
    records = _dicts(head)
    return records[0] if records else {}


def _has(head: Head, *keys: str) -> bool:
    return all(k in head.keys for k in keys)


def _any(head: Head, test: Callable[[Mapping[str, Any]], bool]) -> bool:
    return any(test(r) for r in _dicts(head))


def _count(head: Head, test: Callable[[Mapping[str, Any]], bool]) -> int:
    return sum(1 for r in _dicts(head) if test(r))


def _message(record: Mapping[str, Any]) -> Mapping[str, Any]:
    value = record.get("message")
    return value if isinstance(value, dict) else {}


_CLAUDE_ENVELOPE = ("parentUuid", "sessionId", "isSidechain", "uuid", "cwd", "timestamp")
_CLAUDE_ONLY = ("file-history-snapshot", "queue-operation")


def _claude_record(r: Mapping[str, Any]) -> bool:
    if r.get("type") == "summary" and "leafUuid" in r:
        return True
    if r.get("type") in _CLAUDE_ONLY:
        return True
    message = _message(r)
    return (
        r.get("type") in ("user", "assistant")
        and "content" in message
        and "parts" not in message
        and "role" not in r
        and "payload" not in r
        and any(k in r for k in _CLAUDE_ENVELOPE)
    )


def _claude_code(head: Head) -> bool:
    return _any(head, _claude_record) and not _claude_drift(head) and not _qwen(head)


def _claude_drift(head: Head) -> bool:
    """Claude-Code-like records with ``tool_use``/``tool_result`` as record types."""
    return _any(head, _claude_record) and _any(
        head, lambda r: r.get("type") in ("tool_use", "tool_result") and "message" not in r
    )


_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)


def _codex_record(r: Mapping[str, Any]) -> bool:
    return r.get("type") in _CODEX_TYPES and isinstance(r.get("payload"), dict) and "timestamp" in r


def _codex(head: Head) -> bool:
    first = _first(head)
    if first.get("type") == "session_meta" and isinstance(first.get("payload"), dict):
        return True
    return _count(head, _codex_record) >= 2


def _codex_drift(head: Head) -> bool:
    """Codex-like lines without the rollout envelope (``created_at``, bare ``function_call``)."""
    return _any(head, lambda r: r.get("type") == "world_state") or _any(
        head,
        lambda r: "created_at" in r and r.get("type") in ("function_call", "function_result"),
    )


def _gemini_session_jsonl(head: Head) -> bool:
    first = _first(head)
    if "sessionId" in first and "projectHash" in first and "type" not in first:
        return True
    return _any(head, lambda r: "$set" in r or "$rewindTo" in r)


def _gemini_session_json(head: Head) -> bool:
    return (
        head.top is not None
        and _has(head, "sessionId", "messages")
        and ("projectHash" in head.keys or "startTime" in head.keys)
    )


def _gemini_checkpoint(head: Head) -> bool:
    """``/chat save``: ``{"history": [Content...], "authType"?}``."""
    if not _has(head, "history") or not head.keys <= {"history", "authType"}:
        return False
    history = head.top.get("history") if head.top is not None else None
    return history is None or (
        isinstance(history, list)
        and all(isinstance(c, dict) and "parts" in c for c in history[:HEAD_RECORDS])
    )


def _gemini_restore(head: Head) -> bool:
    return _has(head, "history", "clientHistory") or _has(head, "commitHash", "toolCall")


def _gemini_other(head: Head) -> bool:
    return _has(head, "history") and ("start_time" in head.keys or "lastUpdated" in head.keys)


def _qwen(head: Head) -> bool:
    return _any(
        head,
        lambda r: (
            "parentUuid" in r and ("parts" in _message(r) or _message(r).get("role") == "model")
        ),
    )


def _cursor(head: Head) -> bool:
    return _any(
        head, lambda r: isinstance(r.get("role"), str) and "content" in _message(r)
    ) and not _any(head, lambda r: "content" in r)


def _copilot(head: Head) -> bool:
    return _any(
        head,
        lambda r: (
            isinstance(r.get("type"), str)
            and r["type"].startswith(("session.", "tool.execution", "assistant.", "user."))
            and "data" in r
        ),
    )


def _pi(head: Head) -> bool:
    first = _first(head)
    return first.get("type") == "session" and "cwd" in first and "version" in first


def _droid(head: Head) -> bool:
    return _first(head).get("type") == "session_start" or (
        _any(head, lambda r: r.get("type") == "message" and bool(_message(r)))
        and _any(head, lambda r: "parentId" in r)
    )


def _grok(head: Head) -> bool:
    return _any(
        head,
        lambda r: (
            r.get("type") in ("user", "assistant", "system")
            and "role" not in r
            and "message" not in r
            and "content" in r
        ),
    ) and _any(head, lambda r: r.get("type") in ("tool_result", "assistant", "user"))


def _kimi(head: Head) -> bool:
    first = _first(head)
    return first.get("type") == "metadata" and "protocol_version" in first


def _claude_prompts(head: Head) -> bool:
    """``~/.claude/history.jsonl``: typed prompts (``display``), no conversation."""
    if head.top is not None or head.items:
        records = _dicts(head) or ([head.top] if head.top is not None else [])
        return bool(records) and all("display" in r and "timestamp" in r for r in records)
    return '"display"' in head.text[:4096] and '"sessionId"' in head.text[:4096]


def _every_item(head: Head, test: Callable[[Mapping[str, Any]], bool]) -> bool:
    """A JSON array (or JSONL) whose every leading element is an object passing ``test``."""
    return (
        head.top is None
        and bool(head.items)
        and all(isinstance(r, dict) and test(r) for r in head.items)
    )


def _cline_ui(head: Head) -> bool:
    return _every_item(head, lambda r: "ts" in r and r.get("type") in ("say", "ask"))


def _pydantic_ai(head: Head) -> bool:
    return _every_item(head, lambda r: r.get("kind") in ("request", "response") and "parts" in r)


def _langchain(head: Head) -> bool:
    return _every_item(
        head,
        lambda r: (
            r.get("type") in ("human", "ai", "tool", "system") and isinstance(r.get("data"), dict)
        ),
    )


def _opencode(head: Head) -> bool:
    if _has(head, "sessionID") and ("messageID" in head.keys or "role" in head.keys):
        return True
    return _has(head, "projectID", "directory") or (
        _has(head, "id", "version") and "sessionID" not in head.keys and "directory" in head.keys
    )


def _opencode_session(head: Head) -> bool:
    return _has(head, "id", "version", "time") and "title" in head.keys


def _http_recording(head: Head) -> bool:
    return head.text.lstrip().startswith("interactions:") or _has(head, "interactions")


def _runstate(head: Head) -> bool:
    return _has(head, "$schemaVersion") and (
        "generated_items" in head.keys
        or "original_input" in head.keys
        or "auto_previous_response_id" in head.keys
    )


def _continue(head: Head) -> bool:
    return _has(head, "sessionId", "workspaceDirectory", "history")


def _kiro(head: Head) -> bool:
    return _has(head, "sessionId", "workspacePath", "history")


def _amp(head: Head) -> bool:
    """An Amp thread: ``{id, messages: [{role, messageId, content}], usageLedger?, env?}``."""
    if not _has(head, "id", "messages"):
        return False
    messages = head.top.get("messages") if head.top is not None else None
    first = messages[0] if isinstance(messages, list) and messages else None
    return "usageLedger" in head.keys or (isinstance(first, dict) and "messageId" in first)


def _windsurf(head: Head) -> bool:
    return _has(head, "app", "conversation") or (
        head.top is not None and head.top.get("app") == "Windsurf"
    )


_AIDER_CHAT = re.compile(r"\A\s*# aider chat started at ")
_AIDER_INPUT = re.compile(r"\A\s*# \d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?\r?\n\+")


def _aider(head: Head) -> bool:
    name = head.path.name
    return (
        name in (".aider.chat.history.md", ".aider.input.history")
        or name.endswith(("__.aider.chat.history.md", "__.aider.input.history"))
        or bool(_AIDER_CHAT.match(head.text) or _AIDER_INPUT.match(head.text))
    )


def _specstory(head: Head) -> bool:
    start = head.text.lstrip()[:200]
    if start.startswith("<!-- Generated by SpecStory") or start.startswith("# SpecStory"):
        return True
    return _has(head, "workspace_id", "project_name") or ".specstory" in head.path.parts


def _zstd(head: Head) -> bool:
    """A zstd frame (magic 28 B5 2F FD), as Codex archives old rollouts (``.jsonl.zst``)."""
    return head.path.suffix == ".zst" or head.text.startswith("(\ufffd/\ufffd")


# --------------------------------------------------------------------------------------------
# The registry, in the order the fingerprints are tried

_OWN_TOOL = "; repair it with that tool, or extract the request body and repair that"
_NOTHING = "Markdown: no tool calls to pair, nothing to repair"

FORMATS: tuple[Format, ...] = (
    Format(
        "zstd-compressed file (an archived Codex rollout?)",
        "refused",
        _zstd,
        "decompress it first (zstd -d FILE), repair the .jsonl, and compress it again",
    ),
    Format("Aider chat history", "nothing", _aider, _NOTHING),
    Format("SpecStory history", "nothing", _specstory, _NOTHING),
    Format(
        "HTTP recording (VCR cassette or replay file)",
        "refused",
        _http_recording,
        "it wraps request bodies: extract one request's messages/input/contents and repair that",
    ),
    Format(
        "OpenAI Agents SDK RunState",
        "refused",
        _runstate,
        "it holds pending approvals by design; resume it with the Agents SDK",
    ),
    Format(
        "Gemini CLI restore checkpoint",
        "refused",
        _gemini_restore,
        "its pending tool call is re-proposed by Gemini CLI on restore: never close it",
    ),
    Format(
        "Gemini CLI chat checkpoint (/chat save)",
        "wire",
        _gemini_checkpoint,
        wire="gemini",
        list_key="history",
    ),
    Format("Gemini CLI session", "session", _gemini_session_json, handler="gemini_cli"),
    Format("Gemini CLI session", "session", _gemini_session_jsonl, handler="gemini_cli"),
    Format(
        "Gemini CLI session (unknown variant)",
        "refused",
        _gemini_other,
        "its layout is not one Gemini CLI writes today",
    ),
    Format("Codex rollout", "session", _codex, handler="codex"),
    Format(
        "Codex-like log without the rollout envelope",
        "refused",
        _codex_drift,
        "it is neither a Codex rollout nor a wire history",
    ),
    Format("Qwen Code session", "refused", _qwen, "not supported yet" + _OWN_TOOL),
    Format(
        "Claude Code-like log with tool_use/tool_result records",
        "refused",
        _claude_drift,
        "Claude Code does not write tool calls as records of their own",
    ),
    Format("Claude Code session", "session", _claude_code, handler="claude_code"),
    Format(
        "Claude Code prompt history (history.jsonl)",
        "nothing",
        _claude_prompts,
        "it lists typed prompts, not a conversation: nothing to repair",
    ),
    Format("Copilot CLI session events", "refused", _copilot, "not supported yet" + _OWN_TOOL),
    Format("Kimi Code CLI session", "refused", _kimi, "not supported yet" + _OWN_TOOL),
    Format("pi session", "refused", _pi, "not supported yet" + _OWN_TOOL),
    Format("Factory Droid session", "refused", _droid, "not supported yet" + _OWN_TOOL),
    Format("Cursor agent transcript", "refused", _cursor, "not supported yet" + _OWN_TOOL),
    Format("Grok CLI chat history", "refused", _grok, "not supported yet" + _OWN_TOOL),
    Format(
        "Cline/Roo/Kilo UI state (ui_messages.json)",
        "refused",
        _cline_ui,
        "it is the task's UI log; repair api_conversation_history.json next to it instead",
    ),
    Format("pydantic-ai message history", "refused", _pydantic_ai, "pydantic-ai repairs it itself"),
    Format("LangChain message dump", "refused", _langchain, "not supported yet"),
    Format("Continue session", "refused", _continue, "not supported yet" + _OWN_TOOL),
    Format("Kiro session", "refused", _kiro, "not supported yet" + _OWN_TOOL),
    Format("Amp thread", "refused", _amp, "not supported yet" + _OWN_TOOL),
    Format("Windsurf export", "refused", _windsurf, "not supported yet"),
    Format(
        "OpenCode storage file",
        "refused",
        lambda head: _opencode(head) or _opencode_session(head),
        "OpenCode keeps sessions in a database (one part per file before): not a history file",
    ),
)

SESSION_FORMATS = tuple(f.name for f in FORMATS if f.kind == "session")


def identify(head: Head) -> Format | None:
    """The first known format whose fingerprint matches, or None: a plain wire history."""
    for candidate in FORMATS:
        if candidate.match(head):
            return candidate
    return None
