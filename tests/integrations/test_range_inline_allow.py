"""Range mode under `--no-inline-allow` (the Action's default): an `apc: allow` already in the
base commit counts, for the finding it accepted there; one the range adds does not (issue 32,
point 1: a pull request cannot add an allow that judges itself). Real git repositories, real
`apc` subprocesses, both commands (`apc check --range`, `apc boundary --range`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_cli import apc
from tests.conftest import git, write_tree
from tests.integrations.leaks import PROJECT
from tests.integrations.test_check import commit_all

TOKEN = "ghp_" + "Zq8Lm2Xv7Rt4Np1Wk9Hs3Jd6Fb0Yc5Ge8Ua2"
OTHER = "ghp_" + "Mw3Kd9Qp1Zx7Lr5Vt2Nb8Hc4Js6Yf0Ag3Ee1"
SKILL = "skills/deploy/SKILL.md"


def skill(*lines: str) -> str:
    body = "\n".join(lines)
    return f"---\nname: deploy\ndescription: Deploys the app\n---\n{body}\n"


COMMANDS = (["check"], ["boundary"])


def range_of(git_repo: Callable[..., Path], base: str, head: str) -> tuple[Path, str]:
    """A repository whose base commit holds ``base`` as the skill, and whose head ``head``."""
    repo = git_repo({**PROJECT, SKILL: base})
    first = git(repo, "rev-parse", "HEAD").strip()
    write_tree(repo, {SKILL: head})
    return repo, f"{first}..{commit_all(repo, 'head')}"


def verdicts(repo: Path, rev_range: str) -> dict[str, int]:
    out = {}
    for command in COMMANDS:
        done = apc(*command, "--range", rev_range, "--no-inline-allow", "--no-color", cwd=repo)
        assert done.returncode in (0, 1), (command, done.stdout, done.stderr)
        out[command[0]] = done.returncode
    return out


ALLOWED = f"Deploy with {TOKEN} <!-- apc: allow SEC001 -->"


@pytest.mark.parametrize("rule", ["SEC001", "BSC001"])
def test_an_allow_already_in_the_base_counts_where_the_head_keeps_it(
    git_repo: Callable[..., Path], rule: str
) -> None:
    line = f"Deploy with {TOKEN} <!-- apc: allow {rule} -->"
    repo, rev_range = range_of(git_repo, skill(line), skill(line, "", "A new paragraph."))
    assert verdicts(repo, rev_range) == {"check": 0, "boundary": 0}
    # the comment is still what allows it: without --no-inline-allow the same
    for command in COMMANDS:
        assert apc(*command, "--range", rev_range, cwd=repo).returncode == 0, command


def test_an_allow_the_head_adds_is_not_honoured(git_repo: Callable[..., Path]) -> None:
    repo, rev_range = range_of(git_repo, skill("Deploy it."), skill("Deploy it.", ALLOWED))
    assert verdicts(repo, rev_range) == {"check": 1, "boundary": 1}
    # a local run (the hook, inline allows on) takes the comment
    assert apc("boundary", "--range", rev_range, cwd=repo).returncode == 0


def test_an_allow_the_head_adds_to_an_old_secret_is_not_honoured(
    git_repo: Callable[..., Path],
) -> None:
    """The secret is in the base without a comment: the pull request cannot allow it."""
    repo, rev_range = range_of(
        git_repo, skill(f"Deploy with {TOKEN}"), skill(ALLOWED, "", "More text.")
    )
    assert verdicts(repo, rev_range) == {"check": 1, "boundary": 1}


def test_a_new_secret_beside_an_old_allow_is_not_honoured(git_repo: Callable[..., Path]) -> None:
    """The head keeps the comment but changes the value it accepted: another finding."""
    repo, rev_range = range_of(
        git_repo, skill(ALLOWED), skill(f"Deploy with {OTHER} <!-- apc: allow SEC001 -->")
    )
    done = apc("check", "--range", rev_range, "--no-inline-allow", "--no-color", cwd=repo)
    assert done.returncode == 1 and SKILL in done.stdout, done.stdout
    assert verdicts(repo, rev_range) == {"check": 1, "boundary": 1}


def test_an_allow_the_head_removes_no_longer_counts(git_repo: Callable[..., Path]) -> None:
    repo, rev_range = range_of(git_repo, skill(ALLOWED), skill(f"Deploy with {TOKEN}"))
    assert verdicts(repo, rev_range) == {"check": 1, "boundary": 1}
