"""The whole-run result of `apc validate`: an unchanged tree answered without parsing or checking.

A batch run (``contract.validate``) keeps each file's :class:`~apc_tools.contract.outcome.Outcome`
in the result cache, but the cross-file checks (links, owners, dead globs...) run again every
time, and importing the parsers, schemas and checks is most of a warm run. This module, which
imports none of them, keys the *whole* :class:`Validation` of a run on everything it is a
function of, gathered the way the run itself gathers it (the same functions):

- apc's version and code (in every cache key), the published schemas' bytes, the format;
- the working folder, the PATH arguments as given and resolved (file or folder), the report
  root (the git top level), the options (profile, --config, inline allows, --select/--ignore)
  and the parsed policy (``repr``, as the per-file key);
- per project root: the file list (git's view: tracked and untracked not ignored, or the walk),
  the tracked list, the unlistable folders and outward folder links, the projects it holds;
- per contract file: its path, its kind (which may depend on a plugin marketplace's text) and
  the SHA-256 of its bytes (or why they cannot be read); a file named on the command line
  outside the list (a lone ``.mdc``): its bytes;
- what the checks asked the disk beyond the file list (``Project.probe``: a link target that is
  git-ignored or in a nested project, ``.apc/`` being a folder, ``.apc/.gitignore`` a file):
  stored with the result and asked again before it is used; any other answer is a miss.

Any edit, addition, deletion or rename of a listed file changes the file list or a content
hash; a policy change changes the policy; so each gives a fresh run. On a miss the run is made
on exactly what the key was made of (:class:`~apc_tools.contract.listing.Gathered`: the
layouts, kinds and bytes, nothing listed or read twice), so a file edited meanwhile is never
stored under its old content.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import time
from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apc_tools.contract.listing import (
    Gathered,
    Layout,
    Validation,
    _layout,
    _text_of,
    layout_of,
    report_root,
)
from apc_tools.contract.project import decides_kinds, disk_answer, kinds_of
from apc_tools.core import files as io
from apc_tools.core.cache import UNDECODABLE
from apc_tools.findings import CannotRun, Finding, Result, Severity

if TYPE_CHECKING:  # pragma: no cover
    from apc_tools.core.cache import Cache, Judged
    from apc_tools.core.selection import Selection

FORMAT = "2"  # the layout of a stored whole-run result (part of the key)
NAMESPACE = "validate"
MEMO_FORMAT = "1"  # the layout of a stored stat memo (part of its key)
# A file whose mtime or ctime is not older than this before the run began listing is never
# trusted by its signature next time (racy git: an edit in the same clock tick as the run, or
# one the file system's clock or granularity hides, keeps size and times): it is read again.
RACY_NS = 2_000_000_000


# --------------------------------------------------------------------------- the whole run


def gather(
    layout: Layout,
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
    store: Cache | None = None,
) -> tuple[bytes, Gathered] | None:
    """The key of the whole run ``run_validate(layout=layout, ...)`` reported from the
    layout's report root (module docstring) and what was listed and read to make it (for the
    run), or None when the run is not one to answer whole (it would stop: a bad policy, a path
    gone since the layout was made). With ``store``
    (an open cache), a contract file whose stat signature is the one its project's memo
    recorded is not read: the memo's digest stands for its bytes (:func:`_signature`)."""
    from apc_tools.core.cache import key as cache_key
    from apc_tools.core.policy import load_policy

    started = time.time_ns()
    limit = started - RACY_NS
    try:
        here, targets = layout.cwd, layout.targets
        for path in layout.paths:
            if not (here / path).exists() and not (here / path).is_symlink():
                return None
        policy = load_policy(config_path, layout.groups[0].root)
        if selection is not None:
            policy = policy.selected(selection)
        got = Gathered()
        parts: list[str] = [
            FORMAT,
            os.fspath(here),
            os.fspath(layout.report_root()),
            repr([os.fspath(p) for p in layout.paths]),
            repr([(os.fspath(t), t.is_dir()) for t in targets]),
            repr(profile),
            repr(None if config_path is None else os.fspath(config_path)),
            repr(inline_allow),
            repr(policy),
            _schemas(),
        ]
        scanned: list[tuple[Path, list[Any]]] = []
        for group in layout.groups:
            root = group.root
            layouts, found = _layout(root, here, policy, group.extra())
            got.layouts[os.fspath(root)] = (layouts, found)
            scanned.append((root, layouts))
            parts += [os.fspath(root), repr(found)]
        memos = _load_memos(store, [os.fspath(o.root) for _, ls in scanned for o in ls])
        for _root, layouts in scanned:
            for one in layouts:
                tracked = None if one.tracked is None else "\0".join(sorted(one.tracked))
                top = os.fspath(one.root)
                listing = "\0".join(one.local)
                if one.include:  # the memo's kinds depend on it too
                    listing += "\0\0" + repr(one.include)
                parts += [top, one.display, listing, repr(tracked)]
                record = memos.get(top, {})
                kept = _Record(record, listing, one.local, top, limit)
                kinds = kept.kinds(one.local)
                if kinds is None:
                    kinds = kinds_of(one.local, partial(_text_of, one.root), one.include)
                got.kinds[top] = kinds
                old = record.get("e", {})
                prefix = os.path.join(top, "")  # + a POSIX rel: a path (one join per tree)
                new: dict[str, list[int | str]] = {}
                files: list[str] = []
                for rel in one.local:
                    kind = kinds.get(rel)
                    if kind is None:
                        continue
                    info: os.stat_result | None
                    try:
                        info = os.lstat(prefix + rel)
                        sig = _signature(info)
                    except (OSError, ValueError):
                        info = sig = None
                    known = old.get(rel)
                    if sig is not None and known is not None and known[:-1] == sig:
                        digest = known[-1]
                        got.trusted[(top, rel)] = digest
                        new[rel] = known
                    else:
                        shown = f"{one.display}/{rel}" if one.display else rel
                        data = io.read_bytes(prefix + rel, one.root, shown, info)
                        got.data[(top, rel)] = data
                        digest = _digest(data)
                        if not isinstance(data, Finding):
                            got.digests[(top, rel)] = digest
                        if sig is not None and _recordable(sig, data, limit):
                            new[rel] = [*sig, digest]
                    files.append(f"{rel}\0{kind}\0{digest}")
                parts.append("\0".join(files))
                got.memos[top] = kept.made(new, kinds, one.local)
                got.memo_changed |= got.memos[top] != record
        for target in targets:
            if not target.is_dir():  # a file argument (a lone .mdc is read from here)
                parts += [os.fspath(target), _digest(io.read_bytes(target, target.parent, ""))]
    except (OSError, ValueError, RuntimeError, CannotRun):
        return None
    return cache_key("validate-run", *parts), got


def _signature(info: os.stat_result) -> list[int]:
    """What says a file is unchanged without reading it: mode, size, mtime, ctime, inode and
    device (ctime cannot be set back by ``touch -d`` or ``os.utime``, so an edit that keeps
    size and mtime still changes it)."""
    return [
        info.st_mode,
        info.st_size,
        info.st_mtime_ns,
        info.st_ctime_ns,
        info.st_ino,
        info.st_dev,
    ]


def _recordable(sig: list[int], data: bytes | Finding, limit: int) -> bool:
    """A signature worth keeping: a regular file (not a link: its target may move), read
    whole, last changed clearly before the run began (:data:`RACY_NS`)."""
    return (
        stat.S_ISREG(sig[0]) and not isinstance(data, Finding) and sig[2] < limit and sig[3] < limit
    )


def _memo_key(top: str) -> bytes:
    from apc_tools.core.cache import key as cache_key

    return cache_key("validate-stat", MEMO_FORMAT, top)


def _load_memos(store: Cache | None, tops: Sequence[str]) -> dict[str, dict[str, Any]]:
    """The stat memo of each project root in ``tops`` (damaged or absent: empty): ``e`` the
    contract files (rel -> signature and digest), ``l``, ``m`` and ``k`` the digest of the file
    list, the signatures of its plugin marketplaces and the kind of each file (kinds depend on
    nothing else)."""
    if store is None or not store.enabled or not tops:
        return {}
    keys = {_memo_key(top): top for top in tops}
    out: dict[str, dict[str, Any]] = {}
    for k, raw in store.get_many(list(keys)).items():
        try:
            data = json.loads(raw)
        except UNDECODABLE:
            continue
        entries = data.get("e") if isinstance(data, dict) else None
        if isinstance(entries, dict):
            data["e"] = {
                rel: entry
                for rel, entry in entries.items()
                if isinstance(entry, list) and len(entry) == 7 and isinstance(entry[-1], str)
            }
            out[keys[k]] = data
    return out


class _Record:
    """The kinds part of one project's stat memo: the kinds it recorded stand when the file
    list is the same and every plugin marketplace, Gemini CLI extension manifest and Gemini
    settings file (whose text decides kinds) has the recorded signature."""

    def __init__(
        self, record: dict[str, Any], listing: str, local: Sequence[str], top: str, limit: int
    ) -> None:
        self.record = record
        self.listing = hashlib.sha256(listing.encode("utf-8", "surrogatepass")).hexdigest()
        self.markets: dict[str, list[int] | None] = {}
        for rel in local:
            if decides_kinds(rel):
                try:
                    self.markets[rel] = _signature(os.lstat(os.path.join(top, rel)))
                except (OSError, ValueError):
                    self.markets[rel] = None
        self.steady = all(
            sig is not None and _recordable(sig, b"", limit) for sig in self.markets.values()
        )

    def kinds(self, local: Sequence[str]) -> dict[str, str] | None:
        record = self.record
        if not self.steady or record.get("l") != self.listing or record.get("m") != self.markets:
            return None
        kinds = record.get("k")
        if not isinstance(kinds, list) or len(kinds) != len(local):
            return None
        out = {rel: kind for rel, kind in zip(local, kinds, strict=True) if kind is not None}
        return out if all(isinstance(kind, str) for kind in out.values()) else None

    def made(
        self, entries: dict[str, list[int | str]], kinds: dict[str, str], local: Sequence[str]
    ) -> dict[str, Any]:
        if not self.steady:
            return {"e": entries}
        kind_list = [kinds.get(rel) for rel in local]
        return {"e": entries, "l": self.listing, "m": self.markets, "k": kind_list}


def _keep_memos(store: Cache, got: Gathered) -> None:
    if got.memo_changed and store.enabled:
        store.put_many(
            {
                _memo_key(top): json.dumps(memo, separators=(",", ":")).encode("utf-8")
                for top, memo in got.memos.items()
            }
        )


def settle(got: Gathered) -> bool:
    """Read the bytes of every file the stat memo vouched for into ``got``; True when each still
    has the recorded digest (the run then judges exactly the bytes of the key), False when one
    changed meanwhile (gather again, without the memo)."""
    shown_root = {os.fspath(o.root): o.display for ls, _ in got.layouts.values() for o in ls}
    for (top, rel), digest in got.trusted.items():
        root = Path(top)
        display = shown_root.get(top, "")
        data = io.read_bytes(root / rel, root, f"{display}/{rel}" if display else rel)
        if _digest(data) != digest:
            return False
        got.data[(top, rel)] = data
        got.digests[(top, rel)] = digest
    got.trusted.clear()
    return True


def _digest(data: bytes | Finding) -> str:
    if isinstance(data, Finding):
        return repr(data)
    return hashlib.sha256(data).hexdigest()


def _schemas() -> str:
    """A digest of the published schemas (data files, so not in the code digest of the key),
    read where ``core.schemas`` reads them (the ``apc_tools.schemas`` package's folders)."""
    from importlib.util import find_spec

    digest = hashlib.sha256()
    try:
        spec = find_spec("apc_tools.schemas")
        for folder in (spec.submodule_search_locations or ()) if spec else ():
            for name in sorted(os.listdir(folder)):
                if name.endswith(".json"):
                    data = Path(folder, name).read_bytes()
                    digest.update(name.encode() + b"\0" + data + b"\0")
    except OSError:
        digest.update(os.urandom(16))  # unreadable: never the same key twice
    return digest.hexdigest()


# A whole-run lookup made before the run (the lean start, apc_tools.start, asks first and hands
# its gathering to the click command on a miss, so nothing is listed or read twice): the
# arguments it was made for and what it gathered.
_handed: tuple[tuple[Any, ...], tuple[bytes, Gathered]] | None = None


def _options(
    profile: str | None,
    config_path: Path | None,
    inline_allow: bool,
    selection: Selection | None,
) -> dict[str, Any]:
    """The keyword arguments of :func:`gather` but the layout."""
    return {
        "profile": profile,
        "config_path": config_path,
        "inline_allow": inline_allow,
        "selection": selection,
    }


def _layout_of(paths: Sequence[Path], cwd: Path | None, report: Path | None) -> Layout:
    """The run's layout, its report root decided here (:func:`report_root`) when the caller
    did not know it."""
    layout = layout_of(paths, cwd, report)
    if report is None:
        layout = replace(layout, report=report_root(layout.cwd))
    return layout


def _arguments(layout: Layout, options: dict[str, Any]) -> tuple[Any, ...]:
    """The layout and :func:`_options` as plain values (what a handed-on lookup must match)."""
    config = options["config_path"]
    return (
        [os.fspath(p) for p in layout.paths],
        options["profile"],
        None if config is None else os.fspath(config),
        os.fspath(layout.cwd),
        options["inline_allow"],
        repr(options["selection"]),
        os.fspath(layout.report_root()),
    )


def _gather_and_ask(
    layout: Layout, options: dict[str, Any]
) -> tuple[tuple[bytes, Gathered] | None, Validation | None]:
    """What :func:`gather` makes of the run (the cache open for its memos), and the stored
    whole-run result under its key (its memos kept when it is there)."""
    from apc_tools.core.cache import Cache

    with Cache.open(NAMESPACE, judged=judged_of(layout)) as opened:
        made = gather(layout, **options, store=opened)
        hit = _lookup_in(opened, made[0]) if made is not None else None
        if hit is not None and made is not None:
            _keep_memos(opened, made[1])
        return made, hit


def answer(
    paths: Sequence[Path],
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
    report: Path | None = None,
) -> Validation | None:
    """The whole-run result of ``validate_tree(paths, ...)`` (same arguments, the cache on)
    when the cache holds it, else None; on a miss what was gathered is kept for the
    :func:`validate_tree` call with the same arguments that follows in this process."""
    global _handed
    from apc_tools.core.cache import disabled_by_env

    if disabled_by_env():
        return None
    try:
        layout = _layout_of(paths, cwd, report)
    except CannotRun:
        return None  # (the run says why)
    options = _options(profile, config_path, inline_allow, selection)
    made, hit = _gather_and_ask(layout, options)
    if made is None or hit is not None:
        return hit
    _handed = (_arguments(layout, options), made)
    return None


def handed() -> bool:
    """A lookup missed and kept what it gathered for the :func:`validate_tree` call that
    follows (:func:`answer`)."""
    return _handed is not None


def validate_tree(
    paths: Sequence[Path],
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
    cache: bool = True,
    report: Path | None = None,
) -> Validation:
    """``rooted(run_validate(paths, ...))`` (`apc validate`: paths relative to the report
    root), answered whole from the result cache when nothing it depends on changed; else run
    (``contract.validate``, imported only then) and stored for the next run. ``report``:
    :func:`report_root` of ``cwd`` when the caller knows it."""
    global _handed
    from apc_tools.core.cache import disabled_by_env

    handed, _handed = _handed, None
    layout = _layout_of(paths, cwd, report)
    options = _options(profile, config_path, inline_allow, selection)
    made = None
    if cache and not disabled_by_env():
        if handed is not None and handed[0] == _arguments(layout, options):
            made = handed[1]  # asked already (apc_tools.start): a miss
        else:
            made, hit = _gather_and_ask(layout, options)
            if hit is not None:
                return hit
        if made is not None and not settle(made[1]):
            made = gather(layout, **options)
    from apc_tools.contract.validate import rooted, run_validate

    found = rooted(
        run_validate(
            layout.paths,
            profile=profile,
            config_path=config_path,
            inline_allow=inline_allow,
            selection=selection,
            cache=cache,
            gathered=made[1] if made else None,
            layout=layout,
        ),
        layout,
    )
    if made is not None:
        store(made[0], found, memo=made[1], judged=judged_of(layout))
    return found


def judged_of(layout: Layout) -> Judged:
    """What a run of ``layout`` judges (the result cache must stay out of it:
    :func:`apc_tools.core.cache.refusal`): the report root and each project root."""
    from apc_tools.core.cache import Judged

    return Judged(tuple(dict.fromkeys([layout.report_root(), *(g.root for g in layout.groups)])))


def lookup(
    key: bytes | None, *, enabled: bool = True, judged: Judged | None = None
) -> Validation | None:
    """The stored whole-run result under ``key``, when every disk answer it depends on is
    still the same; else None."""
    if key is None:
        return None
    from apc_tools.core.cache import Cache

    with Cache.open(NAMESPACE, enabled=enabled, judged=judged) as opened:
        return _lookup_in(opened, key)


def _lookup_in(opened: Cache, key: bytes) -> Validation | None:
    raw = opened.get(key) if opened.enabled else None
    if raw is None:
        return None
    found = from_bytes(raw)
    if found is None or found.probes is None:
        return None
    for root, question, rel, answer in found.probes:
        if disk_answer(Path(root), question, rel) != answer:
            return None
    return found


def store(
    key: bytes | None,
    found: Validation,
    *,
    enabled: bool = True,
    memo: Gathered | None = None,
    judged: Judged | None = None,
) -> None:
    """Keep ``found`` (a run made on exactly the data of ``key``: :class:`Gathered`) under
    ``key`` when the run can be answered whole, and the stat memo of ``memo``."""
    if key is None:
        return
    from apc_tools.core.cache import Cache

    with Cache.open(NAMESPACE, enabled=enabled, judged=judged) as cache:
        if not cache.enabled:
            return
        if found.probes is not None:
            cache.put_many({key: to_bytes(found)})
        if memo is not None:
            _keep_memos(cache, memo)


def _finding_out(f: Finding) -> list[Any]:
    return [
        f.rule,
        f.severity.value,
        f.path,
        f.line,
        f.column,
        f.message,
        f.commit,
        f.identity,
        f.occurrence,
        f.preexisting,
    ]


def _finding_in(data: Any) -> Finding:
    rule, severity, path, line, column, message, commit, identity, occurrence, pre = data
    for text in (rule, path, message, identity):
        if not isinstance(text, str):
            raise TypeError("not a finding")
    return Finding(
        rule=rule,
        severity=Severity(severity),
        path=path,
        line=line if isinstance(line, int) else None,
        column=column if isinstance(column, int) else None,
        message=message,
        commit=commit if isinstance(commit, str) else None,
        identity=identity,
        occurrence=int(occurrence),
        preexisting=bool(pre),
    )


def to_bytes(found: Validation) -> bytes:
    result = found.result
    data = {
        "f": [_finding_out(f) for f in result.findings],
        "n": result.files,
        "s": result.strict,
        "k": result.skipped,
        "l": [list(pair) for pair in found.listed],
        "x": list(found.skipped),
        "a": [_finding_out(f) for f in found.allowed],
        "p": None if found.probes is None else [list(p) for p in found.probes],
    }
    # ASCII JSON: a name that is not UTF-8 (surrogate escapes) is stored as \udcff escapes
    return json.dumps(data, separators=(",", ":")).encode("ascii")


def from_bytes(raw: bytes) -> Validation | None:
    """The stored Validation, or None for a damaged entry (the run is then made again)."""
    try:
        data = json.loads(raw)
        result = Result(
            tuple(_finding_in(f) for f in data["f"]),
            int(data["n"]),
            strict=bool(data["s"]),
            skipped=int(data["k"]),
        )
        probes = data["p"]
        return Validation(
            result,
            tuple((str(shown), str(kind)) for shown, kind in data["l"]),
            tuple(str(s) for s in data["x"]),
            tuple(_finding_in(f) for f in data["a"]),
            None
            if probes is None
            else tuple((str(r), str(q), str(rel), bool(a)) for r, q, rel, a in probes),
        )
    except UNDECODABLE:
        return None
