"""What Codex really sends from a folder: the chain of AGENTS.md files and its one budget.

Codex 0.171.0 (``codex-rs/core/src/project_doc.rs``, verified with the real CLI against the
loopback mock, tests/conformance) builds its project instructions from the project root (the
nearest folder above the working folder holding a ``project_root_markers`` entry, ``.git`` by
default) down to the working folder. In each folder it takes the first of
``AGENTS.override.md`` and ``AGENTS.md`` that is there (a dangling link does not count), so an
override replaces the AGENTS.md beside it, and only that one. It reads the files in that order
with one budget, ``project_doc_max_bytes`` (32 KiB) for the whole chain: a file that does not fit
in what its parents left is cut, one that comes after the budget is spent is never sent.
A whitespace-only file costs nothing; a file reached twice (a symlink to a parent's AGENTS.md)
is sent, and counted, twice.

apc takes the project root as Codex's root (the tree as its repository will be cloned), so the
chain of a folder is every AGENTS.md (or override) from the project root down to it; the
verdict of one folder does not depend on where below it Codex runs.
"""

from __future__ import annotations

from collections.abc import Iterator

from apc_tools.contract.checks.agents_md import CODEX_LIMIT, TOO_LARGE
from apc_tools.contract.project import Doc, Project
from apc_tools.core import detect
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "agents-md"
OVERRIDE = "AGENTS.override.md"
PLAIN = "AGENTS.md"

_rule = rule_family(FAMILY)

SHADOWED = _rule(
    "AGM007",
    "agents-md-shadowed",
    Severity.WARNING,
    "An AGENTS.md has an AGENTS.override.md beside it: Codex sends the override instead and "
    "never sends this file.",
    "In each folder Codex takes `AGENTS.override.md` when there is one and does not read the "
    "`AGENTS.md` beside it (the AGENTS.md files of the folders below are still read; an empty "
    "override sends nothing for its folder). Other agents (Copilot, Cursor) still read "
    "AGENTS.md, so the two files now say different things to different agents. Keep the "
    "override out of the repository (it is meant as a local, temporary replacement), or merge "
    "it into AGENTS.md and delete it.",
    "AGENTS.md   (no AGENTS.override.md beside it)",
    "AGENTS.md\nAGENTS.override.md   (Codex reads only the override)",
)
NEVER_SENT = _rule(
    "AGM008",
    "agents-md-never-sent",
    Severity.WARNING,
    "A nested AGENTS.md is never sent by Codex: the AGENTS.md files above it already fill its "
    "32 KiB budget.",
    "Codex reads the AGENTS.md files from the repository root down to the working folder with "
    "one budget of 32 KiB (`project_doc_max_bytes`) for all of them together, and stops when it "
    "is spent: a nested file whose parents fill it is never sent, from any folder. The message "
    "names the files that fill the budget (a parent reached twice, by a symlink, counts twice). "
    "Shorten the files above it (move detail into skills or linked docs), or move this "
    "folder's rules up into them.",
    "AGENTS.md (6 KiB)\npackages/api/AGENTS.md (2 KiB)",
    "AGENTS.md (40 KiB)\npackages/api/AGENTS.md (2 KiB: never sent)",
)

RULES = (SHADOWED, NEVER_SENT)


def _size(doc: Doc) -> int:
    """The bytes of ``doc`` that Codex counts: none for a whitespace-only file (not sent)."""
    return len(doc.text.encode("utf-8")) if doc.text.strip() else 0


def _kib(size: int) -> str:
    return f"{size / 1024:.1f} KiB"


def _picked(project: Project) -> tuple[dict[str, Doc], list[Finding]]:
    """The file Codex reads in each folder (folder rel -> Doc), and AGM007 for each AGENTS.md
    an override shadows."""
    by_folder: dict[str, dict[str, Doc]] = {}
    for doc in project.docs_of("agents-md"):
        folder, _, name = doc.rel.rpartition("/")
        by_folder.setdefault(folder, {})[name] = doc
    picked: dict[str, Doc] = {}
    found: list[Finding] = []
    for folder, names in by_folder.items():
        override, plain = names.get(OVERRIDE), names.get(PLAIN)
        chosen = override or plain
        if chosen is not None:
            picked[folder] = chosen
        if override is not None and plain is not None:
            empty = "" if override.text.strip() else " (the override is empty: nothing is sent)"
            found.append(
                SHADOWED.finding(
                    plain.path,
                    f"Codex never sends this file: it reads {override.path} instead in this "
                    f"folder{empty}; other agents still read this one. Keep the override out of "
                    "the repository, or merge it into this file and delete it",
                    1,
                    1,
                )
            )
    return picked, found


def _parent(folder: str, picked: dict[str, Doc]) -> str | None:
    """The nearest folder above ``folder`` whose file Codex reads, or None."""
    while folder:
        folder = folder.rpartition("/")[0]
        if folder in picked:
            return folder
    return None


def _named(chain: list[tuple[Doc, int]]) -> str:
    """The files of ``chain`` that take budget, with what each takes (a text sent again, by a
    symlink or a copy, says so)."""
    seen: dict[str, str] = {}
    parts = []
    for doc, spent in chain:
        if not spent:
            continue
        again = f", the text of {seen[doc.sha256]} again" if doc.sha256 in seen else ""
        seen.setdefault(doc.sha256, doc.path)
        parts.append(f"{doc.path} ({_kib(spent)}{again})")
    return ", ".join(parts)


def check_chain(project: Project) -> Iterator[Finding]:
    """AGM007 on every shadowed AGENTS.md; on the file Codex reads in each folder, AGM002 where
    the chain's budget cuts it and AGM008 where nothing of it is left."""
    picked, shadowed = _picked(project)
    yield from shadowed
    spent: dict[str, int] = {}  # folder -> the bytes its file takes of the budget
    chains: dict[str, list[tuple[Doc, int]]] = {}  # folder -> the files before it (in order)
    for folder in sorted(picked, key=lambda f: (f.count("/") if f else -1, f)):
        doc = picked[folder]
        parent = _parent(folder, picked)
        before = [] if parent is None else [*chains[parent], (picked[parent], spent[parent])]
        chains[folder] = before
        used = sum(part for _, part in before)
        size = _size(doc)
        left = max(CODEX_LIMIT - used, 0)
        spent[folder] = min(size, left)
        if size == 0 or size <= left:
            continue
        if left == 0:
            yield NEVER_SENT.finding(
                doc.path,
                f"Codex never sends this file ({_kib(size)}): the files above it fill its "
                f"32 KiB budget (project_doc_max_bytes) first: {_named(before)}. Shorten them, "
                "or move this folder's rules up into them",
                1,
                1,
            )
        else:
            yield _cut(doc, size, left, before)


def _cut(doc: Doc, size: int, left: int, before: list[tuple[Doc, int]]) -> Finding:
    """AGM002 at the byte where the budget ends in ``doc`` (``left`` bytes of it are sent)."""
    offset = len(doc.text.encode("utf-8")[:left].decode("utf-8", errors="ignore"))
    line, column = detect.line_column(doc.text, offset)
    if not before or left == CODEX_LIMIT:
        message = (
            f"AGENTS.md is {size} bytes ({_kib(size)}); Codex reads 32 KiB by default and "
            "silently drops the rest from here on: move detail into skills, rules or linked docs"
        )
    else:
        message = (
            f"Codex sends only the first {left} bytes of this file ({_kib(size)}): the files "
            f"above it take {_kib(CODEX_LIMIT - left)} of its 32 KiB budget "
            f"(project_doc_max_bytes), {_named(before)}; the rest is dropped from here on. "
            "Shorten them or this file"
        )
    return TOO_LARGE.finding(doc.path, message, line, column)


CHECKS: dict[str, tuple[()]] = {}
PROJECT_CHECKS = (check_chain,)
