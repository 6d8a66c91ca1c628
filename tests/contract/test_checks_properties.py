"""Property tests for the agent, skill, rule and plan checks: block-style YAML and raw
``key: text`` lines (the forms the lenient reader and the strictyaml emulation look at) never make
a check raise, in either profile, and every finding of these families has a position."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from tests.memory_project import check_texts

FILES = {
    ".apc/agents/rev.md": "agent",
    ".claude/agents/helper.md": "claude-agent",
    ".apc/skills/flat.md": "skill-flat",
    ".apc/skills/demo/SKILL.md": "skill",
    "skills/other/SKILL.md": "skill",
    ".apc/rules/style.mdc": "rule",
    ".cursor/rules/ts.mdc": "rule",
    ".apc/plans/plan.md": "plan",
}
KEYS = [
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
    "metadata",
    "compatibility",
    "allowed-tools",
    "license",
    "tools",
    "is_background",
    "type",
    "role",
    "color",
]
MINE = ("AGT", "SKL", "RUL", "PLN")

scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=20)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=10,
)
keys = st.sampled_from(KEYS) | st.text(min_size=1, max_size=8)
raw = st.text(alphabet=st.sampled_from(list("ab-_:*,/{}[]!&#'\" .é技0\t")), min_size=0, max_size=20)


def scalar(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def block_yaml(value: object, indent: str = "") -> str:
    """Block-style YAML (keys and strings JSON-quoted, so any text is valid)."""
    lines: list[str] = []
    items = value.items() if isinstance(value, dict) else enumerate(value)  # type: ignore[union-attr]
    for key, item in items:
        head = f"{indent}- " if isinstance(value, list) else f"{indent}{json.dumps(key)}: "
        if isinstance(item, dict | list) and item:
            lines.append(head.rstrip() + "\n" + block_yaml(item, indent + "  "))
        elif isinstance(item, dict | list):
            lines.append(head + ("{}" if isinstance(item, dict) else "[]") + "\n")
        else:
            lines.append(head + scalar(item) + "\n")
    return "".join(lines)


def run(front: str, profile: str) -> None:
    text = "---\n" + front + "---\nBody.\n"
    _, found = check_texts(
        dict.fromkeys(FILES, text),
        profile=profile,
        extra_files=["src/a.ts", ".apc/skills/pricing.md"],
    )
    for finding in found:
        if finding.rule.startswith(MINE):
            assert finding.line is not None and finding.line >= 1, finding
            assert finding.column is not None and finding.column >= 1, finding


@given(st.dictionaries(keys, values, max_size=6), st.sampled_from(["default", "agentskills"]))
def test_block_yaml_frontmatter_never_raises(mapping: dict[str, object], profile: str) -> None:
    run(block_yaml(mapping), profile)


@given(
    st.lists(st.tuples(st.sampled_from(KEYS), raw), max_size=6),
    st.sampled_from(["default", "agentskills"]),
)
def test_raw_key_value_lines_never_raise(lines: list[tuple[str, str]], profile: str) -> None:
    run("".join(f"{key}: {value}\n" for key, value in lines), profile)
