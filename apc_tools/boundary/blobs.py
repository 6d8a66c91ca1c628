"""The blob stage of the gate (:mod:`.engine`): each distinct blob read once, through one
persistent ``cat-file --batch`` process (or from the checked-out file that is the blob,
:mod:`.checkout`), and only as much of it as the detectors need
(:data:`~.policy.Settings.max_blob_bytes`); the detectors on it (:class:`Inspector`); the
result cache looked up before any read (:func:`.verdicts.cached_under`) and the verdicts
stored after; the prefilter's choice of what must be read (:mod:`.prefilter`); and the same
work cut into chunks judged on every core (:mod:`apc_tools.core.pool`). Commit and tag
messages go through the same detectors (:func:`judge_messages`).

Content detectors run on text only; binary blobs get the magic-byte tests of BDB and of the
wrappers a session may hide in (:mod:`.disguise`: compressed, UTF-16/32 without a BOM), whose
content is then inspected as its own text; text wrappers (base64, notebook outputs) are opened
only when the text itself is no session.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache

from apc_tools.boundary import (
    checkout,
    disguise,
    inputs,
    markers,
    paths,
    policy,
    prefilter,
    stores,
    verdicts,
)
from apc_tools.boundary.local_paths import detect_local_paths
from apc_tools.boundary.model import UNTRACK_HINT, UNTRACKED_BY_FIX, BlobView, Detection
from apc_tools.boundary.policy import Settings
from apc_tools.boundary.secrets import detect_secrets, is_agent_config
from apc_tools.boundary.transcripts import HEAD_BYTES, Verdict, classify, detect_transcript
from apc_tools.core import git as gitio
from apc_tools.core.git import BlobReader, Entry, Repo
from apc_tools.findings import Finding

Progress = Callable[[int, int], None]
POLICY_SESSION = Verdict("session content (a path the policy names)", True, 1, 1, "")
CONTRACT_NAMES = ("agents.md", "agents.override.md", "skill.md", ".instructions.md")
CONTRACT_FOLDERS = (".claude/", ".cursor/", ".github/")
INSTRUCTION_FILES = frozenset(
    {"claude.md", "gemini.md", ".cursorrules", ".windsurfrules", "copilot-instructions.md"}
)


def is_contract(path: str) -> bool:
    """A file of the agent contract: AGENTS.md, SKILL.md, `.apc/**`, agent and rule files,
    and the instruction files agents read into every prompt (CLAUDE.md, GEMINI.md, ...)."""
    low = path.casefold()
    name = low.rpartition("/")[2]
    if name in INSTRUCTION_FILES or low.startswith(".apc/") or "/.apc/" in low:
        return True
    if name.endswith(CONTRACT_NAMES) or _in_contract_folder(low):
        from apc_tools.contract.project import classify  # only for these few paths

        return classify(path) is not None
    return False


_CONTRACT_FOLDER = re.compile("|".join(re.escape(f) for f in CONTRACT_FOLDERS))


def _in_contract_folder(low: str) -> bool:
    """Any of :data:`CONTRACT_FOLDERS` in ``low`` (one search, not a generator per path)."""
    return _CONTRACT_FOLDER.search(low) is not None


WHOLE_FILE_RULES = ("BTR", "BPA", "BDB")
MAX_WRAPS = disguise.MAX_DEPTH  # wrappers opened one inside another (base64 of gzip of ...)


@dataclass
class Inspector:
    """Runs the detectors over one blob at one path."""

    settings: Settings
    secrets_all: bool
    inline_allow: bool
    extra_paths: paths.Compiled | None = None
    partial: bool = True  # a partial clone: missing blobs are not fetched; else damage
    homes: Mapping[str, paths.HomeFolder] = field(default_factory=dict)  # committed tool homes
    missing: list[Entry] = field(default_factory=list)  # blobs the scan could not read
    results: verdicts.Verdicts | None = None  # the result cache (looked up before reading)
    budget: disguise.Budget = field(default_factory=disguise.Budget)  # decompressed bytes

    def flags(self, path: str, hits: Sequence[Detection]) -> bool:
        """Is the blob at ``path`` judged as a flagged file (secrets scanned whatever the scope)?
        A path rule's hit, or any file of a committed tool home folder: its shared settings
        too, where a pasted key is a credential of the tool."""
        return bool(hits) or paths.in_home(path.casefold(), self.homes)

    def path_detections(self, path: str) -> list[Detection]:
        low = path.casefold()
        if paths.no_path_rule(low, self.extra_paths):  # most paths: detect_path finds nothing
            homes = self.homes  # detect_home finds only under one of their prefixes
            return list(paths.detect_home(low, homes)) if low.startswith(tuple(homes)) else []
        found = list(paths.detect_path(low, self.extra_paths))
        if not found and self.homes:
            found = list(paths.detect_home(low, self.homes))
        return found

    def content(self, blob: BlobView, path_hits: bool, depth: int = 0) -> Iterator[Detection]:
        if depth == 0:
            self.budget.start()
        if blob.binary:
            inner = disguise.unwrap_binary(blob, self.budget) if depth < MAX_WRAPS else None
            deep = disguise.too_deep(blob) if depth >= MAX_WRAPS else None
            if deep is not None:
                yield deep
            elif inner is None:
                yield from stores.detect_store(blob, forced=self._extra("BDB", blob))
            elif inner.how == disguise.WITH_NULS:  # only a session: no marker noise in data
                found = list(self._unwrapped(inner, path_hits, depth))
                if any(f.rule.id.startswith("BTR") for f in found):
                    yield from found
                else:
                    yield from stores.detect_store(blob, forced=self._extra("BDB", blob))
            else:
                yield from self._unwrapped(inner, path_hits, depth)
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
        elif depth < MAX_WRAPS:
            whole = blob if blob.suffix == ".ipynb" else head
            inner = disguise.unwrap_text(whole, _part_test)
            found = list(self._unwrapped(inner, path_hits, depth)) if inner else []
            if any(f.rule.id.startswith("BTR") for f in found):
                blob.flagged = True
                yield from found
            else:  # what a budget cut or a damaged layer inside it: never a silent pass
                yield from (f for f in found if f.rule.id.startswith("BIO"))
        blob.flagged = blob.flagged or path_hits
        yield from markers.detect_markers(blob)
        config = is_agent_config(blob.low)
        if self.secrets_all or blob.flagged or blob.contract or config:
            yield from detect_secrets(blob, config)
        if blob.contract:
            yield from detect_local_paths(blob)

    def _unwrapped(
        self, inner: disguise.Unwrapped, path_hits: bool, depth: int
    ) -> Iterator[Detection]:
        """The detections inside a wrapper (compressed, base64, a notebook's outputs, UTF-16
        without a BOM), each message saying where; lines only where they are the blob's own."""
        yield from inner.notes
        if inner.view is None:
            if inner.uninspected:
                yield inputs.uninspected(inner.how, inner.uninspected)
            return
        keep_lines = inner.how.startswith("UTF")
        views = inner.parts or (inner.view,)
        for found in (f for view in views for f in self.content(view, path_hits, depth + 1)):
            yield replace(
                found,
                message=f"{inner.how}: {found.message}",
                line=found.line if keep_lines else None,
                column=found.column if keep_lines else None,
            )

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


def _part_test(data: bytes) -> bool:
    """The literal test a notebook output must pass to be judged on its own (every output is,
    with ``APC_PREFILTER=0``)."""
    return _part_matcher()(data)


def _part_matcher() -> prefilter.Matcher:
    if prefilter.mode() == "off":
        return _every
    return _matcher()


def _every(data: bytes) -> bool:
    return True


@cache
def _matcher() -> prefilter.Matcher:
    return prefilter.fast_matcher() or prefilter.plain_matcher


def _head(blob: BlobView) -> BlobView:
    """The first :data:`HEAD_BYTES` after any leading blank padding (which can be any length)."""
    start = _padding(blob.data)
    data = blob.data[start : start + HEAD_BYTES]
    return BlobView(blob.path, data, blob.size, False, blob.contract)


def _padding(data: bytes) -> int:
    return len(data) - len(data.lstrip())


def _skipped_lines(blob: BlobView) -> int:
    return blob.data.count(b"\n", 0, _padding(blob.data))


def judge_entries(
    repo: Repo,
    entries: list[Entry],
    reader: BlobReader | LazyReader,
    inspector: Inspector,
    progress: Progress | None,
    unit: prefilter.Unit | None = None,
    from_files: bool = False,
    keyed: tuple[str, ...] | None = None,
) -> Iterator[Finding]:
    """Judge ``entries``. ``keyed``: the folders (``a/b/``) under which the files have a
    per-blob verdict looked up and stored (None: every file); under the subtree cache those
    it never stores, the others' verdicts being kept in their folders' (:mod:`.subtrees`)."""
    by_oid: dict[str, list[Entry]] = {}
    for entry in entries:
        by_oid.setdefault(entry.oid, []).append(entry)
    sub = gitio.SUBMODULE_MODE
    wanted = [o for o, g in by_oid.items() if g[0].mode != sub or any(e.mode != sub for e in g)]
    # A partial clone's cat-file stops at a missing promisor blob: ask only for those present.
    absent = gitio.absent_objects(repo, wanted) if inspector.partial and wanted else set()
    # The result cache: each (blob, path)'s verdict looked up before any blob is read; a blob
    # whose every path has one is not read at all (a warm run starts no cat-file).
    hits = _PathHits(inspector)
    cached = verdicts.cached_under(
        by_oid, entries, keyed, absent, hits, inspector.results, inspector.flags
    )
    # The prefilter, over what the cache did not answer: which blobs the detectors must see.
    uncached = [o for o in wanted if o not in cached.whole]
    todo, check = _candidates(repo, unit, by_oid, uncached, inspector)
    reading = set(todo)
    skipped = set(uncached) - reading  # the git pass found no literal in them
    to_read = [o for o in todo if o not in absent]
    files = None
    if from_files and len(to_read) >= checkout.MIN_BLOBS:
        # Bytes from the checkout are no proof that the object store holds the blob: one
        # listing of the store (no inflating) keeps a damaged repository exit 2.
        if not inspector.partial:  # (a partial clone's were listed above)
            absent |= gitio.absent_objects(repo, to_read)
            to_read = [o for o in to_read if o not in absent]
        files = checkout.CheckoutReader(repo.root, by_oid)
    stage = _BlobStage(repo, by_oid, inspector, hits, cached, check, reader, files)
    judged = stage.pooled(to_read)
    blobs = iter(()) if judged is not None else stage.read(to_read)
    # A cold run's common case, decided before reading: a file at one ordinary path (no path
    # rule hit, not read whatever it holds, no cached verdict), so a blob that passes no
    # literal test yields nothing and is stored empty without the per-path steps below.
    plain = stage.plain_keys(to_read) if judged is None and check is not None else {}
    storing = inspector.results is not None and inspector.results.enabled
    empty = inspector.results.put_empty if inspector.results is not None else None
    sniff = prefilter.BINARY_SNIFF
    total = len(by_oid)
    quiet = cached.quiet  # a warm run: most blobs, nothing to yield and nothing to read
    for done, (oid, group) in enumerate(by_oid.items(), start=1):
        if oid in quiet:  # a warm run: cached, nothing to yield, nothing to read
            pass
        elif oid in plain:
            read = next(blobs)[1]
            if check is not None and _plain(read, check, sniff):
                # what judge() decides for such a blob, in fewer steps
                key = plain[oid]
                if storing and key is not None and empty is not None:
                    empty(key)
            else:
                yield from stage.judge(oid, read, inspector)
        elif judged is not None and oid in judged:
            one = judged[oid]
            if isinstance(one, bytes):  # one path, nothing found: its key, stored empty
                _store(inspector, one, [])
            elif one is not None:  # None: nothing found, stored or missing
                yield from one.merge(inspector)
        elif oid in reading and oid not in absent:
            yield from stage.judge(oid, next(blobs)[1], inspector)
        else:
            blob = gitio.Blob(b"", 0, missing=True) if oid in absent else None
            yield from _judge(oid, group, blob, oid in skipped, inspector, hits, cached)
        if progress is not None:
            progress(done, total)


def _judge(
    oid: str,
    group: list[Entry],
    blob: gitio.Blob | None,
    plain: bool,
    inspector: Inspector,
    hits: Mapping[str, list[Detection]],
    cached: verdicts.Cached,
) -> Iterator[Finding]:
    """The findings of one blob at each of its paths (the first entry of each path)."""
    first: dict[str, Entry] = {}
    for entry in group:
        first.setdefault(entry.path, entry)
    for entry in first.values():
        if entry.is_submodule:
            yield to_finding(entry, inputs.submodule())
        elif entry.is_symlink:
            yield from _at_path(entry, blob, inspector, None, cached.get(entry))
        else:
            yield from _at_path(entry, blob, inspector, hits[entry.path], cached.get(entry), plain)


# The blob stage on every core: above these many blobs to read, they are cut into contiguous
# chunks read and judged in forked workers (core/pool.py), each with its own cat-file.
POOL_MIN_BLOBS = 2000
# ... and only with at least this many CPUs when the blobs come from cat-file: on 2 cores the
# serial stage (this process and its cat-file, pipelined) already uses both, and the pool
# measured no faster (cold: slower). Blobs read from the checkout (:mod:`.checkout`) leave the
# second core idle: then 2 CPUs are enough (measured: a cold run ~1.4x faster on 2 cores).
POOL_MIN_CPUS = 3
POOL_MIN_CPUS_CHECKOUT = 2
# A work tree whose files mostly are not HEAD's blobs (another branch checked out, CRLF
# conversion): past these many misses, most of those asked, cat-file reads the rest at once.
MAX_CHECKOUT_MISSES = 64


@dataclass
class _Judged:
    """What judging one blob produced in a worker: its findings, the verdicts to store and
    the entries it could not read, applied in the parent in the serial order."""

    found: list[Finding]
    stored: list[tuple[bytes, list[Finding]]]
    missing: list[Entry]

    def merge(self, inspector: Inspector) -> Iterator[Finding]:
        for key, findings in self.stored:
            _store(inspector, key, findings)
        inspector.missing.extend(self.missing)
        yield from self.found


class _Recorder:
    """The result cache as a worker sees it: every ``put`` recorded for the parent (a forked
    child never touches the parent's SQLite handle)."""

    enabled = True

    def __init__(self) -> None:
        self.stored: list[tuple[bytes, list[Finding]]] = []

    def put(self, key: bytes, findings: Sequence[Finding]) -> None:
        self.stored.append((key, list(findings)))


@dataclass
class _BlobStage:
    """Read the blobs the scan needs and judge each (the serial stream, or the pool)."""

    repo: Repo
    by_oid: dict[str, list[Entry]]
    inspector: Inspector
    hits: Mapping[str, list[Detection]]
    cached: verdicts.Cached
    check: prefilter.Matcher | None
    reader: BlobReader | LazyReader
    files: checkout.CheckoutReader | None = None  # --tracked: blobs from the checked-out files

    def read(
        self, oids: Sequence[str], reader: BlobReader | LazyReader | None = None
    ) -> Iterator[tuple[str, gitio.Blob]]:
        """The blobs ``oids`` in order, through ``reader`` (default: this stage's)."""
        limit = self.inspector.settings.max_blob_bytes
        git = reader or self.reader
        if self.files is None:
            return git.read_many(oids, limit)
        return self._from_checkout(oids, limit, self.files, git)

    def _from_checkout(
        self,
        oids: Sequence[str],
        limit: int,
        files: checkout.CheckoutReader,
        git: BlobReader | LazyReader,
    ) -> Iterator[tuple[str, gitio.Blob]]:
        """Each blob from its checked-out file where that file is the blob
        (:mod:`.checkout`), else from cat-file; once most files are not, cat-file for all."""
        answers = files.read_many(oids, limit)
        misses = 0
        for done, (oid, blob) in enumerate(answers):
            if blob is None:
                misses += 1
                if misses > MAX_CHECKOUT_MISSES and misses * 4 > done:
                    answers.close()  # a work tree far from HEAD: the rest through git
                    yield from git.read_many(oids[done:], limit)
                    return
                read = list(git.read_many([oid], limit))
                blob = read[0][1] if read else gitio.Blob(b"", 0, missing=True)
            yield oid, blob

    def judge(self, oid: str, blob: gitio.Blob, inspector: Inspector) -> Iterator[Finding]:
        group = self.by_oid[oid]
        plain = (  # no literal test passes, at no path read whatever it holds (in the worker)
            self.check is not None
            and not blob.missing
            and not prefilter.needs_content(blob.data, blob.complete, self.check)
            and not _group_must_read(group, self.inspector, self.hits)
        )
        seen = None if plain else blob  # plain: nothing for the content detectors
        return _judge(oid, group, seen, plain, inspector, self.hits, self.cached)

    def plain_keys(self, oids: Sequence[str]) -> dict[str, bytes | None]:
        """Of ``oids``, those whose every entry is a file (not a symlink, not a submodule) at
        one path that no path rule hits, that is not read whatever it holds
        (:func:`_must_read`) and that has no cached verdict: its cache key (None: no cache).
        What :meth:`judge` does for such a blob that passes no literal test is to store an
        empty verdict under that key and yield nothing."""
        out: dict[str, bytes | None] = {}
        by_oid, hits, inspector = self.by_oid, self.hits, self.inspector
        keys, found = self.cached.keys, self.cached.found
        link, sub = gitio.SYMLINK_MODE, gitio.SUBMODULE_MODE
        ordinary: dict[str, bool] = {}  # per path, computed once
        for oid in oids:
            group = by_oid[oid]
            first = group[0]
            path = first.path
            if first.mode in (link, sub) or (oid, path) in found:
                continue
            if len(group) > 1 and any(e.path != path or e.mode in (link, sub) for e in group):
                continue
            fine = ordinary.get(path)
            if fine is None:
                fine = ordinary[path] = not hits[path] and not _must_read(first, inspector, [])
            if fine:
                out[oid] = keys.get((oid, path))
        return out

    def pooled(self, oids: list[str]) -> dict[str, _Judged | bytes | None] | None:
        """Every blob of ``oids`` judged in chunks on every core, or None (serial: too few
        blobs, one CPU, no fork, ``APC_POOL_WORKERS=1``)."""
        from apc_tools.core import pool

        least = POOL_MIN_CPUS if self.files is None else POOL_MIN_CPUS_CHECKOUT
        if pool.cpu_count() < least and os.environ.get(pool.WORKERS_ENV) is None:
            return None  # the serial stage already keeps two cores busy (Python + cat-file)
        workers = pool.workers_for(len(oids), len(oids), min_items=POOL_MIN_BLOBS, min_cost=0)
        if workers < 2:
            return None
        parts = pool.chunks([1] * len(oids), workers)
        parent = os.getpid()

        def work(index: int) -> list[_Judged | bytes | None]:
            part = [oids[i] for i in parts[index]]
            if os.getpid() == parent:  # the last chunk, or a failed worker's: this reader
                return self._chunk(part, self.reader)
            with BlobReader(self.repo) as own:
                return self._chunk(part, own)

        out: dict[str, _Judged | bytes | None] = {}
        for index, results in enumerate(pool.map_parts(work, len(parts))):
            out.update(zip((oids[i] for i in parts[index]), results, strict=True))
        return out

    def _chunk(
        self, oids: list[str], reader: BlobReader | LazyReader
    ) -> list[_Judged | bytes | None]:
        out: list[_Judged | bytes | None] = []
        results = self.inspector.results
        storing = results is not None and results.enabled
        recorder = _Recorder() if storing else None
        inspector = replace(self.inspector, results=recorder, missing=[])  # type: ignore[arg-type]
        # The common case decided before reading, as the serial stream does (judge_entries's plain):
        # a blob at one ordinary path that passes no literal test yields nothing (and its
        # key, stored empty), without the per-path steps of judge().
        check = self.check
        plain = self.plain_keys(oids) if check is not None else {}
        sniff = prefilter.BINARY_SNIFF
        for oid, blob in self.read(oids, reader):
            if oid in plain and check is not None and _plain(blob, check, sniff):
                out.append(plain[oid] if storing else None)
                continue
            inspector.missing = []
            if recorder is not None:
                recorder.stored = []
            found = list(self.judge(oid, blob, inspector))
            stored = recorder.stored if recorder is not None else []
            if found or inspector.missing or len(stored) > 1 or (stored and stored[0][1]):
                out.append(_Judged(found, stored, inspector.missing))
            else:  # the common case travels small: nothing, or one empty verdict's key
                out.append(stored[0][0] if stored else None)
        return out


def _plain(blob: gitio.Blob, check: prefilter.Matcher, sniff: int) -> bool:
    """A blob read whole, not binary, that passes no literal test: at one ordinary path it
    yields nothing (what judge() decides for it, in fewer steps)."""
    data = blob.data
    return (
        not blob.missing
        and len(data) == blob.size
        and b"\0" not in data[:sniff]
        and not check(data)
    )


def _group_must_read(
    group: list[Entry], inspector: Inspector, hits: Mapping[str, list[Detection]]
) -> bool:
    return any(_must_read(e, inspector, hits[e.path]) for e in group if not e.is_submodule)


def _candidates(
    repo: Repo,
    unit: prefilter.Unit | None,
    by_oid: dict[str, list[Entry]],
    wanted: list[str],
    inspector: Inspector,
) -> tuple[list[str], prefilter.Matcher | None]:
    """The blobs to read (:mod:`.prefilter`), and the literal test each must still pass on
    its bytes (None: none). Off with APC_PREFILTER=0, with ``--secrets all`` (the generic
    secret rule has no literal) and in a partial clone (a missing blob must stop the scan)."""
    how = prefilter.mode()
    if how == "off" or inspector.secrets_all or inspector.partial or not wanted:
        return wanted, None
    if how == "git" and unit is not None:
        keep = prefilter.git_candidates(
            repo,
            unit,
            by_oid,
            wanted,
            lambda e: _must_read(e, inspector),
            inspector.settings.max_blob_bytes,
        )
        if keep is not None:
            return [o for o in wanted if o in keep], None
    if len(wanted) < prefilter.MIN_MATCHER_BLOBS:
        return wanted, None  # so few: the detectors cost less than the matcher's setup
    return wanted, prefilter.fast_matcher()


def _must_read(
    entry: Entry, inspector: Inspector, path_hits: list[Detection] | None = None
) -> bool:
    """A blob read whatever it holds: a symlink's target, a path a path rule flags (secrets
    run there), a contract file, agent configuration, a path of the policy's BTR/BDB globs,
    a notebook or a Markdown/text/HTML export (:data:`.prefilter.ALWAYS_SUFFIXES`)."""
    path = entry.path
    if entry.is_symlink or prefilter.always_suffix(path):
        return True
    if is_agent_config(path.casefold()) or is_contract(path):
        return True
    hits = path_hits if path_hits is not None else inspector.path_detections(path)
    if inspector.flags(path, hits):
        return True
    extra = inspector.settings.paths
    if not extra:  # most policies: no extra globs
        return False
    return any(
        policy.any_glob(extra[family], path) for family in ("BTR", "BDB") if extra.get(family)
    )


class _PathHits(dict[str, list[Detection]]):
    """The path rules' detections of each distinct path, computed once, when first asked:
    the blobs judged in a forked worker (:meth:`_BlobStage.pooled`) have theirs computed
    there, on its core, not all beforehand in this process."""

    def __init__(self, inspector: Inspector) -> None:
        super().__init__()
        self._detect = inspector.path_detections

    def __missing__(self, path: str) -> list[Detection]:
        found = self[path] = self._detect(path)
        return found


class LazyReader:
    """A :class:`BlobReader` started on the first read that asks for something (a warm run
    answered from the cache neither imports GitPython nor starts ``cat-file``)."""

    def __init__(self, repo: Repo) -> None:
        self._repo = repo
        self._reader: BlobReader | None = None

    def read_many(
        self, oids: Sequence[str], limit: int, kinds: tuple[bytes, ...] = (b"blob",)
    ) -> Iterator[tuple[str, gitio.Blob]]:
        if not oids:
            return iter(())
        return self.blobs().read_many(oids, limit, kinds)

    def blobs(self) -> BlobReader:
        """The reader (its process starts on its first read)."""
        if self._reader is None:
            self._reader = BlobReader(self._repo)
        return self._reader

    def __enter__(self) -> LazyReader:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._reader is not None:
            self._reader.close()


def _link_target(entry: Entry, blob: gitio.Blob) -> list[Finding]:
    """A symlink's target (the blob git stores and a push carries) through the secret
    detectors, and in a contract file the local-path detector too."""
    view = BlobView(entry.path, blob.data, blob.size, blob.complete, is_contract(entry.path))
    hits = [*detect_secrets(view), *(detect_local_paths(view) if view.contract else ())]
    return [to_finding(entry, replace(f, message=f"symlink target: {f.message}")) for f in hits]


def _store(inspector: Inspector, key: bytes | None, findings: list[Finding]) -> None:
    if key is not None and inspector.results is not None:
        inspector.results.put(key, findings)


REWORD = "it is in the commit's message: reword the commit (`git rebase -i`, `reword`)"
RETAG = "it is in the tag's message: delete the tag and make it again"


def judge_messages(
    messages: tuple[Entry, ...], reader: BlobReader | LazyReader, inspector: Inspector
) -> Iterator[Finding]:
    """Commit and tag messages: a session or a token pasted into one is pushed with it. Read
    as text through the session, marker and secret detectors (secrets whatever the scope)."""
    unique: dict[str, Entry] = {}
    for message in messages:
        unique.setdefault(message.oid, message)  # a tag of a tag: the first name it came by
    kinds = (b"commit", b"tag")
    every = replace(inspector, secrets_all=True)
    limit = inspector.settings.max_blob_bytes
    store = inspector.results
    keys: dict[str, bytes] = {}
    if store is not None and store.enabled:
        keys = {o: store.key(verdicts.MESSAGE, o, f"{e.mode} {e.path}") for o, e in unique.items()}
    values = store.get_many(list(keys.values())) if store is not None and keys else {}
    known: dict[str, list[Finding]] = {}
    for oid, entry in unique.items():
        value = values.get(keys.get(oid, b""))
        listed = verdicts.load(value, entry) if value is not None else None
        if listed is not None:
            known[oid] = listed
    blobs = reader.read_many([o for o in unique if o not in known], limit, kinds)
    for oid, entry in unique.items():  # in order: occurrences number findings by it
        if oid in known:
            yield from known[oid]
            continue
        blob = next(blobs)[1]
        if blob.missing:
            inspector.missing.append(entry)
            continue
        out = list(_message(entry, blob, every))
        if not every.budget.scan_cut:  # cut by the scan's budget: a later scan reads it
            _store(inspector, keys.get(oid), out)
        yield from out


def _message(entry: Entry, blob: gitio.Blob, every: Inspector) -> Iterator[Finding]:
    """The findings of one commit or tag message (a pure function of the object and the
    scan's settings: cached by :func:`judge_messages`)."""
    text = gitio.message_of(blob.data)
    if not text.strip():
        return
    view = BlobView(entry.path, text, len(text), blob.complete)
    if not blob.complete:
        yield to_finding(entry, inputs.too_large(blob.size, len(blob.data), blob.data))
    fix = REWORD if entry.mode == "commit" else RETAG
    found = [f for f in every.content(view, False) if every.keep(view, f)]
    cut = text.find(b"\n\n")
    if cut >= 0 and not any(f.rule.id.startswith("BTR") for f in found):
        # The body on its own (a base64 or other wrapped session under the subject line,
        # which the wrappers read only at the top): only a session is added from it.
        body = BlobView(entry.path, text[cut + 2 :], len(text) - cut - 2, blob.complete)
        shift = text.count(b"\n", 0, cut + 2)
        found += [
            replace(f, line=f.line + shift if f.line else f.line)
            for f in every.content(body, False)
            if f.rule.id.startswith("BTR")
        ]
    for one in found:
        yield to_finding(entry, replace(one, message=f"{one.message}; {fix}"), hint=False)


def _at_path(
    entry: Entry,
    blob: gitio.Blob | None,
    inspector: Inspector,
    path_hits: list[Detection] | None = None,
    cached: tuple[bytes | None, list[Finding] | None] = (None, None),
    plain: bool = False,
) -> Iterator[Finding]:
    """The path rules' findings, then the blob's (a file's content, or a symlink's target:
    :func:`_link_target`): from the cache, or found and stored (a blob the prefilter passed as
    ``plain`` holds nothing for the content detectors: stored empty)."""
    if path_hits is None:
        path_hits = inspector.path_detections(entry.path)
    for found in path_hits:
        yield to_finding(entry, found)
    key, known = cached
    if known is not None:
        yield from known
        return
    if blob is None:
        if plain:
            _store(inspector, key, [])
        return
    if blob.missing:
        inspector.missing.append(entry)
        return
    if entry.is_symlink:
        out = _link_target(entry, blob)
    else:
        out = list(_in_blob(entry, blob, inspector, inspector.flags(entry.path, path_hits)))
    if not inspector.budget.scan_cut:  # cut by the scan's budget: a later scan reads it
        _store(inspector, key, out)
    yield from out


def _in_blob(
    entry: Entry, blob: gitio.Blob, inspector: Inspector, path_hits: bool
) -> Iterator[Finding]:
    """What the blob holds (a pure function of the blob and the key :mod:`.verdicts` makes)."""
    if blob.data.startswith(inputs.LFS_HEADER) and blob.size < 1024:
        yield to_finding(entry, inputs.lfs_pointer())
        return
    view = BlobView(entry.path, blob.data, blob.size, blob.complete, is_contract(entry.path))
    if not blob.complete:
        yield to_finding(entry, inputs.too_large(blob.size, len(blob.data), blob.data, entry.path))
    for found in inspector.content(view, path_hits):
        if inspector.keep(view, found):
            yield to_finding(entry, found)


def to_finding(entry: Entry, found: Detection, hint: bool = True) -> Finding:
    """The finding of ``found`` in the file ``entry``; a leak ``apc boundary --staged --fix``
    repairs names it (``hint``: False for a commit or tag message, which it cannot)."""
    message = found.message
    if hint and found.rule.id in UNTRACKED_BY_FIX:
        message = f"{message} ({UNTRACK_HINT})"
    return found.rule.finding(
        entry.path,
        message,
        found.line,
        found.column,
        severity=found.severity,
        commit=entry.commit,
        match=found.match,
    )


def dedupe(findings: list[Finding], per_blob: bool = False) -> list[Finding]:
    """One finding per (rule, path, fingerprint): the first (oldest commit) wins. With
    ``per_blob`` (``--history``) one per distinct blob at the path, each with the commit that
    added it: a history file changed in seven commits is seven findings (the text report
    collapses them to one line with the count)."""
    seen: set[tuple[str, str, str, str | None]] = set()
    out: list[Finding] = []
    for finding in findings:
        version = finding.commit if per_blob else None
        key = (finding.rule, finding.path, finding.identity or finding.message, version)
        if key in seen:
            continue
        seen.add(key)
        out.append(finding)
    return out
