"""Discovery: which files are contract files, of what kind, and which project each belongs to.

A project root is a folder holding ``.apc/`` (APC-NOTES: the nearest ancestor with
``.apc/project.json``); the scanned folder itself is a root too, so a repository with only
``AGENTS.md`` (or only ``.claude/``/``.cursor/`` files) is still validated. Inside a git work tree
the file list comes from git (tracked plus untracked files that are not ignored); elsewhere from
a walk that skips VCS and dependency folders.
"""

from __future__ import annotations

import json
import os
import posixpath
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from apc_tools.contract.gemini_files import EXTENSION_MANIFEST, gemini_kinds
from apc_tools.contract.gemini_files import decides_kinds as gemini_decides_kinds

if TYPE_CHECKING:  # pragma: no cover - detect is loaded when a secret scan runs
    from apc_tools.core import detect
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
    {
        "agents-md",
        "agent",
        "claude-agent",
        "memory",
        "skill",
        "skill-flat",
        "rule",
        "plan",
        "copilot-scoped",
        "claude-command",
        "copilot-prompt",
        "copilot-agent",
        "copilot-chatmode",
    }
)
# Instruction files whose readers take the whole text (no frontmatter): never parsed as YAML.
INSTRUCTION_FILES = {"CLAUDE.md": "claude-md", "GEMINI.md": "gemini-md"}
JSON_KINDS = frozenset(
    {
        "project",
        "mcps",
        "gemini-extension",
        "claude-settings",
        "claude-mcp",
        "cursor-mcp",
        "plugin-manifest",
        "plugin-marketplace",
        "plugin-hooks",
    }
)
# JSON with comments and trailing commas (VS Code's reading): parsed with them blanked out
JSONC_KINDS = frozenset({"vscode-mcp"})
# Parsed by their checks (TOML): no document positions
TOML_KINDS = frozenset({"codex-config"})


# Every kind of file `apc validate` recognises, and the tool whose reading decides the severity
# of its findings (docs/validate.md has one row per kind; a test holds the two together).
KINDS = {
    "agents-md": "AGENTS.md (and Codex's AGENTS.override.md): Codex, Copilot, Cursor and other "
    "agents (and the APC spec); the root one also Claude Code 2.1.332 where there is no CLAUDE.md",
    "claude-md": "CLAUDE.md: Claude Code",
    "gemini-md": "GEMINI.md: Gemini CLI",
    "copilot-instructions": ".github/copilot-instructions.md: GitHub Copilot",
    "copilot-scoped": ".github/instructions/**/*.instructions.md: GitHub Copilot",
    "copilot-prompt": ".github/prompts/**/*.prompt.md: VS Code Copilot (its prompt-file parser)",
    "copilot-agent": ".github/agents/*.md (*.agent.md): VS Code Copilot, GitHub Copilot",
    "copilot-chatmode": ".github/chatmodes/**/*.chatmode.md: VS Code Copilot (older agents)",
    "project": ".apc/project.json: the APC spec (APX)",
    "mcps": ".apc/mcps.json: MCP clients (APX)",
    "apc-gitignore": ".apc/.gitignore: git",
    "memory": ".apc/memory.md, .apc/agents/<slug>/memory.md: the APC spec (APX)",
    "agent": ".apc/agents/<slug>.md: the APC spec (APX)",
    "skill": "SKILL.md: the Agent Skills readers (Claude Code, Codex, Gemini CLI; skills-ref)",
    "skill-reference": "SKILL.md below another skill's folder: a reference file, not checked",
    "skill-flat": ".apc/skills/<name>.md: the APC spec (APX)",
    "rule": ".apc/rules/*.md|.mdc, .cursor/rules/**/*.mdc: Cursor (and APX)",
    "plan": ".apc/plans/*.md: the APC spec (APX)",
    "claude-agent": ".claude/agents/**/*.md, a plugin's agents/*.md: Claude Code",
    "claude-command": ".claude/commands/**/*.md, a plugin's commands/**/*.md: Claude Code",
    "gemini-extension": "gemini-extension.json: Gemini CLI",
    "gemini-command": ".gemini/commands/**/*.toml, an extension's commands/**/*.toml: Gemini CLI",
    "claude-settings": ".claude/settings.json, .claude/settings.local.json: Claude Code",
    "claude-mcp": ".mcp.json: Claude Code",
    "cursor-mcp": ".cursor/mcp.json: Cursor (its documented format)",
    "vscode-mcp": ".vscode/mcp.json: VS Code (its documented format)",
    "codex-config": ".codex/config.toml: Codex",
    "plugin-manifest": ".claude-plugin/plugin.json (a Claude Code plugin's manifest): Claude Code",
    "plugin-marketplace": ".claude-plugin/marketplace.json: Claude Code (`plugin marketplace add`)",
    "plugin-hooks": "hooks/hooks.json of a Claude Code plugin: Claude Code",
}

LOOKS_FOR = (
    "AGENTS.md, AGENTS.override.md, CLAUDE.md, GEMINI.md, SKILL.md, .apc/ (project.json, "
    "mcps.json, .gitignore, memory.md, agents/, skills/, rules/, plans/), .claude/agents/*.md, "
    ".claude/commands/*.md, .cursor/rules/*.mdc, .github/copilot-instructions.md, "
    ".github/instructions/*.instructions.md, .github/prompts/*.prompt.md, .github/agents/*.md, "
    ".github/chatmodes/*.chatmode.md, .gemini/commands/*.toml, gemini-extension.json, "
    ".claude/settings*.json, .mcp.json, .cursor/mcp.json, .vscode/mcp.json, .codex/config.toml, "
    ".claude-plugin/plugin.json and marketplace.json (and a Claude Code plugin's agents, "
    "commands and hooks/hooks.json, a Gemini CLI extension's commands/ and context files)"
)


# Names a contract file can have besides ``*.md`` and ``*.mdc`` (classify's first question).
_OTHER_NAMES = frozenset(
    {
        "project.json",
        "mcps.json",
        ".gitignore",
        EXTENSION_MANIFEST,
        "settings.json",
        "settings.local.json",
        ".mcp.json",
        "mcp.json",
        "config.toml",
        "plugin.json",
        "marketplace.json",
    }
)
# Agent tools' settings and MCP files: (folder, name) -> kind (``.mcp.json`` in any folder)
_TOOL_FILES = {
    (".claude", "settings.json"): "claude-settings",
    (".claude", "settings.local.json"): "claude-settings",
    (".cursor", "mcp.json"): "cursor-mcp",
    (".vscode", "mcp.json"): "vscode-mcp",
    (".codex", "config.toml"): "codex-config",
}


# The folders one of which is among the parents of every kind :func:`kind_of_parts` finds by
# its place (after the kinds found by name alone): most Markdown files of a tree are under none.
_TOOL_FOLDERS = frozenset(
    {".github", ".claude", ".apc", ".cursor", ".gemini", ".claude-plugin", ".vscode", ".codex"}
)


def classify(rel: str) -> str | None:
    """The kind of contract file at the POSIX path ``rel`` (relative to its project), or None."""
    name = rel[rel.rfind("/") + 1 :]
    # (an empty or ``.`` last part means the name is an earlier one: ``a/b/``, ``a/.``)
    if (
        not name.endswith((".md", ".mdc", ".toml"))
        and name not in _OTHER_NAMES
        and name not in ("", ".")
    ):
        return None
    parts = tuple(rel.split("/"))
    if "" in parts or "." in parts:
        parts = tuple(p for p in parts if p not in ("", "."))
    return kind_of_parts(parts)


def kind_of_parts(parts: tuple[str, ...]) -> str | None:
    """:func:`classify` of a path given as its parts (none empty or ``.``; at least one)."""
    name = parts[-1]
    parents = parts[:-1]
    if name in ("AGENTS.md", "AGENTS.override.md"):  # Codex reads the override instead
        return "agents-md"
    if name == "SKILL.md":
        return "skill"
    if not name.endswith((".md", ".mdc")):
        if name == ".mcp.json":
            return "claude-mcp"
        tool_file = _TOOL_FILES.get((parents[-1], name)) if parents else None
        if tool_file is not None:
            return tool_file
    if name in INSTRUCTION_FILES:
        return INSTRUCTION_FILES[name]
    if name == EXTENSION_MANIFEST:
        return "gemini-extension"
    if _TOOL_FOLDERS.isdisjoint(parents):  # every kind below lives under one of them
        return None
    if name.endswith(".toml"):
        return "gemini-command" if _under(parents, (".gemini", "commands")) else None
    if parents[-1:] == (".github",) and name == "copilot-instructions.md":
        return "copilot-instructions"
    if _under(parents, (".github", "instructions")) and name.endswith(".instructions.md"):
        return "copilot-scoped"
    if _under(parents, (".claude", "commands")) and name.endswith(".md"):
        return "claude-command"
    if _under(parents, (".github", "prompts")) and name.endswith(".prompt.md"):
        return "copilot-prompt"
    if parents[-2:] == (".github", "agents") and name.endswith(".md"):
        return "copilot-agent"  # VS Code: any .md directly in .github/agents/ is an agent
    if _under(parents, (".github", "chatmodes")) and name.endswith(".chatmode.md"):
        return "copilot-chatmode"
    if parents[-1:] == (".claude-plugin",) and name in _PLUGIN_FILES:
        return _PLUGIN_FILES[name]
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


_PLUGIN_FILES = {"plugin.json": "plugin-manifest", "marketplace.json": "plugin-marketplace"}


def kinds_of(
    rels: Iterable[str],
    read: Callable[[str], str | None] | None = None,
    include: Sequence[tuple[str, str]] = (),
) -> dict[str, str]:
    """The kind of each contract file among ``rels`` (files of one project).

    ``include`` (the policy's ``include:``, glob -> kind): a file no rule of apc recognises
    takes the kind of the first glob that matches it (a catalog kept outside its tool's folder).

    A ``SKILL.md`` below another skill's folder is a reference file of that skill (a document
    the parent links to), not a skill: kind ``skill-reference``, read but not checked as a skill.
    ``read`` gives the text of a file of the project (for plugin marketplaces), or None.
    """
    rels = list(rels)
    if read is not None:  # each deciding file read once, however many passes ask for it
        read = _once(read)
    kinds = {rel: kind for rel in rels if (kind := classify(rel)) is not None}
    kinds.update(plugin_kinds(rels, kinds, read))
    kinds.update(gemini_kinds(rels, kinds, read))
    if include:
        from apc_tools.core.globs import glob_match

        for rel in rels:
            if rel not in kinds:
                kind = next((k for g, k in include if glob_match(g, rel)), None)
                if kind is not None:
                    kinds[rel] = kind
    skills = [rel for rel, kind in kinds.items() if kind == "skill"]
    if not all(_plain(rel) for rel in skills):
        skill_dirs = {PurePosixPath(r).parent for r in skills}
        skill_dirs.discard(PurePosixPath("."))  # a SKILL.md at the root does not own the tree
        for rel in skills:
            if any(p in skill_dirs for p in PurePosixPath(rel).parent.parents):
                kinds[rel] = "skill-reference"
        return kinds
    # The same on plain paths (no empty or ``.`` part), as strings: a skill's folder is what
    # comes before its last ``/``, and the folders above it are the cuts at the ``/`` before.
    folders = {rel[: max(rel.rfind("/"), 0)] for rel in skills}
    folders.discard("")
    for rel in skills:
        folder = rel[: max(rel.rfind("/"), 0)]
        cut = folder.rfind("/")
        while cut > 0:
            if folder[:cut] in folders:
                kinds[rel] = "skill-reference"
                break
            cut = folder.rfind("/", 0, cut)
    return kinds


def _once(read: Callable[[str], str | None]) -> Callable[[str], str | None]:
    texts: dict[str, str | None] = {}

    def once(rel: str) -> str | None:
        if rel not in texts:
            texts[rel] = read(rel)
        return texts[rel]

    return once


def _plain(rel: str) -> bool:
    """``rel`` splits at ``/`` into non-empty parts, none of them ``.``."""
    return not (
        rel.startswith(("/", "./"))
        or rel.endswith(("/", "/."))
        or "//" in rel
        or "/./" in rel
        or rel in ("", ".")
    )


PLUGIN_MANIFEST = ".claude-plugin/plugin.json"
MARKETPLACE = ".claude-plugin/marketplace.json"
PLUGIN_HOOKS = "hooks/hooks.json"
PLUGIN_FOLDERS = {"agents": "claude-agent", "commands": "claude-command"}


def decides_kinds(rel: str) -> bool:
    """``rel`` is a file whose text decides the kinds of other files (a plugin's manifest lists
    its agents and commands, a marketplace names plugin folders, a Gemini CLI extension manifest
    or settings file names context files)."""
    if any(rel == name or rel.endswith("/" + name) for name in (PLUGIN_MANIFEST, MARKETPLACE)):
        return True
    return gemini_decides_kinds(rel)


def _json_object(read: Callable[[str], str | None], rel: str) -> dict[str, object] | None:
    text = read(rel)
    return _decoded_object(text) if text else None


@lru_cache(maxsize=8)  # a few texts (each at most 1 MiB) in a long-lived process
def _decoded_object(text: str) -> dict[str, object] | None:
    """``text`` decoded when it is a JSON object (a marketplace is read by two passes of
    :func:`kinds_of`: decoded once). Shared between callers: read it, never change it."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return None  # not JSON (or nested past the parser): its own kind reports it
    return data if isinstance(data, dict) else None


def marketplace_plugins(
    rels: Iterable[str], read: Callable[[str], str | None]
) -> Iterator[tuple[str, str, int, dict[str, object]]]:
    """(marketplace rel, plugin root, index, entry) of each ``plugins`` entry of every
    ``.claude-plugin/marketplace.json`` among ``rels`` whose ``source`` is a relative path
    (with ``metadata.pluginRoot``) inside the tree. Each root ends with ``/`` (or is empty)."""
    for rel in rels:
        if not (rel == MARKETPLACE or rel.endswith("/" + MARKETPLACE)):
            continue
        data = _json_object(read, rel)
        if data is None or not isinstance(data.get("plugins"), list):
            continue
        base = rel[: -len(MARKETPLACE)]
        meta = data.get("metadata")
        prefix = meta.get("pluginRoot") if isinstance(meta, dict) else None
        plugins = data["plugins"]
        assert isinstance(plugins, list)
        for index, plugin in enumerate(plugins):
            root = plugin_source_root(base, plugin, prefix)
            if root is not None and isinstance(plugin, dict):
                yield rel, root, index, plugin


def plugin_source_root(base: str, plugin: object, prefix: object) -> str | None:
    """The folder (relative to the tree, ending with ``/`` or empty) a marketplace entry's
    relative ``source`` names, from the marketplace's folder ``base``; None for another source
    (a repository, a URL) or a path that leaves the tree."""
    source = plugin.get("source") if isinstance(plugin, dict) else None
    if not isinstance(source, str) or "://" in source or source.startswith(("/", "~")):
        return None
    if isinstance(prefix, str) and not source.startswith(("./", "../")):
        source = f"{prefix.rstrip('/')}/{source}"
    folder = posixpath.normpath(posixpath.join(base or ".", source))
    if folder == "." or not folder.startswith(".."):
        return "" if folder == "." else folder + "/"
    return None


def marketplace_roots(rels: Iterable[str], read: Callable[[str], str | None]) -> set[str]:
    """Plugin folders a ``.claude-plugin/marketplace.json`` names by a relative ``source`` (with
    ``metadata.pluginRoot``): Claude Code loads them as plugins even without a
    ``.claude-plugin/plugin.json`` of their own. Each root ends with ``/`` (or is empty)."""
    return {root for _, root, _, _ in marketplace_plugins(rels, read)}


def listed_paths(value: object) -> list[str] | None:
    """The paths a manifest's ``agents`` or ``commands`` value lists (a string or a list of
    strings), normalised relative to the plugin root (no ``./``, no trailing ``/``); None when
    the value is absent or of another shape (the plugin's default folder then applies)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        return None
    out = []
    for item in items:
        assert isinstance(item, str)
        norm = posixpath.normpath(item.strip() or ".")
        out.append("" if norm == "." else norm)
    return out


@dataclass(frozen=True)
class PluginLists:
    """What a plugin lists: ``paths`` per key (``agents``, ``commands``) and whether they
    ``replace`` the default folder (a manifest's lists do; a marketplace entry's are loaded in
    addition to ``agents/`` and ``commands/``: Claude Code 2.1.197 and 2.1.332)."""

    paths: Mapping[str, list[str]]
    replace: bool


def plugin_lists(
    rels: Iterable[str], read: Callable[[str], str | None] | None
) -> dict[str, PluginLists]:
    """Plugin root -> the agents and commands its manifest (or, for a plugin without one, its
    marketplace entry) lists."""
    if read is None:
        return {}
    rels = list(rels)
    out: dict[str, PluginLists] = {}
    manifests = {
        rel[: -len(PLUGIN_MANIFEST)]: rel
        for rel in rels
        if rel == PLUGIN_MANIFEST or rel.endswith("/" + PLUGIN_MANIFEST)
    }
    for _, root, _, entry in marketplace_plugins(rels, read):
        lists = {k: v for k in PLUGIN_FOLDERS if (v := listed_paths(entry.get(k))) is not None}
        if lists and root not in manifests:
            out.setdefault(root, PluginLists(lists, replace=False))
    for root, rel in manifests.items():
        data = _json_object(read, rel)
        if data is None:
            continue
        lists = {k: v for k in PLUGIN_FOLDERS if (v := listed_paths(data.get(k))) is not None}
        if lists:
            out[root] = PluginLists(lists, replace=True)
    return out


def _listed(rest: str, paths: list[str]) -> bool:
    return any(p == "" or rest == p or rest.startswith(p + "/") for p in paths)


def plugin_kinds(
    rels: Iterable[str],
    known: Mapping[str, str],
    read: Callable[[str], str | None] | None = None,
) -> dict[str, str]:
    """Claude Code plugins: a folder holding ``.claude-plugin/plugin.json``, or named by a
    ``source`` entry of a ``.claude-plugin/marketplace.json``, has its subagents in
    ``agents/*.md`` and its slash commands in ``commands/**/*.md`` (read as the ones under
    ``.claude/``), or in the files its manifest's ``agents`` / ``commands`` lists name instead
    (anywhere in the plugin, e.g. at its root), and its hooks in ``hooks/hooks.json``."""
    rels = list(rels)
    roots = {
        r[: -len(PLUGIN_MANIFEST)]
        for r in rels
        if r == PLUGIN_MANIFEST or r.endswith("/" + PLUGIN_MANIFEST)
    }
    if read is not None:
        roots |= marketplace_roots(rels, read)
    out: dict[str, str] = {}
    if not roots:
        return out
    lists = plugin_lists(rels, read) if read is not None else {}
    for rel in rels:
        if rel in known:
            continue
        if not rel.endswith(".md"):
            if rel.endswith(PLUGIN_HOOKS) and rel[: -len(PLUGIN_HOOKS)] in roots:
                out[rel] = "plugin-hooks"
            continue
        # The plugin roots holding ``rel`` are among its folders: one lookup per folder (every
        # file x every root was a tenth of a run on a tree with many plugins).
        cut = 0
        while cut >= 0:
            root = rel[:cut]
            if root in roots:
                rest = rel[cut:]
                listing = lists.get(root)
                head, _, tail = rest.partition("/")
                for key, kind in PLUGIN_FOLDERS.items():
                    paths = listing.paths.get(key) if listing else None
                    if paths is not None and _listed(rest, paths):
                        out[rel] = kind
                    elif paths is not None and listing is not None and listing.replace:
                        continue  # the list replaces the folder: an unlisted file loads nowhere
                    elif head == key and tail and (kind == "claude-command" or "/" not in tail):
                        out[rel] = kind
            cut = rel.find("/", cut)
            cut = cut + 1 if cut >= 0 else -1
    return out


def _under(parents: tuple[str, ...], pair: tuple[str, str]) -> bool:
    if pair[0] not in parents:  # the common case, one C-level scan
        return False
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

    @cached_property
    def secret_hits(self) -> list[detect.Hit]:
        """The live-looking secrets in the file (scanned once, shared by the checks and by
        the redaction of messages)."""
        from apc_tools.core import detect

        return detect.find_secrets(self.text)

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
    # agents.imported of each .apc/project.json not among docs (a batch run knows that file by
    # its Outcome, contract.outcome): the agent slugs it declares
    imported_agents: list[str] = field(default_factory=list)
    # What the checks asked the disk beyond the file list, (question, rel) -> answer: the
    # whole-run result of contract.warm is valid only while every answer stays the same.
    probes: dict[tuple[str, str], bool] = field(default_factory=dict)

    def probe(self, question: str, rel: str) -> bool:
        """``rel`` (below the root) ``exists`` (or is a symlink), ``is_file`` or ``is_dir``,
        asked of the disk and recorded in :attr:`probes`."""
        answer = disk_answer(self.root, question, rel)
        self.probes[(question, rel)] = answer
        return answer

    @cached_property
    def folders(self) -> frozenset[str]:
        """Every folder holding a file of ``files`` (POSIX, relative): a set, so that a link
        check is one lookup instead of a scan of every file (links x files was quadratic)."""
        out: set[str] = set()
        for rel in self.files:
            cut = rel.rfind("/")
            while cut > 0 and rel[:cut] not in out:
                out.add(rel[:cut])
                cut = rel.rfind("/", 0, cut)
        return frozenset(out)

    @cached_property
    def files_by_folder(self) -> Mapping[str, tuple[str, ...]]:
        """The files of ``files`` by the folder that holds them ("" for the root), each by its
        name: a folder's files are one lookup instead of a scan of every file."""
        out: dict[str, list[str]] = {}
        for rel in self.files:
            cut = rel.rfind("/")
            out.setdefault(rel[:cut] if cut > 0 else "", []).append(rel[cut + 1 :])
        return {folder: tuple(names) for folder, names in out.items()}

    @property
    def is_apc(self) -> bool:
        return self.probe("is_dir", ".apc")

    def docs_of(self, *kinds: str) -> list[Doc]:
        return [d for d in self.docs if d.kind in kinds]

    def display_path(self, rel: str) -> str:
        return f"{self.display}/{rel}" if self.display else rel


PROBES = ("exists", "is_file", "is_dir")


def disk_answer(root: Path, question: str, rel: str) -> bool:
    """One question of :data:`PROBES` about ``root / rel``; a name the system refuses (a NUL
    byte, too long) or any OSError is False."""
    target = os.path.join(root, rel)  # os.path, not pathlib: one stat, no Path objects
    try:
        if question == "exists":
            return os.path.lexists(target)  # exists, or a symlink (dangling included)
        if question == "is_file":
            return os.path.isfile(target)
        return os.path.isdir(target)
    except (OSError, ValueError):
        return False


def display_root(root: Path, cwd: Path) -> str:
    try:
        rel = os.path.relpath(root, cwd)
    except ValueError:  # other drive on Windows
        return root.as_posix()
    if rel == ".":
        return ""
    shown = PurePosixPath(Path(rel))
    if set(shown.parts) == {".."}:  # an ancestor of cwd (a run from a subfolder): as git shows it
        return shown.as_posix()
    return root.as_posix() if rel.startswith("..") else shown.as_posix()


def walk_files(
    root: Path,
    unlistable: list[str] | None = None,
    links: list[str] | None = None,
    folders: list[str] | None = None,
) -> list[str]:
    """Every file under ``root`` (POSIX, relative), not following symlinked folders. Folders
    that cannot be listed are added to ``unlistable`` (relative), never skipped silently; the
    entries that are symbolic links, to ``links`` (the listing says so without a system call);
    every folder listed, to ``folders`` (as the walk named it: ``root`` joined to it)."""

    def failed(error: OSError) -> None:
        if unlistable is not None and error.filename is not None:
            rel = os.path.relpath(os.fsdecode(error.filename), root)
            unlistable.append("." if rel == "." else rel.replace(os.sep, "/"))

    # os.walk's listing (not following symlinked folders) by os.scandir directly: the entry
    # says whether it is a link without one more lstat per folder, and the relative path is
    # built as it goes (os.walk's absolute folders each made relative were a tenth of a run).
    out: list[str] = []
    stack: list[tuple[str, str]] = [(os.fspath(root), "")]  # (folder, its POSIX prefix)
    while stack:
        folder, base = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as error:
            failed(error)
            continue
        if folders is not None:
            folders.append(folder)
        below: list[tuple[str, str]] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                out.append(base + entry.name)
                if links is not None and _is_link(entry):
                    links.append(base + entry.name)
                continue
            if entry.name in SKIP_DIRS:
                continue
            is_link = _is_link(entry)
            if is_link:  # a symlinked folder is listed as an entry (as git lists it), not entered
                out.append(base + entry.name)
                if links is not None:
                    links.append(base + entry.name)
            else:
                below.append((entry.path, f"{base}{entry.name}/"))
        stack += reversed(below)
    return sorted(out)


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


def _present(path: Path) -> bool:
    """The file exists, or cannot be looked at (kept, so that reading it reports why)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


def list_files(
    root: Path,
    unlistable: list[str] | None = None,
    links: list[str] | None = None,
    folders: list[str] | None = None,
) -> tuple[list[str], frozenset[str] | None]:
    """(files, tracked files): git's list in a work tree, else the walk (tracked None, the
    symbolic links among the files added to ``links``, the folders it listed to ``folders``)."""
    if not maybe_in_git(root):
        return walk_files(root, unlistable, links, folders), None
    from apc_tools.core import git  # (and subprocess) only where a work tree may be

    from_git = git.work_tree_files(root)
    if from_git is not None:
        files, tracked = from_git
        return [f for f in files if _present(root / f)], tracked
    return walk_files(root, unlistable, links, folders), None


# The environment variables that can give git a repository or a work tree a folder's own
# entries do not (git's environment.c); the others (GIT_CEILING_DIRECTORIES only stops the
# search early, GIT_SSL_CAINFO, GIT_CONFIG_* ...) cannot make a folder part of a work tree.
GIT_LOCATORS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_IMPLICIT_WORK_TREE")


def maybe_in_git(folder: Path) -> bool:
    """False only when git cannot find a work tree holding ``folder`` (so asking it is one
    process saved): none of the variables that point git at a repository
    (:data:`GIT_LOCATORS`) is set, and neither ``folder`` nor any folder above holds a ``.git``
    entry or a ``HEAD`` (a repository folder itself, which ``core.worktree`` may tie to a work
    tree), the entries git's discovery looks for."""
    if any(name in os.environ for name in GIT_LOCATORS):
        return True
    try:
        # the folders above as given and as resolved (git walks up the physical path)
        for start in {os.path.abspath(folder), os.path.realpath(folder)}:
            here = start
            while True:
                if os.path.lexists(os.path.join(here, ".git")):
                    return True
                if os.path.lexists(os.path.join(here, "HEAD")):
                    return True
                up = os.path.dirname(here)
                if up == here:
                    break
                here = up
    except (OSError, ValueError):
        return True
    return False


def project_roots(files: Iterable[str]) -> list[str]:
    """Relative roots of the projects inside a scanned tree ("" is the tree itself)."""
    roots = {""}
    for rel in files:
        if ".apc" not in rel:
            continue
        parts = PurePosixPath(rel).parts
        if ".apc" in parts:
            index = parts.index(".apc")
            roots.add("/".join(parts[:index]))
    return sorted(roots, key=lambda r: (-len(PurePosixPath(r).parts) if r else 0, r))


def owner(rel: str, roots: Collection[str]) -> str:
    """The deepest project root containing ``rel``: a lookup per folder above it, so that
    grouping a tree costs files x depth, not files x projects."""
    return next(roots_above(rel, roots if isinstance(roots, (set, frozenset)) else set(roots)))


def roots_above(rel: str, roots: Set[str]) -> Iterator[str]:
    """The project roots holding ``rel``, deepest first, ending with the tree itself ("")."""
    cut = rel.rfind("/")
    while cut > 0:
        if rel[:cut] in roots:
            yield rel[:cut]
        cut = rel.rfind("/", 0, cut)
    yield ""


# Folders where agent tools look for their files: a symlink to a folder there is followed by the
# tool, not by apc.
AGENT_FOLDERS = frozenset({".apc", ".claude", ".cursor", ".agents", ".gemini", ".github", "skills"})


def outside_folder_links(root: Path, files: Iterable[str]) -> list[str]:
    """Entries (relative to ``root``) in an agent folder that are symlinks to a folder outside
    ``root``: the agent tool follows them, apc does not, so their files go unchecked."""
    top = root.resolve()
    found: list[str] = []
    for rel in files:
        if not AGENT_FOLDERS.intersection(rel.split("/")):
            continue
        if not os.path.islink(os.path.join(root, rel)):  # one lstat, no Path objects
            continue
        path = root / rel
        try:
            if not (path.is_symlink() and path.is_dir()):
                continue
            target = path.resolve()
        except (OSError, RuntimeError):  # a loop or an unreadable link
            continue
        if not target.is_relative_to(top):
            found.append(rel)
    return found
