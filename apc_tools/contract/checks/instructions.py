"""Instruction files other than AGENTS.md: ``CLAUDE.md`` (Claude Code), ``GEMINI.md`` (Gemini
CLI), ``.github/copilot-instructions.md`` and ``.github/instructions/**/*.instructions.md``
(GitHub Copilot).

The AGENTS.md checks apply to all of them (links that resolve, no secrets, no runtime markers,
the size the reader takes in). ``CLAUDE.md`` and ``GEMINI.md`` import other files with ``@path``
(outside code): an import of a repository file that does not exist loads nothing. Copilot's
path-specific files select the files they apply to with ``applyTo`` (a string of comma-separated
globs, relative to the repository root); ``excludeAgent`` is ``code-review`` or
``coding-agent``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.checks._content import hit_findings, secret_findings
from apc_tools.contract.checks.agents_md import exists, link_findings, mask_code, resolve
from apc_tools.contract.project import Doc, Project
from apc_tools.core import detect
from apc_tools.core.globs import any_match
from apc_tools.core.parse import Pos, load_yaml
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "instructions"
_rule = rule_family(FAMILY)

# What each reader takes in before it stops or complains (characters).
SIZE_LIMITS = {
    "claude-md": (
        40_000,
        "Claude Code warns that a CLAUDE.md over 40,000 characters will impact performance",
    ),  # and sends it whole (Claude Code 2.1.197 sent 49,302 of 49,302: the conformance suite)
    "copilot-instructions": (
        4_000,
        "Copilot code review reads only the first 4,000 characters of an instructions file",
    ),
    "copilot-scoped": (
        4_000,
        "Copilot code review reads only the first 4,000 characters of an instructions file",
    ),
}
WHOLE = frozenset({"claude-md"})  # kinds the reader sends whole however long (no cut)
MAX_GLOBS = 64  # applyTo globs checked per file against the file list (a bound on the work)
SCOPED_KEYS = frozenset({"applyTo", "description", "name", "excludeAgent"})
EXCLUDE_AGENTS = ("code-review", "coding-agent")

IMPORT_MISSING = _rule(
    "INS001",
    "instructions-import-missing",
    Severity.ERROR,
    "A `@path` import in CLAUDE.md or GEMINI.md (or in the root AGENTS.md Claude Code reads "
    "when there is no CLAUDE.md) names a repository file that does not exist.",
    "Claude Code and Gemini CLI replace `@path/to/file.md` (outside code) with that file's "
    "content, resolved from the importing file's folder. A missing file is skipped (Gemini CLI "
    "leaves an error comment): the instructions meant to be there never reach the agent. Fix "
    "the path or remove the import. Only words that look like file paths are checked (with an "
    "extension, or starting with `./` or `../`); `@scope/package` and `@user` are not imports "
    "of files here, and home (`@~/...`) or absolute paths are outside the repository. Claude "
    "Code 2.1.332 reads the root AGENTS.md as project memory when the project has no "
    "CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md (2.1.197 does not), and follows its "
    "imports the same way: there they are checked too.",
    "CLAUDE.md:\n@AGENTS.md\n   (AGENTS.md exists)",
    "CLAUDE.md:\n@docs/agent-rules.md\n   (no such file)",
)
BROKEN_LINK = _rule(
    "INS002",
    "instructions-broken-link",
    Severity.WARNING,
    "A link in CLAUDE.md, GEMINI.md or a Copilot instructions file points to a repository file "
    "that does not exist.",
    "Resolved as for AGENTS.md (AGM003): relative to the file's folder, a leading `/` from the "
    "project root, URLs and anchors not checked. An agent told to read a missing file guesses. "
    "A warning: the readers send a Markdown link as text and never follow it (Claude Code, "
    "Gemini CLI and Copilot); only CLAUDE.md and GEMINI.md `@` imports are loaded, and a "
    "missing one is an error (INS001).",
    "See [the style guide](docs/style.md).   (docs/style.md exists)",
    "See [the style guide](docs/styles.md).  (no such file)",
)
SECRET = _rule(
    "INS003",
    "instructions-secret",
    Severity.ERROR,
    "An instructions file contains something that looks like a live secret.",
    "Instruction files are committed and sent to the model with every request. Remove the "
    "secret, rotate it, and refer to it by name (`$GITHUB_TOKEN`).",
    "CLAUDE.md:\nSet the token in `$GITHUB_TOKEN` before releasing.",
    'CLAUDE.md:\nUse token "ghp_" followed by 36 real characters.',
)
RUNTIME_MARKER = _rule(
    "INS004",
    "instructions-runtime-marker",
    Severity.ERROR,
    "An instructions file contains an interruption marker from an agent chat history.",
    "Markers such as `[Request interrupted by user]` mean a transcript was pasted into the "
    "instructions: runtime state. Keep only curated instructions.",
    "CLAUDE.md:\nRun `pytest` before committing.",
    "CLAUDE.md:\n[Request interrupted by user for tool use]",
)
TOO_LARGE = _rule(
    "INS005",
    "instructions-too-large",
    Severity.WARNING,
    "An instructions file is larger than its reader handles well (CLAUDE.md: 40,000 "
    "characters; Copilot instructions: 4,000 for code review).",
    "Claude Code warns about a CLAUDE.md over 40,000 characters but sends it whole (no cut: "
    "the conformance suite checks it), so every request carries it; Copilot code review reads "
    "only the first 4,000 characters of an instructions file, and there the finding points where "
    "the cut falls. Claude Code 2.1.332 reads the root AGENTS.md as a CLAUDE.md when the "
    "project has none, and sends it whole too: there the 40,000 applies to it. Move detail into "
    "imported files, skills or path-specific instructions.",
    ".github/copilot-instructions.md of 2,000 characters",
    ".github/copilot-instructions.md of 9,000 characters",
)
APPLY_TO_INVALID = _rule(
    "INS006",
    "copilot-applyto-invalid",
    Severity.ERROR,
    "A Copilot `.instructions.md` file's `applyTo` is not a string of globs.",
    "Copilot and VS Code read `applyTo` as one string: a glob or comma-separated globs "
    "(`'**/*.ts, **/*.tsx'`). Another shape (a YAML list, a number, a mapping) never matches, "
    "so the instructions are never applied. Write it as a quoted string.",
    '.github/instructions/ts.instructions.md:\n---\napplyTo: "**/*.ts, **/*.tsx"\n---\n',
    ".github/instructions/ts.instructions.md:\n---\napplyTo:\n  - '**/*.ts'\n---\n",
)
APPLY_TO_DEAD = _rule(
    "INS007",
    "copilot-applyto-dead",
    Severity.WARNING,
    "An `applyTo` glob matches no file of the repository.",
    "Globs are relative to the repository root. A glob that matches nothing (a typo, a moved "
    "folder) means the instructions are never applied for it.",
    "applyTo: 'src/**/*.py'   (src/app.py exists)",
    "applyTo: 'scr/**/*.py'   (no such folder)",
)
NOT_APPLIED = _rule(
    "INS008",
    "copilot-applyto-missing",
    Severity.WARNING,
    "A Copilot `.instructions.md` file has no `applyTo`, so it is never applied automatically.",
    "Without `applyTo` the file is used only when attached by hand. Add `applyTo: '**'` for "
    "every file, or the globs it is about.",
    '.github/instructions/ts.instructions.md:\n---\napplyTo: "**/*.ts"\n---\n',
    ".github/instructions/ts.instructions.md:\n---\ndescription: TypeScript rules\n---\n",
)
SCOPED_FORM = _rule(
    "INS009",
    "copilot-instructions-field",
    Severity.WARNING,
    "A Copilot `.instructions.md` frontmatter key is unknown, or `excludeAgent` is not "
    "`code-review` or `coding-agent`.",
    "Copilot reads `applyTo`, `description`, `name` and `excludeAgent` (`code-review` or "
    "`coding-agent`); it ignores other keys and other values. Check the spelling.",
    '.github/instructions/ts.instructions.md:\n---\napplyTo: "**"\nexcludeAgent: code-review\n'
    "---\n",
    '.github/instructions/ts.instructions.md:\n---\napplyto: "**"\n---\n',
)

HEADER_LOST = _rule(
    "INS010",
    "copilot-instructions-header-lost",
    Severity.ERROR,
    "A Copilot `.instructions.md` file's frontmatter lost its opening `---`: line 1 is "
    "`applyTo:`, the closing `---` follows below.",
    "VS Code builds a header only when line 1 is `---` (`PromptFileParser.parse`, "
    "promptFileParser.ts): without it the `applyTo:` lines are body text, the scope is lost and "
    "the file is never applied automatically. Put `---` back on line 1 (`apc validate --fix`).",
    '.github/instructions/ts.instructions.md:\n---\napplyTo: "**/*.ts"\n---\nUse strict mode.\n',
    '.github/instructions/ts.instructions.md:\napplyTo: "**/*.ts"\n---\nUse strict mode.\n',
)

RULES = (
    IMPORT_MISSING,
    BROKEN_LINK,
    SECRET,
    RUNTIME_MARKER,
    TOO_LARGE,
    APPLY_TO_INVALID,
    APPLY_TO_DEAD,
    NOT_APPLIED,
    SCOPED_FORM,
    HEADER_LOST,
)

# --------------------------------------------------------------------------- shared checks


def check_size(doc: Doc, project: Project) -> Iterator[Finding]:
    return size_findings(doc, doc.kind)


def size_findings(doc: Doc, kind: str) -> Iterator[Finding]:
    """INS005 for ``doc`` read as a file of ``kind`` (a root AGENTS.md read as a CLAUDE.md)."""
    limit, why = SIZE_LIMITS.get(kind, (0, ""))
    if not limit or len(doc.text) <= limit:
        return
    line, column = detect.line_column(doc.text, limit)
    where = (
        "it still sends the whole file, but every request carries it"
        if kind in WHOLE
        else "the cut falls here"
    )
    yield TOO_LARGE.finding(
        doc.path,
        f"{len(doc.text)} characters; {why}: {where}. Move detail into imported files, skills "
        "or path-specific instructions",
        line,
        column,
    )


def check_links(doc: Doc, project: Project) -> Iterator[Finding]:
    return link_findings(BROKEN_LINK, doc, project)


def check_secrets(doc: Doc, project: Project) -> Iterator[Finding]:
    return secret_findings(SECRET, doc, "remove it, rotate it, and refer to it by name")


def check_markers(doc: Doc, project: Project) -> Iterator[Finding]:
    return hit_findings(
        RUNTIME_MARKER,
        doc,
        detect.find_markers(doc.text),
        "interruption marker found: this is runtime state (a pasted transcript); remove it",
    )


# --------------------------------------------------------------------------- @imports

_IMPORT = re.compile(r"(?:(?<=\s)|^)@([^\s`'\"<>()\[\]{}|*]+)", re.M)
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]*\Z")


def import_paths(text: str) -> Iterator[tuple[int, str]]:
    """(offset, path) of each ``@path`` outside code that names a repository file."""
    for match in _IMPORT.finditer(mask_code(text)):
        path = match.group(1).rstrip(".,;:!?")
        if path.startswith(("~", "/")):
            continue  # the user's home or an absolute path: not a file of the repository
        last = path.rsplit("/", 1)[-1]
        if path.startswith(("./", "../")) or _EXTENSION.search(last):
            yield match.start(1), path


def check_imports(doc: Doc, project: Project) -> Iterator[Finding]:
    index: detect.LineIndex | None = None
    for offset, path in import_paths(doc.text):
        rel = resolve(doc.rel, path)
        if rel is None or exists(project, rel):
            continue
        index = index or detect.LineIndex(doc.text)
        line, column = index.position(offset - 1)
        yield IMPORT_MISSING.finding(
            doc.path,
            f"import '@{path}' names no file (resolved to '{rel}'): the reader loads nothing "
            "here; fix the path or remove the import",
            line,
            column,
        )


# --------------------------------------------------------------------------- .instructions.md


def split_apply_to(value: str) -> list[str]:
    """The globs of ``applyTo``: split at commas outside braces, as VS Code does, so
    ``**/*.{yml,yaml}`` stays one glob."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(value):
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char == "," and not depth:
            parts.append(value[start:index])
            start = index + 1
    parts.append(value[start:])
    return [part.strip() for part in parts if part.strip()]


HEADER_LINES = 40  # the most lines above a `---` read as a header that lost its opening fence


def lost_header(text: str) -> dict[str, Any] | None:
    """The frontmatter of a file whose opening ``---`` is missing: line 1 is ``applyTo:``, a
    ``---`` line follows, and the lines above it read as a YAML mapping of Copilot's keys
    holding ``applyTo``; else None."""
    lines = text.split("\n", HEADER_LINES + 1)[:HEADER_LINES]
    if not lines or not re.match(r"applyTo\s*:", lines[0]):
        return None
    end = next((i for i, line in enumerate(lines) if line.rstrip("\r \t") == "---"), None)
    if end is None:
        return None
    block = load_yaml("\n".join(lines[:end]) + "\n")
    data = block.data
    if not block.ok or not isinstance(data, dict) or not set(data) <= SCOPED_KEYS:
        return None
    return data if "applyTo" in data else None


def check_scoped(doc: Doc, project: Project) -> Iterator[Finding]:
    if not doc.has_frontmatter and lost_header(doc.text) is not None:
        yield HEADER_LOST.finding(
            doc.path,
            "line 1 is `applyTo:` but not `---`: VS Code reads a header only when line 1 is "
            "`---`, so these lines are body text and the file is never applied; put `---` "
            "back on line 1 (apc validate --fix)",
            1,
            1,
        )
        return
    if not fm.parsed(doc):
        if not doc.has_frontmatter and not fm.opens_frontmatter(doc):
            yield NOT_APPLIED.finding(
                doc.path,
                "no frontmatter, so no `applyTo`: Copilot applies this file only when it is "
                "attached by hand; add `applyTo: '**'` or the globs it is about",
                1,
                1,
            )
        return
    data = doc.data
    if "applyTo" not in data:
        yield fm.at(
            NOT_APPLIED,
            doc,
            fm.start(doc),
            "$.applyTo: missing; Copilot applies this file only when it is attached by hand: "
            "add `applyTo: '**'` or the globs it is about",
        )
    elif not isinstance(data["applyTo"], str):
        yield fm.at(
            APPLY_TO_INVALID,
            doc,
            fm.value_pos(doc, ("applyTo",)),
            "$.applyTo: Copilot reads a string of comma-separated globs; this "
            f"{type(data['applyTo']).__name__} never matches: write e.g. "
            "`applyTo: '**/*.ts, **/*.tsx'`",
        )
    yield from _scoped_fields(doc)


def _scoped_fields(doc: Doc) -> Iterator[Finding]:
    for key in doc.data:
        if key not in SCOPED_KEYS:
            yield fm.at(
                SCOPED_FORM,
                doc,
                fm.key_pos(doc, (key,)),
                f"{fm.json_path((key,))}: Copilot reads only applyTo, description, name and "
                "excludeAgent; it ignores this key (check the spelling)",
            )
    agent = doc.data.get("excludeAgent")
    if agent is not None and agent not in EXCLUDE_AGENTS:
        yield fm.at(
            SCOPED_FORM,
            doc,
            fm.value_pos(doc, ("excludeAgent",)),
            f"$.excludeAgent: Copilot knows `code-review` and `coding-agent`; it ignores {agent!r}",
        )


def dead_apply_to(project: Project) -> Iterator[Finding]:
    files = project.tracked if project.tracked is not None else project.files
    for doc in project.docs_of("copilot-scoped"):
        value = doc.data.get("applyTo") if fm.parsed(doc) else None
        if not isinstance(value, str):
            continue
        for pattern in split_apply_to(value)[:MAX_GLOBS]:
            if pattern in ("*", "**", "**/*") or any_match(pattern, files):
                continue
            pos = fm.column_of(doc, ("applyTo",), pattern)
            yield fm.at(
                APPLY_TO_DEAD,
                doc,
                Pos(pos.line, pos.column),
                f"$.applyTo: '{pattern}' matches no file of the repository; the instructions "
                "are never applied for it (fix the pattern or remove it)",
            )


DocCheck = Callable[[Doc, Project], Iterable[Finding]]
_TEXT = (check_size, check_links, check_secrets, check_markers)

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {
    "claude-md": (*_TEXT, check_imports),
    "gemini-md": (*_TEXT, check_imports),
    "copilot-instructions": _TEXT,
    "copilot-scoped": (*_TEXT, check_scoped),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = (dead_apply_to,)
