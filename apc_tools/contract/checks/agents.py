"""Checks for agent definitions: APC agents (``.apc/agents/<slug>.md``, kind ``agent``) and
Claude Code subagents (``.claude/agents/**/*.md``, kind ``claude-agent``).

APC agents follow the APC spec's table (schema ``agent``): ``name`` (equal to the file slug),
``model`` (``inherit`` or a model id) and ``description`` are required; ``is_background``,
``skills``, ``color``, ``emoji``, ``vibe``, ``language`` are optional; APX-era and Claude Code
keys are accepted extension fields (info); anything else is a warning. APX silently skips files
whose name is not a slug (``^[a-z][a-z0-9_-]*$``): apc reports that as an error. Every skill an
agent lists must exist in the project (``.apc/skills/<name>.md`` or
``.apc/skills/<name>/SKILL.md``).

Claude Code subagents are checked no stricter than Claude Code reads them: what makes Claude Code
skip the file silently (no ``name``, no ``description``, a ``name`` starting with ``-``) is an
error; a ``name`` outside lowercase letters, digits and hyphens (``:`` included: Claude Code loads
it), or a value of the wrong type, is a warning; keys Claude Code does not document are info.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.project import Doc, Project
from apc_tools.core.parse import load_yaml
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "agents"
SLUG = re.compile(r"^[a-z][a-z0-9_-]*\Z")
CLAUDE_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*\Z")
AGENT_TYPES = ("orchestrator", "specialist", "assistant", "worker", "monitor")
APX_KEYS = ("role", "tools", "type", "area", "icon", "parent", "is_master")
CLAUDE_KEYS = frozenset(
    {
        "name",
        "description",
        "tools",
        "disallowedTools",
        "model",
        "permissionMode",
        "maxTurns",
        "skills",
        "mcpServers",
        "hooks",
        "memory",
        "background",
        "effort",
        "isolation",
        "color",
        "initialPrompt",
    }
)

MODEL_ALIASES = ("sonnet", "opus", "haiku", "inherit", "opusplan", "default")
# an alias (optionally with a context suffix such as `sonnet[1m]`) or a model id: one token
MODEL_VALUE = re.compile(
    r"^(?:(?:" + "|".join(MODEL_ALIASES) + r")(?:\[\w+\])?|[A-Za-z0-9][\w.:@/-]*(?:\[\w+\])?)\Z"
)
# Claude Code's built-in tool names (code.claude.com tools reference); `mcp__<server>__<tool>`
# and `Name(pattern)` forms are recognised by their shape.
CLAUDE_TOOLS = frozenset(
    {
        "Agent",
        "Artifact",
        "AskUserQuestion",
        "Bash",
        "BashOutput",
        "Edit",
        "EnterPlanMode",
        "EnterWorktree",
        "ExitPlanMode",
        "ExitWorktree",
        "Glob",
        "Grep",
        "KillBash",
        "KillShell",
        "LS",
        "LSP",
        "ListMcpResourcesTool",
        "MultiEdit",
        "NotebookEdit",
        "NotebookRead",
        "ReadMcpResourceTool",
        "Read",
        "SendMessage",
        "Skill",
        "SlashCommand",
        "Task",
        "TaskCreate",
        "TaskGet",
        "TaskList",
        "TaskOutput",
        "TaskStop",
        "TaskUpdate",
        "TeamCreate",
        "TeamDelete",
        "TodoRead",
        "TodoWrite",
        "ToolSearch",
        "WebFetch",
        "WebSearch",
        "Write",
    }
)


_rule = rule_family(FAMILY)


GOOD = (
    ".apc/agents/reviewer.md:\n---\nname: reviewer\nmodel: inherit\n"
    "description: Reviews pull requests.\n---\n"
)

SLUG_INVALID = _rule(
    "AGT001",
    "agent-slug-invalid",
    Severity.ERROR,
    "An agent file name is not a valid slug, so APX skips the agent silently.",
    "APX loads `.apc/agents/<slug>.md` only when the slug matches `^[a-z][a-z0-9_-]*$` "
    "(lowercase letter first, then lowercase letters, digits, `_` or `-`). Rename the file.",
    GOOD,
    ".apc/agents/Code Reviewer.md",
)
FRONTMATTER_MISSING = _rule(
    "AGT002",
    "agent-frontmatter-missing",
    Severity.ERROR,
    "An agent definition has no YAML frontmatter (in `.claude/agents/`: a warning, or info for "
    "a README).",
    "APC agents and Claude Code subagents are identified by their frontmatter (`name`, "
    "`description`, ...); without it the file is not an agent. Add a `---` fenced block at the "
    "top. Claude Code skips a file without frontmatter among its subagents: one written as an "
    "agent (instructions) is never loaded, a warning (apc cannot be sure it was meant as one); "
    "a README, index or overview is a document, info.",
    GOOD,
    ".apc/agents/reviewer.md:\n# Reviewer\nReviews pull requests.\n",
)
REQUIRED_KEY = _rule(
    "AGT003",
    "agent-required-key",
    Severity.ERROR,
    "An APC agent lacks `name`, `model` or `description`.",
    "The APC spec requires all three. APX fills in a missing `name` (from the file name) and "
    "`model` (`inherit`), but other readers do not: write them out (`name: <slug>`, "
    "`model: inherit`).",
    GOOD,
    ".apc/agents/reviewer.md:\n---\nrole: Reviewer\ndescription: Reviews pull requests.\n---\n",
)
NAME_MISMATCH = _rule(
    "AGT004",
    "agent-name-mismatch",
    Severity.ERROR,
    "An APC agent's `name` differs from its file slug.",
    "Agents are addressed by slug (the file name without `.md`); `name` must be the same so "
    "every tool resolves the agent the same way. Change `name` or rename the file.",
    GOOD,
    ".apc/agents/reviewer.md:\n---\nname: code-reviewer\nmodel: inherit\ndescription: x\n---\n",
)
FIELD_INVALID = _rule(
    "AGT005",
    "agent-field-invalid",
    Severity.ERROR,
    "An APC agent frontmatter value has the wrong type (or is blank).",
    "`name`, `model` and `description` are non-empty strings, `is_background` is true or false, "
    "`skills` is a comma-separated string or a list of names, `color`/`emoji`/`vibe`/`language` "
    "are strings. Fix the value at the reported position.",
    GOOD + "(is_background: true)",
    ".apc/agents/reviewer.md:\n---\nname: reviewer\nmodel: inherit\ndescription: x\n"
    "is_background: sometimes\n---\n",
)
SKILL_MISSING = _rule(
    "AGT006",
    "agent-skill-missing",
    Severity.ERROR,
    "An APC agent lists a skill that the project does not have.",
    "Each name in `skills` must be a project skill: `.apc/skills/<name>.md` or "
    "`.apc/skills/<name>/SKILL.md`. Add the skill, fix the spelling, or remove it from the list.",
    ".apc/agents/sales.md lists `skills: pricing` and .apc/skills/pricing.md exists",
    ".apc/agents/sales.md lists `skills: pricing` and no .apc/skills/pricing.md exists",
)
EXTENSION_KEY = _rule(
    "AGT007",
    "agent-extension-key",
    Severity.INFO,
    "An APC agent uses an APX-era or Claude Code extension field.",
    "`role`, `tools`, `type`, `area`, `icon`, `parent`, `is_master` (APX) and Claude Code's "
    "subagent keys are accepted; they are not in the APC spec's table, so other readers may "
    "ignore them.",
    GOOD,
    ".apc/agents/arch.md:\n---\nname: arch\nmodel: inherit\ndescription: x\nicon: cubi\n---\n",
)
UNKNOWN_KEY = _rule(
    "AGT008",
    "agent-unknown-key",
    Severity.WARNING,
    "An APC agent frontmatter key is neither in the spec nor a known extension.",
    "Unknown keys are kept for forward compatibility but no reader uses them; check the "
    "spelling (e.g. `descripton`) or remove the key.",
    GOOD,
    ".apc/agents/reviewer.md:\n---\nname: reviewer\nmodel: inherit\ndescripton: x\n---\n",
)
TYPE_UNKNOWN = _rule(
    "AGT009",
    "agent-type-unknown",
    Severity.WARNING,
    "An APC agent's APX `type` is not one APX knows.",
    "APX knows `orchestrator`, `specialist`, `assistant`, `worker` and `monitor`.",
    GOOD.replace("description", "type: specialist\ndescription"),
    GOOD.replace("description", "type: helper\ndescription"),
)
CLAUDE_SKIPPED = _rule(
    "AGT010",
    "claude-agent-skipped",
    Severity.ERROR,
    "A Claude Code subagent lacks `name` or `description`, or its `name` starts with `-` or "
    "holds `:`, so Claude Code skips it silently.",
    "Claude Code loads a subagent only when it has a `name` (not starting with `-`) and a "
    "`description` (checked by the conformance suite). A `:` in the name: Claude Code 2.1.197 "
    "loads it, 2.1.332 skips it (`plugin:agent` is how it names a plugin's agents); the "
    "stricter reading stands. Add or fix them.",
    ".claude/agents/reviewer.md:\n---\nname: reviewer\ndescription: Reviews code.\n---\n",
    ".claude/agents/reviewer.md:\n---\ndescription: Reviews code.\n---\n",
)
CLAUDE_NAME_FORM = _rule(
    "AGT011",
    "claude-agent-name-form",
    Severity.WARNING,
    "A Claude Code subagent `name` is not lowercase letters, digits and hyphens.",
    "Claude Code documents subagent names as lowercase letters and hyphens; other characters "
    "load today but are not portable (and APX slugs exclude them). Use e.g. `code-reviewer`.",
    ".claude/agents/reviewer.md:\n---\nname: code-reviewer\ndescription: x\n---\n",
    ".claude/agents/reviewer.md:\n---\nname: Code Reviewer\ndescription: x\n---\n",
)
CLAUDE_FIELD = _rule(
    "AGT012",
    "claude-agent-field-type",
    Severity.WARNING,
    "A Claude Code subagent value has an unexpected type (model, tools, color, description).",
    "`model` is `sonnet`, `opus`, `haiku`, `inherit` or a model id; `tools` a comma-separated "
    "string or a list; `color` and `description` strings. Claude Code may ignore other shapes.",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\ntools: Read, Grep\n---\n",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\ntools: {Read: true}\n---\n",
)
CLAUDE_UNKNOWN = _rule(
    "AGT013",
    "claude-agent-unknown-key",
    Severity.INFO,
    "A Claude Code subagent uses a key Claude Code does not document.",
    "Claude Code ignores it. Check the spelling against the subagent reference (name, "
    "description, tools, disallowedTools, model, permissionMode, maxTurns, skills, mcpServers, "
    "hooks, memory, background, effort, isolation, color, initialPrompt).",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\n---\n",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\nmodle: opus\n---\n",
)
CLAUDE_MODEL = _rule(
    "AGT014",
    "agent-model-value",
    Severity.ERROR,
    "An agent's `model` is neither an alias nor a model id (e.g. a display name).",
    "Claude Code reads `model` as an alias (`sonnet`, `opus`, `haiku`, `inherit`) or a full "
    "model id (`claude-sonnet-4-5`). A display name such as `Claude Sonnet 4.5` or `GPT-4.1 "
    "(copilot)` is sent as written as the model of every request the subagent makes (Claude "
    "Code 2.1.197, checked by the conformance suite), which the API rejects: delegating to the "
    "subagent fails. In `.apc/agents/*.md` the APC spec asks the same (`inherit` or a model id): "
    "a warning there. Write an alias or a model id.",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\nmodel: sonnet\n---\n",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\nmodel: Claude Sonnet 4.5\n---\n",
)
CLAUDE_TOOLS_FOREIGN = _rule(
    "AGT015",
    "claude-agent-tools-foreign",
    Severity.ERROR,
    "A Claude Code subagent's `tools` names no Claude Code tool (e.g. only VS Code Copilot ids).",
    "`tools` is an allow-list: a list that holds only names Claude Code does not have "
    "(`codebase`, `editFiles`, `runCommands` are VS Code Copilot's) resolves to no tool: "
    "Claude Code 2.1.332 refuses to spawn the subagent ('would be spawned with zero tools'), "
    "2.1.197 ran it with no tools at all. Use Claude Code's names (Read, Edit, Write, Bash, "
    "Glob, Grep, WebFetch, ...), `mcp__<server>__<tool>` for MCP tools, or leave `tools` out "
    "to inherit every tool.",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\ntools: Read, Grep\n---\n",
    ".claude/agents/x.md:\n---\nname: x\ndescription: y\ntools: [codebase, editFiles]\n---\n",
)

RULES = (
    SLUG_INVALID,
    FRONTMATTER_MISSING,
    REQUIRED_KEY,
    NAME_MISMATCH,
    FIELD_INVALID,
    SKILL_MISSING,
    EXTENSION_KEY,
    UNKNOWN_KEY,
    TYPE_UNKNOWN,
    CLAUDE_SKIPPED,
    CLAUDE_NAME_FORM,
    CLAUDE_FIELD,
    CLAUDE_UNKNOWN,
    CLAUDE_MODEL,
    CLAUDE_TOOLS_FOREIGN,
)


# --------------------------------------------------------------------------- shared


def _no_frontmatter(doc: Doc, what: str) -> Iterator[Finding]:
    if doc.has_frontmatter or fm.opens_frontmatter(doc):
        return
    if what == "agent":
        yield FRONTMATTER_MISSING.finding(
            doc.path,
            "agent has no YAML frontmatter; add a `---` block with name, model and description",
            1,
            1,
        )
        return
    if DOCUMENT_NAME.match(doc.stem):
        # A README, an index or an overview among subagents is a document: Claude Code does
        # not load it as a subagent, and nothing is broken.
        yield FRONTMATTER_MISSING.finding(
            doc.path,
            "no YAML frontmatter: Claude Code reads this file as a document, not a subagent; if "
            "it is meant to be one, add a `---` block with name and description",
            1,
            1,
            severity=Severity.INFO,
        )
        return
    # A file written as an agent (instructions, no frontmatter): Claude Code skips it
    # (Claude Code 2.1.197 lists no such subagent; the conformance suite checks it).
    yield FRONTMATTER_MISSING.finding(
        doc.path,
        "no YAML frontmatter: Claude Code does not load this file as a subagent (it skips a "
        "file without `name` and `description`); add a `---` block with name and description, "
        "or move it out of the agents folder if it is a document",
        1,
        1,
        severity=Severity.WARNING,
    )


# Documents that live among agent definitions (a README, an index, an overview).
DOCUMENT_NAME = re.compile(
    r"^(?:readme|index|overview|contributing|changelog|license|summary|toc|agents)(?:[._-].*)?\Z",
    re.I,
)

# Claude Code's retry when a subagent's frontmatter is not YAML: each top-level `key: value` line
# whose value is not already quoted is read as a plain string (a flow list such as `[Read, Grep`
# becomes that text). When that parses and gives a name and a description the subagent loads;
# otherwise Claude Code skips it (Claude Code 2.1.197; the conformance suite checks both).
_FALLBACK_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*):[ \t]+(?P<value>\S(?:.*\S)?)[ \t]*$")


def _project_agent(rel: str) -> bool:
    return rel.startswith(".claude/agents/") or "/.claude/agents/" in rel or not rel


def claude_fallback(yaml_text: str) -> dict[str, Any] | None:
    """What Claude Code reads of frontmatter YAML that does not parse, or None (skipped)."""
    lines = []
    for line in yaml_text.split("\n"):
        match = _FALLBACK_LINE.match(line)
        if match and match.group("value")[0] not in "\"'|>":
            line = f"{match.group('key')}: {json.dumps(match.group('value'), ensure_ascii=False)}"
        lines.append(line)
    reading = load_yaml("\n".join(lines))
    data = reading.data
    if not reading.ok or not isinstance(data, dict):
        return None
    name, desc = data.get("name"), data.get("description")
    if not (isinstance(name, str) and name.strip() and isinstance(desc, str) and desc.strip()):
        return None
    return data


def claude_yaml_outcome(yaml_text: str, rel: str = "") -> str:
    """The end of a YML001 message on a Claude Code subagent: which of the two happened. A
    plugin's agent (``rel`` not under ``.claude/agents/``) that the fallback cannot read either
    is still loaded, under its file name with a placeholder description and every tool."""
    data = claude_fallback(yaml_text)
    if data is None and not _project_agent(rel):
        return (
            "; Claude Code still loads this plugin agent, but only under its file name, with a "
            "placeholder description ('Agent from <plugin> plugin') and every tool: nothing of "
            "its frontmatter is read"
        )
    if data is None:
        return "; Claude Code skips this subagent (it cannot read its frontmatter)"
    read = ", ".join(f"{key} '{str(value)[:40]}'" for key, value in data.items() if key != "name")
    return (
        "; Claude Code still loads this subagent through its line-by-line fallback, reading "
        f"each value as plain text ({read}): quote or fix the value so it is read as meant"
    )


def split_list(value: Any) -> list[tuple[int | None, str]]:
    """(list index or None for a string, name) for each entry of a string or list value."""
    if isinstance(value, str):
        return [(None, part.strip()) for part in value.split(",") if part.strip()]
    if isinstance(value, list):
        return [(i, str(v).strip()) for i, v in enumerate(value) if isinstance(v, str | int)]
    return []


# --------------------------------------------------------------------------- APC agents


def _apx_style(data: Mapping[str, Any]) -> bool:
    return any(key in data for key in APX_KEYS)


def _required(doc: Doc, key: str) -> Finding:
    message = f"$.{key}: missing required key '{key}'"
    if key in ("name", "model") and _apx_style(doc.data):
        default = f"`{doc.stem}` (the file name)" if key == "name" else "`inherit`"
        message += (
            f"; this is an APX-style agent and APX defaults it to {default}, but the APC spec "
            f"requires it: add `{key}: " + (doc.stem if key == "name" else "inherit") + "`"
        )
    else:
        message += "; add it"
    return fm.at(REQUIRED_KEY, doc, fm.start(doc), message)


_FIX = "see the APC agent fields (name, model, description: text; is_background: true/false)"


def _agent_schema(doc: Doc) -> Iterator[Finding]:
    data = dict(doc.data)
    for error in fm.schema_errors("agent", data):
        if error.validator == "required" and error.key is not None and not error.path:
            yield _required(doc, error.key)
        else:
            yield fm.at(
                FIELD_INVALID, doc, fm.schema_pos(doc, error), fm.schema_message(error, _FIX)
            )
    for warning in fm.schema_warnings("agent", data):
        pos = fm.schema_pos(doc, warning)
        if warning.validator == "x-apc-unknown-keys":
            fix = "not an APC or known extension field; check the spelling or remove it"
            yield fm.at(UNKNOWN_KEY, doc, pos, fm.schema_message(warning, fix))
        elif warning.validator == "x-apc-preferred":
            yield fm.at(FIELD_INVALID, doc, pos, fm.schema_message(warning, _FIX), Severity.WARNING)
    extensions = fm.extension_keys("agent")
    for key in data:
        if key in extensions:
            origin = "APX-era" if key in APX_KEYS else "Claude Code"
            yield fm.at(
                EXTENSION_KEY,
                doc,
                fm.key_pos(doc, (key,)),
                f"$.{key}: {origin} extension field (accepted; not in the APC spec's table)",
            )


def _model_value(doc: Doc, reader: str, severity: Severity | None = None) -> Iterator[Finding]:
    model = doc.data.get("model")
    if isinstance(model, str) and model.strip() and not MODEL_VALUE.match(model.strip()):
        yield fm.at(
            CLAUDE_MODEL,
            doc,
            fm.value_pos(doc, ("model",)),
            f"$.model: '{model.strip()}' is not a model {reader}; write an alias (sonnet, opus, "
            "haiku, inherit) or a full model id (e.g. claude-sonnet-4-5)",
            severity,
        )


def _agent_values(doc: Doc) -> Iterator[Finding]:
    yield from _model_value(doc, "id (the APC spec: `inherit` or a model id)", Severity.WARNING)
    data = doc.data
    name = data.get("name")
    if isinstance(name, str) and name.strip() and name.strip() != doc.stem:
        yield fm.at(
            NAME_MISMATCH,
            doc,
            fm.value_pos(doc, ("name",)),
            f"$.name: '{name.strip()}' must equal the file slug '{doc.stem}'; change `name` "
            "or rename the file",
        )
    kind = data.get("type")
    if isinstance(kind, str) and kind not in AGENT_TYPES:
        yield fm.at(
            TYPE_UNKNOWN,
            doc,
            fm.value_pos(doc, ("type",)),
            f"$.type: '{kind}' is not an APX agent type; use one of {', '.join(AGENT_TYPES)}",
        )


def skill_exists(project: Project, name: str) -> bool:
    return (
        f".apc/skills/{name}.md" in project.files or f".apc/skills/{name}/SKILL.md" in project.files
    )


def _agent_skills(doc: Doc, project: Project) -> Iterator[Finding]:
    value = doc.data.get("skills")
    for index, name in split_list(value):
        if skill_exists(project, name):
            continue
        if index is None:
            pos = fm.column_of(doc, ("skills",), name)
            where = "$.skills"
        else:
            pos = fm.value_pos(doc, ("skills", index))
            where = f"$.skills[{index}]"
        yield fm.at(
            SKILL_MISSING,
            doc,
            pos,
            f"{where}: skill '{name}' does not exist (no .apc/skills/{name}.md or "
            f".apc/skills/{name}/SKILL.md); add it or remove it from `skills`",
        )


def check_agent(doc: Doc, project: Project) -> Iterator[Finding]:
    """`.apc/agents/<slug>.md`."""
    if not SLUG.match(doc.stem):
        yield SLUG_INVALID.finding(
            doc.path,
            f"file name '{doc.stem}' is not a slug (^[a-z][a-z0-9_-]*$): APX skips this agent "
            "silently; rename the file (e.g. lowercase, hyphens instead of spaces)",
            1,
            1,
        )
    yield from _no_frontmatter(doc, "agent")
    if not fm.parsed(doc):
        return
    yield from _agent_schema(doc)
    yield from _agent_values(doc)
    yield from _agent_skills(doc, project)


# --------------------------------------------------------------------------- Claude Code


def _claude_name(doc: Doc) -> Iterator[Finding]:
    name = doc.data.get("name")
    if name is None or (isinstance(name, str) and not name.strip()):
        yield fm.at(
            CLAUDE_SKIPPED,
            doc,
            fm.start(doc) if name is None else fm.value_pos(doc, ("name",)),
            "$.name: missing; Claude Code skips a subagent without a name: add `name:` "
            "(lowercase letters, digits and hyphens)",
        )
        return
    text = str(name).strip()
    pos = fm.value_pos(doc, ("name",))
    if text.startswith("-"):
        yield fm.at(
            CLAUDE_SKIPPED, doc, pos, "$.name: starts with '-'; Claude Code skips this subagent"
        )
    elif ":" in text:
        # Claude Code 2.1.197 loads it, 2.1.332 skips it (the conformance suite checks both):
        # `:` is how Claude Code names a plugin's agents (`plugin:agent`)
        yield fm.at(
            CLAUDE_SKIPPED,
            doc,
            pos,
            "$.name: holds ':'; Claude Code 2.1.332 skips this subagent (2.1.197 loaded it; "
            "`plugin:agent` is how Claude Code names a plugin's agents): use lowercase letters, "
            "digits and hyphens",
        )
    elif not isinstance(name, str) or not CLAUDE_NAME.match(text):
        yield fm.at(
            CLAUDE_NAME_FORM,
            doc,
            pos,
            "$.name: should be lowercase letters, digits and hyphens (e.g. `code-reviewer`)",
        )


def _claude_description(doc: Doc) -> Iterator[Finding]:
    desc = doc.data.get("description")
    if desc is None or (isinstance(desc, str) and not desc.strip()):
        yield fm.at(
            CLAUDE_SKIPPED,
            doc,
            fm.start(doc) if "description" not in doc.data else fm.value_pos(doc, ("description",)),
            "$.description: missing; Claude Code skips a subagent without a description: say "
            "when Claude should delegate to it",
        )
    elif not isinstance(desc, str):
        yield _claude_type(doc, "description", "a string")


def _claude_type(doc: Doc, key: str, wanted: str) -> Finding:
    return fm.at(
        CLAUDE_FIELD,
        doc,
        fm.value_pos(doc, (key,)),
        f"$.{key}: should be {wanted}; Claude Code may ignore this value",
    )


def _claude_fields(doc: Doc) -> Iterator[Finding]:
    data = doc.data
    model = data.get("model")
    if model is not None and not isinstance(model, str):
        yield _claude_type(doc, "model", "sonnet, opus, haiku, inherit or a model id")
    else:
        # Claude Code 2.1.197 sends the value as written as the API's model id, so every
        # delegation to this subagent fails (the conformance suite checks it): an error here
        yield from _model_value(
            doc,
            "id: Claude Code sends it as written as the model of every request of this "
            "subagent, which the API rejects, so delegating to it fails",
            Severity.ERROR,
        )
    tools = data.get("tools")
    if tools is not None and not (
        isinstance(tools, str)
        or (isinstance(tools, list) and all(isinstance(t, str) for t in tools))
    ):
        yield _claude_type(doc, "tools", "a comma-separated string or a list of tool names")
    else:
        yield from _claude_tools(doc, tools)
    color = data.get("color")
    if color is not None and not isinstance(color, str):
        yield _claude_type(doc, "color", "a color name (red, blue, green, ...)")
    for key in data:
        if key not in CLAUDE_KEYS:
            yield fm.at(
                CLAUDE_UNKNOWN,
                doc,
                fm.key_pos(doc, (key,)),
                f"{fm.json_path((key,))}: not a Claude Code subagent field; Claude Code ignores it",
            )


def claude_tool(name: str) -> bool:
    """A name Claude Code knows: a built-in tool, ``Tool(pattern)``, ``mcp__...`` or ``*``."""
    base = name.split("(", 1)[0].strip()
    return base in CLAUDE_TOOLS or base.startswith("mcp__") or base == "*"


def _claude_tools(doc: Doc, tools: Any) -> Iterator[Finding]:
    names = [name for _, name in split_list(tools)]
    if not names or any(claude_tool(n) for n in names):
        return
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    yield fm.at(
        CLAUDE_TOOLS_FOREIGN,
        doc,
        fm.value_pos(doc, ("tools",)),
        f"$.tools: none of {shown} is a Claude Code tool, so Claude Code 2.1.332 refuses to "
        "spawn this subagent (2.1.197 ran it with no tools); use Claude Code's names (Read, "
        "Edit, Write, Bash, Glob, Grep, WebFetch, mcp__<server>__<tool>) or leave `tools` out "
        "to inherit every tool",
    )


def check_claude_agent(doc: Doc, project: Project) -> Iterator[Finding]:
    """`.claude/agents/**/*.md` (Claude Code subagents)."""
    yield from _no_frontmatter(doc, "subagent")
    if not fm.parsed(doc):
        return
    yield from _claude_name(doc)
    yield from _claude_description(doc)
    yield from _claude_fields(doc)


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {
    "agent": (check_agent,),
    "claude-agent": (check_claude_agent,),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
