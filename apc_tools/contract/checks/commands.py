"""Claude Code custom slash commands: ``.claude/commands/**/*.md``.

The frontmatter is optional. Claude Code reads ``description``, ``allowed-tools`` (a string or a
list), ``argument-hint`` (a string), ``model`` (an alias or a model id) and
``disable-model-invocation`` (a boolean); commands and skills are loaded the same way, so the
skill fields (``name``, ``when_to_use``, ``user-invocable``, ...) are known too. Claude Code runs
a command whatever these values are, so every finding here is a warning or info.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.checks.agents import MODEL_VALUE
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "commands"
_rule = rule_family(FAMILY)

COMMAND_KEYS = frozenset(
    {
        "description",
        "allowed-tools",
        "argument-hint",
        "model",
        "disable-model-invocation",
        # the skill fields, which commands share
        "name",
        "when_to_use",
        "user-invocable",
        "hooks",
        "context",
        "agent",
        "effort",
        "paths",
        "shell",
        "arguments",
        "version",
    }
)

FIELD_FORM = _rule(
    "CMD001",
    "command-field-form",
    Severity.WARNING,
    "A slash command frontmatter value is not in the form Claude Code reads.",
    "`description` and `argument-hint` are strings, `allowed-tools` a string or a list of tool "
    "rules (`Bash(git add:*)`), `model` an alias (`sonnet`, `opus`, `haiku`) or a model id, "
    "`disable-model-invocation` true or false. Claude Code runs the command anyway but ignores "
    "or misreads the value.",
    ".claude/commands/commit.md:\n---\ndescription: Commit staged changes\n"
    "allowed-tools: Bash(git add:*), Bash(git commit:*)\nmodel: haiku\n---\n",
    ".claude/commands/commit.md:\n---\ndescription: Commit staged changes\n"
    "model: Claude Haiku 4.5\n---\n",
)
UNKNOWN_KEY = _rule(
    "CMD002",
    "command-unknown-key",
    Severity.INFO,
    "A slash command frontmatter key is not one Claude Code documents.",
    "Claude Code ignores it. Check the spelling against description, allowed-tools, "
    "argument-hint, model, disable-model-invocation and the skill fields.",
    ".claude/commands/commit.md:\n---\ndescription: Commit\n---\n",
    ".claude/commands/commit.md:\n---\ndescripton: Commit\n---\n",
)

RULES = (FIELD_FORM, UNKNOWN_KEY)

_STRINGS = {"description": "a string", "argument-hint": "a string such as `[message]`"}


def _form(doc: Doc, key: str, message: str) -> Finding:
    return fm.at(FIELD_FORM, doc, fm.value_pos(doc, (key,)), f"$.{key}: {message}")


def _values(doc: Doc) -> Iterator[Finding]:
    data = doc.data
    for key, wanted in _STRINGS.items():
        if key in data and not isinstance(data[key], str):
            yield _form(doc, key, f"should be {wanted}; Claude Code may ignore this value")
    tools = data.get("allowed-tools")
    if tools is not None and not (
        isinstance(tools, str)
        or (isinstance(tools, list) and all(isinstance(t, str) for t in tools))
    ):
        yield _form(doc, "allowed-tools", "should be a string or a list of tool rules")
    model = data.get("model")
    if model is not None and not (isinstance(model, str) and MODEL_VALUE.match(model.strip())):
        yield _form(
            doc,
            "model",
            f"{model!r} is not a model Claude Code can select; write an alias (sonnet, opus, "
            "haiku) or a full model id (e.g. claude-sonnet-4-5)",
        )
    flag = data.get("disable-model-invocation")
    if flag is not None and not isinstance(flag, bool):
        yield _form(doc, "disable-model-invocation", "should be true or false, unquoted")


def check_command(doc: Doc, project: Project) -> Iterator[Finding]:
    if not fm.parsed(doc):
        return  # no frontmatter is fine: the whole file is the prompt
    yield from _values(doc)
    for key in doc.data:
        if key not in COMMAND_KEYS:
            yield fm.at(
                UNKNOWN_KEY,
                doc,
                fm.key_pos(doc, (key,)),
                f"{fm.json_path((key,))}: not a slash command field; Claude Code ignores it",
            )


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {"claude-command": (check_command,)}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
