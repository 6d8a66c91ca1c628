"""The ``initialize`` answer before the LSP libraries are loaded.

Importing lsprotocol's types (about a thousand attrs classes) costs more than the 300 ms an
editor should wait for a server to start. So `apc lsp` reads the client's first message itself
and, when it is ``initialize``, answers it at once with the capabilities the pygls server
declares (:data:`CAPABILITIES`; tests/lsp/test_start.py holds the two equal); then it loads the
server, hands it that same message first (its state is set up as usual) and drops the server's
own answer to it. Everything else goes through pygls unchanged.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import IO, Any

from apc_tools import __version__

EARLY_ENV = "APC_LSP_EARLY"  # "0": let pygls answer initialize itself (the reference)
ENCODINGS = ("utf-8", "utf-16", "utf-32")  # what pygls's position codec supports
CAPABILITIES: dict[str, Any] = {
    "codeActionProvider": {"codeActionKinds": ["quickfix", "source.fixAll.apc"]},
    "completionProvider": {"triggerCharacters": [":", " ", ","]},
    "executeCommandProvider": {"commands": []},
    "hoverProvider": True,
    "textDocumentSync": {"change": 2, "openClose": True, "save": True},
    "workspace": {
        "fileOperations": {},
        "workspaceFolders": {"changeNotifications": True, "supported": True},
    },
}
_LENGTH = re.compile(rb"^Content-Length: *(\d+)\r?\n$", re.I)
MAX_HEADER_LINES = 32


def read_message(stream: IO[bytes]) -> bytes:
    """One whole JSON-RPC message (headers and body) as read, or what was read before the
    stream ended or stopped looking like a header."""
    raw = b""
    length = None
    for _ in range(MAX_HEADER_LINES):
        line = stream.readline()
        raw += line
        if not line:
            return raw
        match = _LENGTH.match(line)
        if match:
            length = int(match.group(1))
        elif line in (b"\r\n", b"\n"):
            break
    else:
        return raw
    if length is None:
        return raw
    return raw + stream.read(length)


def answer(raw: bytes) -> tuple[bytes, Any] | None:
    """The response to ``raw`` when it is an ``initialize`` request (and its id), else None."""
    _, sep, body = raw.partition(b"\r\n\r\n")
    if not sep:
        return None
    try:
        message = json.loads(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    if "id" not in message:
        return None
    result = {
        "capabilities": {**CAPABILITIES, "positionEncoding": encoding(message.get("params"))},
        "serverInfo": {"name": "apc", "version": __version__},
    }
    return frame({"jsonrpc": "2.0", "id": message["id"], "result": result}), message["id"]


def encoding(params: Any) -> str:
    """The position encoding pygls chooses: the client's first supported one, else UTF-16."""
    try:
        offered = params["capabilities"]["general"]["positionEncodings"]
    except (KeyError, TypeError):
        return "utf-16"
    if isinstance(offered, list):
        for one in offered:
            if one in ENCODINGS:
                return str(one)
    return "utf-16"


def frame(message: Any) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class Replay:
    """A stdin that gives ``first`` before the rest of ``stream`` (readline and read, as
    pygls's reader calls them)."""

    def __init__(self, first: bytes, stream: IO[bytes]) -> None:
        self.first = first
        self.stream = stream

    def readline(self) -> bytes:
        if self.first:
            line, sep, rest = self.first.partition(b"\n")
            self.first = rest
            return line + sep if sep else line + self.stream.readline()
        return self.stream.readline()

    def read(self, size: int = -1) -> bytes:
        if self.first:
            if size < 0:
                data, self.first = self.first, b""
                return data + self.stream.read()
            data, self.first = self.first[:size], self.first[size:]
            if len(data) < size:
                data += self.stream.read(size - len(data))
            return data
        return self.stream.read(size)


class Dropping:
    """A stdout that drops the server's own response to the request already answered."""

    def __init__(self, stream: IO[bytes], drop: Any) -> None:
        self.stream = stream
        self.drop = drop
        self.dropped = drop is None

    def write(self, data: bytes) -> int:
        if not self.dropped and self._answers(data):
            self.dropped = True
            return len(data)
        written = self.stream.write(data)
        return len(data) if written is None else written

    def _answers(self, data: bytes) -> bool:
        _, _, body = data.partition(b"\r\n\r\n")
        try:
            message = json.loads(body)
        except ValueError:
            return False
        return (
            isinstance(message, dict) and "method" not in message and message.get("id") == self.drop
        )

    def flush(self) -> None:
        self.stream.flush()

    def close(self) -> None:
        self.stream.close()


def serve() -> int:
    """`apc lsp`: answer ``initialize`` early (unless ``APC_LSP_EARLY=0``), then run pygls."""
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    if os.environ.get(EARLY_ENV) == "0":
        from apc_tools.lsp.server import serve as run

        return run(stdin, stdout)
    first = read_message(stdin)
    early = answer(first)
    if early is not None:
        stdout.write(early[0])
        stdout.flush()
    from apc_tools.lsp.server import serve as run

    return run(Replay(first, stdin), Dropping(stdout, early[1] if early else None))
