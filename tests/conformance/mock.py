"""A loopback mock of the three provider APIs the conformance CLIs talk to.

One server on 127.0.0.1 answers all three wire formats, chosen by path:

- Anthropic Messages (``POST /v1/messages``), streamed as SSE when the request asks for it;
  ``/v1/messages/count_tokens`` answers a token count;
- OpenAI Responses (``POST /v1/responses`` or ``/responses``), always SSE;
- Gemini (``POST /v1beta/models/M:streamGenerateContent``, ``:generateContent``,
  ``:countTokens``).

Every request is recorded (path, query, headers without credentials, decoded JSON body) so a test
reads exactly what the CLI loaded. Replies are scripted: a ``Script`` holds the turns (a tool
call, then a final text, by default just a final text) and is advanced once per *main-loop*
request; requests that are not part of the conversation (title generation, quota checks,
next-speaker checks) get a plain text or JSON reply without consuming a turn.
"""

from __future__ import annotations

import json
import threading
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_SECRET_HEADERS = {"authorization", "x-api-key", "x-goog-api-key", "cookie"}


@dataclass(frozen=True)
class ToolCall:
    """A scripted tool call: the tool's name as the CLI declared it, and its arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Parallel:
    """Several tool calls in one model turn (the CLI runs them, maybe at the same time)."""

    calls: tuple[ToolCall, ...]


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Hang:
    """Accept the request and never answer (until the server stops): a turn that never ends."""


Turn = ToolCall | Parallel | Text | Hang


@dataclass
class Recorded:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any  # decoded JSON, or the raw text when the body is not JSON

    @property
    def api(self) -> str:
        p = self.path
        if "count_tokens" in p or ":countTokens" in p:
            return "count"
        if p.endswith("/messages"):
            return "anthropic"
        if p.endswith("/responses"):
            return "openai"
        if ":streamGenerateContent" in p or ":generateContent" in p:
            return "gemini"
        return "other"


@dataclass
class Script:
    """The replies of one conversation, in order; once spent, every reply is the last text."""

    turns: list[Turn] = field(default_factory=lambda: [Text("OK")])
    done: int = 0

    def next(self) -> Turn:
        turn = self.turns[min(self.done, len(self.turns) - 1)]
        self.done += 1
        return turn


class MockServer:
    """Start with ``with MockServer() as mock:``; ``mock.url`` is ``http://127.0.0.1:PORT``."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script or Script()
        self.requests: list[Recorded] = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> MockServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def conversation(self, api: str) -> list[Recorded]:
        """The requests of the main loop of one API (``anthropic``, ``openai``, ``gemini``)."""
        return [r for r in self.requests if r.api == api and _is_main_loop(r)]

    def record(self, rec: Recorded) -> None:
        with self._lock:
            self.requests.append(rec)

    def take_turn(self) -> Turn:
        with self._lock:
            return self.script.next()


def _is_main_loop(rec: Recorded) -> bool:
    """A conversation request carries tools (side requests such as titles carry none)."""
    body = rec.body
    if not isinstance(body, dict):
        return False
    if rec.api == "gemini":
        return bool(body.get("tools")) or bool(
            (body.get("request") or {}).get("tools")  # code-assist envelope
        )
    return bool(body.get("tools"))


def _handler_for(mock: MockServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _body(self) -> Any:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.headers.get("content-encoding") == "zstd":  # pragma: no cover
                return raw.hex()
            text = raw.decode("utf-8", "replace")
            try:
                return json.loads(text) if text else None
            except ValueError:
                return text

        def _record(self, body: Any) -> Recorded:
            split = urlsplit(self.path)
            rec = Recorded(
                method=self.command,
                path=split.path,
                query=parse_qs(split.query),
                headers={
                    k.lower(): v
                    for k, v in self.headers.items()
                    if k.lower() not in _SECRET_HEADERS
                },
                body=body,
            )
            mock.record(rec)
            return rec

        def do_GET(self) -> None:
            rec = self._record(None)
            if rec.path.endswith("/models"):
                self._json(200, {"data": [], "models": [], "object": "list"})
            else:
                self._json(404, {"error": {"message": "not mocked", "type": "not_found"}})

        def do_HEAD(self) -> None:
            self._record(None)
            self.send_response(200)
            self.send_header("content-length", "0")
            self.end_headers()

        def do_POST(self) -> None:
            rec = self._record(self._body())
            body = rec.body if isinstance(rec.body, dict) else {}
            if rec.api == "count":
                self._json(200, {"input_tokens": 100, "totalTokens": 100})
            elif rec.api == "anthropic":
                self._anthropic(body, rec)
            elif rec.api == "openai":
                self._openai(body, rec)
            elif rec.api == "gemini":
                self._gemini(body, rec)
            else:
                self._json(404, {"error": {"message": "not mocked", "type": "not_found"}})

        # --- wire helpers ---------------------------------------------------------------

        def _json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sse(self, events: list[tuple[str | None, Any]]) -> None:
            chunks = []
            for name, payload in events:
                head = f"event: {name}\n" if name else ""
                chunks.append(f"{head}data: {json.dumps(payload)}\n\n")
            data = "".join(chunks).encode()
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _turn_for(self, rec: Recorded) -> Turn:
            if not _is_main_loop(rec):
                return Text("OK")
            turn = mock.take_turn()
            if isinstance(turn, Hang):
                mock.stopping.wait(600)
            return turn

        # --- Anthropic Messages -----------------------------------------------------------

        def _anthropic(self, body: dict[str, Any], rec: Recorded) -> None:
            turn = self._turn_for(rec)
            if isinstance(turn, Hang):
                return
            model = body.get("model", "claude-mock")
            msg_id = "msg_" + uuid.uuid4().hex[:24]
            usage = {"input_tokens": 10, "output_tokens": 5}
            # (start block, delta, final block) per content block
            blocks: list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]] = []
            for call in _calls_of(turn):
                block: dict[str, Any] = {
                    "type": "tool_use",
                    "id": "toolu_" + uuid.uuid4().hex[:24],
                    "name": call.name,
                    "input": {},
                }
                delta: dict[str, Any] = {
                    "type": "input_json_delta",
                    "partial_json": json.dumps(call.arguments),
                }
                blocks.append((block, delta, {**block, "input": call.arguments}))
            if isinstance(turn, Text):
                blocks.append(
                    (
                        {"type": "text", "text": ""},
                        {"type": "text_delta", "text": turn.text},
                        {"type": "text", "text": turn.text},
                    )
                )
            stop = "end_turn" if isinstance(turn, Text) else "tool_use"
            if not body.get("stream"):
                self._json(
                    200,
                    {
                        "id": msg_id,
                        "type": "message",
                        "role": "assistant",
                        "model": model,
                        "content": [final for _, _, final in blocks],
                        "stop_reason": stop,
                        "stop_sequence": None,
                        "usage": usage,
                    },
                )
                return
            start = {
                "type": "message_start",
                "message": {
                    "id": msg_id,
                    "type": "message",
                    "role": "assistant",
                    "model": model,
                    "content": [],
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": {"input_tokens": 10, "output_tokens": 1},
                },
            }
            events: list[tuple[str | None, Any]] = [("message_start", start)]
            for index, (block, delta, _) in enumerate(blocks):
                events += [
                    (
                        "content_block_start",
                        {"type": "content_block_start", "index": index, "content_block": block},
                    ),
                    (
                        "content_block_delta",
                        {"type": "content_block_delta", "index": index, "delta": delta},
                    ),
                    ("content_block_stop", {"type": "content_block_stop", "index": index}),
                ]
            events += [
                (
                    "message_delta",
                    {
                        "type": "message_delta",
                        "delta": {"stop_reason": stop, "stop_sequence": None},
                        "usage": {"output_tokens": 5},
                    },
                ),
                ("message_stop", {"type": "message_stop"}),
            ]
            self._sse(events)

        # --- OpenAI Responses -------------------------------------------------------------

        def _openai(self, body: dict[str, Any], rec: Recorded) -> None:
            turn = self._turn_for(rec)
            if isinstance(turn, Hang):
                return
            resp_id = "resp_" + uuid.uuid4().hex[:24]
            items: list[dict[str, Any]] = [
                {
                    "type": "function_call",
                    "id": "fc_" + uuid.uuid4().hex[:24],
                    "call_id": "call_" + uuid.uuid4().hex[:24],
                    "name": call.name,
                    "arguments": json.dumps(call.arguments),
                    "status": "completed",
                }
                for call in _calls_of(turn)
            ]
            if isinstance(turn, Text):
                items.append(
                    {
                        "type": "message",
                        "id": "msg_" + uuid.uuid4().hex[:24],
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": turn.text, "annotations": []}],
                    }
                )
            response = {
                "id": resp_id,
                "object": "response",
                "status": "in_progress",
                "model": body.get("model", "gpt-mock"),
                "output": [],
            }
            usage = {
                "input_tokens": 10,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": 5,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": 15,
            }
            events: list[tuple[str | None, Any]] = [
                ("response.created", {"type": "response.created", "response": response})
            ]
            for index, item in enumerate(items):
                events.append(
                    (
                        "response.output_item.added",
                        {"type": "response.output_item.added", "output_index": index, "item": item},
                    )
                )
                if item["type"] == "message":
                    events.append(
                        (
                            "response.output_text.delta",
                            {
                                "type": "response.output_text.delta",
                                "item_id": item["id"],
                                "output_index": index,
                                "content_index": 0,
                                "delta": item["content"][0]["text"],
                            },
                        )
                    )
                events.append(
                    (
                        "response.output_item.done",
                        {"type": "response.output_item.done", "output_index": index, "item": item},
                    )
                )
            completed = {**response, "status": "completed", "output": items, "usage": usage}
            events.append(
                ("response.completed", {"type": "response.completed", "response": completed})
            )
            self._sse(events)

        # --- Gemini -----------------------------------------------------------------------

        def _gemini(self, body: dict[str, Any], rec: Recorded) -> None:
            turn = self._turn_for(rec)
            if isinstance(turn, Hang):
                return
            parts: list[dict[str, Any]] = [
                {"functionCall": {"name": call.name, "args": call.arguments}}
                for call in _calls_of(turn)
            ]
            if isinstance(turn, Text):
                parts.append(
                    {"text": turn.text if _is_main_loop(rec) else _gemini_side_reply(body)}
                )
            chunk = {
                "candidates": [
                    {
                        "content": {"role": "model", "parts": parts},
                        "finishReason": "STOP",
                        "index": 0,
                    }
                ],
                "usageMetadata": {
                    "promptTokenCount": 10,
                    "candidatesTokenCount": 5,
                    "totalTokenCount": 15,
                },
                "modelVersion": "gemini-mock",
            }
            if ":streamGenerateContent" in rec.path:
                self._sse([(None, chunk)])
            else:
                self._json(200, chunk)

    return Handler


def _calls_of(turn: Turn) -> tuple[ToolCall, ...]:
    if isinstance(turn, ToolCall):
        return (turn,)
    if isinstance(turn, Parallel):
        return turn.calls
    return ()


def _gemini_side_reply(body: dict[str, Any]) -> str:
    """Side requests that expect JSON (next-speaker check, routing) get a harmless JSON answer."""
    config = body.get("generationConfig") or {}
    if config.get("responseMimeType") == "application/json" or config.get("responseJsonSchema"):
        return json.dumps(
            {
                "next_speaker": "user",
                "reasoning": "The model finished its turn.",
                "model_choice": "flash",
            }
        )
    return "OK"
