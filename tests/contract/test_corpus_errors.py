"""`apc validate` over the whole shared corpus: every error-level finding is pinned to a judged
list (file, rule, how many, and why the tool that reads the file rejects or misreads it). An
error that is not on the list fails the test, and so does a judged error that disappears: the
list is the record of what apc calls broken in real repositories, and why."""

from __future__ import annotations

from collections import Counter

from apc_tools.contract.validate import validate
from apc_tools.findings import Severity
from tests.conftest import CORPUS, needs_shared

JUDGED: dict[tuple[str, str], tuple[int, str]] = {
    ("wshobson__agents/plugins/pptx-deck-creation/.claude-plugin/plugin.json", "PLG001"): (
        1,
        '`"agents": ["./agents"]` lists a folder: Claude Code 2.1.197 and 2.1.332 refuse the '
        "whole plugin (an agents entry must be a ./...md file), so none of its agents and "
        "skills load (the conformance case claude-plugin-agents-folder)",
    ),
    ("agentprojectcontext__agentprojectcontext/.apc/project.json", "PRJ002"): (
        1,
        "no `apc` (or legacy `apf`) spec-version key: the APC spec requires one, and APX "
        "cannot tell which spec version the project follows",
    ),
}


def test_every_error_on_the_corpus_is_judged() -> None:
    needs_shared(CORPUS)
    result = validate([CORPUS], cwd=CORPUS)
    assert result.files > 200
    errors = Counter((f.path, f.rule) for f in result.findings if f.severity is Severity.ERROR)
    unjudged = {k: n for k, n in errors.items() if k not in JUDGED}
    assert not unjudged, f"errors nobody judged (add them with a reason, or fix apc): {unjudged}"
    assert dict(errors) == {k: n for k, (n, _) in JUDGED.items()}


def test_every_judgement_gives_a_reason() -> None:
    for key, (count, why) in JUDGED.items():
        assert count > 0 and len(why) > 40, key
