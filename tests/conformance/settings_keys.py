"""The top-level keys of Claude Code's settings schema, read from a release's executable.

Claude Code bundles its settings schema as a zod object whose first key is ``$schema``
(``$schema: ...describe("JSON Schema reference for Claude Code settings")``); this walks that
object literal (strings, template literals and brackets balanced) and gives each key the type
its schema expression starts with: what ``apc_tools/contract/checks/claude_settings_keys.py``
holds for 2.1.197 and 2.1.332. ``python -m tests.conformance.settings_keys EXE...`` prints the
merged table.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

MARKS = (
    b'$schema:()=>r().optional().describe("JSON Schema reference for Claude Code settings")',
    b'$schema:H.string().optional().describe("JSON Schema reference for Claude Code settings")',
)
# The minified constructors of the two releases (lazy `key:()=>r()` or `key:H.string()`)
HEADS = {"r": "string", "M": "boolean", "v": "number", "O": "array", "u": "object", "Te": "object"}
LONG = {"string": "r", "boolean": "M", "number": "v", "array": "O", "object": "u", "record": "Te"}


def _entries(text: str) -> list[str]:
    """The comma-separated entries of the object literal ``text`` starts with (``{...}``)."""
    depth, start, i, out = 0, 1, 0, []
    while i < len(text):
        c = text[i]
        if c in "\"'":
            i += 1
            while text[i] != c:
                i += 2 if text[i] == "\\" else 1
        elif c == "`":
            i += 1
            while text[i] != "`":
                if text[i] == "\\":
                    i += 1
                elif text.startswith("${", i):
                    nested, i = 1, i + 2
                    while nested:
                        nested += {"{": 1, "}": -1}.get(text[i], 0)
                        i += 1
                    continue
                i += 1
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                out.append(text[start:i])
                return out
        elif c == "," and depth == 1:
            out.append(text[start:i])
            start = i + 1
        i += 1
    return out


def _type(body: str) -> object:
    body = re.sub(
        r"^H\.(string|boolean|number|array|object|record|enum)\(",
        lambda m: LONG.get(m.group(1), "U") + "(",
        body,
    )
    if ".catch(" in body.split(".describe(")[0]:
        return None  # a bad value is dropped alone
    enum = re.match(r'U\(\[((?:"[^"]*",?)+)\]\)', body)
    if enum:
        return tuple(re.findall(r'"([^"]*)"', enum.group(1)))
    head = re.match(r"([A-Za-z]+)\(", body)
    return HEADS.get(head.group(1)) if head else None


def extract(executable: Path) -> dict[str, object]:
    data = executable.read_bytes()
    at = max(data.find(mark) for mark in MARKS)
    if at < 0:
        raise LookupError(f"no settings schema in {executable}")
    text = data[at - 1 : at + 1_000_000].decode("latin-1")
    out: dict[str, object] = {}
    for entry in _entries(text):
        found = re.match(r"\s*([A-Za-z_$][\w$]*):(?:\(\)=>)?(.*)$", entry, re.S)
        if found:
            out[found.group(1)] = _type(found.group(2))
    return out


def merged(*tables: dict[str, object]) -> dict[str, object]:
    """Every key of any release; its type where the releases that know it agree, else None."""
    out: dict[str, object] = {}
    for key in sorted({k for t in tables for k in t}, key=str.lower):
        types = {repr(t[key]): t[key] for t in tables if key in t}
        out[key] = next(iter(types.values())) if len(types) == 1 else None
    return out


if __name__ == "__main__":
    for key, kind in merged(*(extract(Path(p)) for p in sys.argv[1:])).items():
        print(f"    {key!r}: {kind!r},")
