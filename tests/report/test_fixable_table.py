"""The renderers' fix table (apc_tools.report.fixable, read without the registry by the lean
warm start) is exactly the registry's fixes of the validate rules."""

from __future__ import annotations

import pprint

from apc_tools.boundary.policy import is_boundary_rule
from apc_tools.catalog import registry
from apc_tools.report.fixable import FIXES


def test_the_fix_table_is_the_registrys() -> None:
    expected = {r.id: r.fix for r in registry() if r.fix and not is_boundary_rule(r.id)}
    assert expected == FIXES, (
        "apc_tools/report/fixable.py is stale; FIXES must be:\n" + pprint.pformat(expected)
    )
