"""`apc init`: a minimal valid contract, created exclusively; nothing existing is touched."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from apc_tools.contract.scaffold import EXTRA_IGNORES, SCHEMA_COPY, init_project
from apc_tools.contract.validate import validate
from apc_tools.core import gitignore
from apc_tools.core.schemas import load_schema, schema_errors
from apc_tools.findings import CannotRun
from apc_tools.report.init_text import render_init
from tests.cli.test_cli import apc
from tests.conftest import write_tree

NOW = datetime(2026, 5, 8, 12, 30, 0, tzinfo=UTC)
CREATED = (
    ".apc/",
    ".apc/project.json",
    ".apc/.gitignore",
    "AGENTS.md",
    ".apc-tools.yaml",
    ".apc-tools.schema.json",
)


def rules_of(root: Path) -> list[str]:
    return [f.rule for f in validate([root], cwd=root).findings]


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


def test_empty_folder_becomes_a_valid_project(tmp_path: Path) -> None:
    report = init_project(tmp_path, now=NOW)
    assert report.created == CREATED and report.left_alone == ()
    assert validate([tmp_path], cwd=tmp_path).findings == ()
    project = json.loads((tmp_path / ".apc/project.json").read_text(encoding="utf-8"))
    assert project == {
        "name": tmp_path.name,
        "apc": "0.1.0",
        "version": "0.1.0",
        "created": "2026-05-08T12:30:00Z",
    }
    assert schema_errors("project", project) == []


def test_apc_gitignore_covers_the_safe_defaults_and_the_private_extras(tmp_path: Path) -> None:
    init_project(tmp_path, now=NOW)
    text = (tmp_path / ".apc/.gitignore").read_text(encoding="utf-8")
    assert gitignore.missing_defaults(text) == []
    lines = text.splitlines()
    assert all(extra in lines for extra in EXTRA_IGNORES)
    patterns = [p for p in map(gitignore.parse_line, lines) if p is not None]
    for path in ("agents/dev/auto-memory.md", "plans/scratch/idea.md", "migrate.md"):
        assert gitignore.is_ignored(patterns, path), path


def modeline_schema(policy: Path) -> Path:
    """The schema the YAML language server loads for ``policy``: the first header comment's
    ``$schema=`` value, a path that is neither ``file:`` nor ``http...`` resolved against the
    file's folder (yaml-language-server: modelineUtil.ts getSchemaFromModeline and
    yamlSchemaService.ts resolveSchemaRef)."""
    first = policy.read_text(encoding="utf-8").splitlines()[0]
    found = re.match(r"^#\s+yaml-language-server\s*:.*?\$schema(?:=|:[^\S\r\n]*)(\S+)", first)
    assert found, first
    ref = found.group(1)
    assert not ref.startswith(("file:", "http")), ref  # no network, no one machine's path
    return policy.parent / ref


def test_policy_file_names_a_schema_that_resolves_on_disk(tmp_path: Path) -> None:
    init_project(tmp_path, now=NOW)
    policy = tmp_path / ".apc-tools.yaml"
    schema_path = modeline_schema(policy)
    assert schema_path == tmp_path / SCHEMA_COPY and schema_path.is_file()
    schema = json.loads(schema_path.read_text(encoding="utf-8"))
    assert schema == load_schema("policy")  # the installed apc-tools' schema, exactly
    validator = Draft202012Validator(schema)
    assert list(validator.iter_errors(YAML(typ="safe").load(policy.read_text("utf-8")))) == []
    assert list(validator.iter_errors({"version": 2, "nope": 1}))  # a working schema
    assert validate([tmp_path], cwd=tmp_path).findings == ()


def test_the_schema_copy_follows_the_installed_version(tmp_path: Path) -> None:
    init_project(tmp_path, now=NOW)
    copy = tmp_path / SCHEMA_COPY
    old = load_schema("policy")
    old["x-apc-schema-version"] = "0.9.0"
    old["$id"] = old["$id"].replace("/v1/", "/v0/")
    copy.write_text(json.dumps(old), encoding="utf-8")
    policy_before = (tmp_path / ".apc-tools.yaml").read_bytes()
    report = init_project(tmp_path, now=NOW)
    assert report.updated == (SCHEMA_COPY,) and report.created == ()
    assert json.loads(copy.read_text(encoding="utf-8")) == load_schema("policy")
    assert (tmp_path / ".apc-tools.yaml").read_bytes() == policy_before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [".apc", ".apc-tools.yaml", SCHEMA_COPY, "AGENTS.md"]
    )  # no temporary file left behind
    assert "updated      .apc-tools.schema.json" in render_init(report)


@pytest.mark.parametrize("text", ['{"$id": "https://example.com/mine.json"}', "not json", ""])
def test_a_file_of_the_users_own_at_the_schema_name_is_kept(tmp_path: Path, text: str) -> None:
    (tmp_path / SCHEMA_COPY).write_text(text, encoding="utf-8")
    report = init_project(tmp_path, now=NOW)
    assert (SCHEMA_COPY, "exists") in report.left_alone and report.updated == ()
    assert (tmp_path / SCHEMA_COPY).read_text(encoding="utf-8") == text


def test_a_symlinked_schema_copy_is_not_refreshed(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside.json"
    stale = {**load_schema("policy"), "x-apc-schema-version": "0.9.0"}
    outside.write_text(json.dumps(stale), encoding="utf-8")
    (root / SCHEMA_COPY).symlink_to(outside)
    report = init_project(root, now=NOW)
    assert (SCHEMA_COPY, "a symlink, not followed") in report.left_alone
    assert json.loads(outside.read_text(encoding="utf-8")) == stale


def test_rerun_leaves_everything_alone(tmp_path: Path) -> None:
    init_project(tmp_path, now=NOW)
    before = snapshot(tmp_path)
    report = init_project(tmp_path, now=datetime(2030, 1, 1, tzinfo=UTC))
    assert report.created == ()
    assert [rel for rel, _ in report.left_alone] == list(CREATED[1:])
    assert {why for _, why in report.left_alone} == {"exists"}
    assert report.updated == ()  # the schema copy is the installed one already
    assert snapshot(tmp_path) == before


def test_existing_agents_md_is_kept_byte_for_byte(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "# Mine\r\n\r\nKeep me.\r\n"})
    assert rules_of(tmp_path) == ["AGM006"]  # "run `apc init` to adopt APC"
    report = init_project(tmp_path, now=NOW)
    assert ("AGENTS.md", "exists") in report.left_alone
    assert (tmp_path / "AGENTS.md").read_bytes() == b"# Mine\r\n\r\nKeep me.\r\n"
    assert rules_of(tmp_path) == []  # the message's advice was true


def test_apc_folder_without_project_json_is_completed(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# A\n\nRead the code.\n",
            ".apc/agents/dev.md": "---\nname: dev\nmodel: inherit\ndescription: Dev\n---\nBody\n",
        },
    )
    assert "PRJ008" in rules_of(tmp_path)  # "... (or run `apc init`)"
    report = init_project(tmp_path, now=NOW)
    assert ".apc/project.json" in report.created and ".apc/" not in report.created
    assert rules_of(tmp_path) == []


@pytest.mark.parametrize("name", ["AGENTS.md", ".apc-tools.yaml"])
def test_symlinks_are_never_followed(tmp_path: Path, name: str) -> None:
    root = tmp_path / "project"
    root.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n", encoding="utf-8")
    (root / name).symlink_to(outside)
    report = init_project(root, now=NOW)
    assert (name, "a symlink, not followed") in report.left_alone
    assert outside.read_text(encoding="utf-8") == "precious\n"
    assert (root / name).is_symlink()


def test_dangling_symlink_is_not_written_through(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    target = tmp_path / "would-be-created.md"
    (root / "AGENTS.md").symlink_to(target)
    report = init_project(root, now=NOW)
    assert ("AGENTS.md", "a symlink, not followed") in report.left_alone
    assert not target.exists()


def test_symlinked_apc_folder_is_not_entered(tmp_path: Path) -> None:
    root = tmp_path / "project"
    elsewhere = tmp_path / "elsewhere"
    root.mkdir()
    elsewhere.mkdir()
    (root / ".apc").symlink_to(elsewhere, target_is_directory=True)
    report = init_project(root, now=NOW)
    assert list(elsewhere.iterdir()) == []
    assert (".apc", "a symlink or a file, not followed") in report.left_alone
    assert ".apc/project.json" in {rel for rel, _ in report.left_alone}
    assert "AGENTS.md" in report.created


def test_missing_folder_is_made_and_a_file_is_refused(tmp_path: Path) -> None:
    report = init_project(tmp_path / "a" / "new", now=NOW)
    assert "AGENTS.md" in report.created
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(CannotRun, match="not a folder"):
        init_project(tmp_path / "file", now=NOW)


def test_migration_candidates_are_listed(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "CLAUDE.md": "# c\n",
            ".cursor/rules/a.mdc": "---\ndescription: d\n---\nx\n",
            ".github/copilot-instructions.md": "x\n",
            "opencode.json": "{}\n",
        },
    )
    (tmp_path / ".clinerules").mkdir()  # Cline also accepts a folder
    found = [rel for rel, _ in init_project(tmp_path, now=NOW).migrations]
    assert found == [
        "CLAUDE.md",
        ".cursor/rules",
        ".github/copilot-instructions.md",
        ".clinerules",
        "opencode.json",
    ]


def test_root_gitignore_lines_only_for_tools_found_and_not_yet_covered(tmp_path: Path) -> None:
    assert init_project(tmp_path / "bare", now=NOW).gitignore_lines == ()
    write_tree(
        tmp_path / "p",
        {
            ".claude/agents/x.md": "x\n",
            ".specstory/history/a.md": "x\n",
            ".aider.chat.history.md": "x\n",
            ".gitignore": "/CLAUDE.local.md\n",
        },
    )
    before = (tmp_path / "p/.gitignore").read_bytes()
    lines = init_project(tmp_path / "p", now=NOW).gitignore_lines
    assert lines == (
        (".aider*", "Aider"),
        (".claude/settings.local.json", "Claude Code"),
        (".specstory/history/", "SpecStory"),
    )
    assert (tmp_path / "p/.gitignore").read_bytes() == before


def test_cli_reports_and_exits(tmp_path: Path, git_repo: Callable[..., Path]) -> None:
    repo = git_repo({"CLAUDE.md": "# c\n", "AGENTS.md": "# mine\n"})
    done = apc("init", cwd=repo)
    assert done.returncode == 0, done.stderr
    assert "created      .apc/project.json" in done.stdout
    assert "left alone   AGENTS.md (exists)" in done.stdout
    assert "CLAUDE.md: Claude Code instructions" in done.stdout
    assert "CLAUDE.local.md" in done.stdout and "# Claude Code" in done.stdout
    assert apc("validate", "--strict", cwd=repo).returncode == 0
    (tmp_path / "f").write_text("x", encoding="utf-8")
    refused = apc("init", str(tmp_path / "f"))
    assert refused.returncode == 2 and refused.stderr.startswith("apc: error: ")
    assert "Traceback" not in refused.stderr
    assert os.path.isdir(repo / ".apc")


def test_from_a_subfolder_init_creates_at_the_repository_top_level(
    git_repo: Callable[..., Path],
) -> None:
    repo = git_repo({"src/app/main.py": "print()\n"})
    sub = repo / "src" / "app"
    done = apc("init", cwd=sub)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"apc init: in {repo} (the top level of this git repository)")
    assert (repo / ".apc-tools.yaml").is_file() and (repo / ".apc" / "project.json").is_file()
    assert not (sub / ".apc").exists() and not (sub / "AGENTS.md").exists()
    assert "Note:" not in done.stdout
    assert apc("check", "--no-color", cwd=sub).returncode == 0


def test_an_explicit_path_below_the_top_level_is_honoured_with_a_note(
    git_repo: Callable[..., Path],
) -> None:
    repo = git_repo({"pkg/readme.txt": "x\n"})
    done = apc("init", ".", cwd=repo / "pkg")
    assert done.returncode == 0, done.stderr
    assert (repo / "pkg" / ".apc-tools.yaml").is_file() and not (repo / ".apc").exists()
    assert f"Note: {repo / 'pkg'} is below the top level of the git repository {repo}:" in (
        done.stdout
    )
    at_top = apc("init", str(repo), cwd=repo / "pkg")
    assert "Note:" not in at_top.stdout and (repo / ".apc-tools.yaml").is_file()


def test_outside_git_init_creates_in_the_current_folder(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    done = apc("init", cwd=folder, env={"GIT_CEILING_DIRECTORIES": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert not done.stdout.startswith("apc init: in") and "Note:" not in done.stdout
    assert (folder / ".apc-tools.yaml").is_file() and (folder / SCHEMA_COPY).is_file()


def test_init_and_the_docs_name_the_same_skill_paths() -> None:
    """The skill folders `apc init` tells users to copy into are what validate reads as skills
    and what docs/schemas.md names (issue 17: they named different paths)."""
    from apc_tools.contract.project import classify
    from apc_tools.contract.scaffold import MIGRATIONS
    from tests.conftest import REPO_ROOT

    schemas_doc = (REPO_ROOT / "docs" / "schemas.md").read_text(encoding="utf-8")
    targets = set(re.findall(r"\.apc/skills/<name>/?\S*", " ".join(h for _, h in MIGRATIONS)))
    assert targets == {".apc/skills/<name>/"}
    assert classify(".apc/skills/pdf/SKILL.md") == "skill"
    assert classify(".apc/skills/pdf.md") == "skill-flat"
    assert (
        "`.apc/skills/<name>/SKILL.md`" in schemas_doc and "`.apc/skills/<name>.md`" in schemas_doc
    )
