"""Recorded histories from ../shared/corpus/transcripts, as (wire, records) test inputs.

Test-side only: the library never reads cassettes. A YAML cassette (VCR, pydantic-ai) is loaded
with ruamel.yaml in safe mode; the request's ``parsed_body`` (or its ``body`` JSON string) holds
the history. JSON recordings (opencode) keep the body as a JSON string. OpenAI Agents SDK RunState
files are turned into Responses input: the original input as a user message, then the raw items
the run generated (approval items repeat a call already listed and are skipped). The wire is taken
from the request URL, so the cassettes that mix providers are split correctly. A Responses request
that continues server-side state (``previous_response_id`` or ``conversation``) is marked
``continuation``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import TRANSCRIPTS

FOLDERS = (
    "openai-chat-completions",
    "openai-responses",
    "anthropic-messages",
    "gemini-contents",
    "bedrock-converse",
)

_URL_WIRES = (
    ("/chat/completions", "openai-chat"),
    ("/v1/responses", "openai-responses"),
    ("api.anthropic.com", "anthropic"),
    ("generativelanguage.googleapis.com", "gemini"),
    ("aiplatform.googleapis.com", "gemini"),
    ("bedrock-runtime", "bedrock"),
)
_LIST_KEYS = {
    "openai-chat": "messages",
    "openai-responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
    "bedrock": "messages",
}


@dataclass(frozen=True)
class Recorded:
    """One recorded request: ``status`` is the HTTP status (None for a RunState file)."""

    name: str
    wire: str
    records: list[dict[str, Any]]
    status: int | None
    continuation: bool = False

    @property
    def accepted(self) -> bool:
        return self.status is not None and 200 <= self.status < 300


def _load(path: Path) -> Any:
    if path.suffix == ".yaml":
        from ruamel.yaml import YAML

        return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    return json.loads(path.read_text(encoding="utf-8"))


def _body(request: dict[str, Any]) -> Any:
    if isinstance(request.get("parsed_body"), dict):
        return request["parsed_body"]
    body = request.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    try:
        return json.loads(body) if isinstance(body, str | bytes) else None
    except ValueError:
        return None


def _status(response: dict[str, Any]) -> int | None:
    status = response.get("status")
    if isinstance(status, dict):
        status = status.get("code")
    return status if isinstance(status, int) else None


def _wire(url: str) -> str | None:
    return next((wire for part, wire in _URL_WIRES if part in url), None)


def _from_cassette(path: Path, data: dict[str, Any]) -> list[Recorded]:
    out = []
    for number, interaction in enumerate(data.get("interactions", [])):
        request = interaction["request"]
        wire = _wire(str(request.get("uri") or request.get("url") or ""))
        body = _body(request)
        if wire is None or not isinstance(body, dict):
            continue
        records = body.get(_LIST_KEYS[wire])
        if isinstance(records, list) and records:
            status = _status(interaction.get("response", {}))
            server = bool(body.get("previous_response_id") or body.get("conversation"))
            out.append(Recorded(f"{path.name}#{number}", wire, records, status, server))
    return out


def _from_runstate(path: Path, data: dict[str, Any]) -> list[Recorded]:
    original = data.get("original_input")
    records: list[dict[str, Any]] = (
        [{"role": "user", "content": original}] if isinstance(original, str) else list(original)
    )
    for item in data.get("generated_items", []):
        if item.get("type") != "tool_approval_item" and isinstance(item.get("raw_item"), dict):
            records.append(item["raw_item"])
    return [Recorded(path.name, "openai-responses", records, None)]


def recorded(folder: str) -> list[Recorded]:
    """Every request history recorded in one corpus folder."""
    out: list[Recorded] = []
    for path in sorted((TRANSCRIPTS / folder).iterdir()):
        data = _load(path)
        if "interactions" in data:
            out += _from_cassette(path, data)
        elif "generated_items" in data:
            out += _from_runstate(path, data)
    return out


def all_recorded() -> list[Recorded]:
    if not TRANSCRIPTS.exists():
        return []
    return [item for folder in FOLDERS for item in recorded(folder)]
