"""Claude Code plugins: the manifest (``.claude-plugin/plugin.json``), a plugin's
``hooks/hooks.json`` and a marketplace (``.claude-plugin/marketplace.json``), judged as Claude
Code reads them when it loads a plugin (observed with Claude Code 2.1.197 and 2.1.332 against
the conformance suite's loopback mock: tests/conformance).

The manifest decides whether anything of the plugin loads: a value Claude Code's manifest
schema refuses (an `agents` entry that is not a `./...md` file, a `skills` or `commands` entry
without `./`, a `version` that is not a string...) makes it refuse the whole plugin, none of
its agents, commands or skills reaching the model. The structure comes from the published
schema (schemas/plugin.schema.json); which keys cost the plugin and which are only ignored
(metadata, in 2.1.332) is this module's table.
"""

from __future__ import annotations

import functools
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from apc_tools.contract.checks import hooks as hook_checks
from apc_tools.contract.project import (
    MARKETPLACE,
    PLUGIN_FOLDERS,
    PLUGIN_HOOKS,
    PLUGIN_MANIFEST,
    Doc,
    Project,
    plugin_source_root,
)
from apc_tools.core.parse import Located, Pos
from apc_tools.core.schemas import SchemaError
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "plugins"
_rule = rule_family(FAMILY)

JsonPath = tuple[str | int, ...]

MANIFEST_GOOD = (
    '.claude-plugin/plugin.json:\n{"name": "review-tools", "version": "1.0.0", '
    '"agents": ["./agents/reviewer.md"], "skills": ["./skills/lint"]}\n'
)

REFUSED = _rule(
    "PLG001",
    "plugin-manifest-refused",
    Severity.ERROR,
    "A plugin manifest value that Claude Code's manifest schema refuses: Claude Code loads "
    "none of the plugin.",
    "Claude Code validates `.claude-plugin/plugin.json` when it loads the plugin and refuses "
    "the whole plugin on a value of the wrong shape (`Failed to load ... plugin` in its debug "
    "log): none of its agents, commands, skills or hooks load. Seen with Claude Code 2.1.197 "
    "and 2.1.332: an `agents` entry that is not a `./...md` file (a folder such as `./agents` "
    "is refused), a `version` that is not a string, a `name` missing or holding spaces, a file "
    "that is not JSON. A relative path that lacks only its `./` is PLG010 (which `--fix` "
    "repairs).",
    MANIFEST_GOOD,
    '.claude-plugin/plugin.json:\n{"name": "review-tools", "agents": "./agents"}\n',
)
NO_PREFIX = _rule(
    "PLG010",
    "plugin-path-without-dot-slash",
    Severity.ERROR,
    "A relative path in a plugin manifest's lists without the `./` Claude Code requires: "
    "Claude Code loads none of the plugin.",
    "Claude Code validates `.claude-plugin/plugin.json` (and a marketplace entry that is its "
    "plugin's manifest) when it loads the plugin: a `skills`, `commands`, `agents`, `hooks`, "
    "`mcpServers`, `outputStyles` or `lspServers` path must start with `./` (relative to the "
    "plugin root), else the whole plugin is refused (seen with Claude Code 2.1.197 and "
    "2.1.332). The other causes of a refused manifest are PLG001. `--fix` adds the `./`.",
    MANIFEST_GOOD,
    '.claude-plugin/plugin.json:\n{"name": "review-tools", "skills": ["skills/lint"]}\n',
)
IGNORED = _rule(
    "PLG002",
    "plugin-manifest-metadata-shape",
    Severity.ERROR,
    "A plugin manifest metadata value of the wrong shape: Claude Code 2.1.197 refuses the "
    "whole plugin, 2.1.332 ignores the key.",
    "Claude Code 2.1.197 refuses the whole plugin for a metadata key of the wrong shape "
    "(`author` as a string, `repository` as an object, `keywords` as a string, `homepage` not "
    "a URL, `description` or `license` not a string); Claude Code 2.1.332 drops the key with a "
    "warning in its debug log and loads the plugin. The stricter reading stands (a separate "
    "rule, so that a project on 2.1.332 only may lower it in its policy). Write `author` as "
    '`{"name": "..."}`, `repository` as a URL string, `keywords` as a list.',
    MANIFEST_GOOD,
    '.claude-plugin/plugin.json:\n{"name": "review-tools", "author": "Ana"}\n',
)
LISTED_MISSING = _rule(
    "PLG003",
    "plugin-listed-file-missing",
    Severity.ERROR,
    "A file or folder a plugin manifest lists (`agents`, `commands`, `skills`, `hooks`) does "
    "not exist.",
    "Claude Code logs `... path specified in manifest but not found` and loads the rest of the "
    "plugin without it (2.1.332). Fix the path or add the file.",
    MANIFEST_GOOD,
    '.claude-plugin/plugin.json:\n{"name": "review-tools", "agents": ["./reviewer.md"]}\n'
    "(no reviewer.md at the plugin root)",
)
NOT_LOADED = _rule(
    "PLG004",
    "plugin-agent-not-listed",
    Severity.WARNING,
    "A Markdown file among a plugin's agents that its manifest's `agents` list does not name: "
    "nothing loads it.",
    "When the manifest lists `agents`, Claude Code loads exactly those files and no longer "
    "reads the `agents/` folder (Claude Code 2.1.197 and 2.1.332). A subagent file in "
    "`agents/`, or beside the listed files, that the list leaves out is never loaded: add it "
    "to the list or remove it.",
    MANIFEST_GOOD + "agents/reviewer.md",
    MANIFEST_GOOD + "agents/reviewer.md, agents/tester.md (not listed)",
)
MARKET_SHAPE = _rule(
    "PLG005",
    "marketplace-shape",
    Severity.ERROR,
    "A plugin marketplace lacks its `name` or `plugins` list, or a plugin entry its `name` or "
    "`source`.",
    'Claude Code reads `.claude-plugin/marketplace.json` as `{"name": ..., "owner": {...}, '
    '"plugins": [{"name": ..., "source": ...}]}`: it refuses a marketplace without `name` or '
    "`plugins` and drops a plugin entry without `name` or `source` (2.1.332), so that plugin "
    "cannot be installed.",
    '.claude-plugin/marketplace.json:\n{"name": "tools", "owner": {"name": "Ana"}, "plugins": '
    '[{"name": "review", "source": "./plugins/review"}]}\n',
    '.claude-plugin/marketplace.json:\n{"name": "tools", "plugins": [{"source": "./review"}]}\n',
)
SOURCE_MISSING = _rule(
    "PLG006",
    "marketplace-source-missing",
    Severity.ERROR,
    "A marketplace plugin's relative `source` names a folder that does not exist.",
    "Claude Code installs a plugin of a local marketplace from the folder its `source` names "
    "(relative to the marketplace root, after `metadata.pluginRoot`); a folder that is not "
    "there cannot be installed. Fix the path.",
    '.claude-plugin/marketplace.json:\n{"name": "tools", "plugins": [{"name": "review", '
    '"source": "./plugins/review"}]}\n(plugins/review/ exists)',
    '.claude-plugin/marketplace.json:\n{"name": "tools", "plugins": [{"name": "review", '
    '"source": "./plugins/reveiw"}]}\n',
)
DUPLICATE = _rule(
    "PLG007",
    "marketplace-duplicate-plugin",
    Severity.ERROR,
    "Two plugins of one marketplace have the same name.",
    "Claude Code addresses a plugin as `name@marketplace` and installs the first entry of a "
    "name (2.1.332): a later entry of the same name is never installed. Rename one.",
    '.claude-plugin/marketplace.json:\n{"name": "tools", "plugins": [{"name": "a", "source": '
    '"./a"}, {"name": "b", "source": "./b"}]}\n',
    '.claude-plugin/marketplace.json:\n{"name": "tools", "plugins": [{"name": "a", "source": '
    '"./a"}, {"name": "a", "source": "./b"}]}\n',
)
RESERVED = _rule(
    "PLG008",
    "marketplace-name-reserved",
    Severity.ERROR,
    "A marketplace name reserved for Anthropic's official marketplaces (or one that "
    "impersonates them).",
    "Claude Code refuses to add a marketplace whose name is reserved for its vendor's "
    "official marketplaces (`claude-plugins-official`, `anthropic-marketplace`, "
    "`agent-skills`, `claude-code-plugins`, ...) unless it comes from Anthropic's GitHub "
    "organisation, and one whose name impersonates them (`official-claude-tools`, "
    "`claude-marketplace-x`). Choose another name.",
    '.claude-plugin/marketplace.json:\n{"name": "acme-tools", "plugins": []}\n',
    '.claude-plugin/marketplace.json:\n{"name": "claude-plugins-official", "plugins": []}\n',
)
HOOKS_SHAPE = _rule(
    "PLG009",
    "plugin-hooks-file-shape",
    Severity.ERROR,
    "A plugin's hooks/hooks.json declares its events at the top level instead of inside "
    '`"hooks"`.',
    'A plugin\'s `hooks/hooks.json` is `{"description": ..., "hooks": {EVENT: [...]}}`. With '
    "the events at its top level Claude Code 2.1.332 refuses the whole plugin when one of them "
    "guards permissions (PreToolUse, PermissionRequest) and loads none of its hooks otherwise; "
    'Claude Code 2.1.197 loads none of its hooks. Move the events under `"hooks"`.',
    hook_checks.GOOD,
    '{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "x"}]}]}',
)

RULES = (
    REFUSED,
    NO_PREFIX,
    IGNORED,
    LISTED_MISSING,
    NOT_LOADED,
    MARKET_SHAPE,
    SOURCE_MISSING,
    DUPLICATE,
    RESERVED,
    HOOKS_SHAPE,
)

# Metadata keys whose value of the wrong shape Claude Code 2.1.332 ignores (the plugin loads);
# 2.1.197 refused the plugin for each (observed: author, repository, keywords, homepage,
# description, license).
METADATA = frozenset({"author", "repository", "keywords", "homepage", "description", "license"})
# The manifest keys whose paths Claude Code resolves against the plugin root, and the fixer's
# candidates for a missing ``./``.
PATH_KEYS = ("agents", "commands", "skills", "hooks", "outputStyles", "mcpServers", "lspServers")

_WHOLE = "none of its agents, commands, skills or hooks load"

# Names Claude Code 2.1.332 reserves for Anthropic's official marketplaces (its bundled code).
RESERVED_NAMES = frozenset(
    {
        "claude-code-marketplace",
        "claude-code-plugins",
        "claude-plugins-official",
        "anthropic-marketplace",
        "anthropic-plugins",
        "agent-skills",
        "anthropic-agent-skills",
        "life-sciences",
        "knowledge-work-plugins",
        "claude-for-legal",
        "claude-for-financial-services",
        "financial-services-plugins",
        "first-party-plugins",
        "claude-tag-plugins",
        "claude-community",
        "claude-plugins-community",
        "healthcare",
        "anthropic-plugin-directory",
        "claude-plugin-directory",
    }
)
# Names of other sources of plugins (Claude Code's own marketplaces of session plugins).
SESSION_NAMES = frozenset({"inline", "builtin", "skills-dir", "synced", "claude-plugin-test"})
_OFFICIAL = r"official[^a-z0-9]*(?:anthropic|claude)|(?:anthropic|claude)[^a-z0-9]*official"
_IMPERSONATES = re.compile(
    rf"(?:{_OFFICIAL}|^(?:anthropic|claude)[^a-z0-9]*(?:marketplace|plugins|official|directory|"
    r"directories))",
    re.I,
)


def reserved_reason(name: str) -> str | None:
    """Why Claude Code 2.1.332 refuses a local marketplace called ``name``, or None."""
    low = name.lower()
    if low in RESERVED_NAMES:
        return "is reserved for Anthropic's official marketplaces"
    if low in SESSION_NAMES:
        return f"is reserved for Claude Code's own '{low}' plugins"
    trimmed = re.sub(r"^[^a-z0-9]+", "", name, flags=re.I)
    if _IMPERSONATES.search(name) or _IMPERSONATES.search(trimmed):
        return "impersonates an official Anthropic/Claude marketplace"
    squashed = re.sub(r"[^a-z0-9]+", "", low)
    if re.search(r"official(?:anthropic|claude)|(?:anthropic|claude)official", squashed):
        return "impersonates an official Anthropic/Claude marketplace"
    return None


# --------------------------------------------------------------------------- helpers


def _pos(meta: Located, path: JsonPath, *, key: bool = False) -> Pos:
    found = meta.key_at(path) if key else meta.at(path)
    return found or Pos(1, 1)


def _at(rule: Any, doc: Doc, path: JsonPath, message: str, *, key: bool = False) -> Finding:
    meta = doc.meta
    pos = _pos(meta, path, key=key) if meta is not None else Pos(1, 1)
    return rule.finding(doc.path, message, pos.line, pos.column)


def plugin_root(rel: str, suffix: str) -> str:
    """The plugin folder of the file ``rel`` that ends with ``suffix`` ("" or ending in /)."""
    return rel[: -len(suffix)]


def plugin_name(project: Project, root: str) -> str:
    """The plugin's name: its manifest's `name`, else its folder's name."""
    for doc in project.docs:
        if doc.kind == "plugin-manifest" and doc.rel == root + PLUGIN_MANIFEST:
            name = doc.data.get("name")
            if isinstance(name, str) and name.strip():
                return name.strip()
    folder = root.rstrip("/").rsplit("/", 1)[-1]
    return folder or posixpath.basename(str(project.root)) or "plugin"


def _exists(project: Project, rel: str) -> bool:
    rel = rel.rstrip("/")
    if not rel:
        return True
    return rel in project.files or rel in project.folders or project.probe("exists", rel)


def _inside(root: str, path: str) -> str | None:
    """``path`` (a manifest entry) resolved against the plugin root, or None when it leaves the
    plugin or is not a relative path."""
    if "://" in path or path.startswith(("/", "~")):
        return None
    joined = posixpath.normpath(posixpath.join(root or ".", path))
    if joined.startswith("..") or (root and not (joined + "/").startswith(root)):
        return None
    return "" if joined == "." else joined


# --------------------------------------------------------------------------- the manifest


def _schema_findings(doc: Doc, data: Mapping[str, Any], name: str) -> Iterator[Finding]:
    """The manifest against schemas/plugin.schema.json. Its top-level keys whose value is one of
    several shapes (``anyOf``: a path or a list of paths...) are explained here from the
    schema's own alternatives, so that a refused manifest does not bring in jsonschema (~100 ms
    to import) to explain an ``anyOf``; the rest goes to :func:`schema_errors`."""
    for error in manifest_errors(data):
        yield _schema_finding(doc, error, name, _prefix_only(data, error))


@functools.cache
def _shaped_keys() -> frozenset[str]:
    """The plugin schema's top-level keys of several shapes (``anyOf``)."""
    from apc_tools.core.schemas import load_plugin_schema

    properties = load_plugin_schema().get("properties", {})
    return frozenset(k for k, v in properties.items() if isinstance(v, dict) and "anyOf" in v)


def manifest_errors(data: Mapping[str, Any]) -> list[SchemaError]:
    """``data`` against the plugin schema; its ``anyOf`` keys explained by :func:`_shape_errors`."""
    from apc_tools.core.schemas import load_plugin_schema, schema_errors

    properties = load_plugin_schema().get("properties", {})
    shaped = _shaped_keys()
    rest = {k: v for k, v in data.items() if k not in shaped}
    errors = schema_errors("plugin", rest)
    for key in sorted(shaped & set(data)):
        errors += _shape_errors((key,), data[key], properties[key])
    return sorted(errors, key=lambda e: [str(p) for p in e.path])


def _prefix_only(data: Mapping[str, Any], error: SchemaError) -> bool:
    """The error is a relative path of the lists that only lacks its ``./`` (PLG010)."""
    from apc_tools.core.schemas import load_plugin_schema

    path = error.path
    if error.validator != "pattern" or not path or path[0] not in PATH_KEYS or len(path) > 2:
        return False
    value = data.get(str(path[0]))
    entry = value[int(path[1])] if len(path) == 2 and isinstance(value, list) else value
    if not isinstance(entry, str) or not _relative(entry):
        return False
    fixed: Any = "./" + entry
    if len(path) == 2 and isinstance(value, list):
        fixed = [*value[: int(path[1])], fixed, *value[int(path[1]) + 1 :]]
    node = load_plugin_schema()["properties"][path[0]]
    return not any(e.path == path for e in _shape_errors(path[:1], fixed, node))


def _relative(entry: str) -> bool:
    bad = ("./", "/", "~", "../", ".\\")
    return not (
        entry.startswith(bad) or entry in (".", "..", "") or "://" in entry or "\\" in entry
    )


_JSON_TYPES: dict[str, type | tuple[type, ...]] = {
    "string": str,
    "array": list,
    "object": dict,
    "number": (int, float),
    "integer": int,
    "boolean": bool,
}


def _shape_errors(path: JsonPath, value: Any, node: Mapping[str, Any]) -> list[SchemaError]:
    """``value`` against schema ``node``: its ``anyOf`` alternative of the value's JSON type
    (the one jsonschema's ``best_match`` descends into), that alternative's ``pattern`` and
    ``items``; the messages are the schema's own (``x-apc-messages``)."""
    options = node.get("anyOf", [node])
    kind = next((o for o in options if _is_type(value, o.get("type"))), None)
    if kind is None:
        types = " or ".join(dict.fromkeys(str(o.get("type")) for o in options))
        return [SchemaError(path, None, f"must be {_a(types)}", "anyOf")]
    messages = kind.get("x-apc-messages", {})
    if isinstance(value, str) and "pattern" in kind and not re.search(kind["pattern"], value):
        message = messages.get("pattern", f"does not match {kind['pattern']!r}")
        return [SchemaError(path, None, message, "pattern")]
    if isinstance(value, list) and isinstance(kind.get("items"), dict):
        found: list[SchemaError] = []
        for i, item in enumerate(value):
            found += _shape_errors((*path, i), item, kind["items"])
        return found
    return []


def _is_type(value: Any, name: object) -> bool:
    wanted = _JSON_TYPES.get(str(name))
    if wanted is None or (isinstance(value, bool) and name != "boolean"):
        return False
    return isinstance(value, wanted)


def _a(types: str) -> str:
    return ("an " if types[:1] in "aeiou" else "a ") + types


def _schema_finding(doc: Doc, error: SchemaError, name: str, prefix: bool = False) -> Finding:
    top = error.path[0] if error.path else error.key
    label = error.json_path
    if error.validator == "required" and not error.path:
        return _at(
            REFUSED,
            doc,
            (),
            f"$.{error.key}: missing; Claude Code refuses the whole plugin without a `name` "
            f"({_WHOLE}): add it (kebab-case)",
        )
    if top in METADATA:
        return _at(
            IGNORED,
            doc,
            error.path,
            f"{label}: {error.message}; Claude Code 2.1.197 refuses the whole plugin '{name}' "
            f"for it ({_WHOLE}), 2.1.332 ignores `{top}` and loads the plugin",
        )
    return _at(
        NO_PREFIX if prefix else REFUSED,
        doc,
        error.path,
        f"{label}: {error.message}; Claude Code refuses the whole plugin '{name}' ({_WHOLE})",
    )


def _entries(value: Any) -> Iterator[tuple[JsonPath, str]]:
    if isinstance(value, str):
        yield (), value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, str):
                yield (i,), item


def _listed_missing(
    doc: Doc, project: Project, root: str, data: Mapping[str, Any], base: JsonPath, name: str
) -> Iterator[Finding]:
    for key in ("agents", "commands", "skills", "hooks"):
        for sub, entry in _entries(data.get(key)):
            if not entry.startswith("./") and entry != ".":
                continue  # refused by the schema (PLG001) before any file is looked for
            target = _inside(root, entry)
            if target is None or _exists(project, target):
                continue
            yield _at(
                LISTED_MISSING,
                doc,
                (*base, key, *sub),
                f"{hook_checks.dotted((*base, key, *sub))}: '{entry}' does not exist in plugin "
                f"'{name}'; Claude Code loads the plugin without it: fix the path or add the file",
            )


_DOCUMENT = re.compile(
    r"^(?:readme|index|overview|contributing|changelog|license|summary|toc|agents|claude|"
    r"security|code_of_conduct|notice|authors)(?:[._-].*)?\.md\Z",
    re.I,
)


def _unlisted_agents(
    doc: Doc, project: Project, root: str, listed: list[str], name: str
) -> Iterator[Finding]:
    """Markdown files in ``agents/`` and beside listed agents that the list leaves out."""
    wanted = {p for p in listed if p.endswith(".md")}
    folders = {posixpath.dirname(p) for p in wanted} | {"agents"}
    found: list[tuple[str, str]] = []  # (folder, file) of each unlisted agent
    by_folder = project.files_by_folder
    for folder in folders:
        where = (root + folder if folder else root).rstrip("/")
        for file in by_folder.get(where, ()):
            rest = f"{folder}/{file}" if folder else file
            if file.endswith(".md") and rest not in wanted and not _DOCUMENT.match(file):
                found.append((folder, rest))
    for _, rest in sorted(found):
        yield _at(
            NOT_LOADED,
            doc,
            ("agents",),
            f"$.agents: does not list '{rest}', so Claude Code never loads it (a listed "
            f"`agents` replaces the agents/ folder of plugin '{name}'): add "
            f'"./{rest}" to the list, or remove the file',
        )


def check_manifest(doc: Doc, project: Project) -> Iterator[Finding]:
    """`.claude-plugin/plugin.json`."""
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict):
        return
    data = meta.data
    root = plugin_root(doc.rel, PLUGIN_MANIFEST)
    name = data.get("name") if isinstance(data.get("name"), str) else None
    shown = name or root.rstrip("/").rsplit("/", 1)[-1] or "plugin"
    found = list(_schema_findings(doc, data, shown))
    yield from found
    if any(f.rule in (REFUSED.id, NO_PREFIX.id) for f in found):
        return  # nothing of the plugin loads: what it lists is not looked at
    yield from _listed_missing(doc, project, root, data, (), shown)
    from apc_tools.contract.project import listed_paths

    listed = listed_paths(data.get("agents"))
    if listed is not None:
        yield from _unlisted_agents(doc, project, root, listed, shown)


# --------------------------------------------------------------------------- hooks/hooks.json


def _hooks_cost(name: str) -> Callable[[str | None], str]:
    def cost(event: str | None) -> str:
        if event in hook_checks.GUARD_EVENTS:
            return (
                f"Claude Code 2.1.332 refuses the whole plugin '{name}' for it ({_WHOLE}); "
                "2.1.197 loads the plugin without its hooks"
            )
        if event is None:
            return (
                f"Claude Code 2.1.332 refuses the whole plugin '{name}' for it ({_WHOLE}); "
                "2.1.197 loads the plugin without its hooks"
            )
        return (
            f"Claude Code 2.1.332 ignores this entry; 2.1.197 loads none of plugin '{name}''s hooks"
        )

    return cost


def check_plugin_hooks(doc: Doc, project: Project) -> Iterator[Finding]:
    """A plugin's `hooks/hooks.json`."""
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict):
        return
    data = meta.data
    name = plugin_name(project, plugin_root(doc.rel, PLUGIN_HOOKS))
    events = [key for key in data if key in hook_checks.EVENTS]
    if "hooks" not in data:
        guards = [e for e in events if e in hook_checks.GUARD_EVENTS]
        cost = (
            f"Claude Code 2.1.332 refuses the whole plugin '{name}' ({_WHOLE}) since "
            f"{'/'.join(guards)} guards permissions"
            if guards
            else f"Claude Code loads none of plugin '{name}''s hooks"
        )
        what = f"declares {', '.join(events)} at its top level" if events else "has no `hooks`"
        yield _at(
            HOOKS_SHAPE,
            doc,
            (events[0],) if events else (),
            f'$: {what}, outside the "hooks" object; {cost}: move the events under '
            '`"hooks": {...}`',
            key=bool(events),
        )
        return
    place = hook_checks.Place(meta, ("hooks",), doc.path, _hooks_cost(name))
    yield from hook_checks.check_hooks(data["hooks"], place)


# --------------------------------------------------------------------------- marketplace


def _market_entry(
    doc: Doc, project: Project, index: int, entry: Mapping[str, Any], base: str, prefix: Any
) -> Iterator[Finding]:
    where: JsonPath = ("plugins", index)
    name = entry.get("name")
    if not isinstance(name, str) or not name.strip():
        yield _at(
            MARKET_SHAPE,
            doc,
            where,
            f"$.plugins[{index}]: has no `name` (a string); Claude Code drops this entry, so "
            "its plugin cannot be installed",
        )
    source = entry.get("source")
    if source is None:
        yield _at(
            MARKET_SHAPE,
            doc,
            where,
            f"$.plugins[{index}]: has no `source`; Claude Code drops this entry, so its plugin "
            "cannot be installed",
        )
        return
    root = plugin_source_root(base, entry, prefix)
    if root is None:
        return  # a repository, a URL, or a path outside the tree: not checked here
    shown = name if isinstance(name, str) else f"plugins[{index}]"
    if root and not _exists(project, root):
        yield _at(
            SOURCE_MISSING,
            doc,
            (*where, "source"),
            f"$.plugins[{index}].source: '{source}' names {root.rstrip('/')}/, which does not "
            f"exist; Claude Code cannot install plugin '{shown}' from it",
        )
        return
    has_manifest = (root + PLUGIN_MANIFEST) in project.files
    if entry.get("strict") is False or not has_manifest:
        # the entry is the plugin's manifest: its lists are read as a manifest's
        yield from _inline_lists(doc, project, root, entry, where, shown)


def _inline_lists(
    doc: Doc, project: Project, root: str, entry: Mapping[str, Any], where: JsonPath, name: str
) -> Iterator[Finding]:
    subset = {k: entry[k] for k in PLUGIN_FOLDERS.keys() | {"skills", "hooks"} if k in entry}
    refused = False
    for error in manifest_errors({"name": "x", **subset}):
        refused = True
        yield _at(
            NO_PREFIX if _prefix_only(subset, error) else REFUSED,
            doc,
            (*where, *error.path),
            f"{hook_checks.dotted((*where, *error.path))}: {error.message}; Claude Code "
            f"refuses to install plugin '{name}' (its marketplace entry is its manifest)",
        )
    if not refused:
        yield from _listed_missing(doc, project, root, subset, where, name)


def check_marketplace(doc: Doc, project: Project) -> Iterator[Finding]:
    """`.claude-plugin/marketplace.json`."""
    meta = doc.meta
    if meta is None or not isinstance(meta.data, dict):
        return
    data = meta.data
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        yield _at(
            MARKET_SHAPE,
            doc,
            (),
            "$.name: missing or not a string; Claude Code refuses a marketplace without a name",
        )
    else:
        reason = reserved_reason(name)
        if reason:
            yield _at(
                RESERVED,
                doc,
                ("name",),
                f"$.name: '{name}' {reason}; Claude Code refuses to add this marketplace: "
                "choose another name",
            )
    plugins = data.get("plugins")
    if not isinstance(plugins, list):
        yield _at(
            MARKET_SHAPE,
            doc,
            ("plugins",) if "plugins" in data else (),
            "$.plugins: must be a list of plugin entries; Claude Code refuses the marketplace",
        )
        return
    base = plugin_root(doc.rel, MARKETPLACE)
    meta_block = data.get("metadata")
    prefix = meta_block.get("pluginRoot") if isinstance(meta_block, dict) else None
    seen: dict[str, int] = {}
    for index, entry in enumerate(plugins):
        if not isinstance(entry, dict):
            yield _at(
                MARKET_SHAPE,
                doc,
                ("plugins", index),
                f"$.plugins[{index}]: must be an object; Claude Code refuses the marketplace",
            )
            continue
        entry_name = entry.get("name")
        if isinstance(entry_name, str) and entry_name.strip():
            if entry_name in seen:
                yield _at(
                    DUPLICATE,
                    doc,
                    ("plugins", index, "name"),
                    f"$.plugins[{index}].name: '{entry_name}' is also the name of "
                    f"plugins[{seen[entry_name]}]; Claude Code installs only the first as "
                    f"{entry_name}@<marketplace>, never this one: rename one",
                )
            else:
                seen[entry_name] = index
        yield from _market_entry(doc, project, index, entry, base, prefix)


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {
    "plugin-manifest": (check_manifest,),
    "plugin-hooks": (check_plugin_hooks,),
    "plugin-marketplace": (check_marketplace,),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
