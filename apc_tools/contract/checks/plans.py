"""Checks for plans: ``.apc/plans/*.md`` (kind ``plan``).

Frontmatter (schema ``plan``): ``title``, ``status``, ``owner`` and ``updated`` are recommended
(a missing one is a warning). ``owner`` must name an agent of the project (``.apc/agents/<slug>.md``
or a slug in ``project.json`` ``agents.imported``): error. ``updated`` should be an ISO 8601 date
(``2026-06-08``, a date-time is accepted too): warning otherwise. Other keys are allowed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import date
from pathlib import PurePosixPath
from typing import Any

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "plans"
_DATE = re.compile(
    r"^(\d{4}-\d{2}-\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\Z"
)


_rule = rule_family(FAMILY)


GOOD = (
    ".apc/plans/refresh.md (and .apc/agents/sofia.md exists):\n---\ntitle: Support refresh\n"
    "status: active\nowner: sofia\nupdated: 2026-06-08\n---\n"
)

OWNER_UNKNOWN = _rule(
    "PLN001",
    "plan-owner-unknown",
    Severity.ERROR,
    "A plan's `owner` is not an agent of the project.",
    "`owner` names the agent responsible for the plan by slug: `.apc/agents/<slug>.md` must "
    "exist (or the slug be listed in project.json `agents.imported`). Fix the slug or add the "
    "agent.",
    GOOD,
    GOOD.replace("owner: sofia", "owner: sofa"),
)
UPDATED_NOT_DATE = _rule(
    "PLN002",
    "plan-updated-not-date",
    Severity.WARNING,
    "A plan's `updated` is not an ISO 8601 date.",
    "Write the date of the last update as `YYYY-MM-DD` (e.g. `updated: 2026-06-08`), so tools "
    "can sort and age plans.",
    GOOD,
    GOOD.replace("2026-06-08", "last week"),
)
KEY_MISSING = _rule(
    "PLN003",
    "plan-key-missing",
    Severity.WARNING,
    "A plan lacks one of the recommended keys `title`, `status`, `owner`, `updated` (or has no "
    "frontmatter).",
    "The APC spec recommends all four so readers can tell what the plan is, whether it is "
    "current and who owns it. Add the missing keys.",
    GOOD,
    ".apc/plans/refresh.md:\n---\ntitle: Support refresh\n---\n",
)
FIELD_INVALID = _rule(
    "PLN004",
    "plan-field-invalid",
    Severity.ERROR,
    "A plan's `title` or `status` is not a non-empty string.",
    "Write `title` and `status` as text (`status: active`).",
    GOOD,
    GOOD.replace("status: active", "status: [active]"),
)

RULES = (OWNER_UNKNOWN, UPDATED_NOT_DATE, KEY_MISSING, FIELD_INVALID)


# The slugs of the last project asked about: each plan asks, and scanning every file per plan
# would be plans x files.
_LAST: list[tuple[Project, frozenset[str]]] = []


def agent_slugs(project: Project) -> frozenset[str]:
    """Slugs of the project's agents: `.apc/agents/<slug>.md` files and imported agents."""
    if _LAST and _LAST[0][0] is project:
        return _LAST[0][1]
    _LAST[:] = [(project, _agent_slugs(project))]
    return _LAST[0][1]


def _agent_slugs(project: Project) -> frozenset[str]:
    slugs = {
        PurePosixPath(rel).stem
        for rel in project.files
        if rel.startswith(".apc/agents/") and rel.count("/") == 2 and rel.endswith(".md")
    }
    for doc in project.docs_of("project"):
        slugs.update(imported_agents(doc))
    slugs.update(project.imported_agents)
    return frozenset(slugs)


def imported_agents(doc: Doc) -> list[str]:
    """The slugs ``agents.imported`` of a ``project.json`` declares."""
    agents = doc.data.get("agents")
    imported = agents.get("imported") if isinstance(agents, Mapping) else None
    return [s for s in imported if isinstance(s, str)] if isinstance(imported, list) else []


def is_date(value: Any) -> bool:
    if not isinstance(value, str):
        return False
    match = _DATE.match(value.strip())
    if match is None:
        return False
    try:
        date.fromisoformat(match.group(1))
    except ValueError:
        return False
    return True


def _schema(doc: Doc) -> Iterator[Finding]:
    data = dict(doc.data)
    for error in fm.schema_errors("plan", data):
        head = fm.where(error)[:1]
        if head in (("owner",), ("updated",)):
            continue  # checked below, with the project's agents and a real date check
        yield fm.at(
            FIELD_INVALID,
            doc,
            fm.schema_pos(doc, error),
            fm.schema_message(error, "write it as text"),
        )
    for warning in fm.schema_warnings("plan", data):
        if warning.validator == "x-apc-recommended":
            yield fm.at(
                KEY_MISSING,
                doc,
                fm.schema_pos(doc, warning),
                fm.schema_message(warning, "add it"),
            )


def _owner(doc: Doc, project: Project) -> Iterator[Finding]:
    if "owner" not in doc.data:
        return
    owner = doc.data.get("owner")
    slug = owner.strip() if isinstance(owner, str) else ""
    if slug and slug in agent_slugs(project):
        return
    if slug:
        message = (
            f"$.owner: '{slug}' is not an agent of the project (no .apc/agents/{slug}.md and "
            "not in project.json agents.imported); use an agent slug"
        )
    else:
        message = "$.owner: must be an agent slug (text such as `sofia`); it is empty or not text"
    yield fm.at(OWNER_UNKNOWN, doc, fm.value_pos(doc, ("owner",)), message)


def _updated(doc: Doc) -> Iterator[Finding]:
    if "updated" not in doc.data or is_date(doc.data.get("updated")):
        return
    yield fm.at(
        UPDATED_NOT_DATE,
        doc,
        fm.value_pos(doc, ("updated",)),
        "$.updated: not an ISO 8601 date; write YYYY-MM-DD (e.g. 2026-06-08)",
    )


def check_plan(doc: Doc, project: Project) -> Iterator[Finding]:
    if not doc.has_frontmatter:
        if not fm.opens_frontmatter(doc) and doc.text.strip():
            yield KEY_MISSING.finding(
                doc.path,
                "plan has no frontmatter; add `title`, `status`, `owner` and `updated`",
                1,
                1,
            )
        return
    if not fm.parsed(doc):
        return
    yield from _schema(doc)
    yield from _owner(doc, project)
    yield from _updated(doc)


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {"plan": (check_plan,)}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
