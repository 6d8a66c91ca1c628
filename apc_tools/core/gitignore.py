"""Gitignore semantics, and the APC spec's safe defaults for ``.apc/.gitignore``.

Coverage is decided with git's own semantics: lines are read in order, the last matching line
wins, a negation (``!x``) un-covers, and a path under an ignored folder stays ignored (git cannot
re-include it). So ``agents/*/`` covers ``agents/*/sessions/``, ``*.env*`` covers ``*.env``, and
``sessions/`` followed by ``!sessions/`` does not cover ``sessions/``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

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
    regex: re.Pattern[str]
    negated: bool
    dir_only: bool


def _translate(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        if body.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif body.startswith("/**", i) and i + 3 == len(body):
            out.append("/.*")
            i += 3
        elif body.startswith("**", i):
            out.append(".*")
            i += 2
        else:
            out.append(_atom(body, i))
            i += _atom_len(body, i)
    return "".join(out)


def _atom_len(body: str, i: int) -> int:
    if body[i] == "\\" and i + 1 < len(body):
        return 2
    if body[i] == "[" and "]" in body[i + 2 :]:
        return body.index("]", i + 2) - i + 1
    return 1


def _atom(body: str, i: int) -> str:
    char = body[i]
    if char == "*":
        return "[^/]*"
    if char == "?":
        return "[^/]"
    if char == "\\" and i + 1 < len(body):
        return re.escape(body[i + 1])
    if char == "[" and "]" in body[i + 2 :]:
        inner = body[i + 1 : body.index("]", i + 2)]
        if inner.startswith("!"):
            inner = "^" + inner[1:]
        return "[" + inner.replace("\\", "\\\\") + "]"
    return re.escape(char)


def parse_line(line: str) -> Pattern | None:
    """One .gitignore line as a pattern, or None for blanks and comments."""
    text = re.sub(r"(?<!\\)\s+$", "", line.rstrip("\r\n"))
    if not text or text.startswith("#"):
        return None
    negated = text.startswith("!")
    text = text[1:] if negated else text.removeprefix("\\")
    dir_only = text.endswith("/")
    text = text.rstrip("/")
    if not text:
        return None
    anchored = "/" in text
    body = _translate(text.lstrip("/"))
    prefix = "" if anchored else "(?:.*/)?"
    try:
        regex = re.compile(f"^{prefix}{body}$", re.S)
    except re.error:
        return None
    return Pattern(regex, negated, dir_only)


def _decide(patterns: list[Pattern], path: str, is_dir: bool) -> bool | None:
    verdict: bool | None = None
    for pattern in patterns:
        if pattern.dir_only and not is_dir:
            continue
        if pattern.regex.match(path):
            verdict = not pattern.negated
    return verdict


def is_ignored(patterns: list[Pattern], path: str) -> bool:
    """Whether git ignores the file ``path`` (relative to the .gitignore folder)."""
    parts = path.split("/")
    for depth in range(1, len(parts)):
        if _decide(patterns, "/".join(parts[:depth]), True):
            return True
    return bool(_decide(patterns, path, False))


def sample_path(entry: str) -> str:
    """A file path that ``entry`` ignores (``agents/*/sessions/`` -> ``agents/x1/sessions/f1``)."""
    path = entry.replace("*", "x1")
    return path + "f1" if path.endswith("/") else path


def missing_defaults(text: str) -> list[str]:
    """The safe defaults that the .gitignore ``text`` does not cover."""
    patterns = [p for p in (parse_line(line) for line in text.splitlines()) if p is not None]
    return [entry for entry in SAFE_DEFAULTS if not is_ignored(patterns, sample_path(entry))]
