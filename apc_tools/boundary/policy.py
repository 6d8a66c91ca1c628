"""BPL and the policy of the gate: allow-lists, the baseline, inline allow.

The policy is `.apc-tools.yaml` (validate and boundary share it); its ``boundary:`` section
holds the gate's own options:

```yaml
boundary:
  secrets: contract            # or all: scan every text blob for secrets (as --secrets all)
  builtin_allow: true          # false: docs/examples/sessions/ is not allowed by default
  max_blob_bytes: 8388608      # read at most this much of a blob (BIO001 beyond)
  paths:                       # extra paths per family
    BPA: ["**/.mytool/sessions/**"]   # runtime state by path alone (error)
    BTR: ["recordings/**"]            # every text file there is session content (error)
    BDB: ["**/*.store"]               # SQLite stores there are runtime stores (error)
```
Per-rule ``allow`` globs are matched case-folded, as the path rules are. In ``--range`` mode the
policy and the baseline are read from the range's base commit, so a pull request cannot exempt
itself; a change to either inside the range is a BPL002 warning and takes effect after merge.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from apc_tools.boundary.model import Detection, rule
from apc_tools.core.globs import compile_glob
from apc_tools.core.policy import Policy, parse_policy
from apc_tools.core.selection import Selection
from apc_tools.findings import CannotRun, Finding, Severity

BASELINE_FILE = ".apc-baseline.json"
BASELINE_VERSION = 1
DEFAULT_MAX_BLOB = 8 << 20
BUILTIN_ALLOW = ("docs/examples/sessions/**",)
BUILTIN_ALLOW_RULES = frozenset({"BTR001", "BTR002", "BMK001"})

STALE = rule(
    "BPL001",
    "stale-baseline",
    Severity.WARNING,
    "A baseline entry matches no finding any more.",
    "The accepted finding was fixed (or its file moved). Remove the entry, or rewrite the "
    "baseline with `apc boundary --write-baseline`, so the baseline cannot hide a new leak "
    "that happens to match it later.",
    "a baseline whose every entry still matches a finding",
    '{"fingerprint": "...", "rule": "BTR001", "path": "old/session.jsonl"}   (file deleted)',
)
POLICY_CHANGED = rule(
    "BPL002",
    "policy-changed-in-range",
    Severity.WARNING,
    "The policy file or the baseline changed inside the scanned range.",
    "In `--range` mode the gate reads the policy and the baseline from the range's base, so "
    "a pull request cannot exempt itself; the change takes effect once it is merged. Review "
    "it like code.",
    "a pull request that leaves .apc-tools.yaml alone",
    "a pull request that adds `allow: {BTR001: ['**']}` to .apc-tools.yaml",
)
RULES = (STALE, POLICY_CHANGED)


def _nothing() -> Mapping[str, tuple[str, ...]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class Settings:
    """The gate's view of the policy."""

    severities: Mapping[str, Severity] = field(default_factory=lambda: MappingProxyType({}))
    disabled: frozenset[str] = frozenset()
    allow: Mapping[str, tuple[str, ...]] = field(default_factory=_nothing)
    exclude: tuple[str, ...] = ()
    strict: bool = False
    secrets: str = "contract"
    builtin_allow: bool = True
    max_blob_bytes: int = DEFAULT_MAX_BLOB
    paths: Mapping[str, tuple[str, ...]] = field(default_factory=_nothing)
    baseline: str = BASELINE_FILE
    source: str | None = None
    selection: Selection = field(default_factory=Selection)  # --select / --ignore

    def selected(self, selection: Selection) -> Settings:
        """These settings under ``--select``/``--ignore`` (the command line wins over disable)."""
        if not selection:
            return self
        from dataclasses import replace

        return replace(self, selection=selection, disabled=selection.enabled(self.disabled))

    def excluded(self, path: str) -> bool:
        return any_glob(self.exclude, path)

    def allowed(self, rule_id: str, path: str) -> bool:
        if any_glob(self.allow.get(rule_id, ()), path):
            return True
        return (
            self.builtin_allow and rule_id in BUILTIN_ALLOW_RULES and any_glob(BUILTIN_ALLOW, path)
        )

    def apply(self, findings: Iterable[Finding]) -> list[Finding]:
        """Drop disabled and allowed findings; apply severity overrides."""
        out: list[Finding] = []
        for finding in findings:
            if finding.rule in self.disabled or self.allowed(finding.rule, finding.path):
                continue
            if not self.selection.keeps(finding.rule):
                continue
            if finding.rule in self.severities:
                finding = finding.with_severity(self.severities[finding.rule])
            out.append(finding)
        return out


def any_glob(globs: Iterable[str], path: str) -> bool:
    low = path.casefold()
    return any(compile_glob(g.casefold()).match(low) for g in globs)


def settings_from(core: Policy) -> Settings:
    """The gate's settings from a validated policy."""
    boundary = core.boundary
    return Settings(
        severities=core.severities,
        disabled=core.disabled,
        allow=core.allow,
        exclude=core.exclude,
        strict=core.strict,
        secrets=str(boundary.get("secrets", "contract")),
        builtin_allow=bool(boundary.get("builtin_allow", True)),
        max_blob_bytes=int(boundary.get("max_blob_bytes", DEFAULT_MAX_BLOB)),
        paths=MappingProxyType({k: tuple(v) for k, v in (boundary.get("paths") or {}).items()}),
        baseline=core.baseline or BASELINE_FILE,
        source=core.source,
    )


def parse_settings(name: str, text: str) -> Settings:
    """Parse and validate a policy text (CannotRun naming ``name`` on error)."""
    return settings_from(parse_policy(Path(name), text))


# --------------------------------------------------------------------------- baseline


def fingerprint(rule_id: str, path: str, match: str | None) -> str:
    """Rule, path and a hash of the matched content (never the content itself)."""
    content = hashlib.sha256((match or "").encode("utf-8", "surrogatepass")).hexdigest()
    key = f"{rule_id}\0{path}\0{content}".encode("utf-8", "surrogatepass")
    return hashlib.sha256(key).hexdigest()[:32]


def is_boundary_rule(rule_id: str) -> bool:
    """A rule of the gate: every boundary family's prefix starts with ``B`` and no other
    family's does (tests/boundary/test_policy.py holds the registry to it). The baseline holds
    both halves' entries (``apc check --write-baseline``); each half reads and rewrites only
    its own."""
    return rule_id.startswith("B")


@dataclass(frozen=True)
class BaselineEntry:
    fingerprint: str
    rule: str
    path: str


def baseline_path(root: Path, name: str) -> Path:
    """Where the baseline ``name`` lives: a relative path inside the repository ``root`` (no
    ``..``, not absolute, no drive, no symlink leading out); CannotRun otherwise."""
    pure = PurePosixPath(name.replace("\\", "/"))
    parts = pure.parts
    target = root / pure
    if parts and not pure.is_absolute() and ".." not in parts and ":" not in parts[0]:
        real_root = root.resolve()
        if real_root in target.resolve().parents:
            return target
    raise CannotRun(
        f"baseline: {name!r} must be a relative path inside the repository "
        f"(like {BASELINE_FILE!r}); refusing to read or write outside it"
    )


def parse_baseline(
    name: str, text: str, *, rules: Callable[[str], bool] = is_boundary_rule
) -> tuple[BaselineEntry, ...]:
    """The entries of a baseline file whose rule ``rules`` accepts (default: the gate's own;
    the validate entries `apc check` wrote are not the gate's to match or call stale);
    CannotRun naming the file when it is not a baseline."""
    from apc_tools.core.schemas import schema_errors

    try:
        data = json.loads(text)
    except ValueError as exc:
        raise CannotRun(f"{name}: not a baseline file (invalid JSON: {exc})") from None
    errors = schema_errors("baseline", data)
    if errors:
        raise CannotRun(f"{name}: {errors[0].json_path}: {errors[0].message}")
    return tuple(
        BaselineEntry(_read_fingerprint(e["fingerprint"]), e["rule"], e["path"])
        for e in data["findings"]
        if rules(e["rule"])
    )


def _read_fingerprint(value: str) -> str:
    """A fingerprint as the baseline stores it (``hash:N``, or an older baseline's bare
    ``hash``) -> as :attr:`Finding.fingerprint` spells it (no ``:1``)."""
    digest, _, occurrence = value.partition(":")
    return digest if occurrence == "1" else value


def _stored_fingerprint(value: str) -> str:
    """The occurrence always spelled out (``hash:1``), as SARIF has it: a quoted string of hex
    digits only is what secret scanners take for a key (detect-secrets' "Hex High Entropy
    String"); with the colon the baseline passes them out of the box (docs/boundary.md)."""
    return value if ":" in value else f"{value}:1"


def baseline_text(entries: Iterable[BaselineEntry]) -> str:
    """The baseline file: versioned, sorted, no timestamps (stable under re-generation)."""
    rows = sorted({(e.path, e.rule, _stored_fingerprint(e.fingerprint)) for e in entries})
    doc = {
        "version": BASELINE_VERSION,
        "findings": [{"path": p, "rule": r, "fingerprint": f} for p, r, f in rows],
    }
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def write_baseline(
    target: Path,
    entries: Iterable[BaselineEntry],
    *,
    replace: Callable[[str], bool] = is_boundary_rule,
) -> None:
    """Write the baseline by atomic replace (a temporary file beside it, then rename).
    ``entries`` replace the entries of the rules ``replace`` accepts (default: the gate's);
    the file's other entries (the validate half's, written by `apc check`) are kept."""
    import os
    import tempfile

    entries = list(entries)
    if target.is_file():
        try:
            kept = parse_baseline(
                str(target), target.read_text(encoding="utf-8"), rules=lambda r: not replace(r)
            )
        except (CannotRun, OSError, UnicodeDecodeError):
            kept = ()  # not a baseline (or unreadable): rewritten whole
        entries += kept
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".apc-baseline-", dir=target.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.write(baseline_text(entries))
        os.chmod(temporary, 0o644)  # a committed file, readable as any other
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def stale_detection(entry: BaselineEntry) -> Detection:
    return Detection(
        STALE,
        f"baseline entry for {entry.rule} at {entry.path!r} matches no finding: remove it "
        "(`apc boundary --write-baseline` rewrites the baseline)",
        match=entry.fingerprint,
    )


def changed_detection(what: str) -> Detection:
    return Detection(
        POLICY_CHANGED,
        f"{what} changed in this range: the gate used the base commit's version; the change "
        "takes effect after merge",
        match=what,
    )
