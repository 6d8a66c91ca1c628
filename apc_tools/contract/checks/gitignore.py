"""`.apc/.gitignore`: it must keep the spec's runtime paths out of git.

Coverage is decided with git's own semantics on a sample path for each required entry: lines
are read in order, the last matching line wins, a negation (``!x``) un-covers, and a path under
an ignored folder stays ignored (git cannot re-include it). So ``agents/*/`` covers
``agents/*/sessions/``, ``*.env*`` covers ``*.env``, and ``sessions/`` followed by
``!sessions/`` does not cover ``sessions/``.
"""

from __future__ import annotations

from collections.abc import Iterator

from apc_tools.contract.project import Doc, Project
from apc_tools.core.gitignore import SAFE_DEFAULTS, missing_defaults
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "gitignore"

_rule = rule_family(FAMILY)


MISSING_ENTRIES = _rule(
    "GIG001",
    "gitignore-missing-defaults",
    Severity.WARNING,
    ".apc/.gitignore does not cover all of the spec's safe defaults.",
    "Runtime state (sessions, conversations, caches, local and secret config) must never be "
    "committed. Add the listed lines to `.apc/.gitignore`; a broader line counts too (`agents/*/` "
    "covers `agents/*/sessions/`), and a later `!negation` un-covers an entry. The full list: "
    + ", ".join(SAFE_DEFAULTS)
    + ".",
    "\n".join(SAFE_DEFAULTS),
    "sessions/\ncache/",
)
ABSENT = _rule(
    "GIG002",
    "gitignore-absent",
    Severity.WARNING,
    "An APC project has no .apc/.gitignore.",
    "Without it nothing stops agents' runtime state under `.apc/` from being committed. Create "
    "`.apc/.gitignore` with the spec's safe defaults: " + ", ".join(SAFE_DEFAULTS) + ".",
    ".apc/.gitignore holding the safe defaults",
    ".apc/project.json only",
)

RULES = (MISSING_ENTRIES, ABSENT)


# --------------------------------------------------------------------------- checks


def check_coverage(doc: Doc, project: Project) -> Iterator[Finding]:
    missing = missing_defaults(doc.text)
    if missing:
        yield MISSING_ENTRIES.finding(
            doc.path,
            f"missing {len(missing)} of the spec's safe defaults: add these lines: "
            + ", ".join(missing),
            1,
            1,
        )


def check_present(project: Project) -> Iterator[Finding]:
    if project.is_apc and ".apc/.gitignore" not in project.files:
        if project.probe("is_file", ".apc/.gitignore"):
            return
        yield ABSENT.finding(
            project.display_path(".apc/.gitignore"),
            "this APC project has no .apc/.gitignore: create it with the spec's safe defaults ("
            + ", ".join(SAFE_DEFAULTS)
            + ")",
        )


CHECKS = {"apc-gitignore": (check_coverage,)}
PROJECT_CHECKS = (check_present,)
