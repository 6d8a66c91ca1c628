"""Property tests: the AGENTS.md, project.json, mcps.json, .gitignore and memory checks never
raise, whatever the file holds."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from apc_tools.core.gitignore import missing_defaults
from tests.checks_base import BASE
from tests.memory_project import check_texts

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=40),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)
SERVERS = st.dictionaries(
    st.text(max_size=8),
    st.dictionaries(
        st.sampled_from(["command", "args", "env", "url", "headers", "enabled", "x"]),
        JSON_VALUES,
        max_size=5,
    ),
    max_size=3,
)


def _validate(files: dict[str, str]) -> None:
    """Parse and check an in-memory project (no disk: the checks see only these texts)."""
    tree = {**BASE, **files}
    assert all(isinstance(text, str) for text in tree.values())
    check_texts(tree)  # type: ignore[arg-type]


@given(st.text(max_size=400), st.text(max_size=400))
def test_markdown_checks_never_raise(agents: str, memory: str) -> None:
    _validate({"AGENTS.md": agents, ".apc/memory.md": memory, ".apc/agents/x/memory.md": memory})


@given(JSON_VALUES, SERVERS)
def test_json_checks_never_raise(project: object, servers: object) -> None:
    _validate(
        {
            ".apc/project.json": json.dumps(project),
            ".apc/mcps.json": json.dumps({"mcpServers": servers}),
        }
    )


@given(st.text(max_size=300))
def test_gitignore_coverage_never_raises(text: str) -> None:
    missing_defaults(text)
    _validate({".apc/.gitignore": text})
