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
from apc_tools.boundary.model import UNTRACKED_BY_FIX
from apc_tools.findings import Rule, with_fix

# What `apc boundary --staged --fix` repairs (apc_tools.boundary.fix): a whole file of runtime
# state is untracked (the working file is kept) and ignored.
_UNTRACK = (
    "untracks the file (`git rm --cached`; the working file is kept) and adds its ignore line to "
    "`.apc/.gitignore` (paths under `.apc/`) or the root `.gitignore`: there the tool's pattern "
    "where one is known (`.aider*`, `.claude/settings.local.json`, `.specstory/`, a tool's home "
    "folder with its shared files re-included, a runtime path's folder), so the tool's next "
    "file is ignored too, else the exact path; a file already committed "
    "is named with the `git filter-repo` command that removes it from history (rotate any "
    "secret it held)"
)
FIX: dict[str, tuple[str, str]] = {rid: ("safe", _UNTRACK) for rid in sorted(UNTRACKED_BY_FIX)}

RULES: tuple[Rule, ...] = with_fix(
    (
        *paths.RULES,
        *transcripts.RULES,
        *markers.RULES,
        *secrets.RULES,
        *local_paths.RULES,
        *stores.RULES,
        *inputs.RULES,
        *policy.RULES,
    ),
    FIX,
)
