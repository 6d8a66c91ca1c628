"""The gate's trusted inputs: which policy and which baseline judge a scan. One place decides
them, for ``apc boundary`` and for both halves of ``apc check``.

- ``--config FILE`` names the policy; otherwise, in range mode, it is the ``.apc-tools.yaml``
  of the range's base commit (a pull request cannot relax the rules it is checked by) and, in
  the other modes, the file at the repository root.
- The baseline (``boundary.baseline`` of that policy, confined to the repository) is the base
  commit's in range mode, else the file at the root.

A file that is in the base commit's tree but whose blob this clone does not hold (a partial
clone) is exit 2: the defaults are never used in place of a policy that exists.

The baseline file holds both halves' entries (``apc check --write-baseline``): this module
also reads it for ``apc validate`` (:func:`accept_baseline`: the validate entries, so the
pre-commit hook and ``apc check`` agree) and writes each half's entries
(:func:`write_baseline`). It starts no git process unless a commit's file is asked for
(:func:`blob_at`): `apc validate` reads the baseline without loading the gate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from apc_tools.boundary import policy
from apc_tools.boundary.policy import BASELINE_FILE, BaselineEntry, Settings
from apc_tools.core.policy import MAX_POLICY_BYTES, POLICY_FILE
from apc_tools.findings import CannotRun, Finding, Result

if TYPE_CHECKING:
    from apc_tools.core.git import Repo

MAX_BASELINE_BYTES = 64 << 20


def gate_inputs(
    repo: Repo,
    base: str | None,
    config: Path | None = None,
    *,
    rules: Callable[[str], bool] = policy.is_boundary_rule,
) -> tuple[Settings, tuple[BaselineEntry, ...]]:
    """The settings and the baseline entries in force for a scan of ``repo`` (``base``: the
    range's base commit, None outside range mode; ``config``: an explicit policy file). Only
    the baseline entries of the rules ``rules`` accepts (default: the gate's; `apc check`
    asks for both halves')."""
    if config is not None:
        settings = _settings_file(config)
    elif base is not None:
        text = blob_at(repo, base, POLICY_FILE, MAX_POLICY_BYTES + 1)
        where = f"{POLICY_FILE} (at {base[:12]})"
        settings = (
            Settings() if text is None else policy.parse_settings(where, _decode(where, text))
        )
    else:
        settings = _settings_file(repo.root / POLICY_FILE, optional=True)
    target = policy.baseline_path(repo.root, settings.baseline)  # confined, else CannotRun
    if base is not None:
        rel = target.relative_to(repo.root).as_posix()
        data = blob_at(repo, base, rel, MAX_BASELINE_BYTES)
        where = f"{settings.baseline} (at {base[:12]})"
        if data is None:
            baseline: tuple[BaselineEntry, ...] = ()
        else:
            baseline = policy.parse_baseline(where, _decode(where, data), rules=rules)
    else:
        baseline = _baseline_file(target, rules)
    return settings, baseline


def blob_at(repo: Repo, commit: str, path: str, limit: int) -> bytes | None:
    """Up to ``limit`` bytes of the blob at ``path`` in ``commit``'s tree; None when the tree
    has no blob there. CannotRun when it has one that this clone cannot read."""
    from apc_tools.core import git as gitio

    try:
        found = gitio.path_entries(repo, commit, [path]).get(path)
    except gitio.GitError as exc:
        raise CannotRun(f"{path} (at {commit[:12]}): git cannot list it: {exc}") from None
    if found is None:
        return None
    with gitio.BlobReader(repo) as reader:
        absent = gitio.is_partial_clone(repo) and gitio.absent_objects(repo, [found.oid])
        blob = gitio.Blob(b"", 0, missing=True) if absent else reader.read(found.oid, limit)
    if blob.missing:
        raise CannotRun(
            f"{path} (at {commit[:12]}): its blob is not in this clone, so the gate cannot read "
            "the policy it must apply: use a clone without a blob filter, or fetch the blobs "
            "(`git fetch --refetch --no-filter origin`)"
        )
    return blob.data


def baseline_name(root: Path, config: Path | None) -> str:
    """The baseline file the policy names (``boundary.baseline``, default .apc-baseline.json):
    the policy ``config``, else the one at ``root``."""
    source = config if config is not None else root / POLICY_FILE
    if not source.is_file():  # the empty policy's name, without loading the YAML parser
        return BASELINE_FILE
    return policy.parse_settings(str(source), source.read_text("utf-8", "replace")).baseline


def accept_baseline(result: Result, root: Path, config: Path | None) -> Result:
    """``apc validate``: ``result`` without the validate findings the baseline accepts (the
    file the policy names at ``root``, written by ``apc check --write-baseline``), so the
    pre-commit hook and `apc check` agree. A missing baseline accepts nothing."""
    try:
        target = policy.baseline_path(root, baseline_name(root, config))
    except CannotRun:
        return result  # a policy that names an outside baseline: validate reports as before
    entries = _baseline_file(target, rules=lambda rule: not policy.is_boundary_rule(rule))
    if not entries:
        return result
    taken = {e.fingerprint for e in entries}
    kept = [f for f in result.findings if f.fingerprint not in taken]
    return Result.of(kept, result.files, strict=result.strict, skipped=result.skipped)


def write_baseline(target: Path, findings: Iterable[Finding], rules: Callable[[str], bool]) -> int:
    """Accept every error and warning of ``findings`` whose rule ``rules`` takes (one half's):
    their entries replace that half's in the baseline file ``target``, the other half's are
    kept. The number of entries written; CannotRun when the file cannot be written."""
    entries = [
        BaselineEntry(f.fingerprint, f.rule, f.path)
        for f in findings
        if f.severity.value in ("error", "warning") and rules(f.rule)
    ]
    try:
        policy.write_baseline(target, entries, replace=rules)
    except OSError as exc:
        raise CannotRun(f"{target}: cannot write the baseline: {exc.strerror or exc}") from None
    return len(entries)


def _settings_file(path: Path, optional: bool = False) -> Settings:
    if optional and not path.is_file():
        return Settings()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotRun(f"{path}: cannot read the policy file: {exc}") from None
    return policy.parse_settings(str(path), text)


def _baseline_file(
    path: Path, rules: Callable[[str], bool] = policy.is_boundary_rule
) -> tuple[BaselineEntry, ...]:
    if not path.is_file():
        return ()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CannotRun(f"{path}: cannot read the baseline: {exc}") from None
    return policy.parse_baseline(str(path), text, rules=rules)


def _decode(where: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CannotRun(f"{where}: not valid UTF-8: {exc}") from None


def allowed_at_base(
    repo: Repo, base: str, findings: Iterable[Finding], settings: Settings
) -> list[Finding]:
    """Range mode under ``--no-inline-allow`` (the Action's default): ``findings`` without
    those an ``apc: allow`` comment accepts both in the blob the range gives (the finding's
    commit) and in the base commit's blob at the same path, for the same finding (its
    fingerprint: the rule, the path and the matched content). An allow that was reviewed and
    merged counts; one the range adds, or an allowed line the range changes (another secret
    beside the old comment), does not: a pull request cannot add an allow that judges
    itself. Only files whose bytes hold ``apc:`` are read again, each at most twice."""
    findings = list(findings)
    groups: dict[tuple[str, str], set[str]] = {}
    for found in findings:
        if found.commit and found.line is not None:
            groups.setdefault((found.commit, found.path), set()).add(found.fingerprint)
    trusted: set[tuple[str, str, str]] = set()
    at_base: dict[str, set[str]] = {}
    for (commit, path), prints in groups.items():
        here = _inline_allowed(path, _blob_or_none(repo, commit, path, settings), settings)
        if not here & prints:
            continue
        if path not in at_base:
            data = _blob_or_none(repo, base, path, settings)
            at_base[path] = _inline_allowed(path, data, settings)
        trusted |= {(commit, path, fp) for fp in here & prints & at_base[path]}
    return [f for f in findings if (f.commit or "", f.path, f.fingerprint) not in trusted]


def _blob_or_none(repo: Repo, commit: str, path: str, settings: Settings) -> bytes | None:
    """The blob at ``path`` of ``commit``, or None where there is none to read (a finding in a
    tag's message or in the blob a tag names has no file of a commit): no allow is credited
    then, so the finding stands (the safe side)."""
    try:
        return blob_at(repo, commit, path, settings.max_blob_bytes)
    except CannotRun:
        return None


def _inline_allowed(path: str, data: bytes | None, settings: Settings) -> set[str]:
    """The fingerprints of the findings an inline comment of the file ``data`` accepts."""
    if data is None or b"apc:" not in data:
        return set()
    from apc_tools.boundary.one_file import judge_file

    strict = {f.fingerprint for f in judge_file(path, data, settings, inline_allow=False)}
    return strict - {f.fingerprint for f in judge_file(path, data, settings)}
