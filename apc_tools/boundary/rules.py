"""Every rule of the boundary gate, for the registry (see apc_tools.catalog): one family,
one module per rule group (BPA paths, BTR transcripts, BMK markers, BSC secrets, BLP local
paths, BDB binary stores, BIO input notes, BPL policy and baseline)."""

from __future__ import annotations

from apc_tools.boundary import (
    inputs,
    local_paths,
    markers,
    paths,
    policy,
    secrets,
    stores,
    transcripts,
)
from apc_tools.findings import Rule

RULES: tuple[Rule, ...] = (
    *paths.RULES,
    *transcripts.RULES,
    *markers.RULES,
    *secrets.RULES,
    *local_paths.RULES,
    *stores.RULES,
    *inputs.RULES,
    *policy.RULES,
)
