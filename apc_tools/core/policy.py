"""The policy file ``.apc-tools.yaml`` (schema: ``apc schema policy``).

```yaml
version: 1
profile: default            # or agentskills
strict: false               # warnings fail the run too
severity: {YML005: info}    # per-rule severity
disable: [AGM006]           # rules that are not reported
allow:                      # per rule: path globs (relative to the project) where it is accepted
  IO003: ["docs/big-skill/SKILL.md"]
exclude: ["vendor/**"]      # paths apc never reads
include:                    # catalogs: files kept outside their tool's folder, read as the
  "rules-mdc/*.mdc": cursor-rule   # tool would read them once copied (glob -> kind)
```
A missing file means the defaults. An unreadable or invalid file stops the run (exit 2): a gate
must never silently run with a policy other than the one committed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from apc_tools.core.globs import glob_match
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding, Severity

POLICY_FILE = ".apc-tools.yaml"
MAX_POLICY_BYTES = 1024 * 1024
# The kinds `include:` may give a file (the policy schema lists the same names), and the kind
# apc checks it as: files whose tool reads them by their shape, wherever they are once copied
# (not the APC spec's own files, which it reads by their place in `.apc/`).
INCLUDE_KINDS = {
    "cursor-rule": "rule",
    "claude-agent": "claude-agent",
    "claude-command": "claude-command",
    "skill": "skill",
    "copilot-instructions": "copilot-scoped",
    "agents-md": "agents-md",
    "claude-md": "claude-md",
    "gemini-md": "gemini-md",
}


def _no_mapping() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Policy:
    severities: Mapping[str, Severity] = field(default_factory=_no_mapping)
    disabled: frozenset[str] = frozenset()
    allow: Mapping[str, tuple[str, ...]] = field(default_factory=_no_mapping)
    exclude: tuple[str, ...] = ()
    include: tuple[tuple[str, str], ...] = ()  # (glob, kind apc checks it as), in file order
    profile: str | None = None
    strict: bool = False
    source: str | None = None
    baseline: str | None = None  # the baseline file named by the policy (apc boundary)
    boundary: Mapping[str, Any] = field(default_factory=_no_mapping)  # the `boundary:` section
    selection: Selection = field(default_factory=Selection)  # --select / --ignore

    def selected(self, selection: Selection) -> Policy:
        """This policy under ``--select``/``--ignore`` (the command line wins over disable)."""
        if not selection:
            return self
        return replace(self, selection=selection, disabled=selection.enabled(self.disabled))

    def allowed(self, rule: str, path: str) -> bool:
        return any(glob_match(g, path) for g in self.allow.get(rule, ()))

    def excluded(self, rel: str) -> bool:
        return any(glob_match(g, rel) for g in self.exclude)

    def apply(self, findings: Iterable[Finding], root_display: str = "") -> list[Finding]:
        """Drop disabled and allowed findings; apply severity overrides."""
        prefix = f"{root_display}/" if root_display else ""
        out: list[Finding] = []
        for finding in findings:
            rel = finding.path[len(prefix) :] if finding.path.startswith(prefix) else finding.path
            if finding.rule in self.disabled or self.allowed(finding.rule, rel):
                continue
            if not self.selection.keeps(finding.rule):
                continue
            if finding.rule in self.severities:
                finding = finding.with_severity(self.severities[finding.rule])
            out.append(finding)
        return out


def _fail(path: Path, message: str) -> CannotRun:
    from apc_tools.core.detect import redact_secrets

    return CannotRun(f"{path}: {redact_secrets(message)}")


# No list in a policy is longer (checked before the schema: the schema validator compares list
# items pairwise for `uniqueItems` when they are of mixed types, which is quadratic).
MAX_LIST = 1000


def _too_long(data: Any) -> str | None:
    """Why a list of the policy is too long to check, or None."""
    values = data.items() if isinstance(data, dict) else ()
    for key, value in values:
        inner = value.items() if isinstance(value, dict) else ()
        for name, item in [(str(key), value), *((f"{key}.{k}", v) for k, v in inner)]:
            if isinstance(item, list) and len(item) > MAX_LIST:
                return f"`{name}` has {len(item)} entries; a policy list holds at most {MAX_LIST}"
    return None


def parse_policy(path: Path, text: str) -> Policy:
    """Parse and validate a policy file; raise CannotRun naming the file and line on error."""
    from apc_tools.core.parse import load_yaml
    from apc_tools.core.schemas import schema_errors

    doc = load_yaml(text)
    if not doc.ok:
        first = doc.problems[0]
        where = f"line {first.line}: " if first.line is not None else ""
        raise _fail(path, f"{where}{first.message}")
    data = doc.data if doc.data is not None else {}
    too_long = _too_long(data)
    if too_long:
        raise _fail(path, too_long)
    errors = schema_errors("policy", data)
    if errors:
        error = errors[0]
        pos = doc.key_at((*error.path, error.key) if error.key else error.path)
        where = f"line {pos.line}: " if pos else ""
        raise _fail(path, f"{where}{error.json_path}: {error.message}")
    return Policy(
        severities=MappingProxyType(
            {k: Severity(v) for k, v in (data.get("severity") or {}).items()}
        ),
        disabled=frozenset(data.get("disable") or ()),
        allow=MappingProxyType({k: tuple(v) for k, v in (data.get("allow") or {}).items()}),
        exclude=tuple(data.get("exclude") or ()),
        include=tuple((g, INCLUDE_KINDS[k]) for g, k in (data.get("include") or {}).items()),
        profile=data.get("profile"),
        strict=bool(data.get("strict", False)),
        source=str(path),
        baseline=data.get("baseline"),
        boundary=MappingProxyType(dict(data.get("boundary") or {})),
    )


def load_policy(config: Path | None, root: Path) -> Policy:
    """The policy named by --config, else ``.apc-tools.yaml`` at ``root``, else the defaults."""
    candidate = config if config is not None else root / POLICY_FILE
    if config is None and not candidate.is_file():
        return Policy()
    return parse_policy(candidate, read_policy_text(candidate))


def read_policy_text(path: Path) -> str:
    """The text of a policy file: a regular file (a FIFO or device is never opened: it could
    block or never end) of at most :data:`MAX_POLICY_BYTES` (never read whole beyond that)."""
    try:
        if not path.is_file():
            what = "does not exist" if not path.exists() else "is not a regular file"
            raise _fail(path, f"cannot read the policy file: it {what}")
        with path.open("rb") as fh:
            data = fh.read(MAX_POLICY_BYTES + 1)
        if len(data) > MAX_POLICY_BYTES:
            limit = MAX_POLICY_BYTES // 1024
            raise _fail(path, f"the policy file is larger than {limit} KiB; keep it short")
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(path, f"cannot read the policy file: {exc}") from exc
