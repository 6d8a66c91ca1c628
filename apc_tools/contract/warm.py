"""The whole-run result of `apc validate`: an unchanged tree answered without parsing or checking.

A batch run (``contract.validate``) keeps each file's :class:`~apc_tools.contract.outcome.Outcome`
in the result cache, but the cross-file checks (links, owners, dead globs...) run again every
time, and importing the parsers, schemas and checks is most of a warm run. This module, which
imports none of them, keys the *whole* :class:`Validation` of a run on everything it is a
function of, gathered the way the run itself gathers it (the same functions):

- apc's version and code (in every cache key), the published schemas' bytes, the format;
- the working folder, the PATH arguments as given and resolved (file or folder), the report
  root (the git top level), the options (profile, --config, inline allows, --select/--ignore)
  and the parsed policy (``repr``, as the per-file key);
- per project root: the file list (git's view: tracked and untracked not ignored, or the walk),
  the tracked list, the unlistable folders and outward folder links, the projects it holds;
- per contract file: its path, its kind (which may depend on a plugin marketplace's text) and
  the SHA-256 of its bytes (or why they cannot be read); a file named on the command line
  outside the list (a lone ``.mdc``): its bytes;
- what the checks asked the disk beyond the file list (``Project.probe``: a link target that is
  git-ignored or in a nested project, ``.apc/`` being a folder, ``.apc/.gitignore`` a file):
  stored with the result and asked again before it is used; any other answer is a miss.

Any edit, addition, deletion or rename of a listed file changes the file list or a content
hash; a policy change changes the policy; so each gives a fresh run. On a miss the run is made
on exactly what the key was made of (:class:`~apc_tools.contract.listing.Gathered`: the
layouts, kinds and bytes, nothing listed or read twice), so a file edited meanwhile is never
stored under its old content.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from apc_tools.contract.listing import (
    Gathered,
    Validation,
    _absolute,
    _layout,
    _text_of,
    _under,
    find_root,
    report_root,
)
from apc_tools.contract.project import disk_answer, kinds_of
from apc_tools.core import files as io
from apc_tools.findings import CannotRun, Finding, Result, Severity

if TYPE_CHECKING:  # pragma: no cover
    from apc_tools.core.selection import Selection

FORMAT = "1"  # the layout of a stored whole-run result (part of the key)
NAMESPACE = "validate"


# --------------------------------------------------------------------------- the whole run


def run_key(
    paths: Sequence[Path],
    *,
    report: Path,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
) -> bytes | None:
    """The key of the whole run ``run_validate(paths, ...)`` reported from ``report`` (module
    docstring), or None when the run is not one to answer whole (it would stop: a missing
    path, a bad policy)."""
    found = gather(
        paths,
        report=report,
        profile=profile,
        config_path=config_path,
        cwd=cwd,
        inline_allow=inline_allow,
        selection=selection,
    )
    return None if found is None else found[0]


def gather(
    paths: Sequence[Path],
    *,
    report: Path,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
) -> tuple[bytes, Gathered] | None:
    """:func:`run_key` and what was listed and read to make it (for the run)."""
    from apc_tools.core.cache import key as cache_key
    from apc_tools.core.policy import load_policy

    try:
        here = (cwd or Path.cwd()).resolve()
        for path in paths:
            if not (here / path).exists() and not (here / path).is_symlink():
                return None
        targets = [_absolute(here / p) for p in paths] or [find_root(here)]
        groups: dict[Path, list[Path]] = {}
        for target in targets:
            groups.setdefault(find_root(target), []).append(target)
        policy = load_policy(config_path, next(iter(groups)))
        if selection is not None:
            policy = policy.selected(selection)
        got = Gathered()
        parts: list[str] = [
            FORMAT,
            os.fspath(here),
            os.fspath(report),
            repr([os.fspath(p) for p in paths]),
            repr([(os.fspath(t), t.is_dir()) for t in targets]),
            repr(profile),
            repr(None if config_path is None else os.fspath(config_path)),
            repr(inline_allow),
            repr(policy),
            _schemas(),
        ]
        for root, mine in groups.items():
            extra = [
                t.relative_to(root).as_posix() for t in mine if not t.is_dir() and _under(t, root)
            ]
            layouts, found = _layout(root, here, policy, extra)
            got.layouts[os.fspath(root)] = (layouts, found)
            parts += [os.fspath(root), repr(found)]
            for one in layouts:
                tracked = None if one.tracked is None else "\0".join(sorted(one.tracked))
                top = os.fspath(one.root)
                parts += [top, one.display, "\0".join(one.local), repr(tracked)]
                kinds = got.kinds[top] = kinds_of(one.local, partial(_text_of, one.root))
                for rel in one.local:
                    kind = kinds.get(rel)
                    if kind is not None:
                        shown = f"{one.display}/{rel}" if one.display else rel
                        data = got.data[(top, rel)] = io.read_bytes(one.root / rel, one.root, shown)
                        parts += [rel, kind, _digest(data)]
        for target in targets:
            if not target.is_dir():  # a file argument (a lone .mdc is read from here)
                parts += [os.fspath(target), _digest(io.read_bytes(target, target.parent, ""))]
    except (OSError, ValueError, RuntimeError, CannotRun):
        return None
    return cache_key("validate-run", *parts), got


def _digest(data: bytes | Finding) -> str:
    if isinstance(data, Finding):
        return repr(data)
    return hashlib.sha256(data).hexdigest()


def _schemas() -> str:
    """A digest of the published schemas (data files, so not in the code digest of the key),
    read where ``core.schemas`` reads them (the ``apc_tools.schemas`` package's folders)."""
    from importlib.util import find_spec

    digest = hashlib.sha256()
    try:
        spec = find_spec("apc_tools.schemas")
        for folder in (spec.submodule_search_locations or ()) if spec else ():
            for name in sorted(os.listdir(folder)):
                if name.endswith(".json"):
                    data = Path(folder, name).read_bytes()
                    digest.update(name.encode() + b"\0" + data + b"\0")
    except OSError:
        digest.update(os.urandom(16))  # unreadable: never the same key twice
    return digest.hexdigest()


def validate_tree(
    paths: Sequence[Path],
    *,
    profile: str | None = None,
    config_path: Path | None = None,
    cwd: Path | None = None,
    inline_allow: bool = True,
    selection: Selection | None = None,
    cache: bool = True,
    report: Path | None = None,
) -> Validation:
    """``rooted(run_validate(paths, ...))`` (`apc validate`: paths relative to the report
    root), answered whole from the result cache when nothing it depends on changed; else run
    (``contract.validate``, imported only then) and stored for the next run. ``report``:
    :func:`report_root` of ``cwd`` when the caller knows it."""
    from apc_tools.core.cache import disabled_by_env

    here = (cwd or Path.cwd()).resolve()
    top = report if report is not None else report_root(here)

    made = None
    if cache and not disabled_by_env():
        made = gather(
            paths,
            report=top,
            profile=profile,
            config_path=config_path,
            cwd=here,
            inline_allow=inline_allow,
            selection=selection,
        )
    found = lookup(made[0] if made else None)
    if found is not None:
        return found
    from apc_tools.contract.validate import rooted, run_validate

    found = rooted(
        run_validate(
            paths,
            profile=profile,
            config_path=config_path,
            cwd=here,
            inline_allow=inline_allow,
            selection=selection,
            cache=cache,
            gathered=made[1] if made else None,
        ),
        here,
    )
    if made is not None:
        store(made[0], found)
    return found


def lookup(key: bytes | None, *, enabled: bool = True) -> Validation | None:
    """The stored whole-run result under ``key``, when every disk answer it depends on is
    still the same; else None."""
    if key is None:
        return None
    from apc_tools.core.cache import Cache

    with Cache.open(NAMESPACE, enabled=enabled) as store:
        raw = store.get(key) if store.enabled else None
    if raw is None:
        return None
    found = from_bytes(raw)
    if found is None or found.probes is None:
        return None
    for root, question, rel, answer in found.probes:
        if disk_answer(Path(root), question, rel) != answer:
            return None
    return found


def store(key: bytes | None, found: Validation, *, enabled: bool = True) -> None:
    """Keep ``found`` (a run made on exactly the data of ``key``: :class:`Gathered`) under
    ``key`` when the run can be answered whole."""
    if key is None or found.probes is None:
        return
    from apc_tools.core.cache import Cache

    with Cache.open(NAMESPACE, enabled=enabled) as cache:
        if cache.enabled:
            cache.put_many({key: to_bytes(found)})


def _finding_out(f: Finding) -> list[Any]:
    return [
        f.rule,
        f.severity.value,
        f.path,
        f.line,
        f.column,
        f.message,
        f.commit,
        f.identity,
        f.occurrence,
        f.preexisting,
    ]


def _finding_in(data: Any) -> Finding:
    rule, severity, path, line, column, message, commit, identity, occurrence, pre = data
    for text in (rule, path, message, identity):
        if not isinstance(text, str):
            raise TypeError("not a finding")
    return Finding(
        rule=rule,
        severity=Severity(severity),
        path=path,
        line=line if isinstance(line, int) else None,
        column=column if isinstance(column, int) else None,
        message=message,
        commit=commit if isinstance(commit, str) else None,
        identity=identity,
        occurrence=int(occurrence),
        preexisting=bool(pre),
    )


def to_bytes(found: Validation) -> bytes:
    result = found.result
    data = {
        "f": [_finding_out(f) for f in result.findings],
        "n": result.files,
        "s": result.strict,
        "k": result.skipped,
        "l": [list(pair) for pair in found.listed],
        "x": list(found.skipped),
        "a": [_finding_out(f) for f in found.allowed],
        "p": None if found.probes is None else [list(p) for p in found.probes],
    }
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def from_bytes(raw: bytes) -> Validation | None:
    """The stored Validation, or None for a damaged entry (the run is then made again)."""
    try:
        data = json.loads(raw)
        result = Result(
            tuple(_finding_in(f) for f in data["f"]),
            int(data["n"]),
            strict=bool(data["s"]),
            skipped=int(data["k"]),
        )
        probes = data["p"]
        return Validation(
            result,
            tuple((str(shown), str(kind)) for shown, kind in data["l"]),
            tuple(str(s) for s in data["x"]),
            tuple(_finding_in(f) for f in data["a"]),
            None
            if probes is None
            else tuple((str(r), str(q), str(rel), bool(a)) for r, q, rel, a in probes),
        )
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        return None
