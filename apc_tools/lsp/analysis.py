"""What `apc lsp` tells the editor, taken from the library; no LSP type is used here.

- :func:`validate_root`: `apc validate` of one project root with the editor's buffers in place
  of the files on disk (``run_validate(texts=...)``), paths made absolute, the baseline applied
  as `apc validate` and `apc check` apply it;
- :func:`plan_file`: what `apc validate --fix [--unsafe-fixes]` would write to one file
  (``plan_fixes(texts=...)``), optionally for one rule only;
- :class:`Gate`: the gate's verdict on an open file that git would commit;
- :func:`buffer_bytes`: the bytes a buffer stands for (what the editor would save).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from apc_tools.findings import CannotRun, Finding, Severity

# The rules reference (docs/rules.md, generated from the registry): each rule has an anchor
# of its id in lower case (apc_tools.report.rules_doc.anchor).
RULES_URL = "https://github.com/apc-tools/apc-tools/blob/main/docs/rules.md"
BOM = b"\xef\xbb\xbf"
POLICY_FILE = ".apc-tools.yaml"


def rule_url(rule: str) -> str:
    return f"{RULES_URL}#{rule.lower()}"


def absolute(path: Path | str) -> str:
    """``path`` absolute with its folders resolved (the file itself kept: a link stays one)."""
    full = os.path.abspath(path)
    return os.path.join(os.path.realpath(os.path.dirname(full)), os.path.basename(full))


def scan_root(path: str, folders: Sequence[str]) -> Path:
    """The root `apc validate` scans for ``path``: that of the innermost workspace folder
    holding it (as `apc validate` run in that folder), else that of the file itself."""
    from apc_tools.contract.listing import find_root

    holding = [f for f in folders if path == f or path.startswith(f.rstrip(os.sep) + os.sep)]
    if holding:
        return find_root(Path(max(holding, key=len)))
    return find_root(Path(path))


@dataclass
class Found:
    """One validation of a scan root: findings by absolute path."""

    root: Path
    by_path: dict[str, list[Finding]] = field(default_factory=dict)
    report: Path | None = None
    error: str | None = None  # the run could not be made (an unreadable policy, ...)


def validate_root(root: Path, texts: Mapping[Path, bytes], session: Any = None) -> Found:
    """`apc validate --format json` run in ``root``, with ``texts`` (absolute path -> bytes)
    standing in for those files on disk; the baseline applied as the CLI applies it.
    ``session``: the server's ``contract.session.Session`` (what its earlier runs judged)."""
    from apc_tools.boundary.trusted import accept_baseline
    from apc_tools.contract.listing import layout_of, report_root
    from apc_tools.contract.validate import rooted, run_validate

    try:
        report = report_root(root)
        layout = layout_of([], root, report)
        run = run_validate([], layout=layout, texts=texts, session=session)
        outcome = rooted(run, layout)
        result = accept_baseline(outcome.result, report, None)
    except CannotRun as exc:
        return Found(root, error=str(exc))
    found = Found(root, report=report)
    top = os.fspath(report)
    for finding in result.findings:
        where = os.path.normpath(os.path.join(top, finding.path))
        found.by_path.setdefault(where, []).append(finding)
    return found


@dataclass(frozen=True)
class PlannedFix:
    """The bytes the fixes would write to one file (``before`` None: the fix creates it)."""

    path: str  # absolute
    before: bytes | None
    after: bytes
    rules: tuple[str, ...]  # the rules whose findings it repairs


def plan_file(
    root: Path,
    path: str,
    texts: Mapping[Path, bytes],
    *,
    unsafe: bool = False,
    rule: str | None = None,
) -> list[PlannedFix]:
    """What `apc validate --fix PATH` (``--unsafe-fixes`` with ``unsafe``) would write, with
    the buffers ``texts``; ``rule``: only that rule's fixes (``--select RULE``). The file
    itself first; a file the fix creates (``.apc/.gitignore``) after it."""
    from apc_tools.contract.fix import plan_fixes
    from apc_tools.core.selection import Selection

    selection = Selection(select=(rule,)) if rule else None
    # a file the fix creates (a missing .apc/.gitignore) is fixed from its folder
    target = Path(path) if os.path.lexists(path) else Path(path).parent
    try:
        outcome = plan_fixes([target], unsafe=unsafe, cwd=root, texts=texts, selection=selection)
    except CannotRun:
        return []
    out = [
        PlannedFix(absolute(fix.abspath), fix.before, fix.after, tuple(a.rule for a in fix.applied))
        for fix in outcome.files
        if fix.applied
    ]
    return sorted(out, key=lambda fix: fix.path != path)


def buffer_bytes(text: str, disk: bytes | None, hides_bom: bool = False) -> bytes:
    """The bytes an editor buffer holding ``text`` stands for, given the file's bytes on disk:
    the text as UTF-8 (a lone surrogate the client sent for an undecodable byte is that byte);
    but the disk's bytes when the editor shows them decoded some other way (a file that is not
    UTF-8, unchanged), and the byte-order mark first when the editor hides it (``hides_bom``:
    the file had one and the buffer opened without it; the editor writes it back on save)."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = text.encode("utf-8", "surrogateescape" if _escapes(text) else "surrogatepass")
    if hides_bom and not data.startswith(BOM):
        data = BOM + data
    if disk is None or data == disk:
        return data
    try:
        disk[3 if disk.startswith(BOM) else 0 :].decode("utf-8")
    except UnicodeDecodeError:
        for encoding in ("utf-8", "cp1252", "latin-1"):
            shown = disk.decode(encoding, "replace")
            if text in (shown, shown.lstrip("\ufeff")):
                return disk
    return data


def hides_bom(text: str, disk: bytes | None) -> bool:
    """Whether an editor that opened ``text`` for a file holding ``disk`` hides its
    byte-order mark (most do: the mark is a property of the file, not a character)."""
    return disk is not None and disk.startswith(BOM) and not text.startswith("\ufeff")


def _escapes(text: str) -> bool:
    try:
        text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


# --------------------------------------------------------------------------- the boundary


class Gate:
    """The gate's verdict on open files that git would commit, what git says about each path
    (its work tree, whether it ignores the file) and each work tree's policy kept until
    :meth:`forget` (a .gitignore or the policy changed): a keystroke starts no git."""

    def __init__(self) -> None:
        self.places: dict[str, tuple[Path, str] | None] = {}  # path -> (top, rel) or None
        self.settings: dict[Path, Any] = {}  # top -> the gate's Settings (None: unreadable)

    def forget(self) -> None:
        self.places.clear()
        self.settings.clear()

    def judge(self, path: str, data: bytes, inline_allow: bool = True) -> list[Finding]:
        """What `apc boundary --staged` would refuse (errors) about the file at ``path``
        holding ``data`` if it were staged now: nothing for a file outside a git work tree,
        a git-ignored file, or one the policy allows."""
        from apc_tools.boundary.one_file import judge_file

        if path not in self.places:
            self.places[path] = _place(path)
        place = self.places[path]
        if place is None:
            return []
        top, rel = place
        if top not in self.settings:
            self.settings[top] = _settings(top)
        settings = self.settings[top]
        if settings is None:
            return []
        found = judge_file(rel, data, settings, inline_allow=inline_allow)
        return [f for f in found if f.severity is Severity.ERROR]


def _place(path: str) -> tuple[Path, str] | None:
    """(work tree top, path from it) of a file git would add, or None (outside any work
    tree, or ignored)."""
    from apc_tools.boundary.one_file import GitError, ignored_paths
    from apc_tools.contract.project import maybe_in_git
    from apc_tools.core import git

    folder = Path(path).parent
    if not folder.is_dir() or not maybe_in_git(folder):
        return None
    top = git.toplevel(folder)
    if top is None:
        return None
    top = top.resolve()
    rel = os.path.relpath(path, top)
    if rel.startswith(os.pardir) or os.path.isabs(rel):
        return None
    rel = Path(rel).as_posix()
    try:
        return None if rel in ignored_paths(top, [rel]) else (top, rel)
    except GitError:
        return None


def _settings(top: Path) -> Any:
    from apc_tools.boundary.trusted import gate_inputs
    from apc_tools.core import git

    try:
        return gate_inputs(git.open_repo(top), None)[0]
    except (git.GitError, CannotRun):
        return None
