"""`apc validate --fix`: each fix with its before, its after and the idempotence check, and the
properties every fix keeps (only the bytes it must, never on a file apc could not parse, never
through a symlink, never a new finding, no secret printed)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from apc_tools.catalog import registry
from apc_tools.contract.fix import fix_paths, plan_fixes
from apc_tools.contract.validate import validate
from apc_tools.core.gitignore import SAFE_DEFAULTS, missing_defaults
from apc_tools.report.rules_doc import fix_counts
from tests.cli.test_cli import apc
from tests.conftest import REPO_ROOT, git, write_tree

GITIGNORE = "\n".join(SAFE_DEFAULTS) + "\n"
PROJECT_JSON = '{"name": "demo", "apc": "0.1.0", "version": "0.1.0", "created": "2026-05-08"}\n'
AGENT = "---\nname: reviewer\nmodel: inherit\ndescription: Reviews code.\n---\n# Reviewer\n"
SKILL = "---\nname: pdf\ndescription: Extract text.\n---\nBody.\n"
BASE: dict[str, str | bytes] = {
    "AGENTS.md": "# Demo\n",
    ".apc/project.json": PROJECT_JSON,
    ".apc/.gitignore": GITIGNORE,
    ".apc/agents/reviewer.md": AGENT,
    ".apc/skills/pdf/SKILL.md": SKILL,
}
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
LONG = ("Extracts text from PDF files. " * 40).strip()  # 1,199 characters
CUT = ("Extracts text from PDF files. " * 34).strip()  # its last whole sentence within 1,024


def project(tmp_path: Path, files: dict[str, str | bytes], *, drop: tuple[str, ...] = ()) -> Path:
    root = tmp_path / "project"
    tree = {k: v for k, v in {**BASE, **files}.items() if k not in drop}
    return write_tree(root, tree)


def rules_on(root: Path, rel: str, profile: str | None = None) -> list[str]:
    result = validate([], cwd=root, profile=profile)
    return sorted(f.rule for f in result.findings if f.path == rel)


def all_findings(root: Path, profile: str | None = None) -> list[tuple[str, str]]:
    return sorted((f.rule, f.path) for f in validate([], cwd=root, profile=profile).findings)


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


# (id, rule, unsafe, profile, files, the fixed file, its text after)
CASES: list[tuple[str, str, bool, str | None, dict[str, str | bytes], str, str | bytes]] = [
    (
        "gitignore-defaults-appended",
        "GIG001",
        False,
        None,
        {".apc/.gitignore": "# mine\nsessions/\ncache/"},
        ".apc/.gitignore",
        "# mine\nsessions/\ncache/\n" + "\n".join(missing_defaults("sessions/\ncache/")) + "\n",
    ),
    ("gitignore-created", "GIG002", False, None, {}, ".apc/.gitignore", GITIGNORE),
    (
        "spec-version-added",
        "PRJ002",
        False,
        None,
        {".apc/project.json": '{\n  "name": "demo",\n  "version": "1",\n  "created": "2026"\n}\n'},
        ".apc/project.json",
        '{\n  "apc": "0.1.0",\n  "name": "demo",\n  "version": "1",\n  "created": "2026"\n}\n',
    ),
    (
        "legacy-apf-renamed",
        "PRJ003",
        False,
        None,
        {".apc/project.json": PROJECT_JSON.replace('"apc"', '"apf"')},
        ".apc/project.json",
        PROJECT_JSON,
    ),
    (
        "byte-order-mark-removed",
        "FMT002",
        False,
        None,
        {".apc/agents/reviewer.md": b"\xef\xbb\xbf" + AGENT.encode()},
        ".apc/agents/reviewer.md",
        AGENT,
    ),
    (
        "lenient-description-quoted",
        "YML005",
        False,
        None,
        {".apc/agents/reviewer.md": AGENT.replace("Reviews code.", "Reviews: code # all")},
        ".apc/agents/reviewer.md",
        AGENT.replace("Reviews code.", '"Reviews: code # all"'),
    ),
    (
        "lenient-crlf-kept",
        "YML005",
        False,
        None,
        {
            ".apc/agents/reviewer.md": AGENT.replace("Reviews code.", "Reviews: code").replace(
                "\n", "\r\n"
            )
        },
        ".apc/agents/reviewer.md",
        AGENT.replace("Reviews code.", '"Reviews: code"').replace("\n", "\r\n"),
    ),
    (
        "apc-rule-globs-listed",
        "YML005",
        False,
        None,
        {
            ".apc/rules/ts.md": "---\ndescription: TS\nglobs: **/*.ts, src/**\n---\nUse TS.\n",
            "src/a.ts": "x\n",
        },
        ".apc/rules/ts.md",
        '---\ndescription: TS\nglobs:\n  - "**/*.ts"\n  - "src/**"\n---\nUse TS.\n',
    ),
    (
        "copilot-applyto-quoted",
        "YML005",
        False,
        None,
        {
            ".github/instructions/ts.instructions.md": "---\napplyTo: **/*.ts\n---\nUse TS.\n",
            "src/a.ts": "x\n",
        },
        ".github/instructions/ts.instructions.md",
        '---\napplyTo: "**/*.ts"\n---\nUse TS.\n',
    ),
    (
        "closing-dots-fence",
        "SKL007",
        False,
        "agentskills",
        {".apc/skills/pdf/SKILL.md": SKILL.replace("\n---\nBody", "\n...\nBody")},
        ".apc/skills/pdf/SKILL.md",
        SKILL,
    ),
    (
        "agent-name-slug",
        "AGT004",
        True,
        None,
        {".apc/agents/reviewer.md": AGENT.replace("name: reviewer", "name: Code Reviewer  # me")},
        ".apc/agents/reviewer.md",
        AGENT.replace("name: reviewer", "name: reviewer  # me"),
    ),
    (
        "skill-name-folder",
        "SKL004",
        True,
        None,
        {".apc/skills/pdf/SKILL.md": SKILL.replace("name: pdf", "name: 'pdf-tools'")},
        ".apc/skills/pdf/SKILL.md",
        SKILL.replace("name: pdf", "name: 'pdf'"),
    ),
    (
        "skill-description-cut",
        "SKL005",
        True,
        None,
        {".apc/skills/pdf/SKILL.md": SKILL.replace("Extract text.", LONG)},
        ".apc/skills/pdf/SKILL.md",
        SKILL.replace("Extract text.", CUT),
    ),
    (
        "skill-unknown-keys-moved-under-new-metadata",
        "SKL006",
        True,
        None,
        {
            ".apc/skills/pdf/SKILL.md": SKILL.replace(
                "Extract text.\n", "Extract text.\nversion: 1.10\n"
            )
        },
        ".apc/skills/pdf/SKILL.md",
        SKILL.replace("Extract text.\n", 'Extract text.\nmetadata:\n  version: "1.10"\n'),
    ),
    (
        "skill-unknown-key-into-existing-metadata",
        "SKL006",
        True,
        None,
        {
            ".apc/skills/pdf/SKILL.md": SKILL.replace(
                "name: pdf\n", "name: pdf\nauthor: me\nmetadata:\n    team: docs\n"
            )
        },
        ".apc/skills/pdf/SKILL.md",
        SKILL.replace("name: pdf\n", 'name: pdf\nmetadata:\n    team: docs\n    author: "me"\n'),
    ),
    (
        "mcp-secret-placeholder",
        "MCP003",
        True,
        None,
        {
            ".apc/mcps.json": json.dumps(
                {
                    "mcpServers": {
                        "gh": {
                            "command": "gh-mcp",
                            "env": {"GITHUB_TOKEN": TOKEN, "LOG": "1"},
                            "headers": {"Authorization": f"Bearer {TOKEN}"},
                        }
                    }
                },
                indent=2,
            )
            + "\n"
        },
        ".apc/mcps.json",
        json.dumps(
            {
                "mcpServers": {
                    "gh": {
                        "command": "gh-mcp",
                        "env": {"GITHUB_TOKEN": "${env:GITHUB_TOKEN}", "LOG": "1"},
                        "headers": {"Authorization": "Bearer ${env:GH_AUTHORIZATION}"},
                    }
                }
            },
            indent=2,
        )
        + "\n",
    ),
]


@pytest.mark.parametrize(
    ("rule", "unsafe", "profile", "files", "rel", "after"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_fix_before_after_and_idempotent(
    tmp_path: Path,
    rule: str,
    unsafe: bool,
    profile: str | None,
    files: dict[str, str | bytes],
    rel: str,
    after: str | bytes,
) -> None:
    drop = (".apc/.gitignore",) if rule == "GIG002" else ()
    root = project(tmp_path, files, drop=drop)
    before_files = snapshot(root)
    before = all_findings(root, profile)
    assert (rule, rel) in before
    if unsafe:  # an unsafe fix waits for --unsafe-fixes
        assert not fix_paths([], cwd=root, profile=profile).files
        assert snapshot(root) == before_files
    outcome = fix_paths([], unsafe=unsafe, cwd=root, profile=profile)
    assert [a.rule for a in outcome.applied].count(rule) >= 1
    want = after if isinstance(after, bytes) else after.encode()
    assert (root / rel).read_bytes() == want
    # every other file is byte-identical
    assert {k: v for k, v in snapshot(root).items() if k != rel} == {
        k: v for k, v in before_files.items() if k != rel
    }
    # the rule no longer fires there, and nothing new appears anywhere
    now = all_findings(root, profile)
    assert (rule, rel) not in now
    assert set(now) <= set(before)
    # idempotent: a second run changes nothing
    again = fix_paths([], unsafe=unsafe, cwd=root, profile=profile)
    assert again.files == []
    assert (root / rel).read_bytes() == want


def test_cursor_globs_stay_as_cursor_writes_them(tmp_path: Path) -> None:
    rule = "---\ndescription: TS: strict\nglobs: **/*.ts\n---\nUse TS.\n"
    root = project(tmp_path, {".cursor/rules/ts.mdc": rule, "a.ts": "x\n"})
    fix_paths([], cwd=root)
    assert (root / ".cursor/rules/ts.mdc").read_text() == (
        '---\ndescription: "TS: strict"\nglobs: **/*.ts\n---\nUse TS.\n'
    )
    assert rules_on(root, ".cursor/rules/ts.mdc") == []  # Cursor's own globs: no finding


def test_a_file_apc_cannot_parse_is_never_fixed(tmp_path: Path) -> None:
    broken = b"\xef\xbb\xbf---\nname: Other\ndescription: [unclosed\n---\n"
    root = project(tmp_path, {".apc/agents/reviewer.md": broken})
    outcome = fix_paths([], unsafe=True, cwd=root)
    assert (root / ".apc/agents/reviewer.md").read_bytes() == broken
    assert (".apc/agents/reviewer.md", "apc could not parse it safely: not fixed") in (
        outcome.skipped
    )


def test_a_fix_that_would_add_a_finding_is_dropped(tmp_path: Path) -> None:
    # the folder name is no valid skill name: naming the skill after it would be SKL003
    files: dict[str, str | bytes] = {".apc/skills/PDF_Tools/SKILL.md": SKILL}
    root = project(tmp_path, files, drop=(".apc/skills/pdf/SKILL.md",))
    before = all_findings(root)
    assert ("SKL004", ".apc/skills/PDF_Tools/SKILL.md") in before
    outcome = fix_paths([], unsafe=True, cwd=root)
    assert (root / ".apc/skills/PDF_Tools/SKILL.md").read_text() == SKILL
    assert all_findings(root) == before
    assert any("would add a finding" in why for _, why in outcome.skipped)


def test_a_symlinked_contract_file_is_not_written(tmp_path: Path) -> None:
    root = project(tmp_path, {"docs/reviewer.md": "\ufeff" + AGENT})
    agent = root / ".apc/agents/reviewer.md"
    agent.unlink()
    os.symlink("../../docs/reviewer.md", agent)
    assert "FMT002" in rules_on(root, ".apc/agents/reviewer.md")
    outcome = fix_paths([], cwd=root)
    assert agent.is_symlink()
    assert (root / "docs/reviewer.md").read_text(encoding="utf-8") == "\ufeff" + AGENT
    assert any(shown == ".apc/agents/reviewer.md" for shown, _ in outcome.skipped)


def test_a_file_changed_after_planning_is_left_alone(tmp_path: Path) -> None:
    root = project(tmp_path, {".apc/project.json": PROJECT_JSON.replace('"apc"', '"apf"')})
    from apc_tools.contract.fix import write_fixes

    outcome = plan_fixes([], cwd=root)
    (root / ".apc/project.json").write_text('{"name": "edited", "apf": "0.1.0"}\n')
    failed = write_fixes(outcome)
    assert failed and "changed since" in failed[0][1]
    assert (root / ".apc/project.json").read_text() == '{"name": "edited", "apf": "0.1.0"}\n'


def test_fixes_only_under_the_paths_named(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            ".apc/agents/reviewer.md": AGENT.replace("Reviews code.", "Reviews: code"),
            ".apc/project.json": PROJECT_JSON.replace('"apc"', '"apf"'),
        },
    )
    fix_paths([Path(".apc/agents")], cwd=root)
    assert "YML005" not in rules_on(root, ".apc/agents/reviewer.md")
    assert "PRJ003" in rules_on(root, ".apc/project.json")


def test_policy_disabled_rule_is_not_fixed(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            ".apc/project.json": PROJECT_JSON.replace('"apc"', '"apf"'),
            ".apc-tools.yaml": "version: 1\ndisable:\n  - PRJ003\n",
        },
    )
    before = snapshot(root)
    outcome = fix_paths([], cwd=root)
    assert outcome.files == [] and snapshot(root) == before


# --------------------------------------------------------------------------- the command line


def test_cli_diff_writes_nothing_and_never_prints_the_secret(tmp_path: Path) -> None:
    mcps = {"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": TOKEN}}}}
    root = project(tmp_path, {".apc/mcps.json": json.dumps(mcps) + "\n"})
    before = snapshot(root)
    done = apc("validate", "--diff", "--unsafe-fixes", cwd=root)
    assert done.returncode == 1, done.stderr
    assert "+++ b/.apc/mcps.json" in done.stdout and "${env:GITHUB_TOKEN}" in done.stdout
    assert TOKEN not in done.stdout + done.stderr
    assert "set GITHUB_TOKEN" in done.stderr and "would fix 1 finding" in done.stderr
    assert snapshot(root) == before
    safe_only = apc("validate", "--diff", cwd=root)
    assert safe_only.returncode == 0 and safe_only.stdout == ""
    assert "--unsafe-fixes" in safe_only.stderr


def test_cli_diff_never_prints_a_secret_written_with_json_escapes(tmp_path: Path) -> None:
    """A secret spelled with JSON escapes (`\\u0073k-...`) is the same secret: the removed line
    of the diff must not show it either (the detectors read the text, not the JSON)."""
    secret = "sk-ant-api03-" + "Zq9" * 30
    escaped = "\\u0073" + secret[1:]
    text = '{"mcpServers": {"a": {"command": "a", "env": {"ANTHROPIC_API_KEY": "%s"}}}}\n'
    root = project(tmp_path, {".apc/mcps.json": text % escaped})
    done = apc("validate", "--diff", "--unsafe-fixes", cwd=root)
    assert done.returncode == 1, done.stderr
    assert "${env:ANTHROPIC_API_KEY}" in done.stdout
    assert "Zq9Zq9" not in done.stdout + done.stderr


def test_cli_fix_then_reports_what_is_left(tmp_path: Path) -> None:
    mcps = {"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": TOKEN}}}}
    root = project(
        tmp_path,
        {
            ".apc/mcps.json": json.dumps(mcps) + "\n",
            ".apc/project.json": PROJECT_JSON.replace('"apc"', '"apf"'),
        },
    )
    done = apc("validate", "--fix", cwd=root)
    assert done.returncode == 1  # the unsafe MCP003 is left, an error
    assert "fixed 1 finding in 1 file" in done.stdout
    assert "MCP003" in done.stdout and "PRJ003" not in done.stdout
    assert TOKEN not in done.stdout + done.stderr
    unsafe = apc("validate", "--fix", "--unsafe-fixes", "--format", "json", cwd=root)
    assert unsafe.returncode == 0, unsafe.stdout + unsafe.stderr
    assert json.loads(unsafe.stdout)["findings"] == []
    assert "set GITHUB_TOKEN" in unsafe.stderr and TOKEN not in unsafe.stderr


def test_cli_unsafe_fixes_alone_is_a_usage_error(tmp_path: Path) -> None:
    root = project(tmp_path, {})
    done = apc("validate", "--unsafe-fixes", cwd=root)
    assert done.returncode == 2 and "needs --fix or --diff" in done.stderr


def test_check_fix_repairs_the_validate_half_and_refuses_range(tmp_path: Path) -> None:
    root = project(tmp_path, {".apc/project.json": PROJECT_JSON.replace('"apc"', '"apf"')})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "start")
    refused = apc("check", "--fix", "--range", "HEAD..HEAD", cwd=root)
    assert refused.returncode == 2 and "never run with --range" in refused.stderr
    assert "apf" in (root / ".apc/project.json").read_text()
    done = apc("check", "--fix", cwd=root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (root / ".apc/project.json").read_text() == PROJECT_JSON


# --------------------------------------------------------------------------- the registry


def test_rules_fixable_lists_them_with_their_safety() -> None:
    done = apc("rules", "--fixable", "--format", "json")
    rules = json.loads(done.stdout)["rules"]
    fixable = {r.id: r.fix for r in registry() if r.fix}
    assert {r["id"]: r["fix"] for r in rules} == fixable
    assert {"GIG001", "YML005", "FMT002", "PRJ002", "PRJ003"} <= {
        k for k, v in fixable.items() if v == "safe"
    }
    assert {"AGT004", "SKL004", "SKL005", "MCP003"} <= {
        k for k, v in fixable.items() if v == "unsafe"
    }
    every = json.loads(apc("rules", "--format", "json").stdout)["rules"]
    assert all(("fix" in r) == (r["id"] in fixable) for r in every)
    text = apc("rules", "--fixable").stdout
    assert fix_counts(registry()) in text


def test_every_contract_fix_has_a_fixer() -> None:
    from apc_tools.boundary.fix import fixable_rules
    from apc_tools.contract.fix import FILE_FIXES, FIXERS

    contract = {r.id for r in registry() if r.fix and r.family != "boundary"}
    assert contract == set(FIXERS) | set(FILE_FIXES)
    assert {r.id for r in registry() if r.fix and r.family == "boundary"} == fixable_rules()
    assert all(r.fix_how for r in registry() if r.fix)


def test_readme_states_the_count_of_fixable_rules() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8").replace("\n  ", " ")
    assert fix_counts(registry()) in readme


def test_cli_fix_from_a_subfolder_reports_root_paths(tmp_path: Path) -> None:
    mcps = {"mcpServers": {"gh": {"command": "gh-mcp", "env": {"GITHUB_TOKEN": TOKEN}}}}
    root = project(tmp_path, {".apc/mcps.json": json.dumps(mcps) + "\n"})
    git(root, "init", "-q", "-b", "main")
    done = apc("validate", "--fix", "--unsafe-fixes", cwd=root / ".apc" / "agents")
    assert done.returncode == 0, done.stdout + done.stderr
    assert ".apc/mcps.json:1: MCP003: mcpServers.gh.env.GITHUB_TOKEN: set GITHUB_TOKEN" in (
        done.stdout
    )
    assert "${env:GITHUB_TOKEN}" in (root / ".apc/mcps.json").read_text()


# ------------------------------------------------------------- --select / --ignore limit --fix


def selection_project(tmp_path: Path) -> Path:
    """A BOM (FMT002, safe), an unquoted `: ` value (YML005, safe) and a skill named unlike its
    folder (SKL004, whose rename is unsafe) in one project."""
    return project(
        tmp_path,
        {
            ".apc/agents/reviewer.md": b"\xef\xbb\xbf"
            + AGENT.replace("Reviews code.", "Reviews: code").encode(),
            ".apc/skills/pdf/SKILL.md": SKILL.replace("name: pdf", "name: pdf-tools"),
        },
    )


@pytest.mark.parametrize(
    ("options", "fixed", "kept"),
    [
        (["--ignore", "YML005"], {"FMT002"}, {"YML005"}),
        (["--ignore", "FMT002"], {"YML005"}, {"FMT002"}),
        (["--select", "YML"], {"YML005"}, {"FMT002"}),  # FMT002 is not reported: not fixed
        (["--ignore", "FMT,YML"], set(), {"FMT002", "YML005"}),
    ],
)
def test_select_and_ignore_limit_fix_as_they_limit_the_report(
    tmp_path: Path, options: list[str], fixed: set[str], kept: set[str]
) -> None:
    root = selection_project(tmp_path)
    agent = ".apc/agents/reviewer.md"
    before = set(rules_on(root, agent))
    assert {"FMT002", "YML005"} <= before
    done = apc("validate", "--fix", *options, cwd=root)
    assert done.returncode in (0, 1), done.stderr
    after = set(rules_on(root, agent))
    assert not fixed & after, done.stdout + done.stderr
    assert kept <= after
    raw = (root / agent).read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") == ("FMT002" in kept)


def test_select_limits_the_unsafe_fixes_too(tmp_path: Path) -> None:
    root = selection_project(tmp_path)
    skill = ".apc/skills/pdf/SKILL.md"
    assert "SKL004" in rules_on(root, skill)
    before = (root / skill).read_text()
    done = apc("validate", "--fix", "--unsafe-fixes", "--select", "YML,FMT,SKL005", cwd=root)
    assert done.returncode in (0, 1), done.stderr
    assert (root / skill).read_text() == before  # SKL004 was not selected: not renamed
    assert "YML005" not in rules_on(root, ".apc/agents/reviewer.md")
    done = apc("validate", "--fix", "--unsafe-fixes", "--select", "SKL004", cwd=root)
    assert "SKL004" not in rules_on(root, skill), done.stdout + done.stderr


# ------------------------------------------------------------- --diff applies as it is


def files_of(root: Path) -> dict[str, bytes]:
    return {k: v for k, v in snapshot(root).items() if not k.startswith(".git/")}


def test_the_diff_applies_with_git_apply_and_patch_to_crlf_and_bom_files(tmp_path: Path) -> None:
    import subprocess
    import sys

    from tests.conftest import apc_env

    crlf = AGENT.replace("Reviews code.", "Reviews: code").replace("\n", "\r\n")
    files: dict[str, str | bytes] = {
        ".apc/agents/reviewer.md": crlf.encode(),  # YML005 on a CRLF file
        ".apc/agents/writer.md": b"\xef\xbb\xbf"  # a BOM (FMT002) and YML005
        + AGENT.replace("reviewer", "writer").replace("Reviews code.", "Writes: docs").encode(),
        ".apc/agents/form.md": AGENT.replace("reviewer", "form")
        .replace("Reviews code.", "Forms: a\x0cb")  # a form feed is not a line end
        .encode(),
    }
    root = project(tmp_path, files)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init")
    before = files_of(root)
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "validate", "--diff"],
        cwd=root,
        env=apc_env(None, no_color=True),
        capture_output=True,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    patch = done.stdout
    assert b"\r\n" in patch and b"\\ufeff" not in patch and b"\xef\xbb\xbf" in patch
    assert files_of(root) == before  # --diff wrote nothing
    (tmp_path / "fix.patch").write_bytes(patch)
    fixed = tmp_path / "fixed"
    fixed.mkdir()
    fix_paths([], cwd=root, write=False)  # the plan alone writes nothing either
    assert files_of(root) == before
    # what --fix writes, in a copy
    import shutil

    shutil.copytree(root, fixed / "project")
    assert apc("validate", "--fix", cwd=fixed / "project").returncode in (0, 1)
    wanted = files_of(fixed / "project")
    assert wanted != before
    # git apply
    git(root, "apply", "--check", str(tmp_path / "fix.patch"))
    git(root, "apply", str(tmp_path / "fix.patch"))
    assert files_of(root) == wanted
    # patch(1), on a fresh copy of the original files
    git(root, "checkout", "-q", "--", ".")
    git(root, "clean", "-qfdx")
    assert files_of(root) == before
    subprocess.run(
        ["patch", "-p1", "--quiet", "--binary", "-i", str(tmp_path / "fix.patch")],
        cwd=root,
        check=True,
    )
    assert files_of(root) == wanted


def test_the_diff_on_a_terminal_is_escaped(tmp_path: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    from tests.conftest import apc_env

    agent = AGENT.replace("Reviews code.", "Reviews: \x1b[31mred").replace("\n", "\r\n")
    root = project(tmp_path, {".apc/agents/reviewer.md": agent.encode()})
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "apc_tools", "validate", "--diff"],
            cwd=root,
            env=apc_env(None, no_color=True),
            stdout=follower,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            shown += chunk
    finally:
        os.close(leader)
        if follower != -1:
            os.close(follower)
    assert done.returncode == 1, done.stderr
    assert b"+++ b/.apc/agents/reviewer.md" in shown
    assert b"\x1b[31m" not in shown  # the file's escape sequence never reaches the terminal


# ------------------------------------------------------------- SKL005's cut


@pytest.mark.parametrize("header", [">-", ">", "|-"])
def test_a_long_block_description_is_cut_at_a_sentence_and_stays_a_block(
    tmp_path: Path, header: str
) -> None:
    words = " ".join(f"word{i}" for i in range(60))
    long = " ".join([f"Sentence {i} says {words}." for i in range(4)])  # ~1,700 characters
    wrapped = "\n".join("  " + long[i : i + 70] for i in range(0, len(long), 70))
    if header.startswith(">"):  # fold at spaces, as an editor wraps
        import textwrap

        wrapped = "\n".join("  " + row for row in textwrap.wrap(long, 70))
    else:
        wrapped = "  " + long
    skill = SKILL.replace("Extract text.", f"{header}\n{wrapped}")
    root = project(tmp_path, {".apc/skills/pdf/SKILL.md": skill})
    assert "SKL005" in rules_on(root, ".apc/skills/pdf/SKILL.md")
    fix_paths([], unsafe=True, cwd=root)
    text = (root / ".apc/skills/pdf/SKILL.md").read_text()
    assert f"description: {header}\n  " in text  # the block style is kept
    front = text.split("---\n")[1]
    from ruamel.yaml import YAML

    description = YAML(typ="safe").load(front)["description"]
    assert len(description) <= 1024
    assert description.rstrip("\n").endswith(".")  # at the end of a sentence, never mid-word
    assert long.startswith(description.rstrip("\n"))
    assert "SKL005" not in rules_on(root, ".apc/skills/pdf/SKILL.md")
    if header.startswith(">"):
        assert max(len(line) for line in front.splitlines()) <= 80


def test_the_cut_falls_back_to_a_word_boundary() -> None:
    from apc_tools.contract.fix import cut_at_boundary

    text = "alpha " * 300  # no sentence end at all
    cut = cut_at_boundary(text.strip(), 1024)
    assert len(cut) <= 1024 and cut.endswith("alpha") and text.startswith(cut)
    one = "x" * 2000  # one long word: cut at the limit
    assert cut_at_boundary(one, 1024) == "x" * 1024
    early = "Short. " + "word " * 400  # the only sentence end keeps too little: a word cut
    assert cut_at_boundary(early.strip(), 1024).endswith("word")


def test_unknown_keys_that_are_no_one_line_scalar_are_left(tmp_path: Path) -> None:
    skill = SKILL.replace(
        "Extract text.\n", "Extract text.\ntags: [a, b]\nnote: x # why\nmetadata: {a: b}\n"
    )
    root = project(tmp_path, {".apc/skills/pdf/SKILL.md": skill})
    fix_paths([], unsafe=True, cwd=root)
    assert (root / ".apc/skills/pdf/SKILL.md").read_text() == skill
