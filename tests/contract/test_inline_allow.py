"""`apc: allow RULE` comments in contract files (apc_tools.contract.inline)."""

from __future__ import annotations

from pathlib import Path

from apc_tools.contract.validate import run_validate
from tests.conftest import write_tree

SKILL = "---\nname: a\ndescription: Does a\n{line}\n---\n{body}\n"


def rules(root: Path, *, inline_allow: bool = True) -> list[tuple[str, int | None]]:
    found = run_validate([root], cwd=root, inline_allow=inline_allow).result.findings
    return [(f.rule, f.line) for f in found if f.path.endswith("SKILL.md")]


def skill(tmp_path: Path, line: str, body: str = "Body") -> Path:
    root = tmp_path / "p"
    write_tree(
        root, {"AGENTS.md": "# P\n", "skills/a/SKILL.md": SKILL.format(line=line, body=body)}
    )
    return root


def test_a_yaml_comment_on_the_line_allows_the_rules_it_names(tmp_path: Path) -> None:
    root = skill(tmp_path, "author: me # apc: allow SKL010, SKL006")
    assert rules(root) == []
    assert rules(root, inline_allow=False) == [("SKL006", 4)]


def test_a_markdown_comment_is_not_a_yaml_comment(tmp_path: Path) -> None:
    assert rules(skill(tmp_path, "author: me <!-- apc: allow SKL006 -->")) != []


def test_a_yaml_comment_in_the_body_does_not_count(tmp_path: Path) -> None:
    root = skill(tmp_path, "author: me", body="# apc: allow SKL006")
    assert rules(root) == [("SKL006", 4)]


def test_a_comment_naming_the_wrong_rule_or_misspelt_allows_nothing(tmp_path: Path) -> None:
    assert rules(skill(tmp_path, "author: me # apc: allow SKL007")) == [("SKL006", 4)]
    assert rules(skill(tmp_path / "b", "author: me # apc allow SKL006")) == [("SKL006", 4)]


def test_a_comment_alone_on_the_line_above_allows_the_next_line_only(tmp_path: Path) -> None:
    root = tmp_path / "p"
    text = (
        "---\nname: a\n# apc: allow SKL006\nauthor: me\nowner: you\ndescription: Does a\n---\nB\n"
    )
    write_tree(root, {"AGENTS.md": "# P\n", "skills/a/SKILL.md": text})
    assert rules(root) == [("SKL006", 5)]


# ------------------------------------------------ one cause, one allow, in every command


def secret_repo(tmp_path: Path, rule: str) -> Path:
    """A git repository whose skill carries a token with an `apc: allow RULE` comment, staged
    (not committed): `apc validate`, `apc check` and `apc boundary` (the hook) judge one line."""
    import subprocess

    from tests.conftest import git

    token = "ghp_" + "Zq8Lm2Xv7Rt4Np1Wk9Hs3Jd6Fb0Yc5Ge8Ua2"
    body = f"Deploy with {token} <!-- apc: allow {rule} -->"
    root = skill(tmp_path, "license: MIT", body=body)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    git(root, "add", "-A")
    return root


def commit(root: Path) -> None:
    from tests.conftest import git

    git(root, "-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "skill")


def test_an_allow_of_either_twin_covers_one_cause_everywhere(tmp_path: Path) -> None:
    from tests.cli.test_cli import apc

    for rule in ("SEC001", "BSC001"):
        root = secret_repo(tmp_path / rule, rule)
        staged = apc("boundary", "--staged", "--format", "json", cwd=root)
        assert staged.returncode == 0, (rule, staged.stdout, staged.stderr)
        off = apc("boundary", "--staged", "--no-inline-allow", cwd=root)
        assert off.returncode == 1, (rule, off.stdout)  # CI turns inline allows off
        commit(root)
        for command in (["validate"], ["check"], ["boundary", "--tracked"]):
            done = apc(*command, "--format", "json", cwd=root)
            assert done.returncode == 0, (rule, command, done.stdout, done.stderr)
            off = apc(*command, "--no-inline-allow", cwd=root)
            assert off.returncode == 1, (rule, command, off.stdout)


def test_an_allow_of_another_rule_covers_no_twin(tmp_path: Path) -> None:
    from tests.cli.test_cli import apc

    root = secret_repo(tmp_path, "SKL006")
    assert apc("boundary", "--staged", cwd=root).returncode == 1
    commit(root)
    for command in (["validate"], ["check"], ["boundary", "--tracked"]):
        assert apc(*command, cwd=root).returncode == 1, command
