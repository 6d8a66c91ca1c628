"""The VS Code extension (editors/vscode/) builds with the real toolchain: `npm ci` installs its
one dependency (vscode-languageclient, pinned by package-lock.json), `vsce package` (run with
npx, pinned) makes the .vsix, whose manifest starts `apc lsp` and offers the published JSON
Schemas for `.apc/*.json` and the policy. Skipped where npm is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXTENSION = ROOT / "editors" / "vscode"
VSCE = "@vscode/vsce@3.9.2"


def test_the_extension_packages_and_points_at_the_schemas(tmp_path: Path) -> None:
    npm, npx = shutil.which("npm"), shutil.which("npx")
    if npm is None or npx is None:
        pytest.skip("npm is not installed: the extension is not built here")
    # the extension's folder as it is in the repository, with the schemas and licence beside
    work = tmp_path / "editors" / "vscode"
    shutil.copytree(EXTENSION, work, ignore=shutil.ignore_patterns("node_modules", "*.vsix"))
    shutil.copytree(ROOT / "schemas", tmp_path / "schemas")
    shutil.copyfile(ROOT / "LICENSE", tmp_path / "LICENSE")
    quiet = {"capture_output": True, "text": True, "timeout": 300, "check": False}
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=work, **quiet)  # type: ignore[call-overload]
    assert done.returncode == 0, done.stderr
    out = tmp_path / "apc-tools.vsix"
    done = subprocess.run([npx, "--yes", VSCE, "package", "--out", str(out)], cwd=work, **quiet)  # type: ignore[call-overload]
    assert done.returncode == 0, done.stdout + done.stderr
    with zipfile.ZipFile(out) as vsix:
        names = set(vsix.namelist())
        manifest = json.loads(vsix.read("extension/package.json"))
        source = vsix.read("extension/extension.js").decode()
        schemas = {n: vsix.read(n) for n in names if n.startswith("extension/schemas/")}
    assert "extension/node_modules/vscode-languageclient/package.json" in names
    assert 'args: ["lsp"]' in source and manifest["main"] == "./extension.js"
    assert manifest["contributes"]["configuration"]["properties"]["apc.path"]["default"] == "apc"
    offered = manifest["contributes"]["jsonValidation"] + manifest["contributes"]["yamlValidation"]
    assert {v["fileMatch"] for v in offered} >= {"**/.apc/project.json", "**/.apc/mcps.json"}
    for validation in offered:  # each one the published schema, byte for byte
        shipped = "extension/" + validation["url"].removeprefix("./")
        name = shipped.rsplit("/", 1)[1]
        assert schemas[shipped] == (ROOT / "schemas" / name).read_bytes()
