"""The Helix and Zed set-ups, held to what each editor's own source reads, since neither editor
can run here (no package of Helix or Zed in PyPI, npm or Debian bookworm; a Zed extension is
Rust built for wasm32-wasip2, and there is no such target nor crates.io here):

- Helix: the ```toml block of docs/editors.md, merged into Helix's built-in languages.toml (an
  excerpt, tests/lsp/helix/languages.toml) as Helix merges a user's file
  (helix-loader/src/lib.rs, ``merge_toml_values(default, user, 3)``), gives languages whose
  keys are all fields of Helix's ``LanguageConfiguration`` (helix-core/src/syntax/config.rs:
  ``deny_unknown_fields``), names only servers it defines (``apc`` = ``apc lsp``), opens
  AGENTS.md, Cursor's ``.mdc`` rules and ``.apc/project.json`` with apc, and sends the language
  ids ``markdown`` and ``json`` (Helix sends ``language-id``, else the language's name).
- Zed: editors/zed/extension.toml has the fields of Zed's ``ExtensionManifest`` and declares the
  ``apc`` server for Zed's own language names (crates/languages/src/{markdown,json}/config.toml:
  ``Markdown``, ``JSON``); src/lib.rs starts ``apc lsp``. Not compiled here.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from tests.conftest import REPO_ROOT

EDITORS = (REPO_ROOT / "docs" / "editors.md").read_text(encoding="utf-8")
HELIX_DEFAULTS = Path(__file__).with_name("helix") / "languages.toml"
ZED = REPO_ROOT / "editors" / "zed"
# helix-core/src/syntax/config.rs at 079a789e: the serde (kebab-case) names of
# LanguageConfiguration and LanguageServerConfiguration
HELIX_LANGUAGE_KEYS = frozenset(
    [
        "name",
        "language-id",
        "scope",
        "file-types",
        "shebangs",
        "roots",
        "comment-token",
        "comment-tokens",
        "block-comment-tokens",
        "text-width",
        "soft-wrap",
        "auto-format",
        "code-actions-on-save",
        "formatter",
        "path-completion",
        "word-completion",
        "diagnostic-severity",
        "grammar",
        "injection-regex",
        "language-servers",
        "indent",
        "debugger",
        "auto-pairs",
        "rulers",
        "workspace-lsp-roots",
        "persistent-diagnostic-sources",
        "rainbow-brackets",
    ]
)
HELIX_SERVER_KEYS = frozenset(
    ["command", "args", "environment", "config", "timeout", "required-root-patterns"]
)


def merge(left: Any, right: Any, depth: int) -> Any:
    """helix-loader's merge_toml_values: arrays of named tables merged by name, tables key by
    key, to ``depth`` levels; below that the user's value replaces the default."""
    if isinstance(left, list) and isinstance(right, list):
        if depth == 0:
            return right
        out = list(left)
        for item in right:
            name = item.get("name") if isinstance(item, dict) else None
            at = next(
                (
                    i
                    for i, v in enumerate(out)
                    if isinstance(v, dict) and name and v.get("name") == name
                ),
                None,
            )
            out.append(merge(out.pop(at), item, depth - 1) if at is not None else item)
        return out
    if isinstance(left, dict) and isinstance(right, dict):
        if depth == 0:
            return right
        merged = dict(left)
        for key, value in right.items():
            merged[key] = merge(merged[key], value, depth - 1) if key in merged else value
        return merged
    return right


def helix_language(config: dict[str, Any], path: str) -> dict[str, Any] | None:
    """The language Helix gives ``path`` by its extension (``file-types`` strings)."""
    name = path.rsplit("/", 1)[-1]
    for language in config["language"]:
        for kind in language.get("file-types", []):
            if isinstance(kind, str) and (name.endswith("." + kind) or name == kind):
                return language
    return None


def test_helix_reads_the_documented_languages_toml_as_apc_lsp_for_markdown_and_json() -> None:
    (snippet,) = re.findall(r"^```toml\n(.*?)^```", EDITORS, re.S | re.M)
    user = tomllib.loads(snippet)
    defaults = tomllib.loads(HELIX_DEFAULTS.read_text(encoding="utf-8"))
    known = {language["name"] for language in defaults["language"]}
    # a [[language]] Helix does not know would be a new language, which needs a `scope`
    assert {language["name"] for language in user["language"]} <= known
    config = merge(defaults, user, 3)
    servers = config["language-server"]
    assert servers["apc"] == {"command": "apc", "args": ["lsp"]}
    for server in servers.values():
        assert set(server) <= HELIX_SERVER_KEYS
    for language in config["language"]:
        assert set(language) <= HELIX_LANGUAGE_KEYS, language["name"]
        for entry in language.get("language-servers", []):
            assert (entry if isinstance(entry, str) else entry["name"]) in servers
    for path, language_id in (
        ("AGENTS.md", "markdown"),
        (".claude/skills/pdf/SKILL.md", "markdown"),
        (".cursor/rules/style.mdc", "markdown"),
        (".apc/project.json", "json"),
    ):
        language = helix_language(config, path)
        assert language is not None, path
        assert "apc" in language["language-servers"], path
        assert language.get("language-id", language["name"]) == language_id
    markdown = next(lang for lang in config["language"] if lang["name"] == "markdown")
    assert "marksman" in markdown["language-servers"]  # Helix's own server kept beside apc


def test_the_zed_extension_declares_apc_lsp_for_zeds_markdown_and_json() -> None:
    manifest = tomllib.loads((ZED / "extension.toml").read_text(encoding="utf-8"))
    # ExtensionManifest's fields without a default (crates/extension/src/extension_manifest.rs)
    assert {"id", "name", "version", "schema_version"} <= set(manifest)
    assert manifest["schema_version"] == 1
    assert re.fullmatch(r"[a-z0-9-]+", manifest["id"])
    (name,) = manifest["language_servers"]
    server = manifest["language_servers"][name]
    assert set(server) <= {"name", "language", "languages", "language_ids", "code_action_kinds"}
    assert server["languages"] == ["Markdown", "JSON"]  # Zed's names of its built-in languages
    assert server["language_ids"] == {"Markdown": "markdown", "JSON": "json"}
    cargo = tomllib.loads((ZED / "Cargo.toml").read_text(encoding="utf-8"))
    assert cargo["lib"]["crate-type"] == ["cdylib"]
    assert "zed_extension_api" in cargo["dependencies"]
    source = (ZED / "src" / "lib.rs").read_text(encoding="utf-8")
    assert 'worktree.which("apc")' in source and 'vec!["lsp".to_string()]' in source
    assert "fn language_server_command(" in source and "register_extension!" in source
