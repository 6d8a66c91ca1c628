"""Findings from the shared content detectors (secrets, local paths, markers) over a whole file.

Messages name the detector and show at most a redacted hint (:func:`detect.redact`): never the
secret. Positions are the 1-based ``line:column`` of the start of each hit in the file text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from apc_tools.contract.project import Doc
from apc_tools.core import detect
from apc_tools.findings import Finding, Rule


def hit_findings(
    rule: Rule, doc: Doc, hits: Iterable[detect.Hit], message: str
) -> Iterator[Finding]:
    """One finding per hit; ``message`` may use ``{what}`` (the detector, with a redacted hint
    for token formats that have a public prefix)."""
    index: detect.LineIndex | None = None
    for hit in hits:
        index = index or detect.LineIndex(doc.text)
        line, column = index.position(hit.start)
        value = doc.text[hit.start : hit.end]
        shown = detect.hint(hit.detector, value)
        what = detect.describe(hit.detector) + (f' ("{shown}")' if shown else "")
        text = message.replace("{what}", what)
        yield rule.finding(doc.path, text, line, column, match=value)


def secret_findings(rule: Rule, doc: Doc, advice: str) -> Iterator[Finding]:
    """A finding per live-looking secret in the file (never echoing it)."""
    message = "{what}; " + advice
    return hit_findings(rule, doc, doc.secret_hits, message)


def local_path_findings(rule: Rule, doc: Doc, advice: str) -> Iterator[Finding]:
    """A finding per machine-local absolute path in the file."""
    return hit_findings(rule, doc, detect.find_local_paths(doc.text), "{what}; " + advice)
