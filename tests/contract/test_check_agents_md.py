"""AGENTS.md checks (AGM001-AGM006) through validate() on real trees."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.checks_base import BASE, run, where

TOKEN = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"


def test_clean_project_has_no_findings(tmp_path: Path) -> None:
    assert run(tmp_path, {}) == []


def test_missing_agents_md_is_reported_on_project_json(tmp_path: Path) -> None:
    files = {k: v for k, v in BASE.items() if k != "AGENTS.md"}
    found = run(tmp_path, files, base=False)
    assert where(found, "AGM001") == [(".apc/project.json", 1, 1)]
    assert "AGENTS.md" in next(f.message for f in found if f.rule == "AGM001")


def test_nested_project_without_agents_md(tmp_path: Path) -> None:
    nested = {f"sub/{k}": v for k, v in BASE.items() if k != "AGENTS.md"}
    found = run(tmp_path, nested)
    assert where(found, "AGM001") == [("sub/.apc/project.json", 1, 1)]


def test_agents_md_only_is_info(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.md": "# Repo\n"}, base=False)
    assert [(f.rule, f.severity.value, f.path) for f in found] == [("AGM006", "info", "AGENTS.md")]


def test_empty_agents_md_is_reported_once(tmp_path: Path) -> None:
    found = run(tmp_path, {"AGENTS.md": "  \n"})
    assert [f.rule for f in found] == ["IO006"]


def test_size_budget_points_at_the_cut(tmp_path: Path) -> None:
    line = "x" * 99 + "\n"  # 100 bytes a line
    text = line * 400  # 40,000 bytes
    found = run(tmp_path, {"AGENTS.md": text})
    # byte 32768 is on line 328 (lines 1-327 hold 32,700 bytes), column 69
    assert where(found, "AGM002") == [("AGENTS.md", 328, 69)]
    assert found[0].severity.value == "warning"


def test_size_budget_counts_bytes_not_characters(tmp_path: Path) -> None:
    assert where(run(tmp_path, {"AGENTS.md": "é" * 16000}), "AGM002") == []
    assert where(run(tmp_path / "b", {"AGENTS.md": "é" * 17000}), "AGM002") == [
        ("AGENTS.md", 1, 16385)
    ]


LINKS = """# Demo

See [style](docs/style.md) and [missing](docs/nope.md#part).
![logo](img/logo.png "Logo") and [dir](docs/) and [root](/README.md?plain=1).
[web](https://example.com/x.md), [mail](mailto:a@b.c), [anchor](#setup), [<x>](<docs/a b.md>)
`[code](in/code.md)` and:

```md
[fenced](fenced/missing.md)
```

[ref]: ./gone.md
[ok]: docs/style.md
[^note]: a footnote, not a link
"""


def test_links_resolve_against_project_files(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {"AGENTS.md": LINKS, "docs/style.md": "# Style\n", "docs/a b.md": "x\n"},
    )
    assert where(found, "AGM003") == [
        ("AGENTS.md", 3, 42),
        ("AGENTS.md", 4, 9),
        ("AGENTS.md", 4, 58),
        ("AGENTS.md", 12, 8),
    ]
    messages = [f.message for f in found if f.rule == "AGM003"]
    assert "'docs/nope.md'" in messages[0]
    # Codex sends a Markdown link as text and never follows it: a warning, not an error
    assert {f.severity.value for f in found if f.rule == "AGM003"} == {"warning"}
    assert all("code.md" not in m and "fenced" not in m for m in messages)


def test_nested_agents_md_links_are_relative_to_its_folder(tmp_path: Path) -> None:
    found = run(
        tmp_path,
        {
            "pkg/AGENTS.md": "[a](notes.md) [b](../docs/x.md) [c](../../outside.md)\n",
            "pkg/notes.md": "n\n",
        },
    )
    assert where(found, "AGM003") == [("pkg/AGENTS.md", 1, 19)]


def test_link_into_a_nested_project_resolves(tmp_path: Path) -> None:
    nested = {f"examples/demo/{k}": v for k, v in BASE.items()}
    found = run(tmp_path, {**nested, "AGENTS.md": "[ex](examples/demo/AGENTS.md)\n"})
    assert where(found, "AGM003") == []


def test_links_in_a_git_repo_use_tracked_and_untracked_files(
    git_repo: Callable[..., Path],
) -> None:
    from apc_tools.contract.validate import validate

    root = git_repo({**BASE, "AGENTS.md": "[a](docs/a.md) [b](docs/b.md)\n", "docs/a.md": "a\n"})
    result = validate([root], cwd=root)
    assert [(f.rule, f.line, f.column) for f in result.findings] == [("AGM003", 1, 20)]
    # a warning: the readers of AGENTS.md never follow a link; only --strict fails on it
    assert not result.failed() and result.failed(strict=True)


def test_secret_in_agents_md_is_an_error_without_echo(tmp_path: Path) -> None:
    text = f"# Demo\n\nRelease with token {TOKEN} please.\n"
    found = run(tmp_path, {"AGENTS.md": text})
    assert where(found, "AGM004") == [("AGENTS.md", 3, 20)]
    message = found[0].message
    assert TOKEN not in message and TOKEN[4:12] not in message
    assert "ghp_…" in message


def test_placeholder_secrets_in_agents_md_are_fine(tmp_path: Path) -> None:
    text = '# Demo\n\nSet `API_KEY: "secret-api-key"` or `GITHUB_TOKEN=<TOKEN>`.\n'
    assert run(tmp_path, {"AGENTS.md": text}) == []


def test_interruption_marker_in_agents_md(tmp_path: Path) -> None:
    text = "# Demo\n\nok\n> [Request interrupted by user for tool use]\n"
    found = run(tmp_path, {"AGENTS.md": text})
    assert where(found, "AGM005") == [("AGENTS.md", 4, 3)]
    assert found[0].severity.value == "error"


def test_odd_link_targets_do_not_crash(tmp_path: Path) -> None:
    text = "[nul](a%00b.md) [long](" + "x" * 300 + ".md) [dots](./././)\n"
    found = run(tmp_path, {"AGENTS.md": text})
    assert [(f.rule, f.column) for f in found] == [("AGM003", 7), ("AGM003", 24)]
    assert "a\\x00b.md" in found[0].message
