"""BLP: machine-local absolute paths (`/Users/<name>/`, `/home/<name>/`, `C:\\Users\\`) in
contract files: a warning, as `apc validate` reports them in memory and AGENTS.md."""

from __future__ import annotations

from collections.abc import Iterator

from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.core import detect
from apc_tools.findings import Severity

LOCAL_PATH = rule(
    "BLP001",
    "local-path",
    Severity.WARNING,
    "A contract file mentions a machine-local absolute path (/Users/<name>/, /home/<name>/, "
    "C:\\Users\\).",
    "A path on one person's machine means nothing to the team or to another agent, and it "
    "names a user account. Use a path relative to the repository root.",
    "Fixtures live in tests/fixtures/.",
    "Fixtures live in /Users/ana/src/app/tests/fixtures/.",
)
RULES = (LOCAL_PATH,)


# Only run in contract files, which the prefilter always reads.
NEEDLES: tuple[bytes, ...] = tuple(
    n.encode() for d in detect.LOCAL_PATH_DETECTORS for n in d.needles
)


def detect_local_paths(blob: BlobView) -> Iterator[Detection]:
    if blob.binary:
        return
    text = blob.text
    for hit in detect.find_local_paths(text):
        message = f"{detect.describe(hit.detector)}: use a path relative to the repository root"
        yield blob.detection(LOCAL_PATH, message, hit.start, text[hit.start : hit.end])
