"""`.apc/project.json`: the file that makes a folder an APC project.

Required: ``name`` and a spec-version key (``apc``, or the legacy ``apf`` that APX still
writes). Recommended: ``version`` and ``created`` (ISO 8601). Known optional keys are checked for
type; unknown keys are a warning only (forward compatible). A non-object file is reported by the
parser (YML006), not here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from apc_tools.contract.parse import Located, Pos
from apc_tools.contract.project import Doc, Project
from apc_tools.findings import Finding, Rule, Severity

FAMILY = "project"


def _rule(rid: str, name: str, sev: Severity, summary: str, expl: str, good: str, bad: str) -> Rule:
    return Rule(rid, name, sev, summary, expl, good, bad, FAMILY)


GOOD = '{"name": "demo", "apc": "0.1.0", "version": "0.1.0", "created": "2026-05-08T00:00:00Z"}'

NAME = _rule(
    "PRJ001",
    "project-name",
    Severity.ERROR,
    "project.json has no `name`, or it is not a non-empty string.",
    'Every APC project is named: add `"name": "My Project"` to `.apc/project.json`.',
    GOOD,
    '{"apc": "0.1.0", "version": "0.1.0", "created": "2026-05-08T00:00:00Z"}',
)
SPEC_VERSION = _rule(
    "PRJ002",
    "project-spec-version",
    Severity.ERROR,
    "project.json has no spec-version key (`apc`, or the legacy `apf`), or it is not a string.",
    "Consumers use the spec-version key to know which APC version the project targets. Add "
    '`"apc": "0.1.0"`.',
    GOOD,
    '{"name": "demo", "version": "0.1.0", "created": "2026-05-08T00:00:00Z"}',
)
LEGACY_APF = _rule(
    "PRJ003",
    "project-legacy-apf",
    Severity.WARNING,
    "project.json uses the legacy spec-version key `apf`: prefer `apc`.",
    "The spec accepts `apf` for migration (APX still writes it) but new projects should use "
    '`apc`. Rename the key: `"apf": "0.1.0"` becomes `"apc": "0.1.0"` (drop `apf` when both are '
    "present).",
    GOOD,
    '{"name": "demo", "apf": "0.1.0", "version": "0.1.0", "created": "2026-05-08T00:00:00Z"}',
)
RECOMMENDED = _rule(
    "PRJ004",
    "project-recommended-key",
    Severity.WARNING,
    "project.json lacks a recommended key (`version` or `created`).",
    'Add `"version"` (the project version, for example "0.1.0") and `"created"` (when the APC '
    'metadata was created, ISO 8601, for example "2026-05-08T00:00:00Z").',
    GOOD,
    '{"name": "demo", "apc": "0.1.0"}',
)
CREATED_FORMAT = _rule(
    "PRJ005",
    "project-created-format",
    Severity.WARNING,
    "project.json `created` is not an ISO 8601 date or date-time.",
    'Write `created` as ISO 8601: "2026-05-08" or "2026-05-08T00:00:00Z".',
    GOOD,
    '{"name": "demo", "apc": "0.1.0", "version": "0.1.0", "created": "May 8th, 2026"}',
)
FIELD = _rule(
    "PRJ006",
    "project-field-invalid",
    Severity.ERROR,
    "A known project.json field has the wrong type or form.",
    '`version` and `description` are strings; `apx` is "installed", "declined" or null; '
    "`apx_id` is 12 lowercase hex characters (APX generates it); `agents.imported` is a list of "
    "agent slugs (`^[a-z][a-z0-9_-]*$`). Fix the value as the message says.",
    GOOD[:-1] + ', "apx": "declined", "apx_id": "ea6f1d58bbd4"}',
    '{"name": "demo", "apc": "0.1.0", "apx": "yes", "apx_id": "EA6F"}',
)
UNKNOWN = _rule(
    "PRJ007",
    "project-unknown-key",
    Severity.WARNING,
    "project.json has a key this version of the spec does not define.",
    "Unknown keys are kept (forward compatible) but no consumer reads them; check the spelling "
    "(`create` for `created`?) or move tool settings out of project.json.",
    GOOD,
    GOOD[:-1] + ', "owner": "me"}',
)
MISSING = _rule(
    "PRJ008",
    "project-json-missing",
    Severity.ERROR,
    "A .apc/ folder has no project.json.",
    "`.apc/project.json` defines the APC project root; without it tools do not recognise the "
    'project. Add it: `{"name": "My Project", "apc": "0.1.0", "version": "0.1.0", "created": '
    '"2026-05-08T00:00:00Z"}` (or run `apc init`).',
    ".apc/project.json\n.apc/agents/reviewer.md",
    ".apc/agents/reviewer.md   (no .apc/project.json)",
)

RULES = (NAME, SPEC_VERSION, LEGACY_APF, RECOMMENDED, CREATED_FORMAT, FIELD, UNKNOWN, MISSING)

KNOWN = frozenset(
    {"name", "apc", "apf", "version", "created", "description", "apx", "apx_id", "agents"}
)
APX_VALUES = ("installed", "declined", None)
APX_ID = re.compile(r"^[0-9a-f]{12}$")
SLUG = re.compile(r"^[a-z][a-z0-9_-]*$")
ISO_8601 = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$"
)


def _at(meta: Located, path: tuple[str | int, ...], *, key: bool = False) -> Pos:
    pos = meta.key_at(path) if key else meta.at(path)
    return pos or Pos(1, 1)


def _finding(rule: Rule, doc: Doc, pos: Pos, message: str) -> Finding:
    return rule.finding(doc.path, message, pos.line, pos.column)


def _nonempty_str(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def is_iso8601(value: str) -> bool:
    """True for an ISO 8601 date or date-time (``2026-05-08``, ``2026-05-08T00:00:00Z``)."""
    if not ISO_8601.match(value):
        return False
    try:
        datetime.fromisoformat(value.replace(",", "."))
    except ValueError:
        return False
    return True


def _mapping(doc: Doc) -> tuple[Located, dict[str, object]] | None:
    if doc.meta is None or not isinstance(doc.meta.data, dict):
        return None
    return doc.meta, doc.meta.data


def check_required(doc: Doc, project: Project) -> Iterator[Finding]:
    parsed = _mapping(doc)
    if parsed is None:
        return
    meta, data = parsed
    if "name" not in data:
        yield _finding(NAME, doc, _at(meta, ()), 'no "name": add "name": "<project name>"')
    elif not _nonempty_str(data["name"]):
        yield _finding(NAME, doc, _at(meta, ("name",)), '"name" must be a non-empty string')
    yield from _spec_version(doc, meta, data)


def _spec_version(doc: Doc, meta: Located, data: dict[str, object]) -> Iterator[Finding]:
    present = [k for k in ("apc", "apf") if k in data]
    if not present:
        yield _finding(
            SPEC_VERSION,
            doc,
            _at(meta, ()),
            'no spec-version key: add "apc": "0.1.0" (the APC version this project targets)',
        )
    for key in present:
        if not _nonempty_str(data[key]):
            yield _finding(
                SPEC_VERSION, doc, _at(meta, (key,)), f'"{key}" must be a version string, "0.1.0"'
            )
    if "apf" in present:
        hint = "drop the legacy apf key" if "apc" in present else 'rename it to "apc"'
        yield _finding(
            LEGACY_APF,
            doc,
            _at(meta, ("apf",), key=True),
            f'"apf" is the legacy spec-version key; prefer "apc": {hint}',
        )


def check_recommended(doc: Doc, project: Project) -> Iterator[Finding]:
    parsed = _mapping(doc)
    if parsed is None:
        return
    meta, data = parsed
    for key, example in (("version", '"0.1.0"'), ("created", '"2026-05-08T00:00:00Z"')):
        if key not in data:
            yield _finding(
                RECOMMENDED, doc, _at(meta, ()), f'no "{key}" (recommended): add "{key}": {example}'
            )
    created = data.get("created")
    if "created" in data and not (isinstance(created, str) and is_iso8601(created)):
        yield _finding(
            CREATED_FORMAT,
            doc,
            _at(meta, ("created",)),
            '"created" is not an ISO 8601 date: write "2026-05-08" or "2026-05-08T00:00:00Z"',
        )


def _field_problems(data: dict[str, object]) -> Iterator[tuple[tuple[str | int, ...], str]]:
    for key in ("version", "description"):
        if key in data and not isinstance(data[key], str):
            yield (key,), f'"{key}" must be a string'
    if "apx" in data and data["apx"] not in APX_VALUES:
        yield ("apx",), '"apx" must be "installed", "declined" or null'
    apx_id = data.get("apx_id")
    if "apx_id" in data and not (isinstance(apx_id, str) and APX_ID.match(apx_id)):
        yield ("apx_id",), '"apx_id" must be 12 lowercase hex characters (as APX generates it)'
    yield from _imported_problems(data.get("agents"), "agents" in data)


def _imported_problems(
    agents: object, present: bool
) -> Iterator[tuple[tuple[str | int, ...], str]]:
    if not present:
        return
    if not isinstance(agents, dict):
        yield ("agents",), '"agents" must be an object, for example {"imported": ["reviewer"]}'
        return
    if "imported" not in agents:
        return
    imported = agents["imported"]
    if not isinstance(imported, list):
        yield ("agents", "imported"), '"agents.imported" must be a list of agent slugs'
        return
    for i, slug in enumerate(imported):
        if not (isinstance(slug, str) and SLUG.match(slug)):
            yield (
                ("agents", "imported", i),
                f'"agents.imported[{i}]" must be an agent slug (lowercase, ^[a-z][a-z0-9_-]*$)',
            )


def check_fields(doc: Doc, project: Project) -> Iterator[Finding]:
    parsed = _mapping(doc)
    if parsed is None:
        return
    meta, data = parsed
    for path, message in _field_problems(data):
        yield _finding(FIELD, doc, _at(meta, path), message)
    for key in data:
        if key not in KNOWN:
            yield _finding(
                UNKNOWN,
                doc,
                _at(meta, (key,), key=True),
                f'unknown key "{key}" (kept, but no consumer reads it); check the spelling',
            )


def check_present(project: Project) -> Iterator[Finding]:
    if project.is_apc and ".apc/project.json" not in project.files:
        yield MISSING.finding(
            project.display_path(".apc/project.json"),
            '.apc/ has no project.json: add it ({"name": ..., "apc": "0.1.0", "version": ..., '
            '"created": ...}) or run `apc init`',
        )


CHECKS = {"project": (check_required, check_recommended, check_fields)}
PROJECT_CHECKS = (check_present,)
