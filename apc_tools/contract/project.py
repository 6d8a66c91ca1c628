"""Discovery: which files are contract files, of what kind, and which project each belongs to.

A project root is a folder holding ``.apc/`` (APC-NOTES: the nearest ancestor with
``.apc/project.json``); the scanned folder itself is a root too, so a repository with only
``AGENTS.md`` (or only ``.claude/``/``.cursor/`` files) is still validated. Inside a git work tree
the file list comes from git (tracked plus untracked files that are not ignored); elsewhere from
a walk that skips VCS and dependency folders.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from apc_tools.core import git
from apc_tools.core.parse import Located

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        ".venv",
        "venv",
        "__pycache__",
        ".tox",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
    }
)

MARKDOWN_KINDS = frozenset(
    {"agents-md", "agent", "claude-agent", "memory", "skill", "skill-flat", "rule", "plan"}
)
JSON_KINDS = frozenset({"project", "mcps"})


def classify(rel: str) -> str | None:
    """The kind of contract file at the POSIX path ``rel`` (relative to its project), or None."""
    parts = PurePosixPath(rel).parts
    name = parts[-1]
    parents = parts[:-1]
    if name == "AGENTS.md":
        return "agents-md"
    if name == "SKILL.md":
        return "skill"
    if parents[-1:] == (".apc",):
        return {
            "project.json": "project",
            "mcps.json": "mcps",
            ".gitignore": "apc-gitignore",
            "memory.md": "memory",
        }.get(name)
    if parents[-2:] == (".apc", "agents") and name.endswith(".md"):
        return "agent"
    if parents[-3:-1] == (".apc", "agents") and name == "memory.md":
        return "memory"
    if parents[-2:] == (".apc", "skills") and name.endswith(".md"):
        return "skill-flat"
    if parents[-2:] == (".apc", "rules") and name.endswith((".md", ".mdc")):
        return "rule"
    if parents[-2:] == (".apc", "plans") and name.endswith(".md"):
        return "plan"
    if _under(parents, (".claude", "agents")) and name.endswith(".md"):
        return "claude-agent"
    if _under(parents, (".cursor", "rules")) and name.endswith(".mdc"):
        return "rule"
    return None


def _under(parents: tuple[str, ...], pair: tuple[str, str]) -> bool:
    return any(parents[i : i + 2] == pair for i in range(len(parents) - 1))


@dataclass
class Doc:
    """One contract file, read and parsed (``meta``: frontmatter or JSON, with positions)."""

    kind: str
    path: str  # display path, as findings show it
    rel: str  # POSIX path relative to the project root
    text: str
    sha256: str
    meta: Located | None = None
    has_frontmatter: bool = False
    body: str = ""
    body_line: int = 1

    @property
    def data(self) -> Mapping[str, object]:
        """The frontmatter/JSON mapping, or an empty one when absent or not a mapping."""
        value = self.meta.data if self.meta is not None else None
        return value if isinstance(value, dict) else {}

    @property
    def stem(self) -> str:
        return PurePosixPath(self.rel).stem


@dataclass
class Project:
    """A project root with its contract files and the file list used by cross-file checks."""

    root: Path
    display: str  # how the root is shown in findings ("" for the current folder)
    profile: str = "default"
    docs: list[Doc] = field(default_factory=list)
    files: frozenset[str] = frozenset()  # every file under the root (POSIX, relative)
    tracked: frozenset[str] | None = None  # git-tracked files, when in a git work tree
    unread: list[str] = field(default_factory=list)  # contract files that could not be read

    @property
    def is_apc(self) -> bool:
        return (self.root / ".apc").is_dir()

    def docs_of(self, *kinds: str) -> list[Doc]:
        return [d for d in self.docs if d.kind in kinds]

    def display_path(self, rel: str) -> str:
        return f"{self.display}/{rel}" if self.display else rel


def display_root(root: Path, cwd: Path) -> str:
    try:
        rel = os.path.relpath(root, cwd)
    except ValueError:  # other drive on Windows
        return root.as_posix()
    if rel == ".":
        return ""
    return root.as_posix() if rel.startswith("..") else PurePosixPath(Path(rel)).as_posix()


def walk_files(root: Path) -> list[str]:
    """Every file under ``root`` (POSIX, relative), not following symlinked folders."""
    out: list[str] = []
    for folder, dirs, names in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        base = os.path.relpath(folder, root)
        for name in names:
            rel = name if base == "." else f"{base}/{name}"
            out.append(rel.replace(os.sep, "/"))
    return sorted(out)


def list_files(root: Path) -> tuple[list[str], frozenset[str] | None]:
    from_git = git.work_tree_files(root)
    if from_git is not None:
        files, tracked = from_git
        return [f for f in files if (root / f).exists() or (root / f).is_symlink()], tracked
    return walk_files(root), None


def project_roots(files: Iterable[str]) -> list[str]:
    """Relative roots of the projects inside a scanned tree ("" is the tree itself)."""
    roots = {""}
    for rel in files:
        parts = PurePosixPath(rel).parts
        if ".apc" in parts:
            index = parts.index(".apc")
            roots.add("/".join(parts[:index]))
    return sorted(roots, key=lambda r: (-len(PurePosixPath(r).parts) if r else 0, r))


def owner(rel: str, roots: list[str]) -> str:
    """The deepest project root containing ``rel``."""
    best = ""
    for root in roots:
        if root and (rel.startswith(root + "/")) and len(root) > len(best):
            best = root
    return best
