"""Glob matching with ``**`` (any number of folders), as Cursor rules and policy files use it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache


@cache
def compile_glob(pattern: str) -> re.Pattern[str]:
    """Translate a glob to a regex over POSIX paths: ``**`` spans folders, ``*`` does not.

    A pattern without a slash matches the file name in any folder (``*.ts`` == ``**/*.ts``).
    """
    pat = pattern.strip().lstrip("/")
    if pat.startswith("./"):
        pat = pat[2:]
    if "/" not in pat.rstrip("/"):
        pat = "**/" + pat
    if pat.endswith("/"):
        pat += "**"
    out: list[str] = []
    i = 0
    while i < len(pat):
        if pat.startswith("**/", i):
            out.append("(?:[^/]+/)*")
            i += 3
        elif pat.startswith("**", i):
            out.append(".*")
            i += 2
        elif pat[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pat[i] == "?":
            out.append("[^/]")
            i += 1
        elif pat[i] == "{" and "}" in pat[i:]:
            end = pat.index("}", i)
            options = pat[i + 1 : end].split(",")
            out.append("(?:" + "|".join(re.escape(o) for o in options) + ")")
            i = end + 1
        elif pat[i] == "[" and "]" in pat[i + 1 :]:
            end = pat.index("]", i + 1)
            body = pat[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end + 1
        else:
            out.append(re.escape(pat[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def glob_match(pattern: str, path: str) -> bool:
    try:
        return compile_glob(pattern).match(path) is not None
    except re.error:
        return False


def any_match(pattern: str, paths: Iterable[str]) -> bool:
    try:
        regex = compile_glob(pattern)
    except re.error:
        return False
    return any(regex.match(p) for p in paths)
