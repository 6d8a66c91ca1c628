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

from apc_tools.contract.project import Doc, Project
from apc_tools.core.parse import Located, Pos
from apc_tools.core.schemas import SchemaError
from apc_tools.findings import Finding, Rule, Severity, rule_family

FAMILY = "project"


_rule = rule_family(FAMILY)


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

ISO_8601 = re.compile(
    r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$"
)
_EXAMPLES = {"version": '"0.1.0"', "created": '"2026-05-08T00:00:00Z"'}
_FIX = {
    NAME.id: 'add "name": "<project name>"',
    SPEC_VERSION.id: 'add "apc": "0.1.0"',
    UNKNOWN.id: "kept, but no consumer reads it; check the spelling",
}


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


def _rule_of(error: SchemaError) -> Rule:
    where = (*error.path, *([error.key] if error.key is not None else []))
    if error.validator == "x-apc-recommended":
        return RECOMMENDED
    if error.validator == "x-apc-unknown-keys":
        return UNKNOWN
    if where[:1] == ("name",):
        return NAME
    if where[:1] in (("apc",), ("apf",)):
        return SPEC_VERSION
    return FIELD


def _position(meta: Located, error: SchemaError, data: dict[str, object]) -> Pos:
    if error.key is None:
        return meta.at(error.path) or Pos(1, 1)
    parent: object = data
    for part in error.path:
        parent = parent.get(part) if isinstance(parent, dict) and isinstance(part, str) else None
    present = isinstance(parent, dict) and error.key in parent
    where = (*error.path, error.key)
    return (meta.key_at(where) if present else meta.at(error.path)) or Pos(1, 1)


def schema_finding(doc: Doc, meta: Located, data: dict[str, object], error: SchemaError) -> Finding:
    """One schema problem as a finding of this family, at the key or value it concerns."""
    rule = _rule_of(error)
    pos = _position(meta, error, data)
    label = error.json_path.removeprefix("$").removeprefix(".") or "(top level)"
    fix = _FIX.get(rule.id, "")
    if rule is RECOMMENDED:
        fix = f'add "{error.key}": ' + _EXAMPLES.get(str(error.key), '"..."')
    message = f"{label}: {error.message}" + (f"; {fix}" if fix else "")
    warning = error.validator.startswith("x-apc-")
    severity = Severity.WARNING if warning and rule is FIELD else None
    return rule.finding(doc.path, message, pos.line, pos.column, severity=severity)


def check_schema(doc: Doc, project: Project) -> Iterator[Finding]:
    """Structure from the published schema (schemas/project.schema.json)."""
    from apc_tools.core.schemas import schema_errors, schema_warnings

    parsed = _mapping(doc)
    if parsed is None:
        return
    meta, data = parsed
    for error in (*schema_errors("project", data), *schema_warnings("project", data)):
        yield schema_finding(doc, meta, data, error)


def check_legacy_key(doc: Doc, project: Project) -> Iterator[Finding]:
    parsed = _mapping(doc)
    if parsed is None or "apf" not in parsed[1]:
        return
    meta, data = parsed
    hint = "drop the legacy apf key" if "apc" in data else 'rename it to "apc"'
    pos = meta.key_at(("apf",)) or Pos(1, 1)
    yield LEGACY_APF.finding(
        doc.path,
        f'"apf" is the legacy spec-version key; prefer "apc": {hint}',
        pos.line,
        pos.column,
    )


def check_created(doc: Doc, project: Project) -> Iterator[Finding]:
    parsed = _mapping(doc)
    if parsed is None or "created" not in parsed[1]:
        return
    meta, data = parsed
    created = data["created"]
    if isinstance(created, str) and is_iso8601(created):
        return
    pos = meta.at(("created",)) or Pos(1, 1)
    yield CREATED_FORMAT.finding(
        doc.path,
        'created: not an ISO 8601 date; write "2026-05-08" or "2026-05-08T00:00:00Z"',
        pos.line,
        pos.column,
    )


def check_present(project: Project) -> Iterator[Finding]:
    if project.is_apc and ".apc/project.json" not in project.files:
        yield MISSING.finding(
            project.display_path(".apc/project.json"),
            '.apc/ has no project.json: add it ({"name": ..., "apc": "0.1.0", "version": ..., '
            '"created": ...}) or run `apc init`',
        )


CHECKS = {"project": (check_schema, check_legacy_key, check_created)}
PROJECT_CHECKS = (check_present,)
