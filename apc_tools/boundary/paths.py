"""BPA: runtime state found by its path alone (cheap, checked before any blob is read).

Two tables. Under a `.apc/` folder, the paths the APC spec forbids (folder-structure.mdx "Do not
place these paths in `.apc/`" plus the spec's `.apc/.gitignore` safe defaults): a `cache/` or
`tmp/` elsewhere in a repository is normal, so these apply inside `.apc/` only. Anywhere in the
tree, the files and folders that agent tools write for their own use (reference §5.1-5.12: only
the rows that are leaks by path alone; a `*.jsonl` is a hint for the content detectors, not a
leak). Paths are compared case-folded: on macOS and Windows `.Claude/Projects/` is the same
folder as `.claude/projects/`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache

from apc_tools.boundary.model import Detection, rule
from apc_tools.findings import Severity

APC_PATH = rule(
    "BPA001",
    "apc-runtime-path",
    Severity.ERROR,
    "A file sits at a path the APC spec reserves for runtime state inside `.apc/` (sessions/, "
    "conversations/, messages/, chats/, cache/, tmp/, private/, secrets/, "
    "agents/<slug>/auto-memory.md, plans/scratch/, *.local.json, *.secret.json, *.env).",
    "`.apc/` holds the reviewed, portable contract. Sessions, caches, scratch plans and private "
    "files are runtime state: they belong to the machine that made them. Remove the file from "
    "the index (`git rm --cached`), keep it outside `.apc/` (APX keeps it under "
    "`~/.apx/projects/<id>/`), and make sure `.apc/.gitignore` lists the path.",
    ".apc/agents/reviewer.md\n.apc/memory.md",
    ".apc/sessions/2026-01-01-01.md\n.apc/mcps.local.json",
)
TOOL_PATH = rule(
    "BPA002",
    "tool-runtime-path",
    Severity.ERROR,
    "A file sits where an agent tool keeps its own runtime state (`.claude/projects/`, "
    "`.claude/settings.local.json`, `CLAUDE.local.md`, `.codex/sessions/`, `rollout-*.jsonl`, "
    "`.aider.chat.history.md`, `.gemini/tmp/`, `.continue/sessions/`, "
    "`.specstory/history/`, `state.vscdb`, `.apx/`, ...).",
    "These files are written by Claude Code, Codex, Gemini CLI, Cursor, Aider, Cline, Continue, "
    "OpenCode, Copilot, Windsurf, SpecStory or APX for one machine and one person: sessions, "
    "prompt logs, local permissions, caches. Remove the file from the index (`git rm --cached`), "
    "add the path to `.gitignore`, and if the file ever held a credential, rotate it. Teams "
    "that commit such a folder on purpose (some keep `.specstory/history/`) allow it in "
    "`.apc-tools.yaml`.",
    ".claude/settings.json\n.claude/agents/reviewer.md",
    ".claude/settings.local.json\n.aider.chat.history.md",
)
RULES = (APC_PATH, TOOL_PATH)


@dataclass(frozen=True)
class PathRule:
    """A glob over the case-folded repository path, the tool that writes there, and what it is."""

    glob: str
    tool: str
    what: str


# The spec's forbidden paths, relative to the `.apc/` folder that holds them.
APC_FORBIDDEN: tuple[PathRule, ...] = (
    PathRule("**/sessions/**", "APC", "session records"),
    PathRule("**/conversations/**", "APC", "conversation records"),
    PathRule("messages/**", "APC", "message records"),
    PathRule("chats/**", "APC", "chat records"),
    PathRule("cache/**", "APC", "a cache"),
    PathRule("tmp/**", "APC", "temporary files"),
    PathRule("private/**", "APC", "private files"),
    PathRule("secrets/**", "APC", "secrets"),
    PathRule("agents/*/auto-memory.md", "APC", "unreviewed auto-memory"),
    PathRule("plans/scratch/**", "APC", "scratch plans"),
    PathRule("**/*.local.json", "APC", "machine-local settings (*.local.json)"),
    PathRule("**/*.secret.json", "APC", "secrets (*.secret.json)"),
    PathRule("**/*.env", "APC", "an environment file (*.env)"),
    PathRule("**/*.env.*", "APC", "an environment file (*.env.*)"),
    PathRule("**/.env", "APC", "an environment file (.env)"),
)

# Other tools' runtime state, anywhere in the tree (reference §5.1-5.12, §5.11 deny-list).
TOOL_PATHS: tuple[PathRule, ...] = (
    PathRule("**/.claude/projects/**", "Claude Code", "session transcripts"),
    PathRule("**/.claude/settings.local.json", "Claude Code", "personal local settings"),
    PathRule("**/claude.local.md", "Claude Code", "personal local memory"),
    PathRule("**/.claude/agent-memory-local/**", "Claude Code", "local agent memory"),
    PathRule("**/.claude/sessions/**", "Claude Code", "sessions"),
    PathRule("**/.claude/history.jsonl", "Claude Code", "the prompt history"),
    PathRule("**/.claude/.credentials.json", "Claude Code", "credentials"),
    PathRule("**/.claude/todos/**", "Claude Code", "session todo lists"),
    PathRule("**/.claude/shell-snapshots/**", "Claude Code", "shell snapshots"),
    PathRule("**/.claude/session-env/**", "Claude Code", "session environments"),
    PathRule("**/.claude/file-history/**", "Claude Code", "file edit history"),
    PathRule("**/.claude/paste-cache/**", "Claude Code", "the paste cache"),
    PathRule("**/.claude/statsig/**", "Claude Code", "telemetry state"),
    PathRule("**/.claude.json", "Claude Code", "the user state file (OAuth, trust, MCP)"),
    PathRule("**/.codex/sessions/**", "Codex", "session rollouts"),
    PathRule("**/.codex/archived_sessions/**", "Codex", "archived session rollouts"),
    PathRule("**/rollout-*.jsonl", "Codex", "a session rollout"),
    PathRule("**/rollout-*.jsonl.zst", "Codex", "a compressed session rollout"),
    PathRule("**/.codex/history.jsonl", "Codex", "the prompt history"),
    PathRule("**/.codex/auth.json", "Codex", "credentials"),
    PathRule("**/.gemini/tmp/**", "Gemini CLI", "sessions and checkpoints"),
    PathRule("**/.gemini/history/**", "Gemini CLI", "the checkpoint shadow repository"),
    PathRule("**/.gemini/sessions/**", "Gemini CLI", "sessions"),
    PathRule("**/.cursor/chats/**", "Cursor", "chats"),
    PathRule("**/.cursor/projects/**", "Cursor", "agent transcripts"),
    PathRule("**/.cursor/snapshots/**", "Cursor", "snapshots"),
    PathRule("**/.cursor/ide_state.json", "Cursor", "IDE state"),
    PathRule("**/agent-transcripts/**", "Cursor", "agent transcripts"),
    PathRule("**/state.vscdb", "Cursor / VS Code", "the chat database"),
    PathRule("**/state.vscdb.backup", "Cursor / VS Code", "a chat database backup"),
    PathRule("**/.specstory/history/**", "SpecStory", "saved chat sessions"),
    PathRule("**/.specstory/.project.json", "SpecStory", "the project identity file"),
    PathRule("**/.aider.chat.history.md", "Aider", "the chat history"),
    PathRule("**/.aider.input.history", "Aider", "the prompt history"),
    PathRule("**/.aider.llm.history", "Aider", "the LLM conversation log"),
    PathRule("**/.aider.tags.cache.v*/**", "Aider", "the repository map cache"),
    PathRule("**/api_conversation_history.json", "Cline / Roo Code", "a task's API history"),
    PathRule("**/ui_messages.json", "Cline / Roo Code", "a task's UI messages"),
    PathRule("**/task_metadata.json", "Cline / Roo Code", "a task's metadata"),
    PathRule("**/cline_task_*.md", "Cline", "an exported task"),
    PathRule("**/roo_task_*.md", "Roo Code", "an exported task"),
    PathRule("**/.cline/tasks/**", "Cline", "tasks"),
    PathRule("**/.continue/sessions/**", "Continue", "sessions"),
    PathRule("**/opencode/storage/session/**", "OpenCode", "session records"),
    PathRule("**/opencode/storage/message/**", "OpenCode", "message records"),
    PathRule("**/opencode/storage/part/**", "OpenCode", "message parts"),
    PathRule("**/opencode.db", "OpenCode", "the session database"),
    PathRule("**/.copilot/session-state/**", "Copilot CLI", "session events"),
    PathRule("**/.copilot/session-store.db", "Copilot CLI", "the session database"),
    PathRule("**/github.copilot-chat/transcripts/**", "Copilot Chat", "transcripts"),
    PathRule("**/chatsessions/*.jsonl", "Copilot Chat", "chat sessions"),
    PathRule("**/chateditingsessions/**", "Copilot Chat", "chat editing sessions"),
    PathRule("**/.codeium/windsurf/cascade/**", "Windsurf", "conversations"),
    PathRule("**/.codeium/windsurf/**/*.pb", "Windsurf", "conversation or memory state"),
    PathRule("**/.apx/**", "APX", "APX's home (runtime state, tokens, memory)"),
)

_LITERAL = re.compile(r"[^*?\[\]{}]+")


def _needle(glob: str) -> str:
    """The longest literal run of a glob: a cheap ``in`` test before the segment match."""
    runs = [r.strip("/") for r in _LITERAL.findall(glob)]
    return max(runs, key=len, default="")


@cache
def _segment(pattern: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(pattern))


def segments_match(glob: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    """Does a path (its segments) match a glob (its segments, ``**`` = any number of folders)?

    A walk over the path with the set of glob positions reachable so far: linear in the path
    for a given glob, whatever the path holds (a regex with two ``**`` is quadratic on
    repeated folder names).
    """
    states = _closure(glob, {0})
    for part in parts:
        step: set[int] = set()
        for i in states:
            if i < len(glob):
                if glob[i] == "**":
                    step.add(i)
                elif _segment(glob[i]).match(part):
                    step.add(i + 1)
        states = _closure(glob, step)
        if not states:
            return False
    return len(glob) in states


def _closure(glob: tuple[str, ...], states: set[int]) -> set[int]:
    out = set(states)
    for i in sorted(states):
        while i < len(glob) and glob[i] == "**":
            i += 1
            out.add(i)
    return out


@dataclass(frozen=True)
class Compiled:
    """A path table ready for matching: each rule's glob as segments, and an index from a
    literal folder or file name to the rules that need it, so a path is tested only against
    the few rules whose literal segment it has (plus the rules with wildcards in every
    segment, which keep a cheap ``in`` test of their longest literal)."""

    rules: tuple[tuple[str, tuple[str, ...], PathRule], ...] = ()
    by_segment: Mapping[str, tuple[int, ...]] = field(default_factory=dict)
    wild: tuple[int, ...] = ()

    def candidates(self, parts: list[str]) -> list[int]:
        found = {i for part in parts for i in self.by_segment.get(part, ())}
        return sorted(found.union(self.wild))


def compile_table(table: tuple[PathRule, ...]) -> Compiled:
    """Each rule of ``table`` with its glob's needle and segments, indexed by literal segment."""
    rules = tuple((_needle(r.glob), _split(r.glob), r) for r in table)
    index: dict[str, list[int]] = {}
    wild: list[int] = []
    for i, (_, segments, _) in enumerate(rules):
        literal = next((g for g in segments if g != "**" and not _WILD.search(g)), None)
        if literal is None:
            wild.append(i)
        else:
            index.setdefault(literal, []).append(i)
    return Compiled(rules, {k: tuple(v) for k, v in index.items()}, tuple(wild))


_WILD = re.compile(r"[*?\[\]{}]")


def _split(glob: str) -> tuple[str, ...]:
    """A glob as segments; a glob without a slash matches the name in any folder."""
    glob = glob.strip().lstrip("/")
    if "/" not in glob.rstrip("/"):
        glob = "**/" + glob
    if glob.endswith("/"):
        glob += "**"
    return tuple(glob.split("/"))


def match_table(table: Compiled, low: str) -> PathRule | None:
    """The first rule of ``table`` whose glob matches the case-folded path ``low``."""
    parts = low.split("/")
    for index in table.candidates(parts):
        needle, glob, path_rule = table.rules[index]
        if needle in low and segments_match(glob, tuple(parts)):
            return path_rule
    return None


def extra_rules(globs: Iterable[str], tool: str) -> Compiled:
    """Policy-given runtime paths (``boundary.paths.BPA``), case-folded like the built-ins."""
    what = "runtime state named by the policy"
    return compile_table(tuple(PathRule(g.casefold(), tool, what) for g in globs))


def apc_relative(low: str) -> str | None:
    """The part of ``low`` below its innermost `.apc/` folder, or None outside `.apc/`."""
    if low.startswith(".apc/"):
        low = "/" + low
    index = low.rfind("/.apc/")
    return low[index + 6 :] if index >= 0 else None


APC_TABLE = compile_table(APC_FORBIDDEN)
TOOL_TABLE = compile_table(TOOL_PATHS)


def detect_path(low: str, extra: Compiled | None = None) -> Iterator[Detection]:
    """BPA detections for the case-folded repository path ``low``."""
    inner = apc_relative(low)
    if inner:
        hit = match_table(APC_TABLE, inner)
        if hit is not None:
            yield Detection(
                APC_PATH,
                f"{hit.what} inside .apc/: runtime state must stay out of the contract; "
                "`git rm --cached` it and list the path in .apc/.gitignore",
                match=hit.glob,
            )
            return
    hit = match_table(TOOL_TABLE, low) or (match_table(extra, low) if extra else None)
    if hit is not None:
        yield Detection(
            TOOL_PATH,
            f"{hit.what} ({hit.tool}): runtime state of one machine; `git rm --cached` it and "
            "add the path to .gitignore",
            match=hit.glob,
        )
