"""Rules made for the renderer tests: one per severity, with awkward text on purpose."""

from __future__ import annotations

from apc_tools.findings import Registry, Rule, Severity

MISSING = Rule(
    id="TST001",
    name="missing-name",
    severity=Severity.ERROR,
    summary="An agent has no name.",
    explanation="Add `name:` equal to the file slug.",
    good="---\nname: reviewer\n---\n",
    bad="---\nmodel: inherit\n---\n",
    family="contract",
)
LEGACY = Rule(
    id="TST002",
    name="legacy-key",
    severity=Severity.WARNING,
    summary="The legacy `apf` key is used.",
    explanation="Rename `apf` to `apc`.",
    good='{"apc": "1.0"}',
    bad='{"apf": "1.0"}',
    family="contract",
)
FENCED = Rule(
    id="TST002",
    name="fenced-example",
    severity=Severity.WARNING,
    summary="A summary | with a pipe.",
    explanation="Line one.\n\nLine two.",
    good="# Title\n\n```sh\nmake\n```\n",
    bad="````\nodd\n````",
    family="contract",
)
EXTENSION = Rule(
    id="RT001",
    name="extension-field",
    severity=Severity.INFO,
    summary="An extension field.",
    explanation="Nothing to fix.",
    good="role: x",
    bad="role: y",
    family="runtime history",
)
REGISTRY = Registry.of([MISSING, LEGACY, EXTENSION])
