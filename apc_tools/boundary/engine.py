"""The gate: a git source, the detectors, the policy. One function, :func:`scan`.

Order of work, cheapest first: the listing (one git command), the path rules over every path,
then each distinct blob read once through one persistent ``cat-file --batch`` process, and only
as much of it as the detectors need (:data:`Settings.max_blob_bytes`). Content detectors run
on text only; binary blobs get the magic-byte test of BDB and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from apc_tools.boundary import inputs, markers, paths, policy, sources, stores
from apc_tools.boundary.local_paths import detect_local_paths
from apc_tools.boundary.model import BlobView, Detection
from apc_tools.boundary.policy import BaselineEntry, Settings
from apc_tools.boundary.secrets import detect_secrets
from apc_tools.boundary.transcripts import HEAD_BYTES, Verdict, classify, detect_transcript
from apc_tools.core import git as gitio
from apc_tools.core.git import BlobReader, Entry, Repo
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding, Result

Progress = Callable[[int, int], None]
POLICY_FILE = ".apc-tools.yaml"
POLICY_SESSION = Verdict("session content (a path the policy names)", True, 1, 1, "")
CONTRACT_NAMES = ("agents.md", "skill.md", ".instructions.md")
CONTRACT_FOLDERS = (".claude/", ".cursor/", ".github/")
INSTRUCTION_FILES = frozenset(
    {"claude.md", "gemini.md", ".cursorrules", ".windsurfrules", "copilot-instructions.md"}
)


@dataclass(frozen=True)
class Options:
    """What to scan and how (the options of ``apc boundary``)."""

    cwd: Path = field(default_factory=Path.cwd)
    paths: tuple[Path, ...] = ()
    mode: str = "tracked"
    rev_range: str | None = None
    secrets: str | None = None  # None: the policy's boundary.secrets (default "contract")
    config: Path | None = None
    inline_allow: bool = True
    write_baseline: bool = False
    selection: Selection = field(default_factory=Selection)  # --select / --ignore (CLI wins)


@dataclass(frozen=True)
class Outcome:
    """The result of a scan, and the baseline file written (``--write-baseline``)."""

    result: Result
    baseline_written: Path | None = None
    baseline_entries: int = 0


def is_contract(path: str) -> bool:
    """A file of the agent contract: AGENTS.md, SKILL.md, `.apc/**`, agent and rule files,
    and the instruction files agents read into every prompt (CLAUDE.md, GEMINI.md, ...)."""
    low = path.casefold()
    name = low.rpartition("/")[2]
    if name in INSTRUCTION_FILES or low.startswith(".apc/") or "/.apc/" in low:
        return True
    if name.endswith(CONTRACT_NAMES) or any(f in low for f in CONTRACT_FOLDERS):
        from apc_tools.contract.project import classify  # only for these few paths

        return classify(path) is not None
    return False


# --------------------------------------------------------------------------- the blob stage


WHOLE_FILE_RULES = ("BTR", "BPA", "BDB")


@dataclass
class Inspector:
    """Runs the detectors over one blob at one path."""

    settings: Settings
    secrets_all: bool
    inline_allow: bool
    extra_paths: paths.Compiled | None = None
    partial: bool = True  # a partial clone: a missing blob is expected (BIO004), else damage

    def path_detections(self, path: str) -> list[Detection]:
        return list(paths.detect_path(path.casefold(), self.extra_paths))

    def content(self, blob: BlobView, path_hits: bool) -> Iterator[Detection]:
        if blob.binary:
            yield from stores.detect_store(blob, forced=self._extra("BDB", blob))
            return
        head = blob if blob.size <= HEAD_BYTES else _head(blob)
        verdict = classify(head)
        if verdict is not None and head is not blob:
            verdict = replace(verdict, line=verdict.line + _skipped_lines(blob))
        blob.structured = head.structured
        if verdict is None and self._extra("BTR", blob):
            verdict = POLICY_SESSION
        if verdict is not None:
            blob.flagged = True
            yield from detect_transcript(blob, verdict)
        blob.flagged = blob.flagged or path_hits
        yield from markers.detect_markers(blob)
        if self.secrets_all or blob.flagged or blob.contract:
            yield from detect_secrets(blob)
        if blob.contract:
            yield from detect_local_paths(blob)

    def _extra(self, family: str, blob: BlobView) -> bool:
        globs = self.settings.paths.get(family, ())
        return bool(globs) and policy.any_glob(globs, blob.path)

    def keep(self, blob: BlobView, found: Detection) -> bool:
        """Inline ``apc: allow`` covers only a finding on its own line, never a rule about the
        whole file (a session, a path, a store) and never inside a file that is a session."""
        if not self.inline_allow or found.rule.id.startswith(WHOLE_FILE_RULES):
            return True
        if blob.flagged or blob.structured:
            return True
        return not blob.inline_allowed(found.rule.id, found.line)


def _head(blob: BlobView) -> BlobView:
    """The first :data:`HEAD_BYTES` after any leading blank padding (which can be any length)."""
    start = _padding(blob.data)
    data = blob.data[start : start + HEAD_BYTES]
    return BlobView(blob.path, data, blob.size, False, blob.contract)


def _padding(data: bytes) -> int:
    return len(data) - len(data.lstrip())


def _skipped_lines(blob: BlobView) -> int:
    return blob.data.count(b"\n", 0, _padding(blob.data))


# --------------------------------------------------------------------------- the scan


def scan(options: Options, progress: Progress | None = None) -> Outcome:
    """Scan one repository; raise :class:`CannotRun` when it cannot (exit 2)."""
    repo = gitio.open_repo(options.cwd)
    scope = sources.scope_of(repo, options.cwd, options.paths)
    source = sources.read_source(repo, options.mode, scope, options.rev_range)
    scope.check(source.entries)
    with BlobReader(repo) as reader:
        settings, baseline, notes = _policy(repo, options, source, reader)
        settings = settings.selected(options.selection)
        entries = [e for e in source.entries if not settings.excluded(e.path)]
        secrets = options.secrets or settings.secrets
        inspector = Inspector(
            settings,
            secrets == "all",
            options.inline_allow,
            paths.extra_rules(settings.paths.get("BPA", ()), "boundary.paths.BPA"),
            gitio.is_partial_clone(repo),
        )
        found = list(_run(entries, reader, inspector, progress))
    files = len({e.path for e in entries})
    findings = Result.of(_dedupe(settings.apply(found)), files).findings
    if options.write_baseline:
        return _write_baseline(repo, settings, findings, files)
    kept = [f for f in findings if f.fingerprint not in {e.fingerprint for e in baseline}]
    extra = list(notes)
    if baseline and options.mode in ("tracked", "history"):
        extra += _stale(baseline, {f.fingerprint for f in findings}, scope, settings)
    result = Result.of(kept + settings.apply(extra), files, strict=settings.strict)
    return Outcome(result)


def _run(
    entries: list[Entry], reader: BlobReader, inspector: Inspector, progress: Progress | None
) -> Iterator[Finding]:
    by_oid: dict[str, list[Entry]] = {}
    for entry in entries:
        by_oid.setdefault(entry.oid, []).append(entry)
    wanted = [o for o, g in by_oid.items() if any(_readable(e) for e in g)]
    blobs = reader.read_many(wanted, inspector.settings.max_blob_bytes)
    total = len(by_oid)
    for done, group in enumerate(by_oid.values(), start=1):
        first: dict[str, Entry] = {}
        for entry in group:
            first.setdefault(entry.path, entry)
        blob = next(blobs)[1] if any(_readable(e) for e in group) else None
        for entry in first.values():
            if entry.is_submodule:
                yield _finding(entry, inputs.submodule())
            else:
                yield from _at_path(entry, blob if _readable(entry) else None, inspector)
        if progress is not None:
            progress(done, total)


def _readable(entry: Entry) -> bool:
    """A regular blob (not a submodule's commit, not a symlink's target text)."""
    return not (entry.is_submodule or entry.is_symlink)


def _at_path(entry: Entry, blob: gitio.Blob | None, inspector: Inspector) -> Iterator[Finding]:
    path_hits = inspector.path_detections(entry.path)
    for found in path_hits:
        yield _finding(entry, found)
    if blob is None:
        return
    if blob.missing:
        if not inspector.partial:
            raise CannotRun(
                f"{entry.path}: blob {entry.oid} is missing and this is not a partial clone: "
                "the repository is damaged (run `git fsck`, or scan a fresh clone)"
            )
        yield _finding(entry, inputs.missing())
        return
    if blob.data.startswith(inputs.LFS_HEADER) and blob.size < 1024:
        yield _finding(entry, inputs.lfs_pointer())
        return
    view = BlobView(entry.path, blob.data, blob.size, blob.complete, is_contract(entry.path))
    if not blob.complete:
        yield _finding(entry, inputs.too_large(blob.size, len(blob.data)))
    for found in inspector.content(view, bool(path_hits)):
        if inspector.keep(view, found):
            yield _finding(entry, found)


def _finding(entry: Entry, found: Detection) -> Finding:
    return found.rule.finding(
        entry.path,
        found.message,
        found.line,
        found.column,
        severity=found.severity,
        commit=entry.commit,
        match=found.match,
    )


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """One finding per (rule, path, fingerprint): the first (oldest commit) wins."""
    seen: set[tuple[str, str, str, int | None]] = set()
    out: list[Finding] = []
    for finding in findings:
        key = (finding.rule, finding.path, finding.identity or finding.message, None)
        if key in seen:
            continue
        seen.add(key)
        out.append(finding)
    return out


# --------------------------------------------------------------------------- policy, baseline


def _policy(
    repo: Repo, options: Options, source: sources.Source, reader: BlobReader
) -> tuple[Settings, tuple[BaselineEntry, ...], list[Finding]]:
    """The settings and baseline in force, and BPL002 notes (range mode)."""
    notes: list[Finding] = []
    if options.config is not None:
        settings = _settings_from_file(options.config)
    elif source.base is not None:
        settings = _settings_at(reader, source.base)
    else:
        settings = _settings_from_file(repo.root / POLICY_FILE, optional=True)
    where = policy.baseline_path(repo.root, settings.baseline)
    if source.base is not None:
        baseline = _baseline_at(reader, source.base, settings.baseline)
        changed = gitio.changed_paths(
            repo, source.base, source.tip or "HEAD", [POLICY_FILE, settings.baseline]
        )
        for path in changed:
            entry = Entry("100644", "", path, source.tip)
            notes.append(_finding(entry, policy.changed_detection(path)))
    else:
        baseline = _baseline_file(where)
    return settings, baseline, notes


def _settings_from_file(path: Path, optional: bool = False) -> Settings:
    if optional and not path.is_file():
        return Settings()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotRun(f"{path}: cannot read the policy file: {exc}") from None
    return policy.parse_settings(str(path), text)


def _settings_at(reader: BlobReader, commit: str) -> Settings:
    blob = reader.read(f"{commit}:{POLICY_FILE}", 1 << 20)
    if blob.missing:
        return Settings()
    return policy.parse_settings(f"{POLICY_FILE} (at {commit[:12]})", _decode(blob.data))


def _baseline_file(path: Path) -> tuple[BaselineEntry, ...]:
    if not path.is_file():
        return ()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotRun(f"{path}: cannot read the baseline: {exc}") from None
    return policy.parse_baseline(str(path), text)


def _baseline_at(reader: BlobReader, commit: str, name: str) -> tuple[BaselineEntry, ...]:
    blob = reader.read(f"{commit}:{name}", 64 << 20)
    if blob.missing:
        return ()
    return policy.parse_baseline(f"{name} (at {commit[:12]})", _decode(blob.data))


def _decode(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CannotRun(f"not valid UTF-8: {exc}") from None


def _stale(
    baseline: tuple[BaselineEntry, ...],
    matched: set[str],
    scope: sources.Scope,
    settings: Settings,
) -> list[Finding]:
    out: list[Finding] = []
    for entry in baseline:
        if entry.fingerprint in matched or not scope.covers(entry.path):
            continue
        if not settings.selection.keeps(entry.rule):  # not looked for in this run
            continue
        where = Entry("100644", "", settings.baseline, None)
        out.append(_finding(where, policy.stale_detection(entry)))
    return out


def _write_baseline(
    repo: Repo, settings: Settings, findings: tuple[Finding, ...], files: int
) -> Outcome:
    entries = [
        BaselineEntry(f.fingerprint, f.rule, f.path)
        for f in findings
        if f.severity.value in ("error", "warning")
    ]
    target = policy.baseline_path(repo.root, settings.baseline)
    try:
        policy.write_baseline(target, entries)
    except OSError as exc:
        raise CannotRun(f"{target}: cannot write the baseline: {exc.strerror or exc}") from None
    return Outcome(Result.of([], files), target, len(entries))
