"""The server's diagnostics are exactly `apc validate --format json`'s findings, on every tree of
the shared corpus (../shared/corpus): every file of the tree is opened in a real `apc lsp`
process (its buffer as on disk), and each published diagnostic is held to the CLI's finding:
rule, severity, message, path, and the range (its start at the finding's line and column, in
UTF-16 units, its end at the end of that line), with the rule's documentation link."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import unquote

from tests.conftest import CORPUS, needs_shared, run_apc
from tests.contract.test_checks_corpus import stage
from tests.lsp.harness import Session, lsp_lines, run, uri, utf16

TREES = (
    sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and p.name != "transcripts")
    if (CORPUS.is_dir())
    else []
)
SEVERITY = {1: "error", 2: "warning", 3: "info"}


def cli_findings(tree: Path) -> list[dict[str, object]]:
    done = run_apc(tree, "validate", "--format", "json")
    assert done.returncode in (0, 1), done.stderr
    return list(json.loads(done.stdout)["findings"])


def expected(tree: Path, finding: dict[str, object]) -> tuple[object, ...]:
    """The diagnostic the finding must be: where it starts and ends, in the client's units."""
    path = tree / str(finding["path"])
    text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
    lines = lsp_lines(text)
    line = max(0, int(finding["line"] or 1) - 1)  # type: ignore[call-overload]
    line = min(line, len(lines) - 1)
    text = lines[line]
    column = min(max(int(finding["column"] or 1) - 1, 0), len(text))  # type: ignore[call-overload]
    return (
        finding["path"],
        finding["rule"],
        finding["severity"],
        finding["message"],
        (line, utf16(text[:column])),
        (line, utf16(text)),
        f"https://github.com/apc-tools/apc-tools/blob/main/docs/rules.md#{str(finding['rule']).lower()}",
    )


async def server_findings(trees: list[Path]) -> dict[Path, list[tuple[object, ...]]]:
    """The diagnostics of one server with every tree a workspace folder, every file open."""
    out: dict[Path, list[tuple[object, ...]]] = {tree: [] for tree in trees}
    async with Session(trees) as session:
        for tree in trees:
            for path in sorted(p for p in tree.rglob("*") if p.is_file() and not p.is_symlink()):
                session.open(path)
        await session.barrier(trees[0] / "AGENTS.md")
        # each tree once more, as after a keystroke: its Outcomes now come from the server's
        # session (contract.session.Session), and the diagnostics must not change
        first, count = dict(session.diagnostics), session.published
        for tree in trees:
            path = min(p for p in tree.rglob("*") if p.is_file() and not p.is_symlink())
            session.replace(path, path.read_bytes().decode("utf-8", "surrogateescape"))
        await session.barrier(trees[0] / "AGENTS.md")
        assert session.diagnostics == first
        assert session.published >= count + len(first) // 2  # published again
        for key, diagnostics in session.diagnostics.items():
            tree = next(t for t in trees if key == uri(t) or key.startswith(uri(t) + "/"))
            rel = "." if key == uri(tree) else unquote(key.removeprefix(uri(tree) + "/"))
            for d in diagnostics:
                if d.source != "apc":
                    continue
                out[tree].append(
                    (
                        rel,
                        d.code,
                        SEVERITY[int(d.severity)],  # type: ignore[arg-type]
                        d.message,
                        (d.range.start.line, d.range.start.character),
                        (d.range.end.line, d.range.end.character),
                        d.code_description.href if d.code_description else None,
                    )
                )
    assert session.exit_code == 0
    return out


def test_server_diagnostics_are_the_cli_findings(tmp_path: Path) -> None:
    """Every tree as extracted, and the subagents, Cursor rules and skills staged where their
    tools read them (as the checks' corpus test stages them: hundreds of findings)."""
    needs_shared(CORPUS)
    trees = [CORPUS / name for name in TREES] + [stage(tmp_path / "staged")]
    got = run(server_findings(trees))
    for tree in trees:
        want = sorted(expected(tree, f) for f in cli_findings(tree))
        assert (tree.name, sorted(got[tree])) == (tree.name, want)
    assert sum(len(found) for found in got.values()) > 200
