"""AGENTS.md: present in an APC project, within Codex's read budget, links that resolve, no
secrets, no runtime state. (Empty files are reported once, by IO006.)

Markdown has no grammar here (APC-NOTES section 2), so the checks read the text: links are found
outside fenced code blocks and inline code spans, and resolved against the project's files.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from collections.abc import Iterator
from urllib.parse import unquote

from apc_tools.contract.checks._content import hit_findings, secret_findings
from apc_tools.contract.project import Doc, Project
from apc_tools.core import detect
from apc_tools.findings import Finding, Rule, Severity, rule_family

FAMILY = "agents-md"
CODEX_LIMIT = 32 * 1024  # Codex project_doc_max_bytes default


_rule = rule_family(FAMILY)


MISSING = _rule(
    "AGM001",
    "agents-md-missing",
    Severity.ERROR,
    "An APC project (a folder with .apc/project.json) has no AGENTS.md at its root.",
    "AGENTS.md is the root project contract every coding agent reads first; APC requires it next "
    "to `.apc/`. Add an AGENTS.md with the project's overview, rules and commands. The finding "
    "is reported on `.apc/project.json`, the file that makes the folder an APC project.",
    "AGENTS.md\n.apc/project.json",
    ".apc/project.json   (no AGENTS.md beside .apc/)",
)
TOO_LARGE = _rule(
    "AGM002",
    "agents-md-too-large",
    Severity.WARNING,
    "AGENTS.md is cut by Codex: it is larger than 32 KiB, or than what the AGENTS.md files "
    "above it leave of that budget.",
    "Codex stops adding project instructions once they reach `project_doc_max_bytes` (32 KiB) "
    "and does not say so; the rest is silently ignored. The budget covers the whole chain from "
    "the repository root down to the working folder, so a nested AGENTS.md gets what its "
    "parents leave (the message names them; one that gets nothing is AGM008). The finding "
    "points at the line where the cut falls. Move detail into skills, rules or linked docs and "
    "keep AGENTS.md short.",
    "an AGENTS.md of 6 KiB linking to docs/architecture.md",
    "an AGENTS.md of 48 KiB with the whole architecture pasted in",
)
BROKEN_LINK = _rule(
    "AGM003",
    "agents-md-broken-link",
    Severity.WARNING,
    "A link in AGENTS.md points to a repository file or folder that does not exist.",
    "Relative links are resolved from the AGENTS.md folder (a leading `/` from the project "
    "root), after dropping `#fragment` and `?query`; URLs with a scheme, `mailto:` and `#anchors` "
    "are not checked, nor links inside code. An agent told to read a missing file guesses. "
    "A warning: Codex sends a Markdown link as text and does not load the file it names "
    "(AGENTS.md has no import syntax), so AGENTS.md itself is read as written. Fix the path or "
    "remove the link.",
    "See [the style guide](docs/style.md).   (docs/style.md exists)",
    "See [the style guide](docs/styles.md).  (no such file)",
)
SECRET = _rule(
    "AGM004",
    "agents-md-secret",
    Severity.ERROR,
    "AGENTS.md contains something that looks like a live secret (API key, token, private key, "
    "password in a URL).",
    "AGENTS.md is committed and sent to every agent and model provider. Remove the secret, "
    "rotate it (it is in the history now), and refer to it by name (`$GITHUB_TOKEN`, "
    "`${env:API_KEY}`). Placeholders such as `<TOKEN>` or `your-api-key-here` are fine.",
    "Set the token in `$GITHUB_TOKEN` before running the release script.",
    'Use token "ghp_" followed by 36 real characters for the release script.',
)
RUNTIME_MARKER = _rule(
    "AGM005",
    "agents-md-runtime-marker",
    Severity.ERROR,
    "AGENTS.md contains an interruption marker that agent runtimes write into chat histories.",
    "Markers such as `[Request interrupted by user]` or `not run: the turn was interrupted` are "
    "runtime state: their presence means a transcript was pasted into the contract. Remove the "
    "pasted part and keep only curated instructions.",
    "# Project\n\nRun `pytest` before committing.",
    "# Project\n\n[Request interrupted by user for tool use]",
)
NO_APC = _rule(
    "AGM006",
    "agents-md-only",
    Severity.INFO,
    "The project has AGENTS.md but no .apc/ folder: only the AGENTS.md checks apply.",
    "A repository without `.apc/` is still validated (AGENTS.md, SKILL.md, .claude/agents, "
    ".cursor/rules). Add `.apc/project.json` (`apc init`) to adopt the full APC contract.",
    "AGENTS.md\n.apc/project.json",
    "AGENTS.md   (no .apc/)",
)

RULES = (MISSING, TOO_LARGE, BROKEN_LINK, SECRET, RUNTIME_MARKER, NO_APC)

# --------------------------------------------------------------------------- links

_OPEN_FENCE = re.compile(r"[ ]{0,3}(`{3,}|~{3,})")
_BACKTICKS = re.compile(r"`+")
_INLINE_TARGET = re.compile(r"\]\([ \t]*(<[^<>\n]*>|[^\s()<>]+(?:\([^\s()]*\)[^\s()<>]*)*)")
_REFERENCE = re.compile(r"^[ ]{0,3}\[(?!\^)[^\]\n]+\]:[ \t]*(<[^<>\n]*>|\S+)", re.M)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")

# Code is masked by scanners that look at each character a bounded number of times: a lazy
# ``re.S`` scan per opening fence, comment or backtick run would rescan the rest of the file for
# each unclosed one (quadratic: 200,000 lines of ``` took minutes).


def _blank(chars: list[str], start: int, end: int) -> None:
    for i in range(start, end):
        if chars[i] != "\n":
            chars[i] = " "


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened by ``fence`` (same character, at least as long)."""
    body = line.lstrip(" ")
    if len(line) - len(body) > 3 or not body.startswith(fence):
        return False
    rest = body[len(fence) :].rstrip(" \t\r")
    return not rest.strip("`~")


def _fence_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of each fenced block, closing line included; an unclosed one runs to the end."""
    ranges: list[tuple[int, int]] = []
    fence = ""
    start = offset = 0
    for line in text.split("\n"):
        if fence:
            if _closes(line, fence):
                ranges.append((start, offset + len(line)))
                fence = ""
        else:
            opened = _OPEN_FENCE.match(line)
            if opened:
                fence, start = opened.group(1), offset
        offset += len(line) + 1
    if fence:
        ranges.append((start, len(text)))
    return ranges


def _comment_ranges(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each closed ``<!-- ... -->`` comment (an unclosed one is text)."""
    position = 0
    while (start := text.find("<!--", position)) >= 0:
        end = text.find("-->", start + 4)
        if end < 0:
            return
        yield start, end + 3
        position = end + 3


def _span_ranges(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of each code span: a backtick run closed by the next run of equal length."""
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        later = bisect_right(same, index)
        if later < len(same):
            closer = same[later]
            yield start, runs[closer][1]
            index = closer + 1
        else:
            index += 1


def mask_code(text: str) -> str:
    """``text`` with fenced blocks, code spans and HTML comments blanked (offsets kept)."""
    chars = list(text)
    for start, end in _fence_ranges(text):
        _blank(chars, start, end)
    masked = "".join(chars)
    for start, end in list(_comment_ranges(masked)):
        _blank(chars, start, end)
    masked = "".join(chars)
    for start, end in list(_span_ranges(masked)):
        _blank(chars, start, end)
    return "".join(chars)


def link_targets(text: str) -> Iterator[tuple[int, str]]:
    """(offset, raw target) of every inline and reference link outside code."""
    masked = mask_code(text)
    for pattern in (_INLINE_TARGET, _REFERENCE):
        for match in pattern.finditer(masked):
            raw = match.group(1)
            if raw.startswith("<"):
                yield match.start(1) + 1, raw[1:-1].strip()
            else:
                yield match.start(1), raw


def _local_target(raw: str) -> str | None:
    """The repository path a link names, or None for URLs, anchors and templates."""
    if not raw or raw.startswith(("#", "//")) or _SCHEME.match(raw):
        return None
    path = unquote(re.split(r"[#?]", raw, maxsplit=1)[0])
    if not path or any(c in path for c in "{}$*|\\"):
        return None
    return path


def _exists(project: Project, rel: str) -> bool:
    if rel in ("", "."):
        return True
    if rel in project.files or rel in project.folders:
        return True
    # files of a nested project, or git-ignored ones (a NUL byte or an over-long name: False)
    return project.probe("exists", rel)


def resolve(doc_rel: str, path: str) -> str | None:
    """``path`` as seen from ``doc_rel``, relative to the project root (None when outside it)."""
    base = "" if path.startswith("/") else posixpath.dirname(doc_rel)
    joined = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    if joined == ".." or joined.startswith("../"):
        return None
    return "" if joined == "." else joined


def _printable(text: str) -> str:
    return "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)


def check_links(doc: Doc, project: Project) -> Iterator[Finding]:
    return link_findings(BROKEN_LINK, doc, project)


def exists(project: Project, rel: str) -> bool:
    """A file or folder of the project (or on disk under its root) at POSIX path ``rel``."""
    return _exists(project, rel)


def link_findings(rule: Rule, doc: Doc, project: Project) -> Iterator[Finding]:
    """``rule`` for every link in ``doc`` to a repository path that does not exist."""
    index: detect.LineIndex | None = None
    for offset, raw in link_targets(doc.text):
        path = _local_target(raw)
        if path is None:
            continue
        rel = resolve(doc.rel, path)
        if rel is None or _exists(project, rel):
            continue
        index = index or detect.LineIndex(doc.text)
        line, column = index.position(offset)
        shown = _printable(path)
        resolved = "" if rel == path.lstrip("/") else f" (resolved to '{_printable(rel)}')"
        yield rule.finding(
            doc.path,
            f"link target '{shown}' does not exist{resolved}; fix the path or remove the link",
            line,
            column,
        )


# --------------------------------------------------------------------------- content


def check_secrets(doc: Doc, project: Project) -> Iterator[Finding]:
    return secret_findings(
        SECRET,
        doc,
        "remove it, rotate it, and refer to it by name (for example ${env:API_KEY})",
    )


def check_markers(doc: Doc, project: Project) -> Iterator[Finding]:
    return hit_findings(
        RUNTIME_MARKER,
        doc,
        detect.find_markers(doc.text),
        "interruption marker found: this is runtime state (a pasted transcript); remove it and "
        "keep only curated instructions",
    )


# --------------------------------------------------------------------------- project level


def check_required(project: Project) -> Iterator[Finding]:
    if ".apc/project.json" in project.files and "AGENTS.md" not in project.files:
        where = project.display_path("AGENTS.md")
        yield MISSING.finding(
            project.display_path(".apc/project.json"),
            f"this APC project has no AGENTS.md at its root: add {where} with the project's "
            "overview, rules and commands",
            1,
            1,
        )


def check_no_apc(project: Project) -> Iterator[Finding]:
    if "AGENTS.md" in project.files and not project.is_apc:
        yield NO_APC.finding(
            project.display_path("AGENTS.md"),
            "no .apc/ folder: only AGENTS.md checks apply (run `apc init` to adopt APC)",
        )


CHECKS = {"agents-md": (check_links, check_secrets, check_markers)}  # size: codex_chain
PROJECT_CHECKS = (check_required, check_no_apc)
