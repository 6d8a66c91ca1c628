"""VS Code Copilot's prompt files, custom agents and chat modes (CPR001-CPR003), and an
`.instructions.md` whose frontmatter lost its opening `---` (INS010), judged as VS Code's
prompt-file parser reads them (microsoft/vscode promptSyntax/: promptFileParser.ts,
promptValidator.ts, promptFileLocations.ts; issue 31 point 4)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from apc_tools.contract.project import classify
from apc_tools.contract.validate import validate
from apc_tools.findings import Finding


def run(root: Path, files: dict[str, str]) -> list[Finding]:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, "utf-8")
    return list(validate([], cwd=root).findings)


def found(findings: list[Finding], prefix: str) -> list[tuple[str, str, str, int]]:
    return sorted(
        (f.path, f.rule, f.severity.value, f.line or 0)
        for f in findings
        if f.rule.startswith(prefix)
    )


@pytest.mark.parametrize(
    ("rel", "kind"),
    [
        (".github/prompts/review.prompt.md", "copilot-prompt"),
        (".github/prompts/team/review.prompt.md", "copilot-prompt"),
        (".github/agents/planner.agent.md", "copilot-agent"),
        (".github/agents/planner.md", "copilot-agent"),  # any .md directly in .github/agents
        (".github/agents/more/planner.agent.md", None),
        (".github/chatmodes/planner.chatmode.md", "copilot-chatmode"),
        (".github/prompts/notes.md", None),
    ],
)
def test_where_vscode_looks(rel: str, kind: str | None) -> None:
    assert classify(rel) == kind


def test_values_vscode_drops_are_errors(tmp_path: Path) -> None:
    findings = run(
        tmp_path,
        {
            ".github/prompts/a.prompt.md": "---\ndescription: [a, b]\nagent: {x: 1}\n"
            "model: {id: gpt}\n---\nbody\n",
            ".github/agents/b.agent.md": "---\ndescription: d\ntools: [search, [x]]\nhandoffs:\n"
            "  - label: Go\n    agent: impl\n    prompt: Go on.\n  - just text\n"
            "user-invocable: [true]\n---\nb\n",
            ".github/agents/c.agent.md": "---\ndescription: d\nhandoffs: impl\n---\nb\n",
        },
    )
    assert found(findings, "CPR") == [
        (".github/agents/b.agent.md", "CPR001", "error", 3),
        (".github/agents/b.agent.md", "CPR001", "error", 8),
        (".github/agents/b.agent.md", "CPR001", "error", 9),
        (".github/agents/c.agent.md", "CPR001", "error", 3),
        (".github/prompts/a.prompt.md", "CPR001", "error", 2),
        (".github/prompts/a.prompt.md", "CPR001", "error", 3),
        (".github/prompts/a.prompt.md", "CPR001", "error", 4),
    ]


def test_forms_vscode_reads_are_no_error(tmp_path: Path) -> None:
    findings = run(
        tmp_path,
        {
            # a list of models, tools as one comma-separated string, numbers and YAML 1.1
            # booleans (VS Code's parser reads every value as a string): PromptHeader reads them
            ".github/agents/a.agent.md": "---\nname: 7\ndescription: yes\nmodel: [GPT-5, o3]\n"
            "tools: search, 'edit'\ninfer: true\nuser-invocable: false\nmcp-servers: {}\n"
            "target: github-copilot\n---\nbody\n",
            ".github/agents/README.md": "# Agents\n\nThe team's agents.\n",
            ".github/prompts/p.prompt.md": "---\nagent: agent\ntools: []\n---\nbody\n",
        },
    )
    assert [f for f in findings if f.severity.value == "error"] == []
    assert found(findings, "CPR") == []


def test_unknown_keys_and_legacy_forms_are_warnings(tmp_path: Path) -> None:
    findings = run(
        tmp_path,
        {
            ".github/prompts/p.prompt.md": "---\nmode: agent\napplyto: '**'\n---\nbody\n",
            ".github/agents/a.agent.md": "---\ndescription: d\nhidden: true\n---\nbody\n",
            ".github/chatmodes/c.chatmode.md": "---\ndescription: d\n---\nbody\n",
        },
    )
    assert found(findings, "CPR") == [
        (".github/agents/a.agent.md", "CPR002", "warning", 3),
        (".github/chatmodes/c.chatmode.md", "CPR003", "warning", 1),
        (".github/prompts/p.prompt.md", "CPR002", "warning", 3),
        (".github/prompts/p.prompt.md", "CPR003", "warning", 2),
    ]


LOST = 'applyTo: "**/*.ts"\ndescription: TypeScript\n---\nUse strict mode.\n'


def test_a_header_that_lost_its_opening_fence_is_an_error_not_ins008(tmp_path: Path) -> None:
    rel = ".github/instructions/ts.instructions.md"
    findings = run(tmp_path, {rel: LOST, "src/app.ts": "export {};\n"})
    assert found(findings, "INS") == [(rel, "INS010", "error", 1)]


@pytest.mark.parametrize(
    "text",
    [
        "applyTo settings are explained below.\n\n---\n\nUse strict mode.\n",  # prose, not a key
        'applyTo: "**/*.ts"\ncolour: blue\n---\nbody\n',  # not only Copilot's keys
        'applyTo: "**/*.ts"\nno fence below\n',
    ],
)
def test_other_files_without_a_header_stay_ins008(tmp_path: Path, text: str) -> None:
    rel = ".github/instructions/ts.instructions.md"
    findings = run(tmp_path, {rel: text})
    assert [r for _, r, _, _ in found(findings, "INS")] == ["INS008"]


def test_fix_puts_the_opening_fence_back(tmp_path: Path) -> None:
    rel = ".github/instructions/ts.instructions.md"
    run(tmp_path, {rel: LOST, "src/app.ts": "export {};\n"})
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "validate", "--fix", "--no-color"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / rel).read_text("utf-8") == "---\n" + LOST
    assert found(list(validate([], cwd=tmp_path).findings), "INS") == []
