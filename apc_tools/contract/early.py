"""The Outcomes of a cold `apc validate`, begun before the run knows it needs them.

A run the result cache knows nothing of (no stat memo of any of its projects: no part of it
was ever stored) cannot be answered from the cache. So its files' Outcomes (contract.outcome)
are begun on forked workers (core.pool) as soon as contract.warm.gather has listed the files
and their kinds: before it reads and hashes them for the run's key, and before this process
imports the parsers and the checks (contract.validate, which each worker imports on its own
meanwhile). Each worker reads the files it takes itself. The run (``validate._outcomes``) takes
an Outcome only for a file whose bytes (their SHA-256), kind, project and profile are the ones
it was computed for; anything else is computed again. Begun work that is not needed (the run
was answered from the cache after all, or gathered again) is stopped.

This module imports nothing heavy: it runs before the parsers are imported.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from apc_tools.contract.project import FILE_KINDS, Project

if TYPE_CHECKING:  # pragma: no cover
    from apc_tools.contract.outcome import Outcome
    from apc_tools.core.pool import Started

# One file of the batch: its project (with the file list), rel, kind and size (the pool's cost).
Item = tuple[Project, str, str, int]
Result = tuple[str, "Outcome", bytes] | None


class EarlyOutcomes:
    """The Outcomes begun on workers (:func:`begin`), taken once by the run (:meth:`take`)."""

    def __init__(self, batch: Started, items: Sequence[Item], profile: str) -> None:
        self.batch = batch
        self.items = [(os.fspath(p.root), p.display, rel, kind) for p, rel, kind, _ in items]
        self.index = {(top, rel): i for i, (top, _, rel, _) in enumerate(self.items)}
        self.profile = profile
        self.results: list[Result] | None = None

    def take(self, meanwhile: Callable[[], None]) -> list[Result]:
        """Every item's (SHA-256 hex of the bytes read, Outcome, its bytes), or None for a
        file the worker could not read; ``meanwhile`` runs here while the workers finish (a
        second call runs it and gives the same results)."""
        if self.results is None:
            self.results = self.batch.finish(meanwhile)
        else:
            meanwhile()
        return self.results

    def abandon(self) -> None:
        """Stop the workers (nothing they computed is used)."""
        if self.results is None:
            self.batch.abandon()
            self.results = []

    def outcome(
        self, top: str, display: str, rel: str, kind: str, profile: str, digest: str
    ) -> tuple[Outcome, bytes] | None:
        """The Outcome computed for the file ``rel`` of the project at ``top`` (shown under
        ``display``) of kind ``kind``, run with ``profile``, whose bytes have the SHA-256
        ``digest``, with its bytes; None when none was computed for exactly that."""
        assert self.results is not None, "taken first"
        at = self.index.get((top, rel))
        if at is None or at >= len(self.results) or profile != self.profile:
            return None
        got = self.results[at]
        if got is None or self.items[at][1:] != (display, rel, kind):
            return None
        return (got[1], got[2]) if got[0] == digest else None


def begin(listed: Sequence[tuple[Any, ...]], profile: str) -> EarlyOutcomes | None:
    """Begin the Outcomes of the FILE_KINDS files of ``listed`` (warm.gather's layouts: the
    layout, its root's text, ..., the kinds of its files) when the batch pays for processes
    (core.pool); None when it does not."""
    from apc_tools.core import pool

    items: list[Item] = []
    for one, top, *_, kinds in listed:
        prefix = os.path.join(top, "")
        # as contract.validate._load_batch makes it (dead globs are matched in its file order)
        project = Project(
            one.root, one.display, profile, files=frozenset(one.local), tracked=one.tracked
        )
        for rel in one.local:
            kind = kinds.get(rel)
            if kind in FILE_KINDS:
                try:
                    size = os.lstat(prefix + rel).st_size
                except (OSError, ValueError):
                    continue  # said by the run, which reads it itself
                items.append((project, rel, kind, size))
    if not items:
        return None

    def work(i: int) -> Result:
        from apc_tools.contract.validate import early_outcome  # each worker imports it once

        return early_outcome(items[i], profile)

    batch = pool.start_items(work, len(items), [size + 4096 for *_, size in items])
    return None if batch is None else EarlyOutcomes(batch, items, profile)
