"""`apc init`: scaffold a minimal valid APC contract, never touching what is already there.

Every file is created exclusively (``O_CREAT | O_EXCL``, which never follows a symlink at the
name), inside folders opened without following symlinks, so an existing file, a symlink or a
dangling symlink is left alone and reported. Nothing outside the new files is edited: the lines a
root ``.gitignore`` needs for the agent tools found, and the files worth migrating into the
contract, are returned for the command line to print. The one exception is the copy of the policy
schema that editors read (:data:`SCHEMA_COPY`): a copy apc wrote (its ``$id`` is the policy
schema's) is replaced when the installed apc-tools has a different schema, so it follows the
installed version.

Without a PATH, ``apc init`` creates at the top level of the git repository around the current
folder (:func:`default_root`): the folder whose policy the hooks read.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from apc_tools.core import git, gitignore
from apc_tools.core.schemas import schema_text
from apc_tools.findings import CannotRun

APC_SPEC_VERSION = "0.1.0"
PROJECT_VERSION = "0.1.0"

SCHEMA_COPY = ".apc-tools.schema.json"
"""The policy schema beside the policy, for the ``# yaml-language-server: $schema=`` line of
``.apc-tools.yaml``: a path relative to that file, which the YAML language server (VS Code's YAML
extension, Neovim, Helix) resolves on disk, with no network, in every clone."""

# What the spec's safe defaults leave out but an agent's private working state needs.
EXTRA_IGNORES = ("agents/*/auto-memory.md", "plans/scratch/", "migrate.md")

# Files other agent tools read, and where their content belongs in the contract.
MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("CLAUDE.md", "Claude Code instructions: move shared guidance into AGENTS.md"),
    ("GEMINI.md", "Gemini CLI instructions: move shared guidance into AGENTS.md"),
    (".cursorrules", "legacy Cursor rules: move them into AGENTS.md or .apc/rules/"),
    (".cursor/rules", "Cursor rules: copy them to .apc/rules/ (same .mdc format)"),
    (".claude/agents", "Claude Code subagents: copy them to .apc/agents/<slug>.md"),
    (".claude/skills", "Claude Code skills: copy each folder to .apc/skills/<name>/ (SKILL.md)"),
    (".agents/skills", "Agent Skills: copy each folder to .apc/skills/<name>/ (SKILL.md)"),
    (
        ".github/copilot-instructions.md",
        "GitHub Copilot instructions: move shared guidance into AGENTS.md",
    ),
    (".windsurfrules", "Windsurf rules: move them into AGENTS.md or .apc/rules/"),
    (".clinerules", "Cline rules: move them into AGENTS.md or .apc/rules/"),
    ("opencode.json", "OpenCode config: agents to .apc/agents/, MCP servers to .apc/mcps.json"),
)

# Agent tools found by a file or folder they leave at the root -> the root .gitignore lines that
# keep their runtime state out of git.
TOOL_IGNORES: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("Aider", (".aider.conf.yml", ".aider.chat.history.md", ".aider.input.history"), (".aider*",)),
    (
        "Claude Code",
        (".claude", "CLAUDE.md", "CLAUDE.local.md"),
        (".claude/settings.local.json", "CLAUDE.local.md"),
    ),
    ("SpecStory", (".specstory",), (".specstory/history/",)),
)


@dataclass(frozen=True)
class InitReport:
    """What ``apc init`` did: paths relative to ``root``, POSIX."""

    root: Path
    created: tuple[str, ...]
    left_alone: tuple[tuple[str, str], ...]  # (path, why)
    migrations: tuple[tuple[str, str], ...]  # (path, what to do)
    gitignore_lines: tuple[tuple[str, str], ...]  # (line, agent tool)
    updated: tuple[str, ...] = ()  # apc's own generated files brought up to date
    repository: Path | None = None  # the git top level above ``root``, when root is below it
    # the policy's ``include:`` for catalog files no kind takes (glob, kind, how many files);
    # written into a policy init creates, else shown to add
    include: tuple[tuple[str, str, int], ...] = ()
    include_written: bool = False


def default_root(cwd: Path) -> Path:
    """Where ``apc init`` without PATH creates: the top level of the git work tree around
    ``cwd`` (the policy the hooks and ``apc boundary`` read is there), else ``cwd``."""
    top = git.toplevel(cwd)
    return top if top is not None else cwd


def init_project(root: Path, *, now: datetime | None = None) -> InitReport:
    """Create what is missing of a minimal contract at ``root`` (made if missing)."""
    _ensure_folder(root)
    created: list[str] = []
    left: list[tuple[str, str]] = []
    updated: list[str] = []
    include = tuple(include_proposal(root))
    root_fd = os.open(root, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        apc_fd = _apc_folder(root_fd, created, left)
        files = _contract_files(root, now or datetime.now(UTC), include)
        for rel, text in files:
            folder_fd = apc_fd if rel.startswith(".apc/") else root_fd
            if folder_fd is None:
                left.append((rel, ".apc is not a real folder: nothing written inside it"))
                continue
            why = _create(folder_fd, rel.removeprefix(".apc/"), text)
            if why is None:
                created.append(rel)
            elif rel == SCHEMA_COPY and why == "exists" and _refresh_schema(root_fd, text):
                updated.append(rel)
            else:
                left.append((rel, why))
        if apc_fd is not None:
            os.close(apc_fd)
    finally:
        os.close(root_fd)
    return InitReport(
        root=root,
        created=tuple(created),
        left_alone=tuple(left),
        migrations=tuple(migration_candidates(root)),
        gitignore_lines=tuple(root_gitignore_lines(root)),
        updated=tuple(updated),
        repository=_repository_above(root),
        include=include,
        include_written=".apc-tools.yaml" in created,
    )


def _repository_above(root: Path) -> Path | None:
    top = git.toplevel(root)
    if top is None:
        return None
    try:
        same = top.resolve() == root.resolve()
    except OSError:
        return None
    return None if same else top


def _refresh_schema(root_fd: int, text: str) -> bool:
    """Replace :data:`SCHEMA_COPY` with ``text`` when it is a regular file apc wrote (a JSON
    object whose ``$id`` is a version of the policy schema's) and differs; True when replaced.
    Anything else there (the user's own file, a symlink, unreadable) is left alone."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(SCHEMA_COPY, flags, dir_fd=root_fd)
    except OSError:
        return False
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or os.fstat(fd).st_size > 1 << 20:
            return False
        with os.fdopen(os.dup(fd), "rb") as existing:
            old = existing.read()
    finally:
        os.close(fd)
    if old == text.encode("utf-8") or not _is_policy_schema(old):
        return False
    temp = f"{SCHEMA_COPY}.{os.getpid()}.tmp"
    if _create(root_fd, temp, text) is not None:
        return False
    try:
        os.replace(temp, SCHEMA_COPY, src_dir_fd=root_fd, dst_dir_fd=root_fd)
    except OSError:
        os.unlink(temp, dir_fd=root_fd)
        return False
    return True


def _is_policy_schema(data: bytes) -> bool:
    try:
        value = json.loads(data)
    except ValueError:
        return False
    ident = value.get("$id") if isinstance(value, dict) else None
    prefix, _, rest = str(ident).partition("/schemas/v")
    return prefix == "https://apc-tools.dev" and rest.endswith("/policy.schema.json")


def _ensure_folder(root: Path) -> None:
    if root.is_dir():
        return
    if root.exists() or root.is_symlink():
        raise CannotRun(f"{root}: not a folder")
    try:
        root.mkdir(parents=True)
    except OSError as exc:
        raise CannotRun(f"{root}: {exc.strerror or exc}") from None


def _apc_folder(root_fd: int, created: list[str], left: list[tuple[str, str]]) -> int | None:
    """A descriptor of ``.apc/`` (made if missing), or None when it is a symlink or a file."""
    try:
        os.mkdir(".apc", 0o755, dir_fd=root_fd)
        created.append(".apc/")
    except FileExistsError:
        pass
    except OSError as exc:
        raise CannotRun(f".apc: {exc.strerror or exc}") from None
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(".apc", flags, dir_fd=root_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            left.append((".apc", "a symlink or a file, not followed"))
            return None
        raise CannotRun(f".apc: {exc.strerror or exc}") from None


def _create(folder_fd: int, name: str, text: str) -> str | None:
    """Write ``name`` exclusively; None when written, else why it was left alone."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(name, flags, 0o644, dir_fd=folder_fd)
    except FileExistsError:
        return "a symlink, not followed" if _is_symlink(folder_fd, name) else "exists"
    except OSError as exc:
        raise CannotRun(f"{name}: {exc.strerror or exc}") from None
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
        out.write(text)
    return None


def _is_symlink(folder_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


# --- what is written ---------------------------------------------------------------------------
def _contract_files(
    root: Path, now: datetime, include: tuple[tuple[str, str, int], ...] = ()
) -> list[tuple[str, str]]:
    name = root.resolve().name or "project"
    return [
        (".apc/project.json", project_json(name, now)),
        (".apc/.gitignore", apc_gitignore()),
        ("AGENTS.md", agents_md(name)),
        (".apc-tools.yaml", policy_file(include)),
        (SCHEMA_COPY, schema_text("policy")),
    ]


def project_json(name: str, now: datetime) -> str:
    data = {
        "name": name,
        "apc": APC_SPEC_VERSION,
        "version": PROJECT_VERSION,
        "created": now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def apc_gitignore() -> str:
    lines = [
        "# Runtime state never belongs in the repository: the APC spec's safe defaults,",
        *gitignore.SAFE_DEFAULTS,
        "# and an agent's private working state.",
        *EXTRA_IGNORES,
    ]
    return "\n".join(lines) + "\n"


def agents_md(name: str) -> str:
    return (
        f"# {name}\n\n"
        "Instructions for coding agents working in this repository (read by Codex, Cursor,\n"
        "Copilot, Gemini CLI and others; `.apc/` holds the rest of the contract).\n\n"
        "## Build and test\n\n"
        "Describe the commands an agent runs before it commits (for example `make test`).\n\n"
        "## Conventions\n\n"
        "Describe the code style, layout and review rules agents follow here.\n"
    )


def policy_file(include: tuple[tuple[str, str, int], ...] = ()) -> str:
    text = (
        f"# yaml-language-server: $schema={SCHEMA_COPY}\n"
        f"# apc-tools policy for this repository. Editors read its schema from {SCHEMA_COPY},\n"
        "# which `apc init` refreshes after an upgrade (`apc schema policy` prints it).\n"
        "version: 1\n"
    )
    if include:
        text += "# catalog files checked as their tool reads them once copied (docs/validate.md)\n"
        text += "".join(include_lines(include))
    return text


def include_lines(include: tuple[tuple[str, str, int], ...]) -> Iterator[str]:
    """The policy's ``include:`` mapping, as YAML lines."""
    yield "include:\n"
    for glob, kind, _ in include:
        yield f"  {json.dumps(glob)}: {kind}\n"


def include_proposal(root: Path) -> Iterator[tuple[str, str, int]]:
    """(glob, kind, files) for each folder holding catalog files (``.mdc`` Cursor rules,
    ``.instructions.md``) that no kind takes where they are: the mapping ``include:`` needs for
    them to be checked (the files DSC002 counts)."""
    from apc_tools.contract.checks.discovery import SHAPES, include_glob
    from apc_tools.contract.project import kinds_of, list_files

    try:
        files, _ = list_files(root)
    except (OSError, CannotRun):
        return
    known = kinds_of(files)
    for ending, _, _, kind in SHAPES:
        folders: dict[str, int] = {}
        for rel in files:
            if rel.endswith(ending) and rel not in known:
                folder = rel.rpartition("/")[0]
                folders[folder] = folders.get(folder, 0) + 1
        for folder, count in sorted(folders.items()):
            yield include_glob(folder, ending), kind, count


# --- what is reported --------------------------------------------------------------------------
def migration_candidates(root: Path) -> Iterator[tuple[str, str]]:
    for rel, hint in MIGRATIONS:
        if os.path.lexists(root / rel):
            yield rel, hint


def root_gitignore_lines(root: Path) -> Iterator[tuple[str, str]]:
    """Lines the root .gitignore lacks for the agent tools found at ``root``."""
    patterns = _root_patterns(root)
    for tool, signs, lines in TOOL_IGNORES:
        if not any(os.path.lexists(root / sign) for sign in signs):
            continue
        for line in lines:
            if not gitignore.is_ignored(patterns, gitignore.sample_path(line)):
                yield line, tool


def _root_patterns(root: Path) -> list[gitignore.Pattern]:
    path = root / ".gitignore"
    try:
        text = path.read_text(encoding="utf-8", errors="replace") if path.is_file() else ""
    except OSError:
        text = ""
    return [p for p in map(gitignore.parse_line, text.splitlines()) if p is not None]
