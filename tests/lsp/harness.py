"""A real LSP client (pygls's LanguageClient over stdio) driving a real `apc lsp` process.

Each test runs one :class:`Session` in ``asyncio.run``: the server is started as
``python -m apc_tools lsp`` (the console script's path), initialized with the given workspace
folders, and shut down with shutdown/exit at the end (its exit code checked).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("pygls")

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

T = TypeVar("T")
TIMEOUT = float(os.environ.get("APC_LSP_TEST_TIMEOUT", "60"))


def uri(path: Path) -> str:
    return path.absolute().as_uri()


class Session:
    """One server process and its client."""

    def __init__(
        self,
        folders: list[Path],
        *,
        debounce: float = 0.01,
        capabilities: t.ClientCapabilities | None = None,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> None:
        self.folders = folders
        self.debounce = debounce
        self.capabilities = capabilities or default_capabilities()
        self.env = env
        self.cwd = cwd
        self.client = LanguageClient("apc-tests", "1")
        self.diagnostics: dict[str, list[t.Diagnostic]] = {}
        self.versions: dict[str, int | None] = {}
        self.published = 0  # publishDiagnostics received
        self.logs: list[t.LogMessageParams] = []
        self.registrations: list[t.Registration] = []
        self.changed = asyncio.Event()
        self.opened: dict[str, int] = {}
        self.initialize_seconds = 0.0
        self.exit_code: int | None = None

        @self.client.feature(t.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def published(params: t.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.versions[params.uri] = params.version
            self.published += 1
            self.changed.set()

        @self.client.feature(t.WINDOW_LOG_MESSAGE)
        def logged(params: t.LogMessageParams) -> None:
            self.logs.append(params)
            self.changed.set()

        @self.client.feature(t.CLIENT_REGISTER_CAPABILITY)
        def register(params: t.RegistrationParams) -> None:
            self.registrations += params.registrations

    async def __aenter__(self) -> Session:
        env = {**os.environ, **(self.env or {})}
        started = time.perf_counter()
        await self.client.start_io(
            sys.executable, "-m", "apc_tools", "lsp", env=env, cwd=self.cwd or self.folders[0]
        )
        result = await asyncio.wait_for(
            self.client.initialize_async(
                t.InitializeParams(
                    capabilities=self.capabilities,
                    process_id=os.getpid(),
                    root_uri=uri(self.folders[0]) if self.folders else None,
                    workspace_folders=[
                        t.WorkspaceFolder(uri=uri(f), name=f.name) for f in self.folders
                    ]
                    or None,
                    initialization_options={"debounce": self.debounce},
                )
            ),
            TIMEOUT,
        )
        self.initialize_seconds = time.perf_counter() - started
        self.result = result
        self.client.initialized(t.InitializedParams())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.client.stopped:
            return
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
            self.client.exit(None)
            server = self.client._server
            if server is not None:
                self.exit_code = await asyncio.wait_for(server.wait(), TIMEOUT)
        finally:
            await asyncio.wait_for(self.client.stop(), TIMEOUT)

    # ------------------------------------------------------------------ documents

    def open(self, path: Path, text: str | None = None, language: str = "markdown") -> str:
        if text is None:
            text = path.read_bytes().decode("utf-8", "surrogateescape")
        key = uri(path)
        self.opened[key] = 1
        self.client.text_document_did_open(
            t.DidOpenTextDocumentParams(
                t.TextDocumentItem(uri=key, language_id=language, version=1, text=text)
            )
        )
        return key

    def replace(self, path: Path, text: str) -> str:
        """Replace the whole buffer (a full change)."""
        key = uri(path)
        self.opened[key] = self.opened.get(key, 0) + 1
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=key, version=self.opened[key]),
                content_changes=[t.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return key

    def edit(self, path: Path, span: t.Range, text: str) -> str:
        key = uri(path)
        self.opened[key] = self.opened.get(key, 0) + 1
        self.client.text_document_did_change(
            t.DidChangeTextDocumentParams(
                text_document=t.VersionedTextDocumentIdentifier(uri=key, version=self.opened[key]),
                content_changes=[t.TextDocumentContentChangePartial(range=span, text=text)],
            )
        )
        return key

    def save(self, path: Path) -> None:
        self.client.text_document_did_save(
            t.DidSaveTextDocumentParams(t.TextDocumentIdentifier(uri=uri(path)))
        )

    def close(self, path: Path) -> None:
        self.opened.pop(uri(path), None)
        self.client.text_document_did_close(
            t.DidCloseTextDocumentParams(t.TextDocumentIdentifier(uri=uri(path)))
        )

    def watched(self, *changes: tuple[Path, t.FileChangeType]) -> None:
        self.client.workspace_did_change_watched_files(
            t.DidChangeWatchedFilesParams(
                changes=[t.FileEvent(uri=uri(p), type=kind) for p, kind in changes]
            )
        )

    # ------------------------------------------------------------------ waiting

    async def until(self, condition: Callable[[], T], timeout: float = TIMEOUT) -> T:
        """Wait until ``condition()`` is truthy (checked at each message received)."""
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting; logs: {[m.message for m in self.logs]}")
            self.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.changed.wait(), min(left, 0.5))

    async def settled(self, quiet: float = 0.3) -> None:
        """Wait until no diagnostics arrive for ``quiet`` seconds."""
        count = -1
        while count != self.published:
            count = self.published
            await asyncio.sleep(quiet)

    async def diagnostics_of(
        self, path: Path, check: Callable[[list[t.Diagnostic]], bool] = lambda d: True
    ) -> list[t.Diagnostic]:
        key = uri(path)
        await self.until(lambda: key in self.diagnostics and check(self.diagnostics[key]))
        return self.diagnostics[key]

    async def barrier(self, path: Path) -> None:
        """Every diagnostic of the changes sent so far has arrived: the server runs what is
        pending before it answers a request, and its answer follows those notifications."""
        await self.request(
            self.client.text_document_hover_async(
                t.HoverParams(t.TextDocumentIdentifier(uri=uri(path)), t.Position(0, 0))
            )
        )

    async def request(self, awaitable: Awaitable[T]) -> T:
        return await asyncio.wait_for(awaitable, TIMEOUT)


def default_capabilities() -> t.ClientCapabilities:
    return t.ClientCapabilities(
        workspace=t.WorkspaceClientCapabilities(
            workspace_edit=t.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[t.ResourceOperationKind.Create],
            ),
            did_change_watched_files=t.DidChangeWatchedFilesClientCapabilities(
                dynamic_registration=True
            ),
        ),
        text_document=t.TextDocumentClientCapabilities(
            publish_diagnostics=t.PublishDiagnosticsClientCapabilities(version_support=True),
            hover=t.HoverClientCapabilities(content_format=[t.MarkupKind.Markdown]),
        ),
        general=t.GeneralClientCapabilities(
            position_encodings=[t.PositionEncodingKind.Utf16],
        ),
    )


def run(coroutine: Awaitable[Any]) -> Any:
    return asyncio.run(coroutine)  # type: ignore[arg-type]


def lsp_lines(text: str) -> list[str]:
    """``text`` cut into lines as the LSP cuts them (\n, \r\n, \r)."""
    import re

    return re.split(r"\r\n|\r|\n", text)


def utf16(text: str) -> int:
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


def codes(diagnostics: list[t.Diagnostic], source: str | None = None) -> list[str]:
    return sorted(str(d.code) for d in diagnostics if source is None or d.source == source)


def apply_edit(text: str, edits: list[t.TextEdit]) -> str:
    """``edits`` applied to ``text`` (UTF-16 positions, lines as LSP cuts them)."""
    import re

    starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", text)]

    def offset(position: t.Position) -> int:
        base = starts[position.line] if position.line < len(starts) else len(text)
        units = 0
        index = base
        while units < position.character and index < len(text) and text[index] not in "\r\n":
            units += 2 if ord(text[index]) > 0xFFFF else 1
            index += 1
        return index

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character))[::-1]:
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text
