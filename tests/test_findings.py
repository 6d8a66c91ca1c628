"""A finding's fingerprint is its content identity: rule, path and the hash of what matched."""

from __future__ import annotations

import json

import pytest

from apc_tools.findings import Finding, Registry, Result, Severity, content_hash, rule_family
from apc_tools.report import render

_rule = rule_family("test")
SECRET = _rule("TST101", "secret", Severity.ERROR, "s", "e", "good", "bad")
OTHER = _rule("TST102", "other", Severity.WARNING, "s", "e", "good", "bad")
KEY = "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6"


def test_moving_the_line_and_rewording_the_message_keep_the_fingerprint() -> None:
    first = SECRET.finding("AGENTS.md", "an API key: remove it", 3, 5, match=KEY)
    moved = SECRET.finding("AGENTS.md", "secret found; rotate it and remove it", 90, 1, match=KEY)
    assert first.fingerprint == moved.fingerprint


def test_changing_the_matched_content_path_or_rule_changes_it() -> None:
    base = SECRET.finding("AGENTS.md", "m", 3, 5, match=KEY).fingerprint
    assert SECRET.finding("AGENTS.md", "m", 3, 5, match=KEY + "x").fingerprint != base
    assert SECRET.finding("CLAUDE.md", "m", 3, 5, match=KEY).fingerprint != base
    assert OTHER.finding("AGENTS.md", "m", 3, 5, match=KEY).fingerprint != base


def test_a_path_rule_is_identified_by_the_path_alone() -> None:
    one = OTHER.finding(".claude/settings.local.json", "runtime file", None, None)
    two = OTHER.finding(".claude/settings.local.json", "a reworded message", 1, 1)
    assert one.fingerprint == two.fingerprint


def test_the_secret_is_never_kept_only_its_hash() -> None:
    found = SECRET.finding("AGENTS.md", "an API key", 1, 1, match=KEY)
    assert KEY not in repr(found)
    assert found.identity == content_hash(KEY)
    report = render(Result.of([found], files=1), "json", _registry(), color=False, version="t")
    assert KEY not in report
    assert json.loads(report)["findings"][0]["fingerprint"] == found.fingerprint


def test_equal_identities_in_one_report_are_numbered_in_order() -> None:
    twice = [
        SECRET.finding("a.md", "x", 9, 1, match=KEY),
        SECRET.finding("a.md", "y", 2, 1, match=KEY),
    ]
    prints = [f.fingerprint for f in Result.of(twice, files=1).findings]
    assert prints[0] == SECRET.finding("a.md", "z", 1, 1, match=KEY).fingerprint
    assert prints[1] == prints[0] + ":2"


def _registry() -> Registry:
    return Registry.of([SECRET, OTHER])


def test_changed_makes_what_dataclasses_replace_makes() -> None:
    from dataclasses import fields, replace

    from apc_tools.findings import changed

    base = Finding("RUL003", Severity.WARNING, "a/b.mdc", 3, 4, "glob matches nothing")
    values: dict[str, object] = {
        "rule": "X1",
        "severity": Severity.ERROR,
        "path": "c.md",
        "line": None,
        "column": 9,
        "message": "m",
        "commit": "abc",
        "identity": "id",
        "occurrence": 3,
        "preexisting": True,
    }
    assert set(values) == {f.name for f in fields(Finding)}  # a new field is tested here too
    for name, value in values.items():
        got, want = changed(base, **{name: value}), replace(base, **{name: value})
        assert got == want and hash(got) == hash(want) and type(got) is Finding
        assert got.fingerprint == want.fingerprint and got.to_json() == want.to_json()
        assert base.to_json()["path"] == "a/b.mdc"  # the original is untouched
    assert changed(base, **values) == replace(base, **values)
    with pytest.raises(TypeError, match="nope"):
        changed(base, nope=1)
    with pytest.raises(AttributeError):
        changed(base, line=5).line = 6  # type: ignore[misc]  # still frozen
