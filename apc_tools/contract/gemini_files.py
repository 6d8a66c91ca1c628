"""Which files Gemini CLI loads besides ``GEMINI.md`` and ``.gemini/skills/``: the files of an
extension and the context files a project's settings name (issue 31 point 3).

- An **extension** is a folder holding ``gemini-extension.json`` (Gemini CLI 0.61.0 installs or
  links it under ``~/.gemini/extensions/<name>/``; a repository usually is one at its root). Its
  custom commands are ``commands/**/*.toml`` below that folder, its context files the ones its
  ``contextFileName`` names (a string or a list, relative to the folder; ``GEMINI.md`` when the
  key is absent).
- A project's ``.gemini/settings.json`` ``context.fileName`` (a string or a list) adds file names
  to ``GEMINI.md``: Gemini CLI loads every file of those names in the folders it searches, so
  each such file below the settings' folder is a context file, judged as a ``GEMINI.md``.

Pure functions over a file list and a reader (the text of a project file, or None); nothing
here parses more than these two JSON files, and a file that is not JSON names nothing.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping

EXTENSION_MANIFEST = "gemini-extension.json"
GEMINI_SETTINGS = ".gemini/settings.json"
DEFAULT_CONTEXT = "GEMINI.md"


def decides_kinds(rel: str) -> bool:
    """``rel`` is a file whose text decides the kinds of other files (an extension manifest,
    a project's Gemini settings): a cached kind table stands only while it is unchanged."""
    return rel in (EXTENSION_MANIFEST, GEMINI_SETTINGS) or rel.endswith(
        ("/" + EXTENSION_MANIFEST, "/" + GEMINI_SETTINGS)
    )


def _json(read: Callable[[str], str | None] | None, rel: str) -> object:
    text = read(rel) if read is not None else None
    if not text:
        return None
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # (nested past the parser's depth: names nothing)
        return None


def js_falsy(value: object) -> bool:
    """``!value`` in JavaScript for a JSON value (an empty list or object is truthy there):
    where Gemini CLI takes ``contextFileName`` as absent and loads ``GEMINI.md``."""
    return (
        value is None
        or value is False
        or value == ""
        or (isinstance(value, (int, float)) and not isinstance(value, bool) and value == 0)
    )


def names_of(value: object) -> list[str]:
    """The names of a ``contextFileName`` / ``context.fileName`` value (a string or a list of
    strings; other entries name nothing)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [v.strip() for v in value if isinstance(v, str) and v.strip()]


def context_rel(root: str, name: str) -> str | None:
    """The project path of an extension context file ``name`` of the extension at ``root``
    (``""`` or ending with ``/``), or None where Gemini CLI refuses the name (absolute, with
    ``..``, empty)."""
    if not name or name.startswith("/") or ".." in name or "\0" in name:
        return None
    if len(name) > 1 and name[1] == ":":  # a Windows drive path
        return None
    joined = posixpath.normpath(posixpath.join(root or ".", name))
    return None if joined in (".", "") or joined.startswith("../") else joined


def extension_roots(rels: Iterable[str]) -> list[str]:
    """The folders (``""`` or ending with ``/``) holding a ``gemini-extension.json``."""
    return [
        r[: -len(EXTENSION_MANIFEST)]
        for r in rels
        if r == EXTENSION_MANIFEST or r.endswith("/" + EXTENSION_MANIFEST)
    ]


def _extension_contexts(root: str, read: Callable[[str], str | None] | None) -> Iterator[str]:
    data = _json(read, root + EXTENSION_MANIFEST)
    value = data.get("contextFileName") if isinstance(data, dict) else None
    for name in [DEFAULT_CONTEXT] if js_falsy(value) else names_of(value):
        rel = context_rel(root, name)
        if rel is not None:
            yield rel


def _settings_names(
    rels: list[str], read: Callable[[str], str | None] | None
) -> list[tuple[str, list[str]]]:
    """(folder prefix, names) of each ``.gemini/settings.json`` naming context files."""
    out = []
    for rel in rels:
        if not (rel == GEMINI_SETTINGS or rel.endswith("/" + GEMINI_SETTINGS)):
            continue
        data = _json(read, rel)
        context = data.get("context") if isinstance(data, dict) else None
        names = names_of(context.get("fileName")) if isinstance(context, dict) else []
        names = [n for n in names if n != DEFAULT_CONTEXT and not n.startswith("/")]
        if names:
            out.append((rel[: -len(GEMINI_SETTINGS)], names))
    return out


def gemini_kinds(
    rels: Iterable[str],
    known: Mapping[str, str],
    read: Callable[[str], str | None] | None = None,
) -> dict[str, str]:
    """The kinds of the files Gemini CLI loads through an extension or the project settings:
    ``gemini-command`` (an extension's ``commands/**/*.toml``) and ``gemini-md`` (a context file
    an extension manifest or ``context.fileName`` names), for files ``known`` has no kind for."""
    rels = list(rels)
    out: dict[str, str] = {}
    roots = extension_roots(rels)
    settings = _settings_names(rels, read) if read is not None else []
    if not roots and not settings:
        return out
    present = set(rels)
    for root in roots:
        prefix = root + "commands/"
        for rel in rels:
            if rel.startswith(prefix) and rel.endswith(".toml") and rel not in known:
                out[rel] = "gemini-command"
        for rel in _extension_contexts(root, read):
            if rel in present and rel not in known and rel.endswith(".md"):
                out[rel] = "gemini-md"
    for prefix, names in settings:
        wanted = set(names)
        for rel in rels:
            if rel in known or rel in out or not rel.startswith(prefix) or not rel.endswith(".md"):
                continue
            below = rel[len(prefix) :]
            if below.rsplit("/", 1)[-1] in wanted or any(
                below == n or below.endswith("/" + n) for n in wanted if "/" in n
            ):
                out[rel] = "gemini-md"
    return out
