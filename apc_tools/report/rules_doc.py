"""The rules reference: ``apc rules`` listings, one rule's explanation, and docs/rules.md.

Everything is generated from the registry, so the reference cannot drift from the code.
Regenerate the reference with ``python -m apc_tools.report.rules_doc --write docs/rules.md``;
``--check docs/rules.md`` exits 1 when the file is stale.
"""

from __future__ import annotations

import json
import re

from apc_tools.findings import Basis, Registry, Rule
from apc_tools.report.text import plural

REGENERATE = "apc rules --format markdown > docs/rules.md"
LIST_FORMATS = ("text", "json", "markdown")
LIST_COLUMNS = ("ID", "SEVERITY", "NAME", "SUMMARY")
BACKTICKS = re.compile(r"`+")


def rule_dict(rule: Rule) -> dict[str, str]:
    fix = {"fix": rule.fix, "fix_how": rule.fix_how} if rule.fix else {}
    return {
        "id": rule.id,
        "name": rule.name,
        "severity": rule.severity.value,
        "family": rule.family,
        "summary": rule.summary,
        "explanation": rule.explanation,
        "good": rule.good,
        "bad": rule.bad,
        "basis": rule.basis.value if rule.basis else "",
        "why": rule.why,
        "verified": rule.verified,
        **fix,
    }


def fixable(reg: Registry) -> Registry:
    """The rules of ``reg`` that `apc validate --fix` (or `apc boundary --staged --fix`) repairs."""
    return Registry.of(r for r in reg if r.fix)


def fix_counts(reg: Registry) -> str:
    """``12 fixable rules (8 safe, 4 unsafe)``: the line the README holds."""
    safe = sum(1 for r in reg if r.fix == "safe")
    unsafe = sum(1 for r in reg if r.fix == "unsafe")
    return f"{plural(safe + unsafe, 'fixable rule')} ({safe} safe, {unsafe} unsafe)"


def fix_line(rule: Rule) -> str:
    """``Fix: **safe** (`apc validate --fix`): how``, or "" for a rule without a fix."""
    if not rule.fix:
        return ""
    flag = "--fix" if rule.fix == "safe" else "--fix --unsafe-fixes"
    command = "apc boundary --staged --fix" if rule.family == "boundary" else f"apc validate {flag}"
    return f"Fix: **{rule.fix}** (`{command}`): {rule.fix_how}"


# --- apc rules ---------------------------------------------------------------------------------
def list_rules(reg: Registry, fmt: str) -> str:
    """Every rule of ``reg``: a text table, a JSON document or a markdown table."""
    if fmt == "text":
        return text_table(reg)
    if fmt == "json":
        return json.dumps({"version": 1, "rules": [rule_dict(r) for r in reg]}, indent=2)
    if fmt == "markdown":
        return rules_markdown(reg)
    raise ValueError(f"unknown format {fmt!r}; known: {', '.join(LIST_FORMATS)}")


def text_table(reg: Registry) -> str:
    """The table of ``apc rules``; a FIX column (safe, unsafe) when any rule has a fix."""
    fixes = any(r.fix for r in reg)
    head: tuple[str, ...] = (*LIST_COLUMNS[:2], "FIX", *LIST_COLUMNS[2:]) if fixes else LIST_COLUMNS
    rows = [head] + [
        (r.id, r.severity.value, *([r.fix or "-"] if fixes else []), r.name, r.summary) for r in reg
    ]
    cut = len(head) - 1
    widths = [max(len(row[i]) for row in rows) for i in range(cut)]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row[:cut], widths, strict=True))
        + "  "
        + row[cut]
        for row in rows
    ]
    lines.append(f"{plural(len(reg), 'rule')}; `apc rules RULE-ID` explains one.")
    if fixes:
        lines.append(f"{fix_counts(reg)}; `apc rules --fixable` lists them.")
    return "\n".join(lines)


def markdown_table(rules: list[Rule], *, fixes: bool = False) -> str:
    """A family's table; with ``fixes`` a Fix column (safe, unsafe or empty)."""
    lines = ["| ID | Severity | Why | Name | Summary |", "|---|---|---|---|---|"]
    if fixes:
        lines = ["| ID | Severity | Why | Fix | Name | Summary |", "|---|---|---|---|---|---|"]
    for r in rules:
        why = r.basis.value if r.basis else ""
        cells = (
            f"[{r.id}](#{anchor(r)})",
            r.severity.value,
            why,
            *([r.fix or ""] if fixes else []),
            f"`{r.name}`",
            table_cell(r.summary),
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def explain_rule(rule: Rule, fmt: str) -> str:
    """One rule: summary, explanation, and its passing and failing examples."""
    if fmt == "text":
        return explain_text(rule)
    if fmt == "json":
        return json.dumps(rule_dict(rule), indent=2)
    if fmt == "markdown":
        return rule_section(rule, level=1)
    raise ValueError(f"unknown format {fmt!r}; known: {', '.join(LIST_FORMATS)}")


def explain_text(rule: Rule) -> str:
    parts = [
        f"{rule.id} {rule.name} (default severity: {rule.severity.value}; family: {rule.family})",
        "",
        rule.summary,
        "",
        *([severity_reason(rule), ""] if rule.basis else []),
        *([verified_line(rule), ""] if rule.verified else []),
        *([fix_line(rule).replace("**", ""), ""] if rule.fix else []),
        rule.explanation.strip(),
        "",
        "Passing example:",
        indent(rule.good),
        "",
        "Failing example:",
        indent(rule.bad),
    ]
    return "\n".join(parts)


def indent(block: str) -> str:
    lines = block.strip("\n").splitlines() or [""]
    return "\n".join(("    " + line).rstrip() for line in lines)


# --- docs/rules.md -----------------------------------------------------------------------------
def rules_markdown(reg: Registry) -> str:
    """The whole rules reference (docs/rules.md), one section per family."""
    families = by_family(reg)
    parts = [header(reg, families)]
    fixes = any(r.fix for r in reg)
    for family, rules in families.items():
        parts.append(family_section(family, rules, fixes=fixes))
    return "\n\n".join(parts) + "\n"


def header(reg: Registry, families: dict[str, list[Rule]]) -> str:
    family_word = "family" if len(families) == 1 else "families"
    contents = "\n".join(
        f"- [{family}](#family-{slug(family)}) ({len(rules)})" for family, rules in families.items()
    )
    return (
        "# Rules reference\n\n"
        "<!-- Generated from the rule registry; do not edit by hand. -->\n\n"
        "This file is generated from the rule registry. To regenerate it after changing a rule:\n\n"
        f"```sh\n{REGENERATE}\n```\n\n"
        "The test suite fails when it is stale. `apc rules` lists the same rules in the "
        "terminal and `apc rules RULE-ID` explains one.\n\n"
        f"{plural(len(reg), 'rule')} in {len(families)} {family_word}. Default severities: "
        "**error** breaks the run, **warning** breaks it under `--strict`, **info** never does. "
        "The severity follows the tool that reads the file: an error is what that tool rejects "
        "or misreads (or what the APC spec requires inside `.apc/`, or a leak); a form the tool "
        "accepts is at most a warning. The Why column says which, per rule:\n\n"
        + basis_legend()
        + (fix_legend(reg) if any(r.fix for r in reg) else "")
        + (f"\n\nFamilies:\n\n{contents}" if contents else "")
    )


def by_family(reg: Registry) -> dict[str, list[Rule]]:
    """Rules grouped by family, families in the order of their first rule ID."""
    families: dict[str, list[Rule]] = {}
    for rule in reg:
        families.setdefault(rule.family, []).append(rule)
    return families


def fix_legend(reg: Registry) -> str:
    """What the Fix column means, and how many rules have each kind of fix."""
    return (
        f"\n\n{fix_counts(reg)}. The Fix column says which: `safe` fixes (the meaning of the "
        "file cannot change) are applied by `apc validate --fix` (and `apc check --fix`); "
        "`unsafe` ones (an identity or a value changes) only with `--unsafe-fixes`; `--diff` "
        "shows either without writing; `--select` and `--ignore` limit the fixes exactly as "
        "they limit the report. The boundary rules marked `safe` are fixed by "
        "`apc boundary --staged --fix` (the path is untracked and ignored, the file kept)."
    )


def family_section(family: str, rules: list[Rule], *, fixes: bool = False) -> str:
    table = markdown_table(rules, fixes=fixes)
    head = f'<a id="family-{slug(family)}"></a>\n\n## Family `{family}`\n\n{table}'
    return "\n\n".join([head, *(rule_section(r, level=3) for r in rules)])


def rule_section(rule: Rule, *, level: int) -> str:
    """A rule's heading (with a stable ``#rule-id`` anchor) and :func:`rule_markdown`."""
    heading = f'<a id="{anchor(rule)}"></a>\n\n{"#" * level} {rule.id} `{rule.name}`'
    return f"{heading}\n\n{rule_markdown(rule)}"


def rule_markdown(rule: Rule) -> str:
    """A rule's body in markdown: severity, summary, explanation, both examples."""
    return "\n\n".join(
        [
            f"Default severity: **{rule.severity.value}**. Family: `{rule.family}`.",
            *([severity_reason(rule)] if rule.basis else []),
            *([verified_line(rule)] if rule.verified else []),
            *([fix_line(rule)] if rule.fix else []),
            rule.summary,
            rule.explanation.strip(),
            "Passing example:",
            fenced(rule.good),
            "Failing example:",
            fenced(rule.bad),
        ]
    )


def severity_reason(rule: Rule) -> str:
    """``Why this severity: error: the tool that reads the file rejects or misreads it (...)``."""
    assert rule.basis is not None
    detail = f" In detail: {rule.why}." if rule.why else ""
    return f"Why this severity: {rule.basis.label}.{detail}"


def verified_line(rule: Rule) -> str:
    """``Verified against: Claude Code 2.1.197, Codex 0.171.0`` (docs/conformance.md)."""
    if rule.verified.startswith("VS Code source"):  # no CLI to run: the source files read
        return f"Verified against: {rule.verified}."
    return f"Verified against: {rule.verified} (the conformance suite, docs/conformance.md)."


def basis_legend() -> str:
    """What the Why column means, one line per basis."""
    return "\n".join(f"- `{basis.value}`: {basis.label}" for basis in Basis)


def fenced(block: str) -> str:
    """A fenced code block whose fence is longer than any backtick run inside ``block``."""
    longest = max((len(m) for m in BACKTICKS.findall(block)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{block.strip(chr(10))}\n{fence}"


def anchor(rule: Rule) -> str:
    return rule.id.lower()


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def table_cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
