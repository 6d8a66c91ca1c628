"""The gate: a git source, the detectors, the policy. One function, :func:`scan`.

Order of work, cheapest first: the listing (one git command), the policy and baseline in force
(:mod:`.trusted`), the whole-run and subtree caches (:mod:`.verdicts`, :mod:`.subtrees`), then
the blob stage (:mod:`.blobs`: the path rules over every path, each distinct blob read once and
judged by the detectors), commit and tag messages, the policy's severities, the dedupe and
what the baseline accepts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from apc_tools.boundary import (
    blobs,
    checkout,
    paths,
    policy,
    prefilter,
    sources,
    stores,
    subtrees,
    trusted,
    verdicts,
)
from apc_tools.boundary.blobs import Progress
from apc_tools.boundary.policy import BaselineEntry, Settings
from apc_tools.core import git as gitio
from apc_tools.core.cache import Cache
from apc_tools.core.git import Entry, GitError, Repo
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding, Result

POLICY_FILE = ".apc-tools.yaml"


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
    cache: bool = True  # False: --no-cache (neither read nor write the result cache)
    tags: tuple[str, ...] = ()  # range mode: tags scanned too (--tag: what a push sends)


@dataclass(frozen=True)
class Outcome:
    """The result of a scan, and the baseline file written (``--write-baseline``)."""

    result: Result
    baseline_written: Path | None = None
    baseline_entries: int = 0
    root: Path | None = None  # the top level of the repository scanned


# --------------------------------------------------------------------------- the scan


def scan(options: Options, progress: Progress | None = None) -> Outcome:
    """Scan one repository; raise :class:`CannotRun` when it cannot (exit 2)."""
    repo = gitio.open_repo(options.cwd)
    try:
        return _scan(repo, options, progress)
    except GitError as exc:
        partial = " (a partial clone: objects the scan needs are not here)"
        raise CannotRun(
            f"{repo.root}: git cannot list what the scan covers: {exc}"
            + (partial if gitio.is_partial_clone(repo) else "")
        ) from None


def _scan(repo: Repo, options: Options, progress: Progress | None) -> Outcome:
    judged = verdicts.judged(repo, options.mode, options.rev_range)
    with Cache.open(verdicts.LISTING, enabled=options.cache, judged=judged) as listing:
        return _scan_with(repo, options, progress, listing)


def _scan_with(repo: Repo, options: Options, progress: Progress | None, listing: Cache) -> Outcome:
    scope = sources.scope_of(repo, options.cwd, options.paths)
    partial = gitio.is_partial_clone(repo)
    head = _merkle_head(repo, options, scope, partial)
    if head is None:
        source = sources.read_source(
            repo, options.mode, scope, options.rev_range, listing, options.tags
        )
    else:  # the entries come from the subtree cache's listing (below)
        source = sources.Source([], commit=head[0])
    scope.check(source.entries)
    settings, baseline, notes = _policy(repo, options, source)
    settings = settings.selected(options.selection)
    secrets = options.secrets or settings.secrets
    scan_context = verdicts.context(
        secrets == "all", options.inline_allow, settings.max_blob_bytes, settings.paths
    )
    with (
        Cache.open(verdicts.BLOBS, enabled=options.cache, judged=listing.judged) as store,
        Cache.open(subtrees.TREES, enabled=head is not None, judged=listing.judged) as tree_store,
        blobs.LazyReader(repo) as reader,
    ):
        trees = None
        if head is not None:
            trees = subtrees.Trees(repo, tree_store, scan_context, settings, *head)
            # (the trees are read through the blob reader's process: no second cat-file)
            listed = trees.listing(reader.blobs()) if tree_store.enabled else None
            if listed is None:  # the plain listing (and its errors)
                trees = None
                source = sources.read_source(repo, options.mode, scope, None, listing)
            else:
                size = len(listed) + trees.files
                source = sources.Source(listed, commit=head[0], tree_size=size)
        entries = source.entries
        if settings.exclude:
            entries = [e for e in entries if not settings.excluded(e.path)]
        inspector = blobs.Inspector(
            settings,
            secrets == "all",
            options.inline_allow,
            paths.extra_rules(settings.paths.get("BPA", ()), "boundary.paths.BPA"),
            partial,
            paths.home_folders(e.path for e in entries),
        )
        unit = None
        if options.mode == "tracked" and source.commit:
            unit = prefilter.Unit(source.commit, source.tree_size)
        elif options.mode == "staged":
            unit = prefilter.Unit(None)
        inspector.results = verdicts.Verdicts(store, scan_context)
        answered = trees.files if trees is not None else 0  # files of the trees that hit
        if answered and progress is not None:
            shown = progress
            progress = lambda done, total: shown(done + answered, total + answered)  # noqa: E731
            progress(0, 0)
        from_files = options.mode == "tracked" and not inspector.partial and checkout.enabled()
        # Under the subtree cache, per-blob verdicts only in folders it never stores (if any).
        keyed = None if trees is None else trees.unstored()
        run = _WholeRun.of(options, inspector, entries, source.messages, scan_context, settings)
        known = run.found() if run is not None else None
        if known is not None:  # the same commits, settings and apc: the same raw findings
            found = known
        else:
            found = list(
                blobs.judge_entries(
                    repo, entries, reader, inspector, progress, unit, from_files, keyed
                )
            )
            found += blobs.judge_messages(source.messages, reader, inspector)
            found += _store_sides(found, entries, trees.found if trees is not None else ())
        inspector.results.flush()
        _refuse_missing(inspector)
        if run is not None and known is None:
            run.save(found)
        files = len({e.path for e in entries})
        if trees is not None:  # the raw findings, before the policy, baseline and dedupe
            trees.save(found, entries)
            found += trees.found
            files += trees.files
    per_blob = options.mode == "history"
    findings = Result.of(blobs.dedupe(settings.apply(found), per_blob), files).findings
    if options.write_baseline:
        return _write_baseline(repo, settings, findings, files)
    kept = [f for f in findings if f.fingerprint not in {e.fingerprint for e in baseline}]
    if options.mode == "range" and not options.inline_allow and source.base is not None:
        # an allow already in the base counts (reviewed and merged); one the range adds, not
        kept = trusted.allowed_at_base(repo, source.base, kept, replace(settings, secrets=secrets))
    extra = list(notes)
    if baseline and options.mode in ("tracked", "history"):
        extra += _stale(baseline, {f.fingerprint for f in findings}, scope, settings)
    result = Result.of(kept + settings.apply(extra), files, strict=settings.strict)
    return Outcome(result, root=repo.root)


@dataclass
class _WholeRun:
    """The raw findings (before the policy, the baseline and the dedupe) of a whole
    ``--history`` or ``--range`` scan, kept under :func:`.verdicts.run_key`: a re-run over the
    same commits judges nothing again (the listing still comes from git and its cache)."""

    store: Cache
    key: bytes

    @classmethod
    def of(
        cls,
        options: Options,
        inspector: blobs.Inspector,
        entries: Sequence[Entry],
        messages: Sequence[Entry],
        scan_context: Sequence[str],
        settings: Settings,
    ) -> _WholeRun | None:
        results = inspector.results
        if options.mode not in ("history", "range") or inspector.partial:
            return None  # (a partial clone: a blob missing there must stop the scan)
        if results is None or not results.enabled:
            return None
        text = subtrees.settings_text(settings)
        return cls(results.store, verdicts.run_key(entries, messages, scan_context, text))

    def found(self) -> list[Finding] | None:
        value = self.store.get(self.key)
        return None if value is None else verdicts.load_run(value)

    def save(self, found: Sequence[Finding]) -> None:
        self.store.put_many({self.key: verdicts.dump_run(found)})


def _merkle_head(
    repo: Repo, options: Options, scope: sources.Scope, partial: bool
) -> tuple[str, str] | None:
    """(commit, root tree) when the subtree cache (:mod:`.subtrees`) answers this scan: the
    whole ``--tracked`` tree, the cache on, not a partial clone (a missing blob is exit 2)."""
    if options.mode != "tracked" or scope.paths is not None or not options.cache or partial:
        return None
    from apc_tools.core.cache import disabled_by_env

    if disabled_by_env():
        return None
    return subtrees.head_tree(repo)


def _refuse_missing(inspector: blobs.Inspector) -> None:
    """A blob the scan could not read is never a pass: exit 2, with how many and the fix."""
    missing = inspector.missing
    if not missing:
        return
    count = len({e.oid for e in missing})
    some = f"{count} blob{'s' if count > 1 else ''} (first: {missing[0].path}, {missing[0].oid})"
    if inspector.partial:
        raise CannotRun(
            f"{some} of what this scan covers {'are' if count > 1 else 'is'} missing from this "
            "partial clone, and apc never fetches (GIT_NO_LAZY_FETCH=1): scan a clone made "
            "without a blob filter (no `--filter` for git clone, no `filter:` for "
            "actions/checkout), or fetch every blob first (`git fetch --refetch --no-filter "
            "origin`)"
        )
    raise CannotRun(
        f"{some} missing and this is not a partial clone: the repository is damaged "
        "(run `git fsck`, or scan a fresh clone)"
    )


def _store_sides(
    found: list[Finding], entries: list[Entry], kept: Sequence[Finding] = ()
) -> list[Finding]:
    """BDB001 for the files of the same SQLite store (a database and its `-wal`/`-shm`/
    `-journal`) as one the scan reported, among the ``entries`` it read: a SHM has no header
    and either file may lack the schema page. ``kept``: the findings the subtree cache kept
    for the trees it did not read again (a store reported there still counts)."""
    reported = {f.path for f in (*found, *kept) if f.rule == stores.STORE.id}
    if not reported:
        return []
    sides = stores.siblings(reported, (e.path for e in entries))
    have = {(f.path, f.commit) for f in found if f.rule == stores.STORE.id}
    return [
        blobs.to_finding(entry, stores.side_detection(entry.path, sides[entry.path]))
        for entry in entries
        if entry.path in sides and (entry.path, entry.commit) not in have
    ]


# --------------------------------------------------------------------------- policy, baseline


def _policy(
    repo: Repo, options: Options, source: sources.Source
) -> tuple[Settings, tuple[BaselineEntry, ...], list[Finding]]:
    """The settings and baseline in force (:func:`trusted.gate_inputs`), and BPL002 notes
    (range mode)."""
    settings, baseline = trusted.gate_inputs(repo, source.base, options.config)
    notes: list[Finding] = []
    if source.base is not None:
        changed = gitio.changed_paths(
            repo, source.base, source.tip or "HEAD", [POLICY_FILE, settings.baseline]
        )
        for path in changed:
            entry = Entry("100644", "", path, source.tip)
            notes.append(blobs.to_finding(entry, policy.changed_detection(path)))
    return settings, baseline, notes


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
        out.append(blobs.to_finding(where, policy.stale_detection(entry)))
    return out


def _write_baseline(
    repo: Repo, settings: Settings, findings: tuple[Finding, ...], files: int
) -> Outcome:
    target = policy.baseline_path(repo.root, settings.baseline)
    count = trusted.write_baseline(target, findings, policy.is_boundary_rule)
    return Outcome(Result.of([], files), target, count)
