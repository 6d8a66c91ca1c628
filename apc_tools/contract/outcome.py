"""What `apc validate` learns from one contract file alone, without its text: :class:`Outcome`.

A file whose checks need nothing but the file itself (its kind is in :data:`FILE_KINDS`) is
read, parsed and checked once into an Outcome: the parse findings, the findings of its kind's
checks, its SEC001 findings, the globs the dead-glob project check compares (rule files) and its
``apc: allow`` comments. Outcomes are what the worker processes send back
(:mod:`apc_tools.core.pool`) and what the result cache stores (:mod:`apc_tools.core.cache`,
namespace ``validate``), keyed by everything they are a function of (see
``contract.validate._file_key``). An Outcome holds no file text and no secret: findings keep
only a hash of what they matched (``identity``) and their messages are redacted.

The project checks (cross-file rules: links, owners, dead globs against the file list...) run on
every run over the Outcomes and the files parsed in full; they are never cached.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from apc_tools.contract.checks.rule_files import RuleGlobs
from apc_tools.contract.inline import Allowances
from apc_tools.core.cache import UNDECODABLE
from apc_tools.findings import Finding, Severity

# Kinds whose checks read nothing but the file itself (its path, kind, text and the profile):
# their Outcome can be computed in a worker and cached by content. Every other kind (links to
# other files, owners that must exist, project.json read by plans, any kind added later) is
# read and checked in full in the main process on every run.
FILE_KINDS = frozenset(
    {
        "claude-agent",
        "claude-command",
        "gemini-command",
        "skill",
        "skill-flat",
        "skill-reference",
        "rule",
        "mcps",
        "apc-gitignore",
        "project",  # plans read its agents.imported: kept in the Outcome (``agents``)
        "claude-settings",
        "claude-mcp",
        "cursor-mcp",
        "vscode-mcp",
        "codex-config",
    }
)

FORMAT = "2"  # the layout of a stored Outcome (part of the cache key)


@dataclass
class Outcome:
    """One contract file read, parsed and checked on its own (module docstring)."""

    rel: str
    kind: str
    path: str  # display path
    parse: list[Finding] = field(default_factory=list)
    checks: list[Finding] = field(default_factory=list)
    secrets: list[Finding] = field(default_factory=list)
    globs: RuleGlobs | None = None
    allow: tuple[dict[int, list[str]], list[int]] = ({}, [])
    agents: list[str] = field(default_factory=list)  # project.json: agents.imported
    unread: bool = False  # not text (binary, not UTF-8): ``parse`` holds the IO finding
    # The file holds a secret found by its context: messages about it are redacted with the
    # file's text, so it is read and checked in full every time (nothing else is stored).
    in_full: bool = False
    # A rule file's dead-glob findings against its project's file list and the glob-matching
    # work they cost (checks.rule_files.dead_globs_alone), when a worker computed them with the
    # Outcome: never stored (they depend on the file list, which is not in the Outcome's key).
    dead: tuple[tuple[Finding, ...], int] | None = field(default=None, compare=False, repr=False)

    def allowances(self) -> Allowances:
        return Allowances.of(*self.allow)

    def to_bytes(self) -> bytes:
        data = {
            "p": [_finding_out(f, self.path) for f in self.parse],
            "c": [_finding_out(f, self.path) for f in self.checks],
            "s": [_finding_out(f, self.path) for f in self.secrets],
            "g": None
            if self.globs is None
            else [self.globs.base, [list(spec) for spec in self.globs.globs]],
            "a": [sorted(self.allow[0].items()), self.allow[1]],
            "i": self.agents,
            "u": self.unread,
            "f": self.in_full,
        }
        # ASCII JSON: a name that is not UTF-8 (surrogate escapes) is stored as \udcff escapes
        return json.dumps(data, separators=(",", ":")).encode("ascii")

    @classmethod
    def from_bytes(cls, rel: str, kind: str, path: str, raw: bytes) -> Outcome | None:
        """The Outcome stored as ``raw``, or None when it is not one (a damaged entry: the
        file is then checked again)."""
        try:
            data = json.loads(raw)
            globs = data["g"]
            by_line, alone = data["a"]
            return cls(
                rel,
                kind,
                path,
                [_finding_in(f, path) for f in data["p"]],
                [_finding_in(f, path) for f in data["c"]],
                [_finding_in(f, path) for f in data["s"]],
                None
                if globs is None
                else RuleGlobs(
                    path,
                    str(globs[0]),
                    tuple((str(p), str(w), _int(ln), _int(col)) for p, w, ln, col in globs[1]),
                ),
                ({int(n): [str(i) for i in ids] for n, ids in by_line}, [int(n) for n in alone]),
                [str(slug) for slug in data["i"]],
                bool(data["u"]),
                bool(data["f"]),
            )
        except UNDECODABLE:
            return None


def _int(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("not an int")
    return value


def _finding_out(finding: Finding, path: str) -> list[Any]:
    return [
        finding.rule,
        finding.severity.value,
        finding.line,
        finding.column,
        finding.message,
        finding.identity,
        None if finding.path == path else finding.path,
    ]


def _finding_in(data: Any, path: str) -> Finding:
    rule, severity, line, column, message, identity, other = data
    if not isinstance(rule, str) or not isinstance(message, str) or not isinstance(identity, str):
        raise TypeError("not a finding")
    if other is not None and not isinstance(other, str):
        raise TypeError("not a path")
    return Finding(
        rule=rule,
        severity=Severity(severity),
        path=path if other is None else other,
        line=_int(line),
        column=_int(column),
        message=message,
        identity=identity,
    )
