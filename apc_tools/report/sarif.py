"""SARIF 2.1.0 for GitHub code scanning (and any other SARIF consumer).

One run; ``tool.driver.rules`` lists every rule of the registry (plus a bare descriptor for any
rule a finding names that the registry lacks), each with help text and markdown. Every result has
a ``region`` (GitHub code scanning needs one to place an alert): its line and column as far as
known, ``startLine: 1`` for a finding about the file as a whole. ``partialFingerprints`` carry
the finding's content identity (:attr:`Finding.fingerprint`: rule, path and a hash of the matched
content; never the line, which churns, nor the message, which gets reworded), numbered so that
equal findings in one file stay distinct.

Code scanning rejects a run of more than :data:`RESULT_LIMIT` results, so a run holds at most that
many: the most severe first (errors, then warnings, then notes; within a level, the higher
``security-severity``), and the run's ``properties`` say how many were found and how many left
out (``resultsTotal``, ``resultsOmitted``, ``resultsLimit``).

Leak and secret rules (the boundary gate's detections, every rule whose severity basis is
:attr:`Basis.LEAK`) carry ``security-severity`` and the ``security`` tag in their properties, so
code scanning lists them as security alerts ranked critical (secrets, 9.0), high (other errors,
7.5) or medium (warnings, 5.0).
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

from apc_tools.findings import Basis, Finding, Registry, Result, Rule, Severity

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SARIF_VERSION = "2.1.0"
TOOL_NAME = "apc-tools"
INFORMATION_URI = "https://apc-tools.dev"
SOURCE_ROOT = "%SRCROOT%"  # relative URIs resolve against the checked-out repository
FINGERPRINT_KEY = "apcFingerprint/v2"
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
DESCRIPTION_LIMIT = 1024  # GitHub's limit for shortDescription and fullDescription
WINDOWS_DRIVE = re.compile(r"^[A-Za-z]:/")
RESULT_LIMIT = 25_000  # GitHub code scanning: results per run
# The boundary gate's rules that are not about the scan itself (BIO: what could not be read,
# BPL: the policy and baseline) report a leak.
NOT_LEAKS = ("BIO", "BPL")
SECRET_SEVERITY = "9.0"  # critical
LEAK_SEVERITY = {Severity.ERROR: "7.5", Severity.WARNING: "5.0", Severity.INFO: "2.0"}

Json = dict[str, object]


def render_sarif(result: Result, registry: Registry, *, version: str) -> str:
    return json.dumps(sarif_log(result, registry, version=version), indent=2) + "\n"


def sarif_log(result: Result, registry: Registry, *, version: str) -> Json:
    rule_ids = rule_order(result, registry)
    index = {rule_id: i for i, rule_id in enumerate(rule_ids)}
    kept = ranked(result.findings, registry)[:RESULT_LIMIT]
    driver: Json = {
        "name": TOOL_NAME,
        "version": version,
        "informationUri": INFORMATION_URI,
        "rules": [descriptor(registry, rule_id) for rule_id in rule_ids],
    }
    return {
        "$schema": SARIF_SCHEMA,
        "version": SARIF_VERSION,
        "runs": [
            {
                "tool": {"driver": driver},
                "columnKind": "unicodeCodePoints",
                "results": sarif_results(kept, index, compared=result.compared),
                "properties": {
                    "resultsTotal": len(result.findings),
                    "resultsOmitted": len(result.findings) - len(kept),
                    "resultsLimit": RESULT_LIMIT,
                },
            }
        ],
    }


def ranked(findings: tuple[Finding, ...], registry: Registry) -> tuple[Finding, ...]:
    """``findings`` most severe first (level, then security severity), otherwise in order."""

    def key(finding: Finding) -> tuple[int, float]:
        known = finding.rule in registry
        score = security_severity(registry[finding.rule]) if known else None
        return finding.severity.rank, -float(score or 0)

    return tuple(sorted(findings, key=key))


def security_severity(rule: Rule) -> str | None:
    """The ``security-severity`` of a leak or secret rule (a CVSS-like score as a string, as
    code scanning reads it); None for any other rule."""
    leak = rule.basis is Basis.LEAK or (
        rule.family == "boundary" and not rule.id.startswith(NOT_LEAKS)
    )
    if not leak:
        return None
    if "secret" in rule.name:
        return SECRET_SEVERITY
    return LEAK_SEVERITY[rule.severity]


def rule_order(result: Result, registry: Registry) -> list[str]:
    """Registry rules in ID order, then any unregistered rule a finding names."""
    known = [rule.id for rule in registry]
    extra = sorted({f.rule for f in result.findings} - set(known))
    return known + extra


def descriptor(registry: Registry, rule_id: str) -> Json:
    if rule_id not in registry:
        return {
            "id": rule_id,
            "shortDescription": {"text": rule_id},
            "defaultConfiguration": {"level": "warning"},
        }
    return rule_descriptor(registry[rule_id])


def rule_descriptor(rule: Rule) -> Json:
    from apc_tools.report.rules_doc import explain_rule, rule_markdown

    properties: Json = {"tags": [rule.family], "family": rule.family}
    score = security_severity(rule)
    if score is not None:
        properties["tags"] = [rule.family, "security"]
        properties["security-severity"] = score
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": clip(rule.summary)},
        "fullDescription": {"text": clip(rule.explanation or rule.summary)},
        "help": {"text": explain_rule(rule, "text"), "markdown": rule_markdown(rule)},
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": properties,
    }


def clip(text: str) -> str:
    """``text`` cut to GitHub's description limit (the full text stays in ``help``)."""
    text = " ".join(text.split())
    if len(text) <= DESCRIPTION_LIMIT:
        return text
    return text[: DESCRIPTION_LIMIT - 1].rstrip() + "…"


def sarif_results(
    findings: tuple[Finding, ...], index: dict[str, int], *, compared: bool = False
) -> list[Json]:
    """The results; ``compared`` (`apc check --range`): each with its ``baselineState``,
    ``unchanged`` for a finding found at the range's base too, else ``new``."""
    out = [sarif_result(f, index[f.rule], sarif_fingerprint(f)) for f in findings]
    if compared:
        for finding, result in zip(findings, out, strict=True):
            result["baselineState"] = "unchanged" if finding.preexisting else "new"
    return out


def sarif_result(finding: Finding, rule_index: int, fingerprint_value: str) -> Json:
    uri = artifact_uri(finding.path)
    artifact: Json = {"uri": uri}
    if not uri.startswith("file:"):
        artifact["uriBaseId"] = SOURCE_ROOT
    physical: Json = {"artifactLocation": artifact, "region": sarif_region(finding)}
    out: Json = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": LEVEL[finding.severity],
        "message": {"text": finding.message or finding.rule},
        "locations": [{"physicalLocation": physical}],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint_value},
    }
    if finding.commit:
        out["properties"] = {"commit": finding.commit}
    return out


def sarif_region(finding: Finding) -> Json:
    """``{startLine, startColumn}`` as far as known; ``{startLine: 1}`` for a finding about
    the whole file (or with no known line)."""
    if finding.line is None or finding.line < 1:
        return {"startLine": 1}
    region: Json = {"startLine": finding.line}
    if finding.column is not None and finding.column >= 1:
        region["startColumn"] = finding.column
    return region


def sarif_fingerprint(finding: Finding) -> str:
    """The finding's fingerprint with its occurrence always spelled out (``hash:N``)."""
    value = finding.fingerprint
    return value if ":" in value else f"{value}:1"


def artifact_uri(path: str) -> str:
    """A URI reference for ``path``: relative with forward slashes, percent-escaped.

    Absolute paths (which a relative report should not contain) become ``file://`` URIs.
    """
    posix = path.replace("\\", "/")
    while posix.startswith("./"):
        posix = posix[2:]
    if WINDOWS_DRIVE.match(posix):
        return "file:///" + posix[:2] + uri_escape(posix[2:])
    if posix.startswith("/"):
        return "file://" + uri_escape(posix)
    return uri_escape(posix)


def uri_escape(path: str) -> str:
    """Percent-escape everything but unreserved characters and ``/``; raw bytes kept as bytes."""
    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        raw = path.encode("utf-8", "replace")
    return quote(raw, safe="/")
