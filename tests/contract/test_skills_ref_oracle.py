"""The `agentskills` profile against the reference validator skills-ref (PyPI `skills-ref`).

For every SKILL.md folder in the corpus and every hand-made case under
tests/cases/skills-ref/<name>/SKILL.md, the verdict (valid / invalid) of
``skills_ref.validator.validate(dir)`` must equal the verdict of
``apc_tools.contract.validate.validate([dir], profile="agentskills", config_path=None)``, where
apc's verdict is "invalid" when it reports any finding at error level.

Each SKILL.md is copied alone into a fresh folder of the same name, so both tools see exactly
the same input (the folder name matters: `name` must equal it) and apc does not pick up an
enclosing project or the skill's other files.

Expected disagreements, each deliberate and documented (apc is right, skills-ref is not):

* ``bom-prefixed``: skills-ref checks ``content.startswith("---")`` on the decoded text, so a
  UTF-8 byte-order mark fails the whole file. Editors on Windows write BOMs; YAML and the
  runtimes ignore it. apc accepts it (APC-NOTES section 2: a skills-ref bug we do not copy).
* ``dashes-in-quoted-value``: skills-ref splits the file with ``content.split("---", 2)``, so a
  ``---`` inside a value ends the frontmatter there: a quoted value becomes an unclosed quote
  (invalid), a plain one is silently truncated (``dashes-in-plain-value``: both tools say valid,
  but skills-ref reads the wrong description). apc splits on fence lines only (APC-NOTES
  section 2: the other skills-ref bug we do not copy).
``café`` is not a disagreement: skills-ref accepts any Unicode letter in `name`
(``str.isalnum``) and the issue asks for its verdict except the two bugs above, so the
agentskills profile accepts it too and warns (SKL009) that the spec's text says a-z, 0-9.

Where skills-ref is laxer than the spec because its YAML (strictyaml) reads every scalar as a
string or because it never checks a field (``allowed-tools`` as a list, non-string or nested
``metadata`` values), apc agrees that the skill is valid and reports a warning (the schema's
``x-apc-preferred``), so the verdicts match.

skills-ref raising instead of answering (it reads non-UTF-8 bytes with ``read_text`` and does
not catch ``UnicodeDecodeError``) counts as "invalid".
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import CORPUS

CASES = Path(__file__).resolve().parents[1] / "cases" / "skills-ref"

# skills-ref 0.1.1's verdict on each hand-made case (True = valid), pinned so that a change in
# skills-ref, or a case file damaged by an editor, shows up here.
SKILLS_REF_VERDICT: dict[str, bool] = {
    "valid-minimal": True,
    "valid-all-fields": True,
    "valid-crlf": True,
    "n" * 64: True,
    "description-1024": True,
    "compatibility-500": True,
    "metadata-number": True,
    "metadata-nested": True,
    "allowed-tools-string": True,
    "allowed-tools-list": True,
    "dashes-in-plain-value": True,
    "café": True,
    "bad_name": False,
    "UpperCase": False,
    "-leading-hyphen": False,
    "trailing-hyphen-": False,
    "double--hyphen": False,
    "name-mismatch": False,
    "n" * 65: False,
    "missing-name": False,
    "missing-description": False,
    "description-1025": False,
    "compatibility-501": False,
    "unknown-key": False,
    "unquoted-colon": False,
    "duplicate-key": False,
    "missing-closing-fence": False,
    "empty-frontmatter": False,
    "no-frontmatter": False,
    "non-utf8": False,
    "bom-prefixed": False,
    "dashes-in-quoted-value": False,
    # strictyaml reads every scalar as text; it refuses flow style, tags, tabs in plain values
    # and a `...` fence (the agentskills profile reports these as SKL007)
    "123": True,
    "null-description": True,
    "empty-compatibility": True,
    "技能": True,
    "flow-sequence": False,
    "explicit-tag": False,
    "tab-in-plain-value": False,
    "dots-closing-fence": False,
}

# case -> why apc's verdict is deliberately the opposite of skills-ref's (see the module doc).
EXPECTED_DISAGREEMENTS: dict[str, str] = {
    "bom-prefixed": "skills-ref bug: a UTF-8 BOM fails the file",
    "dashes-in-quoted-value": "skills-ref bug: '---' inside a value ends the frontmatter",
}


def case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "SKILL.md").is_file())


def corpus_skills() -> list[Any]:
    if not CORPUS.is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"{CORPUS} is not present"))]
    found = sorted(p.parent for p in CORPUS.rglob("SKILL.md"))
    return [pytest.param(p, id=str(p.relative_to(CORPUS))) for p in found]


def isolated(skill_dir: Path, tmp_path: Path) -> Path:
    """A fresh folder with the skill's name holding only its SKILL.md."""
    target = tmp_path / "skills" / skill_dir.name
    target.mkdir(parents=True)
    shutil.copyfile(skill_dir / "SKILL.md", target / "SKILL.md")
    return target


def skills_ref_valid(skill_dir: Path) -> bool:
    validator = pytest.importorskip(
        "skills_ref.validator",
        reason="skills-ref is not installed (pip install -e '.[test]' installs it)",
    )
    try:
        return not validator.validate(skill_dir)
    except Exception:  # it raises on non-UTF-8 input instead of reporting it
        return False


def apc_valid(skill_dir: Path) -> bool:
    module = pytest.importorskip(
        "apc_tools.contract.validate",
        reason="apc_tools.contract.validate is not available in this checkout",
    )
    from apc_tools.findings import Severity

    result = module.validate([skill_dir], profile="agentskills", config_path=None)
    return not any(f.severity is Severity.ERROR for f in result.findings)


def test_every_case_has_a_pinned_verdict() -> None:
    assert set(case_names()) == set(SKILLS_REF_VERDICT)
    assert set(EXPECTED_DISAGREEMENTS) <= set(SKILLS_REF_VERDICT)


def test_case_files_keep_their_bytes() -> None:
    assert (CASES / "bom-prefixed" / "SKILL.md").read_bytes().startswith(b"\xef\xbb\xbf---\n")
    assert b"\r\n" in (CASES / "valid-crlf" / "SKILL.md").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        (CASES / "non-utf8" / "SKILL.md").read_bytes().decode("utf-8")


@pytest.mark.parametrize("case", case_names())
def test_skills_ref_verdict_on_case_is_as_pinned(case: str, tmp_path: Path) -> None:
    assert skills_ref_valid(isolated(CASES / case, tmp_path)) is SKILLS_REF_VERDICT[case]


@pytest.mark.parametrize("case", case_names())
def test_agentskills_profile_agrees_with_skills_ref_on_case(case: str, tmp_path: Path) -> None:
    skill = isolated(CASES / case, tmp_path)
    reference, ours = skills_ref_valid(skill), apc_valid(skill)
    if case in EXPECTED_DISAGREEMENTS:
        assert ours is not reference, f"expected to differ: {EXPECTED_DISAGREEMENTS[case]}"
    else:
        assert ours is reference, f"skills-ref says {'valid' if reference else 'invalid'}"


@pytest.mark.parametrize("skill_dir", corpus_skills())
def test_agentskills_profile_agrees_with_skills_ref_on_corpus(
    skill_dir: Path, tmp_path: Path
) -> None:
    skill = isolated(skill_dir, tmp_path)
    reference, ours = skills_ref_valid(skill), apc_valid(skill)
    assert ours is reference, f"skills-ref says {'valid' if reference else 'invalid'}"
