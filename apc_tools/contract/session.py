"""What a long-lived caller (`apc lsp`, on every change of a buffer) keeps between its runs of
`apc validate` so that a change re-judges only what it can affect, each finding the same as a
run from scratch.

A :class:`Session` is handed to ``run_validate(session=...)`` (:mod:`.validate`) and keeps, in
this process's memory only:

- **the listing** of each scanned tree (``listing._layout``) that came from a walk (not git's
  list), with the stat signature of every folder the walk listed: it stands while each folder
  has the same signature (an entry added, removed or renamed changes its folder's mtime and
  ctime), the tree held no symbolic link and no unlistable folder, and no folder was changed
  within :data:`~.warm.RACY_NS` before the listing (read again until it is older);
- **the bytes and SHA-256 of each contract file** by its stat signature (``warm._signature``:
  mode, size, mtime, ctime, inode, device; recorded as ``warm._recordable`` says: a regular
  file read whole, not changed within ``RACY_NS`` of the run): an unchanged file is not read
  again; an editor's buffer (``files.overlaid``) is always taken as given;
- **the kinds** of each project's file list, with the text of every file their discovery read
  (plugin marketplaces), read again and compared;
- **each project's judgement**: its files read and parsed (Docs and Outcomes), its load
  findings and every finding of its per-file and cross-file checks, under everything they are a
  function of (the run's digest: profile, policy, schemas; the project root and how it is
  shown; the file list, the tracked list, each contract file's kind and digest, or why it could
  not be read), valid while every question its checks asked the disk (``Project.probe``) gets
  the same answer. A change to one file re-judges its project only (its unchanged files'
  Outcomes from :attr:`Session.outcomes`), the other projects of the tree are taken whole;
- **the Outcome of each file** by its result-cache key (what was ``validate.MEMO``).

Nothing here is written to disk or read from the result cache.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apc_tools.contract import warm
from apc_tools.contract.listing import _layout, _ProjectFiles, _text_of
from apc_tools.contract.project import disk_answer, kinds_of, maybe_in_git
from apc_tools.core import files as io
from apc_tools.findings import Finding

if TYPE_CHECKING:  # pragma: no cover
    from apc_tools.contract.outcome import Outcome
    from apc_tools.core.policy import Policy

OUTCOMES_LIMIT = 100_000  # Outcomes kept before the memo starts again
JUDGED_PER_PROJECT = 4  # judgements kept per project root (typing alternates a few texts)


@dataclass
class Judgement:
    """One project judged: what ``validate._load_batch`` and ``_check_batch`` made of it."""

    loaded: Any  # validate._Loaded (its project, with the probes its checks asked)
    problems: list[Finding]  # the findings of reading and parsing its files
    checks: list[Finding]  # the findings of its per-file and cross-file checks
    files: list[tuple[str, str, str]] = field(default_factory=list)  # (rel, kind, digest)

    def holds(self) -> bool:
        """Every question the checks asked the disk has the same answer now."""
        project = self.loaded.project
        return all(
            disk_answer(project.root, question, rel) == answer
            for (question, rel), answer in project.probes.items()
        )


@dataclass
class _Walk:
    key: tuple[Any, ...]
    folders: list[tuple[str, list[int]]]  # (absolute folder, its signature)
    layouts: list[_ProjectFiles]
    found: list[Finding]

    def holds(self) -> bool:
        for folder, sig in self.folders:
            try:
                if warm._signature(os.lstat(folder)) != sig:
                    return False
            except (OSError, ValueError):
                return False
        return True


@dataclass
class Session:
    """The memory of one long-lived caller (module docstring)."""

    outcomes: dict[bytes, Outcome] = field(default_factory=dict)
    reads: dict[str, tuple[list[int], str, bytes]] = field(default_factory=dict)
    # project -> ((its files, the policy's include:), the texts discovery read, the kinds)
    kinds: dict[str, tuple[tuple[Any, ...], dict[str, str | None], dict[str, str]]] = field(
        default_factory=dict
    )
    walks: dict[str, _Walk] = field(default_factory=dict)
    judged: dict[str, list[tuple[tuple[Any, ...], Judgement]]] = field(default_factory=dict)
    # of the last scan: how many projects it judged again and took whole, files read and not
    stats: dict[str, int] = field(default_factory=lambda: {"read": 0, "kept": 0})

    def forget(self) -> None:
        """Start again from nothing (the caller's files changed in a way it cannot tell)."""
        self.outcomes.clear()
        self.reads.clear()
        self.kinds.clear()
        self.walks.clear()
        self.judged.clear()

    # ------------------------------------------------------------------ the listing

    def layout(
        self, tree: Path, cwd: Path, policy: Policy, extra: Sequence[str]
    ) -> tuple[list[_ProjectFiles], list[Finding]]:
        """``listing._layout(tree, cwd, policy, extra)``, taken from the last run's when it was
        a walk whose folders all have the signatures they had."""
        top = os.fspath(tree)
        key = (os.fspath(cwd), tuple(extra), repr(policy))
        known = self.walks.get(top)
        if known is not None and known.key == key and known.holds():
            return known.layouts, list(known.found)
        self.walks.pop(top, None)
        limit = time.time_ns() - warm.RACY_NS
        folders: list[str] = []
        layouts, found = _layout(tree, cwd, policy, extra, folders=folders)
        if folders and not maybe_in_git(tree):
            sigs = _folder_signatures(folders, limit)
            if sigs is not None:
                self.walks[top] = _Walk(key, sigs, layouts, list(found))
        return layouts, found

    # ------------------------------------------------------------------ reading

    def read(
        self, one: _ProjectFiles, path: str, shown: str, limit: int
    ) -> tuple[bytes | Finding, str]:
        """The bytes of the contract file at ``path`` (of the project ``one``; or why they
        cannot be read) and their digest (``warm._digest``): the buffer when the editor has it
        open, else the bytes recorded for its stat signature, else read from disk (and
        recorded)."""
        if io.overlay_bytes(path) is not None:
            data = io.read_bytes(path, one.root, shown)
            return data, warm._digest(data)
        try:
            info: os.stat_result | None = os.lstat(path)
        except (OSError, ValueError):
            info = None
        sig = warm._signature(info) if info is not None else None
        known = self.reads.get(path)
        if sig is not None and known is not None and known[0] == sig:
            self.stats["kept"] += 1
            return known[2], known[1]
        self.stats["read"] += 1
        data = io.read_bytes(path, one.root, shown, info)
        digest = warm._digest(data)
        if sig is not None and isinstance(data, bytes) and warm._recordable(sig, data, limit):
            self.reads[path] = (sig, digest, data)
        else:
            self.reads.pop(path, None)
        return data, digest

    def kinds_of(self, one: _ProjectFiles) -> dict[str, str]:
        """``project.kinds_of`` of the project's files, the last run's when the list is the
        same and every file discovery read (a plugin marketplace) has the same text."""
        top = os.fspath(one.root)
        local = (tuple(one.local), tuple(one.include))
        known = self.kinds.get(top)
        if known is not None and known[0] == local and _same_texts(one.root, known[1]):
            return known[2]
        read: dict[str, str | None] = {}

        def reading(rel: str) -> str | None:
            read[rel] = _text_of(one.root, rel)
            return read[rel]

        kinds = kinds_of(one.local, reading, one.include)
        self.kinds[top] = (local, read, kinds)
        return kinds

    # ------------------------------------------------------------------ judgements

    def judgement(self, top: str, key: tuple[Any, ...]) -> Judgement | None:
        for known, judged in self.judged.get(top, ()):
            if known == key:
                return judged if judged.holds() else None
        return None

    def earlier(self, top: str, frame: tuple[Any, ...]) -> Judgement | None:
        """The last judgement of the project at ``top`` made on the same ``frame`` (its key but
        the files' digests: the run, the root, the file list) whose disk answers still hold:
        its unchanged files need not be judged again (``validate._load_batch`` priors)."""
        for known, judged in self.judged.get(top, ()):
            if known[: len(frame)] == frame:
                return judged if judged.holds() else None
        return None

    def keep(self, top: str, key: tuple[Any, ...], loaded: Any, checks: list[Finding]) -> Judgement:
        """Keep the judgement of the project at ``top`` (``validate._Loaded``, its checks'
        findings) under ``key`` (its last element the files' (rel, kind, digest))."""
        judged = Judgement(loaded, loaded.problems, checks, key[-1])
        kept = [(k, j) for k, j in self.judged.get(top, ()) if k != key]
        self.judged[top] = [(key, judged), *kept][:JUDGED_PER_PROJECT]
        return judged

    @staticmethod
    def limit() -> int:
        """The time before which a file's change is old enough to trust its signature."""
        return time.time_ns() - warm.RACY_NS

    def outcome_memo(self) -> dict[bytes, Outcome]:
        if len(self.outcomes) > OUTCOMES_LIMIT:
            self.outcomes.clear()
        return self.outcomes


def _same_texts(root: Path, texts: dict[str, str | None]) -> bool:
    return all(_text_of(root, rel) == text for rel, text in texts.items())


def _folder_signatures(folders: Sequence[str], limit: int) -> list[tuple[str, list[int]]] | None:
    """The signature of each folder, or None when one cannot be trusted (changed too recently,
    gone, not a folder)."""
    out: list[tuple[str, list[int]]] = []
    for folder in folders:
        try:
            sig = warm._signature(os.lstat(folder))
        except (OSError, ValueError):
            return None
        if not stat.S_ISDIR(sig[0]) or sig[2] >= limit or sig[3] >= limit:
            return None
        out.append((folder, sig))
    return out
