"""Gitignore semantics, and the APC spec's safe defaults for ``.apc/.gitignore``.

Coverage is decided with git's own semantics: lines are read in order, the last matching line
wins, a negation (``!x``) un-covers, and a path under an ignored folder stays ignored (git cannot
re-include it). So ``agents/*/`` covers ``agents/*/sessions/``, ``*.env*`` covers ``*.env``, and
``sessions/`` followed by ``!sessions/`` does not cover ``sessions/``.
"""

from __future__ import annotations

from dataclasses import dataclass

from apc_tools.core.globs import DOUBLE, Glob, build, with_plus

# The spec's safe defaults (folder-structure.mdx), in its order.
SAFE_DEFAULTS: tuple[str, ...] = (
    "agents/*/sessions/",
    "agents/*/conversations/",
    "sessions/",
    "conversations/",
    "messages/",
    "chats/",
    "cache/",
    "tmp/",
    "private/",
    "secrets/",
    "*.local.json",
    "*.secret.json",
    "*.env",
    "*.env.*",
    "mcps.local.json",
)


@dataclass(frozen=True)
class Pattern:
    glob: Glob
    negated: bool
    dir_only: bool

    @property
    def regex(self) -> Glob:  # the name callers used when patterns were regexes
        return self.glob


def _strip_trailing(text: str) -> str:
    """Trailing white space removed, except one escaped with a backslash (git's rule)."""
    stripped = text.rstrip()
    if stripped.endswith("\\") and len(stripped) < len(text):
        return stripped + text[len(stripped)]
    return stripped


def parse_line(line: str) -> Pattern | None:
    """One .gitignore line as a pattern, or None for blanks and comments."""
    text = _strip_trailing(line.rstrip("\r\n"))
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    text = text[1:] if negated else text.removeprefix("\\")
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    if not text:
        return None
    anchored = "/" in text
    parts = build(text.lstrip("/"), braces=False, escapes=True)
    if not anchored:
        parts = (DOUBLE, *parts)
    return Pattern(Glob(with_plus(parts)), negated, dir_only)


def _decide(patterns: list[Pattern], path: str, is_dir: bool) -> bool | None:
    """The verdict of the last pattern matching ``path`` (None when none does)."""
    for pattern in reversed(patterns):
        if pattern.dir_only and not is_dir:
            continue
        if pattern.glob.match(path):
            return not pattern.negated
    return None


def is_ignored(patterns: list[Pattern], path: str) -> bool:
    """Whether git ignores the file ``path`` (relative to the .gitignore folder)."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        if _decide(patterns, "/".join(parts[:depth]), True):
            return True
    return bool(_decide(patterns, path, False))


def parse_lines(text: str) -> list[Pattern]:
    """The patterns of a .gitignore text, in order; a line repeated later is kept only there
    (the last matching line wins, so an earlier copy never decides anything)."""
    lines = list(dict.fromkeys(reversed(text.splitlines())))
    lines.reverse()
    return [p for p in (parse_line(line) for line in lines) if p is not None]


def sample_path(entry: str) -> str:
    """A file path that ``entry`` ignores (``agents/*/sessions/`` -> ``agents/x1/sessions/f1``)."""
    path = entry.replace("*", "x1")
    return path + "f1" if path.endswith("/") else path


def missing_defaults(text: str) -> list[str]:
    """The safe defaults that the .gitignore ``text`` does not cover."""
    patterns = parse_lines(text)
    return [entry for entry in SAFE_DEFAULTS if not is_ignored(patterns, sample_path(entry))]
