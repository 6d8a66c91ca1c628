"""The code actions edit exactly what `apc validate --fix` writes, on every fixable rule's
failing example (tests/cases/invalid/*/RULE*): one copy of the case is fixed by the CLI on disk,
the other is opened in the server, whose actions are applied to the buffers (the safe fixes by
``source.fixAll.apc``, an unsafe rule by its quick fix, titled unsafe); the buffers then equal
the CLI's files, and once the edited buffers are sent back the rule's diagnostics are gone."""

from __future__ import annotations

import shutil
from pathlib import Path

from lsprotocol import types as t

from apc_tools.contract.fix import fix_kinds, fix_paths
from tests.lsp.harness import Session, apply_edit, run, uri
from tests.test_cases import CASES, case_spec

FIXABLE = {rule: kind for rule, kind in fix_kinds().items() if kind}
FIX_CASES = sorted(
    case
    for family in (CASES / "invalid").iterdir()
    for case in family.iterdir()
    if case.is_dir()
    and case.name[:6] in FIXABLE
    and case_spec(case).get("command", "validate") == "validate"
    and not case_spec(case).get("links")
    and not case_spec(case).get("generate")
)


def lay_out(case: Path, folder: Path) -> Path:
    shutil.copytree(case, folder, symlinks=True)
    spec = case_spec(case)
    (folder / "case.json").unlink(missing_ok=True)
    profile = spec.get("profile")
    if profile and not (folder / ".apc-tools.yaml").exists():
        (folder / ".apc-tools.yaml").write_text(f"version: 1\nprofile: {profile}\n")
    return folder


def files_of(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def cli_fix(folder: Path, unsafe: bool) -> None:
    """What `apc validate --fix [--unsafe-fixes]` run in ``folder`` writes (its library call)."""
    fix_paths([], unsafe=unsafe, cwd=folder)


def test_every_fixable_rules_failing_example(tmp_path: Path) -> None:
    assert len(FIX_CASES) >= 10
    pairs = []
    for case in FIX_CASES:
        rule = case.name[:6]
        name = f"{case.parent.name}-{case.name}"
        by_cli = lay_out(case, tmp_path / "cli" / name)
        in_editor = lay_out(case, tmp_path / "lsp" / name)
        cli_fix(by_cli, FIXABLE[rule] == "unsafe")
        pairs.append((rule, by_cli, in_editor))
    results = run(fix_in_editor(pairs))
    checked = 0
    for rule, by_cli, in_editor in pairs:
        want = files_of(by_cli)
        got = results[in_editor]
        assert (rule, in_editor.name, got) == (rule, in_editor.name, want)
        checked += want != files_of(in_editor)
    assert checked >= 9  # the CLI fixed something in these cases, and so did the actions


async def fix_in_editor(pairs: list[tuple[str, Path, Path]]) -> dict[Path, dict[str, bytes]]:
    """Each folder's files after the server's fixes were applied to the buffers (the files on
    disk are never written by the server: the result is what the editor would save)."""
    folders = [folder for _, _, folder in pairs]
    out: dict[Path, dict[str, bytes]] = {}
    async with Session(folders) as session:
        for folder in folders:
            for path in folder.rglob("*"):
                if path.is_file() and path.suffix in (".md", ".mdc", ".json", ""):
                    session.open(path)
        await session.barrier(folders[0] / "AGENTS.md")
        for rule, _, folder in pairs:
            files = files_of(folder)
            texts = {rel: data.decode("utf-8") for rel, data in files.items()}
            unsafe = FIXABLE[rule] == "unsafe"
            applied = False
            for key in [k for k in session.diagnostics if k.startswith(uri(folder) + "/")]:
                mine = [d for d in session.diagnostics[key] if d.code == rule]
                if not mine:
                    continue
                actions = await session.request(
                    session.client.text_document_code_action_async(
                        t.CodeActionParams(
                            text_document=t.TextDocumentIdentifier(uri=key),
                            range=mine[0].range,
                            context=t.CodeActionContext(diagnostics=mine),
                        )
                    )
                )
                kinds = [a.kind for a in actions or [] if isinstance(a, t.CodeAction)]
                wanted = t.CodeActionKind.QuickFix if unsafe else "source.fixAll.apc"
                chosen = [
                    a for a in actions or [] if isinstance(a, t.CodeAction) and a.kind == wanted
                ]
                if not chosen:  # no fix applies here (then the CLI's files must be unchanged)
                    continue
                assert kinds.count(wanted) == 1, (rule, folder.name, kinds)
                action = chosen[0]
                if unsafe:
                    assert "unsafe" in action.title and not action.is_preferred
                applied = True
                edit = action.edit
                assert edit is not None and edit.document_changes
                for change in edit.document_changes:
                    if isinstance(change, t.CreateFile):
                        continue
                    assert isinstance(change, t.TextDocumentEdit)
                    rel = change.text_document.uri.removeprefix(uri(folder) + "/")
                    texts[rel] = apply_edit(texts.get(rel, ""), list(change.edits))  # type: ignore[arg-type]
            out[folder] = {rel: text.encode("utf-8") for rel, text in sorted(texts.items())}
            # the edited buffers, sent back, no longer hold the rule's findings
            for rel, text in texts.items():
                path = folder / rel
                if path.is_file() and text.encode() != files[rel]:
                    session.replace(path, text)
            await session.barrier(folder / "AGENTS.md")
            left = [
                (key, d.code)
                for key, found in session.diagnostics.items()
                if key.startswith(uri(folder) + "/") and key in {uri(folder / r) for r in files}
                for d in found
                if d.code == rule and (folder / key.removeprefix(uri(folder) + "/")).is_file()
            ]
            assert not applied or left == [], (rule, folder.name)
    return out
