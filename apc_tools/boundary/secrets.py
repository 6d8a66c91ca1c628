"""BSC: API keys and tokens, with the shared secret detectors.

Scanned in contract files and in every blob another detector flagged (a session, a runtime
path), and in every text blob with ``--secrets all`` (the policy's ``boundary.secrets``). The
message names the detector and shows at most a public token prefix: never the secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from apc_tools.boundary.model import BlobView, Detection, rule
from apc_tools.core import detect
from apc_tools.findings import Severity

SECRET = rule(
    "BSC001",
    "committed-secret",
    Severity.ERROR,
    "An API key, token, private key or password in a contract file, in a file another boundary "
    "rule flags, or (with `--secrets all`) in any committed file.",
    "A committed secret is leaked to everyone who can read the repository and its history. "
    "Revoke and rotate it first, then remove it (`git rm --cached`, or edit the file) and, if "
    "it was pushed, rewrite the branch. Reference secrets by name (`${env:API_KEY}`).",
    'env: {"API_KEY": "${env:API_KEY}"}',
    'env: {"API_KEY": "sk-proj-<48 random characters>"}',
)
RULES = (SECRET,)

# "Authorization: Bearer <token>" and "bearer <token>": gated by randomness, so an example
# ("Bearer YOUR_TOKEN", "Bearer <token>", "Bearer ${TOKEN}") never counts.
BEARER = re.compile(r"(?i)\bbearer[ \t]+([A-Za-z0-9._~+/=-]{20,400})(?![A-Za-z0-9._~+/=-])")


# A keyword rule hit whose key names a digest ("tracing_api_key_hash": "<sha256>") is a hash of
# a secret, not the secret: real SDK fixtures carry such digests.
DIGEST_KEY = re.compile(
    r"(?i)(?:hash|digest|checksum|sha\d*|fingerprint|etag)[\"'`]?[ \t]*[:=][ \t]*[\"'`]?\Z"
)


def _digest(text: str, hit: detect.Hit) -> bool:
    return hit.detector == "generic-secret" and bool(
        DIGEST_KEY.search(text, max(0, hit.start - 80), hit.start)
    )


def _bearer(text: str) -> Iterator[detect.Hit]:
    if "earer" not in text:
        return
    for found in BEARER.finditer(text):
        value = found.group(1)
        if detect.looks_random(value, min_length=20):
            yield detect.Hit("bearer-token", found.start(1), found.end(1))


def detect_secrets(blob: BlobView) -> Iterator[Detection]:
    if blob.binary:
        return
    text = blob.text
    hits = [h for h in detect.find_secrets(text) if not _digest(text, h)]
    taken = [(h.start, h.end) for h in hits]
    hits += [h for h in _bearer(text) if not any(s < h.end and h.start < e for s, e in taken)]
    for hit in sorted(hits, key=lambda h: h.start):
        value = text[hit.start : hit.end]
        shown = detect.hint(hit.detector, value)
        what = "a bearer token" if hit.detector == "bearer-token" else detect.describe(hit.detector)
        hint = f' ("{shown}")' if shown else ""
        message = f"{what}{hint}: revoke and rotate it, then remove it from the repository"
        yield blob.detection(SECRET, message, hit.start, value)
