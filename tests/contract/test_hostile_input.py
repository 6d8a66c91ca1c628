"""Issue 11, validate side: each reproduction of hostile-input-findings.md now holds.

Large inputs are generated at test time. Hangs (H3) run ``validate`` under the hang guard of
tests/hang_guard.py (a generous limit, never a speed assertion); the rest assert findings.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import string
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from apc_tools.contract.validate import validate
from apc_tools.findings import Finding
from tests.cli.test_cli import apc
from tests.conftest import git, write_tree
from tests.hang_guard import run_guarded

PROJECT = {
    "AGENTS.md": "# Demo\n\nA demo project.\n",
    ".apc/project.json": '{"name": "demo", "apc": "0.1.0"}\n',
}
AGENT = "---\nname: a\ndescription: d\nmodel: inherit\n---\n\nBody.\n"


def token(seed: int = 7) -> str:
    """A live-looking OpenAI key, made at run time (no key is committed in the test source)."""
    rnd = random.Random(seed)
    return "sk-proj-" + "".join(rnd.choice(string.ascii_letters + string.digits) for _ in range(48))


def run(root: Path, *paths: Path) -> list[Finding]:
    return list(validate(list(paths) or [root], cwd=root).findings)


def rules(found: list[Finding]) -> set[str]:
    return {f.rule for f in found}


def _validate_quietly(root: Path) -> None:
    validate([root], cwd=root)


# --------------------------------------------------------------------------- H3: no hang

HANGS: dict[str, Callable[[], dict[str, str]]] = {
    "A39 unclosed fences": lambda: {"AGENTS.md": "# x\n" + "```a\n" * 200_000},
    "A53 unclosed comments": lambda: {"AGENTS.md": "<!--" * 100_000},
    "A53b unclosed code spans": lambda: {"AGENTS.md": "`a" * 200_000},
    "A40 private key and spaces": lambda: {
        "AGENTS.md": "-----BEGIN PRIVATE KEY-----" + " " * 100_000 + "!"
    },
    "A40b private key headers": lambda: {
        "AGENTS.md": "-----BEGIN PRIVATE KEY-----\n" + "a: -----BEGIN PRIVATE KEY-----\n" * 30_000
    },
    "A52 jwt run": lambda: {"AGENTS.md": "eyJ" * 300_000},
    "A52b github_pat run": lambda: {"AGENTS.md": "github_pat_" * 80_000 + "-"},
    "A41 role line": lambda: {
        **PROJECT,
        ".apc/agents/a.md": AGENT,
        ".apc/agents/a/memory.md": "user" + " " * 100_000 + "x",
    },
    "A42 frontmatter value": lambda: {
        **PROJECT,
        ".apc/agents/a.md": "---\nname: a\ndescription: x"
        + " " * 100_000
        + "y\nbroken: [\nmodel: inherit\n---\n",
    },
    "A43 rule glob": lambda: {
        ".cursor/rules/x.mdc": '---\ndescription: d\nglobs: "a/' + "**/" * 200 + 'Q"\n---\n',
        "a/b/c/d/e/f.txt": "x",
    },
    "A44 policy exclude": lambda: {
        **PROJECT,
        ".apc-tools.yaml": 'version: 1\nexclude: ["a/' + "**/" * 200 + 'Q"]\n',
        "a/b/c/d/e/f.txt": "x",
    },
    "A45 gitignore": lambda: {
        **PROJECT,
        ".apc/.gitignore": "**/" * 400 + "Q\n" + "x" + " " * 100_000 + "y\n",
    },
    "A46 links x files": lambda: {
        "AGENTS.md": "# x\n" + "".join(f"[](m{i})\n" for i in range(70_000)),
        **{f"d{i % 100}/f{i}.txt": "" for i in range(10_000)},
    },
    "A47 dead globs x files": lambda: {
        ".cursor/rules/x.mdc": "---\ndescription: d\nglobs:\n"
        + "".join(f'  - "src/**/g{i}*.ts"\n' for i in range(20_000))
        + "---\n",
        **{f"src/d{i % 100}/f{i}.ts": "" for i in range(10_000)},
    },
    "many nested projects": lambda: {
        **{f"p{i}/.apc/project.json": "{}" for i in range(3000)},
        **{f"p{i % 3000}/src/f{i}.txt": "" for i in range(30_000)},
    },
    "plans x files": lambda: {
        **PROJECT,
        **{
            f".apc/plans/p{i}.md": "---\ntitle: t\nstatus: s\nowner: nobody\n---\n"
            for i in range(3000)
        },
        **{f"src/f{i}.txt": "" for i in range(20_000)},
    },
    "secrets in a row": lambda: {
        "AGENTS.md": " ".join(
            "ghp_" + "".join(random.Random(i).choices(string.ascii_letters + string.digits, k=36))
            for i in range(20_000)
        )
    },
    "placeholder run": lambda: {
        **PROJECT,
        ".apc/mcps.json": '{"mcpServers": {"s": {"command": "x", "env": {"API_KEY": "'
        + "${" * 100_000
        + '"}}}}',
    },
}


A47 = "A47 dead globs x files"  # run under the guard by the budget test below, with findings


@pytest.mark.parametrize("name", sorted(set(HANGS) - {A47}))
def test_hostile_content_cannot_hang_validate(name: str, tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", HANGS[name]())
    run_guarded(_validate_quietly, root)


def test_a_hostile_rule_glob_still_gives_its_finding(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", HANGS["A43 rule glob"]())
    assert "RUL003" in rules(run(root))


def _dead_globs_past_the_budget(root: Path) -> None:
    found = [f for f in run(root) if f.rule == "RUL003"]
    assert any("matches no file" in f.message for f in found)
    assert any("not checked" in f.message and f.severity.value == "info" for f in found)


def test_dead_globs_past_the_budget_are_reported_as_not_checked(tmp_path: Path) -> None:
    """A47 of the hang table, under the hang guard, with its findings (one run for both)."""
    root = write_tree(tmp_path / "p", HANGS[A47]())
    run_guarded(_dead_globs_past_the_budget, root)


def test_broken_links_are_still_found_among_many(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p", {"AGENTS.md": "[a](d1/f1.txt) [b](d1) [c](d2/none.txt)\n", "d1/f1.txt": ""}
    )
    broken = [f for f in run(root) if f.rule == "AGM003"]
    assert [f.column for f in broken] == [28]


# --------------------------------------------------------------------------- H5 and the low table


def test_long_hex_integer_in_frontmatter_is_a_finding(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {
            **PROJECT,
            ".apc/agents/a.md": "---\nname: 0x" + "f" * 3600 + "\nmodel: inherit\n"
            "description: d\n---\n",
        },
    )
    found = [f for f in run(root) if f.rule == "YML001"]
    assert found and found[0].line == 2 and "too long" in found[0].message


def test_long_integers_in_json_are_findings(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path / "p",
        {**PROJECT, ".apc/project.json": '{"name": "d", "apc": "0.1.0", "n": ' + "9" * 5000 + "}"},
    )
    found = [f for f in run(root) if f.rule == "JSN001"]
    assert found and found[0].line == 1 and found[0].column == 36


def test_nan_and_infinity_in_json_are_findings(tmp_path: Path) -> None:
    mcps = '{"mcpServers": {"s": {"command": "x", "timeout": NaN, "retries": Infinity}}}'
    root = write_tree(tmp_path / "p", {**PROJECT, ".apc/mcps.json": mcps})
    found = sorted((f.column, f.message.split()[0]) for f in run(root) if f.rule == "JSN001")
    assert found == [(50, "NaN"), (66, "Infinity")]


def test_nul_after_the_first_8_kib_is_binary(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "p", {"AGENTS.md": b"# x\n" + b"a" * 10_000 + b"\x00\n"})
    assert "IO001" in rules(run(root))


def test_a_policy_error_without_a_line_says_no_line_none(tmp_path: Path) -> None:
    from apc_tools.core.policy import parse_policy
    from apc_tools.findings import CannotRun

    with pytest.raises(CannotRun) as raised:
        parse_policy(tmp_path / ".apc-tools.yaml", "version: 1\nx: \x00\n")
    assert "None" not in str(raised.value)


def _walk_as_nobody(root: str, out: str) -> None:
    from apc_tools.contract.project import walk_files

    os.setgid(65534)
    os.setuid(65534)
    unlistable: list[str] = []
    walk_files(Path(root), unlistable)
    Path(out).write_text("\n".join(unlistable))


def test_an_unlistable_folder_is_reported(tmp_path: Path) -> None:
    """M4. Root lists any folder, so the walk runs as ``nobody`` when the suite runs as root."""
    base = Path(tempfile.mkdtemp(prefix="apc-m4-"))
    try:
        base.chmod(0o777)
        root = write_tree(base / "p", {**PROJECT, ".apc/agents/a.md": "---\nname: [\n---\n"})
        for folder in (root, root / ".apc"):
            folder.chmod(0o755)
        (root / ".apc" / "agents").chmod(0)
        if os.geteuid() == 0:
            out = base / "out.txt"
            run_guarded(_walk_as_nobody, str(root), str(out))
            assert out.read_text() == ".apc/agents"
        else:
            found = run(root)
            assert any(f.rule == "IO005" and f.path.endswith(".apc/agents") for f in found)
    finally:
        (base / "p" / ".apc" / "agents").chmod(0o755)
        shutil.rmtree(base, ignore_errors=True)  # outside tmp_path (nobody must reach it)


def test_an_unlistable_folder_becomes_io005(tmp_path: Path) -> None:
    from apc_tools.contract.listing import _unlistable

    finding = _unlistable(tmp_path, tmp_path, ".apc/agents")
    assert finding.rule == "IO005" and finding.path == ".apc/agents"


# --------------------------------------------------------------------------- H7: every kind

SECRET_PLACES = {
    ".apc/agents/keyed.md": "---\nname: keyed\ndescription: d\nmodel: inherit\napi_key: {t}\n---\n",
    ".claude/agents/cl.md": "---\nname: cl\ndescription: d\n---\nUse {t}.\n",
    ".apc/skills/s/SKILL.md": "---\nname: s\ndescription: d\n---\nUse {t}.\n",
    ".apc/skills/flat.md": "---\nname: flat\ndescription: d\n---\nUse {t}.\n",
    ".cursor/rules/r.mdc": "---\ndescription: d\nalwaysApply: true\n---\nUse {t}.\n",
    ".apc/rules/r.md": "---\ndescription: d\nalwaysApply: true\n---\nUse {t}.\n",
    ".apc/plans/p.md": "---\ntitle: p\nstatus: draft\n---\nUse {t}.\n",
    ".apc/project.json": '{{"name": "d", "apc": "0.1.0", "description": "{t}"}}\n',
}


SECRET_RULES = {"AGM004", "MEM002", "MCP003", "INS003", "SEC001"}
EVERY_KIND = {
    **SECRET_PLACES,
    "AGENTS.md": "# x\nUse {t}.\n",
    ".apc/agents/a/memory.md": "Use {t}.\n",
    ".apc/memory.md": "Use {t}.\n",
    ".apc/mcps.json": '{{"mcpServers": {{"s": {{"command": "x", "env": {{"K": "{t}"}}}}}}}}',
    ".apc/.gitignore": "{t}\n",
    "CLAUDE.md": "Use {t}.\n",
    "GEMINI.md": "Use {t}.\n",
    ".github/copilot-instructions.md": "Use {t}.\n",
    ".github/instructions/x.instructions.md": '---\napplyTo: "**"\n---\nUse {t}.\n',
    ".claude/commands/c.md": "---\ndescription: d\n---\nUse {t}.\n",
}


def test_every_kind_of_file_is_covered_by_exactly_one_secret_rule(tmp_path: Path) -> None:
    from apc_tools.contract.project import classify

    kinds = {classify(rel) for rel in EVERY_KIND}
    assert None not in kinds
    secret = token()
    for rel, text in EVERY_KIND.items():
        root = write_tree(tmp_path / rel.replace("/", "_"), {**PROJECT, rel: text.format(t=secret)})
        found = [f for f in run(root) if f.rule in SECRET_RULES]
        assert len(found) == 1 and found[0].path == rel, (rel, found)


@pytest.mark.parametrize("rel", sorted(SECRET_PLACES))
def test_secrets_are_reported_in_every_contract_kind(rel: str, tmp_path: Path) -> None:
    secret = token()
    root = write_tree(tmp_path / "p", {**PROJECT, rel: SECRET_PLACES[rel].format(t=secret)})
    found = [f for f in run(root) if f.rule == "SEC001"]
    assert [f.path for f in found] == [rel]
    assert found[0].severity.value == "error"
    assert secret not in found[0].message


# --------------------------------------------------------------------------- H8: never echoed


def planted_tree(secret: str) -> dict[str, str]:
    """The token in every place a message may echo file content, in every file kind."""
    fm_key = f"---\nname: x\ndescription: d\nmodel: inherit\n{secret}: 1\n{secret}: 2\n"
    fm_tag = f"tags: !{secret} x\nother: &{secret} y\n"
    return {
        "AGENTS.md": f"# x\n[key]({secret})\n[ref]: {secret}\n[k2](<{secret}>)\n",
        ".apc/project.json": f'{{"name": "d", "apc": "0.1.0", "{secret}": 1, "{secret}": 2}}',
        ".apc/mcps.json": json.dumps({"mcpServers": {secret: {"args": [], "env": {secret: 1}}}}),
        ".apc/agents/a.md": fm_key + fm_tag + "---\n",
        ".apc/agents/a/memory.md": f"[x]({secret})\n",
        f".apc/agents/{secret[:20]}/memory.md": "facts\n",
        ".claude/agents/c.md": fm_key + "---\n",
        ".apc/skills/s/SKILL.md": f"---\nname: {secret}\ndescription: d\n{secret}: 1\n---\n",
        ".apc/skills/f.md": f"---\nname: {secret}\n{secret}: x\n---\n",
        ".cursor/rules/r.mdc": f"---\ndescription: d\nglobs: {secret}\n{secret}: 1\n---\n",
        ".apc/rules/r.md": f'---\nglobs:\n  - "{secret}/**"\n{secret}: 1\n---\n',
        ".apc/plans/p.md": f"---\ntitle: {secret}\nstatus: {secret}\n{secret}: 1\n---\n",
        ".apc/.gitignore": f"{secret}\n",
        "CLAUDE.md": f"@{secret}\n@docs/{secret}.md\n[x]({secret})\n",
        "GEMINI.md": f"@{secret}\n",
        ".github/copilot-instructions.md": f"[x]({secret})\n",
        ".github/instructions/x.instructions.md": f'---\napplyTo: "{secret}/*"\n{secret}: 1\n---\n',
        ".claude/commands/c.md": f"---\ndescription: d\n{secret}: 1\nmodel: {secret}\n---\n",
    }


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_a_planted_token_never_appears_in_any_output(fmt: str, tmp_path: Path) -> None:
    secret = token()
    root = write_tree(tmp_path / "p", planted_tree(secret))
    done = apc("validate", ".", "--format", fmt, cwd=root)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert secret not in done.stdout + done.stderr
    assert secret[:30] not in done.stdout + done.stderr
    assert "sk-p" in done.stdout  # the findings are there, redacted


def test_a_token_in_a_policy_key_is_not_echoed(tmp_path: Path) -> None:
    secret = token()
    policy = f'version: 1\n"{secret}": 1\n"{secret}": 2\n'
    root = write_tree(tmp_path / "p", {**PROJECT, ".apc-tools.yaml": policy})
    done = apc("validate", ".", cwd=root)
    assert done.returncode == 2
    assert secret not in done.stdout + done.stderr and "duplicate key" in done.stderr


# --------------------------------------------------------------------------- M3: no git config run


def test_validate_never_runs_the_scanned_repositorys_fsmonitor(tmp_path: Path) -> None:
    root = write_tree(tmp_path / "repo", PROJECT)
    git(root, "init", "-q", "-b", "main")
    marker = tmp_path / "PWNED"
    hook = tmp_path / "fsmonitor.sh"
    hook.write_text(f"#!/bin/sh\ntouch '{marker}'\nexit 1\n")
    hook.chmod(0o755)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    git(root, "config", "core.fsmonitor", str(hook))
    assert not marker.exists()
    git(root, "status")  # the script is live: plain git runs it
    assert marker.exists()
    marker.unlink()
    done = apc("validate", ".", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    assert not marker.exists()


def test_a_policy_with_too_many_globs_is_refused(tmp_path: Path) -> None:
    """Policy lists are capped (256 globs of at most 1,024 characters): matching every file
    against them stays linear in the tree with a bounded factor."""
    from apc_tools.findings import CannotRun

    many = "version: 1\nexclude:\n" + "".join(f'  - "g{i}/**"\n' for i in range(300))
    long = 'version: 1\nallow:\n  AGM003: ["' + "a/" * 600 + '"]\n'
    for policy in (many, long):
        root = write_tree(tmp_path / f"p{len(policy)}", {**PROJECT, ".apc-tools.yaml": policy})
        with pytest.raises(CannotRun):
            validate([root], cwd=root)


@pytest.mark.parametrize("item", ["AAA{i:03d}", "{i}"])
def test_a_long_disable_list_is_refused_without_a_hang(item: str, tmp_path: Path) -> None:
    """A 60,000-entry `disable` list took minutes (uniqueItems compared pairwise)."""
    entries = "".join(f"  - {item.format(i=i)}\n" for i in range(60_000))
    root = write_tree(
        tmp_path / "p", {**PROJECT, ".apc-tools.yaml": "version: 1\ndisable:\n" + entries}
    )
    run_guarded(_refused, root)


def _refused(root: Path) -> None:
    from apc_tools.findings import CannotRun

    with pytest.raises(CannotRun, match="at most 1000"):
        validate([root], cwd=root)


@pytest.mark.parametrize("in_git", [False, True])
def test_a_symlinked_agent_folder_leading_out_of_the_project_is_reported(
    tmp_path: Path, in_git: bool
) -> None:
    """Review finding: `.apc/agents -> /outside/dir` gave no finding at all (the folder was
    neither entered nor reported), while a symlinked file is IO004."""
    from apc_tools.contract.validate import validate
    from tests.conftest import git, write_tree

    outside = tmp_path / "outside" / "agents"
    write_tree(outside, {"x.md": "---\nname: x\n---\n"})
    project = tmp_path / "p"
    write_tree(
        project, {".apc/project.json": '{"name": "d", "apc": "0.1.0"}', "AGENTS.md": "# d\n"}
    )
    (project / ".apc" / "agents").symlink_to(outside, target_is_directory=True)
    (project / ".apc" / "skills").symlink_to(project / ".apc", target_is_directory=True)
    if in_git:
        git(project, "init", "-q")
    found = validate([project], cwd=project).findings
    assert [(f.rule, f.path) for f in found if f.rule == "IO004"] == [("IO004", ".apc/agents")]


def test_a_tree_of_100000_files_is_validated_under_a_generous_guard(tmp_path: Path) -> None:
    """Hostile-input low table (A30): 100,000 files took 36 s (0.37 ms per file of pathlib
    overhead). Not a speed assertion: the 120 s guard only catches a hang or a quadratic
    regression; the run must finish, find the one broken agent and print no traceback."""
    import subprocess
    import sys

    for d in range(100):
        folder = tmp_path / f"d{d}"
        folder.mkdir()
        for i in range(1000):
            (folder / f"f{i}.txt").touch()
    (tmp_path / "AGENTS.md").write_text("# many files\n")
    agents = tmp_path / ".claude" / "agents"
    agents.mkdir(parents=True)
    (agents / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "validate", "--format", "json", "."],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr
    assert done.returncode == 1, done.stdout + done.stderr
    assert '".claude/agents/broken.md"' in done.stdout
