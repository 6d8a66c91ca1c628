"""The rules of the shared floor (file reading, parsing), for the registry (apc_tools.catalog),
each with the reason for its severity (``Basis``, stated in docs/rules.md)."""

from __future__ import annotations

from dataclasses import replace

from apc_tools.core import files, parse
from apc_tools.findings import Basis, Rule, with_basis, with_fix

R, L, S, A, N = Basis.READER, Basis.LEAK, Basis.SPEC, Basis.ADVICE, Basis.NOTE

BASIS: dict[str, tuple[Basis, str]] = {
    "IO001": (R, "agent tools read these files as text; a binary file is misread by all"),
    "IO002": (R, "agent tools decode these files as UTF-8; other encodings are misread"),
    "IO003": (
        R,
        "the reading tools truncate or skip such files (Codex reads 32 KiB of "
        "AGENTS.md); apc does not read it either, so it is not checked",
    ),
    "IO004": (
        L,
        "a link out of the project makes the commit depend on (or expose) a file "
        "outside it; apc does not follow it",
    ),
    "IO005": (R, "no tool can read the file, so nothing in it takes effect"),
    "IO006": (A, "an empty contract file has no effect"),
    "FMT001": (
        R,
        "gray-matter (Cursor, Claude Code) and skills-ref read an unclosed block as "
        "no frontmatter, or the whole file as frontmatter",
    ),
    "FMT002": (
        N,
        "the readers skip the mark (skills-ref's failure on it is a bug apc does not copy)",
    ),
    "JSN001": (R, "the tools that read the file fail to parse it"),
    "JSN002": (
        R,
        "JSON readers keep one of the two values silently (the last, mostly): the other is lost",
    ),
    "YML001": (
        R,
        "the YAML parsers of the reading tools (ruamel's pure parser confirms it) fail on it",
    ),
    "YML002": (
        R,
        "YAML 1.2 forbids duplicate keys; js-yaml and strictyaml reject the file, "
        "others keep one value silently",
    ),
    "YML003": (
        R,
        "strictyaml (skills-ref) rejects anchors and aliases; apc does not expand "
        "them (alias bombs), so the file is not checked",
    ),
    "YML004": (
        R,
        "a tag that builds objects is refused by safe loaders; strictyaml rejects every tag",
    ),
    "YML005": (
        S,
        "Cursor and Claude Code read the value as plain text; only strict YAML refuses it",
    ),
    "YML006": (R, "the readers expect a mapping of keys to values and ignore anything else"),
}

# What `apc validate --fix` repairs (apc_tools.contract.fix), rule ID -> (safe/unsafe, how).
FIX: dict[str, tuple[str, str]] = {
    "FMT002": ("safe", "removes the byte-order mark (the first three bytes); nothing else changes"),
    "YML005": (
        "safe",
        'quotes the value exactly as Cursor and Claude Code read it (`key: "..."`); a `globs` '
        "string in `.apc/rules/` becomes a YAML list of the same patterns; Cursor's own unquoted "
        "`globs` in `.cursor/rules/` is left as Cursor writes it (quoting breaks its matching)",
    ),
}

# The tool versions the conformance suite checked each rule against (tests/conformance; the
# contract rules' table is apc_tools.contract.rules.VERIFIED).
VERIFIED: dict[str, str] = {
    "FMT001": "Claude Code 2.1.197, 2.1.332",
    "YML001": "Claude Code 2.1.197, 2.1.332; Codex 0.171.0; Gemini CLI 0.61.0",
    "YML002": "Claude Code 2.1.197, 2.1.332",
}

RULES: tuple[Rule, ...] = tuple(
    replace(rule, verified=VERIFIED.get(rule.id, rule.verified))
    for rule in with_fix(with_basis((*files.RULES, *parse.RULES), BASIS), FIX)
)
