"""`apc lsp`: the language server (pygls over stdio). The findings, fixes and explanations come
from the library (:mod:`.analysis`, :mod:`.frontmatter`); this module only speaks LSP.

- Every open document is validated with its project (the scan root `apc validate` would take
  in the innermost workspace folder holding it), the buffers of every open document standing in
  for their files on disk; the diagnostics of every open document of that root are published
  (and cleared where a finding no longer holds), so a cross-file finding follows any change.
- Changes are debounced (``initializationOptions.debounce``, seconds; default
  :data:`DEBOUNCE`): one run per root for a burst of changes.
- ``workspace/didChangeWatchedFiles``: a contract file created, changed or deleted on disk
  re-runs its root; the policy (``.apc-tools.yaml``) or the baseline re-runs every root.
- Nothing is written: a fix is a code action whose edit the client applies.
- A failure inside a handler is sent as ``window/logMessage`` (with its traceback) and the
  server goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import traceback
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol import types as t
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path, uri_scheme

from apc_tools import __version__
from apc_tools.findings import Finding, Severity
from apc_tools.lsp import analysis, frontmatter

DEBOUNCE = 0.015  # seconds of quiet after a change before the run (a run blocks the loop:
# the changes that arrive meanwhile are coalesced anyway)
SOURCE = "apc"
BOUNDARY_SOURCE = "apc boundary"
FIX_ALL = "source.fixAll.apc"
WATCHED = ("**/*.md", "**/*.mdc", "**/*.json", "**/.gitignore", "**/.apc-tools.yaml")
SEVERITIES = {
    Severity.ERROR: t.DiagnosticSeverity.Error,
    Severity.WARNING: t.DiagnosticSeverity.Warning,
    Severity.INFO: t.DiagnosticSeverity.Information,
}
R = TypeVar("R")


class Published:
    """What was published for one document: the text it was computed on, each diagnostic with
    its finding."""

    def __init__(self, text: str, pairs: list[tuple[t.Diagnostic, Finding]]) -> None:
        self.text = text
        self.pairs = pairs


class ApcServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("apc", __version__)
        self.debounce = DEBOUNCE
        self.roots: dict[str, Path] = {}  # open document uri -> its scan root
        self.dirty: set[Path] = set()
        self.timer: asyncio.TimerHandle | None = None
        self.published: dict[str, Published] = {}  # uri -> its last non-empty diagnostics
        self.boundary: dict[str, tuple[bytes, list[Finding]]] = {}  # uri -> (bytes, verdict)
        self.gate_of = analysis.Gate()
        self.last: dict[Path, analysis.Found] = {}
        self.hidden_bom: set[str] = set()  # documents whose editor hides the file's BOM
        self.extra: dict[Path, set[str]] = {}  # per root: uris published that no buffer shows
        self.session: Any = None  # contract.session.Session, made on the first run

    # ------------------------------------------------------------------ guarded work

    def log(self, message: str, kind: t.MessageType = t.MessageType.Log) -> None:
        with contextlib.suppress(Exception):  # the stream is gone: nothing to tell anyone
            self.window_log_message(t.LogMessageParams(type=kind, message=message))

    def guarded(self, what: str, work: Callable[[], R], default: R) -> R:
        """``work()``, or ``default`` with the failure logged: one check that crashes never
        takes the server down."""
        try:
            return work()
        except Exception as exc:  # reported to the client; the server goes on
            detail = "".join(traceback.format_exception(exc))
            self.log(f"apc lsp: {what} failed: {exc!r}\n{detail}", t.MessageType.Error)
            return default

    # ------------------------------------------------------------------ documents

    def folders(self) -> list[str]:
        out = []
        for folder in self.workspace.folders.values():
            if uri_scheme(folder.uri) == "file":
                path = to_fs_path(folder.uri)
                if path:
                    out.append(os.path.realpath(path))
        root = self.workspace.root_path
        if not out and root:
            out.append(os.path.realpath(root))
        return out

    def path_of(self, uri: str) -> str | None:
        if uri_scheme(uri) != "file":
            return None
        path = to_fs_path(uri)
        return analysis.absolute(path) if path else None

    def track(self, uri: str) -> None:
        path = self.path_of(uri)
        if path is None:
            return
        root = analysis.scan_root(path, self.folders())
        self.roots[uri] = root
        self.touch(root)

    def touch(self, root: Path) -> None:
        self.dirty.add(root)
        if self.timer is not None:
            self.timer.cancel()
        loop = asyncio.get_running_loop()
        self.timer = loop.call_later(self.debounce, self.flush)

    def settle(self) -> None:
        """Before answering a request: run what is pending now, so that the answer (and every
        diagnostic published before it) is about the buffers as they are."""
        if self.timer is not None:
            self.timer.cancel()
            self.flush()

    def flush(self) -> None:
        """Run every root that changed since the last run and publish."""
        self.timer = None
        dirty, self.dirty = self.dirty, set()
        for root in sorted(dirty):
            self.guarded(f"validating {root}", partial(self.run_root, root), None)

    def texts_of(self, root: Path) -> dict[str, tuple[str, bytes]]:
        """uri -> (path, bytes) of the open documents of ``root``."""
        out = {}
        for uri, mine in self.roots.items():
            if mine != root or uri not in self.workspace.text_documents:
                continue
            path = self.path_of(uri)
            if path is None:
                continue
            doc = self.workspace.get_text_document(uri)
            hidden = uri in self.hidden_bom
            out[uri] = (path, analysis.buffer_bytes(doc.source, _disk(path), hidden))
        return out

    def run_root(self, root: Path) -> None:
        if self.session is None:  # this process validates the same trees on every change
            from apc_tools.contract.session import Session

            self.session = Session()
        opened = self.texts_of(root)
        texts = {Path(path): data for path, data in opened.values()}
        found = (
            analysis.validate_root(root, texts, self.session) if opened else analysis.Found(root)
        )
        self.last[root] = found
        if found.error is not None:
            self.log(f"apc lsp: {found.error}", t.MessageType.Warning)
        for uri, (path, data) in opened.items():
            findings = found.by_path.get(path, [])
            work = partial(self.publish, uri, path, data, findings, found)
            self.guarded(f"publishing {path}", work, None)
        extra: set[str] = set()
        if found.error is not None:
            extra.add(self.publish_policy_error(root, found))
        for path, findings in found.by_path.items():
            if os.path.isfile(path) or any(p == path for p, _ in opened.values()):
                continue
            # a file that is missing (a required one), a folder: no buffer will ever show it
            uri = Path(path).as_uri()
            self.send(uri, None, "", [(self.diagnostic(f, [""]), f) for f in findings])
            extra.add(uri)
        for uri in self.extra.get(root, set()) - extra:
            self.send(uri, None, "", [])
        self.extra[root] = extra
        stale = [u for u, r in self.roots.items() if r == root and u not in opened]
        for uri in stale:  # closed meanwhile
            self.clear(uri)

    def publish(
        self, uri: str, path: str, data: bytes, findings: list[Finding], found: analysis.Found
    ) -> None:
        doc = self.workspace.get_text_document(uri)
        lines = frontmatter.lines_of(doc.source)
        pairs = [(self.diagnostic(f, lines), f) for f in findings]
        gate = self.gate(uri, path, data, findings, found)
        if gate is not None:
            pairs.append((self.diagnostic(gate, lines, BOUNDARY_SOURCE), gate))
        self.send(uri, doc.version, doc.source, pairs)

    def send(
        self, uri: str, version: int | None, text: str, pairs: list[tuple[t.Diagnostic, Finding]]
    ) -> None:
        if not pairs and uri not in self.published:
            return  # nothing shown before, nothing to show now
        if pairs:
            self.published[uri] = Published(text, pairs)
        else:
            self.published.pop(uri, None)
        self.text_document_publish_diagnostics(
            t.PublishDiagnosticsParams(uri=uri, diagnostics=[d for d, _ in pairs], version=version)
        )

    def clear(self, uri: str) -> None:
        self.roots.pop(uri, None)
        self.hidden_bom.discard(uri)
        self.boundary.pop(uri, None)
        if uri in self.published:
            self.published.pop(uri)
            self.text_document_publish_diagnostics(
                t.PublishDiagnosticsParams(uri=uri, diagnostics=[])
            )

    def publish_policy_error(self, root: Path, found: analysis.Found) -> str:
        """The run could not be made (the policy is unreadable or invalid): said on the
        policy file, where it can be fixed."""
        uri = (root / analysis.POLICY_FILE).as_uri()
        finding = Finding("apc", Severity.ERROR, analysis.POLICY_FILE, 1, 1, str(found.error))
        diagnostic = t.Diagnostic(
            range=t.Range(t.Position(0, 0), t.Position(0, 0)),
            message=f"apc cannot validate this project: {found.error}",
            severity=t.DiagnosticSeverity.Error,
            source=SOURCE,
        )
        self.send(uri, None, "", [(diagnostic, finding)])
        return uri

    def gate(
        self, uri: str, path: str, data: bytes, findings: list[Finding], found: analysis.Found
    ) -> Finding | None:
        """The one diagnostic of a file `apc boundary` would refuse, or None (the verdict kept
        while the bytes are the same; a cause the validate findings report already is not said
        twice, as in `apc check`)."""
        from apc_tools.check import without_duplicates

        known = self.boundary.get(uri)
        if known is None or known[0] != data:
            known = (data, self.gate_of.judge(path, data))
            self.boundary[uri] = known
        gate = without_duplicates(known[1], findings)
        if not gate:
            return None
        first = gate[0]
        more = f" (and {len(gate) - 1} more)" if len(gate) > 1 else ""
        message = (
            f"apc boundary would refuse this file if it were committed: {first.message}{more}; "
            "keep it out of git (add it to .gitignore) or remove it"
        )
        return Finding(first.rule, Severity.ERROR, first.path, first.line, first.column, message)

    def diagnostic(self, finding: Finding, lines: list[str], source: str = SOURCE) -> t.Diagnostic:
        return t.Diagnostic(
            range=self.range_of(finding, lines),
            message=finding.message,
            severity=SEVERITIES[finding.severity],
            code=finding.rule,
            code_description=t.CodeDescription(href=analysis.rule_url(finding.rule)),
            source=source,
            data={"line": finding.line, "column": finding.column, "path": finding.path},
        )

    def range_of(self, finding: Finding, lines: list[str]) -> t.Range:
        """The finding's line, from its column (1-based code points) to the end of the line
        (findings carry no end), in the client's position units."""
        line = max(0, min((finding.line or 1) - 1, len(lines) - 1))
        text = lines[line] if lines else ""
        column = min(max((finding.column or 1) - 1, 0), len(text))
        end = len(text)
        units = self.workspace.position_codec.client_num_units
        return t.Range(t.Position(line, units(text[:column])), t.Position(line, units(text[:end])))

    def to_index(self, lines: list[str], position: t.Position) -> tuple[int, int]:
        """(line, code point) of a client position."""
        if not lines:
            return 0, 0
        line = min(position.line, len(lines) - 1)
        text = lines[line]
        units = self.workspace.position_codec.client_num_units
        count = 0
        for index, char in enumerate(text):
            if count >= position.character:
                return line, index
            count += units(char)
        return line, len(text)

    # ------------------------------------------------------------------ fixes

    def actions(self, params: t.CodeActionParams) -> list[t.CodeAction]:
        from apc_tools.catalog import registry
        from apc_tools.contract.fix import fix_kinds

        uri = params.text_document.uri
        path = self.path_of(uri)
        root = self.roots.get(uri) or next((r for r, u in self.extra.items() if uri in u), None)
        if path is None or root is None:
            return []
        opened = uri in self.workspace.text_documents
        only = params.context.only
        want_quick = not only or any(_covers(k, t.CodeActionKind.QuickFix) for k in only)
        want_all = not only or any(_covers(k, FIX_ALL) for k in only)
        published = self.published.get(uri)
        pairs = published.pairs if published is not None else []
        kinds = fix_kinds()
        fixable = [(d, f) for d, f in pairs if d.source == SOURCE and kinds.get(f.rule)]
        if not fixable:
            return []
        texts = {Path(p): data for p, data in self.texts_of(root).values()}
        doc = self.workspace.get_text_document(uri) if opened else None
        out: list[t.CodeAction] = []
        rules = registry()
        asked = {(d.code, d.range.start.line) for d in params.context.diagnostics}
        if want_quick:
            done: dict[str, t.WorkspaceEdit | None] = {}
            for diagnostic, finding in fixable:
                if asked and (diagnostic.code, diagnostic.range.start.line) not in asked:
                    continue
                if not _overlaps(diagnostic.range, params.range) and not asked:
                    continue
                unsafe = kinds[finding.rule] == "unsafe"
                if finding.rule not in done:
                    planned = analysis.plan_file(
                        root, path, texts, unsafe=unsafe, rule=finding.rule
                    )
                    done[finding.rule] = self.edit_of(planned, doc)
                edit = done[finding.rule]
                if edit is None:
                    continue
                how = rules[finding.rule].fix_how if finding.rule in rules else ""
                title = f"apc: fix {finding.rule}" + (f" ({how})" if how else "")
                if unsafe:
                    title = f"apc: unsafe fix {finding.rule}: review it" + (
                        f" ({how})" if how else ""
                    )
                out.append(
                    t.CodeAction(
                        title=title,
                        kind=t.CodeActionKind.QuickFix,
                        diagnostics=[diagnostic],
                        is_preferred=not unsafe,
                        edit=edit,
                    )
                )
        if want_all and any(kinds[f.rule] == "safe" for _, f in fixable):
            edit = self.edit_of(analysis.plan_file(root, path, texts), doc)
            if edit is not None:
                out.append(
                    t.CodeAction(
                        title="apc: fix all safe fixes in this file",
                        kind=FIX_ALL,
                        diagnostics=[d for d, f in fixable if kinds[f.rule] == "safe"],
                        edit=edit,
                    )
                )
        return out

    def edit_of(
        self, planned: list[analysis.PlannedFix], doc: Any | None
    ) -> t.WorkspaceEdit | None:
        """The fixes as one workspace edit on the buffer (one replacement of the span that
        changed), plus the files they create; None when the buffer is not what was fixed."""
        if not planned:
            return None
        changes: list[Any] = []
        plain: dict[str, list[t.TextEdit]] = {}
        capabilities = self.client_capabilities.workspace
        edit_caps = capabilities.workspace_edit if capabilities else None
        versioned = bool(edit_caps and edit_caps.document_changes)
        creates = bool(
            edit_caps
            and edit_caps.resource_operations
            and t.ResourceOperationKind.Create in edit_caps.resource_operations
        )
        for fix in planned:
            if fix.before is None:
                if not (versioned and creates):
                    continue
                uri = Path(fix.path).as_uri()
                text = fix.after.decode("utf-8", "surrogateescape")
                changes.append(t.CreateFile(uri=uri, options=t.CreateFileOptions(overwrite=False)))
                changes.append(
                    t.TextDocumentEdit(
                        text_document=t.OptionalVersionedTextDocumentIdentifier(
                            uri=uri, version=None
                        ),
                        edits=[t.TextEdit(t.Range(t.Position(0, 0), t.Position(0, 0)), text)],
                    )
                )
                continue
            if doc is None or fix.path != self.path_of(doc.uri):
                continue
            edit = self.text_edit(doc.source, fix.before, fix.after)
            if edit is None:
                return None
            if versioned:
                changes.append(
                    t.TextDocumentEdit(
                        text_document=t.OptionalVersionedTextDocumentIdentifier(
                            uri=doc.uri, version=doc.version
                        ),
                        edits=[edit],
                    )
                )
            else:
                plain[doc.uri] = [edit]
        if versioned:
            return t.WorkspaceEdit(document_changes=changes) if changes else None
        return t.WorkspaceEdit(changes=plain) if plain else None

    def text_edit(self, source: str, before: bytes, after: bytes) -> t.TextEdit | None:
        old, new = _text(before), _text(after)
        if old.startswith("\ufeff") and not source.startswith("\ufeff"):
            old, new = old[1:], new.removeprefix("\ufeff")
        if old != source:
            return None  # the bytes fixed are not the buffer's text (a file not UTF-8)
        if old == new:
            return None
        start = 0
        while start < min(len(old), len(new)) and old[start] == new[start]:
            start += 1
        end_old, end_new = len(old), len(new)
        while end_old > start and end_new > start and old[end_old - 1] == new[end_new - 1]:
            end_old -= 1
            end_new -= 1
        return t.TextEdit(
            t.Range(self.position_at(old, start), self.position_at(old, end_old)),
            new[start:end_new],
        )

    def position_at(self, text: str, offset: int) -> t.Position:
        lines = frontmatter.lines_of(text[:offset])
        units = self.workspace.position_codec.client_num_units
        return t.Position(len(lines) - 1, units(lines[-1]))

    # ------------------------------------------------------------------ hover, completion

    def hover(self, params: t.HoverParams) -> t.Hover | None:
        from apc_tools.catalog import registry
        from apc_tools.report.rules_doc import explain_rule

        uri = params.text_document.uri
        if uri not in self.workspace.text_documents:
            return None
        doc = self.workspace.get_text_document(uri)
        published = self.published.get(uri)
        rules = registry()
        seen: list[str] = []
        if published is not None and published.text == doc.source:
            for diagnostic, finding in published.pairs:
                here = _contains(diagnostic.range, params.position)
                if here and finding.rule in rules and finding.rule not in seen:
                    seen.append(finding.rule)
        if seen:
            text = "\n\n---\n\n".join(explain_rule(rules[r], "markdown") for r in seen)
            return t.Hover(t.MarkupContent(t.MarkupKind.Markdown, text))
        kind = self.kind_of(uri)
        if kind is None:
            return None
        lines = frontmatter.lines_of(doc.source)
        line, char = self.to_index(lines, params.position)
        about = frontmatter.hover_key(kind, lines, line, char)
        return t.Hover(t.MarkupContent(t.MarkupKind.Markdown, about)) if about else None

    def complete(self, params: t.CompletionParams) -> t.CompletionList | None:
        uri = params.text_document.uri
        if uri not in self.workspace.text_documents:
            return None
        kind = self.kind_of(uri)
        if kind is None:
            return None
        doc = self.workspace.get_text_document(uri)
        lines = frontmatter.lines_of(doc.source)
        line, char = self.to_index(lines, params.position)
        items = [
            t.CompletionItem(
                label=item.label,
                kind=t.CompletionItemKind.Property
                if item.what == "key"
                else t.CompletionItemKind.Value,
                detail=item.detail or None,
                documentation=t.MarkupContent(t.MarkupKind.Markdown, item.documentation)
                if item.documentation
                else None,
                insert_text=f"{item.label}: " if item.what == "key" else item.label,
            )
            for item in frontmatter.complete(kind, lines, line, char)
        ]
        return t.CompletionList(is_incomplete=False, items=items)

    def kind_of(self, uri: str) -> str | None:
        from apc_tools.contract.listing import find_root
        from apc_tools.contract.project import classify

        path = self.path_of(uri)
        if path is None:
            return None
        root = find_root(Path(path))
        rel = Path(os.path.relpath(path, root)).as_posix()
        return None if rel.startswith("..") else classify(rel)

    # ------------------------------------------------------------------ watched files

    def watched(self, params: t.DidChangeWatchedFilesParams) -> None:
        every = False
        roots: set[Path] = set()
        for change in params.changes:
            path = self.path_of(change.uri)
            if path is None:
                continue
            name = os.path.basename(path)
            if name == analysis.POLICY_FILE or name.endswith("baseline.json"):
                every = True
            if name in (analysis.POLICY_FILE, ".gitignore"):
                self.boundary.clear()  # what git ignores, or the gate's policy, changed
                self.gate_of.forget()
                every = True
            if change.type != t.FileChangeType.Changed:  # a project root may come or go
                for uri in list(self.roots):
                    mine = self.path_of(uri)
                    if mine is not None:
                        self.roots[uri] = analysis.scan_root(mine, self.folders())
            roots.add(analysis.scan_root(path, self.folders()))
        tracked = set(self.roots.values())
        for root in tracked if every else roots & tracked:
            self.touch(root)


def _disk(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read(64 << 20)
    except OSError:
        return None


def _text(data: bytes) -> str:
    return data.decode("utf-8", "surrogateescape")


def _covers(asked: str, kind: str) -> bool:
    return kind == asked or kind.startswith(asked + ".")


def _contains(span: t.Range, position: t.Position) -> bool:
    after_start = (position.line, position.character) >= (span.start.line, span.start.character)
    before_end = (position.line, position.character) <= (span.end.line, span.end.character)
    return after_start and before_end


def _overlaps(a: t.Range, b: t.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        b.start.line,
        b.start.character,
    ) <= (a.end.line, a.end.character)


class _ToClient(logging.Handler):
    """pygls's own warnings and errors, sent as window/logMessage (stderr stays quiet)."""

    def __init__(self, server: ApcServer) -> None:
        super().__init__(logging.WARNING)
        self.server = server
        self.busy = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.busy:
            return
        self.busy = True
        try:
            self.server.log(f"pygls: {record.getMessage()}", t.MessageType.Warning)
        finally:
            self.busy = False


def build() -> ApcServer:
    """The server with its features."""
    server = ApcServer()

    @server.feature(t.INITIALIZE)
    def initialize(ls: ApcServer, params: t.InitializeParams) -> None:
        options = params.initialization_options
        if isinstance(options, dict) and isinstance(options.get("debounce"), int | float):
            ls.debounce = max(0.0, float(options["debounce"]))

    @server.feature(t.INITIALIZED)
    def initialized(ls: ApcServer, params: t.InitializedParams) -> None:
        caps = ls.client_capabilities.workspace
        watch = caps.did_change_watched_files if caps else None
        if watch and watch.dynamic_registration:
            options = t.DidChangeWatchedFilesRegistrationOptions(
                watchers=[t.FileSystemWatcher(glob_pattern=g) for g in WATCHED]
            )
            registration = t.Registration(
                id="apc-watched-files",
                method=t.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=options,
            )
            ls.client_register_capability(t.RegistrationParams(registrations=[registration]))

    @server.feature(t.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: ApcServer, params: t.DidOpenTextDocumentParams) -> None:
        def opened() -> None:
            item = params.text_document
            path = ls.path_of(item.uri)
            ls.hidden_bom.discard(item.uri)
            if path is not None and analysis.hides_bom(item.text, _disk(path)):
                ls.hidden_bom.add(item.uri)
            ls.track(item.uri)

        ls.guarded("didOpen", opened, None)

    @server.feature(t.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: ApcServer, params: t.DidChangeTextDocumentParams) -> None:
        ls.guarded("didChange", lambda: ls.track(params.text_document.uri), None)

    @server.feature(t.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: ApcServer, params: t.DidSaveTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = ls.path_of(uri)
        if path is not None and os.path.basename(path) in (analysis.POLICY_FILE, ".gitignore"):
            ls.boundary.clear()
            ls.gate_of.forget()
            for root in set(ls.roots.values()):
                ls.touch(root)
        ls.guarded("didSave", lambda: ls.track(uri), None)

    @server.feature(t.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: ApcServer, params: t.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri

        def close() -> None:
            root = ls.roots.get(uri)
            ls.clear(uri)
            if root is not None and root in set(ls.roots.values()):
                ls.touch(root)  # the others now see the file on disk

        ls.guarded("didClose", close, None)

    @server.feature(t.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def did_change_watched(ls: ApcServer, params: t.DidChangeWatchedFilesParams) -> None:
        ls.guarded("didChangeWatchedFiles", lambda: ls.watched(params), None)

    @server.feature(
        t.TEXT_DOCUMENT_CODE_ACTION,
        t.CodeActionOptions(code_action_kinds=[t.CodeActionKind.QuickFix, FIX_ALL]),
    )
    def code_action(ls: ApcServer, params: t.CodeActionParams) -> list[t.CodeAction]:
        ls.settle()
        return ls.guarded("codeAction", lambda: ls.actions(params), [])

    @server.feature(t.TEXT_DOCUMENT_HOVER)
    def hover(ls: ApcServer, params: t.HoverParams) -> t.Hover | None:
        ls.settle()
        return ls.guarded("hover", lambda: ls.hover(params), None)

    @server.feature(
        t.TEXT_DOCUMENT_COMPLETION, t.CompletionOptions(trigger_characters=[":", " ", ","])
    )
    def completion(ls: ApcServer, params: t.CompletionParams) -> t.CompletionList | None:
        ls.settle()
        return ls.guarded("completion", lambda: ls.complete(params), None)

    @server.feature(t.SHUTDOWN)
    def shutdown(ls: ApcServer, params: Any) -> None:
        if ls.timer is not None:
            ls.timer.cancel()
            ls.timer = None

    return server


def serve(stdin: Any = None, stdout: Any = None) -> int:
    """Run the server over ``stdin``/``stdout`` (default: the process's) until the client
    says exit."""
    from apc_tools.core import pool

    os.environ.setdefault(pool.WORKERS_ENV, "1")  # no fork beside pygls's reader thread
    server = build()
    handler = _ToClient(server)
    for name in ("pygls", "asyncio"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.propagate = False
    server.start_io(stdin, stdout)
    return 0
