"""`apc boundary --staged --fix`: take leaked runtime files out of the commit being made.

Each file a whole-file rule with a fix reports (``Rule.fix``: BPA001, BPA002, BDB001, BTR001)
leaves the index (``git rm --cached``: the working file is kept), and its ignore line is added
to ``.apc/.gitignore`` (a path under an ``.apc/`` folder, relative to it) or to the root
``.gitignore``, so the commit the user retries passes and the file is not staged again. Outside
``.apc/`` the line is the tool's pattern where one is known (:mod:`.ignores`: ``.aider*``,
``.claude/settings.local.json``, a home folder with its shared files re-included), so the
tool's next file is ignored too; ``git check-ignore`` then confirms each file is ignored, and a
file the pattern missed gets its exact line. Only
the index and those two files change; nothing in history is ever rewritten: a file some commit
already holds is named with the ``git filter-repo`` command that would remove it, and its
secrets must be rotated. Every git call goes through :mod:`apc_tools.core.git`.
"""

from __future__ import annotations

import os
import shlex
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from apc_tools.boundary import ignores, paths
from apc_tools.boundary.paths import HomeFolder
from apc_tools.core import files
from apc_tools.core import git as gitio
from apc_tools.findings import Result

APC = ".apc/"


@dataclass(frozen=True)
class Untracked:
    """One file taken out of the index, the ignore line added for it and where."""

    path: str  # repository-relative
    rules: tuple[str, ...]
    gitignore: str  # repository-relative path of the .gitignore that got the line ("" = kept)
    line: str  # the line that ignores it (the tool's pattern, else the exact path)
    in_history: bool  # some commit already holds it: history is not rewritten


@dataclass
class BoundaryFix:
    untracked: list[Untracked] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """What to tell the user (paths as git shows them; escape before printing)."""
        out: list[str] = []
        for item in self.untracked:
            where = f"; added `{item.line}` to {item.gitignore}" if item.gitignore else ""
            out.append(
                f"{item.path}: {', '.join(item.rules)}: untracked (git rm --cached; the file is "
                f"kept){where}"
            )
            if item.in_history:
                out.append(
                    f"{item.path}: already committed: history is not rewritten; to remove it run "
                    f"`git filter-repo --invert-paths --path={shlex.quote(item.path)}` (every "
                    "clone must be replaced) and rotate any secret it held: it was pushed or "
                    "could have been"
                )
        out += self.problems
        count = len(self.untracked)
        if not count:
            out.append("apc: untracked nothing: the index is as it was")
            return out
        out.append(
            f"apc: untracked {count} file{'' if count == 1 else 's'}; review the .gitignore "
            "change, stage it (`git add`) and commit again"
        )
        if self.problems:
            out.append(
                "apc: the fix is incomplete (an ignore line above is not written; the next "
                "`git add` takes the file again): exit 1"
            )
        return out


def fixable_rules() -> frozenset[str]:
    from apc_tools.boundary.rules import RULES

    return frozenset(r.id for r in RULES if r.fix)


def ignore_line(path: str) -> tuple[str, str]:
    """(the .gitignore that should hold ``path``, the anchored line that ignores exactly it)."""
    cut = path.find("/" + APC)
    if path.startswith(APC):
        folder, rest = APC, path[len(APC) :]
    elif cut >= 0:
        folder, rest = path[: cut + 1 + len(APC)], path[cut + 1 + len(APC) :]
    else:
        folder, rest = "", path
    return folder + ".gitignore", "/" + ignores.escape(rest)


def _append(root: Path, rel: str, lines: list[str]) -> str | None:
    """Append ``lines`` (those not already there) to the .gitignore ``rel``; why not, or None."""
    target = root / rel
    if target.is_symlink() or (target.exists() and not target.is_file()):
        return f"{rel}: not a regular file (a symlink?): add the lines by hand: {', '.join(lines)}"
    if not target.parent.is_dir() or not files.folder_inside(root, target):
        return f"{rel}: its folder is missing or outside the repository: not written"
    try:
        old = target.read_bytes() if target.exists() else b""
    except OSError as exc:
        return (
            f"{rel}: cannot read: {exc.strerror or exc}; add the lines by hand: {', '.join(lines)}"
        )
    have = {line.removesuffix("\r") for line in old.decode("utf-8", "surrogateescape").split("\n")}
    new = [line for line in lines if line not in have]
    if not new:
        return None
    eol = b"\r\n" if b"\r\n" in old else b"\n"
    lead = eol if old and not old.endswith(b"\n") else b""
    data = old + lead + eol.join(os.fsencode(line) for line in new) + eol
    mode = target.stat().st_mode & 0o7777 if target.exists() else 0o644
    try:
        handle, temp = tempfile.mkstemp(dir=target.parent, prefix=".apc-fix-", suffix=".tmp")
    except OSError as exc:
        return (
            f"{rel}: cannot write: {exc.strerror or exc}; add the lines by hand: {', '.join(lines)}"
        )
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temp, mode)
        os.replace(temp, target)
    except OSError as exc:
        return f"{rel}: cannot write: {exc.strerror or exc}"
    finally:
        if os.path.lexists(temp):
            os.unlink(temp)
    return None


def fix_staged(cwd: Path, result: Result) -> BoundaryFix:
    """Untrack every file of ``result`` (a ``--staged`` scan) that a fixable rule reports, and
    ignore it. Raises :class:`~apc_tools.findings.CannotRun` outside a repository."""
    repo = gitio.open_repo(cwd)
    wanted = fixable_rules()
    rules: dict[str, list[str]] = {}
    for finding in result.findings:
        if finding.rule in wanted and finding.commit is None:
            rules.setdefault(finding.path, [])
            if finding.rule not in rules[finding.path]:
                rules[finding.path].append(finding.rule)
    outcome = BoundaryFix()
    if not rules:
        return outcome
    untracked = sorted(rules)
    try:
        gitio.untrack(repo, untracked)
    except gitio.GitError as exc:
        outcome.problems.append(
            f"git rm --cached failed (git said: {exc}); nothing was untracked and no file was "
            "changed: if another git command is running (a .git/index.lock file), let it end "
            "and run the fix again"
        )
        return outcome
    homes = paths.home_folders(untracked)
    chosen = {path: _lines(path, homes) for path in untracked}
    by_file: dict[str, list[str]] = {}
    for gitignore, chosen_lines in chosen.values():
        have = by_file.setdefault(gitignore, [])
        have += [line for line in chosen_lines if line not in have]
    failed: set[str] = set()
    for gitignore, lines in by_file.items():
        problem = _append(repo.root, gitignore, lines)
        if problem:
            outcome.problems.append(problem)
            failed.add(gitignore)
    # a tool's pattern must ignore the file it is written for (a later `!` line, a name the
    # pattern does not spell): a file it misses gets its exact line too
    patterned = [p for p in untracked if chosen[p][1] != (ignore_line(p)[1],)]
    patterned = [p for p in patterned if chosen[p][0] not in failed]
    missed = sorted(set(patterned) - gitio.ignored_paths(repo.root, patterned))
    for path in missed:
        gitignore, line = ignore_line(path)
        chosen[path] = (gitignore, (line,))
        problem = _append(repo.root, gitignore, [line])
        if problem:
            outcome.problems.append(problem)
            failed.add(gitignore)
    for path in sorted(set(missed) - gitio.ignored_paths(repo.root, missed)):
        outcome.problems.append(
            f"{path}: still not ignored (a deeper .gitignore re-includes it: `git check-ignore "
            "-v --no-index` names the line): the next `git add` takes it again"
        )
    for path in untracked:
        gitignore, written = chosen[path]
        line = written[0]
        outcome.untracked.append(
            Untracked(
                path,
                tuple(rules[path]),
                "" if gitignore in failed else gitignore,
                line,
                gitio.ever_committed(repo, path),
            )
        )
    return outcome


def _lines(path: str, homes: Mapping[str, HomeFolder]) -> tuple[str, tuple[str, ...]]:
    """(the .gitignore, its lines) for ``path``: the tool's pattern outside ``.apc/``
    (:func:`.ignores.patterns`), else the exact line (:func:`ignore_line`)."""
    gitignore, line = ignore_line(path)
    if gitignore == ".gitignore":
        found = ignores.patterns(path, homes)
        if found:
            return gitignore, found
    return gitignore, (line,)
