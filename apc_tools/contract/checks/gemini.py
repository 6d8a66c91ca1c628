"""Gemini CLI extensions and custom commands: ``gemini-extension.json`` and the ``*.toml``
commands of a project (``.gemini/commands/**``) or an extension (``commands/**``).

What Gemini CLI 0.61.0 does with each, observed against the loopback mock (the conformance
suite's ``gemini-ext`` tree) and read in its source (``ExtensionManager.loadExtensionConfig``,
``resolveContextFilePaths``, ``FileCommandLoader``, ``SlashCommandResolver``):

- an extension manifest that is not JSON, has no ``name`` or ``version``, or whose ``name`` has
  other characters than letters, digits and ``-``: the **whole extension is skipped** ("Warning:
  Skipping extension in ..."), none of its context files, commands or MCP servers load;
- a ``contextFileName`` entry that is not a non-empty string, is absolute or holds ``..`` is
  dropped with a warning, one naming no file silently: the file meant never reaches the model;
- ``excludeTools`` given as a string is not applied (the tool stays declared);
- a command TOML that does not parse, lacks ``prompt`` or has a non-string ``prompt`` or
  ``description`` is **skipped** with an error message; other keys are ignored;
- a command named like a built-in command (``help.toml``) loads as ``/workspace.help``, and two
  files of one folder that give the same name (``a b.toml``, ``a_b.toml``: characters other than
  letters, digits, ``_``, ``-`` and ``.`` become ``_``) are both renamed;
- a ``!{...}`` in a prompt runs a shell command each time the command is used: in a
  non-interactive run under the default approval mode Gemini CLI's policy refuses it and the
  run fails ("Blocked by policy").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.checks.agents_md import exists
from apc_tools.contract.gemini_files import (
    EXTENSION_MANIFEST,
    context_rel,
    extension_roots,
    js_falsy,
)
from apc_tools.contract.project import Doc, Project
from apc_tools.core import detect
from apc_tools.findings import Finding, Rule, Severity, rule_family

FAMILY = "gemini"
_rule = rule_family(FAMILY)

NAME = re.compile(r"\A[a-zA-Z0-9-]+\Z")
MANIFEST_KEYS = frozenset(
    {
        "name",
        "version",
        "mcpServers",
        "contextFileName",
        "excludeTools",
        "settings",
        "themes",
        "plan",
        "migratedTo",
        "description",  # not read by the loader, but written by nearly every extension
    }
)
COMMAND_KEYS = frozenset({"prompt", "description"})
# Gemini CLI 0.61.0's built-in slash commands (BuiltinCommandLoader; some only when a feature
# is on): a custom command of the same name is renamed `/workspace.<name>` (or
# `/<extension>:<name>`).
BUILT_IN = frozenset(
    {
        "about",
        "agents",
        "auth",
        "bug",
        "bug-memory",
        "chat",
        "clear",
        "commands",
        "compress",
        "copy",
        "corgi",
        "directory",
        "docs",
        "editor",
        "export-session",
        "extensions",
        "footer",
        "help",
        "hooks",
        "ide",
        "init",
        "mcp",
        "memory",
        "model",
        "permissions",
        "plan",
        "policies",
        "privacy",
        "quit",
        "restore",
        "resume",
        "rewind",
        "settings",
        "setup-github",
        "shortcuts",
        "skills",
        "stats",
        "terminal-setup",
        "theme",
        "tools",
        "vim",
    }
)

EXTENSION_SKIPPED = _rule(
    "GEX001",
    "gemini-extension-skipped",
    Severity.ERROR,
    "A `gemini-extension.json` lacks `name` or `version`, or its `name` is not letters, digits "
    "and `-`: Gemini CLI skips the whole extension.",
    "Gemini CLI loads an extension only when its manifest is a JSON object with a non-empty "
    "`name` of letters (a-z, A-Z), digits and dashes and a non-empty `version`; otherwise it "
    "prints `Skipping extension in ...` and none of its context files, commands or MCP servers "
    "load. A manifest that is not JSON is JSN001.",
    'gemini-extension.json:\n{"name": "my-tools", "version": "1.0.0"}',
    'gemini-extension.json:\n{"name": "my_tools"}',
)
CONTEXT_NOT_LOADED = _rule(
    "GEX002",
    "gemini-extension-context-missing",
    Severity.ERROR,
    "A `contextFileName` of a `gemini-extension.json` names no file of the extension, or a "
    "path Gemini CLI refuses: that context is never loaded.",
    "Gemini CLI resolves each name against the extension folder and loads the files that exist; "
    "a name that is absolute, holds `..` or is not a non-empty string is dropped with a warning, "
    "a missing file silently. Once `contextFileName` is set, `GEMINI.md` is no longer loaded in "
    "its place. Fix the name or add the file.",
    'gemini-extension.json:\n{"name": "x", "version": "1.0.0", "contextFileName": "CONTEXT.md"}'
    "\n   (CONTEXT.md exists)",
    'gemini-extension.json:\n{"name": "x", "version": "1.0.0", "contextFileName": "../CONTEXT.md"}',
)
EXCLUDE_TOOLS = _rule(
    "GEX003",
    "gemini-extension-exclude-tools",
    Severity.ERROR,
    "`excludeTools` of a `gemini-extension.json` is not a list of tool names: Gemini CLI does "
    "not exclude the tool.",
    'Gemini CLI reads `excludeTools` as a list of strings (`["run_shell_command"]`); given as '
    "one string, the tool stays available to the model.",
    'gemini-extension.json:\n{"name": "x", "version": "1", "excludeTools": ["web_fetch"]}',
    'gemini-extension.json:\n{"name": "x", "version": "1", "excludeTools": "web_fetch"}',
)
EXTENSION_FIELD = _rule(
    "GEX004",
    "gemini-extension-field",
    Severity.WARNING,
    "A `gemini-extension.json` value is not in the form Gemini CLI's manifest describes, or a "
    "key is not one it reads.",
    "`version` is a string, `mcpServers` an object of server objects, `settings` and `themes` "
    "lists, `plan` an object; Gemini CLI may misread another shape. An unknown key (often a "
    "misspelt `contextFileName`) is ignored: info.",
    'gemini-extension.json:\n{"name": "x", "version": "1.0.0", "mcpServers": {"s": '
    '{"command": "srv"}}}',
    'gemini-extension.json:\n{"name": "x", "version": "1.0.0", "contextFilename": "CTX.md"}',
)
COMMAND_SKIPPED = _rule(
    "GCM001",
    "gemini-command-skipped",
    Severity.ERROR,
    "A Gemini CLI command file is not valid TOML, has no `prompt`, or its `prompt` or "
    "`description` is not a string: Gemini CLI skips the command.",
    "Gemini CLI parses each `commands/**/*.toml` and keeps it only when `prompt` is a string "
    "and `description`, if present, a string; otherwise it reports `Skipping invalid command "
    "file` (or `Failed to parse TOML file`) and the slash command does not exist.",
    '.gemini/commands/review.toml:\ndescription = "Review the diff"\nprompt = "Review: {{args}}"',
    '.gemini/commands/review.toml:\ndescription = "Review the diff"\n   (no prompt)',
)
COMMAND_KEY = _rule(
    "GCM002",
    "gemini-command-unknown-key",
    Severity.INFO,
    "A Gemini CLI command file has a key other than `prompt` and `description`.",
    "Gemini CLI ignores it. Check the spelling.",
    '.gemini/commands/review.toml:\nprompt = "Review"',
    '.gemini/commands/review.toml:\nprompt = "Review"\nmodel = "gemini-2.5-pro"',
)
COMMAND_SHELL = _rule(
    "GCM003",
    "gemini-command-shell",
    Severity.INFO,
    "A Gemini CLI command prompt runs a shell command (`!{...}`).",
    "Gemini CLI runs the command each time the slash command is used and puts its output in the "
    "prompt; interactively it asks first, and in a non-interactive run under the default "
    "approval mode its policy refuses it and the run fails (`Blocked by policy`). Make sure the "
    "command is safe to run, or pass the data with `{{args}}`.",
    '.gemini/commands/review.toml:\nprompt = "Review: {{args}}"',
    '.gemini/commands/review.toml:\nprompt = "Review: !{git diff}"',
)
COMMAND_RENAMED = _rule(
    "GCM004",
    "gemini-command-name-clash",
    Severity.WARNING,
    "A Gemini CLI command has the name of a built-in command or of another command of the same "
    "folder: Gemini CLI loads it under another name.",
    "A command's name is its path below `commands/` (`git/commit.toml` is `/git:commit`), each "
    "character other than letters, digits, `_`, `-` and `.` made `_`. A name a built-in command "
    "holds (`/help`) is loaded as `/workspace.help` (an extension's as `/<extension>:help`); two "
    "files giving one name are both renamed. Rename the file.",
    ".gemini/commands/review.toml",
    ".gemini/commands/help.toml",
)

RULES = (
    EXTENSION_SKIPPED,
    CONTEXT_NOT_LOADED,
    EXCLUDE_TOOLS,
    EXTENSION_FIELD,
    COMMAND_SKIPPED,
    COMMAND_KEY,
    COMMAND_SHELL,
    COMMAND_RENAMED,
)

_SKIP = "Gemini CLI skips the whole extension (none of its context, commands or servers load)"

# --------------------------------------------------------------------------- the manifest


def check_manifest(doc: Doc, project: Project) -> Iterator[Finding]:
    if doc.meta is None or not isinstance(doc.meta.data, dict):
        return  # not JSON or not an object: JSN001 / YML006 already say so
    data = doc.data
    name = data.get("name")
    if not name:
        yield fm.at(EXTENSION_SKIPPED, doc, fm.start(doc), f"$.name: missing; {_SKIP}")
    elif not NAME.match(name if isinstance(name, str) else _js_string(name)):
        yield fm.at(
            EXTENSION_SKIPPED,
            doc,
            fm.value_pos(doc, ("name",)),
            f"$.name: {name!r} is not letters, digits and dashes; {_SKIP}",
        )
    if not data.get("version"):
        yield fm.at(EXTENSION_SKIPPED, doc, fm.start(doc), f"$.version: missing; {_SKIP}")
    elif not isinstance(data["version"], str):
        yield _field(doc, "version", 'should be a string such as "1.0.0"')
    yield from _contexts(doc, project)
    tools = data.get("excludeTools")
    if tools is not None and not (
        isinstance(tools, list) and all(isinstance(t, str) for t in tools)
    ):
        yield fm.at(
            EXCLUDE_TOOLS,
            doc,
            fm.value_pos(doc, ("excludeTools",)),
            "$.excludeTools: Gemini CLI reads a list of tool names; this "
            f"{'string' if isinstance(tools, str) else type(tools).__name__} excludes nothing: "
            'write e.g. ["run_shell_command"]',
        )
    yield from _fields(doc)


def _js_string(value: object) -> str:
    """How JavaScript's RegExp.test sees a non-string name (a number stays its digits)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return "[object]"


def _field(doc: Doc, key: str, message: str, severity: Severity | None = None) -> Finding:
    return fm.at(EXTENSION_FIELD, doc, fm.value_pos(doc, (key,)), f"$.{key}: {message}", severity)


def _fields(doc: Doc) -> Iterator[Finding]:
    data = doc.data
    servers = data.get("mcpServers")
    if servers is not None and not (
        isinstance(servers, dict) and all(isinstance(s, dict) for s in servers.values())
    ):
        yield _field(doc, "mcpServers", "should be an object of server objects")
    for key, wanted in (("settings", list), ("themes", list), ("plan", dict)):
        if key in data and not isinstance(data[key], wanted):
            what = "a list" if wanted is list else "an object"
            yield _field(doc, key, f"should be {what}")
    for key in data:
        if key not in MANIFEST_KEYS:
            yield fm.at(
                EXTENSION_FIELD,
                doc,
                fm.key_pos(doc, (key,)),
                f"{fm.json_path((key,))}: not a key Gemini CLI reads; it is ignored (check the "
                "spelling: name, version, contextFileName, excludeTools, mcpServers, settings, "
                "themes, plan, migratedTo)",
                Severity.INFO,
            )


def _contexts(doc: Doc, project: Project) -> Iterator[Finding]:
    if "contextFileName" not in doc.data:
        return  # GEMINI.md, if there is one
    value = doc.data["contextFileName"]
    root = doc.rel[: -len(EXTENSION_MANIFEST)]
    entries = value if isinstance(value, list) else [value]
    if js_falsy(value):  # Gemini CLI takes it as absent: GEMINI.md
        return
    for index, name in enumerate(entries):
        path: tuple[str | int, ...] = (
            ("contextFileName", index) if isinstance(value, list) else ("contextFileName",)
        )
        pos = fm.value_pos(doc, path)
        if not isinstance(name, str) or not name.strip():
            why = "is not a non-empty string: Gemini CLI drops it"
        elif (rel := context_rel(root, name.strip())) is None:
            why = "is absolute or holds '..': Gemini CLI refuses names outside the extension"
        elif not exists(project, rel):
            why = f"names no file (resolved to '{rel}'): Gemini CLI loads nothing for it"
        else:
            continue
        yield fm.at(
            CONTEXT_NOT_LOADED,
            doc,
            pos,
            f"{fm.json_path(path)}: {name!r} {why}; that context never reaches the model",
        )


# --------------------------------------------------------------------------- commands


def check_command(doc: Doc, project: Project) -> Iterator[Finding]:
    import tomllib  # only where a command file is checked (a run without one never loads it)

    try:
        data = tomllib.loads(doc.text)
    except tomllib.TOMLDecodeError as error:
        line, column = _toml_position(error, doc.text)
        reason = str(error).split(" (at ", 1)[0]
        yield COMMAND_SKIPPED.finding(
            doc.path,
            f"not valid TOML ({reason}); Gemini CLI skips this command",
            line,
            column,
        )
        return
    except RecursionError:  # arrays or inline tables nested thousands deep
        yield COMMAND_SKIPPED.finding(
            doc.path,
            "values nested too deeply to read; apc cannot judge this command (nor does a "
            "command need it): flatten the arrays or tables",
            1,
            1,
        )
        return
    prompt = data.get("prompt")
    if prompt is None:
        yield COMMAND_SKIPPED.finding(
            doc.path, 'no `prompt`; Gemini CLI skips this command: add prompt = "..."', 1, 1
        )
    elif not isinstance(prompt, str):
        yield _toml_at(
            COMMAND_SKIPPED,
            doc,
            "prompt",
            f"`prompt` is {_toml_type(prompt)}, not a string; Gemini CLI skips this command",
        )
    description = data.get("description")
    if description is not None and not isinstance(description, str):
        yield _toml_at(
            COMMAND_SKIPPED,
            doc,
            "description",
            f"`description` is {_toml_type(description)}, not a string; Gemini CLI skips "
            "this command",
        )
    for key in data:
        if key not in COMMAND_KEYS:
            yield _toml_at(
                COMMAND_KEY,
                doc,
                key,
                f"`{key}` is not a command field (prompt, description); Gemini CLI ignores it",
            )
    if isinstance(prompt, str) and "!{" in prompt:
        yield _toml_at(
            COMMAND_SHELL,
            doc,
            "prompt",
            "the prompt runs a shell command (`!{...}`) each time the command is used; a "
            "non-interactive run under the default approval mode refuses it and fails",
        )


def _toml_type(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    return "a date or time"


def _toml_position(error: ValueError, text: str) -> tuple[int, int]:
    line, column = getattr(error, "lineno", None), getattr(error, "colno", None)
    if isinstance(line, int) and isinstance(column, int):
        return line, column
    match = re.search(r"\(at line (\d+), column (\d+)\)", str(error))
    if match:
        return int(match.group(1)), int(match.group(2))
    return detect.line_column(text, len(text)) if text else (1, 1)


_KEY_LINE = r"^[ \t]*(?:\"{key}\"|'{key}'|{key})[ \t]*="


def _toml_at(rule: Rule, doc: Doc, key: str, message: str) -> Finding:
    """``rule`` at the top-level ``key = ...`` line (line 1 when it cannot be found)."""
    match = re.search(_KEY_LINE.format(key=re.escape(key)), doc.text, re.M)
    line, column = 1, 1
    if match:
        start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
        line, column = detect.line_column(doc.text, start)
    return rule.finding(doc.path, message, line, column)


# --------------------------------------------------------------------------- names


_UNSAFE = re.compile(r"[^a-zA-Z0-9_\-.]")


def command_name(below: str) -> str:
    """The slash command a file ``below`` its ``commands/`` folder gives (``git/commit.toml``
    is ``git:commit``), as Gemini CLI makes it."""
    parts = []
    for segment in below[: -len(".toml")].split("/"):
        safe = _UNSAFE.sub("_", segment)
        parts.append(safe[:47] + "..." if len(safe) > 50 else safe)
    return ":".join(parts)


def command_folders(files: Iterable[str]) -> dict[str, list[str]]:
    """Each commands folder (a project's ``.gemini/commands/``, an extension's ``commands/``)
    and the ``.toml`` files below it, relative to it."""
    files = list(files)
    folders: dict[str, list[str]] = {}
    roots = {root + "commands/" for root in extension_roots(files)}
    for rel in sorted(r for r in files if r.endswith(".toml")):
        cut = rel.find(".gemini/commands/")
        if cut == 0 or (cut > 0 and rel[cut - 1] == "/"):
            base = rel[: cut + len(".gemini/commands/")]
            folders.setdefault(base, []).append(rel[len(base) :])
            continue
        for base in roots:
            if rel.startswith(base):
                folders.setdefault(base, []).append(rel[len(base) :])
                break
    return folders


def name_clashes(project: Project) -> Iterator[Finding]:
    for base, below in command_folders(project.files).items():
        by_name: dict[str, list[str]] = {}
        for rel in below:
            by_name.setdefault(command_name(rel), []).append(rel)
        extension = not base.endswith(".gemini/commands/")
        for name, rels in sorted(by_name.items()):
            shown = project.display_path(base + rels[0])
            if name in BUILT_IN:
                new = f"/<extension>:{name}" if extension else f"/workspace.{name}"
                yield COMMAND_RENAMED.finding(
                    shown,
                    f"/{name} is a built-in command of Gemini CLI: this command loads as {new} "
                    "instead; rename the file",
                    1,
                    1,
                )
            for rel in rels[1:] if len(rels) > 1 else ():
                yield COMMAND_RENAMED.finding(
                    project.display_path(base + rel),
                    f"gives the command /{name}, as '{rels[0]}' does: Gemini CLI renames both; "
                    "rename one of the files",
                    1,
                    1,
                )


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {
    "gemini-extension": (check_manifest,),
    "gemini-command": (check_command,),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = (name_clashes,)
