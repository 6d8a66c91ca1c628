"""The validate orchestration: discovery, bad input, single files, policy, and the Contract."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from apc_tools.contract.model import Contract, freeze
from apc_tools.contract.validate import load_contract, validate
from apc_tools.findings import CannotRun, Severity
from tests.conftest import CORPUS, needs_shared, write_tree

SKILL = "---\nname: demo\ndescription: Shows how a skill is written.\n---\n\n# Demo\n"


def rules(result: object) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in result.findings]  # type: ignore[attr-defined]


def test_git_ignored_files_are_not_validated(git_repo: Callable[..., Path]) -> None:
    root = git_repo(
        {
            "AGENTS.md": "# A\n",
            ".gitignore": "ignored/\n",
            "skills/demo/SKILL.md": SKILL,
        }
    )
    write_tree(root, {"ignored/skills/x/SKILL.md": "---\nname: [broken\n---\n"})
    write_tree(root, {"untracked/skills/y/SKILL.md": "---\nname: [broken\n---\n"})
    result = validate([root], cwd=root)
    paths = {f.path for f in result.findings if f.severity is Severity.ERROR}
    assert paths == {"untracked/skills/y/SKILL.md"}


def test_nested_projects_and_display_paths(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# Outer\n",
            "sub/.apc/skills/bad.md": "---\nname: [\n---\n",
        },
    )
    result = validate([tmp_path / "sub"], cwd=tmp_path)
    assert ("YML001", "sub/.apc/skills/bad.md") in rules(result)


def test_hostile_file_names_are_reported_not_crashed(tmp_path: Path) -> None:
    weird = "skills/we,ird:na%me\nline/SKILL.md"
    write_tree(tmp_path, {"AGENTS.md": "# A\n", weird: "---\nname: [\n---\n"})
    result = validate([tmp_path], cwd=tmp_path)
    assert ("YML001", weird) in rules(result)


def test_symlink_to_outside_is_not_followed(tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("---\nname: [\n---\n")
    project = tmp_path / "p"
    write_tree(project, {"AGENTS.md": "# A\n"})
    (project / "skills" / "x").mkdir(parents=True)
    os.symlink(secret, project / "skills" / "x" / "SKILL.md")
    result = validate([project], cwd=project)
    assert ("IO004", "skills/x/SKILL.md") in rules(result)
    assert not any(f.rule == "YML001" for f in result.findings)


def test_single_file_arguments_report_only_those_files(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# A\n",
            "skills/a/SKILL.md": "---\nname: [\n---\n",
            "skills/b/SKILL.md": "---\nname: [\n---\n",
        },
    )
    result = validate([tmp_path / "skills/a/SKILL.md"], cwd=tmp_path)
    assert {f.path for f in result.findings} == {"skills/a/SKILL.md"}


def test_unknown_single_file_is_skipped_and_counted(tmp_path: Path) -> None:
    write_tree(tmp_path, {"notes.txt": "x", "skills/a/SKILL.md": "---\nname: [\n---\n"})
    result = validate([tmp_path / "notes.txt", tmp_path / "skills/a/SKILL.md"], cwd=tmp_path)
    assert result.skipped == 1 and result.files == 1
    assert {f.rule for f in result.findings} == {"YML001"}


def test_missing_path_cannot_run(tmp_path: Path) -> None:
    with pytest.raises(CannotRun, match="no such file"):
        validate([tmp_path / "nope"], cwd=tmp_path)


def test_policy_turns_rules_off_and_allows_paths(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# A\n",
            "skills/a/SKILL.md": "---\nname: a\nname: a\ndescription: d\n---\n",
            "skills/b/SKILL.md": "---\nname: [\n---\n",
            ".apc-tools.yaml": (
                "version: 1\ndisable: [YML002]\nallow:\n  YML001: ['skills/b/*']\n"
            ),
        },
    )
    result = validate([tmp_path], cwd=tmp_path)
    assert not [f for f in result.findings if f.rule in ("YML001", "YML002")]


@pytest.mark.parametrize(
    "text", ["rules: [1, 2]\n", "version: 2\n", "rules:\n  X: loud\n", "a: [\n"]
)
def test_bad_policy_cannot_run(tmp_path: Path, text: str) -> None:
    write_tree(tmp_path, {"AGENTS.md": "# A\n", ".apc-tools.yaml": text})
    with pytest.raises(CannotRun, match=r"\.apc-tools\.yaml"):
        validate([tmp_path], cwd=tmp_path)


def test_contract_is_sealed_and_deeply_immutable(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# A\n",
            ".apc/project.json": '{"name": "demo", "apc": "0.1.0", "apx_id": "0123456789ab",'
            ' "agents": {"imported": ["x"]}}',
            ".apc/agents/rev.md": (
                "---\nname: rev\nmodel: inherit\ndescription: d\nskills: a, b\n---\n"
            ),
        },
    )
    contract = load_contract(tmp_path)
    assert contract is not None
    assert contract.apx_id == "0123456789ab"
    assert contract.agent("rev") is not None and contract.agent("rev").skills == ("a", "b")
    with pytest.raises(dataclasses.FrozenInstanceError):
        contract.root = Path("/")  # type: ignore[misc]
    with pytest.raises(TypeError):
        contract.project.fields["name"] = "x"  # type: ignore[index,union-attr]
    with pytest.raises(TypeError):
        Contract(tmp_path, None, (), (), (), (), (), (), (), ())
    assert isinstance(freeze({"a": [1, {"b": 2}]})["a"], tuple)
    digest = hashlib.sha256((tmp_path / "AGENTS.md").read_bytes()).hexdigest()
    assert ("AGENTS.md", digest) in {(s.path, s.sha256) for s in contract.sources}
    assert contract.runtime_dir(Path("/home/u")) == Path("/home/u/.apx/projects/0123456789ab")
    assert contract.contains(tmp_path / "x" / "y") and not contract.contains(tmp_path.parent)


def test_no_contract_outside_a_project(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    assert load_contract(tmp_path / "x") is None


def test_whole_corpus_validates_without_exception(tmp_path: Path) -> None:
    needs_shared(CORPUS)
    work = tmp_path / "corpus"
    shutil.copytree(CORPUS, work, symlinks=True)
    result = validate([work], cwd=tmp_path)
    assert result.files > 200
    assert all(f.path.startswith("corpus/") for f in result.findings)


def test_policy_severity_strict_profile_and_exclude(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# A\n",
            "vendor/skills/v/SKILL.md": "---\nname: [\n---\n",
            ".cursor/rules/a.mdc": "---\ndescription: d: e\nglobs: **/*.ts\n---\nx\n",
            "a.ts": "x\n",
            ".apc-tools.yaml": (
                "version: 1\nstrict: true\nprofile: agentskills\nseverity:\n  YML005: info\n"
                "exclude: ['vendor/**']\n"
            ),
        },
    )
    result = validate([tmp_path], cwd=tmp_path)
    assert not [f for f in result.findings if f.path.startswith("vendor/")]
    lenient = [f for f in result.findings if f.rule == "YML005"]
    assert lenient and all(f.severity is Severity.INFO for f in lenient)
    assert result.strict and not result.failed()  # no warning left: info does not fail
    write_tree(tmp_path, {".apc-tools.yaml": "version: 1\nstrict: true\n"})
    assert validate([tmp_path], cwd=tmp_path).failed()  # the YML005 warning now fails


def test_policy_errors_name_the_line(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {"AGENTS.md": "# A\n", ".apc-tools.yaml": "version: 1\nseverity:\n  YML001: loud\n"},
    )
    with pytest.raises(CannotRun, match=r"line 3: .*severity"):
        validate([tmp_path], cwd=tmp_path)
