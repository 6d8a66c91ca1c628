"""Property tests: no text and no YAML/JSON value makes the validator raise."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from apc_tools.contract.build import build_contract
from tests.memory_project import check_texts

FILES = {
    "AGENTS.md": "agents-md",
    ".apc/project.json": "project",
    ".apc/mcps.json": "mcps",
    ".apc/.gitignore": "apc-gitignore",
    ".apc/agents/rev.md": "agent",
    ".apc/agents/rev/memory.md": "memory",
    ".apc/skills/flat.md": "skill-flat",
    ".apc/skills/demo/SKILL.md": "skill",
    ".apc/rules/style.mdc": "rule",
    ".apc/plans/plan.md": "plan",
    ".claude/agents/helper.md": "claude-agent",
}

scalars = (
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=30)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5)
    ),
    max_leaves=8,
)
keys = st.sampled_from(
    [
        "name",
        "description",
        "model",
        "skills",
        "globs",
        "alwaysApply",
        "owner",
        "updated",
        "title",
        "status",
        "apc",
        "apf",
        "version",
        "created",
        "apx",
        "apx_id",
        "agents",
        "mcpServers",
        "metadata",
        "compatibility",
        "allowed-tools",
        "license",
        "tools",
        "is_background",
        "type",
        "role",
    ]
) | st.text(max_size=10)
mappings = st.dictionaries(keys, values, max_size=6)


def run(texts: dict[str, str], profile: str = "default") -> None:
    project, _ = check_texts(texts, profile=profile, extra_files=["src/a.ts"])
    build_contract(project)


def frontmatter(mapping: dict[str, object]) -> str:
    return "---\n" + json.dumps(mapping, ensure_ascii=False) + "\n---\nBody text.\n"


@given(
    st.dictionaries(st.sampled_from(sorted(FILES)), st.text(max_size=300), max_size=6),
    st.sampled_from(["default", "agentskills"]),
)
def test_arbitrary_text_in_every_contract_file(texts: dict[str, str], profile: str) -> None:
    run(texts, profile)


@given(mappings, mappings, mappings, st.sampled_from(["default", "agentskills"]))
def test_arbitrary_yaml_values_in_frontmatter_and_json(
    front: dict[str, object], meta: dict[str, object], mcps: dict[str, object], profile: str
) -> None:
    texts = {
        rel: frontmatter(front)
        for rel, kind in FILES.items()
        if kind not in ("project", "mcps", "apc-gitignore", "agents-md", "memory")
    }
    texts[".apc/project.json"] = json.dumps(meta)
    texts[".apc/mcps.json"] = json.dumps({"mcpServers": mcps})
    texts["AGENTS.md"] = "# A\n\n[link](" + str(front.get("name", "x")) + ")\n"
    run(texts, profile)
