"""apc's table of Claude Code's settings keys is the one the installed release bundles."""

from __future__ import annotations

from apc_tools.contract.checks.claude_settings_keys import SETTING_TYPES
from tests.conformance.harness import Binaries
from tests.conformance.settings_keys import extract


def test_every_key_of_the_pinned_release_is_known_with_its_type(clis: Binaries) -> None:
    table = extract(clis.claude)
    assert len(table) > 100
    for key, kind in table.items():
        assert key in SETTING_TYPES, key
        # a key both releases know with different types is not checked (None in apc's table)
        assert SETTING_TYPES[key] in (kind, None), key
