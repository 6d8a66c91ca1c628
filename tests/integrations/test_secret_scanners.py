"""Our committed files pass the secret scanners beside us (issue 17): detect-secrets' real
pre-commit hook, installed by the real pre-commit framework from PyPI, accepts the
`.apc-baseline.json` that `apc boundary --write-baseline` writes and the policy files that
`apc init` writes, with no exclusion and no argument; the baseline of older apc versions (bare
hex fingerprints) is what it refused, and apc still reads that one.

The detect-secrets hook is declared as in detect-secrets' own `.pre-commit-hooks.yaml`
(Yelp/detect-secrets v1.5.0: id `detect-secrets`, entry `detect-secrets-hook`, language python,
`files: .*`), as a local hook whose environment pre-commit builds with `detect-secrets==1.5.0`
from PyPI: the repository URL would need GitHub, which the tests do not reach.

gitleaks is not tested here: it is a Go binary, published neither on PyPI nor on npm (only
third-party wrappers that download it at run time), and not in Debian's archive on this machine.
Its default rules (gitleaks.toml) were read instead: none matches a hex value after the key
`fingerprint` (its generic rule needs a word such as key, token or secret), in either form.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.integrations.conftest import HookRepo, Project
from tests.integrations.leaks import CLAUDE_SESSION, MARKER, PROJECT

DETECT_SECRETS = "detect-secrets==1.5.0"


def config(hook_repo: HookRepo) -> str:
    return (
        hook_repo.config("apc-boundary")
        + "  - repo: local\n"
        + "    hooks:\n"
        + "      - id: detect-secrets\n"
        + "        name: Detect secrets\n"
        + "        entry: detect-secrets-hook\n"
        + "        language: python\n"
        + "        files: .*\n"
        + f"        additional_dependencies: [{DETECT_SECRETS!r}]\n"
    )


def old_form(baseline: str) -> str:
    """The baseline as apc-tools wrote it before: the first occurrence a bare hex string."""
    return re.sub(r'("fingerprint": "[0-9a-f]{32}):1"', r'\1"', baseline)


def test_detect_secrets_hook_passes_our_baseline_and_policy(
    tmp_path: Path, hook_repo: HookRepo
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    project = Project(root, hook_repo)
    project.run("git", "init", "-q", "-b", "main", check=True)
    accepted = {
        "tests/fixtures/session.jsonl": CLAUDE_SESSION,
        "docs/markers.md": f"Claude Code writes {MARKER}.\n",
        "docs/more.md": f"Esc shows {MARKER}.\n",
    }
    project.write({**PROJECT, **accepted, ".pre-commit-config.yaml": config(hook_repo)})
    project.commit("start", "--no-verify")
    project.run("apc", "init", check=True)  # .apc-tools.yaml and .apc-tools.schema.json
    written = project.run("apc", "boundary", "--tracked", "--write-baseline")
    assert written.returncode == 0, written.stdout + written.stderr
    baseline = (root / ".apc-baseline.json").read_text(encoding="utf-8")
    entries = json.loads(baseline)["findings"]
    assert len(entries) >= 3 and {e["rule"] for e in entries} >= {"BTR001", "BMK002"}
    assert all(re.fullmatch(r"[0-9a-f]{32}:[0-9]+", e["fingerprint"]) for e in entries)
    project.run("pre-commit", "install", check=True)

    # the older form: apc reads it the same (nothing new, nothing stale), detect-secrets refuses
    (root / ".apc-baseline.json").write_text(old_form(baseline), encoding="utf-8")
    assert old_form(baseline) != baseline
    again = project.run("apc", "boundary", "--tracked")
    assert again.returncode == 0 and "BPL001" not in again.stdout, again.stdout
    refused = project.commit("adopt apc with the old baseline")
    shown = refused.stdout + refused.stderr
    assert refused.returncode == 1, shown
    assert "Hex High Entropy String" in shown and ".apc-baseline.json" in shown, shown
    assert ".apc-tools" not in shown, shown  # apc init's files pass
    assert re.search(r"^apc boundary .*\.+Passed$", shown, re.M), shown  # git: hook out on stderr
    assert project.run("git", "log", "--format=%s").stdout.split("\n")[0] == "start"

    # what apc writes today: both hooks pass, with the policy files of apc init in the commit
    (root / ".apc-baseline.json").write_text(baseline, encoding="utf-8")
    done = project.commit("adopt apc")
    shown = done.stdout + done.stderr
    assert done.returncode == 0, shown
    assert re.search(r"^Detect secrets\.+Passed$", shown, re.M), shown
    committed = project.run("git", "show", "--name-only", "--format=", "HEAD").stdout.split()
    assert {".apc-baseline.json", ".apc-tools.yaml", ".apc-tools.schema.json"} <= set(committed)
    assert project.run("apc", "boundary", "--tracked").returncode == 0
