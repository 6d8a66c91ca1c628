"""`.pre-commit-hooks.yaml`: what pre-commit reads, held against the code it mirrors."""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from ruamel.yaml import YAML

from apc_tools.contract.project import classify, kinds_of
from tests.conftest import REPO_ROOT

HOOKS_FILE = REPO_ROOT / ".pre-commit-hooks.yaml"
SEGMENTS = [
    "AGENTS.md",
    "SKILL.md",
    ".apc",
    "agents",
    "skills",
    "rules",
    "plans",
    ".claude",
    ".cursor",
    "memory.md",
    "project.json",
    "mcps.json",
    ".gitignore",
    "x.md",
    "x.mdc",
    ".md",
    "foo.apc",
    "a",
    "x.json",
    "AGENTS.md\n",
    ".apc-tools.yaml",
    "CLAUDE.md",
    "GEMINI.md",
    ".github",
    "copilot-instructions.md",
    "instructions",
    "x.instructions.md",
    "commands",
    ".claude-plugin",
    "plugin.json",
    "marketplace.json",
    "AGENTS.override.md",
    "prompts",
    "x.prompt.md",
    "chatmodes",
    "x.chatmode.md",
    ".gemini",
    "x.toml",
    "gemini-extension.json",
    "settings.json",
    "settings.local.json",
    ".mcp.json",
    "mcp.json",
    ".vscode",
    ".codex",
    "config.toml",
    "hooks",
    "hooks.json",
]
# A Claude Code plugin's agents/*.md and commands/**/*.md are recognised by the plugin manifest
# around them, not by their path: the pattern takes every such path (one extra validate run).
# So are its hooks/hooks.json and a Gemini CLI extension's commands/**/*.toml (recognised by the
# extension's manifest), and .gemini/settings.json decides which files are context files.
PLUGIN_SHAPED = re.compile(
    r"(?:^|/)(?:agents/[^/]*\.md|commands/.*\.(?:md|toml)|\.claude-plugin/plugin\.json"
    r"|hooks/hooks\.json|\.gemini/settings\.json)\Z",
    re.S,
)


@cache
def hooks() -> dict[str, dict[str, Any]]:
    data = YAML(typ="safe").load(HOOKS_FILE.read_text(encoding="utf-8"))
    return {hook["id"]: hook for hook in data}


def files_pattern() -> re.Pattern[str]:
    return re.compile(hooks()["apc-validate"]["files"])


def triggers(path: str) -> bool:
    """Whether pre-commit runs apc-validate for a change to ``path`` (it uses re.search)."""
    return files_pattern().search(path) is not None


def recognised(path: str) -> bool:
    return classify(path) is not None or path == ".apc-tools.yaml"


def agrees(path: str) -> bool:
    """Every recognised file triggers the hook; nothing else does but plugin-shaped paths."""
    return triggers(path) == recognised(path) or (
        triggers(path) and bool(PLUGIN_SHAPED.search(path))
    )


@given(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=6))
def test_validate_trigger_is_exactly_the_file_kinds_apc_recognises(parts: list[str]) -> None:
    path = "/".join(parts)
    assert agrees(path), path


def test_plugin_files_trigger() -> None:
    tree = [
        "plug/.claude-plugin/plugin.json",
        "plug/agents/reviewer.md",
        "plug/commands/deploy/run.md",
        "plug/README.md",
    ]
    kinds = kinds_of(tree)
    assert set(kinds) == {
        "plug/.claude-plugin/plugin.json",  # the manifest is a kind of its own (PLG rules)
        "plug/agents/reviewer.md",
        "plug/commands/deploy/run.md",
    }
    assert all(triggers(path) for path in kinds)
    assert not triggers("plug/README.md")


def test_validate_trigger_on_real_trees() -> None:
    trees = [REPO_ROOT / "sample_repo", REPO_ROOT / "tests" / "cases"]
    paths = [p.relative_to(t).as_posix() for t in trees for p in t.rglob("*") if p.is_file()]
    paths += [p.split("/", 2)[-1] for p in paths]  # each case tree's own root, too
    kinds = 0
    for path in paths:
        assert agrees(path), path
        kinds += recognised(path)
    assert kinds > 50


def test_hook_shapes() -> None:
    found = hooks()
    assert set(found) == {
        "apc-validate",
        "apc-boundary",
        "apc-boundary-push",
        "apc-boundary-history",
        "apc-fix",
    }
    for hook in found.values():
        assert hook["language"] == "python"
        assert hook["minimum_pre_commit_version"] == "3.2.0"  # stage names pre-commit, pre-push
        assert hook["require_serial"] is True
        assert "types" not in hook and "types_or" not in hook  # binary stores are leaks too
    assert found["apc-validate"]["pass_filenames"] is False
    # every entry ends with `--`: a file pre-commit passes can never be read as an option
    assert all(hook["entry"].endswith(" --") for hook in found.values())
    assert found["apc-boundary"]["entry"] == "apc boundary --staged --"
    assert found["apc-boundary"].get("pass_filenames", True) is True
    assert "files" not in found["apc-boundary"]
    assert found["apc-boundary-push"]["stages"] == ["pre-push"]
    assert found["apc-boundary-push"]["verbose"] is True  # a warning on a passing push is shown
    assert found["apc-boundary-history"]["stages"] == ["manual"]
    assert found["apc-boundary-history"]["entry"] == "apc boundary --history --"
    # apc-fix: the validate hook with --fix (pre-commit fails the commit when a file changed)
    assert found["apc-fix"]["entry"] == "apc validate --fix --"
    assert found["apc-fix"]["files"] == found["apc-validate"]["files"]
    assert found["apc-fix"]["pass_filenames"] is False
    assert "pre-push" not in found["apc-fix"]["stages"]  # never edit files during a push


def test_hooks_file_is_valid_for_pre_commit() -> None:
    from pre_commit.clientlib import load_manifest

    manifest = load_manifest(str(HOOKS_FILE))
    assert next(hook["id"] for hook in manifest) == "apc-validate"


def test_version_lives_in_one_place() -> None:
    import tomllib

    from apc_tools import __version__

    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    # the walk-through takes the hooks from the clone ($APC_TOOLS at $APC_REV); the published
    # form, for later, names the repository and the tag of this version
    assert re.findall(r"rev: (\S+)", readme) == ["$APC_REV", f"v{__version__}"]
    assert re.findall(r"- repo: (\S+)", readme) == ["$APC_TOOLS", project["urls"]["Repository"]]
    ci = (REPO_ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    repository = project["urls"]["Repository"].removeprefix("https://github.com/")
    assert set(re.findall(r"uses: (apc-tools/\S+)", ci)) == {f"{repository}@v{__version__}"}
    assert set(re.findall(r"git\+(\S+?)@(v[^\s\"]+)", ci)) == {
        (project["urls"]["Repository"], f"v{__version__}")
    }


def test_this_repository_runs_its_own_hooks() -> None:
    """.pre-commit-config.yaml runs the published hooks from the development environment:
    the same entries, `language: system` instead of `python` (apc-fix is off here too, as in
    the README's snippet: it edits files)."""
    config = YAML(typ="safe").load((REPO_ROOT / ".pre-commit-config.yaml").read_text("utf-8"))
    [local] = config["repos"]
    assert local["repo"] == "local"
    published = hooks()
    assert [hook["id"] for hook in local["hooks"]] == [h for h in published if h != "apc-fix"]
    for hook in local["hooks"]:
        assert hook["language"] == "system"
        assert {**hook, "language": "python"} == published[hook["id"]]
