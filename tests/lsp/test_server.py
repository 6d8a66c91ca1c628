"""`apc lsp` end to end: a real server process driven by pygls's LanguageClient over stdio, on
real files in temporary folders (and real git repositories where git matters). Each test goes
through initialize, the document notifications, requests, and shutdown/exit (exit code 0)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from lsprotocol import types as t

from apc_tools.catalog import registry
from tests.conftest import git, run_apc, write_tree
from tests.lsp.harness import Session, apply_edit, codes, run, uri
from tests.test_cases import CASES

AGENT = (
    "---\nname: sales\nmodel: inherit\ndescription: Sells.\nskills: pricing, sales-funnel\n---\n"
)
PROJECT = {
    "AGENTS.md": "# Demo\n\nA demo project.\n",
    ".apc/project.json": '{"name": "demo", "apc": "0.1.0", "version": "0.1.0", '
    '"created": "2026-01-01"}\n',
    ".apc/skills/pricing.md": "# pricing\n\nPrice list.\n",
    ".apc/agents/sales.md": AGENT,
}


def project(tmp_path: Path, files: dict[str, str | bytes] | None = None) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(CASES / "invalid" / "agents" / "AGT006", root)
    (root / "case.json").unlink(missing_ok=True)
    write_tree(root, files or {})
    return root


def cli_codes(root: Path, rel: str) -> list[str]:
    done = run_apc(root, "validate", "--format", "json")
    found = json.loads(done.stdout)["findings"]
    return sorted(f["rule"] for f in found if f["path"] == rel)


# --------------------------------------------------------------------------- lifecycle


def test_initialize_answer_is_the_pygls_servers_own(tmp_path: Path) -> None:
    """The initialize answer sent before the LSP libraries are loaded (apc_tools/lsp/early.py)
    is the one pygls computes itself (APC_LSP_EARLY=0), for each position encoding."""
    root = project(tmp_path)

    async def answers(early: str, encodings: list[str] | None) -> object:
        capabilities = t.ClientCapabilities(
            general=t.GeneralClientCapabilities(position_encodings=encodings)  # type: ignore[arg-type]
        )
        async with Session([root], capabilities=capabilities, env={"APC_LSP_EARLY": early}) as s:
            raw = s.client.protocol._converter.unstructure(s.result)
        assert s.exit_code == 0
        return raw

    for encodings in (None, ["latin-1", "utf-32", "utf-16"]):
        early = run(answers("1", encodings))
        assert early == run(answers("0", encodings)), encodings
    assert early["capabilities"]["positionEncoding"] == "utf-32"  # type: ignore[index]


def test_open_change_save_close_and_the_unsaved_buffer(tmp_path: Path) -> None:
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"

    async def scenario() -> None:
        async with Session([root]) as s:
            assert [r.method for r in s.registrations] == []  # until initialized is handled
            s.open(agent)
            found = await s.diagnostics_of(agent)
            assert codes(found) == cli_codes(root, ".apc/agents/sales.md") == ["AGT006"]
            (d,) = found
            assert (d.range.start.line, d.range.start.character) == (4, 17)  # sales-funnel
            assert d.code_description and d.code_description.href.endswith("#agt006")
            # an unsaved edit: the buffer is judged, not the disk
            s.replace(agent, AGENT.replace("skills: pricing, sales-funnel", "skills: pricing"))
            await s.diagnostics_of(agent, lambda d: d == [])
            assert cli_codes(root, ".apc/agents/sales.md") == ["AGT006"]  # disk unchanged
            s.replace(agent, AGENT.replace("name: sales", "name: Sales"))
            found = await s.diagnostics_of(agent, lambda d: "AGT004" in codes(d))
            assert s.versions[uri(agent)] == 3
            # saved: the same
            agent.write_text(AGENT.replace("name: sales", "name: Sales"))
            s.save(agent)
            await s.barrier(agent)
            assert codes(s.diagnostics[uri(agent)]) == cli_codes(root, ".apc/agents/sales.md")
            # closed: its diagnostics are cleared
            s.close(agent)
            await s.diagnostics_of(agent, lambda d: d == [])
            assert s.registrations and s.registrations[0].method == (
                "workspace/didChangeWatchedFiles"
            )
        assert s.exit_code == 0

    run(scenario())


def test_changes_are_debounced(tmp_path: Path) -> None:
    """A burst of changes inside the debounce (here 5 s, so nothing runs on its own) is one
    run: the request that follows runs what is pending first, and one set of diagnostics,
    for the last version, is published before its answer."""
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"

    async def scenario() -> None:
        async with Session([root], debounce=5.0) as s:
            s.open(agent)
            await s.barrier(agent)
            assert codes(s.diagnostics[uri(agent)]) == ["AGT006"]
            before = s.published
            for index in range(5):
                s.replace(agent, AGENT.replace("Sells.", f"Sells {index}."))
            await s.barrier(agent)
            assert s.published == before + 1
            assert s.versions[uri(agent)] == 6

    run(scenario())


def test_incremental_changes_and_positions_in_utf16(tmp_path: Path) -> None:
    """An incremental edit (a range of the buffer replaced), on a line holding characters
    outside the BMP: the range is in UTF-16 units."""
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"
    text = AGENT.replace("description: Sells.", "description: Sells 🚀🚀.")

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(agent, text)
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            # `name: sales` -> `name: s🚀les` (line 1, characters 7-8)
            span = t.Range(t.Position(1, 7), t.Position(1, 8))
            s.edit(agent, span, "🚀")
            found = await s.diagnostics_of(agent, lambda d: "AGT004" in codes(d))
            name = next(d for d in found if d.code in ("AGT004", "AGT001", "AGT011"))
            assert name.range.start.line == 1
            assert name.range.end.character == len("name: s🚀les".encode("utf-16-le")) // 2

    run(scenario())


# --------------------------------------------------------------------------- cross-file


def test_cross_file_findings_follow_watched_file_changes(tmp_path: Path) -> None:
    """AGT006 (a skill the agent lists and the project lacks): the skill created on disk and
    announced by workspace/didChangeWatchedFiles clears it; deleted, it comes back. The skill
    opened in the editor and its name changed in the unsaved buffer: the agent's finding
    comes back without any file written."""
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"
    skill = root / ".apc/skills/sales-funnel.md"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(agent)
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            skill.write_text("# sales-funnel\n\nStages.\n")
            s.watched((skill, t.FileChangeType.Created))
            await s.diagnostics_of(agent, lambda d: d == [])
            skill.unlink()
            s.watched((skill, t.FileChangeType.Deleted))
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])

    run(scenario())


def test_codex_chain_findings_follow_the_files_above(tmp_path: Path) -> None:
    """AGM002/AGM007/AGM008 of a nested AGENTS.md depend on the files above it: the root's
    unsaved buffer grown past the budget gives the open nested file AGM008 (and the root
    AGM002), shrunk it clears them; an AGENTS.override.md created on disk shadows the root's
    AGENTS.md (AGM007) and, at 32 KiB, fills the budget for the nested file again."""
    root = project(tmp_path, {"packages/api/AGENTS.md": "# api\n\nRun `make api-test`.\n"})
    top, nested = root / "AGENTS.md", root / "packages/api/AGENTS.md"
    small = top.read_text()
    big = "x" * 99 + "\n"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(top)
            s.open(nested)
            await s.barrier(nested)
            assert codes(s.diagnostics.get(uri(nested), [])) == []
            s.replace(top, big * 330)
            await s.diagnostics_of(nested, lambda d: codes(d) == ["AGM008"])
            await s.diagnostics_of(top, lambda d: "AGM002" in codes(d))
            s.replace(top, small)
            await s.diagnostics_of(nested, lambda d: d == [])
            override = root / "AGENTS.override.md"
            override.write_text(big * 330)
            s.watched((override, t.FileChangeType.Created))
            await s.diagnostics_of(top, lambda d: "AGM007" in codes(d))
            found = await s.diagnostics_of(nested, lambda d: codes(d) == ["AGM008"])
            assert "AGENTS.override.md (32.0 KiB)" in found[0].message
            override.unlink()
            s.watched((override, t.FileChangeType.Deleted))
            await s.diagnostics_of(nested, lambda d: d == [])
            await s.diagnostics_of(top, lambda d: "AGM007" not in codes(d))

    run(scenario())


def test_a_change_reaches_every_open_file_of_its_project_when_the_rest_is_kept(
    tmp_path: Path,
) -> None:
    """The server keeps what it judged (contract.session): files older than its racy margin
    (2 s) are trusted by their stat signature, and a project the change does not touch is
    taken whole. A cross-file finding still follows every change: a plan whose owner is no
    agent (PLN001) clears when the open project.json's buffer imports that agent, and comes
    back when the buffer is reverted; project.json closed, then edited on disk (keeping its size
    and mtime, announced by no event) to import the agent, the plan's finding goes at the next
    keystroke; the nested project, untouched, keeps its own finding throughout. Each state is
    the CLI's."""
    plan = "---\ntitle: Refresh\nstatus: active\nowner: sofia\nupdated: 2026-06-08\n---\nX\n"
    root = project(tmp_path, {".apc/plans/refresh.md": plan})
    nested = root / "sub"
    shutil.copytree(CASES / "invalid" / "agents" / "AGT006", nested)
    (nested / "case.json").unlink(missing_ok=True)
    plan_path, manifest, other = (
        root / ".apc/plans/refresh.md",
        root / ".apc/project.json",
        nested / ".apc/agents/sales.md",
    )
    base = json.loads(manifest.read_text())
    importing = json.dumps({**base, "agents": {"imported": ["sofia"]}}) + "\n"
    text = json.dumps(base).ljust(len(importing) - 1) + "\n"  # the same size (blanks after)
    manifest.write_text(text)
    time.sleep(2.2)  # past the server's racy margin: every file trusted by its signature

    async def scenario() -> None:
        async with Session([root]) as s:
            for path in (plan_path, manifest, other):
                s.open(path, language="json" if path.suffix == ".json" else "markdown")
            await s.diagnostics_of(plan_path, lambda d: "PLN001" in codes(d))
            await s.diagnostics_of(other, lambda d: codes(d) == ["AGT006"])
            assert codes(s.diagnostics[uri(plan_path)]) == cli_codes(root, ".apc/plans/refresh.md")
            s.replace(manifest, importing)
            await s.diagnostics_of(plan_path, lambda d: "PLN001" not in codes(d))
            s.replace(manifest, text)
            await s.diagnostics_of(plan_path, lambda d: "PLN001" in codes(d))
            s.close(manifest)
            s.replace(plan_path, plan)
            await s.barrier(plan_path)
            assert "PLN001" in codes(s.diagnostics[uri(plan_path)])  # project.json as on disk
            was = os.stat(manifest)
            manifest.write_text(importing)
            os.utime(manifest, ns=(was.st_atime_ns, was.st_mtime_ns))
            assert os.stat(manifest).st_size == was.st_size
            s.replace(plan_path, plan)  # a keystroke: a run
            await s.barrier(plan_path)
            assert "PLN001" not in codes(s.diagnostics.get(uri(plan_path), []))
            shown = codes(s.diagnostics.get(uri(plan_path), []))
            assert shown == cli_codes(root, ".apc/plans/refresh.md")
            assert codes(s.diagnostics[uri(other)]) == ["AGT006"]
            assert codes(s.diagnostics[uri(other)]) == cli_codes(nested, ".apc/agents/sales.md")

    run(scenario())


def test_a_dead_glob_comes_alive_when_a_file_it_matches_appears(tmp_path: Path) -> None:
    """RUL003 (a rule's glob matches no file) depends on the file list, not only on the rule
    file: a matching file created on disk clears it though the rule file did not change."""
    rule = "---\ndescription: TypeScript style\nglobs: src/**/*.ts\nalwaysApply: false\n---\nX\n"
    root = project(tmp_path, {".cursor/rules/ts.mdc": rule})
    path = root / ".cursor/rules/ts.mdc"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(path)
            await s.diagnostics_of(path, lambda d: codes(d) == ["RUL003"])
            source = root / "src" / "app.ts"
            source.parent.mkdir()
            source.write_text("export {};\n")
            s.watched((source, t.FileChangeType.Created))
            s.replace(path, rule)  # the rule's buffer unchanged: a run all the same
            await s.barrier(path)
            assert codes(s.diagnostics[uri(path)]) == cli_codes(root, ".cursor/rules/ts.mdc") == []

    run(scenario())


def test_policy_inline_allow_and_baseline_apply(tmp_path: Path) -> None:
    helper = "---\nname: helper\ndescription: Helps.\ncolour: blue\n---\nBody.\n"
    root = project(tmp_path, {".claude/agents/helper.md": helper})
    agent = root / ".apc/agents/sales.md"
    claude = root / ".claude/agents/helper.md"
    policy = root / ".apc-tools.yaml"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(agent)
            s.open(claude)
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            await s.diagnostics_of(claude, lambda d: codes(d) == ["AGT013"])
            # the policy: a severity changed, then the rule disabled (every open file again)
            policy.write_text("version: 1\nseverity:\n  AGT006: warning\n")
            s.watched((policy, t.FileChangeType.Created))
            found = await s.diagnostics_of(
                agent, lambda d: [x.severity for x in d] == [t.DiagnosticSeverity.Warning]
            )
            assert codes(found) == ["AGT006"]
            policy.write_text("version: 1\ndisable: [AGT006, AGT013]\n")
            s.watched((policy, t.FileChangeType.Changed))
            await s.diagnostics_of(agent, lambda d: d == [])
            await s.diagnostics_of(claude, lambda d: d == [])  # every open file again
            # a policy apc cannot read: said on the policy file, not a dead server
            policy.write_text("version: 1\ndisable: {oops\n")
            s.watched((policy, t.FileChangeType.Changed))
            await s.diagnostics_of(policy, lambda d: len(d) == 1)
            policy.unlink()
            s.watched((policy, t.FileChangeType.Deleted))
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            await s.diagnostics_of(policy, lambda d: d == [])
            # an inline allow in the unsaved buffer
            allowed = AGENT.replace("skills: pricing", "# apc: allow AGT006\nskills: pricing")
            s.replace(agent, allowed)
            await s.diagnostics_of(agent, lambda d: d == [])
            s.replace(agent, AGENT)
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
        assert s.exit_code == 0

    run(scenario())
    # the baseline `apc check --write-baseline` writes accepts it too
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "initial")
    assert run_apc(root, "check", "--write-baseline").returncode == 0

    async def baselined() -> None:
        async with Session([root]) as s:
            s.open(agent)
            await s.barrier(agent)
            assert s.diagnostics.get(uri(agent), []) == []
            assert cli_codes(root, ".apc/agents/sales.md") == []

    run(baselined())


# --------------------------------------------------------------------------- fixes, hover


def test_code_actions_applied_and_revalidated(tmp_path: Path) -> None:
    """AGT004 (unsafe: the agent's name differs from its file) and PRJ003 (safe: the legacy
    `apf` key): the quick fixes are offered for the diagnostics, the safe one preferred, the
    unsafe one titled so; applied to the buffer and sent back, the finding is gone."""
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"
    manifest = root / ".apc/project.json"
    manifest.write_text(manifest.read_text().replace('"apc"', '"apf"'))
    before = {p: p.read_bytes() for p in (agent, manifest)}

    async def fix(s: Session, path: Path, code: str, kind: str) -> t.CodeAction:
        found = await s.diagnostics_of(path, lambda d: code in codes(d))
        mine = [d for d in found if d.code == code]
        actions = await s.request(
            s.client.text_document_code_action_async(
                t.CodeActionParams(
                    text_document=t.TextDocumentIdentifier(uri=uri(path)),
                    range=mine[0].range,
                    context=t.CodeActionContext(diagnostics=mine, only=[kind]),
                )
            )
        )
        assert actions and all(isinstance(a, t.CodeAction) and a.kind == kind for a in actions)
        return actions[0]  # type: ignore[return-value]

    async def scenario() -> None:
        async with Session([root]) as s:
            text = AGENT.replace("name: sales", "name: seller")
            s.open(agent, text)
            action = await fix(s, agent, "AGT004", t.CodeActionKind.QuickFix)
            assert "unsafe" in action.title and not action.is_preferred
            assert action.edit and action.edit.document_changes
            (change,) = action.edit.document_changes
            assert isinstance(change, t.TextDocumentEdit)
            assert change.text_document.version == 1
            fixed = apply_edit(text, list(change.edits))  # type: ignore[arg-type]
            assert fixed == AGENT
            s.replace(agent, fixed)
            await s.diagnostics_of(agent, lambda d: "AGT004" not in codes(d))

            s.open(manifest, language="json")
            action = await fix(s, manifest, "PRJ003", t.CodeActionKind.QuickFix)
            assert action.is_preferred and "unsafe" not in action.title
            every = await fix(s, manifest, "PRJ003", "source.fixAll.apc")
            assert every.title.startswith("apc: fix all")
            assert every.edit == action.edit  # the one safe fix of the file
            (change,) = action.edit.document_changes  # type: ignore[union-attr,misc]
            fixed = apply_edit(manifest.read_text(), list(change.edits))  # type: ignore[union-attr,arg-type]
            assert json.loads(fixed)["apc"] == "0.1.0"
            s.replace(manifest, fixed)
            await s.diagnostics_of(manifest, lambda d: "PRJ003" not in codes(d))

    run(scenario())
    assert {p: p.read_bytes() for p in before} == before  # the server wrote nothing


def test_hover_explains_the_rule_and_the_key(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            ".claude/agents/helper.md": "---\nname: helper\ndescription: Helps.\n"
            "model: sonnet\ncolour: blue\n---\nBody.\n"
        },
    )
    agent = root / ".apc/agents/sales.md"
    claude = root / ".claude/agents/helper.md"
    rule = registry()["AGT006"]

    async def hover(s: Session, path: Path, line: int, char: int) -> str | None:
        answer = await s.request(
            s.client.text_document_hover_async(
                t.HoverParams(t.TextDocumentIdentifier(uri=uri(path)), t.Position(line, char))
            )
        )
        if answer is None:
            return None
        assert isinstance(answer.contents, t.MarkupContent)
        return answer.contents.value

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(agent)
            s.open(claude)
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            text = await hover(s, agent, 4, 20)  # on `sales-funnel`
            assert text is not None and rule.summary in text and rule.explanation in text
            key = await hover(s, agent, 2, 2)  # `model:` of an APC agent
            assert key is not None and "**model**" in key and "APX" in key
            key = await hover(s, claude, 3, 1)  # `model:` of a Claude Code subagent
            assert key is not None and "Claude Code" in key and "`sonnet`" in key
            unknown = await hover(s, claude, 4, 1)  # `colour:`: the finding there comes first
            assert unknown is not None and "AGT013" in unknown
            assert await hover(s, claude, 6, 1) is None  # the body

    run(scenario())
    done = run_apc(root, "rules", "AGT006")
    assert rule.summary in done.stdout


def test_completion_of_keys_models_and_tools(tmp_path: Path) -> None:
    from apc_tools.contract.checks.agents import CLAUDE_TOOLS, MODEL_ALIASES

    root = project(tmp_path)
    claude = root / ".claude/agents/helper.md"
    claude.parent.mkdir(parents=True)
    text = "---\nname: helper\n\nmodel: \ntools: Read, \n---\n"
    claude.write_text(text)

    async def complete(s: Session, line: int, char: int) -> list[str]:
        answer = await s.request(
            s.client.text_document_completion_async(
                t.CompletionParams(
                    t.TextDocumentIdentifier(uri=uri(claude)), t.Position(line, char)
                )
            )
        )
        assert isinstance(answer, t.CompletionList)
        return [item.label for item in answer.items]

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(claude)
            keys = await complete(s, 2, 0)
            assert "description" in keys and "permissionMode" in keys and "name" not in keys
            assert await complete(s, 3, 7) == list(MODEL_ALIASES)
            assert await complete(s, 4, 13) == sorted(CLAUDE_TOOLS)
            assert await complete(s, 6, 0) == []  # the body

    run(scenario())


# --------------------------------------------------------------------------- the boundary


def test_runtime_state_open_in_the_editor(tmp_path: Path) -> None:
    """A Claude Code session (real case data) open in the workspace, not git-ignored: one
    diagnostic saying apc boundary would refuse it; once .gitignore covers it, none."""
    root = tmp_path / "repo"
    shutil.copytree(CASES / "invalid" / "boundary" / "BTR001-renamed-claude-session", root)
    (root / "case.json").unlink()
    write_tree(root, {"AGENTS.md": "# Repo\n\nNotes.\n"})
    git(root, "init", "-q", "-b", "main")
    session_file = root / "notes" / "meeting.txt"
    readme = root / "AGENTS.md"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(session_file, language="plaintext")
            s.open(readme)
            found = await s.diagnostics_of(session_file, lambda d: len(d) == 1)
            (d,) = found
            assert d.source == "apc boundary" and d.severity == t.DiagnosticSeverity.Error
            assert str(d.code).startswith("BTR") and "refuse" in d.message
            (root / ".gitignore").write_text("notes/\n")
            s.watched((root / ".gitignore", t.FileChangeType.Created))
            await s.diagnostics_of(session_file, lambda d: d == [])
            await s.barrier(readme)
            assert [d.source for d in s.diagnostics[uri(readme)]] == ["apc"]  # AGM006 alone

    run(scenario())
    git(root, "add", "-f", "notes/meeting.txt")
    assert run_apc(root, "boundary", "--staged").returncode == 1  # what the gate says


# --------------------------------------------------------------------------- hostile input


def test_crlf_non_utf8_and_a_5_mib_file(tmp_path: Path) -> None:
    """A CRLF file (ranges and fix edits keep its line ends), a Latin-1 file (the editor shows
    it decoded: IO002 at the byte apc reads, as the CLI says), and a 5 MiB AGENTS.md (IO003, the
    server still answering)."""
    root = project(tmp_path)
    crlf = root / ".apc/agents/sales.md"
    crlf.write_bytes(AGENT.replace("name: sales", "name: seller").replace("\n", "\r\n").encode())
    latin = root / ".apc/skills/pricing.md"
    latin.write_bytes(b"# pricing\n\nPrix : 10 \xe9cus.\n")
    big = root / "AGENTS.md"
    big.write_bytes(b"# Demo\n\n" + b"Lots of text here.\n" * (5 * 1024 * 1024 // 19))
    want = {rel: cli_codes(root, rel) for rel in (".apc/agents/sales.md", ".apc/skills/pricing.md")}

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(crlf)
            s.open(latin, latin.read_bytes().decode("utf-8", "replace"))
            s.open(big)
            found = await s.diagnostics_of(crlf, lambda d: "AGT004" in codes(d))
            assert codes(found) == want[".apc/agents/sales.md"]
            io = await s.diagnostics_of(latin)
            assert codes(io) == want[".apc/skills/pricing.md"] == ["IO002"]
            assert (io[0].range.start.line, io[0].range.start.character) == (2, 10)
            huge = await s.diagnostics_of(big)
            assert codes(huge) == ["IO003"]
            mine = [d for d in found if d.code == "AGT004"]
            actions = await s.request(
                s.client.text_document_code_action_async(
                    t.CodeActionParams(
                        text_document=t.TextDocumentIdentifier(uri=uri(crlf)),
                        range=mine[0].range,
                        context=t.CodeActionContext(diagnostics=mine),
                    )
                )
            )
            (change,) = actions[0].edit.document_changes  # type: ignore[index,union-attr,misc]
            text = crlf.read_bytes().decode()
            fixed = apply_edit(text, list(change.edits))  # type: ignore[union-attr,arg-type]
            assert fixed == AGENT.replace("\n", "\r\n")

    run(scenario())


def test_a_file_outside_any_project_and_a_uri_that_is_no_file(tmp_path: Path) -> None:
    """A note in a plain folder, an untitled buffer, a uri with a NUL: no diagnostics, no
    crash (a failure inside a handler is a window/logMessage), and the server still works."""
    plain = tmp_path / "plain"
    plain.mkdir()
    note = plain / "notes.md"
    note.write_text("# Notes\n")
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"

    async def scenario() -> None:
        async with Session([plain]) as s:
            s.open(note)
            s.client.text_document_did_open(
                t.DidOpenTextDocumentParams(
                    t.TextDocumentItem(
                        uri="untitled:Untitled-1", language_id="markdown", version=1, text="# x"
                    )
                )
            )
            bad = "file:///tmp/x%00y.md"
            s.client.text_document_did_open(
                t.DidOpenTextDocumentParams(
                    t.TextDocumentItem(uri=bad, language_id="markdown", version=1, text="# x")
                )
            )
            await s.barrier(note)
            assert [m for m in s.logs if m.type == t.MessageType.Error]  # the NUL, logged
            s.open(agent)  # a project outside the workspace folder
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            assert s.diagnostics.get(uri(note), []) == []
        assert s.exit_code == 0

    run(scenario())


def test_a_client_that_sends_things_out_of_order(tmp_path: Path) -> None:
    """Changes and a close for documents never opened, requests about them, a version that
    goes back, a second open of the same document: the server answers and goes on."""
    root = project(tmp_path)
    agent = root / ".apc/agents/sales.md"
    ghost = root / ".apc/agents/ghost.md"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.replace(ghost, "---\nname: x\n---\n")
            s.close(ghost)
            for request in (
                s.client.text_document_hover_async(
                    t.HoverParams(t.TextDocumentIdentifier(uri=uri(ghost)), t.Position(9, 9))
                ),
                s.client.text_document_code_action_async(
                    t.CodeActionParams(
                        t.TextDocumentIdentifier(uri=uri(ghost)),
                        t.Range(t.Position(0, 0), t.Position(0, 0)),
                        t.CodeActionContext(diagnostics=[]),
                    )
                ),
                s.client.text_document_completion_async(
                    t.CompletionParams(t.TextDocumentIdentifier(uri=uri(ghost)), t.Position(0, 0))
                ),
            ):
                assert not await s.request(request)
            s.open(agent)
            s.open(agent)  # again
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            s.opened[uri(agent)] = 0  # the next change claims an older version
            s.replace(agent, AGENT.replace("skills: pricing, sales-funnel", "skills: pricing"))
            await s.diagnostics_of(agent, lambda d: d == [])
            hover = await s.request(
                s.client.text_document_hover_async(
                    t.HoverParams(t.TextDocumentIdentifier(uri=uri(agent)), t.Position(99, 99))
                )
            )
            assert hover is None
        assert s.exit_code == 0

    run(scenario())


def test_a_project_of_20000_files(tmp_path: Path) -> None:
    """20,000 files (a git repository with the project and 19,990 other files): the change of
    one agent file is judged with its whole project."""
    root = project(tmp_path)
    for index in range(200):
        folder = root / "src" / f"pkg{index:03d}"
        folder.mkdir(parents=True)
        for number in range(100):
            (folder / f"m{number:02d}.py").write_text("x = 1\n")
    git(root, "init", "-q", "-b", "main")
    assert (
        int(
            subprocess.check_output(
                ["git", "ls-files", "-o", "--exclude-standard"], cwd=root
            ).count(b"\n")
        )
        >= 20000
    )
    agent = root / ".apc/agents/sales.md"

    async def scenario() -> None:
        async with Session([root]) as s:
            s.open(agent)
            await s.diagnostics_of(agent, lambda d: codes(d) == ["AGT006"])
            s.replace(agent, AGENT.replace("skills: pricing, sales-funnel", "skills: pricing"))
            await s.diagnostics_of(agent, lambda d: d == [])

    run(scenario())


def test_apc_lsp_without_the_extra_says_how_to_install_it(tmp_path: Path) -> None:
    """pygls hidden from the interpreter: `apc lsp` names the extra to install, exit 2, one
    `apc: error:` line, no traceback."""
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "sitecustomize.py").write_text(
        "import sys\n"
        "class Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('pygls', 'lsprotocol'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "sys.meta_path.insert(0, Hide())\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), str(Path.cwd())])}
    done = subprocess.run(
        [sys.executable, "-m", "apc_tools", "lsp"],
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("apc: error: apc lsp needs the lsp extra")
    assert 'pip install "apc-tools[lsp]"' in done.stderr
    assert "Traceback" not in done.stderr
