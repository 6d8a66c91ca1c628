"""The gate's verdict on one file that is not committed yet: an editor's buffer (`apc lsp`).

The same detectors as a scan (:mod:`.blobs`): the path rules of the file's repository path,
then the content detectors on its bytes (at most the policy's ``max_blob_bytes``), the inline
``apc: allow`` comments and the policy's disable/allow/severity. No git object is read and no
baseline applies: what the file would give if it were staged now.
"""

from __future__ import annotations

from apc_tools.boundary import paths
from apc_tools.boundary.blobs import Inspector, _at_path, dedupe
from apc_tools.boundary.policy import Settings
from apc_tools.core.git import Blob, Entry, GitError, ignored_paths
from apc_tools.findings import Finding, Result

__all__ = ["GitError", "ignored_paths", "judge_file"]


def judge_file(
    path: str, data: bytes, settings: Settings, *, inline_allow: bool = True
) -> list[Finding]:
    """What `apc boundary --staged` would find about the file at the repository path ``path``
    (POSIX, relative to the top level) holding ``data``, the policy ``settings`` applied."""
    if settings.excluded(path):
        return []
    inspector = Inspector(
        settings,
        settings.secrets == "all",
        inline_allow,
        paths.extra_rules(settings.paths.get("BPA", ()), "boundary.paths.BPA"),
        False,
        paths.home_folders([path]),
    )
    entry = Entry("100644", "", path)
    blob = Blob(data[: settings.max_blob_bytes], len(data))
    found = list(_at_path(entry, blob, inspector))
    return list(Result.of(dedupe(settings.apply(found)), 1).findings)
