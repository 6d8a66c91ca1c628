"""The ``.gitignore`` pattern of each agent tool's runtime state: what ``apc boundary --staged
--fix`` writes for a leaked file, so the tool's next file is ignored too (not only the one
path that was refused).

One table, :data:`TABLE`, made of three sources in order: the patterns the tools themselves
document or write (:data:`DOCUMENTED`: Aider's ``.aider*``, Claude Code's
``.claude/settings.local.json``, SpecStory's ``.specstory/``), the committed home folders of
agent tools (:data:`apc_tools.boundary.paths.HOME_FOLDERS` and the general rule: the
folder's files ignored, its subfolders and shared configuration re-included), and every row
of the runtime path table (:data:`apc_tools.boundary.paths.TOOL_PATHS`) whose glob a
``.gitignore`` can say. A path that
none of them describes (a session found by its content at an ordinary path) gets the exact,
escaped path as before. :func:`patterns` gives the lines for one path; the fix checks with
``git check-ignore`` that they ignore it, else adds the exact line too.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from apc_tools.boundary import paths
from apc_tools.boundary.paths import EVERY_HOME_SHARES, HomeFolder

_SPECIAL = re.compile(r"([\\*?\[\]!#])")
# A .gitignore line cannot hold a line feed, and git drops a carriage return before one: each
# becomes `?` (any one character but `/`), so a name cannot write a second pattern of its own.
_UNWRITABLE = re.compile(r"[\r\n]")
_WILD = re.compile(r"[*?\[\]]")


@dataclass(frozen=True)
class ToolIgnore:
    """A tool's runtime state as a ``.gitignore`` can name it: the case-folded segments of
    the path from where the state starts (fnmatch globs each), whether they name a folder
    (the state is the files under it), a file, or either (``None``), and where it was learnt."""

    glob: tuple[str, ...]
    folder: bool | None
    tool: str
    source: str = ""


DOCUMENTED: tuple[ToolIgnore, ...] = (
    ToolIgnore(
        (".aider*",),
        None,
        "Aider",
        "aider adds `.aider*` to the repository's .gitignore (aider.chat/docs/git.html)",
    ),
    ToolIgnore(
        (".claude", "settings.local.json"),
        False,
        "Claude Code",
        "Claude Code git-ignores the file it creates (docs.anthropic.com, settings files)",
    ),
    ToolIgnore(
        (".specstory",),
        True,
        "SpecStory",
        "SpecStory's folder of saved sessions and project state (issue 32's pattern)",
    ),
)


def escape(text: str) -> str:
    """``text`` as a literal in a ``.gitignore`` line (glob characters escaped, a line end
    made ``?``, a trailing blank kept)."""
    escaped = _UNWRITABLE.sub("?", _SPECIAL.sub(r"\\\1", text))
    if escaped.endswith(" "):
        escaped = escaped[:-1] + "\\ "
    return escaped


@cache
def table() -> tuple[ToolIgnore, ...]:
    """:data:`DOCUMENTED`, then every runtime path row a ``.gitignore`` can say: its glob
    ``**/a/b/**`` (a folder) or ``**/a/b`` (a file) without another ``**`` or braces."""
    out = list(DOCUMENTED)
    for row in paths.TOOL_PATHS:
        if not row.glob.startswith("**/") or "{" in row.glob:
            continue
        rest = row.glob[3:]
        folder = rest.endswith("/**")
        segments = tuple(rest.removesuffix("/**").split("/"))
        if "**" in segments or any(not s for s in segments):
            continue
        out.append(ToolIgnore(segments, folder, row.tool, row.seen))
    return tuple(out)


def patterns(path: str, homes: Mapping[str, HomeFolder]) -> tuple[str, ...]:
    """The lines of the root ``.gitignore`` that ignore the tool's runtime state ``path``
    (repository-relative) belongs to; ``homes``: the committed home folders of the run
    (:func:`apc_tools.boundary.paths.home_folders`). Empty: no tool's pattern is known."""
    parts = path.split("/")
    low = [p.casefold() for p in parts]
    for row in DOCUMENTED:
        found = _line(row, parts, low)
        if found:
            return (found,)
    home = _home(path.casefold(), homes)
    if home is not None:
        prefix, tool_home = home
        folder = "/" + "/".join(escape(p) for p in parts[: prefix.count("/")]) + "/"
        shared = (*EVERY_HOME_SHARES, *tool_home.shared)
        # git never looks inside an ignored folder: the folders are re-included, their files
        # stay ignored unless shared
        return (folder + "**", f"!{folder}**/", *(f"!{folder}{glob}" for glob in shared))
    for row in table()[len(DOCUMENTED) :]:
        found = _line(row, parts, low)
        if found:
            return (found,)
    return ()


def _home(low: str, homes: Mapping[str, HomeFolder]) -> tuple[str, HomeFolder] | None:
    for prefix, row in homes.items():
        if low.startswith(prefix):
            return prefix, row
    return None


def _line(row: ToolIgnore, parts: list[str], low: list[str]) -> str | None:
    """The pattern ``row`` gives for the path of ``parts`` (``low``: case-folded), or None."""
    size = len(row.glob)
    for at in range(len(parts) - size + 1):
        end = at + size
        if row.folder is True and end >= len(parts):
            continue
        if row.folder is False and end != len(parts):
            continue
        if not all(fnmatch.fnmatchcase(low[at + i], g) for i, g in enumerate(row.glob)):
            continue
        # a literal segment as the path spells it (git matches case as it is), a glob as is
        words = [g if _WILD.search(g) else escape(parts[at + i]) for i, g in enumerate(row.glob)]
        text = "/".join(words) + ("/" if row.folder else "")
        if size == 1:  # one segment: git matches it at any depth
            return text
        if at == 0:  # a slash inside: relative to the root .gitignore
            return text
        return "/" + "/".join(escape(p) for p in parts[:at]) + "/" + text
    return None
