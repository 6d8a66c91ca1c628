"""The docs' command synopses offer what the commands accept (issue 17: `apc repair --help`
offered `--format gitlab`, which docs/repair.md did not list)."""

from __future__ import annotations

import re

import click
import pytest

from apc_tools.cli import main
from tests.conftest import REPO_ROOT


def choices(command: str, option: str) -> list[str]:
    cmd = main.commands[command]
    [param] = [p for p in cmd.params if option in getattr(p, "opts", ())]
    assert isinstance(param.type, click.Choice)
    return list(param.type.choices)


def synopsis_choices(doc: str, option: str) -> list[list[str]]:
    """Every ``OPTION a|b|c`` list in the fenced synopses of ``doc``."""
    text = (REPO_ROOT / "docs" / doc).read_text(encoding="utf-8")
    blocks = re.findall(r"^```\n(.*?)^```", text, re.S | re.M)
    found = [m.split("|") for b in blocks for m in re.findall(rf"{option} ([\w|-]+)\]", b)]
    assert found, f"no {option} synopsis in docs/{doc}"
    return found


@pytest.mark.parametrize(
    ("doc", "command", "option"),
    [
        ("repair.md", "repair", "--format"),
        ("repair.md", "repair", "--wire"),
        ("boundary.md", "boundary", "--format"),
    ],
)
def test_synopsis_lists_every_choice(doc: str, command: str, option: str) -> None:
    for listed in synopsis_choices(doc, option):
        assert listed == choices(command, option)


def test_readme_lists_every_output_format() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    [listed] = re.findall(r"`--format ([\w|]+)`", readme)
    for command in ("check", "validate", "boundary", "repair"):
        assert listed.split("|") == choices(command, "--format")
