"""The gate's result cache (:mod:`apc_tools.core.cache`): what the detectors found in a blob,
and what ``diff-tree`` lists for a commit, kept between runs.

A git object id names its content, so a verdict keyed by it never goes stale. The key of a
blob's verdict (:meth:`Verdicts.key`) holds everything else the content detectors read (audited
in :mod:`.blobs`: ``Inspector.content``, ``_at_path``, ``_link_target``, ``judge_messages``,
``keep``, and the detectors): the kind of entry (file, symlink, commit or tag message), the blob
id, the path (whatever the detectors derive from it: contract file, agent configuration, the
policy's BTR and BDB globs, suffix, name, folders, and the names of wrapped content), whether a
path rule hit it, and for the whole scan (:func:`context`) the secret scope, inline allow
comments, the read limit, the policy's extra globs of the content families, the zstd
decompressor found and the Python version; :func:`apc_tools.core.cache.key` adds apc's version
and code digest.

What is stored is what a :class:`~apc_tools.findings.Finding` keeps: rule, severity, message
(which never quotes content), line, column and the *hash* of the matched content (never the
match itself), so a cached result rebuilds the byte-identical finding and fingerprint. An empty
list (most blobs) is a verdict too. Not cached: a blob that is missing (partial clone, damaged
repository: the scan must still exit 2), the path rules (no blob), submodules (no blob).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from apc_tools.core.cache import UNDECODABLE, Cache, Judged, keyer, text_keyer
from apc_tools.core.git import SUBMODULE_MODE, SYMLINK_MODE, Commit, Entry, Repo
from apc_tools.findings import Finding, Severity, changed

if TYPE_CHECKING:
    from apc_tools.boundary.model import Detection

BLOBS = "boundary-blob"
LISTING = "boundary-listing"
RUNS = "boundary-run"
FILE, LINK, MESSAGE = "file", "link", "message"


def context(
    secrets_all: bool,
    inline_allow: bool,
    max_blob_bytes: int,
    globs: Mapping[str, tuple[str, ...]],
) -> tuple[str, ...]:
    """The part of every blob key that is the same for the whole scan."""
    from apc_tools.boundary.disguise import zstd_module

    zstd = zstd_module()
    content_globs = {k: sorted(v) for k, v in sorted(globs.items()) if k != "BPA" and v}
    return (
        f"secrets_all={secrets_all}",
        f"inline_allow={inline_allow}",
        f"max_blob_bytes={max_blob_bytes}",
        "globs=" + json.dumps(content_globs, sort_keys=True),
        f"zstd={getattr(zstd, '__name__', '') if zstd is not None else ''}",
        f"python={sys.version_info[0]}.{sys.version_info[1]}",
    )


def judged(repo: Repo, mode: str, rev_range: str | None) -> Judged:
    """What a scan in ``mode`` judges, for :func:`apc_tools.core.cache.refusal`: the work
    tree, and the commits of a range (after ``--end-of-options``: a range is never an option
    of git's; the history's commits, every ref's, are asked in every mode)."""
    revs: tuple[str, ...] = ()
    if mode == "range" and rev_range:
        revs = ("--end-of-options", rev_range)
    return Judged((repo.root,), revs)


def dump(findings: Sequence[Finding]) -> bytes:
    if not findings:  # most blobs
        return b"[]"
    rows = [[f.rule, f.severity.value, f.message, f.line, f.column, f.identity] for f in findings]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def load(value: bytes, entry: Entry) -> list[Finding] | None:
    """The findings of a stored verdict at ``entry`` (None when the value is not one)."""
    if value == b"[]":  # most blobs: nothing found
        return []
    try:
        rows = json.loads(value.decode("utf-8", "surrogatepass"))
        return [
            Finding(
                rule=str(rule),
                severity=Severity(severity),
                path=entry.path,
                line=stored_int(line),
                column=stored_int(column),
                message=str(message),
                commit=entry.commit,
                identity=str(identity),
            )
            for rule, severity, message, line, column, identity in rows
        ]
    except UNDECODABLE:
        return None  # never trusted: the blob is read and inspected instead


def run_key(
    entries: Sequence[Entry], messages: Sequence[Entry], scan_context: Sequence[str], settings: str
) -> bytes:
    """The key of a whole ``--history`` or ``--range`` scan's raw findings: every entry and
    message it judges (mode, id, commit, path; in order: findings are numbered by it), the
    scan context and the settings' canonical text (:func:`.subtrees.settings_text`)."""
    make = text_keyer(RUNS, *scan_context, settings)
    listed = "\n".join(
        f"{e.mode}\0{e.oid}\0{e.commit or ''}\0{e.path}" for e in (*entries, *messages)
    )
    return make(f"{len(entries)}\n{len(messages)}\n{listed}")


def dump_run(findings: Sequence[Finding]) -> bytes:
    rows = [
        [f.path, f.rule, f.severity.value, f.message, f.line, f.column, f.identity, f.commit]
        for f in findings
    ]
    return json.dumps(rows, ensure_ascii=False, separators=(",", ":")).encode(
        "utf-8", "surrogatepass"
    )


def load_run(value: bytes) -> list[Finding] | None:
    """The raw findings of a stored whole scan (None when the value is not one)."""
    try:
        return findings_of(json.loads(value.decode("utf-8", "surrogatepass")), None)
    except UNDECODABLE:
        return None  # never trusted: the scan runs


def findings_of(rows: object, commit: str | None) -> list[Finding]:
    """The findings of stored rows ``[path, rule, severity, message, line, column, identity]``,
    each with ``commit``, or with its own as an eighth item (:func:`dump_run`); TypeError or
    ValueError when ``rows`` are not such rows."""
    if not isinstance(rows, list):
        raise TypeError("not a list of rows")
    out: list[Finding] = []
    for row in rows:
        path, rule, severity, message, line, column, identity, *more = row
        if len(more) > 1:
            raise ValueError("a row of more than eight items")
        own = more[0] if more else commit
        out.append(
            Finding(
                rule=str(rule),
                severity=Severity(severity),
                path=str(path),
                line=stored_int(line),
                column=stored_int(column),
                message=str(message),
                commit=None if own is None else str(own),
                identity=str(identity),
            )
        )
    return out


def stored_int(value: object) -> int | None:
    """A stored line or column: an int or None (anything else: the value is damaged)."""
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not a line number")
    return value


class Verdicts:
    """The blob verdicts of one scan: looked up before reading, stored after detecting."""

    def __init__(self, store: Cache, scan_context: Sequence[str]) -> None:
        self.store = store
        self._key = text_keyer(BLOBS, *scan_context)
        self._new: dict[bytes, bytes] = {}

    @property
    def enabled(self) -> bool:
        return self.store.enabled

    def key(self, kind: str, oid: str, path: str, path_hits: bool = False) -> bytes:
        # One part, NUL-separated: a kind, an object id and a flag hold no NUL, nor does a
        # git path (the only part of any length comes before the flag).
        return self._key(f"{kind}\0{oid}\0{'hit' if path_hits else ''}\0{path}")

    def get_many(self, keys: Sequence[bytes]) -> dict[bytes, bytes]:
        return self.store.get_many(keys)

    def put(self, key: bytes, findings: Sequence[Finding]) -> None:
        if self.store.enabled:
            self._new[key] = dump(findings)
            if len(self._new) >= 5000:
                self.flush()

    def put_empty(self, key: bytes) -> None:
        """:meth:`put` of an empty verdict (most blobs), in fewer steps."""
        new = self._new
        new[key] = b"[]"
        if len(new) >= 5000:
            self.flush()

    def flush(self) -> None:
        new, self._new = self._new, {}
        self.store.put_many(new)


# --------------------------------------------------------------------------- the listing


def changes_cached(repo: Repo, commits: Sequence[Commit], store: Cache | None) -> Iterable[Entry]:
    """:func:`apc_tools.core.git.changes_of` with each commit's entries kept: what diff-tree
    lists for a commit against its first parent is a pure function of the two ids (the git
    settings are pinned in :mod:`apc_tools.core.git`), so only the commits not yet seen are
    asked of git."""
    from apc_tools.core import git as gitio

    if store is None or not store.enabled or not commits:
        return list(gitio.changes_of(repo, commits))
    make = text_keyer(LISTING, "diff-tree --root -r --raw --no-renames --diff-filter=AMT")
    keys = [make(f"{c.oid} {c.parents[0] if c.parents else ''}") for c in commits]
    found = store.get_many(keys)
    todo = [c for c, k in zip(commits, keys, strict=True) if k not in found]
    fresh: dict[str, list[Entry]] = {c.oid: [] for c in todo}
    for entry in gitio.changes_of(repo, todo):
        fresh[entry.commit or ""].append(entry)
    out: list[Entry] = []
    new: dict[bytes, bytes] = {}
    for commit, k in zip(commits, keys, strict=True):
        if k in found:
            listed = _entries(found[k], commit.oid)
            if listed is not None:
                out += listed
                continue
            listed = list(gitio.changes_of(repo, [commit]))
        else:
            listed = fresh[commit.oid]
        out += listed
        new[k] = b"\0".join(
            f"{e.mode} {e.oid} ".encode("ascii") + os.fsencode(e.path) for e in listed
        )
    store.put_many(new)
    return out


def _entries(value: bytes, commit: str) -> list[Entry] | None:
    if not value:
        return []
    out: list[Entry] = []
    try:
        for item in value.split(b"\0"):
            mode, oid, path = item.split(b" ", 2)
            out.append(Entry(mode.decode("ascii"), oid.decode("ascii"), os.fsdecode(path), commit))
    except ValueError:
        return None
    return out


class TagObjects:
    """An object's type and a tag's target, kept by object id (what an id names never
    changes): a warm run follows annotated tags without asking git."""

    def __init__(self, repo: Repo, store: Cache | None) -> None:
        self.repo = repo
        self.store = store if store is not None and store.enabled else None
        self._key = keyer(LISTING, "object")

    def _cached(
        self, oid: str, compute: Callable[[], str | None], valid: Callable[[str], bool]
    ) -> str | None:
        """The stored answer when it is one ``valid`` takes (a damaged row is never trusted:
        a wrong type would skip a tag's message), else git's, stored."""
        if self.store is None:
            return compute()
        k = self._key(oid)
        value = self.store.get(k)
        if value is not None:
            text = value.decode("utf-8", "surrogateescape")
            if valid(text):
                return text
        out = compute()
        if out is not None:
            self.store.put_many({k: out.encode("utf-8", "surrogateescape")})
        return out

    def kind(self, oid: str) -> str:
        from apc_tools.core import git as gitio

        return self._cached("t" + oid, lambda: gitio.object_type(self.repo, oid), _is_kind) or ""

    def target(self, oid: str) -> tuple[str, str, str] | None:
        """(object id, type, tag name) of tag ``oid``; None when it is missing."""
        from apc_tools.core import git as gitio

        def read() -> str | None:
            raw = gitio.read_objects(self.repo, [oid]).get(oid)
            return None if raw is None else "\0".join(gitio.tag_target(raw[1]))

        value = self._cached("o" + oid, read, _is_target)
        if value is None:
            return None
        parts = value.split("\0")
        return (parts[0], parts[1], parts[2]) if len(parts) == 3 else None


_KINDS = ("commit", "tree", "blob", "tag")


def _is_kind(text: str) -> bool:
    return text in _KINDS


def _is_target(text: str) -> bool:
    """``<object id>\0<type>\0<tag name>`` as :meth:`TagObjects.target` stores it."""
    parts = text.split("\0")
    if len(parts) != 3 or parts[1] not in _KINDS or len(parts[0]) not in (40, 64):
        return False
    return not parts[0].strip("0123456789abcdef")


# --------------------------------------------------------------------------- a scan's lookup


@dataclass
class Cached:
    """The verdicts found in the cache: per (oid, path), and the oids needing no read."""

    keys: dict[tuple[str, str], bytes] = field(default_factory=dict)
    found: dict[tuple[str, str], list[Finding]] = field(default_factory=dict)
    whole: set[str] = field(default_factory=set)
    quiet: set[str] = field(default_factory=set)  # of whole: nothing found, no path rule hit

    def get(self, entry: Entry) -> tuple[bytes | None, list[Finding] | None]:
        at = (entry.oid, entry.path)
        found = self.found.get(at)
        if found:  # loaded once per (oid, path); the commit is this entry's
            found = [changed(f, commit=entry.commit) for f in found]
        return self.keys.get(at), found


def cached_under(
    by_oid: Mapping[str, list[Entry]],
    entries: Sequence[Entry],
    keyed: tuple[str, ...] | None,
    absent: set[str],
    hits: Mapping[str, list[Detection]],
    results: Verdicts | None,
    flagged: Callable[[str, list[Detection]], bool] | None = None,
) -> Cached:
    """The cached verdicts of the files under ``keyed`` (None: of every file) in the result
    cache ``results``, looked up before any blob is read (``hits``: the path rules'
    detections of each path; ``flagged``: whether a path's blob is judged as flagged, by
    default when it has a hit); a blob also at a path outside them is read (its verdict there
    is not kept per blob)."""
    if keyed is None:
        return _cached(by_oid, absent, hits, results, flagged)
    if not keyed:
        return Cached()
    some: dict[str, list[Entry]] = {}
    for entry in entries:
        if entry.path.startswith(keyed):
            some.setdefault(entry.oid, []).append(entry)
    out = _cached(some, absent, hits, results, flagged)
    partly = {o for o, group in some.items() if len(group) != len(by_oid[o])}
    out.whole -= partly
    out.quiet -= partly
    return out


def _cached(
    by_oid: Mapping[str, list[Entry]],
    absent: set[str],
    hits: Mapping[str, list[Detection]],
    store: Verdicts | None,
    flagged: Callable[[str, list[Detection]], bool] | None = None,
) -> Cached:
    out = Cached()
    if store is None or not store.enabled:
        return out
    make, keys = store.key, out.keys
    link, file = LINK, FILE
    loud: set[str] = set()  # blobs with a path rule hit, a submodule, or a finding
    for oid, group in by_oid.items():
        if oid in absent:  # never answered from the cache: a missing blob is exit 2
            continue
        for entry in group:
            path, mode = entry.path, entry.mode
            at = (oid, path)
            if mode == SUBMODULE_MODE:
                loud.add(oid)
                continue
            if at in keys:
                continue
            if hits[path]:
                loud.add(oid)
            if mode == SYMLINK_MODE:
                keys[at] = make(link, oid, path)
            else:
                hit = flagged(path, hits[path]) if flagged else bool(hits[path])
                keys[at] = make(file, oid, path, hit)
    if not out.keys:
        return out
    values = store.get_many(list(keys.values()))
    found, missed = out.found, set()
    empty: list[Finding] = []  # shared by every blob stored empty (never changed in place)
    for at, k in keys.items():
        value = values.get(k)
        if value == b"[]":  # most blobs
            found[at] = empty
            continue
        listed = None if value is None else load(value, Entry("", at[0], at[1]))
        if listed is None:
            missed.add(at[0])
        else:
            found[at] = listed
            if listed:
                loud.add(at[0])
    out.whole = {at[0] for at in keys if at[0] not in missed}  # every path of it answered
    out.quiet = out.whole - loud
    return out
