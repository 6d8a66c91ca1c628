"""BIO: what the gate could not read in full (info): a blob too large to read whole, a
submodule, a Git LFS pointer; (a warning) a compressed blob it cannot open here or that is
damaged; and (an error) content a decoding budget kept it from reading, since a pull request
can spend a budget on purpose to hide what is behind it. A blob it cannot read at all (missing
from a partial or damaged clone) is no finding but exit 2: see ``engine._refuse_missing``."""

from __future__ import annotations

from apc_tools.boundary.model import Detection, rule
from apc_tools.findings import Severity

TOO_LARGE = rule(
    "BIO001",
    "blob-too-large",
    Severity.INFO,
    "A blob larger than the read limit: only its head was scanned by the content rules.",
    "The gate reads at most `boundary.max_blob_bytes` (default 8 MiB) of a blob, enough to "
    "recognise a session by its first records; secrets and markers further in are not seen. "
    "Path rules still apply. Large generated files usually belong outside git. When all that "
    "was read is blank space (padding in front of what the limit never reached), the finding "
    "is a warning: that is how content is hidden from a bounded reader; in a file of records "
    "(`.json`, `.jsonl`, `.ndjson`, `.yaml`: a JSON or YAML reader skips the padding and reads "
    "the session behind it) it is an error.",
    "a 200 KiB source file",
    "a 50 MiB data dump",
)
SUBMODULE = rule(
    "BIO002",
    "submodule",
    Severity.INFO,
    "A submodule (gitlink): its content belongs to another repository and is not scanned.",
    "Run `apc boundary` in the submodule's own repository to check it.",
    "a regular folder",
    "vendor/lib (mode 160000)",
)
LFS_POINTER = rule(
    "BIO003",
    "lfs-pointer",
    Severity.INFO,
    "A Git LFS pointer: the content lives on the LFS server and is not scanned.",
    "The gate never fetches LFS objects. Path rules still apply to the pointer's path.",
    "a regular file",
    "version https://git-lfs.github.com/spec/v1\\noid sha256:...",
)
UNINSPECTED = rule(
    "BIO005",
    "compressed-blob-not-inspected",
    Severity.WARNING,
    "A compressed blob the gate cannot open here (zstd without a zstd module): its content "
    "was not scanned.",
    "Agent tools compress sessions (Codex writes `rollout-*.jsonl.zst`), so a compressed blob "
    "may hide one. The gate opens gzip, bzip2 and xz with the standard library; zstd needs "
    "Python 3.14's `compression.zstd` or the `zstandard` package. Install it, or check the "
    "file by hand (`zstd -dc FILE | head`), then allow its path for BIO005 in `.apc-tools.yaml`.",
    "a gzip-compressed JSON file (opened and scanned)",
    "data/export.jsonl.zst (28 b5 2f fd ...) without a zstd module",
)
OVER_BUDGET = rule(
    "BIO006",
    "not-decoded-within-budget",
    Severity.ERROR,
    "A compressed, nested or notebook blob whose content the gate did not read, because a "
    "decoding budget was spent: what it holds was not scanned.",
    "The gate decompresses at most 9 MiB per blob (1 MiB of content after at most 8 MiB of "
    "blank space, every layer and member together) and, per scan, 512 MiB plus 64 bytes per "
    "compressed byte read; it opens at most 8 wrappers one inside another, judges at most "
    "20,000 notebook outputs one by one, and gives a decoder at most 160 MiB (an xz "
    "dictionary) or 128 MiB (a zstd window) of memory. A pull request can spend these budgets "
    "on purpose (tiny blobs that expand to gigabytes of blank space), so what they cut is an "
    "error, not a pass. Look at the file (`zcat FILE | head`), remove it, or allow its path "
    "for BIO006 in `.apc-tools.yaml`. A blob cut by the scan's budget is not cached: a later "
    "scan reads it.",
    "a gzip-compressed log of 3 MiB (read)",
    "400 bzip2 blobs of 50 bytes that each expand to 8 MiB of spaces",
)
DAMAGED = rule(
    "BIO007",
    "damaged-compressed-blob",
    Severity.WARNING,
    "A compressed blob whose check fails (gzip CRC, bzip2 CRC, xz index or check, zstd "
    "checksum), that is cut off, or that is followed by other data: what decompressed before "
    "the damage was scanned, the rest could not be.",
    "Decompressors print the data before they find the damage, so a damaged archive still "
    "carries its content to whoever opens it; the gate judges what decompressed and says the "
    "archive is damaged rather than calling it clean. Repair or remove the file (`gzip -t`, "
    "`xz -t`, `zstd -t` show the damage), or allow its path for BIO007.",
    "a gzip file whose CRC matches",
    "a gzip file whose last 8 bytes (CRC and size) were changed",
)
RULES = (TOO_LARGE, SUBMODULE, LFS_POINTER, UNINSPECTED, OVER_BUDGET, DAMAGED)
RECORD_SUFFIXES = (".json", ".jsonl", ".ndjson", ".yaml", ".yml")

LFS_HEADER = b"version https://git-lfs.github.com/spec/v1"
NEEDLES: tuple[bytes, ...] = (b"version https://git-lfs",)  # BIO003, for the prefilter


def too_large(size: int, limit: int, head: bytes = b"x", path: str = "") -> Detection:
    """A blob read only in part; a warning when all that was read is blank (padding in front of
    what the read window never reached, the way a session is hidden behind blank space), an
    error when the blob is a file of records (:data:`RECORD_SUFFIXES`)."""
    if head.strip():
        return Detection(
            TOO_LARGE,
            f"{size} bytes, above the read limit of {limit}: only the first {limit} bytes were "
            "scanned for content",
        )
    records = path.casefold().endswith(RECORD_SUFFIXES)
    return Detection(
        TOO_LARGE,
        f"{size} bytes, and the first {limit} bytes (the read limit) are all blank: the content "
        "behind the padding was not scanned; look at it (or raise `boundary: max_blob_bytes`)",
        severity=Severity.ERROR if records else Severity.WARNING,
    )


def submodule() -> Detection:
    return Detection(SUBMODULE, "submodule: its content is not scanned here")


def lfs_pointer() -> Detection:
    return Detection(LFS_POINTER, "Git LFS pointer: the content is not scanned")


def uninspected(how: str, reason: str) -> Detection:
    return Detection(UNINSPECTED, f"{how} blob: {reason}, so its content was not scanned")


def over_budget(how: str, reason: str) -> Detection:
    return Detection(OVER_BUDGET, f"{how} blob: {reason}, so its content was not all scanned")


def damaged(how: str, reason: str) -> Detection:
    return Detection(
        DAMAGED, f"{how} blob: {reason}; what decompressed before the damage was scanned"
    )
