"""VS Code Copilot's prompt files, custom agents and (older) chat modes:
``.github/prompts/**/*.prompt.md``, ``.github/agents/*.md`` (``*.agent.md``; any ``.md``
directly in that folder) and ``.github/chatmodes/**/*.chatmode.md``.

Their frontmatter is judged as VS Code reads it (microsoft/vscode,
``src/vs/workbench/contrib/chat/common/promptSyntax/``; VS Code does not run here, so the rules
name the source files and commits instead of a verified version): the header's attributes are
read by ``PromptHeader`` (promptFileParser.ts), each getter taking one shape and dropping any
other (a `tools` string, a `description` list): the value is lost, an error (CPR001). Keys the
file type does not know (promptValidator.ts ``allAttributeNames``) are ignored: a warning
(CPR002). ``mode:`` in a prompt file is still read, as ``agent:``, and a ``.chatmode.md`` still
loads as an agent; both are forms VS Code asks to rename: a warning (CPR003).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "copilot-prompts"
_rule = rule_family(FAMILY)

PROMPT, AGENT, CHATMODE = "copilot-prompt", "copilot-agent", "copilot-chatmode"

# promptValidator.ts allAttributeNames / githubCopilotAgentAttributeNames
PROMPT_KEYS = frozenset({"name", "description", "model", "tools", "mode", "agent", "argument-hint"})
AGENT_KEYS = frozenset(
    {
        "name",
        "description",
        "model",
        "tools",
        "advancedOptions",
        "handoffs",
        "argument-hint",
        "target",
        "infer",
    }
)
GITHUB_AGENT_KEYS = frozenset({"name", "description", "tools", "target", "mcp-servers", "infer"})
TARGETS = ("vscode", "github-copilot")
# PromptHeader's getters: the shapes each attribute is read in (promptFileParser.ts)
STRING = ("a string", (str,))
SHAPES: dict[str, tuple[str, tuple[type, ...]]] = {
    "name": STRING,
    "description": STRING,
    "argument-hint": STRING,
    "agent": STRING,
    "mode": STRING,
    "target": STRING,
    "model": ("a string or a list of strings", (str, list)),
    "tools": ("a list (or a mapping of booleans)", (list, dict)),
    "handoffs": ("a list of mappings", (list,)),
    "infer": ("a boolean", (bool, str)),
}

VALUE_LOST = _rule(
    "CPR001",
    "copilot-prompt-value-lost",
    Severity.ERROR,
    "A VS Code prompt file, custom agent or chat mode has a frontmatter value of a shape VS "
    "Code does not read (a `tools` string, a `description` list, a handoff without "
    "`agent`/`label`/`prompt`).",
    "VS Code reads each header attribute in one shape and drops any other: `name`, "
    "`description`, `argument-hint`, `agent` (`mode`) and `target` are strings; `model` a "
    "string or a list of strings; `tools` a list of tool names (or a mapping of booleans); "
    "`handoffs` a list of mappings each with `agent`, `label` and `prompt` (`send`, "
    "`showContinueOn` booleans); `infer` a boolean. A value of another shape is lost: the "
    "prompt runs without its tools, the agent without its description. Write it in the shape "
    "VS Code reads, e.g. `tools: ['search', 'edit']`.",
    ".github/prompts/review.prompt.md:\n---\ndescription: Review the diff\ntools: ['search']\n"
    "---\n",
    ".github/prompts/review.prompt.md:\n---\ndescription: Review the diff\ntools: search, edit\n"
    "---\n",
)
UNKNOWN_KEY = _rule(
    "CPR002",
    "copilot-prompt-unknown-key",
    Severity.WARNING,
    "A VS Code prompt file, custom agent or chat mode has a frontmatter key VS Code does not "
    "know for that file type, or an agent `target` other than `vscode` or `github-copilot`.",
    "Prompt files know `name`, `description`, `agent`, `model`, `tools`, `argument-hint` (and "
    "the older `mode`); agents `name`, `description`, `model`, `tools`, `handoffs`, "
    "`argument-hint`, `target`, `infer`, `advancedOptions` (with `target: github-copilot`: "
    "`name`, `description`, `tools`, `target`, `mcp-servers`, `infer`). VS Code ignores other "
    "keys (an `applyTo` in a prompt file does nothing) and reads an unknown `target` as VS "
    "Code's. Check the spelling, or move the key to the file type that reads it.",
    ".github/agents/planner.agent.md:\n---\ndescription: Plans work\ntools: ['search']\n---\n",
    ".github/agents/planner.agent.md:\n---\ndescription: Plans work\ntool: ['search']\n---\n",
)
LEGACY_FORM = _rule(
    "CPR003",
    "copilot-prompt-legacy-form",
    Severity.WARNING,
    "A prompt file says `mode:` instead of `agent:`, or a custom agent is a `.chatmode.md`.",
    "VS Code renamed chat modes to agents: it still reads `mode:` of a prompt file as its "
    "`agent:` (and ignores it beside an `agent:`), and still loads a "
    "`.github/chatmodes/*.chatmode.md` as an agent, but asks for `agent:` and for the file "
    "to move to `.github/agents/<name>.agent.md`.",
    ".github/prompts/plan.prompt.md:\n---\nagent: plan\n---\n",
    ".github/prompts/plan.prompt.md:\n---\nmode: plan\n---\n",
)

RULES = (VALUE_LOST, UNKNOWN_KEY, LEGACY_FORM)


def _shape_findings(doc: Doc) -> Iterator[Finding]:
    for key, (wanted, types) in SHAPES.items():
        value = doc.data.get(key)
        if value is None:
            continue  # absent, or `key:` with nothing: read as not given
        if isinstance(value, bool) and bool not in types:
            # YAML 1.1 reads `yes`/`on` as booleans where VS Code's YAML may keep a string:
            # judged only where no string is read either
            lost = STRING not in (SHAPES[key],)
        elif isinstance(value, types):
            yield from _item_findings(doc, key, value)
            continue
        else:
            # a number is one to VS Code's YAML too; dates and other YAML 1.1 scalars may be
            # strings there, so only numbers, strings and collections are judged
            lost = isinstance(value, int | float | str | list | dict)
        if lost:
            yield fm.at(
                VALUE_LOST,
                doc,
                fm.value_pos(doc, (key,)),
                f"$.{key}: VS Code reads {wanted}; this {type(value).__name__} is dropped, as "
                "if the key were not there",
            )


def _item_findings(doc: Doc, key: str, value: Any) -> Iterator[Finding]:
    if key == "tools" and isinstance(value, list):
        for index, item in enumerate(value):
            if not isinstance(item, str):
                yield fm.at(
                    VALUE_LOST,
                    doc,
                    fm.value_pos(doc, (key, index)),
                    f"$.tools[{index}]: VS Code reads a tool name (a string); this "
                    f"{type(item).__name__} is dropped",
                )
    if key == "handoffs":
        for index, item in enumerate(value):
            fields = item if isinstance(item, dict) else {}
            missing = [k for k in ("agent", "label") if not isinstance(fields.get(k), str)]
            if not isinstance(fields.get("prompt"), str):
                missing.append("prompt")
            if missing:
                yield fm.at(
                    VALUE_LOST,
                    doc,
                    fm.value_pos(doc, (key, index)),
                    f"$.handoffs[{index}]: VS Code keeps a handoff only with `agent`, `label` "
                    f"and `prompt` strings; this one lacks {', '.join(missing)} and is dropped",
                )


def _known_keys(doc: Doc) -> Iterator[Finding]:
    if doc.kind == PROMPT:
        known, what = PROMPT_KEYS, "prompt files"
    elif doc.data.get("target") == "github-copilot":
        known, what = GITHUB_AGENT_KEYS, "GitHub Copilot agents (target: github-copilot)"
    else:
        known, what = AGENT_KEYS | GITHUB_AGENT_KEYS, "VS Code agents"
    for key in doc.data:
        if key not in known:
            yield fm.at(
                UNKNOWN_KEY,
                doc,
                fm.key_pos(doc, (key,)),
                f"$.{key}: VS Code does not read this key in {what} (it knows "
                f"{', '.join(sorted(known))}); check the spelling",
            )
    target = doc.data.get("target")
    if doc.kind != PROMPT and isinstance(target, str) and target.strip() not in TARGETS:
        yield fm.at(
            UNKNOWN_KEY,
            doc,
            fm.value_pos(doc, ("target",)),
            f"$.target: VS Code knows {' and '.join(TARGETS)}; it reads {target!r} as VS Code's",
        )


def check_prompt_file(doc: Doc, project: Project) -> Iterator[Finding]:
    if doc.kind == CHATMODE:
        yield LEGACY_FORM.finding(
            doc.path,
            "chat modes are agents now: VS Code still loads this file as an agent but asks "
            "for it to move to .github/agents/<name>.agent.md",
            1,
            1,
        )
    if not fm.parsed(doc) or not isinstance(doc.data, dict):
        return
    yield from _shape_findings(doc)
    yield from _known_keys(doc)
    if doc.kind == PROMPT and "mode" in doc.data:
        beside = "ignores it beside `agent:`" if "agent" in doc.data else "reads it as `agent:`"
        yield fm.at(
            LEGACY_FORM,
            doc,
            fm.key_pos(doc, ("mode",)),
            f"$.mode: renamed `agent`; VS Code {beside}: rename it to `agent:`",
        )


CHECKS: Mapping[str, tuple[Callable[[Doc, Project], Iterable[Finding]], ...]] = {
    PROMPT: (check_prompt_file,),
    AGENT: (check_prompt_file,),
    CHATMODE: (check_prompt_file,),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
