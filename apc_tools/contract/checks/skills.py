"""Checks for skills: any ``SKILL.md`` (kind ``skill``) and flat ``.apc/skills/<name>.md``.

``SKILL.md`` follows the Agent Skills specification: ``name`` (1-64 characters, lowercase,
digits and single hyphens, equal to the folder name) and ``description`` (1-1024 characters) are
required; ``compatibility`` is at most 500 characters; ``license``, ``metadata`` and
``allowed-tools`` are optional. Structure comes from the published schemas ``skill`` (default
profile: unknown keys are warnings, Claude Code's fields are info) and ``skill-agentskills``
(profile ``agentskills``: unknown keys are errors).

The ``agentskills`` profile gives the verdict of the reference validator skills-ref (a file is
valid exactly when apc reports no error-level finding for it), except for the two skills-ref bugs
apc does not copy: a UTF-8 byte-order mark failing the file, and a ``---`` inside a value
truncating the frontmatter. To get there:

- ``name`` is checked the way skills-ref checks it (NFKC-normalised and stripped; lowercase;
  letters and digits of any script and hyphens; no leading, trailing or double hyphen; at most
  64 characters; equal to the NFKC folder name). A name that skills-ref accepts but the spec's
  ``a-z0-9`` wording does not (``café``) is a warning (SKL009), in both profiles.
- Scalars are read as text, as strictyaml (skills-ref's parser) reads every scalar: ``name:
  123`` is the name "123", ``description: true`` the description "true", an empty value the
  empty string. apc does the same in the default profile, so it is never stricter there.
- What strictyaml refuses and apc's parser accepts is an error of its own in the
  ``agentskills`` profile (SKL007): flow collections (``[a, b]``, ``{a: b}``), explicit tags
  (``!!str``), values that needed the lenient reading (YML005: unquoted ``: `` or a leading
  ``*``), a ``...`` closing fence, and whatever ruamel.yaml's pure-Python scanner (the parser
  under strictyaml) refuses although libyaml reads it, such as a tab inside an unquoted
  value. Anchors, aliases and duplicate keys are already errors (YML003, YML002) in every
  profile.
- skills-ref never checks ``allowed-tools``, ``license`` or ``metadata`` values: problems there
  are warnings (SKL010), so both profiles accept what skills-ref accepts.
- No frontmatter at all (including an empty file) is an error (SKL001), as in skills-ref.

Severity follows the reading tool (APC-NOTES section 2): outside ``.apc/`` a ``SKILL.md`` is read
by Claude Code, Codex, Gemini CLI or FastMCP, which load it whatever its name (Claude Code under
its folder name, Codex and Gemini CLI under the frontmatter ``name``: the conformance suite checks
it), so in the default profile a missing, malformed or mismatched ``name`` (SKL002, SKL003,
SKL004) is a warning there; inside ``.apc/`` and under ``--profile agentskills`` it is an
error. A missing ``description`` stays an error (Codex and Gemini CLI skip such a skill); one
over 1,024 characters is a warning there (Codex cuts it to 1,024 characters, Claude Code to
1,536). A ``SKILL.md`` below
another skill's folder is that skill's reference file (kind ``skill-reference``), not checked.

Flat skills (``.apc/skills/<name>.md``) need no frontmatter (the APC spec's example has none);
when they have one, ``name`` and ``description`` are checked as above (``name`` equal to the file
stem) and a missing one is a warning.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from apc_tools.contract.checks import _support as fm
from apc_tools.contract.project import Doc, Project
from apc_tools.core.parse import Pos
from apc_tools.findings import Finding, Severity, rule_family

FAMILY = "skills"
MAX_NAME = 64
SPEC_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*\Z")
_KEY = re.compile(r"^([A-Za-z_][\w.-]*):")


_rule = rule_family(FAMILY)


GOOD = (
    "skills/pdf-tools/SKILL.md:\n---\nname: pdf-tools\ndescription: Extract text from PDFs.\n---\n"
)

FRONTMATTER_MISSING = _rule(
    "SKL001",
    "skill-frontmatter-missing",
    Severity.ERROR,
    "A SKILL.md has no YAML frontmatter.",
    "The Agent Skills spec requires SKILL.md to start with a `---` fenced YAML block holding at "
    "least `name` and `description`; skills-ref and claude.ai reject a file without it. Add the "
    "block at the top of the file.",
    GOOD,
    "skills/pdf-tools/SKILL.md:\n# PDF tools\nExtract text from PDFs.\n",
)
REQUIRED_KEY = _rule(
    "SKL002",
    "skill-required-key",
    Severity.ERROR,
    "A SKILL.md frontmatter lacks `name` or `description`.",
    "Both keys are required by the Agent Skills spec: `name` equal to the skill's folder name, "
    "`description` saying what the skill does and when to use it (1-1024 characters).",
    GOOD,
    "skills/pdf-tools/SKILL.md:\n---\nname: pdf-tools\n---\n",
)
NAME_INVALID = _rule(
    "SKL003",
    "skill-name-invalid",
    Severity.ERROR,
    "A skill `name` is empty, too long, not lowercase, or has characters other than letters, "
    "digits and single hyphens.",
    "Write the name in lowercase letters and digits separated by single hyphens, 1-64 "
    "characters, not starting or ending with a hyphen (e.g. `pdf-tools`). The rule is the one "
    "of the reference validator skills-ref.",
    GOOD,
    "skills/PDF_Tools/SKILL.md:\n---\nname: PDF_Tools\ndescription: Extract text.\n---\n",
)
NAME_MISMATCH = _rule(
    "SKL004",
    "skill-name-mismatch",
    Severity.ERROR,
    "A skill `name` differs from its folder name (or, for a flat skill, its file name).",
    "Agents find a skill by its folder (`skills/<name>/SKILL.md`) or file "
    "(`.apc/skills/<name>.md`); the Agent Skills spec requires `name` to equal it. Rename the "
    "folder or change `name`.",
    GOOD,
    "skills/pdf/SKILL.md:\n---\nname: pdf-tools\ndescription: Extract text.\n---\n",
)
FIELD_INVALID = _rule(
    "SKL005",
    "skill-field-invalid",
    Severity.ERROR,
    "A skill frontmatter value has the wrong type or length (description, compatibility).",
    "`description` must be a non-blank string, `compatibility` a string of at most 500 "
    "characters. A `description` over 1,024 characters (the spec's limit) is a warning by "
    "default: Codex loads the skill with it cut to 1,024 characters and Claude Code to 1,536, so "
    "the end never reaches the agent; it is an error under `--profile agentskills` and inside "
    "`.apc/`. Shorten or fix the value at the reported position.",
    GOOD,
    "skills/pdf-tools/SKILL.md:\n---\nname: pdf-tools\ndescription: '   '\n---\n",
)
UNKNOWN_KEY = _rule(
    "SKL006",
    "skill-unknown-key",
    Severity.WARNING,
    "A SKILL.md frontmatter key is not in the Agent Skills spec (an error in the agentskills "
    "profile).",
    "The spec allows only name, description, license, compatibility, metadata and "
    "allowed-tools; skills-ref, claude.ai upload and the Skills API reject anything else. By "
    "default this is a warning, because Claude Code and other runtimes add fields; with "
    "`--profile agentskills` it is an error. Move custom data under `metadata:` (string "
    "values), or remove the key.",
    "---\nname: pdf-tools\ndescription: Extract text.\nmetadata:\n  version: '1.2'\n---\n",
    "---\nname: pdf-tools\ndescription: Extract text.\nversion: 1.2\n---\n",
)
NOT_STRICT = _rule(
    "SKL007",
    "skill-not-strict-yaml",
    Severity.ERROR,
    "In the agentskills profile: the SKILL.md frontmatter uses YAML that skills-ref's strict "
    "parser rejects.",
    "skills-ref reads frontmatter with strictyaml, which refuses flow collections (`[a, b]`, "
    "`{a: b}`), explicit tags (`!!str`), values that are not valid YAML (an unquoted `: ` "
    "inside a value, a value starting with `*`) and a `...` closing fence. apc reads them (a "
    "warning in the default profile), but the agentskills profile follows skills-ref. Quote "
    "the value, write lists as `- item` lines, close the frontmatter with `---`.",
    '---\nname: pdf-tools\ndescription: "Use when: the user has a PDF"\n---\n',
    "---\nname: pdf-tools\ndescription: Use when: the user has a PDF\n---\n",
)
EXTENSION_KEY = _rule(
    "SKL008",
    "skill-extension-key",
    Severity.INFO,
    "A SKILL.md uses a Claude Code extension field (not in the Agent Skills spec).",
    "Claude Code reads fields such as `model`, `when_to_use`, `user-invocable` or `hooks`; "
    "other runtimes ignore them, and skills-ref (`--profile agentskills`) rejects them. Keep "
    "them if the skill is meant for Claude Code.",
    GOOD,
    "---\nname: pdf-tools\ndescription: Extract text.\nuser-invocable: true\n---\n",
)
NAME_NOT_SPEC_FORM = _rule(
    "SKL009",
    "skill-name-not-ascii",
    Severity.WARNING,
    "A skill `name` passes skills-ref but not the spec's `a-z`, `0-9` and hyphen wording.",
    "skills-ref accepts any Unicode letter (and strips surrounding spaces); the specification "
    "text says lowercase `a-z`, `0-9` and hyphens. For names every tool accepts, use ASCII.",
    GOOD,
    "skills/café/SKILL.md:\n---\nname: café\ndescription: Coffee orders.\n---\n",
)
FIELD_FORM = _rule(
    "SKL010",
    "skill-field-form",
    Severity.WARNING,
    "A skill value is accepted by the readers but not in the spec's form (allowed-tools, "
    "metadata, compatibility).",
    "The spec wants `allowed-tools` as one space-separated string, `metadata` as a map of "
    "string keys to string values and `compatibility` non-empty. skills-ref does not check "
    "these, so this is a warning. For `metadata` the choice is yours: a tool may read its own "
    "entry as a boolean or an object (OpenClaw's `metadata.openclaw`), and quoting it would "
    "break that tool.",
    "---\nname: pdf-tools\ndescription: Extract text.\nallowed-tools: Bash(git:*) Read\n---\n",
    "---\nname: pdf-tools\ndescription: Extract text.\nallowed-tools:\n  - Read\n---\n",
)
FLAT_KEY_MISSING = _rule(
    "SKL011",
    "flat-skill-key-missing",
    Severity.WARNING,
    "A flat skill (`.apc/skills/<name>.md`) has frontmatter without `name` or `description`.",
    "Flat skills need no frontmatter, but when there is one, agents use its `name` and "
    "`description` to pick the skill. Add both (name equal to the file name), or drop the "
    "frontmatter.",
    ".apc/skills/pricing.md:\n---\nname: pricing\ndescription: Price list.\n---\n",
    ".apc/skills/pricing.md:\n---\ntitle: Prices\n---\n",
)

RULES = (
    FRONTMATTER_MISSING,
    REQUIRED_KEY,
    NAME_INVALID,
    NAME_MISMATCH,
    FIELD_INVALID,
    UNKNOWN_KEY,
    NOT_STRICT,
    EXTENSION_KEY,
    NAME_NOT_SPEC_FORM,
    FIELD_FORM,
    FLAT_KEY_MISSING,
)

_SCALARS = (int, float, bool, type(None))


# --------------------------------------------------------------------------- name (skills-ref)


def name_problems(name: Any) -> list[str]:
    """What skills-ref says about ``name`` (format only, not the folder match)."""
    if not isinstance(name, str) or not name.strip():
        return ["'name' must be a non-empty string"]
    norm = unicodedata.normalize("NFKC", name.strip())
    out = []
    if len(norm) > MAX_NAME:
        out.append(f"'name' must be at most {MAX_NAME} characters (it has {len(norm)})")
    if norm != norm.lower():
        out.append("'name' must be lowercase")
    if norm.startswith("-") or norm.endswith("-"):
        out.append("'name' must not start or end with a hyphen")
    if "--" in norm:
        out.append("'name' must not contain consecutive hyphens")
    if not all(c.isalnum() or c == "-" for c in norm):
        out.append("'name' may hold only letters, digits and hyphens")
    return out


def _nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text.strip())


def _owner_name(doc: Doc, project: Project) -> str:
    """The folder name of a SKILL.md, or the stem of a flat skill."""
    if doc.kind == "skill-flat":
        return doc.stem
    return (project.root / doc.rel).parent.name


def spec_reads(doc: Doc, project: Project) -> bool:
    """True when the Agent Skills name rules decide whether the file is read: under
    ``--profile agentskills`` and inside ``.apc/`` (the APC spec reads it). Elsewhere Claude Code,
    Codex, Gemini CLI and FastMCP load the skill whatever its name (Claude Code under its folder
    name, Codex and Gemini CLI under the frontmatter ``name``), so the name rules are warnings
    there (APC-NOTES section 2)."""
    return project.profile == "agentskills" or doc.rel.startswith(".apc/")


def _name_severity(doc: Doc, project: Project) -> Severity:
    return Severity.ERROR if spec_reads(doc, project) else Severity.WARNING


_LOADED_ANYWAY = (
    " (the tools load the skill anyway: Claude Code under its folder name, Codex and Gemini "
    "CLI under the frontmatter `name`; an error under --profile agentskills and inside .apc/)"
)


def _check_name(doc: Doc, project: Project, name: Any) -> Iterator[Finding]:
    pos = fm.value_pos(doc, ("name",))
    severity = _name_severity(doc, project)
    note = "" if severity is Severity.ERROR else _LOADED_ANYWAY
    problems = name_problems(name)
    if problems:
        # one cause, one finding: every way the name breaks the rule, in one message
        yield fm.at(NAME_INVALID, doc, pos, f"$.name: {'; '.join(problems)}{note}", severity)
        return
    assert isinstance(name, str)
    norm, expected = _nfkc(name), _owner_name(doc, project)
    if norm != unicodedata.normalize("NFKC", expected):
        what = "file name" if doc.kind == "skill-flat" else "folder name"
        yield fm.at(
            NAME_MISMATCH,
            doc,
            pos,
            f"$.name: '{norm}' must equal the skill's {what} '{expected}'; rename one of "
            f"them{note}",
            severity,
        )
    if not SPEC_NAME.match(name):
        yield fm.at(
            NAME_NOT_SPEC_FORM,
            doc,
            pos,
            "$.name: accepted by skills-ref, but the spec says lowercase a-z, 0-9 and single "
            "hyphens without surrounding spaces; use an ASCII name for portability",
        )


# --------------------------------------------------------------------------- schema


def _instance(doc: Doc) -> dict[str, Any]:
    """The frontmatter with top-level scalars read as text, as strictyaml reads them."""
    out: dict[str, Any] = {}
    for key, value in doc.data.items():
        is_scalar = isinstance(value, _SCALARS)
        out[key] = fm.source_scalar(doc, key) if is_scalar else value
    return out


_FORM_FIX = "skills-ref accepts it, but write the spec's form"


def _schema_findings(
    doc: Doc, project: Project, instance: Mapping[str, Any], schema: str
) -> Iterator[Finding]:
    flat = doc.kind == "skill-flat"
    for error in fm.schema_errors(schema, instance):
        head = fm.where(error)[:1]
        pos = fm.schema_pos(doc, error)
        if error.validator == "required" and flat:
            fix = "add it (or drop the frontmatter)"
            yield fm.at(FLAT_KEY_MISSING, doc, pos, fm.schema_message(error, fix))
        elif error.validator == "required" and error.key == "name":
            severity = _name_severity(doc, project)
            fix = "add it" + ("" if severity is Severity.ERROR else _LOADED_ANYWAY)
            yield fm.at(REQUIRED_KEY, doc, pos, fm.schema_message(error, fix), severity)
        elif error.validator == "required":
            fix = "add it (Codex skips a skill without one; the description is how agents pick it)"
            yield fm.at(REQUIRED_KEY, doc, pos, fm.schema_message(error, fix))
        elif head == ("name",):
            continue  # checked by _check_name, exactly as skills-ref does
        elif error.validator == "additionalProperties":
            yield fm.at(
                UNKNOWN_KEY,
                doc,
                pos,
                fm.schema_message(error, "the agentskills profile allows only the spec's keys"),
                Severity.ERROR,
            )
        elif head == ("metadata",):
            # never "quote it": a tool may read metadata.internal as a boolean, or its own
            # metadata as an object (OpenClaw); say what the spec expects, leave the choice
            yield fm.at(FIELD_FORM, doc, pos, fm.schema_message(error, "skills-ref accepts it"))
        elif head in (("allowed-tools",), ("license",)):
            yield fm.at(FIELD_FORM, doc, pos, fm.schema_message(error, _FORM_FIX))
        elif head == ("description",) and error.validator == "maxLength":
            yield _long_description(doc, project, pos, fm.schema_message(error, "shorten it"))
        else:
            yield fm.at(FIELD_INVALID, doc, pos, fm.schema_message(error, "fix the value"))
    for warning in fm.schema_warnings(schema, instance):
        pos = fm.schema_pos(doc, warning)
        if warning.validator == "x-apc-unknown-keys":
            fix = "move it under `metadata:` or remove it (skills-ref rejects it)"
            yield fm.at(UNKNOWN_KEY, doc, pos, fm.schema_message(warning, fix))
        elif warning.validator != "x-apc-recommended":
            metadata = fm.where(warning)[:1] == ("metadata",)
            fix = "skills-ref accepts it" if metadata else _FORM_FIX
            yield fm.at(FIELD_FORM, doc, pos, fm.schema_message(warning, fix))


def _long_description(doc: Doc, project: Project, pos: Pos, message: str) -> Finding:
    """A description over 1,024 characters: loaded cut (Codex 0.171 at 1,024, Claude Code
    2.1.197 at 1,536, Gemini CLI 0.61 whole; the conformance suite checks it), so a warning;
    an error where the spec reads the skill (``--profile agentskills``, ``.apc/``)."""
    if spec_reads(doc, project):
        return fm.at(FIELD_INVALID, doc, pos, message + " (the Agent Skills spec's limit)")
    return fm.at(
        FIELD_INVALID,
        doc,
        pos,
        message + ": Codex loads the skill with the description cut to 1,024 characters and "
        "Claude Code to 1,536, so what follows never reaches the agent (an error under "
        "--profile agentskills and inside .apc/)",
        Severity.WARNING,
    )


def _extensions(doc: Doc, schema: str) -> Iterator[Finding]:
    if schema != "skill":
        return
    known = fm.extension_keys(schema)
    for key in doc.data:
        if key in known:
            yield fm.at(
                EXTENSION_KEY,
                doc,
                fm.key_pos(doc, (key,)),
                f"{fm.json_path((key,))}: Claude Code extension field, not in the Agent Skills "
                "spec (skills-ref rejects it)",
            )


# --------------------------------------------------------------------------- strict YAML


def _not_strict(doc: Doc) -> Iterator[Finding]:
    """What strictyaml (skills-ref) refuses but apc's parser read."""
    for pos in fm.lenient_lines(doc):
        key = _KEY.match(fm.line_text(doc, pos.line))
        shown = fm.json_path((key.group(1),)) if key else "$"
        yield fm.at(
            NOT_STRICT,
            doc,
            pos,
            f"{shown}: not valid strict YAML (an unquoted `: ` or leading `*`); skills-ref "
            "rejects the file: quote the value",
        )
    meta = doc.meta
    if meta is not None:
        flagged: list[tuple[Any, ...]] = []
        for path, pos in sorted(meta.values.items(), key=lambda item: _pos_key(item[1])):
            if any(path[: len(done)] == done for done in flagged):
                continue  # one cause, one finding: inside a flow collection already reported
            found = list(_strict_node(doc, path, pos))
            if found:
                flagged.append(path)
            yield from found
        if meta.ok and not fm.lenient_lines(doc):
            yield from _pure_parser(doc)
    close = fm.line_text(doc, doc.body_line - 1).strip()
    if doc.has_frontmatter and close == "...":
        yield fm.at(
            NOT_STRICT,
            doc,
            Pos(doc.body_line - 1, 1),
            "frontmatter closed with `...`; skills-ref needs a closing `---` line",
        )


def _pure_parser(doc: Doc) -> Iterator[Finding]:
    """What ruamel.yaml's pure-Python scanner (the one strictyaml runs on) refuses although
    libyaml read it, e.g. a tab inside an unquoted value (``description: a<TAB>b``)."""
    from ruamel.yaml import YAML

    lines = fm.line_texts(doc)[1 : max(doc.body_line - 2, 1)]
    try:
        for _ in YAML(typ="safe", pure=True).parse("\n".join(lines) + "\n"):
            pass
    except Exception as exc:  # ruamel raises several error classes; each means "rejected"
        mark = getattr(exc, "problem_mark", None)
        pos = Pos(mark.line + 2, mark.column + 1) if mark is not None else fm.start(doc)
        problem = getattr(exc, "problem", None) or "not valid YAML"
        yield fm.at(
            NOT_STRICT,
            doc,
            pos,
            f"skills-ref's YAML parser (strictyaml) rejects this: {problem}; quote the value "
            "(tabs are only allowed inside quotes or block scalars)",
        )


def _pos_key(pos: Pos) -> tuple[int, int]:
    return (pos.line, pos.column)


def _strict_node(doc: Doc, path: tuple[Any, ...], pos: Pos) -> Iterator[Finding]:
    char = fm.char_at(doc, pos)
    shown = fm.json_path(tuple(p for p in path if not (isinstance(p, str) and "\x00" in p)))
    if (
        char in "[{"
        and char
        and isinstance(fm.get(doc.meta.data if doc.meta else None, path), (list, dict))
    ):
        yield fm.at(
            NOT_STRICT,
            doc,
            pos,
            f"{shown}: flow-style {'list' if char == '[' else 'mapping'} (strictyaml, used by "
            "skills-ref, rejects it); write it in block style",
        )
    elif char == "!":
        yield fm.at(
            NOT_STRICT,
            doc,
            pos,
            f"{shown}: explicit YAML tag (strictyaml, used by skills-ref, rejects it); remove it",
        )


# --------------------------------------------------------------------------- checks


def _profile_schema(doc: Doc, project: Project) -> str:
    strict = project.profile == "agentskills" and doc.kind == "skill"
    return "skill-agentskills" if strict else "skill"


def check_skill(doc: Doc, project: Project) -> Iterator[Finding]:
    """SKILL.md anywhere: the Agent Skills spec (see the module docstring for profiles)."""
    if not doc.has_frontmatter:
        if not fm.opens_frontmatter(doc):
            yield FRONTMATTER_MISSING.finding(
                doc.path,
                "SKILL.md has no YAML frontmatter; start it with `---`, `name:` and "
                "`description:` lines and a closing `---`",
                1,
                1,
            )
        return
    if project.profile == "agentskills":
        yield from _not_strict(doc)
    if not fm.parsed(doc):
        return
    yield from _check_fields(doc, project)


def check_flat_skill(doc: Doc, project: Project) -> Iterator[Finding]:
    """`.apc/skills/<name>.md`: frontmatter optional; checked like SKILL.md when present."""
    if not fm.parsed(doc):
        return
    yield from _check_fields(doc, project)


def _check_fields(doc: Doc, project: Project) -> Iterator[Finding]:
    schema = _profile_schema(doc, project)
    instance = _instance(doc)
    yield from _schema_findings(doc, project, instance, schema)
    yield from _extensions(doc, schema)
    if "name" in instance:
        yield from _check_name(doc, project, instance["name"])


DocCheck = Callable[[Doc, Project], Iterable[Finding]]

CHECKS: Mapping[str, tuple[DocCheck, ...]] = {
    "skill": (check_skill,),
    "skill-flat": (check_flat_skill,),
}
PROJECT_CHECKS: tuple[Callable[[Project], Iterable[Finding]], ...] = ()
