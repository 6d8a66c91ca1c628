"""Every rule of the contract checks, for the registry (see apc_tools.catalog), each with the
reason for its severity (``Basis``, stated in docs/rules.md): an error is what the tool that reads
the file rejects or misreads, what the APC spec requires inside ``.apc/``, or a leak; a form the
reading tool accepts is at most a warning (APC-NOTES section 2)."""

from __future__ import annotations

from dataclasses import replace

from apc_tools.contract import checks
from apc_tools.findings import Basis, Rule, with_basis, with_fix

R, P, L = Basis.READER, Basis.APC_SPEC, Basis.LEAK
# VS Code's prompt-file sources the Copilot rules follow (src/vs/workbench/contrib/chat/common/
# promptSyntax/ of microsoft/vscode, read at these commits; VS Code does not run here)
VSCODE_PARSER = (
    "promptFileParser.ts at microsoft/vscode@d634789a6e13 and @01a59900a295, and a later "
    "stored version that reads every value as a string"
)
VSCODE_VALIDATOR = "languageProviders/promptValidator.ts at microsoft/vscode@5c71ddd63200"
VSCODE_LOCATIONS = "config/promptFileLocations.ts at microsoft/vscode@483e5be51517"
S, A, N = Basis.SPEC, Basis.ADVICE, Basis.NOTE

_NAME_RULE = (
    "the Agent Skills spec, an error inside `.apc/` (the APC spec reads the skill) and under "
    "`--profile agentskills` (skills-ref rejects it); elsewhere a warning, because the tools load "
    "the skill anyway: Claude Code under its folder name, Codex and Gemini CLI under the "
    "frontmatter `name`"
)

BASIS: dict[str, tuple[Basis, str]] = {
    "AGM001": (P, "the APC spec requires AGENTS.md at the root of every APC project"),
    "AGM002": (
        A,
        "Codex reads the first 32 KiB of the whole chain of AGENTS.md files (root down to the "
        "working folder) and drops the rest silently; what it sends still works as written",
    ),
    "AGM003": (
        A,
        "Codex sends a Markdown link as text and never follows it (AGENTS.md has no import "
        "syntax); an agent told to read the file finds nothing",
    ),
    "AGM004": (L, "AGENTS.md is committed and read into every agent's context"),
    "AGM005": (L, "runtime state in a contract file: agents read the marker as instructions"),
    "AGM006": (N, ""),
    "AGM007": (
        A,
        "Codex never sends an AGENTS.md that an AGENTS.override.md beside it replaces; the "
        "override is Codex's documented way to replace it on purpose, and every other agent "
        "still reads the AGENTS.md",
    ),
    "AGM008": (
        A,
        "Codex skips the file, but the file is as written: the chain above it spends the "
        "budget, which the user can raise (`project_doc_max_bytes`), and other agents that "
        "read nested AGENTS.md still read it; so a warning that names the files to shorten, "
        "as AGM002 is for the cut",
    ),
    "AGT001": (R, "APX skips an agent whose file name is not a slug, silently"),
    "AGT002": (
        R,
        "APX identifies an agent by its frontmatter; without it the file is not "
        "loaded (Claude Code skips it too: a warning among its subagents, info for a README)",
    ),
    "AGT003": (
        P,
        "the APC spec requires name, model and description (APX defaults two of "
        "them, other readers do not)",
    ),
    "AGT004": (P, "the APC spec requires `name` equal to the slug agents are addressed by"),
    "AGT005": (P, "the APC spec's field types"),
    "AGT006": (P, "every skill an agent lists must exist in the project (APC spec)"),
    "AGT007": (N, ""),
    "AGT008": (A, "no reader uses the key; often a misspelling"),
    "AGT009": (A, "APX knows five types and treats others as unknown"),
    "AGT010": (
        R,
        "Claude Code skips the subagent silently (a `:` in the name: 2.1.332 skips it, 2.1.197 "
        "loaded it; the stricter reading of a supported version stands)",
    ),
    "AGT011": (A, "Claude Code loads it; not portable to APX slugs"),
    "AGT012": (A, "Claude Code may ignore a value of another shape"),
    "AGT013": (N, ""),
    "AGT014": (
        R,
        "Claude Code sends the value as the model id of the subagent's requests, which the API "
        "rejects (in `.apc/agents/`: a warning, the APC spec's form)",
    ),
    "AGT015": (
        R,
        "Claude Code 2.1.332 refuses to spawn a subagent whose tools resolve to none (2.1.197 "
        "ran it with no tools; the stricter reading of a supported version stands)",
    ),
    "DSC001": (N, ""),
    "DSC002": (N, ""),
    "GIG001": (S, "the APC spec's safe defaults; the boundary gate checks what is committed"),
    "GIG002": (S, "the APC spec's safe defaults; the boundary gate checks what is committed"),
    "CMD001": (A, "Claude Code runs the command and ignores or misreads the value"),
    "CMD002": (N, ""),
    "INS001": (
        R,
        "Claude Code and Gemini CLI load nothing for an import of a missing file: "
        "the instructions meant to be there never reach the agent (Claude Code 2.1.332 reads "
        "the root AGENTS.md and its imports when there is no CLAUDE.md; 2.1.197 does not)",
    ),
    "INS002": (
        A,
        "Claude Code, Gemini CLI and Copilot send the link as text and never follow it; an "
        "agent told to read the file finds nothing (an error only for `@` imports: INS001)",
    ),
    "INS003": (L, "instruction files are committed and sent to the model with every request"),
    "INS004": (L, "runtime state in an instructions file: agents read the marker as instructions"),
    "INS005": (
        A,
        "Copilot code review reads the first 4,000 characters; Claude Code sends a long "
        "CLAUDE.md whole and warns about it (and a root AGENTS.md it reads in place of a "
        "missing CLAUDE.md: 2.1.332; 2.1.197 does not read AGENTS.md)",
    ),
    "INS006": (
        R,
        "Copilot and VS Code read `applyTo` as a string (PromptHeader.applyTo takes a string "
        f"attribute only, {VSCODE_PARSER}; promptValidator.ts reports another type as an error, "
        f"{VSCODE_VALIDATOR}); another shape never matches, so the instructions are never applied",
    ),
    "INS007": (A, "the instructions are never applied for that glob"),
    "INS008": (A, "the instructions are applied only when attached by hand"),
    "CPR001": (
        R,
        "VS Code's PromptHeader reads each attribute in one shape and drops any other "
        f"({VSCODE_PARSER}; {VSCODE_VALIDATOR} reports it as an error): the value is lost",
    ),
    "CPR002": (
        A,
        f"VS Code ignores the key (PromptHeaderAttributes of {VSCODE_PARSER}; "
        f"{VSCODE_VALIDATOR} warns too)",
    ),
    "CPR003": (
        A,
        f"VS Code still reads `mode:` as `agent:` ({VSCODE_PARSER}) and loads a .chatmode.md as "
        f"an agent ({VSCODE_LOCATIONS}), but asks to rename them",
    ),
    "INS010": (
        R,
        "VS Code reads a header only when line 1 is `---` (PromptFileParser.parse, "
        f"{VSCODE_PARSER}): the applyTo is body text and the file is never applied",
    ),
    "INS009": (A, "Copilot ignores the key or value"),
    "MCP001": (
        R,
        "MCP clients read `mcpServers` entries of this shape and ignore or reject others",
    ),
    "MCP002": (R, "a client cannot start a server with neither `command` nor `url`"),
    "MCP003": (L, "mcps.json is committed; a literal secret in it is leaked"),
    "MCP004": (A, "works on one machine only"),
    "MEM001": (A, "the memory belongs to no agent"),
    "MEM002": (L, "memory is committed; a secret in it is leaked"),
    "MEM003": (A, "works on one machine only"),
    "MEM004": (L, "a transcript is runtime state, which never belongs in the repository"),
    "PLN001": (P, "a plan's owner must be an agent slug of the project (APC spec)"),
    "PLN002": (S, "the APC spec's date form"),
    "PLN003": (S, "the APC spec recommends them"),
    "PLN004": (P, "the APC spec's field types"),
    "PRJ001": (P, "the APC spec requires `name`"),
    "PRJ002": (P, "the APC spec requires a spec-version key"),
    "PRJ003": (S, "APX still reads `apf`"),
    "PRJ004": (S, "the APC spec recommends them"),
    "PRJ005": (S, "the APC spec's date form"),
    "PRJ006": (P, "the APC spec's field types"),
    "PRJ007": (A, "kept for forward compatibility; no reader uses it"),
    "PRJ008": (P, "the APC spec requires `.apc/project.json` in every `.apc/` folder"),
    "RUL001": (
        R,
        "Cursor reads `globs` as a list or a comma-separated string; any other shape never matches",
    ),
    "RUL002": (A, "Cursor ignores a value of another type"),
    "RUL003": (A, "the rule never fires"),
    "RUL004": (A, "the rule is only applied when asked for by name"),
    "RUL005": (A, "the rule is only applied when asked for by name"),
    "RUL006": (A, "Cursor ignores the key"),
    "SKL001": (R, "skills-ref, claude.ai and Codex reject a SKILL.md without frontmatter"),
    "SKL002": (
        R,
        "Codex skips a skill without `description`; a missing `name` follows " + _NAME_RULE,
    ),
    "SKL003": (P, _NAME_RULE),
    "SKL004": (P, _NAME_RULE),
    "SEC001": (
        L,
        "agents, skills, rules and plans are committed and read into agents' context like "
        "AGENTS.md",
    ),
    "SKL005": (
        R,
        "skills-ref rejects a blank or non-string value; a description over 1,024 characters is "
        "a warning by default (Codex loads it cut to 1,024 characters, Claude Code to 1,536) and "
        "an error under `--profile agentskills` and inside `.apc/`",
    ),
    "SKL006": (
        S,
        "an error under `--profile agentskills`: skills-ref and claude.ai upload reject it",
    ),
    "SKL007": (
        R,
        "skills-ref's strictyaml rejects it (reported under `--profile agentskills` only)",
    ),
    "SKL008": (N, ""),
    "SKL009": (S, "skills-ref accepts it"),
    "SKL010": (S, "skills-ref does not check these values"),
    "SKL011": (A, "agents pick a flat skill by its frontmatter when there is one"),
    "GEX001": (
        R,
        "Gemini CLI skips the whole extension (`Skipping extension in ...`): none of its context "
        "files, commands or MCP servers load",
    ),
    "GEX002": (
        R,
        "Gemini CLI drops a refused name with a warning and a missing file silently: the context "
        "never reaches the model",
    ),
    "GEX003": (R, "Gemini CLI does not exclude the tool: it stays declared to the model"),
    "GEX004": (A, "Gemini CLI loads the extension; it may misread or ignore the value"),
    "GCM001": (R, "Gemini CLI skips the command file (`Skipping invalid command file`)"),
    "GCM002": (N, ""),
    "GCM003": (
        N,
        "Gemini CLI runs it (asking first when interactive); a non-interactive run under the "
        "default approval mode is refused by its policy",
    ),
    "GCM004": (A, "Gemini CLI loads the command under another name (`/workspace.<name>`)"),
    "AGT016": (
        A,
        "Claude Code loads the plugin agent with a placeholder description (2.1.197, 2.1.332)",
    ),
    "PLG010": (
        R,
        "Claude Code refuses the whole plugin: none of its agents, commands, skills or hooks "
        "load (2.1.197 and 2.1.332)",
    ),
    "PLG001": (
        R,
        "Claude Code refuses the whole plugin: none of its agents, commands, skills or hooks "
        "load (2.1.197 and 2.1.332)",
    ),
    "PLG002": (
        R,
        "Claude Code 2.1.197 refuses the whole plugin; 2.1.332 ignores the key and loads it (the "
        "stricter reading stands)",
    ),
    "PLG003": (R, "Claude Code loads the plugin without the missing entry (2.1.332)"),
    "PLG004": (A, "no reader loads the file; often an agent forgotten in the list"),
    "PLG005": (
        R,
        "Claude Code refuses the marketplace, or drops the entry so its plugin cannot be "
        "installed (2.1.332)",
    ),
    "PLG006": (R, "Claude Code cannot install the plugin (2.1.332: Source path does not exist)"),
    "PLG007": (R, "Claude Code installs only the first plugin of the name (2.1.332)"),
    "PLG008": (R, "Claude Code refuses to add the marketplace (2.1.332)"),
    "PLG009": (
        R,
        "Claude Code 2.1.332 refuses the plugin (events that guard permissions) or loads none of "
        "its hooks; 2.1.197 loads none of its hooks",
    ),
    "HOK001": (
        R,
        "Claude Code never runs the hook: 2.1.332 ignores the entry, 2.1.197 loads none of the "
        "plugin's hooks",
    ),
    "HOK002": (
        R,
        "Claude Code rejects the hook: 2.1.332 refuses the whole plugin (or ignores the whole "
        "settings file) for an event that guards permissions and ignores the entry otherwise; "
        "2.1.197 loads none of the plugin's or the file's hooks",
    ),
}
# The agent tools' settings and MCP files (issue 31 point 5)
_SETTINGS_CC = "Claude Code 2.1.197 and 2.1.332"
BASIS.update(
    {
        "CST001": (R, f"{_SETTINGS_CC} ignore the whole settings file (every setting is lost)"),
        "CST002": (R, "Claude Code 2.1.332 skips the rule (its debug log says why); the rest load"),
        "CST003": (A, "Claude Code keeps the key and ignores it"),
        "MCF001": (R, f"{_SETTINGS_CC} drop the server; the file's other servers load"),
        "MCF002": (R, f"{_SETTINGS_CC} load no server from the file"),
        "MCF003": (R, f"{_SETTINGS_CC} start the server the file marks disabled"),
        "MCF004": (
            A,
            "Cursor and VS Code cannot be run here: their documented formats, at warning",
        ),
        "CDX001": (R, "Codex refuses to start while the file does not parse"),
        "CDX002": (R, "Codex refuses to start (invalid type, unknown variant)"),
        "CDX003": (R, "Codex refuses to start (invalid transport, invalid type)"),
        "CDX004": (R, "Codex ignores the key: the servers in it never load"),
        "CDX005": (A, "Codex ignores a key it does not know"),
    }
)

# What `apc validate --fix` repairs (apc_tools.contract.fix), rule ID -> (safe/unsafe, how).
# Safe: what the file means to its reader cannot change. Unsafe: an identity or a value changes
# (only with --unsafe-fixes). A file apc could not parse safely is never fixed.
FIX: dict[str, tuple[str, str]] = {
    "INS010": (
        "safe",
        "puts `---` back on line 1, only when the lines above the closing `---` read as a YAML "
        "mapping of Copilot's keys holding `applyTo` and the file then reads with exactly that "
        "header (nothing else changes)",
    ),
    "GIG001": (
        "safe",
        "appends the missing safe-default lines at the end of `.apc/.gitignore`; existing lines "
        "are kept as they are",
    ),
    "GIG002": ("safe", "creates `.apc/.gitignore` holding the spec's safe defaults"),
    "PRJ002": (
        "safe",
        'adds `"apc": "0.1.0"` as the first key when no spec-version key is present (a value of '
        "the wrong type is left for you to fix)",
    ),
    "PRJ003": (
        "safe",
        "renames the key `apf` to `apc`, value kept, when `apc` is absent (with both present "
        "nothing is changed: the two values may differ)",
    ),
    "SKL007": (
        "safe",
        "replaces a `...` closing fence with `---` (and YML005's quoting repairs the unquoted "
        "values); the other causes are left for you",
    ),
    "AGT004": (
        "unsafe",
        "sets `name` to the file slug (the agent's identity changes; the file is never renamed)",
    ),
    "SKL004": (
        "unsafe",
        "sets `name` to the folder name (the file name for a flat skill); the folder is never "
        "renamed",
    ),
    "SKL006": (
        "unsafe",
        "moves each unknown key whose value is one line (text, a number, true/false) under "
        "`metadata:` as a string, the spec's place for custom data (a tool that reads the key at "
        "the top level no longer sees it: review); lists, mappings and keys `metadata` already "
        "has are left for you",
    ),
    "SKL005": (
        "unsafe",
        "cuts a `description` longer than 1,024 characters (the limit of Codex and skills-ref) "
        "after its last whole sentence that fits (else its last whole word), in the value's own "
        "style (a folded or literal block stays one); other causes are left for you",
    ),
    "PLG010": (
        "safe",
        "adds the `./` Claude Code requires to a relative path in a manifest's (or a marketplace "
        "entry's) `agents`, `commands`, `skills`, `hooks`, `mcpServers`, `outputStyles` and "
        "`lspServers`",
    ),
    "MCP003": (
        "unsafe",
        "replaces a literal secret in `env` or `headers` with a `${env:NAME}` placeholder and "
        "says which variable to set (the value is never printed; rotate it); secrets in `url` "
        "or `args` are left for you",
    ),
}

# The tool versions each rule was checked against by the conformance suite (tests/conformance:
# the case's verdict is read from what the real tool loaded; docs/conformance.md). A test holds
# this table equal to the suite's cases.
CC, CX, GM = "Claude Code 2.1.197, 2.1.332", "Codex 0.171.0", "Gemini CLI 0.61.0"
PLG002_VERSIONS = "2.1.197 refuses the whole plugin, 2.1.332 ignores the key and loads it"
VERIFIED: dict[str, str] = {
    "AGM002": CX,
    "AGM003": CX,
    "AGM007": CX,
    "AGM008": CX,
    "AGT002": CC,
    "AGT010": f"{CC} (a `:` in the name: 2.1.197 loads the subagent, 2.1.332 skips it)",
    "AGT011": CC,
    "AGT014": CC,
    "AGT015": f"{CC} (2.1.197 runs the subagent with no tools, 2.1.332 refuses to spawn it)",
    "AGT016": CC,
    "HOK001": CC,
    "HOK002": CC,
    "PLG001": CC,
    "PLG010": CC,
    "PLG002": f"{CC} ({PLG002_VERSIONS})",
    "PLG003": CC,
    "PLG004": CC,
    "PLG005": CC,
    "PLG006": CC,
    "PLG007": CC,
    "PLG008": CC,
    "PLG009": CC,
    "INS001": f"{CC}; {GM}",
    "INS002": f"{CC}; {GM}",
    "INS005": f"{CC} (a root AGENTS.md without CLAUDE.md: 2.1.197 does not read it, 2.1.332 "
    "reads it as project memory)",
    "SKL001": f"{CC}; {CX}; {GM}",
    "SKL002": f"{CC}; {CX}; {GM}",
    "SKL003": f"{CC}; {CX}; {GM}",
    "SKL004": f"{CC}; {CX}; {GM}",
    "SKL005": f"{CC}; {CX}; {GM}",
    "GEX001": GM,
    "GEX002": GM,
    "GEX003": GM,
    "GCM001": GM,
    "GCM002": GM,
    "GCM003": GM,
    "GCM004": GM,
}

# Rules whose reader cannot run here, checked against its source instead (VS Code): shown as
# their `verified` text, naming the files and commits read.
READ_IN_SOURCE: dict[str, str] = {
    "CPR001": f"VS Code source (not run): {VSCODE_PARSER}, {VSCODE_VALIDATOR}",
    "CPR002": f"VS Code source (not run): {VSCODE_PARSER}, {VSCODE_VALIDATOR}",
    "CPR003": f"VS Code source (not run): {VSCODE_PARSER}, {VSCODE_LOCATIONS}",
    "INS006": f"VS Code source (not run): {VSCODE_PARSER}, {VSCODE_VALIDATOR}",
    "INS010": f"VS Code source (not run): {VSCODE_PARSER}",
}
VERIFIED.update(dict.fromkeys(("CST001", "CST002", "MCF001", "MCF002", "MCF003"), CC))
VERIFIED.update(dict.fromkeys(("CDX001", "CDX002", "CDX003", "CDX004"), CX))

RULES: tuple[Rule, ...] = tuple(
    replace(rule, verified=VERIFIED.get(rule.id) or READ_IN_SOURCE.get(rule.id, rule.verified))
    for rule in with_fix(with_basis(checks.RULES, BASIS), FIX)
)


def leak_rules() -> frozenset[str]:
    """The contract rules whose basis is ``leak`` (a secret or runtime state in a contract file):
    their findings fail `apc check --range` even when its base has them too."""
    return frozenset(rule for rule, (basis, _) in BASIS.items() if basis is Basis.LEAK)
