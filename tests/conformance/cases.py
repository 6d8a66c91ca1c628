# ruff: noqa: E501 (the trees are file contents, kept one file per line)
"""Validate verdicts read from what the real tools load (issue 16 item 2).

Each ``Tree`` is a small project written to disk; each ``Case`` names one file of it, the tool
whose reading decides it, how to see that file in the tool's request body (``observe``), what the
file says (``written``), and the apc rules expected on it. The tool's verdict comes from the
observation (:func:`verdict`): *as-written* (loaded as the file says), *degraded* (loaded, cut or
with something lost that the file still works without), *misread* (loaded with what it says
changed: Claude Code's fallback reading of a frontmatter it cannot parse, a list read as text),
*skipped* (not loaded). ``apc validate`` agrees when an as-written file has no error, a degraded
file its worst finding a warning, and a misread or skipped file an error (``apc`` overrides this
where apc cannot know the intent, with the reason written next to it).

Observations are recorded per tool and pinned version in ``observed/<tool>@<version>.json``
(small; the request bodies are not kept). The replay tier judges apc against every version's
observations without any CLI (where two versions read a case differently, the stricter verdict
stands and the case says which version does what, ``versions``); the full tier runs the CLIs,
observes again and fails when a tool version reads a case differently (re-record with
``APC_CONFORMANCE_RECORD=1``, see docs/conformance.md).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conformance.mock import Recorded, Script, Text, ToolCall

OBSERVED = Path(__file__).resolve().parent / "observed"
API = {"claude": "anthropic", "codex": "openai", "gemini": "gemini"}

WORDS = "".join(f"w{i:04d} " for i in range(400)).strip()  # 2,399 characters


def strings(value: Any) -> Iterator[str]:
    """Every string inside a decoded JSON body (where the CLIs put what they loaded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def body_text(rec: Recorded) -> str:
    return "\n".join(strings(rec.body))


# --- what a tool shows of one file -------------------------------------------------------------


def claude_agent(text: str, name: str) -> dict[str, Any]:
    """A subagent in the Agent tool's list: ``- name: description (Tools: ...)``."""
    match = re.search(rf"^- {re.escape(name)}: (.*) \(Tools: (.*)\)$", text, re.M)
    if not match:
        return {"listed": False}
    return {"listed": True, "description": match.group(1), "tools": match.group(2)}


def claude_skill(text: str, name: str) -> dict[str, Any]:
    """A skill or command in the skill list: ``- name: description`` (no Tools suffix);
    2.1.332 adds a skill's frontmatter name where it differs: ``- folder (name): description``."""
    for match in re.finditer(rf"^- {re.escape(name)}(?: \([^)\n]*\))?: (.*)$", text, re.M):
        if "(Tools: " not in match.group(1):
            return {"listed": True, "description": match.group(1)}
    return {"listed": False}


def codex_skill(text: str, folder: str) -> dict[str, Any]:
    """``- name: description (file: rN/<folder>/SKILL.md)`` in Codex's skill list."""
    match = re.search(
        rf"^- ([^:\n]+): (.*) \(file: [^)\n]*/{re.escape(folder)}/SKILL\.md\)$", text, re.M
    )
    if not match:
        return {"listed": False}
    return {"listed": True, "name": match.group(1), "description": match.group(2)}


def gemini_skill(text: str, folder: str) -> dict[str, Any]:
    """``<skill><name>..</name><description>..</description><location>../<folder>/SKILL.md``."""
    for match in re.finditer(r"<skill>(.*?)</skill>", text, re.S):
        block = match.group(1)
        if f"/{folder}/SKILL.md</location>" not in block:
            continue
        name = re.search(r"<name>(.*?)</name>", block, re.S)
        desc = re.search(r"<description>(.*?)</description>", block, re.S)
        return {
            "listed": True,
            "name": name.group(1).strip() if name else "",
            "description": desc.group(1).strip() if desc else "",
        }
    return {"listed": False}


def claude_import(text: str, rel: str) -> dict[str, Any]:
    """Claude Code sends each loaded memory file under ``Contents of <abs path> (...)``."""
    return {"listed": re.search(rf"^Contents of \S*/{re.escape(rel)} \(", text, re.M) is not None}


def gemini_import(text: str, rel: str) -> dict[str, Any]:
    if f"<!-- Imported from: {rel} -->" in text:
        return {"listed": True}
    failed = f"<!-- Import failed: {rel} " in text
    return {"listed": False, "failed_comment": failed}


def claude_memory(text: str, rel: str) -> dict[str, Any]:
    """How much of a memory file Claude Code sent (characters up to the next header)."""
    match = re.search(
        rf"^Contents of \S*/{re.escape(rel)} \([^)]*\):\n\n(.*?)(?=\n\nContents of |\n# currentDate|\n</system-reminder>)",
        text,
        re.M | re.S,
    )
    if not match:
        return {"listed": False}
    return {"listed": True, "chars": len(match.group(1))}


def codex_agents_md(text: str, rel: str) -> dict[str, Any]:
    """Codex sends AGENTS.md inside ``<INSTRUCTIONS>``; how many bytes of it."""
    match = re.search(
        r"# AGENTS\.md instructions for \S+\n\n<INSTRUCTIONS>\n(.*?)\n</INSTRUCTIONS>", text, re.S
    )
    if not match:
        return {"listed": False}
    return {"listed": True, "bytes": len(match.group(1).encode("utf-8"))}


def claude_subagent_request(recs: list[Recorded], marker: str) -> dict[str, Any]:
    """The request Claude Code sent for a delegated subagent: its messages carry the prompt
    ``marker`` but no Agent call (the parent's next turns hold the call that carried it)."""
    for rec in recs:
        body = rec.body if isinstance(rec.body, dict) else {}
        messages = json.dumps(body.get("messages") or [])
        if marker in messages and '"tool_use"' not in messages:
            tools = sorted(t.get("name", "") for t in body.get("tools") or [])
            return {"ran": True, "model": body.get("model"), "tools": tools}
    return {"ran": False}


def claude_link(text: str, rel: str) -> dict[str, Any]:
    """A Markdown link: sent as text (``kept``), its target never loaded (``followed``)."""
    return {
        "kept": f"]({rel})" in text,
        "followed": re.search(rf"^Contents of \S*/{re.escape(rel)} \(", text, re.M) is not None,
    }


def gemini_link(text: str, rel: str) -> dict[str, Any]:
    return {
        "kept": f"]({rel})" in text,
        "followed": f"Imported from: {rel}" in text or f"Import failed: {rel}" in text,
    }


LINK_TARGET = "LINKTARGET: the release notes.\n"  # the content of a file AGENTS.md links to


def codex_link(text: str, rel: str) -> dict[str, Any]:
    """A Markdown link in AGENTS.md: kept in the ``<INSTRUCTIONS>`` text Codex sends; followed
    if the content of the file it links to (``LINK_TARGET``, which exists) was sent too."""
    match = re.search(r"<INSTRUCTIONS>\n(.*?)\n</INSTRUCTIONS>", text, re.S)
    return {
        "kept": match is not None and f"]({rel})" in match.group(1),
        "followed": LINK_TARGET.strip() in text,
    }


def codex_chain(text: str, key: str) -> dict[str, Any]:
    """How many bytes of one file of a chain Codex sent: the file starts with its own heading
    (``# CHAIN <name>``) and runs to the next file's (Codex joins the files with a blank line).
    ``key`` is the heading's name, ``@2`` after it for its second copy (a linked parent)."""
    name, _, nth = key.partition("@")
    match = re.search(r"<INSTRUCTIONS>\n(.*?)\n</INSTRUCTIONS>", text, re.S)
    sent = match.group(1) if match else ""
    starts = [m.start() for m in re.finditer(rf"^# CHAIN {re.escape(name)}$", sent, re.M)]
    if len(starts) < int(nth or 1):
        return {"listed": False}
    start = starts[int(nth or 1) - 1]
    following = re.compile(r"^# CHAIN ", re.M).search(sent, start + 1)
    part = sent[start : following.start() if following else len(sent)]
    return {"listed": True, "bytes": len(part.rstrip().encode("utf-8"))}


def gemini_context(text: str, markers: str) -> dict[str, Any]:
    """Context files Gemini CLI sent: each ``|``-separated marker of their content found."""
    return {"listed": all(m in text for m in markers.split("|"))}


def gemini_command(body: Any, invocation: str) -> dict[str, Any]:
    """What Gemini CLI sent for ``gemini -p "/name args"``: the command's prompt when it has a
    command of that name, else the invocation as plain text (the user turn's parts after the
    session context)."""
    contents = body.get("contents") if isinstance(body, dict) else None
    parts = contents[-1].get("parts") or [] if contents else []
    texts = [p.get("text", "") for p in parts if isinstance(p, dict)]
    texts = [t for t in texts if "<session_context>" not in t]
    sent = "\n".join(texts).strip()
    return {"expanded": sent != invocation, "sent": sent[:200]}


def gemini_tools(body: Any, tool: str) -> dict[str, Any]:
    """Whether the tool ``tool`` is declared to the model in the request."""
    tools = body.get("tools") if isinstance(body, dict) else None
    names = [
        f.get("name")
        for t in tools or []
        if isinstance(t, dict)
        for f in t.get("functionDeclarations") or []
        if isinstance(f, dict)
    ]
    return {"declared": tool in names}


BODY_OBSERVERS = {"gemini-command": gemini_command, "gemini-tools": gemini_tools}


def claude_hook(text: str, marker: str) -> dict[str, Any]:
    """A UserPromptSubmit command hook that echoes ``marker``: Claude Code adds its output to the
    prompt it sends, so the marker in the body says the hook was loaded and ran."""
    return {"ran": marker in text}


OBSERVERS = {
    "codex-chain": codex_chain,
    "gemini-context": gemini_context,
    "claude-hook": claude_hook,
    "claude-link": claude_link,
    "codex-link": codex_link,
    "gemini-link": gemini_link,
    "claude-agent": claude_agent,
    "claude-skill": claude_skill,
    "codex-skill": codex_skill,
    "gemini-skill": gemini_skill,
    "claude-import": claude_import,
    "gemini-import": gemini_import,
    "claude-memory": claude_memory,
    "codex-agents-md": codex_agents_md,
}


# --- cases -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    tool: str  # claude | codex | gemini
    tree: str
    path: str  # the file judged, relative to the tree
    observe: str  # a key of OBSERVERS, or "claude-subagent"
    key: str  # the name / folder / path the observer looks for
    written: dict[str, Any] = field(default_factory=dict)  # what the file says
    rules: tuple[str, ...] = ()  # apc rules expected on the file
    apc: str = ""  # the severity apc must give when it cannot follow the verdict, and why
    why: str = ""
    group: str = ""  # cases of one file content read by several tools: apc follows the worst
    # where the tool's pinned versions read the file differently: which version does what
    # ("2.1.197: skipped; 2.1.332: loaded under its file name"); apc follows the stricter
    versions: str = ""


@dataclass(frozen=True)
class Tree:
    name: str
    tool: str
    files: dict[str, str]
    script: tuple[Any, ...] = ()  # turns (ToolCall/Text) when the case needs a conversation
    setup: tuple[tuple[str, ...], ...] = ()  # Claude Code commands run first ({project}: the tree)
    # The folder the CLI runs in (a git repository is made of the tree first, so that Codex
    # reads the chain of AGENTS.md from its root down to there), and symlinks (rel, target).
    cwd: str = ""
    links: tuple[tuple[str, str], ...] = ()
    prompt: str = "hello"  # what the CLI is asked (a slash command: `/name args`)
    extensions: tuple[str, ...] = ()  # Gemini CLI extension folders linked into the HOME first
    args: tuple[str, ...] = ()  # more arguments of the CLI's run ({project}: the tree)
    may_fail: bool = False  # the CLI may refuse to start on this tree (the verdict: skipped)
    setup_may_fail: bool = False  # a refused setup command is the observation (a marketplace)

    def write(self, root: Path) -> Path:
        for rel, text in self.files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, "utf-8")
        for rel, to in self.links:
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).symlink_to(to)
        return root

    def make_script(self) -> Script:
        return Script(list(self.script) or [Text("DONE")])


def _agent(name: str, description: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\nYou are {name}.\n"


def _skill(name: str, description: str) -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\nUse {name} well.\n"


LONG_DESCRIPTION = "LONGSKILL " + WORDS  # 2,409 characters: over Codex's 1,024, Claude's 1,536
SKILLS = {
    "good-skill": _skill("good-skill", "GOODSKILL formats the changelog"),
    "nofm-skill": "# NOFMSKILL\nFormat the changelog.\n",
    "nodesc-skill": "---\nname: nodesc-skill\n---\nNODESCSKILL formats the changelog.\n",
    "folder-name": _skill("other-name", "RENAMEDSKILL formats the changelog"),
    "long-skill": _skill("long-skill", LONG_DESCRIPTION),
    "quote-skill": "---\nname: quote-skill\ndescription: 'QUOTESKILL it's broken'\n---\nbody\n",
    "colon-skill": _skill("colon-skill", "COLONSKILL Use when: the user asks"),
    "bad-name": _skill("Bad Name", "BADNAMESKILL formats the changelog"),
}


def _skills(base: str) -> dict[str, str]:
    return {f"{base}/{folder}/SKILL.md": text for folder, text in SKILLS.items()}


CLAUDE_MAIN = Tree(
    "claude-main",
    "claude",
    {
        ".claude/agents/good-agent.md": _agent(
            "good-agent", "GOODAGENT reviews code", "tools: Read, Grep\n"
        ),
        ".claude/agents/no-name.md": "---\ndescription: NONAME reviews code\n---\nbody\n",
        ".claude/agents/no-desc.md": "---\nname: no-desc\n---\nbody\n",
        ".claude/agents/colon-desc.md": _agent("colon-desc", "COLONDESC Use when: the user asks"),
        ".claude/agents/open-quote.md": '---\nname: open-quote\ndescription: "OPENQUOTE never closed\ntools: Read\n---\nbody\n',
        ".claude/agents/bad-indent.md": "---\nname: bad-indent\n  description: BADINDENT\ntools: Read\n---\nbody\n",
        ".claude/agents/open-flow.md": _agent(
            "open-flow", "OPENFLOW reviews code", "tools: [Read, Grep\n"
        ),
        ".claude/agents/dup-key.md": "---\nname: dup-key\ndescription: DUPKEY first\ndescription: DUPKEY second\n---\nbody\n",
        ".claude/agents/unclosed.md": "---\nname: unclosed\ndescription: UNCLOSED reviews code\ntools: Read\nbody\n",
        ".claude/agents/plain-agent.md": "You are a code reviewer.\n\nReview every change for bugs and style.\n",
        ".claude/agents/spaced-name.md": _agent("Code Reviewer", "SPACEDNAME reviews code"),
        ".claude/agents/colon-name.md": _agent("team:reviewer", "COLONNAME reviews code"),
        ".claude/agents/dash-name.md": _agent("-lead", "DASHNAME reviews code"),
        ".claude/agents/README.md": "# Agents\n\nThis folder holds the project's subagents.\n",
        **_skills(".claude/skills"),
        "CLAUDE.md": "# Notes\n\n@docs/present.md\n@docs/missing.md\n\nSee [the guide](docs/nowhere.md).\n",
        "docs/present.md": "PRESENTIMPORT: run the tests.\n",
    },
)

CLAUDE_COMMANDS = Tree(
    "claude-commands",
    "claude",
    {
        ".claude/commands/quote-cmd.md": '---\ndescription: "QUOTECMD open\n---\nRelease.\n',
        ".claude/commands/good-cmd.md": "---\ndescription: GOODCMD releases\n---\nRelease it.\n",
        ".claude/commands/colon-cmd.md": "---\ndescription: COLONCMD Use when: releasing\n---\nRelease.\n",
    },
)


def _delegate(agent: str, marker: str) -> tuple[Any, ...]:
    """One Agent call, the subagent's answer, the parent's: one delegation per tree, since a
    subagent of 2.1.332 has the Agent tool too and would take a second call meant for the parent."""
    call = {"description": "delegate", "prompt": marker, "subagent_type": agent}
    return (ToolCall("Agent", call), Text("SUB-DONE"), Text("FINAL"))


CLAUDE_SUBAGENTS = Tree(
    "claude-subagents",
    "claude",
    {
        ".claude/agents/display-model.md": _agent(
            "display-model", "DISPLAYMODEL reviews", "model: Claude Sonnet 4.5\n"
        ),
    },
    _delegate("display-model", "SUBPROMPT-MODEL"),
)
CLAUDE_SUBAGENT_TOOLS = Tree(
    "claude-subagent-tools",
    "claude",
    {
        ".claude/agents/foreign-tools.md": _agent(
            "foreign-tools",
            "FOREIGNTOOLS edits",
            "tools: ['edit/editFiles', 'execute/runInTerminal']\n",
        ),
    },
    _delegate("foreign-tools", "SUBPROMPT-TOOLS"),
)

BIG_CLAUDE_MD = "# Big notes\n\n" + "".join(
    f"Rule {i:05d}: keep the build green and the tests fast.\n" for i in range(930)
)
CLAUDE_BIG = Tree("claude-big", "claude", {"CLAUDE.md": BIG_CLAUDE_MD})

AGENTS_OVER = "# Notes\n\n" + "".join(
    f"line{i:05d} filler text here to grow\n" for i in range(1200)
)
AGENTS_UNDER = "# Notes\n\n" + "".join(
    f"line{i:05d} filler text here to grow\n" for i in range(900)
)
CODEX_MAIN = Tree("codex-main", "codex", {"AGENTS.md": AGENTS_OVER, **_skills(".agents/skills")})
CODEX_UNDER = Tree("codex-under", "codex", {"AGENTS.md": AGENTS_UNDER})

GEMINI_MAIN = Tree(
    "gemini-main",
    "gemini",
    {
        "GEMINI.md": "# Notes\n\n@docs/present.md\n@docs/missing.md\n\nSee [the guide](docs/nowhere.md).\n",
        "docs/present.md": "PRESENTIMPORT: run the tests.\n",
        **_skills(".gemini/skills"),
    },
)

CLAUDE_PLUGIN = Tree(
    "claude-plugin",
    "claude",
    {
        ".claude-plugin/marketplace.json": json.dumps(
            {
                "name": "mkt",
                "owner": {"name": "o"},
                "plugins": [{"name": "tools", "source": "./plugins/tools", "strict": False}],
            }
        ),
        "plugins/tools/agents/good.md": _agent("good", "PLUGGOOD reviews code", "tools: Read\n"),
        "plugins/tools/agents/flow.md": _agent(
            "flow", "PLUGFLOW reviews code", "tools: [Read, Grep\n"
        ),
        "plugins/tools/agents/quote.md": '---\nname: quote\ndescription: "PLUGQUOTE open\ntools: Read\n---\nbody\n',
    },
    setup=(("plugin", "marketplace", "add", "{project}"), ("plugin", "install", "tools@mkt")),
)

# A root AGENTS.md with no CLAUDE.md: Claude Code 2.1.332 reads it as project memory (whole,
# imports followed); 2.1.197 does not read it. Beside a CLAUDE.md neither reads it.
AGENTS_MEMORY = BIG_CLAUDE_MD + "\n@docs/present.md\n"
CLAUDE_AGENTS_MD = Tree(
    "claude-agents-md",
    "claude",
    {"AGENTS.md": AGENTS_MEMORY, "docs/present.md": "PRESENTIMPORT: run the tests.\n"},
)
CLAUDE_AGENTS_MD_MISSING = Tree(
    "claude-agents-md-missing", "claude", {"AGENTS.md": "# Notes\n\n@docs/missing.md\n"}
)
CLAUDE_AGENTS_MD_BESIDE = Tree(
    "claude-agents-md-beside",
    "claude",
    {"CLAUDE.md": "# Notes\n\nRun the tests.\n", "AGENTS.md": "# Notes\n\n@docs/missing.md\n"},
)


def _manifest(**fields: Any) -> str:
    return json.dumps(fields)


# Gemini CLI extensions, each linked into the HOME (`gemini extensions link`'s install record)
GEMINI_EXTS = {
    "exts/good-ext/gemini-extension.json": _manifest(
        name="good-ext",
        version="1.0.0",
        contextFileName="CTX.md",
        excludeTools=["google_web_search"],
    ),
    "exts/good-ext/CTX.md": "GOODEXTCTX: the context of good-ext\n",
    "exts/good-ext/commands/greet.toml": 'description = "GREETDESC"\nprompt = "GREETPROMPT hello {{args}}"\n',
    "exts/list-ext/gemini-extension.json": _manifest(
        name="list-ext", version="1.0.0", contextFileName=["A.md", "B.md"]
    ),
    "exts/list-ext/A.md": "LISTACTX: first\n",
    "exts/list-ext/B.md": "LISTBCTX: second\n",
    "exts/escape-ext/gemini-extension.json": _manifest(
        name="escape-ext", version="1.0.0", contextFileName="../SHARED.md"
    ),
    "exts/SHARED.md": "ESCAPECTX: outside the extension\n",
    "exts/nover-ext/gemini-extension.json": _manifest(name="nover-ext"),
    "exts/nover-ext/GEMINI.md": "NOVERCTX: the context of nover-ext\n",
    "exts/badname-ext/gemini-extension.json": _manifest(name="bad_name", version="1.0.0"),
    "exts/badname-ext/GEMINI.md": "BADNAMECTX: the context of bad_name\n",
    "exts/numctx-ext/gemini-extension.json": _manifest(
        name="numctx-ext", version="1.0.0", contextFileName=5, excludeTools="web_fetch"
    ),
    "exts/numctx-ext/GEMINI.md": "NUMCTX: the context of numctx-ext\n",
}
GEMINI_EXT = Tree(
    "gemini-ext",
    "gemini",
    GEMINI_EXTS,
    extensions=tuple(sorted({rel.split("/")[1] for rel in GEMINI_EXTS})),
)
GEMINI_COMMANDS = {
    ".gemini/commands/good.toml": 'description = "PGOODDESC"\nprompt = "PGOODPROMPT {{args}}"\n',
    ".gemini/commands/bad.toml": 'description = "PBADDESC\nprompt = "BADPROMPT"\n',
    ".gemini/commands/noprompt.toml": 'description = "PNOPROMPT"\n',
    ".gemini/commands/numdesc.toml": 'description = 5\nprompt = "NUMDESCPROMPT"\n',
    ".gemini/commands/extra.toml": 'prompt = "EXTRAPROMPT"\nmodel = "gemini-2.5-flash"\n',
    ".gemini/commands/git/commit.toml": 'description = "PCOMMIT"\nprompt = "COMMITPROMPT"\n',
    ".gemini/commands/help.toml": 'description = "PHELP"\nprompt = "HELPPROMPT"\n',
    ".gemini/commands/shell.toml": 'description = "PSHELL"\nprompt = "SHELLPROMPT !{echo SHELLRAN}"\n',
    "exts/cmd-ext/gemini-extension.json": _manifest(name="cmd-ext", version="1.0.0"),
    "exts/cmd-ext/commands/greet.toml": 'prompt = "EXTGREETPROMPT {{args}}"\n',
}
# one run per invocation: a command shows only in the request it expands into
GEMINI_INVOCATIONS = {
    "good": "/good ARGX",
    "bad": "/bad",
    "noprompt": "/noprompt",
    "numdesc": "/numdesc",
    "extra": "/extra",
    "git-commit": "/git:commit",
    "help": "/workspace.help",
    "shell": "/shell",
    "ext-greet": "/greet Z",
}
GEMINI_COMMAND_TREES = [
    Tree(f"gemini-cmd-{name}", "gemini", GEMINI_COMMANDS, prompt=prompt, extensions=("cmd-ext",))
    for name, prompt in GEMINI_INVOCATIONS.items()
]


def _plugin_manifest(name: str, **keys: Any) -> str:
    return json.dumps({"name": name, "version": "1.0.0", **keys})


def _hooks(marker: str, event: str = "UserPromptSubmit", **keys: Any) -> str:
    hook = {"type": "command", "command": f"echo {marker}", **keys}
    return json.dumps({"hooks": {event: [{"hooks": [hook]}]}})


_PLUGIN_DIRS = ("folder", "prefix", "rooted", "nameless", "authored", "missing")
_PLUGIN_DIRS += ("hooked", "hooktop", "hooktime", "hookevent")

# Plugins loaded with --plugin-dir: a plugin whose
# manifest Claude Code refuses cannot be installed from a marketplace, so it is loaded this way.
CLAUDE_PLUGINS = Tree(
    "claude-plugins",
    "claude",
    {
        "plugins/folder/.claude-plugin/plugin.json": _plugin_manifest("folder", agents="./agents"),
        "plugins/folder/agents/lead.md": _agent("lead", "PLGFOLDER reviews code"),
        "plugins/prefix/.claude-plugin/plugin.json": _plugin_manifest(
            "prefix", skills=["skills/lint"]
        ),
        "plugins/prefix/agents/lead.md": _agent("lead", "PLGPREFIX reviews code"),
        "plugins/prefix/skills/lint/SKILL.md": _skill("lint", "PLGPREFIXSKILL lints"),
        "plugins/rooted/.claude-plugin/plugin.json": _plugin_manifest(
            "rooted", agents=["./lead.md"], skills=["./skills/lint"]
        ),
        "plugins/rooted/lead.md": _agent("lead", "PLGROOTED reviews code"),
        "plugins/rooted/agents/extra.md": _agent("extra", "PLGEXTRA reviews code"),
        "plugins/rooted/skills/lint/SKILL.md": _skill("lint", "PLGROOTEDSKILL lints"),
        "plugins/nameless/.claude-plugin/plugin.json": _plugin_manifest("nameless"),
        "plugins/nameless/agents/anon.md": "---\ndescription: PLGANON reviews code\ntools: Read, Grep\n---\nbody\n",
        "plugins/nameless/agents/nodesc.md": "---\nname: nodesc\ntools: Read\n---\nbody\n",
        "plugins/authored/.claude-plugin/plugin.json": _plugin_manifest(
            "authored", author="Ana Lima"
        ),
        "plugins/authored/agents/lead.md": _agent("lead", "PLGAUTHOR reviews code"),
        "plugins/hooked/.claude-plugin/plugin.json": _plugin_manifest("hooked"),
        "plugins/hooked/hooks/hooks.json": _hooks("HOOKMARK-GOOD", timeout=20),
        "plugins/hooktop/.claude-plugin/plugin.json": _plugin_manifest("hooktop"),
        "plugins/hooktop/hooks/hooks.json": json.dumps(
            {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo HOOKMARK-TOP"}]}]}
        ),
        "plugins/hooktime/.claude-plugin/plugin.json": _plugin_manifest("hooktime"),
        "plugins/hooktime/hooks/hooks.json": _hooks("HOOKMARK-TIME", timeout="5"),
        "plugins/missing/.claude-plugin/plugin.json": _plugin_manifest(
            "missing", agents=["./agents/lead.md", "./agents/nowhere.md"]
        ),
        "plugins/missing/agents/lead.md": _agent("lead", "PLGMISSING reviews code"),
        "plugins/hookevent/.claude-plugin/plugin.json": _plugin_manifest("hookevent"),
        "plugins/hookevent/hooks/hooks.json": _hooks("HOOKMARK-EVENT", event="UserPromptSubmitt"),
    },
    # one --plugin-dir each (2.1.197 loads no folder of plugins)
    args=tuple(
        arg for name in _PLUGIN_DIRS for arg in ("--plugin-dir", f"{{project}}/plugins/{name}")
    ),
)


def _market(name: str, plugins: list[dict[str, Any]]) -> str:
    return json.dumps({"name": name, "owner": {"name": "o"}, "plugins": plugins})


def _market_plugin(base: str, name: str, agent: str, marker: str) -> dict[str, str]:
    return {
        f"{base}/.claude-plugin/plugin.json": _plugin_manifest(name),
        f"{base}/agents/{agent}.md": _agent(agent, f"{marker} reviews code"),
    }


# Local marketplaces, each in a folder of its own, added and their plugin installed before the
# run: a refused `plugin marketplace add` or `plugin install` is what is observed (the plugin's
# agent never reaches the model). Each marketplace's plugin is `tools-<folder>`.
def _entry(folder: str, source: str = "./plugins/tools", **keys: Any) -> dict[str, Any]:
    return {"name": f"tools-{folder}", "source": source, **keys}


_MARKETS: dict[str, tuple[str, list[dict[str, Any]]]] = {
    "good": ("mk-good", [_entry("good")]),
    "reserved": ("claude-plugins-official", [_entry("reserved")]),
    "imitation": ("official-claude-tools", [_entry("imitation")]),
    "missing": ("mk-missing", [_entry("missing", "./plugins/tols")]),
    "noname": ("mk-noname", [{"source": "./plugins/tools"}]),
    "dup": ("mk-dup", [_entry("dup"), _entry("dup", "./plugins/b")]),
}
CLAUDE_MARKETS = Tree(
    "claude-markets",
    "claude",
    {
        **{
            f"{folder}/.claude-plugin/marketplace.json": _market(name, plugins)
            for folder, (name, plugins) in _MARKETS.items()
        },
        **{
            rel: text
            for folder in _MARKETS
            for rel, text in _market_plugin(
                f"{folder}/plugins/tools", f"tools-{folder}", "lead", f"MK{folder.upper()}"
            ).items()
        },
        **_market_plugin("dup/plugins/b", "tools-dup", "blead", "MKDUPB"),
    },
    setup=tuple(
        step
        for folder, (name, _) in _MARKETS.items()
        for step in (
            ("plugin", "marketplace", "add", f"{{project}}/{folder}"),
            ("plugin", "install", f"tools-{folder}@{name}"),
        )
    ),
    setup_may_fail=True,
)

LINK_ONLY = "# Notes\n\nSee [the guide](docs/nowhere.md) before releasing.\n"
CLAUDE_LINK = Tree("claude-link", "claude", {"CLAUDE.md": LINK_ONLY})
GEMINI_LINK = Tree("gemini-link", "gemini", {"GEMINI.md": LINK_ONLY})
CODEX_LINK = Tree(
    "codex-link",
    "codex",
    {
        "AGENTS.md": LINK_ONLY + "Read [the notes](docs/notes.md) too.\n",
        "docs/notes.md": LINK_TARGET,
    },
)


def _chain_doc(name: str, lines: int) -> str:
    """An AGENTS.md of one chain: its heading (what :func:`codex_chain` looks for), then
    ``lines`` lines of 36 bytes."""
    return f"# CHAIN {name}\n" + "".join(
        f"{name}{i:05d} rule text to grow the file\n" for i in range(lines)
    )


# Codex reads the AGENTS.md (or AGENTS.override.md) of every folder from the repository root
# down to its working folder, with one 32 KiB budget for all (codex-rs/core/src/project_doc.rs).
def _chain_tree(name: str, root: int, a: int, b: int) -> Tree:
    """A chain of three AGENTS.md (``root``, ``a``, ``a/b``, of that many lines), Codex run in
    ``a/b``."""
    files = {"AGENTS.md": _chain_doc("root", root), "a/AGENTS.md": _chain_doc("a", a)}
    return Tree(name, "codex", {**files, "a/b/AGENTS.md": _chain_doc("b", b)}, cwd="a/b")


CODEX_CHAIN = _chain_tree("codex-chain", 880, 120, 20)  # 31.7 KB at the root leaves ~200 bytes
CODEX_CHAIN_FITS = _chain_tree("codex-chain-fits", 400, 300, 100)
# A parent reached again through a symlink is sent, and counted, twice.
CODEX_CHAIN_LINK = Tree(
    "codex-chain-link",
    "codex",
    {"AGENTS.md": _chain_doc("root", 560), "a/b/AGENTS.md": _chain_doc("b", 20)},
    cwd="a/b",
    links=(("a/AGENTS.md", "../AGENTS.md"),),
)
# AGENTS.override.md replaces the AGENTS.md beside it, and only that one.
CODEX_OVERRIDE = Tree(
    "codex-override",
    "codex",
    {
        "AGENTS.md": _chain_doc("rootmd", 10),
        "AGENTS.override.md": _chain_doc("override", 10),
        "a/AGENTS.md": _chain_doc("a", 10),
    },
    cwd="a",
)
# An override that is a link to nothing is passed over: the AGENTS.md beside it is sent.
CODEX_OVERRIDE_DANGLING = Tree(
    "codex-override-dangling",
    "codex",
    {"AGENTS.md": _chain_doc("dangmd", 10)},
    cwd=".",
    links=(("AGENTS.override.md", "nowhere.md"),),
)

TREES = {
    t.name: t
    for t in (
        CODEX_CHAIN,
        CODEX_OVERRIDE_DANGLING,
        CODEX_CHAIN_FITS,
        CODEX_CHAIN_LINK,
        CODEX_OVERRIDE,
        CLAUDE_MAIN,
        CLAUDE_COMMANDS,
        CLAUDE_SUBAGENTS,
        CLAUDE_SUBAGENT_TOOLS,
        CLAUDE_BIG,
        CLAUDE_LINK,
        CLAUDE_PLUGIN,
        CLAUDE_AGENTS_MD,
        CLAUDE_AGENTS_MD_MISSING,
        CLAUDE_AGENTS_MD_BESIDE,
        CLAUDE_PLUGINS,
        CLAUDE_MARKETS,
        CODEX_MAIN,
        CODEX_UNDER,
        GEMINI_MAIN,
        GEMINI_LINK,
        CODEX_LINK,
        GEMINI_EXT,
        *GEMINI_COMMAND_TREES,
    )
}


def _agent_case(
    cid: str, file: str, name: str, written: dict[str, Any], rules: tuple[str, ...] = (), **kw: Any
) -> Case:
    return Case(
        cid,
        "claude",
        "claude-main",
        f".claude/agents/{file}",
        "claude-agent",
        name,
        written,
        rules,
        **kw,
    )


def _chain_case(
    cid: str, tree: Tree, rel: str, key: str, rules: tuple[str, ...] = (), why: str = ""
) -> Case:
    text = tree.files.get(rel) or tree.files[dict(tree.links)[rel].replace("../", "")]
    return Case(
        cid,
        "codex",
        tree.name,
        rel,
        "codex-chain",
        key,
        {"bytes": len(text.rstrip().encode())},
        rules,
        apc="warning" if why else "",
        why=why,
    )


NEVER_SENT = (
    "Codex skips the file, but the file is as written; the chain above it spends the "
    "budget, which the user can raise, and other agents still read it (AGM008's basis)"
)
SHADOWED = (
    "Codex skips the file: the override is Codex's documented way to replace the file on purpose, and every "
    "other agent still reads AGENTS.md (AGM007's basis)"
)


def _chain_cases() -> list[Case]:
    chain, fits, link, over = CODEX_CHAIN, CODEX_CHAIN_FITS, CODEX_CHAIN_LINK, CODEX_OVERRIDE
    return [
        _chain_case("codex-chain-root-fits", chain, "AGENTS.md", "root"),
        _chain_case("codex-chain-nested-cut", chain, "a/AGENTS.md", "a", ("AGM002",)),
        _chain_case(
            "codex-chain-nested-never-sent", chain, "a/b/AGENTS.md", "b", ("AGM008",), NEVER_SENT
        ),
        _chain_case("codex-chain-fits-root", fits, "AGENTS.md", "root"),
        _chain_case("codex-chain-fits-nested", fits, "a/AGENTS.md", "a"),
        _chain_case("codex-chain-fits-deepest", fits, "a/b/AGENTS.md", "b"),
        _chain_case("codex-chain-link-root", link, "AGENTS.md", "root"),
        _chain_case("codex-chain-link-again-cut", link, "a/AGENTS.md", "root@2", ("AGM002",)),
        _chain_case(
            "codex-chain-link-never-sent", link, "a/b/AGENTS.md", "b", ("AGM008",), NEVER_SENT
        ),
        _chain_case("codex-override-shadowed", over, "AGENTS.md", "rootmd", ("AGM007",), SHADOWED),
        _chain_case("codex-override-sent", over, "AGENTS.override.md", "override"),
        _chain_case("codex-override-below-still-sent", over, "a/AGENTS.md", "a"),
        _chain_case(
            "codex-override-dangling-passed-over", CODEX_OVERRIDE_DANGLING, "AGENTS.md", "dangmd"
        ),
    ]


def _skill_cases(tool: str, tree: str, base: str) -> list[Case]:
    obs = {"claude": "claude-skill", "codex": "codex-skill", "gemini": "gemini-skill"}[tool]

    def case(folder: str, written: dict[str, Any], rules: tuple[str, ...] = ()) -> Case:
        return Case(
            f"{tool}-skill-{folder}",
            tool,
            tree,
            f"{base}/{folder}/SKILL.md",
            obs,
            folder,
            written,
            rules,
            group=f"skill-{folder}",
        )

    return [
        case(
            "good-skill", {"name": "good-skill", "description": "GOODSKILL formats the changelog"}
        ),
        case("nofm-skill", {"name": "nofm-skill", "description": None}, ("SKL001",)),
        case("nodesc-skill", {"name": "nodesc-skill", "description": None}, ("SKL002",)),
        case(
            "folder-name",
            {"name": "other-name", "description": "RENAMEDSKILL formats the changelog"},
            ("SKL004",),
        ),
        case("long-skill", {"name": "long-skill", "description": LONG_DESCRIPTION}, ("SKL005",)),
        case(
            "quote-skill",
            {"name": "quote-skill", "description": "QUOTESKILL it's broken"},
            ("YML001",),
        ),
        case(
            "colon-skill",
            {"name": "colon-skill", "description": "COLONSKILL Use when: the user asks"},
        ),
        case(
            "bad-name",
            {"name": "Bad Name", "description": "BADNAMESKILL formats the changelog"},
            ("SKL003",),
        ),
    ]


CASES: tuple[Case, ...] = (
    _agent_case(
        "claude-agent-good",
        "good-agent.md",
        "good-agent",
        {"description": "GOODAGENT reviews code", "tools": "Read, Grep"},
    ),
    _agent_case(
        "claude-agent-no-name",
        "no-name.md",
        "no-name",
        {"description": "NONAME reviews code"},
        ("AGT010",),
    ),
    _agent_case(
        "claude-agent-no-description", "no-desc.md", "no-desc", {"description": None}, ("AGT010",)
    ),
    _agent_case(
        "claude-agent-colon-in-value",
        "colon-desc.md",
        "colon-desc",
        {"description": "COLONDESC Use when: the user asks", "tools": "All tools"},
    ),
    _agent_case(
        "claude-agent-open-quote",
        "open-quote.md",
        "open-quote",
        {"description": "OPENQUOTE never closed", "tools": "Read"},
        ("YML001",),
    ),
    _agent_case(
        "claude-agent-bad-indent",
        "bad-indent.md",
        "bad-indent",
        {"description": "BADINDENT", "tools": "Read"},
        ("YML001",),
    ),
    _agent_case(
        "claude-agent-open-flow",
        "open-flow.md",
        "open-flow",
        {"description": "OPENFLOW reviews code", "tools": "Read, Grep"},
        ("YML001",),
    ),
    _agent_case(
        "claude-agent-duplicate-key",
        "dup-key.md",
        "dup-key",
        {"description": "DUPKEY first", "tools": "All tools"},
        ("YML002",),
    ),
    _agent_case(
        "claude-agent-unclosed",
        "unclosed.md",
        "unclosed",
        {"description": "UNCLOSED reviews code", "tools": "Read"},
        ("FMT001",),
    ),
    _agent_case(
        "claude-agent-no-frontmatter",
        "plain-agent.md",
        "plain-agent",
        {"description": "You are a code reviewer."},
        ("AGT002",),
        apc="warning",
        why="skipped by Claude Code, but apc cannot tell an agent written without frontmatter from a "
        "document for sure: a warning saying Claude Code does not load it",
    ),
    _agent_case(
        "claude-agent-readme",
        "README.md",
        "README",
        {"description": "# Agents"},
        ("AGT002",),
        apc="info",
        why="a README among the subagents is a document; Claude Code skips it and nothing is lost",
    ),
    _agent_case(
        "claude-agent-spaced-name",
        "spaced-name.md",
        "Code Reviewer",
        {"description": "SPACEDNAME reviews code", "tools": "All tools"},
        ("AGT011",),
    ),
    _agent_case(
        "claude-agent-colon-name",
        "colon-name.md",
        "team:reviewer",
        {"description": "COLONNAME reviews code", "tools": "All tools"},
        ("AGT010",),
        versions="a `:` in the name: 2.1.197 loads the subagent, 2.1.332 skips it",
    ),
    _agent_case(
        "claude-agent-dash-name",
        "dash-name.md",
        "-lead",
        {"description": "DASHNAME reviews code", "tools": "All tools"},
        ("AGT010",),
    ),
    Case(
        "claude-command-open-quote",
        "claude",
        "claude-commands",
        ".claude/commands/quote-cmd.md",
        "claude-skill",
        "quote-cmd",
        {"description": "QUOTECMD open"},
        ("YML001",),
    ),
    Case(
        "claude-command-good",
        "claude",
        "claude-commands",
        ".claude/commands/good-cmd.md",
        "claude-skill",
        "good-cmd",
        {"description": "GOODCMD releases"},
    ),
    Case(
        "claude-command-colon",
        "claude",
        "claude-commands",
        ".claude/commands/colon-cmd.md",
        "claude-skill",
        "colon-cmd",
        {"description": "COLONCMD Use when: releasing"},
    ),
    Case(
        "claude-import-present",
        "claude",
        "claude-main",
        "docs/present.md",
        "claude-import",
        "docs/present.md",
        {"listed": True},
    ),
    Case(
        "claude-import-missing",
        "claude",
        "claude-main",
        "CLAUDE.md",
        "claude-import",
        "docs/missing.md",
        {"listed": True},
        ("INS001",),
    ),
    Case(
        "claude-md-big",
        "claude",
        "claude-big",
        "CLAUDE.md",
        "claude-memory",
        "CLAUDE.md",
        {"chars": len(BIG_CLAUDE_MD.rstrip("\n"))},
        ("INS005",),
    ),
    Case(
        "claude-agents-md-memory",
        "claude",
        "claude-agents-md",
        "AGENTS.md",
        "claude-memory",
        "AGENTS.md",
        {"chars": len(AGENTS_MEMORY.rstrip("\n"))},
        ("INS005",),
        apc="warning",
        why="2.1.197's skip is no fault of the file (it reads no AGENTS.md); 2.1.332 sends this "
        "one whole: INS005, a warning, as for a CLAUDE.md (and AGM002 for Codex's cut)",
        versions="a root AGENTS.md without CLAUDE.md: 2.1.197 does not read it, 2.1.332 reads "
        "it as project memory",
    ),
    Case(
        "claude-agents-md-import-present",
        "claude",
        "claude-agents-md",
        "docs/present.md",
        "claude-import",
        "docs/present.md",
        {"listed": True},
        apc="ok-or-warning",
        why="nothing to say of the imported file: 2.1.197 reads no AGENTS.md, 2.1.332 loads it",
        versions="2.1.197 reads no AGENTS.md, 2.1.332 follows its import",
    ),
    Case(
        "claude-agents-md-import-missing",
        "claude",
        "claude-agents-md-missing",
        "AGENTS.md",
        "claude-import",
        "docs/missing.md",
        {"listed": True},
        ("INS001",),
        why="2.1.332 reads the AGENTS.md and drops the missing import (2.1.197 reads neither)",
    ),
    Case(
        "claude-agents-md-beside-claude-md",
        "claude",
        "claude-agents-md-beside",
        "AGENTS.md",
        "claude-memory",
        "AGENTS.md",
        {"chars": len("# Notes\n\n@docs/missing.md")},
        apc="ok-or-warning",
        why="beside a CLAUDE.md neither version reads AGENTS.md: Claude Code's import rule "
        "does not apply (Codex sends `@docs/missing.md` as text)",
    ),
    Case(
        "claude-subagent-display-model",
        "claude",
        "claude-subagents",
        ".claude/agents/display-model.md",
        "claude-subagent",
        "SUBPROMPT-MODEL",
        {"model": "an alias or a model id"},
        ("AGT014",),
    ),
    Case(
        "claude-subagent-foreign-tools",
        "claude",
        "claude-subagent-tools",
        ".claude/agents/foreign-tools.md",
        "claude-subagent",
        "SUBPROMPT-TOOLS",
        {"tools": ["edit/editFiles", "execute/runInTerminal"]},
        ("AGT015",),
        versions="2.1.197 runs the subagent with no tools, 2.1.332 refuses to spawn it",
    ),
    *_skill_cases("claude", "claude-main", ".claude/skills"),
    *_skill_cases("codex", "codex-main", ".agents/skills"),
    Case(
        "codex-agents-md-over",
        "codex",
        "codex-main",
        "AGENTS.md",
        "codex-agents-md",
        "AGENTS.md",
        {"bytes": len(AGENTS_OVER.rstrip("\n").encode())},
        ("AGM002",),
    ),
    Case(
        "codex-agents-md-under",
        "codex",
        "codex-under",
        "AGENTS.md",
        "codex-agents-md",
        "AGENTS.md",
        {"bytes": len(AGENTS_UNDER.rstrip("\n").encode())},
    ),
    *_skill_cases("gemini", "gemini-main", ".gemini/skills"),
    *_chain_cases(),
    Case(
        "claude-plugin-agent-good",
        "claude",
        "claude-plugin",
        "plugins/tools/agents/good.md",
        "claude-agent",
        "tools:good",
        {"description": "PLUGGOOD reviews code", "tools": "Read"},
    ),
    Case(
        "claude-plugin-agent-open-flow",
        "claude",
        "claude-plugin",
        "plugins/tools/agents/flow.md",
        "claude-agent",
        "tools:flow",
        {"description": "PLUGFLOW reviews code", "tools": "Read, Grep"},
        ("YML001",),
    ),
    Case(
        "claude-plugin-agent-open-quote",
        "claude",
        "claude-plugin",
        "plugins/tools/agents/quote.md",
        "claude-agent",
        "tools:quote",
        {"description": "PLUGQUOTE open", "tools": "Read"},
        ("YML001",),
    ),
    Case(
        "claude-plugin-agents-folder",
        "claude",
        "claude-plugins",
        "plugins/folder/.claude-plugin/plugin.json",
        "claude-agent",
        "folder:lead",
        {"description": "PLGFOLDER reviews code"},
        ("PLG001",),
        why="an agents entry that is a folder: the whole plugin is refused",
    ),
    Case(
        "claude-plugin-path-prefix",
        "claude",
        "claude-plugins",
        "plugins/prefix/.claude-plugin/plugin.json",
        "claude-agent",
        "prefix:lead",
        {"description": "PLGPREFIX reviews code"},
        ("PLG010",),
        why="a skills entry without ./: the whole plugin is refused, its agents too",
    ),
    Case(
        "claude-plugin-root-agents",
        "claude",
        "claude-plugins",
        "plugins/rooted/lead.md",
        "claude-agent",
        "rooted:lead",
        {"description": "PLGROOTED reviews code"},
        why="an agents list naming a file at the plugin root loads it",
    ),
    Case(
        "claude-plugin-manifest-good",
        "claude",
        "claude-plugins",
        "plugins/rooted/.claude-plugin/plugin.json",
        "claude-skill",
        "rooted:lint",
        {"description": "PLGROOTEDSKILL lints"},
        ("PLG004",),
        apc="warning",
        why="the manifest loads as written; PLG004 says that agents/extra.md, which its "
        "agents list leaves out, is loaded by nothing (claude-plugin-unlisted-agent)",
    ),
    Case(
        "claude-plugin-unlisted-agent",
        "claude",
        "claude-plugins",
        "plugins/rooted/agents/extra.md",
        "claude-agent",
        "rooted:extra",
        {"description": "PLGEXTRA reviews code"},
        apc="ok-or-warning",
        why="a listed agents replaces the agents/ folder: this file is never loaded; apc says so "
        "on the manifest (PLG004, a warning: leaving a file out may be meant), not here",
    ),
    Case(
        "claude-plugin-agent-nameless",
        "claude",
        "claude-plugins",
        "plugins/nameless/agents/anon.md",
        "claude-agent",
        "nameless:anon",
        {"description": "PLGANON reviews code", "tools": "Read, Grep"},
        why="a plugin agent without name is loaded under its file name (not AGT010)",
    ),
    Case(
        "claude-plugin-agent-no-description",
        "claude",
        "claude-plugins",
        "plugins/nameless/agents/nodesc.md",
        "claude-agent",
        "nameless:nodesc",
        {"description": "Agent from nameless plugin", "tools": "Read"},
        ("AGT016",),
        apc="warning",
        why="loaded with the placeholder description 'Agent from <plugin> plugin', as Claude "
        "Code documents it: the file works, but Claude cannot tell when to delegate to it",
    ),
    Case(
        "claude-plugin-author-string",
        "claude",
        "claude-plugins",
        "plugins/authored/.claude-plugin/plugin.json",
        "claude-agent",
        "authored:lead",
        {"description": "PLGAUTHOR reviews code"},
        ("PLG002",),
        versions="2.1.197 refuses the whole plugin, 2.1.332 ignores the key and loads it",
    ),
    Case(
        "claude-plugin-listed-missing",
        "claude",
        "claude-plugins",
        "plugins/missing/.claude-plugin/plugin.json",
        "claude-agent",
        "missing:nowhere",
        {"description": "PLGMISSING reviews code"},
        ("PLG003",),
        why="a listed agent file that does not exist: the rest of the plugin loads "
        "(missing:lead), the entry does not",
    ),
    Case(
        "claude-marketplace-good",
        "claude",
        "claude-markets",
        "good/.claude-plugin/marketplace.json",
        "claude-agent",
        "tools-good:lead",
        {"description": "MKGOOD reviews code"},
    ),
    Case(
        "claude-marketplace-reserved-name",
        "claude",
        "claude-markets",
        "reserved/.claude-plugin/marketplace.json",
        "claude-agent",
        "tools-reserved:lead",
        {"description": "MKRESERVED reviews code"},
        ("PLG008",),
    ),
    Case(
        "claude-marketplace-imitation-name",
        "claude",
        "claude-markets",
        "imitation/.claude-plugin/marketplace.json",
        "claude-agent",
        "tools-imitation:lead",
        {"description": "MKIMITATION reviews code"},
        ("PLG008",),
    ),
    Case(
        "claude-marketplace-source-missing",
        "claude",
        "claude-markets",
        "missing/.claude-plugin/marketplace.json",
        "claude-agent",
        "tools-missing:lead",
        {"description": "MKMISSING reviews code"},
        ("PLG006",),
    ),
    Case(
        "claude-marketplace-entry-no-name",
        "claude",
        "claude-markets",
        "noname/.claude-plugin/marketplace.json",
        "claude-agent",
        "tools-noname:lead",
        {"description": "MKNONAME reviews code"},
        ("PLG005",),
    ),
    Case(
        "claude-marketplace-duplicate-name",
        "claude",
        "claude-markets",
        "dup/.claude-plugin/marketplace.json",
        "claude-agent",
        "tools-dup:blead",
        {"description": "MKDUPB reviews code"},
        ("PLG007",),
        why="the second entry named tools-dup is never installed: tools-dup@mk-dup is the first",
    ),
    Case(
        "claude-plugin-hooks-good",
        "claude",
        "claude-plugins",
        "plugins/hooked/hooks/hooks.json",
        "claude-hook",
        "HOOKMARK-GOOD",
        {"ran": True},
    ),
    Case(
        "claude-plugin-hooks-top-level",
        "claude",
        "claude-plugins",
        "plugins/hooktop/hooks/hooks.json",
        "claude-hook",
        "HOOKMARK-TOP",
        {"ran": True},
        ("PLG009",),
    ),
    Case(
        "claude-plugin-hook-timeout-string",
        "claude",
        "claude-plugins",
        "plugins/hooktime/hooks/hooks.json",
        "claude-hook",
        "HOOKMARK-TIME",
        {"ran": True},
        ("HOK002",),
    ),
    Case(
        "claude-plugin-hook-event-unknown",
        "claude",
        "claude-plugins",
        "plugins/hookevent/hooks/hooks.json",
        "claude-hook",
        "HOOKMARK-EVENT",
        {"ran": True},
        ("HOK001",),
    ),
    Case(
        "claude-link-not-followed",
        "claude",
        "claude-link",
        "CLAUDE.md",
        "claude-link",
        "docs/nowhere.md",
        {"kept": True},
        ("INS002",),
    ),
    Case(
        "gemini-link-not-followed",
        "gemini",
        "gemini-link",
        "GEMINI.md",
        "gemini-link",
        "docs/nowhere.md",
        {"kept": True},
        ("INS002",),
    ),
    Case(
        "codex-link-not-followed",
        "codex",
        "codex-link",
        "AGENTS.md",
        "codex-link",
        "docs/nowhere.md",
        {"kept": True},
        ("AGM003",),
    ),
    Case(
        "gemini-import-present",
        "gemini",
        "gemini-main",
        "docs/present.md",
        "gemini-import",
        "docs/present.md",
        {"listed": True},
    ),
    Case(
        "gemini-import-missing",
        "gemini",
        "gemini-main",
        "GEMINI.md",
        "gemini-import",
        "docs/missing.md",
        {"listed": True},
        ("INS001",),
    ),
    *[
        Case(f"gemini-ext-{cid}", "gemini", "gemini-ext", path, "gemini-context", key, {}, rules)
        for cid, path, key, rules in (
            ("context", "exts/good-ext/gemini-extension.json", "GOODEXTCTX", ()),
            ("context-list", "exts/list-ext/gemini-extension.json", "LISTACTX|LISTBCTX", ()),
            ("context-outside", "exts/escape-ext/gemini-extension.json", "ESCAPECTX", ("GEX002",)),
            ("context-not-string", "exts/numctx-ext/gemini-extension.json", "NUMCTX", ("GEX002",)),
            ("no-version", "exts/nover-ext/gemini-extension.json", "NOVERCTX", ("GEX001",)),
            ("bad-name", "exts/badname-ext/gemini-extension.json", "BADNAMECTX", ("GEX001",)),
        )
    ],
    Case(
        "gemini-ext-exclude-tools-list",
        "gemini",
        "gemini-ext",
        "exts/good-ext/gemini-extension.json",
        "gemini-tools",
        "google_web_search",
        {"declared": False},
    ),
    Case(
        "gemini-ext-exclude-tools-string",
        "gemini",
        "gemini-ext",
        "exts/numctx-ext/gemini-extension.json",
        "gemini-tools",
        "web_fetch",
        {"declared": False},
        ("GEX003",),
    ),
    *[
        Case(
            f"gemini-cmd-{name}",
            "gemini",
            f"gemini-cmd-{name}",
            path,
            "gemini-command",
            GEMINI_INVOCATIONS[name],
            written,
            rules,
        )
        for name, path, written, rules in (
            ("good", ".gemini/commands/good.toml", {"sent": "PGOODPROMPT ARGX"}, ()),
            ("bad", ".gemini/commands/bad.toml", {"sent": "BADPROMPT"}, ("GCM001",)),
            ("noprompt", ".gemini/commands/noprompt.toml", {"sent": ""}, ("GCM001",)),
            ("numdesc", ".gemini/commands/numdesc.toml", {"sent": "NUMDESCPROMPT"}, ("GCM001",)),
            ("extra", ".gemini/commands/extra.toml", {"sent": "EXTRAPROMPT"}, ("GCM002",)),
            ("git-commit", ".gemini/commands/git/commit.toml", {"sent": "COMMITPROMPT"}, ()),
            (
                "help",
                ".gemini/commands/help.toml",
                {"sent": "HELPPROMPT", "name": "/help"},
                ("GCM004",),
            ),
            ("shell", ".gemini/commands/shell.toml", {"sent": "SHELLPROMPT SHELLRAN"}, ("GCM003",)),
            ("ext-greet", "exts/cmd-ext/commands/greet.toml", {"sent": "EXTGREETPROMPT Z"}, ()),
        )
    ],
)


from tests.conformance import settings_cases  # noqa: E402 (its trees are Trees of this module)

TREES.update({t.name: t for t in settings_cases.TREES})
CASES += settings_cases.CASES


def observe(case: Case, recs: list[Recorded]) -> dict[str, Any]:
    """What the tool showed of the case's file, from the recorded requests of its tree's run."""
    if case.observe == "claude-subagent":
        return claude_subagent_request(recs, case.key)
    main = [
        r
        for r in recs
        if r.api == API[case.tool] and isinstance(r.body, dict) and r.body.get("tools")
    ]
    if not main:
        return {"listed": False, "no_request": True}
    if case.observe in BODY_OBSERVERS:
        return BODY_OBSERVERS[case.observe](main[0].body, case.key)
    if case.observe in settings_cases.OBSERVES:
        return settings_cases.observe(case, main[0].body, body_text(main[0]))
    return OBSERVERS[case.observe](body_text(main[0]), case.key)


def verdict(case: Case, seen: dict[str, Any]) -> str:
    """as-written | degraded | misread | skipped, from what the tool showed against the file."""
    if case.observe in settings_cases.OBSERVES:
        return settings_cases.verdict(case, seen)
    if case.observe == "claude-subagent":
        if not seen.get("ran"):
            return "skipped"
        if "model" in case.written:
            # Claude Code sends `model:` as written; a display name is no model the API serves
            return "misread" if " " in str(seen.get("model")) else "as-written"
        return "degraded" if not seen.get("tools") else "as-written"  # an allow-list of nothing
    if case.observe == "gemini-tools":
        return "as-written" if seen.get("declared") == case.written["declared"] else "misread"
    if case.observe == "gemini-command":
        if not seen.get("expanded"):
            return "skipped"  # no command of that name: the invocation went as plain text
        if not str(seen.get("sent", "")).startswith(case.written["sent"]):
            return "misread"
        # loaded under another name than its file gives it (a built-in holds that name)
        return "degraded" if case.written.get("name", case.key) != case.key else "as-written"
    if case.observe == "claude-hook":
        return "as-written" if seen.get("ran") else "skipped"
    if case.observe in ("claude-link", "codex-link", "gemini-link"):
        # a link is text: kept as written and never followed (an import would be loaded)
        return "as-written" if seen["kept"] and not seen["followed"] else "misread"
    if not seen.get("listed"):
        return "skipped"
    if case.observe in ("claude-import", "gemini-import"):
        return "as-written"
    if case.observe == "claude-memory":
        return "as-written" if seen["chars"] >= case.written["chars"] else "degraded"
    if case.observe in ("codex-agents-md", "codex-chain"):
        return "as-written" if seen["bytes"] >= case.written["bytes"] else "degraded"
    worst = "as-written"
    for key, meant in case.written.items():
        got = seen.get(key, meant if key == "name" else None)
        if meant is None or got == meant:
            continue
        if key == "description" and isinstance(got, str) and _cut(meant, got):
            worst = max(worst, "degraded", key=RANK.index)
        elif key == "name":
            continue  # a skill listed under its folder or its frontmatter name: loaded either way
        else:
            worst = "misread"
    return worst


RANK = ["as-written", "degraded", "misread", "skipped"]


def _cut(meant: str, got: str) -> bool:
    stem = got.rstrip("…").rstrip(".").rstrip()
    return len(got) < len(meant) and meant.startswith(stem[: max(0, len(stem) - 1)])


def expected_severity(case: Case, tool_verdict: str) -> str:
    """The worst severity ``apc validate`` must give the case's file."""
    if case.apc:
        return case.apc
    return {
        "as-written": "ok-or-warning",
        "degraded": "warning",
        "misread": "error",
        "skipped": "error",
    }[tool_verdict]


def observed_path(tool: str, ver: str) -> Path:
    return OBSERVED / f"{tool}@{ver}.json"


def load_observed(tool: str, ver: str) -> dict[str, Any]:
    path = observed_path(tool, ver)
    if not path.is_file():
        return {}
    return dict(json.loads(path.read_text("utf-8")))


Observations = dict[tuple[str, str], dict[str, Any]]  # (tool, version) -> observed/ file


def verdicts(case: Case, observed: Observations) -> dict[str, str]:
    """Pinned version -> the tool's verdict on the case at that version."""
    from tests.conformance.installer import versions

    return {
        ver: verdict(case, observed[(case.tool, ver)]["cases"][case.id])
        for ver in versions(case.tool)
    }


def verified_table(observed: Observations) -> dict[str, str]:
    """Rule ID -> the tool versions whose cases name it (what ``Rule.verified`` must say):
    ``Claude Code 2.1.197, 2.1.332``, or where the versions read a case of the rule differently,
    what each does: ``Claude Code 2.1.197: <its case's versions text>``."""
    from tests.conformance.installer import LABELS, versions

    tools: dict[str, dict[str, str]] = {}  # rule -> tool -> how its versions differ ("": agree)
    for case in CASES:
        differs = len(set(verdicts(case, observed).values())) > 1
        for rule in case.rules:
            said = tools.setdefault(rule, {})
            said[case.tool] = said.get(case.tool) or (case.versions if differs else "")

    def named(tool: str, differs: str) -> str:
        return f"{LABELS[tool]} {', '.join(versions(tool))}" + (f" ({differs})" if differs else "")

    order = ("claude", "codex", "gemini")
    return {
        rule: "; ".join(named(t, said[t]) for t in order if t in said)
        for rule, said in tools.items()
    }
