"""Checks for rule files: ``.apc/rules/*.mdc|*.md`` and ``.cursor/rules/**/*.mdc`` (kind ``rule``).

Frontmatter (schema ``rule``): ``description`` (string), ``globs`` (a YAML list, or the
comma-separated string Cursor writes, unquoted ``globs: **/*.ts`` included: the parser reads it
with a YML005 warning, never an error), ``alwaysApply`` (boolean). Only a ``globs`` value that is
neither a string nor a list is an error; a quoted ``alwaysApply: "true"`` or a non-string
``description`` is a warning (Cursor reads the file but treats the value differently).

Semantic checks: a glob matching no tracked file (the git index; every file when the project is
not a git work tree) is a dead rule (warning, at the glob). Globs of ``.cursor/rules`` files are
relative to the folder holding ``.cursor``; those of ``.apc/rules`` to the project root. A rule
with no globs, no ``alwaysApply: true`` and no description is never applied automatically
(warning); an ``.mdc`` file without frontmatter is a warning. A lone ``.mdc`` file validated by
path outside those folders gets no dead-glob check (its project is unknown).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.project import Doc, Project
from apc_tools.core.globs import Budget, FileIndex, compile_glob
from apc_tools.core.parse import Pos
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "rules"
CURSOR = ".cursor/rules/"


_rule = rule_family(FAMILY)


GOOD = '---\ndescription: API conventions\nglobs:\n  - "src/api/**/*.ts"\nalwaysApply: false\n---\n'

GLOBS_INVALID = _rule(
    "RUL001",
    "rule-globs-invalid",
    Severity.ERROR,
    "A rule's `globs` is neither a list of patterns nor a comma-separated string.",
    'Write `globs` as a YAML list (`- "src/**/*.ts"`) or, as Cursor does, a comma-separated '
    "string (`globs: src/**/*.ts, src/**/*.tsx`). A mapping or a number matches nothing.",
    GOOD,
    "---\ndescription: API conventions\nglobs:\n  src: true\n---\n",
)
FIELD_TYPE = _rule(
    "RUL002",
    "rule-field-type",
    Severity.WARNING,
    "A rule's `alwaysApply` is not a boolean, or its `description` is not a string.",
    'Cursor reads `alwaysApply: "true"` (quoted) as not-always, so the rule silently stops '
    "applying. Write `alwaysApply: true` or `false` unquoted, and `description` as text.",
    "---\ndescription: Style\nalwaysApply: true\n---\n",
    '---\ndescription: Style\nalwaysApply: "true"\n---\n',
)
DEAD_GLOB = _rule(
    "RUL003",
    "rule-dead-glob",
    Severity.WARNING,
    "A rule glob matches no tracked file (dead rule).",
    "The rule is attached only when a file matching one of its globs is in context; a glob "
    "that matches nothing in the repository never fires. Fix the pattern (globs are relative to "
    "the project root, or to the folder holding `.cursor/` for Cursor rules; `**` spans "
    "folders) or remove it.",
    GOOD + "(and src/api/users.ts is tracked)",
    '---\ndescription: API conventions\nglobs:\n  - "src/api/**/*.ts"\n---\n(no such files)',
)
NEVER_APPLIED = _rule(
    "RUL004",
    "rule-never-applied",
    Severity.WARNING,
    "A rule has no globs, no `alwaysApply: true` and no description, so no agent applies it "
    "automatically.",
    "Cursor attaches a rule when `alwaysApply` is true, when a file matches `globs`, or when the "
    "agent picks it by its `description`; with none of them it is only used when mentioned by "
    "hand (`@rule`). Add a description, globs or `alwaysApply: true`.",
    "---\ndescription: Security review checklist\n---\n",
    "---\nalwaysApply: false\n---\n",
)
FRONTMATTER_MISSING = _rule(
    "RUL005",
    "rule-frontmatter-missing",
    Severity.WARNING,
    "An `.mdc` rule has no frontmatter, so it is never applied automatically.",
    "MDC rules carry `description`, `globs` and `alwaysApply` in a `---` block at the top; "
    "without it Cursor only uses the rule when it is mentioned by hand. Add the block.",
    GOOD,
    "# API conventions\n- Use zod for input validation.\n",
)
UNKNOWN_KEY = _rule(
    "RUL006",
    "rule-unknown-key",
    Severity.WARNING,
    "A rule frontmatter key is not `description`, `globs` or `alwaysApply`.",
    "Cursor reads only those three keys; check the spelling (`glob`, `always_apply`...) or "
    "remove the key.",
    GOOD,
    "---\ndescription: API conventions\nglob: src/**/*.ts\n---\n",
)

RULES = (GLOBS_INVALID, FIELD_TYPE, DEAD_GLOB, NEVER_APPLIED, FRONTMATTER_MISSING, UNKNOWN_KEY)


def split_globs(value: Any) -> list[tuple[int | None, str]]:
    """(list index or None for a string, pattern) for each glob of a string or list value.

    A string is split at commas outside braces, so ``src/**/*.{ts,tsx}`` stays one pattern.
    """
    if isinstance(value, list):
        return [(i, v.strip()) for i, v in enumerate(value) if isinstance(v, str) and v.strip()]
    if not isinstance(value, str):
        return []
    parts: list[str] = []
    depth, current = 0, ""
    for char in value:
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
            continue
        depth += {"{": 1, "}": -1}.get(char, 0)
        depth = max(depth, 0)
        current += char
    parts.append(current)
    return [(None, p.strip()) for p in parts if p.strip()]


def _base(doc: Doc) -> str:
    """The folder globs are relative to: the one holding `.cursor/`, else the project root."""
    if doc.rel.startswith(CURSOR):
        return ""
    index = doc.rel.find("/" + CURSOR)
    return doc.rel[: index + 1] if index >= 0 else ""


def _in_rule_folder(doc: Doc) -> bool:
    """Under `.apc/rules/` or a `.cursor/rules/` (not a lone `.mdc` validated by path)."""
    return doc.rel.startswith((".apc/rules/", CURSOR)) or "/" + CURSOR in doc.rel


# Work one project may spend on dead-glob checks (units: path characters x glob segments, see
# core.globs.Budget): a rule file can hold thousands of globs and a tree thousands of files,
# and comparing every glob with every file would let a pull request make the run quadratic.
# Literal globs and globs with a fixed file name are index lookups and cost little; globs past
# the budget are reported as not checked (info).
GLOB_BUDGET = 20_000_000


class _Matcher:
    """Whether a glob matches a file of the project, each (folder, glob) pair matched once."""

    def __init__(self, project: Project) -> None:
        self.files = project.tracked if project.tracked is not None else project.files
        self.by_base: dict[str, FileIndex] = {}
        self.seen: dict[tuple[str, str], bool | None] = {}
        self.budget = Budget(GLOB_BUDGET)

    def live(self, base: str, pattern: str) -> bool | None:
        """True or False, or None when the budget is spent (the glob is not checked)."""
        key = (base, pattern)
        if key not in self.seen:
            if base not in self.by_base:
                cut = len(base)
                self.by_base[base] = FileIndex(f[cut:] for f in self.files if f.startswith(base))
            self.seen[key] = self.by_base[base].any_match(compile_glob(pattern), self.budget)
        return self.seen[key]


# One glob of a rule file as the dead-glob check needs it: the pattern, where it is written
# (``$.globs`` or ``$.globs[N]``) and its line and column. A rule file's globs are read per file
# (cacheable with the file) and compared with the project's files by the project check.
GlobSpec = tuple[str, str, int | None, int | None]


@dataclass(frozen=True)
class RuleGlobs:
    """The globs of one rule file, with the folder they are relative to."""

    path: str  # display path
    base: str
    globs: tuple[GlobSpec, ...]


def rule_globs(doc: Doc) -> RuleGlobs | None:
    """The globs the dead-glob check compares (None: the file gets no dead-glob check)."""
    if not (fm.parsed(doc) and _in_rule_folder(doc)):
        return None
    specs: list[GlobSpec] = []
    for index, pattern in split_globs(doc.data.get("globs")):
        if index is None:
            pos, where = fm.column_of(doc, ("globs",), pattern), "$.globs"
        else:
            pos, where = fm.value_pos(doc, ("globs", index)), f"$.globs[{index}]"
        specs.append((pattern, where, pos.line, pos.column))
    return RuleGlobs(doc.path, _base(doc), tuple(specs))


def _dead_globs(rule: RuleGlobs, matcher: _Matcher, what: str) -> Iterator[Finding]:
    for pattern, where, line, column in rule.globs:
        live = True if pattern.startswith("!") else matcher.live(rule.base, pattern)
        if live:
            continue
        if live is None:
            yield DEAD_GLOB.finding(
                rule.path,
                f"{where}: not checked: this project's rules hold more globs than apc compares "
                "with its files (the dead-glob work budget is spent)",
                line,
                column,
                severity=Severity.INFO,
            )
            continue
        yield DEAD_GLOB.finding(
            rule.path,
            f"{where}: '{pattern}' matches no {what}; the rule never fires for it (fix the "
            "pattern or remove it)",
            line,
            column,
        )


def dead_globs(project: Project) -> Iterator[Finding]:
    """RUL003 for every rule file of the project (a project check: globs repeat across rules)."""
    return dead_globs_of(project, (rule_globs(doc) for doc in project.docs_of("rule")))


def dead_globs_of(project: Project, rules: Iterable[RuleGlobs | None]) -> Iterator[Finding]:
    """RUL003 for the globs of ``rules`` (each read by :func:`rule_globs`) in ``project``."""
    matcher = _Matcher(project)
    what = "tracked file" if project.tracked is not None else "file"
    for rule in rules:
        if rule is not None:
            yield from _dead_globs(rule, matcher, what)


def dead_globs_alone(
    project: Project, rule: RuleGlobs, matchers: dict[int, Any]
) -> tuple[tuple[Finding, ...], int] | None:
    """RUL003 for the globs of one rule file, as :func:`dead_globs_of` reports them, and the
    work units they cost here; None when this process's budget ran out (a glob not checked).

    ``matchers`` holds one matcher per project (by its id) for the caller's batch in this
    process (a forked worker fills its own copy): a (folder, glob) pair is matched once per
    process, so the units of a project's rule files summed over the processes that computed
    them are at least what :func:`dead_globs_of` spends on them in one matcher; when that sum
    is within :data:`GLOB_BUDGET`, the serial run never runs out either, every answer is
    exact, and the findings of the rule files in order are exactly dead_globs_of's."""
    matcher = matchers.get(id(project))
    if matcher is None:
        matcher = matchers[id(project)] = _Matcher(project)
    what = "tracked file" if project.tracked is not None else "file"
    before = matcher.budget.left
    found = tuple(_dead_globs(rule, matcher, what))
    if matcher.budget.left < 0 or any(f.severity is Severity.INFO for f in found):
        return None
    return found, before - matcher.budget.left


_GLOBS_FIX = "write a YAML list of patterns or a comma-separated string (`**/*.ts, src/**`)"


def _schema(doc: Doc) -> Iterator[Finding]:
    data = dict(doc.data)
    for error in fm.schema_errors("rule", data):
        pos = fm.schema_pos(doc, error)
        if fm.where(error)[:1] == ("globs",):
            yield fm.at(GLOBS_INVALID, doc, pos, fm.schema_message(error, _GLOBS_FIX))
        else:
            fix = ""
            if fm.where(error)[:1] == ("alwaysApply",):
                fix = "write true or false unquoted (Cursor reads a quoted value as not-always)"
            yield fm.at(FIELD_TYPE, doc, pos, fm.schema_message(error, fix))
    for warning in fm.schema_warnings("rule", data):
        if warning.validator == "x-apc-unknown-keys":
            fix = "Cursor reads only description, globs and alwaysApply"
            yield fm.at(
                UNKNOWN_KEY, doc, fm.schema_pos(doc, warning), fm.schema_message(warning, fix)
            )


def _never_applied(doc: Doc) -> Iterator[Finding]:
    data = doc.data
    description = data.get("description")
    has_description = isinstance(description, str) and bool(description.strip())
    if split_globs(data.get("globs")) or data.get("alwaysApply") is True or has_description:
        return
    pos = fm.start(doc) if doc.has_frontmatter else Pos(1, 1)
    yield fm.at(
        NEVER_APPLIED,
        doc,
        pos,
        "rule has no globs, no `alwaysApply: true` and no description: agents apply it only "
        "when it is mentioned by hand; add one of them",
    )


def check_rule(doc: Doc, project: Project) -> Iterator[Finding]:
    if not doc.has_frontmatter:
        if fm.opens_frontmatter(doc) or not doc.text.strip():
            return
        if doc.rel.endswith(".mdc"):
            yield FRONTMATTER_MISSING.finding(
                doc.path,
                "`.mdc` rule has no frontmatter (description, globs, alwaysApply): it is only "
                "applied when mentioned by hand",
                1,
                1,
            )
        else:
            yield from _never_applied(doc)
        return
    if not fm.parsed(doc):
        return
    yield from _schema(doc)
    yield from _never_applied(doc)


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {"rule": (check_rule,)}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = (dead_globs,)
