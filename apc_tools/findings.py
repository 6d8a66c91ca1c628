"""The shared vocabulary: findings, severities and the rule registry.

A :class:`Finding` is an immutable value. Every part of apc-tools (contract validation, the
boundary gate, the runtime repair report) speaks in findings, so one set of renderers serves all.
Rules are declared next to the checks that raise them (one family per module) as :class:`Rule`
values; :mod:`apc_tools.catalog` gathers them into the registry from which the rules reference is
generated.
"""

from __future__ import annotations

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

    def __post_init__(self) -> None:
        if not RULE_ID_RE.match(self.id):
            raise ValueError(f"rule id {self.id!r} does not match {RULE_ID_RE.pattern}")

    def finding(
        self,
        path: str,
        message: str,
        line: int | None = None,
        column: int | None = None,
        *,
        severity: Severity | None = None,
        commit: str | None = None,
    ) -> Finding:
        """Build a finding of this rule (default severity unless one is given)."""
        return Finding(
            rule=self.id,
            severity=severity or self.severity,
            path=path,
            line=line,
            column=column,
            message=message,
            commit=commit,
        )


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
    """One problem at one place. ``line`` and ``column`` are 1-based, or None."""

    rule: str
    severity: Severity
    path: str
    line: int | None
    column: int | None
    message: str
    commit: str | None = None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line or 0, self.column or 0, self.rule, self.message)

    def with_severity(self, severity: Severity) -> Finding:
        return replace(self, severity=severity)

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
        }


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

    @classmethod
    def of(cls, findings: Iterable[Finding], files: int) -> Summary:
        counts = {s: 0 for s in Severity}
        for f in findings:
            counts[f.severity] += 1
        return cls(counts[Severity.ERROR], counts[Severity.WARNING], counts[Severity.INFO], files)


@dataclass(frozen=True)
class Result:
    """What a command produced: findings (sorted) and how many files were looked at."""

    findings: tuple[Finding, ...]
    files: int
    strict: bool = False  # the project's policy asks that warnings fail too

    @classmethod
    def of(cls, findings: Iterable[Finding], files: int, *, strict: bool = False) -> Result:
        return cls(tuple(sorted(set(findings), key=Finding.sort_key)), files, strict)

    @property
    def summary(self) -> Summary:
        return Summary.of(self.findings, self.files)

    def failed(self, strict: bool = False) -> bool:
        """True when the run must exit 1: an error, or a warning under ``--strict``."""
        worst = {Severity.ERROR, Severity.WARNING} if strict or self.strict else {Severity.ERROR}
        return any(f.severity in worst for f in self.findings)


class CannotRun(Exception):
    """The command could not run (bad usage, unreadable config, no git repository): exit 2.

    The message names the file or option at fault and is safe to print.
    """
