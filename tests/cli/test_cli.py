"""The command line as a user runs it: real processes, exit codes, formats, colour."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import CORPUS, REPO_ROOT, needs_shared, run_apc, write_tree


def apc(
    *args: str, cwd: Path = REPO_ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_apc(cwd, *args, env=env, no_color=False)


BAD_SKILL = "---\nname: [\n---\n"


def test_version() -> None:
    done = apc("--version")
    assert done.returncode == 0 and "apc" in done.stdout


def test_sample_repo_is_clean() -> None:
    done = apc("validate", "sample_repo")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(apc("validate", "sample_repo", "--format", "json").stdout)
    assert data["summary"]["error"] == 0 and data["summary"]["warning"] == 0
    assert data["summary"]["files"] >= 12


def test_this_repository_validates_clean_under_its_own_policy() -> None:
    done = apc("validate", ".", "--strict")
    assert done.returncode == 0, done.stdout + done.stderr


def test_errors_exit_1_and_name_file_line_col(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "# A\n", "skills/x/SKILL.md": BAD_SKILL})
    done = apc("validate", ".", "--no-color", cwd=tmp_path)
    assert done.returncode == 1
    assert "skills/x/SKILL.md:3:1" in done.stdout and "YML001" in done.stdout
    assert "Traceback" not in done.stderr


def test_warnings_fail_only_with_strict(tmp_path: Path) -> None:
    write_tree(
        tmp_path,
        {
            "AGENTS.md": "# A\n",
            ".cursor/rules/a.mdc": "---\ndescription: d: e\nglobs: **/*.ts\n---\nx\n",
            "a.ts": "x\n",
        },
    )
    assert apc("validate", ".", cwd=tmp_path).returncode == 0
    assert apc("validate", ".", "--strict", cwd=tmp_path).returncode == 1


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert apc("validate", "does-not-exist", cwd=tmp_path).returncode == 2
    assert apc("validate", "--format", "xml").returncode == 2
    write_tree(tmp_path, {"AGENTS.md": "# A\n", ".apc-tools.yaml": "version: 9\n"})
    done = apc("validate", ".", cwd=tmp_path)
    assert done.returncode == 2 and ".apc-tools.yaml" in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("fmt", ["json", "sarif", "github", "text"])
def test_every_format_renders(tmp_path: Path, fmt: str) -> None:
    write_tree(tmp_path, {"AGENTS.md": "# A\n", "skills/x/SKILL.md": BAD_SKILL})
    done = apc("validate", ".", "--format", fmt, cwd=tmp_path)
    assert done.returncode == 1 and done.stdout.strip()
    if fmt in ("json", "sarif"):
        json.loads(done.stdout)


def test_color_honours_no_color_and_force_color(tmp_path: Path) -> None:
    write_tree(tmp_path, {"AGENTS.md": "# A\n", "skills/x/SKILL.md": BAD_SKILL})
    forced = apc("validate", ".", cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert "\x1b[" in forced.stdout
    both = apc("validate", ".", cwd=tmp_path, env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert "\x1b[" not in both.stdout
    flag = apc("validate", ".", "--no-color", cwd=tmp_path, env={"FORCE_COLOR": "1"})
    assert "\x1b[" not in flag.stdout
    piped = apc("validate", ".", cwd=tmp_path)
    assert "\x1b[" not in piped.stdout


def test_rules_and_schema_commands() -> None:
    listing = apc("rules")
    assert listing.returncode == 0 and "YML005" in listing.stdout
    one = apc("rules", "yml005")
    assert one.returncode == 0 and "globs" in one.stdout
    assert apc("rules", "NOPE999").returncode == 2
    names = apc("schema").stdout.split()
    assert "project" in names
    assert json.loads(apc("schema", "project").stdout)["$schema"].endswith("2020-12/schema")
    assert apc("schema", "nope").returncode == 2


def test_whole_corpus_through_the_cli_without_traceback() -> None:
    needs_shared(CORPUS)
    done = apc("validate", str(CORPUS), "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    assert "Traceback" not in done.stderr
    data = json.loads(done.stdout)
    assert data["summary"]["files"] > 200
