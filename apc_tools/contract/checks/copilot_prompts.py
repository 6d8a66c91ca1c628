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

# Every header attribute VS Code's PromptHeader knows (PromptHeaderAttributes,
# GithubPromptHeaderAttributes, ClaudeHeaderAttributes of promptFileParser.ts, newest stored
# version): which file type uses which keeps changing release by release, so only a key none of
# them is (a misspelling) is reported.
KNOWN_KEYS = frozenset(
    {
        "name",
        "description",
        "agent",
        "mode",
        "model",
        "applyTo",
        "paths",
        "tools",
        "handoffs",
        "advancedOptions",
        "argument-hint",
        "excludeAgent",
        "target",
        "infer",
        "license",
        "compatibility",
        "metadata",
        "agents",
        "user-invokable",
        "user-invocable",
        "disable-model-invocation",
        "mcp-servers",
        "disallowedTools",
        "hooks",
    }
)
# Attributes PromptHeader reads as one value (a string or a `true`/`false`): a list or a
# mapping there is dropped by every version read (`model` takes a list of strings too).
SINGLE = ("name", "description", "argument-hint", "agent", "mode", "target", "applyTo", "infer")
SINGLE_OR_LIST = ("model",)
FLAGS = ("user-invocable", "user-invokable", "disable-model-invocation")

VALUE_LOST = _rule(
    "CPR001",
    "copilot-prompt-value-lost",
    Severity.ERROR,
    "A VS Code prompt file, custom agent or chat mode has a frontmatter value of a shape VS "
    "Code does not read (a `description` list, a `model` mapping, a handoff without "
    "`agent`/`label`/`prompt`).",
    "VS Code reads `name`, `description`, `argument-hint`, `agent` (`mode`), `target`, "
    "`applyTo`, `infer`, `user-invocable` and `disable-model-invocation` as one value; `model` "
    "as a string or a list of strings; `tools` as a list of names (or one comma-separated "
    "string); `handoffs` as a list of mappings each with `agent`, `label` and `prompt`. A list "
    "or a mapping where one value is read is dropped, and so is a handoff without its three "
    "keys: the agent runs without its description, the prompt without its mode. Write the "
    "value as VS Code reads it.",
    ".github/prompts/review.prompt.md:\n---\ndescription: Review the diff\n---\n",
    ".github/prompts/review.prompt.md:\n---\ndescription:\n  - Review the diff\n---\n",
)
UNKNOWN_KEY = _rule(
    "CPR002",
    "copilot-prompt-unknown-key",
    Severity.WARNING,
    "A VS Code prompt file, custom agent or chat mode has a frontmatter key VS Code's "
    "prompt-file parser does not know.",
    "VS Code's PromptHeader knows `name`, `description`, `agent`, `mode`, `model`, `tools`, "
    "`argument-hint`, `handoffs`, `target`, `infer`, `applyTo`, `paths`, `excludeAgent`, "
    "`agents`, `user-invocable`, `disable-model-invocation`, `mcp-servers`, `license`, "
    "`compatibility`, `metadata`, `advancedOptions`, `disallowedTools` and `hooks`; it ignores "
    "any other key (which file type reads which changes from release to release, so only a key "
    "it knows nowhere is reported). Check the spelling.",
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


def _lost(doc: Doc, key: str, wanted: str, value: Any) -> Finding:
    return fm.at(
        VALUE_LOST,
        doc,
        fm.value_pos(doc, (key,)),
        f"$.{key}: VS Code reads {wanted}; this {type(value).__name__} is dropped, as if the key "
        "were not there",
    )


def _shape_findings(doc: Doc) -> Iterator[Finding]:
    data = doc.data
    for key in (*SINGLE, *FLAGS):
        if isinstance(data.get(key), list | dict):
            yield _lost(doc, key, "one value (a string, or true/false)", data[key])
    for key in SINGLE_OR_LIST:
        if isinstance(data.get(key), dict):
            yield _lost(doc, key, "a string or a list of strings", data[key])
    tools = data.get("tools")
    if isinstance(tools, list):
        for index, item in enumerate(tools):
            if isinstance(item, list | dict):
                yield fm.at(
                    VALUE_LOST,
                    doc,
                    fm.value_pos(doc, ("tools", index)),
                    f"$.tools[{index}]: VS Code reads a tool name; this {type(item).__name__} is "
                    "dropped",
                )
    handoffs = data.get("handoffs")
    if handoffs is not None and not isinstance(handoffs, list):
        yield _lost(doc, "handoffs", "a list of handoffs", handoffs)
    for index, item in enumerate(handoffs if isinstance(handoffs, list) else ()):
        fields = item if isinstance(item, dict) else {}
        missing = [k for k in ("agent", "label", "prompt") if not _scalar(fields.get(k))]
        if missing:
            yield fm.at(
                VALUE_LOST,
                doc,
                fm.value_pos(doc, ("handoffs", index)),
                f"$.handoffs[{index}]: VS Code keeps a handoff only with `agent`, `label` and "
                f"`prompt` values; this one lacks {', '.join(missing)} and is dropped",
            )


def _scalar(value: Any) -> bool:
    return value is not None and not isinstance(value, list | dict)


def _known_keys(doc: Doc) -> Iterator[Finding]:
    for key in doc.data:
        if key not in KNOWN_KEYS:
            yield fm.at(
                UNKNOWN_KEY,
                doc,
                fm.key_pos(doc, (key,)),
                f"$.{key}: VS Code's prompt-file parser knows no such attribute and ignores it; "
                "check the spelling",
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
