"""BMK: interruption markers (APC-NOTES §3) that agent runtimes write into a history.

Inside a record (a blob the transcript detectors recognised, or a JSON line/document) or in a
contract file, a marker is history content: an error. Merely mentioned in other prose or code
(docs and parsers that explain the marker, this project's own repair code) it is a warning.
One detection per marker and blob, at its first occurrence, with the count.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.core import detect
from apc_tools.findings import Severity

IN_RECORD = rule(
    "BMK001",
    "marker-in-record",
    Severity.ERROR,
    "An interruption marker (`[Request interrupted by user`, `<turn_aborted>`, `[TASK "
    "RESUMPTION]`, `not run: the turn was interrupted`, ...) inside a history record or a "
    "contract file.",
    "Agent runtimes write these markers into a session when a turn is cut short. Inside a JSON "
    "record, a recognised session or a contract file they mean that history content was "
    "committed. Remove the history (`git rm --cached`) or, in a contract file, the pasted "
    "session text.",
    '{"role": "user", "content": "continue with the plan"}',
    '{"type":"user","message":{"content":[{"type":"text",'
    '"text":"[Request interrupted by user]"}]}}',
)
MENTION = rule(
    "BMK002",
    "marker-mention",
    Severity.WARNING,
    "An interruption marker mentioned in prose or code outside any record.",
    "Documentation and parsers that explain a marker are fine, but a pasted fragment of a "
    "session looks the same. Check the line; if it only explains the marker, allow it with an "
    "inline `apc: allow BMK002` comment or a path in `.apc-tools.yaml`.",
    "Claude Code marks an interrupted request in its session files.",
    "> [Request interrupted by user for tool use]",
)
RULES = (IN_RECORD, MENTION)

# Literal pieces, one of which every marker contains: a fast ``in`` test on the raw bytes
# keeps the regex away from the vast majority of blobs.
NEEDLES = (b"interrupted", b"turn_aborted", b"TASK RESUMPTION", b"Tool result missing")


def might_contain(data: bytes) -> bool:
    return any(n in data for n in NEEDLES)


def _in_record(blob: BlobView, line: int) -> bool:
    if blob.flagged or blob.contract or blob.in_apc:
        return True
    text = blob.line_text(line).strip()
    return (text.startswith("{") and text.endswith("}")) or blob.structured


def detect_markers(blob: BlobView) -> Iterator[Detection]:
    if blob.binary or not might_contain(blob.data):
        return
    hits = detect.find_markers(blob.text)
    counts = Counter(blob.text[h.start : h.end] for h in hits)
    seen: set[str] = set()
    for hit in hits:
        marker = blob.text[hit.start : hit.end]
        if marker in seen:
            continue
        seen.add(marker)
        more = f" ({counts[marker]} times)" if counts[marker] > 1 else ""
        if _in_record(blob, blob.position(hit.start)[0]):
            message = f"interruption marker {marker!r}{more} {_where(blob)}"
            yield blob.detection(IN_RECORD, message, hit.start, marker)
        else:
            message = (
                f"interruption marker {marker!r}{more} mentioned outside any record: if the "
                "line only explains it, allow it (inline `apc: allow BMK002` or the policy); "
                "if it is pasted session text, remove it"
            )
            yield blob.detection(MENTION, message, hit.start, marker)


def _where(blob: BlobView) -> str:
    """Where the marker sits, and what to do about it."""
    if blob.contract or blob.in_apc:
        return (
            "in a contract file: pasted session text in what agents read; remove it (the "
            "contract should describe, not replay, an interrupted turn)"
        )
    return (
        "inside a history record: committed session content; remove the history "
        "(`git rm --cached`) and add its path to .gitignore"
    )
