"""`apc validate`: discover, read, parse, check, apply the policy; and build the Contract.

The flow is the one of ARCHITECTURE.md habit 1: a loader yields each file's parsed data or its
problems, pure checks build findings, the caller renders them. A bad file becomes a finding and
the run goes on.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache, partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from apc_tools.contract.checks import CHECKS, PROJECT_CHECKS
from apc_tools.contract.checks.agents import claude_yaml_outcome
from apc_tools.contract.checks.discovery import NOTHING_RECOGNISED
from apc_tools.contract.checks.mcp_configs import EDITOR_KINDS, editor_parse_findings
from apc_tools.contract.checks.plans import imported_agents
from apc_tools.contract.checks.rule_files import (
    GLOB_BUDGET,
    dead_globs,
    dead_globs_alone,
    dead_globs_of,
    rule_globs,
)
from apc_tools.contract.checks.secrets import check_secrets, doc_secrets
from apc_tools.contract.inline import Allowances, split_allowed
from apc_tools.contract.listing import (
    Gathered,
    Group,
    Layout,
    Validation,
    _layout,
    _ProjectFiles,
    _text_of,
    find_root,
    layout_of,
)
from apc_tools.contract.outcome import FILE_KINDS, FORMAT, Outcome
from apc_tools.contract.project import (
    JSON_KINDS,
    JSONC_KINDS,
    LOOKS_FOR,
    MARKDOWN_KINDS,
    Doc,
    Project,
    classify,
    kinds_of,
    list_files,
    owner,
    project_roots,
)
from apc_tools.core import detect
from apc_tools.core import files as io
from apc_tools.core.cache import Cache, Judged
from apc_tools.core.cache import key as cache_key
from apc_tools.core.cache import keyer as cache_keyer
from apc_tools.core.parse import (
    FM_BOM,
    YAML_LENIENT,
    YAML_NOT_MAPPING,
    YAML_SYNTAX,
    Located,
    Problem,
    load_frontmatter_yaml,
    load_json,
    preload,
    split_frontmatter,
    strip_jsonc,
)
from apc_tools.core.policy import Policy, load_policy
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding, Result, changed, content_hash

if TYPE_CHECKING:  # pragma: no cover - imported by load_contract only (not by a validate run)
    from apc_tools.contract.model import Contract
    from apc_tools.contract.session import Judgement, Session  # (the session imports warm)

PROFILES = ("default", "agentskills")


def _problem_findings(doc_path: str, problems: Iterable[Problem]) -> list[Finding]:
    return [p.rule.finding(doc_path, p.message, p.line, p.column) for p in problems]


def parse_doc(kind: str, rel: str, text_file: io.TextFile) -> tuple[Doc, list[Finding]]:
    """Parse one contract file by kind; parse problems come back as findings."""
    doc = Doc(kind, text_file.path, rel, text_file.text, text_file.sha256)
    found: list[Finding] = []
    if text_file.had_bom and kind in MARKDOWN_KINDS:
        found.append(FM_BOM.finding(doc.path, "file starts with a UTF-8 byte-order mark", 1, 1))
    if not text_file.text.strip():
        found.append(io.IO_EMPTY.finding(doc.path, "file is empty"))
        return doc, found
    if kind in MARKDOWN_KINDS:
        front = split_frontmatter(text_file.text)
        found += _problem_findings(doc.path, front.problems)
        doc.body, doc.body_line = front.body, front.body_line
        if front.yaml is not None:
            doc.has_frontmatter = True
            doc.meta = load_frontmatter_yaml(front.yaml, line_offset=front.yaml_line)
            found += _problem_findings(doc.path, _told(kind, rel, front.yaml, doc.meta.problems))
            found += _not_mapping(doc, doc.meta)
    elif kind in JSON_KINDS or kind in JSONC_KINDS:
        text = text_file.text if kind in JSON_KINDS else strip_jsonc(text_file.text)
        doc.meta = load_json(text)
        if kind in EDITOR_KINDS:  # an editor apc cannot run: its documented format, a warning
            found += editor_parse_findings(doc.path, doc.meta.problems)
        else:
            found += _problem_findings(doc.path, doc.meta.problems)
        found += _not_mapping(doc, doc.meta)
    return doc, found


def in_cursor_rules(rel: str) -> bool:
    """A file Cursor reads as its own rule: in its rules folder (``.cursor/rules/``, at any
    depth of the tree), or an ``.mdc`` rule outside ``.apc/`` (a catalog's file the policy's
    ``include:`` maps to ``cursor-rule``: Cursor reads it once copied)."""
    if rel.startswith(".cursor/rules/") or "/.cursor/rules/" in rel:
        return True
    return rel.endswith(".mdc") and not (rel.startswith(".apc/") or "/.apc/" in rel)


CURSOR_GLOBS = "'globs' is not strict YAML"


def _told(kind: str, rel: str, yaml_text: str, problems: Iterable[Problem]) -> list[Problem]:
    """A YAML syntax error on a Claude Code subagent says what Claude Code does with the file:
    skips it, or loads it through its line-by-line fallback (issue 16). Cursor's own unquoted
    ``globs: **/*.rs`` in ``.cursor/rules/`` is no finding: Cursor writes and reads it so
    (quoting it breaks Cursor's matching), so YML005's advice does not apply there."""
    problems = list(problems)
    if kind == "rule" and in_cursor_rules(rel):
        problems = [
            p
            for p in problems
            if not (p.rule is YAML_LENIENT and p.message.startswith(CURSOR_GLOBS))
        ]
    if kind != "claude-agent" or not any(p.rule is YAML_SYNTAX for p in problems):
        return problems
    outcome = claude_yaml_outcome(yaml_text, rel)
    return [
        replace(p, message=p.message + outcome) if p.rule is YAML_SYNTAX else p for p in problems
    ]


def _not_mapping(doc: Doc, meta: Located) -> list[Finding]:
    if meta.data is None or isinstance(meta.data, dict):
        return []
    pos = meta.at(())
    what = (
        "JSON object"
        if doc.kind in JSON_KINDS or doc.kind in JSONC_KINDS
        else "mapping of keys to values"
    )
    return [
        YAML_NOT_MAPPING.finding(
            doc.path,
            f"expected a {what}, found {type(meta.data).__name__}",
            pos.line if pos else None,
            pos.column if pos else None,
        )
    ]


def load_project(
    root: Path,
    rels: Sequence[str],
    *,
    display: str,
    profile: str,
    all_files: frozenset[str],
    tracked: frozenset[str] | None,
    include: Sequence[tuple[str, str]] = (),
) -> tuple[Project, list[Finding]]:
    """Read and parse the contract files ``rels`` (relative to ``root``) of one project
    (``include``: the policy's, :func:`apc_tools.contract.project.kinds_of`)."""
    project = Project(root, display, profile, files=all_files, tracked=tracked)
    found: list[Finding] = []
    kinds = kinds_of(rels, lambda rel: _text_of(root, rel), include)
    for rel in rels:
        kind = kinds.get(rel)
        if kind is None:
            continue
        shown = project.display_path(rel)
        read = io.read_text(root / rel, root, shown)
        if isinstance(read, Finding):
            found.append(read)
            project.unread.append(rel)
            continue
        doc, problems = parse_doc(kind, rel, read)
        project.docs.append(doc)
        found += problems
    return project, redact(project, found)


def check_project(project: Project) -> list[Finding]:
    found: list[Finding] = []
    for doc in project.docs:
        for check in CHECKS.get(doc.kind, ()):
            found.extend(check(doc, project))
    for project_check in PROJECT_CHECKS:
        found.extend(project_check(project))
    return redact(project, found)


# Secrets found only by their context (a keyword before them, a URL around them): a message
# that echoes such a value without its context is redacted by value. At most this many values
# per file are looked for (each message is scanned by the detectors anyway).
MAX_KNOWN_SECRETS = 1000
_CONTEXTUAL = frozenset({"generic-secret", "url-credentials"})


def redact(project: Project, found: Iterable[Finding]) -> list[Finding]:
    """``found`` with every secret that a message echoes (a link target, a key, a server
    name...) replaced by its redacted hint: no output format ever shows a whole secret."""
    known: dict[str, list[str]] = {}
    for doc in project.docs:
        values = [doc.text[h.start : h.end] for h in doc.secret_hits if h.detector in _CONTEXTUAL]
        known[doc.path] = values[:MAX_KNOWN_SECRETS]
    out: list[Finding] = []
    for finding in found:
        message = detect.redact_secrets(finding.message, known.get(finding.path, ()))
        out.append(finding if message == finding.message else changed(finding, message=message))
    return out


def _projects_in(
    tree: Path,
    cwd: Path,
    profile: str,
    policy: Policy | None = None,
    extra: Sequence[str] = (),
) -> tuple[list[Project], list[Finding]]:
    """Every project under ``tree`` with its contract files read and parsed (see
    :func:`_layout`)."""
    layouts, found = _layout(tree, cwd, policy, extra)
    projects: list[Project] = []
    for one in layouts:
        project, problems = load_project(
            one.root,
            one.local,
            display=one.display,
            profile=profile,
            all_files=frozenset(one.local),
            tracked=one.tracked,
            include=one.include,
        )
        projects.append(project)
        found += problems
    return projects, found


# --------------------------------------------------------------------------- the batch run
# `apc validate` (and `apc check`): each file of a FILE_KINDS kind read once, its Outcome taken
# from the cache or computed (on every core for a large tree); every other file parsed in full
# here; then the per-file checks of those and every project check, each run.


def _file_outcome(
    root: Path, display: str, profile: str, rel: str, kind: str, data: bytes
) -> Outcome:
    """The Outcome of the file ``rel`` of kind ``kind`` (in :data:`FILE_KINDS`) holding
    ``data``: what :func:`load_project` and :func:`check_project` find about it alone."""
    project = Project(root, display, profile)
    shown = project.display_path(rel)
    read = io.decode(data, shown)
    if isinstance(read, Finding):
        return Outcome(rel, kind, shown, redact(project, [read]), unread=True)
    doc, problems = parse_doc(kind, rel, read)
    if any(hit.detector in _CONTEXTUAL for hit in doc.secret_hits):
        return Outcome(rel, kind, shown, in_full=True)
    project.docs.append(doc)
    checks = [finding for check in CHECKS.get(kind, ()) for finding in check(doc, project)]
    return Outcome(
        rel,
        kind,
        shown,
        redact(project, problems),
        redact(project, checks),
        redact(project, list(doc_secrets(doc))),
        rule_globs(doc) if kind == "rule" else None,
        Allowances(doc).parts(),
        imported_agents(doc) if kind == "project" else [],
    )


# Kinds parsed here whose checks read more of their project than its file list (plans: the
# project's agents, which project.json's Outcome holds): checked only after every Outcome is in.
AFTER_OUTCOMES = frozenset({"plan"})


@dataclass
class _Loaded:
    """A project of a batch run: its contract files in order, each parsed here (a Doc) or
    known by its Outcome; ``early``: the findings of the checks and of the secret scan of a
    Doc checked while the pool's workers ran (:func:`_check_early`), by the Doc's id;
    ``problems``: the findings of reading and parsing its files; ``parsed``: the parse
    findings of each Doc (before redaction), by its path."""

    project: Project
    entries: list[Doc | Outcome] = field(default_factory=list)
    early: dict[int, tuple[list[Finding], list[Finding]]] = field(default_factory=dict)
    problems: list[Finding] = field(default_factory=list)
    parsed: dict[str, list[Finding]] = field(default_factory=dict)


# What a project judged before holds of each of its files, for a run on the same file list
# (contract.session): the file's digest, its Doc or Outcome, a Doc's parse findings and the
# findings of its early checks (:func:`_check_early`: they read nothing but the file and the
# file list), by the file's path.
Prior = Mapping[
    str, tuple[str, "Doc | Outcome", list[Finding], "tuple[list[Finding], list[Finding]] | None"]
]


@dataclass
class _Job:
    """A file whose Outcome is needed: where it goes, what it holds, its cache key."""

    loaded: _Loaded
    index: int  # its place in loaded.entries
    rel: str
    kind: str
    shown: str
    data: bytes
    key: bytes = b""
    digest: str | None = None  # the SHA-256 of ``data`` (hex) when contract.warm took it


def _run_digest(policy: Policy, profile: str) -> str:
    """What every Outcome of a run depends on besides the file: the profile, the policy (with
    --select/--ignore) and the published schemas (apc's version and code are in the key)."""
    from apc_tools.core.schemas import schema_names, schema_text

    digest = hashlib.sha256(f"{FORMAT}\0{profile}\0{policy!r}".encode("utf-8", "surrogatepass"))
    for name in schema_names():
        digest.update(f"\0{name}\0{schema_text(name)}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _read_once(
    root: Path, project: Project, seen: dict[str, bytes | Finding], rel: str
) -> str | None:
    """:func:`_text_of` that keeps the bytes it read in ``seen`` (for the file's own parse)."""
    data = seen[rel] = io.read_bytes(root / rel, root, project.display_path(rel))
    if isinstance(data, Finding):
        return None
    text = io.decode(data, rel)
    return None if isinstance(text, Finding) else text.text


def _load_batch(
    layouts: Sequence[_ProjectFiles],
    profile: str,
    store: Cache,
    run: str,
    gathered: Gathered | None = None,
    memo: dict[bytes, Outcome] | None = None,
    priors: Mapping[str, Prior] | None = None,
) -> tuple[list[_Loaded], list[Finding]]:
    """Read every contract file of ``layouts`` once (or take the bytes ``gathered`` read):
    parse and keep in full the files whose checks need their project, take the others'
    Outcomes from ``memo`` (a long-lived caller's: :class:`.session.Session`), the cache or
    compute them. ``priors`` (by project root, with ``gathered``'s digests): a file whose
    digest is the one its prior had is taken from it, its Doc not parsed nor its early checks
    run again (the file list must be the one the prior was made on)."""
    loaded: list[_Loaded] = []
    reused: list[tuple[_Loaded, Outcome]] = []
    jobs: list[_Job] = []
    # per project, in file order: each file's findings (redacted below, as load_project does);
    # the files parsed here are parsed while the pool's workers start (see _outcomes)
    raw: list[list[list[Finding]]] = []
    later: list[tuple[_Loaded, int, str, str, io.TextFile, list[Finding]]] = []
    for one in layouts:
        project = Project(
            one.root, one.display, profile, files=frozenset(one.local), tracked=one.tracked
        )
        here = _Loaded(project)
        loaded.append(here)
        mine: list[list[Finding]] = []
        raw.append(mine)
        top = os.fspath(one.root)
        given = gathered.kinds.get(top) if gathered else None
        # the bytes of the files whose text decides the kinds (plugin manifests, marketplaces):
        # read once, for the kinds and for their own parse
        early_read: dict[str, bytes | Finding] = {}
        if given is not None:
            kinds = given
        else:
            kinds = kinds_of(
                one.local, partial(_read_once, one.root, project, early_read), one.include
            )
        prior = priors.get(top) if priors and gathered else None
        for rel in one.local:
            kind = kinds.get(rel)
            if kind is None:
                continue
            shown = project.display_path(rel)
            got = gathered.data.get((top, rel)) if gathered else None
            data = got if got is not None else early_read.get(rel)
            if data is None:
                data = io.read_bytes(one.root / rel, one.root, shown)
            known = prior.get(rel) if prior is not None and got is not None else None
            if known is not None and gathered and known[0] == gathered.digests.get((top, rel)):
                _, entry, parsed, early = known
                if entry.kind == kind:
                    here.entries.append(entry)
                    if isinstance(entry, Doc):
                        here.parsed[rel] = parsed
                        mine.append(list(parsed))
                        if early is not None:
                            here.early[id(entry)] = early
                    else:
                        reused.append((here, entry))
                    continue
            if kind in FILE_KINDS:
                if isinstance(data, Finding):
                    mine.append([data])
                    project.unread.append(rel)
                    continue
                digest = gathered.digests.get((top, rel)) if gathered and got is not None else None
                jobs.append(_Job(here, len(here.entries), rel, kind, shown, data, digest=digest))
                here.entries.append(Outcome(rel, kind, shown, in_full=True))  # filled below
                continue
            read = data if isinstance(data, Finding) else io.decode(data, shown)  # read_text
            if isinstance(read, Finding):
                mine.append([read])
                project.unread.append(rel)
                continue
            slot: list[Finding] = []
            mine.append(slot)
            later.append((here, len(here.entries), kind, rel, read, slot))
            here.entries.append(Outcome(rel, kind, shown, in_full=True))  # the Doc, below

    def parse_here() -> None:
        for here, index, kind, rel, read, slot in later:
            doc, problems = parse_doc(kind, rel, read)
            here.entries[index] = doc
            slot += problems
            here.parsed[rel] = problems
        for here, index, *_ in later:
            _check_early(here, here.entries[index])

    _outcomes(jobs, profile, store, run, parse_here, memo)
    found: list[Finding] = []
    for here, mine in zip(loaded, raw, strict=True):
        project, ready = here.project, []
        for job in (j for j in jobs if j.loaded is here):
            outcome = here.entries[job.index]
            assert isinstance(outcome, Outcome)
            if outcome.in_full:  # parsed here, from the bytes already read
                read = io.decode(job.data, job.shown)
                assert not isinstance(read, Finding)  # it was decoded before
                doc, problems = parse_doc(job.kind, job.rel, read)
                here.entries[job.index] = doc
                here.parsed[job.rel] = problems
                mine.append(problems)
            else:
                if outcome.unread:
                    project.unread.append(job.rel)
                project.imported_agents += outcome.agents
                ready += outcome.parse
        for outcome in (o for h, o in reused if h is here):
            project.imported_agents += outcome.agents
            ready += outcome.parse
        here.entries = [e for e in here.entries if isinstance(e, Doc) or not e.unread]
        project.docs = [entry for entry in here.entries if isinstance(entry, Doc)]
        here.problems = redact(project, [f for part in mine for f in part]) + ready
        found += here.problems
    return loaded, found


def _outcomes(
    jobs: Sequence[_Job],
    profile: str,
    store: Cache,
    run: str,
    meanwhile: Callable[[], None],
    memo: dict[bytes, Outcome] | None = None,
) -> None:
    """Fill in each job's Outcome: from ``memo``, else the cache, else computed (module
    core.pool decides whether on several processes) and stored. ``meanwhile`` (this process's
    own parsing) runs once: while the pool's workers start, so the workers take more of the
    files. ``memo``: a long-lived caller's Outcomes by their cache key (an Outcome found there
    is the one the cache holds: like it, without a rule file's dead globs, which depend on the
    file list), used with the cache on; the Outcome of an editor's buffer (``files.overlaid``)
    is kept there, not stored."""
    from apc_tools.core import pool

    known: dict[bytes, bytes] = {}
    memo = memo if store.enabled else None
    if store.enabled and jobs:
        make = cache_keyer("validate", run)  # the common parts hashed once
        for job in jobs:
            root = str(job.loaded.project.root)
            digest = bytes.fromhex(job.digest) if job.digest else hashlib.sha256(job.data).digest()
            job.key = make(root, job.shown, job.rel, job.kind, digest)
        asked = [job.key for job in jobs if memo is None or job.key not in memo]
        known = store.get_many(asked) if asked else {}
    missing: list[_Job] = []
    for job in jobs:
        outcome = memo.get(job.key) if memo is not None else None
        if outcome is None:
            raw = known.get(job.key)
            outcome = Outcome.from_bytes(job.rel, job.kind, job.shown, raw) if raw else None
            if outcome is not None and memo is not None:
                memo[job.key] = outcome
        if outcome is None:
            missing.append(job)
        else:
            job.loaded.entries[job.index] = outcome
    if not missing:
        meanwhile()
        return

    keep = store.enabled
    matchers: dict[int, Any] = {}  # each process's dead-glob matcher of a project (forked: its own)

    def work(i: int) -> tuple[Outcome, bytes]:
        """The file's Outcome and, for the cache, its bytes (serialized on the pool too)."""
        job = missing[i]
        project = job.loaded.project
        outcome = _file_outcome(project.root, project.display, profile, job.rel, job.kind, job.data)
        if outcome.globs is not None:
            outcome.dead = dead_globs_alone(project, outcome.globs, matchers)
        return outcome, outcome.to_bytes() if keep else b""

    # A file costs its bytes (the secret scan, the parse) plus about 4 KiB of fixed work.
    costs = [len(job.data) + 4096 for job in missing]
    yaml = any(job.kind in MARKDOWN_KINDS for job in missing)  # front matter: the YAML parser
    computed = pool.map_items(work, len(missing), costs, meanwhile, preload if yaml else None)
    for job, (outcome, _) in zip(missing, computed, strict=True):
        job.loaded.entries[job.index] = outcome
        if memo is not None:  # as the cache holds it: without the dead globs of this listing
            memo[job.key] = replace(outcome, dead=None)
    if keep:
        pairs = zip(missing, computed, strict=True)
        stored = {job.key: raw for job, (_, raw) in pairs if memo is None or not _buffer(job)}
        if stored:
            store.put_many(stored)


def _buffer(job: _Job) -> bool:
    """The job's bytes are an editor's buffer (``files.overlaid``), not the file on disk."""
    return io.overlay_bytes(os.path.join(job.loaded.project.root, job.rel)) is not None


def _check_early(here: _Loaded, entry: Doc | Outcome) -> None:
    """Check a Doc parsed here whose checks read nothing of its project but the file list
    (the same before and after the Outcomes are in), and scan it for secrets: work this
    process does while the pool's workers run, kept for :func:`_check_batch`."""
    if isinstance(entry, Doc) and entry.kind not in AFTER_OUTCOMES:
        project = here.project
        checks = [f for check in CHECKS.get(entry.kind, ()) for f in check(entry, project)]
        here.early[id(entry)] = (checks, list(doc_secrets(entry)))


def _check_batch(here: _Loaded, store: Cache, run: str) -> list[Finding]:
    """:func:`check_project` over a batch project: the per-file checks of the files parsed
    here, the stored findings of the others, and every project check (never cached)."""
    project = here.project
    mine: list[Finding] = []
    ready: list[Finding] = []
    early = here.early
    for entry in here.entries:
        if isinstance(entry, Doc):
            if id(entry) in early:
                mine += early[id(entry)][0]
                continue
            for check in CHECKS.get(entry.kind, ()):
                mine.extend(check(entry, project))
        else:
            ready += entry.checks
    for project_check in PROJECT_CHECKS:
        if project_check is check_secrets:
            for entry in here.entries:
                if isinstance(entry, Doc):
                    mine.extend(early[id(entry)][1] if id(entry) in early else doc_secrets(entry))
                else:
                    ready += entry.secrets
        elif project_check is dead_globs:
            ready += _dead_globs_batch(here, store, run)
        else:
            mine.extend(project_check(project))
    return redact(project, mine) + ready


def _dead_globs_batch(here: _Loaded, store: Cache, run: str) -> list[Finding]:
    """The dead-glob findings of a batch project, redacted. Matching globs against the file
    list is the costliest project check, so when every rule file is known by its Outcome the
    findings are cached under the file list (paths only: a glob matches names) and every rule
    file's globs, in order (the work budget is spent in that order)."""
    project = here.project
    rules = [
        rule_globs(e) if isinstance(e, Doc) else e.globs for e in here.entries if e.kind == "rule"
    ]
    if not any(rules):
        return []
    cacheable = store.enabled and not any(
        isinstance(e, Doc) for e in here.entries if e.kind == "rule"
    )
    slot = b""
    if cacheable:
        files = project.tracked if project.tracked is not None else project.files
        listing = hashlib.sha256("\0".join(sorted(files)).encode("utf-8", "surrogatepass"))
        slot = cache_key(
            "validate-dead-globs",
            run,
            str(project.root),
            "tracked" if project.tracked is not None else "files",
            listing.hexdigest(),
            repr([(r.path, r.base, r.globs) if r else None for r in rules]),
        )
        raw = store.get(slot)
        stored = Outcome.from_bytes("", "rule", "", raw) if raw else None
        if stored is not None:
            return stored.checks
    alone = _dead_globs_from_outcomes(here)
    found = redact(project, list(dead_globs_of(project, rules) if alone is None else alone))
    if cacheable:
        store.put_many({slot: Outcome("", "rule", "", checks=found).to_bytes()})
    return found


def _dead_globs_from_outcomes(here: _Loaded) -> list[Finding] | None:
    """The dead-glob findings of a batch project put together from its rule files' own
    (matched with their Outcomes on the workers, :func:`dead_globs_alone`): every rule file
    known by an Outcome that has them, and their work within the budget (then they are
    exactly what dead_globs_of finds); else None."""
    found: list[Finding] = []
    spent = 0
    for entry in here.entries:
        if entry.kind != "rule":
            continue
        if not isinstance(entry, Outcome):
            return None
        if entry.globs is None:
            continue
        if entry.dead is None:
            return None
        found += entry.dead[0]
        spent += entry.dead[1]
    return found if spent <= GLOB_BUDGET else None


@dataclass
class _Scan:
    """One project root scanned for a group of command-line targets."""

    group: Group
    projects: list[Project] = field(default_factory=list)
    found: list[Finding] = field(default_factory=list)
    allowed: list[Finding] = field(default_factory=list)  # accepted by `apc: allow` comments
    outcomes: list[tuple[Project, Outcome]] = field(default_factory=list)  # batch runs only
    lone: bool = False  # a lone .mdc was checked (its project's probes are not kept)

    @property
    def root(self) -> Path:
        return self.group.root

    @property
    def targets(self) -> tuple[Path, ...]:
        return self.group.targets

    def probes(self) -> list[tuple[str, str, str, bool]]:
        """What the checks of the scan's projects asked the disk (``Project.probe``)."""
        return [
            (os.fspath(project.root), question, rel, answer)
            for project in self.projects
            for (question, rel), answer in sorted(project.probes.items())
        ]

    def recognised(self) -> list[tuple[Path | str, str, str]]:
        """(absolute path, display path, kind) of every contract file of the scan (the files
        known by their Outcomes by the path's text: a Path each was a tenth of a warm run)."""
        roots = {id(p): os.fspath(p.root) for p, _ in self.outcomes}
        out: list[tuple[Path | str, str, str]] = [
            (os.path.join(roots[id(p)], o.rel.replace("/", os.sep)), o.path, o.kind)
            for p, o in self.outcomes
        ]
        for project in self.projects:
            for doc in project.docs:
                out.append((project.root / doc.rel, doc.path, doc.kind))
            for rel in project.unread:
                kind = classify(rel) or "unknown"
                out.append((project.root / rel, project.display_path(rel), kind))
        return out


def _run_scan(
    scan: _Scan,
    layout: Layout,
    profile: str,
    policy: Policy,
    inline_allow: bool = True,
    *,
    batch: bool = False,
    use_cache: bool = True,
    gathered: Gathered | None = None,
    session: Session | None = None,
) -> None:
    """Validate the scan's tree. ``batch``: the files whose checks need only themselves are
    known by their Outcomes (cached with ``use_cache``, on several processes for a large tree)
    instead of being kept parsed (``--fix`` needs every file parsed). ``session``: what a
    long-lived caller kept from its earlier runs (:mod:`.session`)."""
    extra = scan.group.extra()
    known: dict[str, Allowances] = {}
    if batch:
        given = gathered.layouts.get(os.fspath(scan.root)) if gathered else None
        if given is not None:  # listed by contract.warm for the run's key
            layouts, scan.found = given[0], list(given[1])
        elif session is not None:
            layouts, scan.found = session.layout(scan.root, layout.cwd, policy, extra)
        else:
            layouts, scan.found = _layout(scan.root, layout.cwd, policy, extra)
        judged = Judged((scan.root,))
        with Cache.open("validate", enabled=use_cache, judged=judged) as store:
            run = _run_digest(policy, profile) if store.enabled else ""
            if session is not None:
                loaded, problems, checks = _judge_in_session(
                    layouts, profile, policy, store, run, session
                )
                scan.found += problems + checks
            else:
                loaded, problems = _load_batch(layouts, profile, store, run, gathered)
                scan.found += problems
                for here in loaded:
                    scan.found += _check_batch(here, store, run)
        scan.projects = [here.project for here in loaded]
        scan.outcomes = [
            (here.project, e) for here in loaded for e in here.entries if isinstance(e, Outcome)
        ]
        # a file without `apc: allow` comments allows nothing, as a path not known does
        known = {
            outcome.path: outcome.allowances()
            for _, outcome in scan.outcomes
            if outcome.allow[0] or outcome.allow[1]
        }
    else:
        scan.projects, scan.found = _projects_in(scan.root, layout.cwd, profile, policy, extra)
        for project in scan.projects:
            scan.found += check_project(project)
    if inline_allow:
        docs = {doc.path: doc for project in scan.projects for doc in project.docs}
        scan.found, scan.allowed = split_allowed(scan.found, docs, known)


def _judge_in_session(
    layouts: Sequence[_ProjectFiles],
    profile: str,
    policy: Policy,
    store: Cache,
    run: str,
    session: Session,
) -> tuple[list[_Loaded], list[Finding], list[Finding]]:
    """:func:`_load_batch` and :func:`_check_batch` of every project of ``layouts``, a
    project whose files, kinds and disk answers are the ones ``session`` judged before taken
    whole from it (:class:`.session.Judgement`), the others judged now (their unchanged files'
    Outcomes from the session's memo) and kept: (loaded, load findings, check findings), in
    the order of a run without a session."""
    session.stats.clear()
    session.stats.update(read=0, kept=0)  # (Session.read counts)
    limit = session.limit()
    digest = run or _run_digest(policy, profile)
    gathered = Gathered()
    keys: list[tuple[Any, ...]] = []
    for one in layouts:
        top = os.fspath(one.root)
        kinds = gathered.kinds[top] = session.kinds_of(one)
        prefix = os.path.join(top, "")  # + a POSIX rel: the path (one join per project)
        files: list[tuple[str, str, str]] = []
        for rel in one.local:
            kind = kinds.get(rel)
            if kind is None:
                continue
            shown = f"{one.display}/{rel}" if one.display else rel  # Project.display_path
            data, sha = session.read(one, prefix + rel, shown, limit)
            gathered.data[(top, rel)] = data
            if not isinstance(data, Finding):
                gathered.digests[(top, rel)] = sha
            files.append((rel, kind, sha))
        keys.append((digest, top, one.display, profile, tuple(one.local), one.tracked, files))
    found = [
        session.judgement(os.fspath(one.root), key) for one, key in zip(layouts, keys, strict=True)
    ]
    missed = [i for i, judged in enumerate(found) if judged is None]
    session.stats["judged"], session.stats["kept_whole"] = len(missed), len(layouts) - len(missed)
    if missed:
        again = [layouts[i] for i in missed]
        priors, asked = {}, {}
        for i in missed:  # the same file list judged before: its unchanged files taken from it
            top = os.fspath(layouts[i].root)
            before = session.earlier(top, keys[i][:-1])
            if before is not None:
                priors[top] = _prior_of(before)
                asked[top] = before.loaded.project.probes
        memo = session.outcome_memo()
        loaded, _ = _load_batch(again, profile, store, run, gathered, memo, priors)
        for i, here in zip(missed, loaded, strict=True):
            # the checks not run again asked the disk too: their questions stay to be asked
            here.project.probes.update(asked.get(os.fspath(layouts[i].root), {}))
            checks = _check_batch(here, store, run)
            found[i] = session.keep(os.fspath(layouts[i].root), keys[i], here, checks)
    done = [judged for judged in found if judged is not None]
    return (
        [judged.loaded for judged in done],
        [f for judged in done for f in judged.problems],
        [f for judged in done for f in judged.checks],
    )


def _prior_of(judged: Judgement) -> Prior:
    """What ``judged`` holds of each file it read (:data:`Prior`)."""
    here: _Loaded = judged.loaded
    digests = {rel: sha for rel, _, sha in judged.files}
    out: dict[str, Any] = {}
    for entry in here.entries:
        sha = digests.get(entry.rel)
        if sha is None:
            continue
        if isinstance(entry, Doc):
            out[entry.rel] = (sha, entry, here.parsed.get(entry.rel, []), here.early.get(id(entry)))
        else:
            out[entry.rel] = (sha, entry, [], None)
    return out


def _finding_path(finding: Finding, cwd: Path) -> str:
    """Where ``finding`` is, as :func:`_wanted` compares it (text: two Paths per finding were
    a fifth of selecting the findings)."""
    return os.path.normpath(os.path.join(os.fspath(cwd), finding.path))


def _select(
    scan: _Scan, layout: Layout, profile: str
) -> tuple[list[Finding], list[tuple[str, str]], list[str]]:
    """The findings and recognised files under the scan's targets; the files it skipped."""
    recognised = scan.recognised()
    known = {os.fspath(path) for path, _, _ in recognised}
    wanted: list[Path] = []
    found: list[Finding] = []
    listed: list[tuple[str, str]] = []
    skipped: list[str] = []
    for target in scan.targets:
        if target.is_dir() or os.fspath(target) in known:
            wanted.append(target)
        elif target.suffix == ".mdc":
            scan.lone = True
            found += _validate_lone(target, layout, profile)
            listed.append((layout.display(target), "rule"))
        else:
            skipped.append(layout.display(target))
    keep = _wanting(wanted)
    listed += [(shown, kind) for path, shown, kind in recognised if keep(path)]
    found += [f for f in scan.found if keep(_finding_path(f, layout.cwd))]
    found += _not_included(scan, known, keep)
    return found, listed, skipped


def _not_included(
    scan: _Scan, known: Collection[str], keep: Callable[[Path | str], bool]
) -> list[Finding]:
    """DSC002 once per shape (:data:`discovery.SHAPES`): the files of that shape under the
    scan's targets that no kind took (a catalog the policy's ``include:`` does not map)."""
    from apc_tools.contract.checks.discovery import NOT_INCLUDED, SHAPES, include_glob

    out: list[Finding] = []
    for ending, what, home, kind in SHAPES:
        missed: list[tuple[Project, str]] = []
        for project in scan.projects:
            top = os.fspath(project.root)
            for rel in sorted(project.files):
                if not rel.endswith(ending):
                    continue
                full = os.path.join(top, rel.replace("/", os.sep))
                if full not in known and keep(full):
                    missed.append((project, rel))
        if not missed:
            continue
        project, first = missed[0]
        folder = first.rpartition("/")[0] or "."
        glob = include_glob(folder, ending)
        message = (
            f"{len(missed)} {ending} file{'' if len(missed) == 1 else 's'} ({what}) outside "
            f"{home} {'is' if len(missed) == 1 else 'are'} not checked: map them with the "
            f'policy\'s include: (`"{glob}": {kind}`; `apc init` proposes it)'
        )
        out.append(NOT_INCLUDED.finding(project.display_path(first), message, match=ending))
    return out


def _wanted(path: Path | str, targets: Sequence[Path]) -> bool:
    """``path`` is one of ``targets`` or below one: :func:`_under` on the paths' text (a
    thousand files x their parents as Path objects was a tenth of a run)."""
    return _wanting(targets)(path)


def _wanting(targets: Sequence[Path]) -> Callable[[Path | str], bool]:
    """:func:`_wanted` for ``targets``, their text made once (for a thousand files)."""
    tops = [os.path.normcase(os.fspath(target)) for target in targets]
    exact = frozenset(tops)
    below = tuple(top if top.endswith(os.sep) else top + os.sep for top in tops)

    def wanted(path: Path | str) -> bool:
        text = os.path.normcase(os.fspath(path))
        return text in exact or text.startswith(below)

    return wanted


def _validate_lone(path: Path, layout: Layout, profile: str) -> list[Finding]:
    """A ``.mdc`` file outside ``.cursor/rules/`` named on the command line: a Cursor rule."""
    root = path.parent
    shown = layout.display(path)
    project = Project(root, "", profile, files=frozenset({path.name}), tracked=None)
    # Parsed by the kind its name gives (load_project classifies by location, which would
    # skip e.g. a `rules/x.mdc` outside `.cursor/rules/`).
    read = io.read_text(root / path.name, root, shown)
    if isinstance(read, Finding):
        return [read]
    doc, found = parse_doc("rule", path.name, read)
    project.docs.append(doc)
    return redact(project, found) + check_project(project)


def start_run(
    paths: Sequence[Path],
    profile: str | None,
    config_path: Path | None,
    cwd: Path | None,
    layout: Layout | None = None,
) -> tuple[Layout, list[_Scan], Policy]:
    """What every run over ``paths`` decides first (``apc validate`` and ``--fix``): the
    profile is known, every path exists; the run's layout (``layout`` when the caller decided
    it, else :func:`layout_of` ``paths`` from ``cwd``), the projects to scan, and the policy of
    the first project root (or ``config_path``)."""
    if profile is not None and profile not in PROFILES:
        raise CannotRun(f"unknown profile {profile!r}; choose one of {', '.join(PROFILES)}")
    layout = layout if layout is not None else layout_of(paths, cwd)
    scans = [_Scan(group) for group in layout.groups]
    return layout, scans, load_policy(config_path, scans[0].root)


def run_validate(
    paths: Sequence[Path],
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
    cache: bool = True,
    batch: bool = True,
    gathered: Gathered | None = None,
    layout: Layout | None = None,
    texts: Mapping[Path, bytes] | None = None,
    session: Session | None = None,
) -> Validation:
    """Validate the projects holding ``paths`` (default: the project around ``cwd``) with
    their full context, and keep the findings about files under ``paths``.

    Each path's project root is found the way git finds its top level (:func:`find_root`), so a
    file named from a subfolder gives the same findings as from the root. A file argument that
    is not an agent-context file is skipped and counted (pre-commit passes every changed file);
    a path that does not exist stops the run. The policy file is ``config_path`` or
    ``.apc-tools.yaml`` at the first project root. ``profile`` None means the policy's.
    Findings an ``apc: allow`` comment accepts (:mod:`apc_tools.contract.inline`) are left out
    unless ``inline_allow`` is False. ``cache`` False (``--no-cache``) keeps the result cache
    (:mod:`apc_tools.core.cache`) out of the run (``APC_NO_CACHE`` too). ``batch`` False
    parses every file in full in this process, without cache or pool: the reference the
    batch run (:func:`_load_batch`) is tested against. ``layout``: the run's layout when the
    caller decided it (``paths`` and ``cwd`` are then its own). ``texts`` (absolute path ->
    bytes) stand in for the contents on disk of those files (`apc lsp`: an editor's unsaved
    buffers), read as the disk would be (:func:`apc_tools.core.files.overlaid`).
    ``session``: what a long-lived caller keeps between its runs (:mod:`.session`; a batch run).
    """
    with io.overlaid(texts):
        return _run_validate(
            paths,
            profile,
            config_path,
            cwd,
            inline_allow,
            selection,
            cache,
            batch,
            gathered,
            layout,
            session,
        )


def _run_validate(
    paths: Sequence[Path],
    profile: str | None,
    config_path: Path | None,
    cwd: Path | None,
    inline_allow: bool,
    selection: Selection | None,
    cache: bool,
    batch: bool,
    gathered: Gathered | None,
    layout: Layout | None,
    session: Session | None = None,
) -> Validation:
    layout, scans, policy = start_run(paths, profile, config_path, cwd, layout)
    cwd = layout.cwd
    if selection is not None:
        policy = policy.selected(selection)
    profile = profile or policy.profile or "default"
    found: list[Finding] = []
    listed: list[tuple[str, str]] = []
    skipped: list[str] = []
    allowed: list[Finding] = []
    probes: list[tuple[str, str, str, bool]] | None = []
    for scan in scans:
        _run_scan(
            scan,
            layout,
            profile,
            policy,
            inline_allow,
            batch=batch,
            use_cache=cache,
            gathered=gathered,
            session=session,
        )
        more, seen, skip = _select(scan, layout, profile)
        found += policy.apply(more, layout.display(scan.root))
        allowed += [f for f in scan.allowed if _wanted(_finding_path(f, cwd), scan.targets)]
        listed += seen
        skipped += skip
        probes = None if probes is None or scan.lone else probes + scan.probes()
    if not listed:
        found.append(_nothing_found(layout))
    found = [identified(_moved(f, _shown(f.path, cwd))) for f in found]
    listed = [(_shown(shown, cwd), kind) for shown, kind in listed]
    result = Result.of(found, len(set(listed)), strict=policy.strict, skipped=len(skipped))
    accepted = tuple(_moved(f, _shown(f.path, cwd)) for f in allowed)
    kept = None if probes is None else tuple(probes)
    return Validation(result, tuple(sorted(set(listed))), tuple(skipped), accepted, kept)


DIGITS = re.compile(r"[0-9]+")


def _moved(finding: Finding, path: str) -> Finding:
    """``finding`` at ``path`` (itself when the path is the same: a dataclass copy per finding
    was a tenth of the serial part of a run)."""
    return finding if path == finding.path else changed(finding, path=path)


def identified(finding: Finding) -> Finding:
    """``finding`` with an identity when its check gave none: a hash of its message with the
    numbers taken out (line numbers, sizes and counts change when lines move). Without it the
    fingerprint would be the rule and path alone, and the baseline entry or the range's base
    of one problem would also accept a different problem of the same rule in the same file."""
    if finding.identity:
        return finding
    return changed(finding, identity=content_hash(DIGITS.sub("#", finding.message)))


def rooted(outcome: Validation, layout: Layout) -> Validation:
    """``outcome`` (paths relative to the run's working folder) with every path relative to
    the run's report root (the git top level, else the project root: :class:`Layout`): what
    `apc validate` reports in every format, whatever folder it runs from, like `apc boundary`
    and `apc check`. A path outside that root is left as it is."""
    cwd, root = layout.cwd, layout.report_root()

    here, top = os.fspath(cwd), os.fspath(root)
    move = partial(_rebased, here, top)

    was = outcome.result
    findings = [_moved(f, move(f.path)) for f in was.findings]
    return Validation(
        Result.of(findings, was.files, strict=was.strict, skipped=was.skipped),
        tuple(sorted((move(shown), kind) for shown, kind in outcome.listed)),
        tuple(move(shown) for shown in outcome.skipped),
        tuple(_moved(f, move(f.path)) for f in outcome.allowed),
        outcome.probes,
    )


@lru_cache(maxsize=1 << 17)
def _rebased(here: str, top: str, path: str) -> str:
    """:func:`rooted`'s move of one path (a pure function of its text, kept for the paths a
    long-lived caller moves on every run)."""
    full = os.path.normpath(os.path.join(here, path))
    inside = full.startswith(top) and full[len(top) : len(top) + 1] == os.sep
    if inside:
        rel = full[len(top) + 1 :]
    elif os.name != "nt" and full != top:  # not below the root: relpath would go up
        rel = os.pardir
    else:
        rel = os.path.relpath(full, top)
    outside = rel == os.pardir or rel.startswith(os.pardir + os.sep)
    return path if outside or os.path.isabs(rel) else rel.replace(os.sep, "/")


def _shown(path: str, cwd: Path) -> str:
    """A path under an ancestor of ``cwd`` (``../../skills/x/SKILL.md`` from a run in
    ``skills/x``) shortened the way git shows it (``SKILL.md``)."""
    if not path.startswith(".."):
        return path
    return PurePosixPath(Path(os.path.relpath(os.path.normpath(cwd / path), cwd))).as_posix()


def _nothing_found(layout: Layout) -> Finding:
    """DSC001 on the first target. The message names no path: the finding's path (moved to the
    repository root by :func:`rooted`) says where, and a path relative to the current folder in
    the message (``in ..`` from a subfolder) would contradict it."""
    targets = layout.targets
    if not layout.paths:
        where = "no agent-context files found in the project around the current folder"
    elif len(targets) > 1:
        where = f"no agent-context files found in the {len(targets)} paths given"
    elif targets[0].is_dir():
        where = "no agent-context files found in this folder"
    else:
        where = "not an agent-context file"
    return NOTHING_RECOGNISED.finding(
        layout.display(targets[0]) or ".", f"{where}; apc looks for {LOOKS_FOR}"
    )


def validate(
    paths: Sequence[Path],
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
) -> Result:
    """The Result of :func:`run_validate` (the findings, sorted, and the counts)."""
    return run_validate(paths, profile=profile, config_path=config_path, cwd=cwd).result


def load_contract(start: Path, *, profile: str = "default") -> Contract | None:
    """The immutable Contract of the project containing ``start`` (None outside a project).

    Only this function builds a Contract. It is built from the files as read, whatever their
    findings; callers that need a clean contract validate first.
    """
    root = find_root(start)
    if not (root / ".apc").is_dir() and not (root / "AGENTS.md").is_file():
        return None
    files, tracked = list_files(root)
    roots = project_roots(files)
    mine = [f for f in files if owner(f, roots) == ""]
    project, _ = load_project(
        root, mine, display="", profile=profile, all_files=frozenset(mine), tracked=tracked
    )
    from apc_tools.contract.build import build_contract

    return build_contract(project)


__all__ = [
    "PROFILES",
    "Policy",
    "Validation",
    "load_contract",
    "parse_doc",
    "run_validate",
    "validate",
]
