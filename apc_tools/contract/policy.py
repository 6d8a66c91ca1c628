"""The policy file ``.apc-tools.yaml``: per-rule severity, disabled rules, path allow-lists.

```yaml
version: 1
rules:                      # per rule: off, error, warning or info
  YML005: off
allow:                      # per rule: paths (globs, relative to the project) where it is allowed
  IO003: ["docs/big-skill/SKILL.md"]
```
A missing file means the defaults. An unreadable or invalid file is an error that stops the run
(exit 2): a gate must never silently run with a policy other than the one committed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from apc_tools.contract.globs import glob_match
from apc_tools.findings import CannotRun, Finding, Severity

POLICY_FILE = ".apc-tools.yaml"
LEVELS = {"off": None, "error": Severity.ERROR, "warning": Severity.WARNING, "info": Severity.INFO}


@dataclass(frozen=True)
class Policy:
    severities: Mapping[str, Severity | None] = field(default_factory=lambda: MappingProxyType({}))
    allow: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: MappingProxyType({}))
    source: str | None = None

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        out: list[Finding] = []
        for finding in findings:
            if finding.rule in self.severities:
                level = self.severities[finding.rule]
                if level is None:
                    continue
                finding = replace(finding, severity=level)
            if any(
                glob_match(g, finding.path) or finding.path.endswith("/" + g)
                for g in self.allow.get(finding.rule, ())
            ):
                continue
            out.append(finding)
        return out


def _fail(path: Path, message: str) -> CannotRun:
    return CannotRun(f"{path}: {message}")


def parse_policy(path: Path, text: str) -> Policy:
    from apc_tools.contract.parse import load_yaml

    doc = load_yaml(text)
    if not doc.ok:
        first = next(p for p in doc.problems)
        raise _fail(path, f"line {first.line}: {first.message}")
    data = doc.data if doc.data is not None else {}
    if not isinstance(data, dict):
        raise _fail(path, "expected a mapping with 'version: 1'")
    if data.get("version", 1) != 1:
        raise _fail(path, f"unsupported version {data.get('version')!r} (this apc reads 1)")
    for section in ("rules", "allow"):
        if not isinstance(data.get(section) or {}, dict):
            raise _fail(path, f"'{section}' must be a mapping of rule IDs")
    severities: dict[str, Severity | None] = {}
    for rule, level in (data.get("rules") or {}).items():
        if str(level).lower() not in LEVELS:
            raise _fail(path, f"rules.{rule}: expected off, error, warning or info")
        severities[str(rule).upper()] = LEVELS[str(level).lower()]
    allow: dict[str, tuple[str, ...]] = {}
    for rule, globs in (data.get("allow") or {}).items():
        if not isinstance(globs, list) or not all(isinstance(g, str) for g in globs):
            raise _fail(path, f"allow.{rule}: expected a list of path globs")
        allow[str(rule).upper()] = tuple(globs)
    return Policy(MappingProxyType(severities), MappingProxyType(allow), str(path))


def load_policy(config: Path | None, roots: Sequence[Path]) -> Policy:
    """The policy named by --config, else ``.apc-tools.yaml`` in the first root that has one."""
    candidates = [config] if config is not None else [r / POLICY_FILE for r in roots]
    for candidate in candidates:
        if config is None and not candidate.is_file():
            continue
        try:
            text = candidate.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(candidate, f"cannot read the policy file: {exc}") from exc
        return parse_policy(candidate, text)
    return Policy()
