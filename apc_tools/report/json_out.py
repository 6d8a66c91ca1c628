"""The machine format of APC-NOTES section 5, versioned; schema: schemas/report.schema.json."""

from __future__ import annotations

import json
from json.encoder import encode_basestring_ascii as _string

from apc_tools.findings import Finding, Result
from apc_tools.report.fixable import fix_of

REPORT_VERSION = 2


def report_dict(result: Result) -> dict[str, object]:
    """The report as plain data: ``{"version", "findings", "summary"}``."""
    summary = result.summary
    counts = {
        "error": summary.error,
        "warning": summary.warning,
        "info": summary.info,
        "files": summary.files,
    }
    if summary.skipped:
        counts["skipped"] = summary.skipped
    return {
        "version": REPORT_VERSION,
        "findings": [finding_dict(f) for f in result.findings],
        "summary": counts,
    }


def finding_dict(finding: Finding) -> dict[str, object]:
    """A finding's JSON object, with ``fix`` (``safe``/``unsafe``) when ``--fix`` repairs it
    (absent otherwise, as ``preexisting``: version 2 readers are unaffected)."""
    out = finding.to_json()
    fix = fix_of(finding.rule)
    if fix is not None:
        out["fix"] = fix
    return out


def render_json(result: Result) -> str:
    return dumps_indented(report_dict(result)) + "\n"


def dumps_indented(data: object) -> str:
    """``json.dumps(data, indent=2)``, the same text (tests hold them equal), made without the
    pure-Python encoder that ``indent`` selects (a fifth of a warm `apc validate`)."""
    try:
        return _indented(data, "\n")
    except (TypeError, ValueError, RecursionError):  # a type not handled here: json's own way
        return json.dumps(data, indent=2)


def _indented(value: object, newline: str) -> str:
    if isinstance(value, str):
        return _string(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if type(value) is int:
        return int.__repr__(value)
    inner = newline + "  "
    if type(value) is dict:
        if not value:
            return "{}"
        items = []
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError("a key that is not a string")
            # a finding's values, inline: a call per value was most of the report's time
            if type(item) is str:
                text = _string(item)
            elif item is None:
                text = "null"
            elif type(item) is int:
                text = int.__repr__(item)
            else:
                text = _indented(item, inner)
            items.append(_string(key) + ": " + text)
        return "{" + inner + ("," + inner).join(items) + newline + "}"
    if type(value) is list:
        if not value:
            return "[]"
        return "[" + inner + ("," + inner).join(_indented(v, inner) for v in value) + newline + "]"
    raise TypeError(f"not handled here: {type(value).__name__}")
