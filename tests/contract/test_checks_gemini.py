"""Gemini CLI extensions and custom commands (contract/gemini_files.py, checks/gemini.py): which
files are whose, and what each check says on real files. The verdicts themselves are held by the
conformance suite (tests/conformance, trees gemini-ext and gemini-cmd-*)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from apc_tools.contract.checks.gemini import command_name
from apc_tools.contract.project import kinds_of
from apc_tools.contract.validate import validate
from tests.conftest import run_apc, write_tree


def _reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return lambda rel: files.get(rel)


def test_an_extension_gives_its_commands_and_named_context_files() -> None:
    files = {
        "ext/gemini-extension.json": json.dumps(
            {"name": "e", "version": "1", "contextFileName": ["CTX.md", "../OUT.md"]}
        ),
        "ext/CTX.md": "x",
        "ext/GEMINI.md": "x",
        "ext/commands/a/b.toml": "x",
        "OUT.md": "x",
        "other/commands/c.toml": "x",  # no manifest above it: nothing
        ".gemini/commands/d.toml": "x",
    }
    kinds = kinds_of(files, _reader(files))
    assert kinds["ext/commands/a/b.toml"] == "gemini-command"
    assert kinds[".gemini/commands/d.toml"] == "gemini-command"
    assert kinds["ext/CTX.md"] == "gemini-md"
    assert kinds["ext/gemini-extension.json"] == "gemini-extension"
    assert "OUT.md" not in kinds  # Gemini CLI refuses a name with '..'
    assert "other/commands/c.toml" not in kinds


@pytest.mark.parametrize(
    ("value", "loaded"),
    [("A.md", {"A.md"}), (["A.md", "B.md"], {"A.md", "B.md"}), ("", set()), ([], set())],
)
def test_context_file_name_string_or_list(value: object, loaded: set[str]) -> None:
    files = {
        "gemini-extension.json": json.dumps(
            {"name": "e", "version": "1", "contextFileName": value}
        ),
        "A.md": "x",
        "B.md": "x",
    }
    kinds = kinds_of(files, _reader(files))
    assert {rel for rel, kind in kinds.items() if kind == "gemini-md"} == loaded


def test_settings_context_file_name_names_context_files_below_its_folder() -> None:
    files = {
        "app/.gemini/settings.json": json.dumps({"context": {"fileName": ["AGENTS.md", "CTX.md"]}}),
        "app/CTX.md": "x",
        "app/sub/CTX.md": "x",
        "app/AGENTS.md": "x",
        "CTX.md": "x",  # above the settings' folder
        "broken/.gemini/settings.json": "{not json",
        "broken/CTX.md": "x",
    }
    kinds = kinds_of(files, _reader(files))
    assert kinds["app/CTX.md"] == kinds["app/sub/CTX.md"] == "gemini-md"
    assert kinds["app/AGENTS.md"] == "agents-md"  # keeps its own kind
    assert "CTX.md" not in kinds and "broken/CTX.md" not in kinds


def test_command_names_as_gemini_makes_them() -> None:
    assert command_name("git/commit.toml") == "git:commit"
    assert command_name("a b.toml") == "a_b"
    assert command_name("x" * 60 + ".toml") == "x" * 47 + "..."


def test_bad_command_files_are_findings_with_positions(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            ".gemini/commands/open.toml": 'description = "x\nprompt = "y"\n',
            ".gemini/commands/dup.toml": 'prompt = "x"\nprompt = "y"\n',
            ".gemini/commands/list.toml": 'description = "d"\nprompt = ["a", "b"]\n',
            ".gemini/commands/latin.toml": b'prompt = "\xff"\n',
            ".gemini/commands/good.toml": '  prompt = """\nReview {{args}}\n"""\n',
        },
    )
    found = {(f.path, f.rule, f.line, f.column) for f in validate([], cwd=root).findings}
    assert (".gemini/commands/open.toml", "GCM001", 1, 17) in found
    assert (".gemini/commands/dup.toml", "GCM001", 2, 13) in found
    assert (".gemini/commands/list.toml", "GCM001", 2, 1) in found
    assert (".gemini/commands/latin.toml", "IO002", 1, 11) in found
    assert not [f for f in found if f[0] == ".gemini/commands/good.toml"]


def test_manifest_findings_name_the_key(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "gemini-extension.json": json.dumps(
                {
                    "name": "my_ext",
                    "version": 1,
                    "contextFileName": ["CTX.md", 3],
                    "excludeTools": "web_fetch",
                    "contextFilename": "x",
                }
            ),
        },
    )
    found = validate([], cwd=root).findings
    messages = {(f.rule, f.severity.value): f.message for f in found}
    assert "$.name" in messages[("GEX001", "error")]
    assert "$.excludeTools" in messages[("GEX003", "error")]
    gex002 = sorted(f.message for f in found if f.rule == "GEX002")
    assert gex002[0].startswith("$.contextFileName[0]: 'CTX.md' names no file")
    assert gex002[1].startswith("$.contextFileName[1]: 3 is not a non-empty string")
    assert ("GEX004", "warning") in messages  # version a number: loaded
    assert ("GEX004", "info") in messages  # the misspelt key


def test_the_cli_reports_a_bad_command_without_a_traceback(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            ".gemini/commands/bad.toml": "= = =\n",
            ".gemini/commands/deep.toml": 'prompt = "x"\na = ' + "[" * 100_000 + "\n",
        },
    )
    done = run_apc(root, "validate", root)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "bad.toml:1:1: error GCM001" in done.stdout
    assert "deep.toml:1:1: error GCM001 values nested too deeply" in done.stdout


def test_kind_deciding_files_nested_past_the_parser_name_nothing(tmp_path: Path) -> None:
    """A manifest, settings or marketplace file nested 200,000 deep is a finding on its own
    kind (or nothing), never a traceback of the discovery that reads it."""
    deep = "[" * 200_000 + "]" * 200_000
    root = write_tree(
        tmp_path,
        {
            "gemini-extension.json": deep,
            ".gemini/settings.json": deep,
            ".claude-plugin/marketplace.json": '{"plugins": ' + deep + "}",
        },
    )
    done = run_apc(root, "validate", root)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "gemini-extension.json: error JSN001" in done.stdout
