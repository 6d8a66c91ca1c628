"""Every rule of the contract checks, for the registry (see apc_tools.catalog), each with the
reason for its severity (``Basis``, stated in docs/rules.md): an error is what the tool that reads
the file rejects or misreads, what the APC spec requires inside ``.apc/``, or a leak; a form the
reading tool accepts is at most a warning (APC-NOTES section 2)."""

from __future__ import annotations

from dataclasses import replace

from apc_tools.contract import checks
from apc_tools.findings import Basis, Rule, with_basis, with_fix

R, P, L = Basis.READER, Basis.APC_SPEC, Basis.LEAK
S, A, N = Basis.SPEC, Basis.ADVICE, Basis.NOTE

_NAME_RULE = (
    "the Agent Skills spec, an error inside `.apc/` (the APC spec reads the skill) and under "
    "`--profile agentskills` (skills-ref rejects it); elsewhere a warning, because the tools load "
    "the skill anyway: Claude Code under its folder name, Codex and Gemini CLI under the "
    "frontmatter `name`"
)

BASIS: dict[str, tuple[Basis, str]] = {
    "AGM001": (P, "the APC spec requires AGENTS.md at the root of every APC project"),
    "AGM002": (A, "Codex reads the first 32 KiB and drops the rest silently"),
    "AGM003": (
        A,
        "Codex sends a Markdown link as text and never follows it (AGENTS.md has no import "
        "syntax); an agent told to read the file finds nothing",
    ),
    "AGM004": (L, "AGENTS.md is committed and read into every agent's context"),
    "AGM005": (L, "runtime state in a contract file: agents read the marker as instructions"),
    "AGM006": (N, ""),
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
        "the instructions meant to be there never reach the agent",
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
        "CLAUDE.md whole and warns about it",
    ),
    "INS006": (
        R,
        "Copilot and VS Code read `applyTo` as a string; another shape never "
        "matches, so the instructions are never applied",
    ),
    "INS007": (A, "the instructions are never applied for that glob"),
    "INS008": (A, "the instructions are applied only when attached by hand"),
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
}

# What `apc validate --fix` repairs (apc_tools.contract.fix), rule ID -> (safe/unsafe, how).
# Safe: what the file means to its reader cannot change. Unsafe: an identity or a value changes
# (only with --unsafe-fixes). A file apc could not parse safely is never fixed.
FIX: dict[str, tuple[str, str]] = {
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
VERIFIED: dict[str, str] = {
    "AGM002": CX,
    "AGM003": CX,
    "AGT002": CC,
    "AGT010": f"{CC} (a `:` in the name: 2.1.197 loads the subagent, 2.1.332 skips it)",
    "AGT011": CC,
    "AGT014": CC,
    "AGT015": f"{CC} (2.1.197 runs the subagent with no tools, 2.1.332 refuses to spawn it)",
    "INS001": f"{CC}; {GM}",
    "INS002": f"{CC}; {GM}",
    "INS005": CC,
    "SKL001": f"{CC}; {CX}; {GM}",
    "SKL002": f"{CC}; {CX}; {GM}",
    "SKL003": f"{CC}; {CX}; {GM}",
    "SKL004": f"{CC}; {CX}; {GM}",
    "SKL005": f"{CC}; {CX}; {GM}",
}

RULES: tuple[Rule, ...] = tuple(
    replace(rule, verified=VERIFIED.get(rule.id, rule.verified))
    for rule in with_fix(with_basis(checks.RULES, BASIS), FIX)
)


def leak_rules() -> frozenset[str]:
    """The contract rules whose basis is ``leak`` (a secret or runtime state in a contract file):
    their findings fail `apc check --range` even when its base has them too."""
    return frozenset(rule for rule, (basis, _) in BASIS.items() if basis is Basis.LEAK)
