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


OBSERVERS = {
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

    def write(self, root: Path) -> Path:
        for rel, text in self.files.items():
            target = root / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, "utf-8")
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

TREES = {
    t.name: t
    for t in (
        CLAUDE_MAIN,
        CLAUDE_COMMANDS,
        CLAUDE_SUBAGENTS,
        CLAUDE_SUBAGENT_TOOLS,
        CLAUDE_BIG,
        CLAUDE_LINK,
        CLAUDE_PLUGIN,
        CODEX_MAIN,
        CODEX_UNDER,
        GEMINI_MAIN,
        GEMINI_LINK,
        CODEX_LINK,
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
)


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
    return OBSERVERS[case.observe](body_text(main[0]), case.key)


def verdict(case: Case, seen: dict[str, Any]) -> str:
    """as-written | degraded | misread | skipped, from what the tool showed against the file."""
    if case.observe == "claude-subagent":
        if not seen.get("ran"):
            return "skipped"
        if "model" in case.written:
            # Claude Code sends `model:` as written; a display name is no model the API serves
            return "misread" if " " in str(seen.get("model")) else "as-written"
        return "degraded" if not seen.get("tools") else "as-written"  # an allow-list of nothing
    if case.observe in ("claude-link", "codex-link", "gemini-link"):
        # a link is text: kept as written and never followed (an import would be loaded)
        return "as-written" if seen["kept"] and not seen["followed"] else "misread"
    if not seen.get("listed"):
        return "skipped"
    if case.observe in ("claude-import", "gemini-import"):
        return "as-written"
    if case.observe == "claude-memory":
        return "as-written" if seen["chars"] >= case.written["chars"] else "degraded"
    if case.observe == "codex-agents-md":
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
