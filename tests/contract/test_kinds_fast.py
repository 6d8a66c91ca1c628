"""classify and kinds_of answer by string operations on plain paths (a name check first, the
skill folders as strings): the same kinds as the PurePosixPath reading they replaced, on every
path of the corpus, on awkward hand-written paths and on generated ones."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import PurePosixPath

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apc_tools.contract import project
from tests.conftest import CORPUS


def reference_classify(rel: str) -> str | None:
    """classify as it was before the name check and the plain-path split (the parts' kinds,
    project.kind_of_parts, are what classify always asked)."""
    return project.kind_of_parts(tuple(p for p in rel.split("/") if p not in ("", ".")))


def reference_kinds(rels: Iterable[str]) -> dict[str, str]:
    """kinds_of as it was (PurePosixPath skill folders), with the reference classify."""
    rels = list(rels)
    kinds = {rel: kind for rel in rels if (kind := reference_classify(rel)) is not None}
    kinds.update(project.plugin_kinds(rels, kinds, None))
    skill_dirs = {PurePosixPath(r).parent for r, k in kinds.items() if k == "skill"}
    skill_dirs.discard(PurePosixPath("."))
    for rel, kind in kinds.items():
        if kind == "skill" and any(p in skill_dirs for p in PurePosixPath(rel).parent.parents):
            kinds[rel] = "skill-reference"
    return kinds


AWKWARD = [
    "AGENTS.md",
    "./AGENTS.md",
    "a//AGENTS.md",
    "a/./b/SKILL.md",
    "/abs/SKILL.md",
    "a/b/",
    "a/SKILL.md/",
    "a/SKILL.md/.",
    ".apc/project.json",
    ".apc/./project.json",
    ".apc//mcps.json",
    ".apc/.gitignore",
    "x/.apc/.gitignore",
    ".gitignore",
    ".apc/agents/a.md",
    ".apc/agents/a/memory.md",
    ".apc/rules/r.mdc",
    ".apc/plans/p.md",
    ".apc/skills/s.md",
    ".claude/commands/a/b/c.md",
    ".claude/agents/x.md",
    ".cursor/rules/x.mdc",
    ".cursor/rules/x.md",
    ".github/copilot-instructions.md",
    ".github/instructions/a/b.instructions.md",
    "CLAUDE.md",
    "docs/GEMINI.md",
    "README.md",
    "notes.mdc",
    "project.json",
    "a/../SKILL.md",
    "../SKILL.md",
    "skills/a/SKILL.md",
    "skills/a/ref/SKILL.md",
    "skills/a/ref/deeper/SKILL.md",
    "skills/b/./ref/SKILL.md",
    "SKILL.md",
    "x/SKILL.md",
    "x/y/SKILL.md",
    "café/SKILL.md",
    "a b/SKILL.md",
]


def test_awkward_paths_classify_as_before() -> None:
    for rel in AWKWARD:
        assert project.classify(rel) == reference_classify(rel), rel


def test_awkward_trees_have_the_kinds_they_had() -> None:
    assert project.kinds_of(AWKWARD) == reference_kinds(AWKWARD)
    plain = [r for r in AWKWARD if project._plain(r)]
    assert project.kinds_of(plain) == reference_kinds(plain)
    assert project.kinds_of(plain)["skills/a/ref/deeper/SKILL.md"] == "skill-reference"
    assert project.kinds_of(plain)["x/y/SKILL.md"] == "skill-reference"
    assert project.kinds_of(plain)["SKILL.md"] == "skill"  # the root's owns nothing


def test_every_corpus_path_has_the_kind_it_had() -> None:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    rels = [
        os.path.relpath(os.path.join(folder, name), CORPUS).replace(os.sep, "/")
        for folder, _, names in os.walk(CORPUS)
        for name in names
    ]
    assert len(rels) > 1000
    for rel in rels:
        assert project.classify(rel) == reference_classify(rel), rel
    kinds = project.kinds_of(rels)
    assert kinds == reference_kinds(rels)
    assert "skill" in kinds.values()


PARTS = st.sampled_from(
    [
        "",
        ".",
        "..",
        ".apc",
        ".claude",
        ".cursor",
        ".github",
        "agents",
        "commands",
        "rules",
        "plans",
        "skills",
        "instructions",
        "a",
        "b",
        "SKILL.md",
        "AGENTS.md",
        "CLAUDE.md",
        "memory.md",
        "x.md",
        "x.mdc",
        "y.instructions.md",
        "copilot-instructions.md",
        "project.json",
        "mcps.json",
        ".gitignore",
        "x.txt",
    ]
)
PATHS = (
    st.lists(PARTS, min_size=1, max_size=6)
    .map("/".join)
    .filter(lambda rel: any(p not in ("", ".") for p in rel.split("/")))
)


@settings(max_examples=400, deadline=None)
@given(st.lists(PATHS, min_size=1, max_size=12))
def test_generated_paths_have_the_kinds_they_had(rels: list[str]) -> None:
    for rel in rels:
        assert project.classify(rel) == reference_classify(rel), rel
    assert project.kinds_of(rels) == reference_kinds(rels)
