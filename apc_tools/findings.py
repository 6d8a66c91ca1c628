"""The shared vocabulary: findings, severities and the rule registry.

A :class:`Finding` is an immutable value. Every part of apc-tools (contract validation, the
boundary gate, the runtime repair report) speaks in findings, so one set of renderers serves all.
Rules are declared next to the checks that raise them (one family per module) as :class:`Rule`
values; :mod:`apc_tools.catalog` gathers them into the registry from which the rules reference is
generated.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType


class Severity(StrEnum):
    """How much a finding matters. Errors fail the run; warnings fail it under ``--strict``."""

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 0, "warning": 1, "info": 2}[self.value]


RULE_ID_RE = re.compile(r"^[A-Z]{2,5}[0-9]{3}$")


class Basis(StrEnum):
    """Why a rule has its severity (the severity principle of APC-NOTES section 2)."""

    READER = "reader"  # error: the tool that reads the file rejects or misreads it
    APC_SPEC = "apc-spec"  # error: the APC spec requires it inside .apc/ (APX relies on it)
    LEAK = "leak"  # error: a secret or runtime state that must never be committed
    SPEC = "spec"  # warning: only a spec says so; the tools that read the file accept it
    ADVICE = "advice"  # warning: accepted, but dead, risky or not portable
    NOTE = "note"  # info: nothing is wrong

    @property
    def label(self) -> str:
        return BASIS_LABELS[self]


BASIS_LABELS = {
    Basis.READER: "error: the tool that reads the file rejects or misreads it",
    Basis.APC_SPEC: "error: the APC spec requires it inside `.apc/`",
    Basis.LEAK: "error: a secret or runtime state must never be committed",
    Basis.SPEC: "warning: only a spec says so; the tools that read the file accept it",
    Basis.ADVICE: "warning: accepted, but dead, risky or not portable",
    Basis.NOTE: "info: nothing is wrong",
}


@dataclass(frozen=True)
class Rule:
    """One entry of the rule registry.

    ``good`` and ``bad`` are short examples (file content or a description of a tree) shown in the
    rules reference; every rule also has executable passing and failing cases under
    ``tests/cases/``.
    """

    id: str
    name: str
    severity: Severity
    summary: str
    explanation: str
    good: str
    bad: str
    family: str
    basis: Basis | None = None  # why this severity (docs/rules.md states it per rule)
    why: str = ""  # which tool rejects or misreads the file, or which spec says so
    verified: str = ""  # the tool versions the conformance suite checked it against
    fix: str | None = None  # None, "safe" (--fix) or "unsafe" (--unsafe-fixes): see FIX_KINDS
    fix_how: str = ""  # what the fix changes (`apc rules`, docs/rules.md)

    def __post_init__(self) -> None:
        if not RULE_ID_RE.match(self.id):
            raise ValueError(f"rule id {self.id!r} does not match {RULE_ID_RE.pattern}")
        if self.fix not in FIX_KINDS:
            raise ValueError(f"rule {self.id}: fix must be one of {FIX_KINDS}, not {self.fix!r}")

    def finding(
        self,
        path: str,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        severity: Severity | None = None,
        commit: str | None = None,
        match: str | bytes | None = None,
    ) -> Finding:
        """Build a finding of this rule (default severity unless one is given).

        ``match`` is what identifies the finding inside its file (a secret's value, a record's
        signature, a key name; nothing for a rule about the path itself). Only its hash is kept:
        see :attr:`Finding.fingerprint`.
        """
        return Finding(
            rule=self.id,
            severity=severity or self.severity,
            path=path,
            line=line,
            column=column,
            message=message,
            commit=commit,
            identity=content_hash(match) if match is not None else "",
        )


def content_hash(content: str | bytes) -> str:
    """The SHA-256 of ``content`` (text as UTF-8), hex: what a finding keeps of matched content."""
    data = content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass")
    return hashlib.sha256(data).hexdigest()


def with_basis(rules: Iterable[Rule], table: Mapping[str, tuple[Basis, str]]) -> tuple[Rule, ...]:
    """``rules`` with the reason for each one's severity taken from ``table`` (rule ID ->
    (basis, why)); rules not in the table are kept as they are."""
    out = []
    for rule in rules:
        basis, why = table.get(rule.id, (rule.basis, rule.why))
        out.append(replace(rule, basis=basis, why=why))
    return tuple(out)


FIX_KINDS = (None, "safe", "unsafe")
"""A safe fix cannot change what the file means to the tool that reads it (applied by
``--fix``); an unsafe one changes an identity or a value (only with ``--unsafe-fixes``)."""


def with_fix(rules: Iterable[Rule], table: Mapping[str, tuple[str, str]]) -> tuple[Rule, ...]:
    """``rules`` with their fix metadata taken from ``table`` (rule ID -> (kind, how)); rules
    not in the table are kept as they are (no fix)."""
    out = []
    for rule in rules:
        fix, how = table.get(rule.id, (rule.fix, rule.fix_how))
        out.append(replace(rule, fix=fix, fix_how=how))
    return tuple(out)


RuleMaker = Callable[[str, str, Severity, str, str, str, str], Rule]


def rule_family(family: str) -> RuleMaker:
    """The constructor a check module uses for its rules:
    ``_rule = rule_family("skills")``, then ``_rule(id, name, severity, summary, explanation,
    good, bad)``."""

    def make(
        rid: str, name: str, severity: Severity, summary: str, explanation: str, good: str, bad: str
    ) -> Rule:
        return Rule(rid, name, severity, summary, explanation, good, bad, family)

    return make


@dataclass(frozen=True, order=False)
class Finding:
    """One problem at one place. ``line`` and ``column`` are 1-based, or None.

    ``identity`` is the hash of the matched content (never the content); with the rule and the
    path it makes :attr:`fingerprint`, which stays when lines move or a message is reworded and
    changes when the matched content does. ``occurrence`` tells apart findings that would share a
    fingerprint (the same rule on the same content twice in one file); :meth:`Result.of` sets it.
    """

    rule: str
    severity: Severity
    path: str
    line: int | None
    column: int | None
    message: str
    commit: str | None = None
    identity: str = ""
    occurrence: int = 1
    preexisting: bool = False  # apc check --range: already found at the range's base

    @property
    def fingerprint(self) -> str:
        """A content identity: hash of rule, path and matched content, plus ``:N`` for the Nth
        finding with the same three in one report. Used by SARIF, GitLab and the baseline."""
        key = "\0".join((self.rule, self.path, self.identity))
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        return digest if self.occurrence == 1 else f"{digest}:{self.occurrence}"

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line or 0, self.column or 0, self.rule, self.message)

    def with_severity(self, severity: Severity) -> Finding:
        return changed(self, severity=severity)

    def location(self) -> str:
        """``path:line:col`` (as far as known)."""
        out = self.path
        if self.line is not None:
            out += f":{self.line}"
            if self.column is not None:
                out += f":{self.column}"
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity.value,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "message": self.message,
            "commit": self.commit,
            "fingerprint": self.fingerprint,
            **({"preexisting": True} if self.preexisting else {}),
        }


_FINDING_FIELDS = frozenset(Finding.__dataclass_fields__)


def changed(finding: Finding, **fields: object) -> Finding:
    """``dataclasses.replace(finding, **fields)`` in a fifth of its time: a new Finding with
    ``finding``'s fields and ``fields`` set (the frozen ``__init__`` sets each field through
    ``object.__setattr__``; a run makes thousands of these copies). Finding has no
    ``__post_init__`` and no field with ``init=False``, so the two make equal objects."""
    unknown = fields.keys() - _FINDING_FIELDS
    if unknown:
        raise TypeError(f"Finding has no field {sorted(unknown)[0]!r}")
    new = object.__new__(Finding)
    state = new.__dict__
    state.update(finding.__dict__)
    state.update(fields)
    return new


@dataclass(frozen=True)
class Registry:
    """Rule ID -> Rule, read-only. Built once from the rule declarations of every family."""

    rules: Mapping[str, Rule] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, rules: Iterable[Rule]) -> Registry:
        table: dict[str, Rule] = {}
        for rule in rules:
            if rule.id in table:
                raise ValueError(f"duplicate rule id {rule.id}")
            table[rule.id] = rule
        return cls(MappingProxyType(dict(sorted(table.items()))))

    def __getitem__(self, rule_id: str) -> Rule:
        return self.rules[rule_id]

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self.rules

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules.values())

    def __len__(self) -> int:
        return len(self.rules)


@dataclass(frozen=True)
class Summary:
    """How many findings of each severity, and how many files were looked at."""

    error: int
    warning: int
    info: int
    files: int
    skipped: int = 0  # files named on the command line that the command does not look at

    @classmethod
    def of(cls, findings: Iterable[Finding], files: int, skipped: int = 0) -> Summary:
        counts = {s: 0 for s in Severity}
        for f in findings:
            counts[f.severity] += 1
        errors, warnings, infos = (counts[s] for s in Severity)
        return cls(errors, warnings, infos, files, skipped)


@dataclass(frozen=True)
class Result:
    """What a command produced: findings (sorted), how many files were looked at and how many
    named files were skipped (not the kind of file the command checks)."""

    findings: tuple[Finding, ...]
    files: int
    strict: bool = False  # the project's policy asks that warnings fail too
    skipped: int = 0
    # the findings were compared with a base commit (`apc check --range`): each one is either
    # ``preexisting`` (found there too) or new (SARIF's baselineState)
    compared: bool = False
    # the rules whose preexisting findings still fail the run (a leak stays a leak); the other
    # preexisting findings are reported and fail nothing: the range did not introduce them
    old_fails: frozenset[str] | None = None

    @classmethod
    def of(
        cls,
        findings: Iterable[Finding],
        files: int,
        *,
        strict: bool = False,
        skipped: int = 0,
        compared: bool = False,
        old_fails: frozenset[str] | None = None,
    ) -> Result:
        unique = {f if f.occurrence == 1 else changed(f, occurrence=1) for f in findings}
        ordered = _number_occurrences(sorted(unique, key=Finding.sort_key))
        return cls(ordered, files, strict, skipped, compared, old_fails)

    @property
    def summary(self) -> Summary:
        return Summary.of(self.findings, self.files, self.skipped)

    def failed(self, strict: bool = False) -> bool:
        """True when the run must exit 1: an error, or a warning under ``--strict``, among
        :meth:`deciding` findings."""
        return bool(self.deciding(strict))

    def deciding(self, strict: bool = False) -> list[Finding]:
        """The findings that make the run fail: errors (and warnings under ``--strict``),
        except preexisting ones of rules not in ``old_fails`` when ``old_fails`` is set."""
        worst = {Severity.ERROR, Severity.WARNING} if strict or self.strict else {Severity.ERROR}
        held = self.old_fails
        return [
            f
            for f in self.findings
            if f.severity in worst
            and not (held is not None and f.preexisting and f.rule not in held)
        ]


def _number_occurrences(findings: list[Finding]) -> tuple[Finding, ...]:
    """Findings in order, the second and later ones sharing rule, path and identity numbered."""
    seen: dict[tuple[str, str, str], int] = {}
    out: list[Finding] = []
    for finding in findings:
        key = (finding.rule, finding.path, finding.identity)
        seen[key] = seen.get(key, 0) + 1
        out.append(finding if seen[key] == 1 else changed(finding, occurrence=seen[key]))
    return tuple(out)


class CannotRun(Exception):
    """The command could not run (bad usage, unreadable config, no git repository): exit 2.

    The message names the file or option at fault and is safe to print.
    """
