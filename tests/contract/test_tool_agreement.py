"""The disagreements with the real tools found by the conformance suite, fixed (issue 16 item 3).

Each test writes a small tree and runs ``apc validate`` on it; the tool behaviour each verdict
follows is recorded in tests/conformance/observed/ (Claude Code 2.1.197, Codex 0.171.0, Gemini
CLI 0.61.0)."""

from __future__ import annotations

from pathlib import Path

from apc_tools.contract.checks.agents import claude_fallback
from apc_tools.contract.checks.instructions import split_apply_to
from apc_tools.contract.validate import validate
from apc_tools.findings import Finding


def tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return root


def run(root: Path, profile: str | None = None) -> list[Finding]:
    return list(validate([], cwd=root, profile=profile).findings)


def on(found: list[Finding], path: str) -> list[tuple[str, str]]:
    return [(f.rule, f.severity.value) for f in found if f.path == path]


LONG = "---\nname: long\ndescription: " + "x" * 1100 + "\n---\nbody\n"


def test_a_long_skill_description_is_a_warning_by_default_and_an_error_for_agentskills(
    tmp_path: Path,
) -> None:
    root = tree(tmp_path, {"skills/long/SKILL.md": LONG})
    default = [f for f in run(root) if f.rule == "SKL005"]
    assert [(f.severity.value) for f in default] == ["warning"]
    assert "Codex loads the skill with the description cut to 1,024" in default[0].message
    assert on(run(root, "agentskills"), "skills/long/SKILL.md") == [("SKL005", "error")]


def test_a_blank_skill_description_stays_an_error(tmp_path: Path) -> None:
    root = tree(tmp_path, {"skills/b/SKILL.md": "---\nname: b\ndescription: ''\n---\nbody\n"})
    assert ("SKL005", "error") in on(run(root), "skills/b/SKILL.md")


def test_skill_name_messages_say_which_tool_uses_which_name(tmp_path: Path) -> None:
    root = tree(tmp_path, {"skills/folder/SKILL.md": "---\nname: other\ndescription: d\n---\n"})
    [finding] = [f for f in run(root) if f.rule == "SKL004"]
    assert finding.severity.value == "warning"
    assert "Claude Code under its folder name" in finding.message
    assert "Codex and Gemini CLI under the frontmatter `name`" in finding.message


def test_a_broken_link_in_copilot_instructions_is_a_warning_and_an_import_an_error(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        {
            ".github/copilot-instructions.md": "See [the guide](docs/nowhere.md).\n",
            "CLAUDE.md": "@docs/missing.md\nSee [the guide](docs/nowhere.md).\n",
        },
    )
    found = run(root)
    assert on(found, ".github/copilot-instructions.md") == [("INS002", "warning")]
    assert sorted(on(found, "CLAUDE.md")) == [("INS001", "error"), ("INS002", "warning")]


def test_apply_to_splits_at_commas_outside_braces(tmp_path: Path) -> None:
    assert split_apply_to("**/*.{yml,yaml}, src/**/*.ts") == ["**/*.{yml,yaml}", "src/**/*.ts"]
    assert split_apply_to("a/{b,{c,d}}/*.md,e") == ["a/{b,{c,d}}/*.md", "e"]
    assert split_apply_to("unclosed/{a,b") == ["unclosed/{a,b"]
    root = tree(
        tmp_path,
        {
            ".github/instructions/ci.instructions.md": "---\napplyTo: '**/*.{yml,yaml}'\n---\nx\n",
            ".github/instructions/dead.instructions.md": (
                "---\napplyTo: '**/*.{toml,ini}'\n---\nx\n"
            ),
            "ci/build.yaml": "on: push\n",
        },
    )
    found = run(root)
    assert on(found, ".github/instructions/ci.instructions.md") == []
    dead = [f for f in found if f.rule == "INS007"]
    assert [f.path for f in dead] == [".github/instructions/dead.instructions.md"]
    assert "'**/*.{toml,ini}'" in dead[0].message


MARKETPLACE = (
    '{"name": "m", "owner": {"name": "o"}, "plugins": ['
    '{"name": "tools", "source": "./plugins/tools", "strict": false},'
    '{"name": "lib", "source": "lib"},'
    '{"name": "remote", "source": {"source": "github", "repo": "a/b"}},'
    '{"name": "out", "source": "../elsewhere"}],'
    ' "metadata": {"pluginRoot": "./more"}}'
)


def test_plugins_named_only_by_a_marketplace_source_are_checked(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": MARKETPLACE,
            "plugins/tools/agents/flow.md": "---\nname: flow\ndescription: d\ntools: [Read\n---\n",
            "plugins/tools/commands/ship.md": "---\ndescription: ship\n---\nShip it.\n",
            "more/lib/agents/quote.md": '---\nname: q\ndescription: "open\n---\n',
            "unlisted/agents/x.md": "---\nbad: [\n---\n",
        },
    )
    found = run(root)
    assert on(found, "plugins/tools/agents/flow.md") == [("YML001", "error")]
    assert on(found, "more/lib/agents/quote.md") == [("YML001", "error")]
    quote = next(f for f in found if f.path == "more/lib/agents/quote.md")
    assert "only under its file name, with a placeholder description" in quote.message
    assert on(found, "unlisted/agents/x.md") == []  # not a plugin: not an agent
    assert on(found, "plugins/tools/commands/ship.md") == []


def test_a_marketplace_that_is_not_json_names_no_plugin(tmp_path: Path) -> None:
    root = tree(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": "{not json",
            "plugins/tools/agents/x.md": "---\nbad: [\n---\n",
            "AGENTS.md": "# Notes\n",
        },
    )
    assert on(run(root), "plugins/tools/agents/x.md") == []


def test_yml001_on_a_subagent_says_whether_claude_code_skips_it_or_falls_back(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        {
            ".claude/agents/skipped.md": '---\nname: s\ndescription: "open\ntools: Read\n---\n',
            ".claude/agents/fallback.md": "---\nname: f\ndescription: d\ntools: [Read, Grep\n---\n",
            ".apc/agents/apc.md": "---\nname: apc\nmodel: inherit\ndescription: [x\n---\n",
        },
    )
    found = {f.path: f for f in run(root) if f.rule == "YML001"}
    assert "Claude Code skips this subagent" in found[".claude/agents/skipped.md"].message
    fallback = found[".claude/agents/fallback.md"].message
    assert "line-by-line fallback" in fallback and "tools '[Read, Grep'" in fallback
    assert "Claude Code" not in found[".apc/agents/apc.md"].message
    assert claude_fallback("name: f\ndescription: d\ntools: [Read") == {
        "name": "f",
        "description": "d",
        "tools": "[Read",
    }
    assert claude_fallback("name: f\n  description: d") is None  # bad indentation: skipped
    assert claude_fallback("name: f\ntools: [Read") is None  # no description: skipped


def test_a_subagent_written_without_frontmatter_is_a_warning_a_readme_info(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        {
            ".claude/agents/reviewer.md": "You are a reviewer. Review every change.\n",
            ".claude/agents/README.md": "# Agents\n",
            ".claude/agents/overview.md": "# Overview\n",
        },
    )
    found = run(root)
    [(rule, severity)] = on(found, ".claude/agents/reviewer.md")
    assert (rule, severity) == ("AGT002", "warning")
    message = next(f.message for f in found if f.path == ".claude/agents/reviewer.md")
    assert "Claude Code does not load this file" in message
    assert on(found, ".claude/agents/README.md") == [("AGT002", "info")]
    assert on(found, ".claude/agents/overview.md") == [("AGT002", "info")]


def test_a_display_name_model_fails_a_subagent_and_is_advice_for_an_apc_agent(
    tmp_path: Path,
) -> None:
    root = tree(
        tmp_path,
        {
            ".claude/agents/x.md": "---\nname: x\ndescription: d\nmodel: Claude Sonnet 4.5\n---\n",
            ".apc/project.json": '{"name": "p", "apc": "0.1"}',
            ".apc/agents/y.md": "---\nname: y\nmodel: GPT-4.1 (copilot)\ndescription: d\n---\n",
        },
    )
    found = run(root)
    assert ("AGT014", "error") in on(found, ".claude/agents/x.md")
    assert ("AGT014", "warning") in on(found, ".apc/agents/y.md")


def test_a_long_claude_md_is_said_to_be_sent_whole(tmp_path: Path) -> None:
    root = tree(tmp_path, {"CLAUDE.md": "Keep the build green.\n" * 2400})
    [finding] = [f for f in run(root) if f.rule == "INS005"]
    assert "sends the whole file" in finding.message and "cut" not in finding.message
