"""The editor set-ups of README.md and docs/editors.md: three lines or fewer each, the same in
both, and the server command they configure is a real one: the Helix TOML parsed, the Neovim
`cmd` read, and that command started and initialized by a real LSP client (pygls's)."""

from __future__ import annotations

import asyncio
import re
import shutil
import tomllib
from pathlib import Path

from lsprotocol import types as t
from pygls.lsp.client import LanguageClient

from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
EDITORS = (REPO_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")


def blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, re.S | re.M)


def section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n#", start + len(heading))
    return text[start : end if end > 0 else len(text)]


def test_each_set_up_is_three_lines_or_fewer_and_the_same_in_both() -> None:
    mine = section(README, "## In your editor")
    for language in ("lua", "toml"):
        (readme,) = blocks(mine, language)
        (docs,) = blocks(EDITORS, language)
        assert len(readme.splitlines()) <= 3 and len(docs.splitlines()) <= 3
        assert set(readme.splitlines()) <= set(docs.splitlines())
    (vscode,) = blocks(section(EDITORS, "## VS Code"), "sh")
    assert len(vscode.splitlines()) <= 3
    assert "npm ci" in vscode and "vsce package" in vscode  # what tests/lsp/test_vscode.py runs


def helix_command() -> list[str]:
    (snippet,) = blocks(EDITORS, "toml")
    config = tomllib.loads(snippet)
    server = config["language-server"]["apc"]
    markdown, json = config["language"]
    assert markdown["name"] == "markdown" and "apc" in markdown["language-servers"]
    assert "mdc" in markdown["file-types"]
    assert json["name"] == "json" and "apc" in json["language-servers"]
    return [server["command"], *server["args"]]


def neovim_command() -> list[str]:
    (snippet,) = blocks(EDITORS, "lua")
    found = re.search(r"cmd = \{ ([^}]*) \}", snippet)
    assert found is not None and 'vim.lsp.enable("apc")' in snippet
    return re.findall(r'"([^"]+)"', found.group(1))


async def initialize(command: list[str], folder: Path) -> str:
    client = LanguageClient("editor-doc", "1")
    await client.start_io(*command, cwd=str(folder))
    result = await asyncio.wait_for(
        client.initialize_async(
            t.InitializeParams(capabilities=t.ClientCapabilities(), root_uri=folder.as_uri())
        ),
        60,
    )
    client.initialized(t.InitializedParams())
    await asyncio.wait_for(client.shutdown_async(None), 60)
    client.exit(None)
    await asyncio.wait_for(client.stop(), 60)
    assert result.server_info is not None
    return result.server_info.name


def test_the_configured_command_starts_the_server(tmp_path: Path) -> None:
    """The command both editors are told to run (`apc lsp`, the console script installed with
    the package) answers initialize and shuts down."""
    assert helix_command() == neovim_command() == ["apc", "lsp"]
    apc = shutil.which("apc")
    assert apc is not None, "the apc console script is installed with the package"
    assert asyncio.run(initialize([apc, "lsp"], tmp_path)) == "apc"
