"""The GitLab CI snippet of docs/ci.md runs once per push (issue 17): without `workflow: rules:`
a push to a branch with an open merge request ran a branch pipeline and a merge-request
pipeline, the same job twice. The rules are evaluated the way GitLab documents them (the first
rule whose `if` holds decides; `when: never` runs nothing; no rule holding runs nothing), for
the expression forms the snippet uses: `$VAR`, `$VAR == "text"`, and `&&`."""

from __future__ import annotations

import re

import pytest
from ruamel.yaml import YAML

from tests.conftest import REPO_ROOT


def snippet() -> dict[str, object]:
    text = (REPO_ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "# .gitlab-ci.yml" in b]
    return YAML(typ="safe").load(block)  # type: ignore[no-any-return]


def holds(expression: str, env: dict[str, str]) -> bool:
    def term(part: str) -> bool:
        part = part.strip()
        equal = re.fullmatch(r'\$(\w+) == "([^"]*)"', part)
        if equal:
            return env.get(equal[1]) == equal[2]
        variable = re.fullmatch(r"\$(\w+)", part)
        assert variable, f"an expression form this test does not know: {part!r}"
        return bool(env.get(variable[1]))

    return all(term(part) for part in expression.split("&&"))


def runs(rules: list[dict[str, str]], env: dict[str, str]) -> bool:
    for rule in rules:
        if holds(rule["if"], env):
            return rule.get("when", "on_success") != "never"
    return False


PUSH_WITH_MR = {
    "CI_PIPELINE_SOURCE": "push",
    "CI_COMMIT_BRANCH": "topic",
    "CI_OPEN_MERGE_REQUESTS": "g/p!1",
}
MR_EVENT = {"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "1"}
PUSH_NO_MR = {"CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "main"}


@pytest.mark.parametrize(
    ("event", "pipelines"),
    [
        ("a push to a branch with an open merge request", [MR_EVENT, PUSH_WITH_MR]),
        ("a push to a branch without one", [PUSH_NO_MR]),
    ],
)
def test_one_pipeline_runs_the_job_per_push(event: str, pipelines: list[dict[str, str]]) -> None:
    config = snippet()
    workflow = config["workflow"]["rules"]  # type: ignore[index]
    job = config["apc"]["rules"]  # type: ignore[index]
    ran = [env for env in pipelines if runs(workflow, env) and runs(job, env)]
    assert len(ran) == 1, event


def test_without_the_workflow_rules_the_job_ran_twice() -> None:
    """The test can fail: the job's own rules alone let both pipelines of one push run."""
    job = snippet()["apc"]["rules"]  # type: ignore[index]
    assert [runs(job, env) for env in (MR_EVENT, PUSH_WITH_MR)] == [True, True]
