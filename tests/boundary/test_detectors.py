"""Every rule family on real repositories: leaking and clean, every tool of reference §5.12,
renamed, nested, pretty-printed and CRLF variants."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from apc_tools.findings import CannotRun, Severity
from tests.boundary.helpers import (
    CASSETTE,
    CLAUDE,
    CONTENT_LEAKS,
    OPENAI_CHAT,
    TOOL_LEAKS,
    findings,
    repo,
    rules_at,
    token,
)
from tests.conftest import git


def errors_at(found: list, path: str) -> set[str]:
    return {f.rule for f in found if f.path == path and f.severity is Severity.ERROR}


@pytest.mark.parametrize("tool", sorted(TOOL_LEAKS))
def test_each_tool_leak_is_an_error_where_the_tool_leaves_it(tmp_path: Path, tool: str) -> None:
    path, content = TOOL_LEAKS[tool]
    root = repo(tmp_path, {path: content, "README.md": "# x\n"})
    found = findings(root)
    assert errors_at(found, path) & {"BPA002", "BTR001", "BDB001"}, found
    assert not rules_at(found, "README.md")


@pytest.mark.parametrize("tool", sorted(CONTENT_LEAKS))
@pytest.mark.parametrize("variant", ["renamed", "nested", "crlf"])
def test_content_alone_identifies_each_session_format(
    tmp_path: Path, tool: str, variant: str
) -> None:
    content = CONTENT_LEAKS[tool]
    path = {"renamed": "notes.txt", "nested": "a/b/c/d/data.log", "crlf": "x.dat"}[variant]
    if variant == "crlf":
        content = content.replace("\n", "\r\n")
    root = repo(tmp_path, {path: content})
    assert "BTR001" in errors_at(findings(root), path)


@pytest.mark.parametrize("tool", ["claude-code", "codex", "copilot", "cursor", "apx"])
def test_pretty_printed_records_are_found(tmp_path: Path, tool: str) -> None:
    lines = [json.loads(line) for line in CONTENT_LEAKS[tool].splitlines()]
    pretty = "\n".join(json.dumps(r, indent=2) for r in lines) + "\n"
    as_array = json.dumps(lines, indent=4)
    root = repo(tmp_path, {"stream.json": pretty, "array.json": as_array})
    found = findings(root)
    assert "BTR001" in errors_at(found, "stream.json")
    assert "BTR001" in errors_at(found, "array.json")


def test_records_nested_inside_a_wrapper_object(tmp_path: Path) -> None:
    records = [json.loads(line) for line in CLAUDE.splitlines()]
    wrapped = json.dumps({"export": {"version": 1, "data": {"records": records}}})
    root = repo(tmp_path, {"export.json": wrapped})
    assert "BTR001" in errors_at(findings(root), "export.json")


def test_source_code_that_mentions_record_keys_is_not_a_session(tmp_path: Path) -> None:
    code = (
        "KEYS = ('\"parentUuid\"', '\"sessionId\"', '\"isSidechain\"')\n"
        "def is_claude(r):\n    return 'parentUuid' in r and r['type'] == 'user'\n"
    )
    root = repo(tmp_path, {"parser.py": code, "schema.json": '{"properties": {"sessionId": {}}}'})
    assert findings(root) == []


def test_generic_history_is_a_warning_outside_the_contract(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {
            "tests/cassettes/chat.yaml": CASSETTE,
            "tests/fixtures/chat.json": OPENAI_CHAT,
            ".apc/examples/chat.json": OPENAI_CHAT,
        },
    )
    found = {(f.rule, f.path, f.severity) for f in findings(root)}
    assert ("BTR002", "tests/cassettes/chat.yaml", Severity.WARNING) in found
    assert ("BTR002", "tests/fixtures/chat.json", Severity.WARNING) in found
    assert ("BTR002", ".apc/examples/chat.json", Severity.ERROR) in found


def test_apc_forbidden_paths_only_under_apc(tmp_path: Path) -> None:
    files = {
        ".apc/sessions/2026-01-01.md": "x\n",
        ".apc/agents/rev/auto-memory.md": "x\n",
        ".apc/mcps.local.json": "{}\n",
        "sub/.apc/cache/x.bin": "x\n",
        ".apc/plans/scratch/idea.md": "x\n",
        "cache/build.txt": "x\n",  # a cache/ elsewhere is normal
        "src/tmp/x.txt": "x\n",
        ".apc/memory.md": "# Facts\n",
    }
    found = findings(repo(tmp_path, files))
    assert {f.path for f in found if f.rule == "BPA001"} == {
        ".apc/sessions/2026-01-01.md",
        ".apc/agents/rev/auto-memory.md",
        ".apc/mcps.local.json",
        "sub/.apc/cache/x.bin",
        ".apc/plans/scratch/idea.md",
    }
    assert not [f for f in found if f.path in ("cache/build.txt", "src/tmp/x.txt")]


def test_path_rules_fold_case(tmp_path: Path) -> None:
    root = repo(tmp_path, {".Claude/Projects/-w/s.txt": "x\n", "Dir/CLAUDE.LOCAL.md": "x\n"})
    found = findings(root)
    assert rules_at(found, ".Claude/Projects/-w/s.txt") == {"BPA002"}
    assert rules_at(found, "Dir/CLAUDE.LOCAL.md") == {"BPA002"}


def test_committable_agent_config_is_not_a_leak(tmp_path: Path) -> None:
    files = {
        ".claude/settings.json": '{"permissions": {"allow": []}}',
        ".claude/agents/reviewer.md": "---\nname: reviewer\n---\nReview.\n",
        ".cursor/rules/style.mdc": "---\ndescription: x\n---\n",
        ".gemini/settings.json": "{}",
        "CLAUDE.md": "# Project\n",
        ".specstory/.gitignore": "/.what-is-this.md\n",
    }
    assert findings(repo(tmp_path, files)) == []


def test_markers_in_records_and_contract_are_errors_mentions_are_warnings(
    tmp_path: Path,
) -> None:
    line = json.dumps({"role": "user", "content": "[Request interrupted by user]"})
    files = {
        "data/log.jsonl": line + "\n",
        "AGENTS.md": "# Agents\nLast run: [TASK RESUMPTION] resumed\n",
        "docs/markers.md": "Claude Code writes `[Request interrupted by user]` on Esc.\n",
    }
    found = {(f.rule, f.path) for f in findings(repo(tmp_path, files))}
    assert ("BMK001", "data/log.jsonl") in found
    assert ("BMK001", "AGENTS.md") in found
    assert ("BMK002", "docs/markers.md") in found


def test_secrets_in_contract_and_flagged_files_never_echoed(tmp_path: Path) -> None:
    ghp = token("ghp_", 36)
    session = CLAUDE.replace("list files", f"use {ghp}")
    files = {
        "AGENTS.md": f"Deploy with {token('sk-proj-', 48)}\n",
        "dump.jsonl": session,
        "src/config.py": f"TOKEN = '{ghp}'\n",  # not a contract file: only with --secrets all
    }
    root = repo(tmp_path, files)
    found = findings(root)
    assert ("BSC001", "AGENTS.md") in {(f.rule, f.path) for f in found}
    assert ("BSC001", "dump.jsonl") in {(f.rule, f.path) for f in found}
    assert not rules_at(found, "src/config.py")
    every = findings(root, secrets="all")
    assert "BSC001" in rules_at(every, "src/config.py")
    for finding in every:
        assert ghp not in finding.message and ghp[4:12] not in finding.message


def test_bearer_token_gated_by_randomness(tmp_path: Path) -> None:
    real = token("", 40, seed=3)
    files = {
        "AGENTS.md": f"curl -H 'Authorization: Bearer {real}'\n",
        "CLAUDE.md": "curl -H 'Authorization: Bearer YOUR_TOKEN_HERE_PLEASE'\n",
    }
    found = findings(repo(tmp_path, files))
    assert rules_at(found, "AGENTS.md") == {"BSC001"}
    assert not rules_at(found, "CLAUDE.md")


def test_local_paths_in_contract_files_are_warnings(tmp_path: Path) -> None:
    files = {"AGENTS.md": "Fixtures in /Users/ana/src/app/\n", "src/a.py": "P='/home/bob/x/'\n"}
    found = findings(repo(tmp_path, files))
    assert {(f.rule, f.path, f.severity) for f in found} == {
        ("BLP001", "AGENTS.md", Severity.WARNING)
    }


def test_sqlite_stores_by_magic_bytes(tmp_path: Path) -> None:
    page = b"SQLite format 3\x00" + b"\x00" * 100
    files = {
        "backup/state.vscdb.bak": page + b"CREATE TABLE cursorDiskKV",
        ".claude/cache.db": page,
        "tests/fixtures/app.sqlite": page + b"CREATE TABLE users",
    }
    found = findings(repo(tmp_path, files))
    assert {f.path for f in found if f.rule == "BDB001"} == {
        "backup/state.vscdb.bak",
        ".claude/cache.db",
    }


def test_input_notes(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {
            "big.txt": "a" * 300_000 + "\n[Request interrupted by user]\n",
            "model.bin": "version https://git-lfs.github.com/spec/v1\noid sha256:" + "a" * 64,
            "gone.txt": "soon missing\n",
        },
    )
    sha = git(root, "rev-parse", "HEAD").strip()
    git(root, "update-index", "--add", "--cacheinfo", f"160000,{sha},vendor/lib")
    (root / ".apc-tools.yaml").write_text("version: 1\nboundary:\n  max_blob_bytes: 100000\n")
    git(root, "add", ".apc-tools.yaml")
    git(root, "commit", "-q", "-m", "submodule and policy")
    oid = git(root, "rev-parse", "HEAD:gone.txt").strip()
    (root / ".git" / "objects" / oid[:2] / oid[2:]).unlink()
    with pytest.raises(CannotRun, match="not a partial clone: the repository is damaged"):
        findings(root)
    git(root, "config", "remote.origin.promisor", "true")
    with pytest.raises(CannotRun, match=r"1 blob \(first: gone\.txt.*partial clone.*--refetch"):
        findings(root)  # a blob apc cannot read is never a pass, partial clone or not
    git(root, "rm", "-q", "--cached", "gone.txt")
    git(root, "commit", "-q", "-m", "drop the missing blob")
    found = {(f.rule, f.path) for f in findings(root)}
    assert {
        ("BIO001", "big.txt"),
        ("BIO002", "vendor/lib"),
        ("BIO003", "model.bin"),
    } <= found
    assert ("BMK002", "big.txt") not in found  # beyond the read limit


def test_a_digest_under_a_secret_like_key_is_not_a_secret(tmp_path: Path) -> None:
    # Shape of the Agents SDK run-state fixtures: a SHA-256 of the key, not the key.
    digest = "367cb46be96fa11da87030dbc0cf83bd0294053ac150e835b916990d2f5e6d0e"
    files = {
        "AGENTS.md": f'tracing_api_key_hash: "{digest}"\n',
        "CLAUDE.md": f'api_key = "{token("", 40, seed=5)}"\n',
    }
    found = findings(repo(tmp_path, files))
    assert not rules_at(found, "AGENTS.md")
    assert rules_at(found, "CLAUDE.md") == {"BSC001"}


def test_hostile_input_gives_findings_never_a_traceback(tmp_path: Path) -> None:
    root = repo(
        tmp_path,
        {
            "AGENTS.md": b"# Agents\n\xff\xfe not UTF-8 \x80 [TASK RESUMPTION]\n",
            "bin/blob.dat": bytes(range(256)) * 64,
            "deep.json": "[" * 200_000 + "]" * 200_000,
            "torn.jsonl": CLAUDE + '{"type": "user", "sessionId": "5d2c", "mess',
        },
    )
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.local.json").symlink_to("/etc/passwd")
    (root / os.fsdecode(b"caf\xe9.jsonl")).write_text(CLAUDE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile")
    found = {(f.rule, f.path) for f in findings(root)}
    assert ("BMK001", "AGENTS.md") in found
    assert ("BPA002", ".claude/settings.local.json") in found
    assert ("BTR001", "torn.jsonl") in found
    assert ("BTR001", os.fsdecode(b"caf\xe9.jsonl")) in found
    assert not [p for r, p in found if p in ("bin/blob.dat", "deep.json")]


def test_marker_inside_a_pretty_printed_json_document_is_in_a_record(tmp_path: Path) -> None:
    doc = json.dumps({"log": [{"text": "[Tool execution was interrupted]"}]}, indent=2)
    found = findings(repo(tmp_path, {"data/run.json": doc}))
    assert ("BMK001", "data/run.json") in {(f.rule, f.path) for f in found}


def test_a_symlink_and_a_file_sharing_a_blob(tmp_path: Path) -> None:
    target = "[TASK RESUMPTION]"  # the symlink's blob is this text, and so is the file's
    root = repo(tmp_path, {"README.md": "x\n"})
    (root / "a-link").symlink_to(target)  # listed first: its blob is still read for the file
    (root / "copy.txt").write_text(target)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "links")
    assert git(root, "rev-parse", "HEAD:a-link") == git(root, "rev-parse", "HEAD:copy.txt")
    found = {(f.rule, f.path) for f in findings(root)}
    assert found == {("BMK002", "copy.txt")}


def test_html_export_of_a_session(tmp_path: Path) -> None:
    page = (
        "<html><body>\n"
        '<div class="message user" id="m1"><div class="message-content">fix it</div></div>\n'
        '<div class="message assistant" id="m2"><div class="tool-use" data-tool-id="t1">'
        "Bash</div></div>\n</body></html>\n"
    )
    site = '<div class="message user">Sign in to send a message</div>\n<div class="footer">x</div>'
    found = findings(repo(tmp_path, {"out/page-001.html": page, "web/chat.html": site}))
    assert {(f.rule, f.path) for f in found} == {("BTR001", "out/page-001.html")}


def test_marker_messages_say_where_and_what_to_do(tmp_path: Path) -> None:
    marker = "[Request interrupted by user]"
    files = {
        "AGENTS.md": f"# Agents\n\nThe last turn: {marker}\n",
        "s.jsonl": json.dumps({"role": "user", "content": marker}) + "\n",
        "docs/m.md": f"Claude Code writes {marker} on Esc.\n",
    }
    by_path = {f.path: f for f in findings(repo(tmp_path, files)) if f.rule.startswith("BMK")}
    assert by_path["AGENTS.md"].rule == "BMK001"
    assert "in a contract file" in by_path["AGENTS.md"].message
    assert "history record" not in by_path["AGENTS.md"].message
    assert "remove it" in by_path["AGENTS.md"].message
    assert "inside a history record" in by_path["s.jsonl"].message
    assert "git rm --cached" in by_path["s.jsonl"].message
    assert by_path["docs/m.md"].rule == "BMK002"
    assert "apc: allow BMK002" in by_path["docs/m.md"].message


def test_path_message_reads_as_a_sentence(tmp_path: Path) -> None:
    files = {".aider.input.history": "\n# 2026-01-01 10:00:00.1\n+hi\n"}
    (found,) = [f for f in findings(repo(tmp_path, files)) if f.rule == "BPA002"]
    assert found.message.startswith("the prompt history (Aider): runtime state")
