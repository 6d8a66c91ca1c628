"""The offending line of a finding, for ``--format full``: read from the working tree (validate
findings) or from git (boundary findings: the blob of the finding's commit, of HEAD or of the
index, never the working tree), and only where showing it cannot leak anything.

Never shown: the line of a secret rule (a rule whose name says ``secret``), and of every
boundary rule but BMK002 (a marker mentioned in prose): a session record, a store or a local
path is exactly what must not be printed into a CI log. A line that is shown has every secret the
detectors find in its file (a multi-line private key too) replaced by its redacted hint, and is
cut to a window around the column when long. The caller escapes it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from apc_tools.core import detect
from apc_tools.findings import Finding, Registry

MAX_FILE = 2 << 20  # a larger file's lines are not shown (the validator reads at most 1 MiB)
SHOWN_BOUNDARY_RULES = frozenset({"BMK002"})


class SourceLines:
    """Lines of the files a report names. ``in_git(rule)``: the finding's content comes from git
    (the boundary gate), read at its commit, else at ``rev`` (``HEAD``; ``""`` for the index)."""

    def __init__(
        self,
        root: Path,
        registry: Registry,
        *,
        in_git: Callable[[str], bool] = lambda rule: False,
        rev: str = "HEAD",
    ) -> None:
        self.root = root
        self.registry = registry
        self.in_git = in_git
        self.rev = rev
        self._texts: dict[tuple[str, str | None], tuple[str, list[detect.Hit]] | None] = {}

    def safe(self, finding: Finding) -> bool:
        """Whether the line of ``finding`` may be shown at all."""
        rule = self.registry.rules.get(finding.rule)
        if rule is None or "secret" in rule.name or finding.line is None:
            return False
        return not self.in_git(finding.rule) or finding.rule in SHOWN_BOUNDARY_RULES

    def line(self, finding: Finding) -> str | None:
        """The line of ``finding`` (no line ending, secrets redacted), or None."""
        if not self.safe(finding) or finding.line is None:
            return None
        commit = finding.commit if self.in_git(finding.rule) else None
        key = (finding.path, commit if commit is not None else None)
        if key not in self._texts:
            self._texts[key] = self._read(finding)
        found = self._texts[key]
        if found is None:
            return None
        text, hits = found
        lines = text.split("\n")
        if not 1 <= finding.line <= len(lines):
            return None
        start = sum(len(row) + 1 for row in lines[: finding.line - 1])
        end = start + len(lines[finding.line - 1])
        return redacted(text, start, end, hits).rstrip("\r")

    def _read(self, finding: Finding) -> tuple[str, list[detect.Hit]] | None:
        data = self._git(finding) if self.in_git(finding.rule) else self._file(finding.path)
        if data is None or b"\0" in data[:8000]:
            return None
        text = data.decode("utf-8", "replace").removeprefix("\ufeff")
        return text, detect.find_secrets(text)

    def _file(self, path: str) -> bytes | None:
        target = Path(os.path.normpath(self.root / path))
        try:
            real = target.resolve()
            if self.root.resolve() not in real.parents or not real.is_file():
                return None
            if real.stat().st_size > MAX_FILE:
                return None
            with open(real, "rb") as handle:
                return handle.read(MAX_FILE + 1)
        except OSError:
            return None

    def _git(self, finding: Finding) -> bytes | None:
        from apc_tools.core import git
        from apc_tools.findings import CannotRun

        rev = finding.commit if finding.commit else self.rev
        try:
            repo = git.open_repo(self.root)
            with git.BlobReader(repo) as reader:
                blob = reader.read(f"{rev}:{finding.path}", MAX_FILE + 1)
        except (CannotRun, OSError, ValueError):
            return None
        if blob.missing or not blob.complete:
            return None
        return blob.data


def redacted(text: str, start: int, end: int, hits: list[detect.Hit]) -> str:
    """``text[start:end]`` with each part of a detected secret replaced by its hint."""
    out: list[str] = []
    at = start
    for hit in sorted(hits, key=lambda h: h.start):
        if hit.end <= start or hit.start >= end:
            continue
        cut = max(hit.start, start)
        out.append(text[at:cut] if cut > at else "")
        out.append(detect.hint(hit.detector, text[hit.start : hit.end]) or "…")
        at = max(at, min(hit.end, end))
    out.append(text[at:end])
    return "".join(out)
