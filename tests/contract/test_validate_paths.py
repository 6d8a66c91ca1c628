"""Issue 7, items 1-3: `apc validate` gives the same findings whatever folder it runs from and
whatever path it is given; nothing recognised is said; unknown files in a list are skipped."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from apc_tools.contract.validate import run_validate, validate
from apc_tools.findings import CannotRun, Result, Severity
from tests.cli.test_cli import apc

TREE = {
    "AGENTS.md": "# A\n\nSee [x](docs/missing.md).\n",
    "README.md": "readme\n",
    "docs/guide.md": "# Guide\n",
    ".apc/project.json": '{"name": "d", "apc": "0.1.0", "version": "1", "created": "2026-01-01"}',
    ".apc/skills/.gitkeep": "",
    # a cross-file rule: the skill the agent names does not exist in the project
    ".apc/agents/rev.md": "---\nname: rev\nmodel: inherit\ndescription: R.\nskills: [nope]\n---\n",
    "skills/x/SKILL.md": "---\nname: other\n---\n",  # no description: Codex skips it
    ".claude/agents/bad.md": "---\nname: [\n---\n",
    ".cursor/rules/r.mdc": "---\nglobs: [\n---\n",
}

Key = tuple[str, str, int | None]


def keys(result: Result, cwd: Path) -> set[Key]:
    """Findings as (absolute path, rule, line): comparable across working folders."""
    return {(os.path.normpath(cwd / f.path), f.rule, f.line) for f in result.findings}


def under(found: set[Key], target: Path) -> set[Key]:
    return {k for k in found if k[0] == str(target) or k[0].startswith(str(target) + os.sep)}


@pytest.fixture
def repo(git_repo: Callable[..., Path]) -> Path:
    return git_repo(TREE)


def test_root_run_sees_every_problem(repo: Path) -> None:
    found = {
        (Path(p).relative_to(repo).as_posix(), rule)
        for p, rule, _ in keys(validate([], cwd=repo), repo)
    }
    assert {
        (".apc/agents/rev.md", "AGT006"),
        ("skills/x/SKILL.md", "SKL002"),
        ("skills/x/SKILL.md", "SKL004"),
        (".claude/agents/bad.md", "YML001"),
        (".cursor/rules/r.mdc", "YML001"),
        ("AGENTS.md", "AGM003"),
    } <= found


def test_file_argument_from_its_subfolder(repo: Path) -> None:
    whole = keys(validate([], cwd=repo), repo)
    here = repo / "skills" / "x"
    result = validate([Path("SKILL.md")], cwd=here)
    assert keys(result, here) == under(whole, here / "SKILL.md") != set()
    assert {f.path for f in result.findings} == {"SKILL.md"}


@pytest.mark.parametrize(
    "folder", [".apc", ".apc/agents", ".claude/agents", ".cursor/rules", "skills/x", "skills"]
)
def test_folder_arguments_keep_the_project_context(repo: Path, folder: str) -> None:
    whole = keys(validate([], cwd=repo), repo)
    from_root = keys(validate([repo / folder], cwd=repo), repo)
    inside = keys(validate([Path(".")], cwd=repo / folder), repo / folder)
    assert from_root == inside == under(whole, repo / folder) != set()


@pytest.mark.parametrize("folder", [".apc/agents", "docs", "skills/x"])
def test_bare_run_in_a_subfolder_checks_the_whole_project(repo: Path, folder: str) -> None:
    whole = keys(validate([], cwd=repo), repo)
    assert keys(validate([], cwd=repo / folder), repo / folder) == whole


def test_bare_run_in_a_subfolder_through_the_cli(repo: Path) -> None:
    """The library's paths are relative to its cwd; the command reports them relative to the
    repository root in every format (APC-NOTES section 5), as `apc boundary` and `apc check`."""
    here = repo / "skills" / "x"
    done = apc("validate", "--format", "json", cwd=here)
    assert done.returncode == 1, done.stderr
    paths = {f["path"] for f in json.loads(done.stdout)["findings"]}
    from_root = apc("validate", "--format", "json", cwd=repo)
    assert paths == {f["path"] for f in json.loads(from_root.stdout)["findings"]}
    assert "skills/x/SKILL.md" in paths and "AGENTS.md" in paths
    assert not any(p.startswith("..") for p in paths)
    one = apc("validate", "SKILL.md", cwd=here)
    assert one.returncode == 1 and one.stdout.startswith("skills/x/SKILL.md:2:1: error SKL002")
    sarif = json.loads(apc("validate", "--format", "sarif", cwd=here).stdout)
    uris = {
        loc["physicalLocation"]["artifactLocation"]["uri"]
        for run in sarif["runs"]
        for res in run["results"]
        for loc in res["locations"]
    }
    assert "AGENTS.md" in uris and "skills/x/SKILL.md" in uris
    assert not any(u.startswith("..") for u in uris)
    gitlab = json.loads(apc("validate", "--format", "gitlab", cwd=here).stdout)
    assert {i["location"]["path"] for i in gitlab} == paths
    github = apc("validate", "--format", "github", cwd=here).stdout
    assert "file=AGENTS.md," in github and "file=../" not in github
    listed = apc("validate", "--list-files", "SKILL.md", cwd=here).stdout.splitlines()
    assert "skills/x/SKILL.md: skill" in listed


def test_git_ignored_file_named_explicitly_is_validated(repo: Path) -> None:
    (repo / ".gitignore").write_text("local/\n")
    (repo / "local/skills/y").mkdir(parents=True)
    (repo / "local/skills/y/SKILL.md").write_text("---\nname: [\n---\n")
    assert not any("local/" in f.path for f in validate([repo], cwd=repo).findings)
    result = validate([repo / "local/skills/y/SKILL.md"], cwd=repo)
    assert [(f.rule, f.path) for f in result.findings] == [("YML001", "local/skills/y/SKILL.md")]


def test_pre_commit_file_list_skips_and_counts_unknown_files(repo: Path) -> None:
    names = ["README.md", ".apc/skills/.gitkeep", "docs/guide.md", "skills/x/SKILL.md"]
    outcome = run_validate([repo / n for n in names], cwd=repo)
    assert outcome.skipped == ("README.md", ".apc/skills/.gitkeep", "docs/guide.md")
    assert outcome.result.summary.skipped == 3 and outcome.result.files == 1
    assert {f.rule for f in outcome.result.findings} == {"SKL002", "SKL004"}
    done = apc("validate", *names, cwd=repo)
    assert done.returncode == 1, done.stderr
    assert done.stdout.splitlines()[-1].endswith("in 1 file (3 other files skipped)")


def test_only_a_missing_path_cannot_run(repo: Path) -> None:
    with pytest.raises(CannotRun, match=r"nope\.md: no such file"):
        validate([repo / "README.md", repo / "nope.md"], cwd=repo)
    assert apc("validate", "README.md", "nope.md", cwd=repo).returncode == 2


@pytest.mark.parametrize("what", ["folder", "file"])
def test_nothing_recognised_is_said(tmp_path: Path, what: str) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "main.py").write_text("print(1)\n")
    target = tmp_path / "src" if what == "folder" else tmp_path / "src" / "main.py"
    result = validate([target], cwd=tmp_path)
    assert [(f.rule, f.severity) for f in result.findings] == [("DSC001", Severity.INFO)]
    assert "AGENTS.md" in result.findings[0].message and result.files == 0
    done = apc("validate", str(target), cwd=tmp_path)
    assert done.returncode == 0 and "no problems found" not in done.stdout


def test_nothing_recognised_from_a_subfolder_names_no_relative_path(
    git_repo: Callable[..., Path],
) -> None:
    """Issue 17: from a subfolder the note read "found in .." while its path said "a"."""
    repo = git_repo({"a/b/main.py": "print(1)\n"})
    sub = repo / "a" / "b"
    cases = {
        (): ".: info DSC001 no agent-context files found in the project around the current folder",
        ("..",): "a: info DSC001 no agent-context files found in this folder",
        (".", "../.."): "a/b: info DSC001 no agent-context files found in the 2 paths given",
        ("main.py",): "a/b/main.py: info DSC001 not an agent-context file",
    }
    for args, first in cases.items():
        done = apc("validate", "--no-color", *args, cwd=sub)
        assert done.returncode == 0, done.stderr
        line = done.stdout.splitlines()[0]
        assert line.startswith(first + "; apc looks for AGENTS.md"), (args, line)
        assert " in .." not in line and " in ." not in line


def test_list_files_shows_what_each_file_was_recognised_as(repo: Path) -> None:
    done = apc("validate", "--list-files", ".apc", "README.md", cwd=repo)
    lines = done.stdout.splitlines()
    assert ".apc/agents/rev.md: agent" in lines
    assert ".apc/project.json: project" in lines
    assert "README.md: skipped (not an agent-context file)" in lines


def test_every_kind_is_documented() -> None:
    from apc_tools.contract.project import KINDS

    doc = (Path(__file__).resolve().parents[2] / "docs" / "validate.md").read_text()
    assert [k for k in KINDS if f"| `{k}` |" not in doc] == []


def test_classify_gives_only_documented_kinds() -> None:
    from apc_tools.contract.project import KINDS, kinds_of

    cases = Path(__file__).resolve().parents[1] / "cases"
    rels = [p.relative_to(cases).as_posix() for p in cases.rglob("*") if p.is_file()]
    assert set(kinds_of(rels).values()) <= set(KINDS)
