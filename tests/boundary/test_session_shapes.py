"""Issue 15 item 3: a session is found whatever its name and whatever shape it takes, and each
shape has a clean twin that passes.

Sources of the shapes (built here, not copied): Cline's `api_conversation_history.json` is
`Anthropic.MessageParam[]` (cline/cline `core/storage/disk.ts` getSavedApiConversationHistory)
with the `<environment_details>` block Cline appends to each user turn and the
`[TASK RESUMPTION]` text of `core/prompts/responses.ts`; claude-conversation-extractor's
Markdown is its `save_as_markdown` (ZeroSumQuant/claude-conversation-extractor
`src/extract_claude_logs.py`); Claude Code's `/export` text is the rendered transcript (`> `
prompts, `⏺` replies and tool lines, `⎿` results, the welcome box); the SpecStory export is a
real one from ../shared/corpus/transcripts/specstory-history/ (specstoryai/getspecstory,
Apache-2.0) with its header cut off.
"""

from __future__ import annotations

import base64
import bz2
import gzip
import json
import lzma
from pathlib import Path

import pytest

from apc_tools.boundary import disguise
from apc_tools.findings import Finding, Severity
from tests.boundary.helpers import CLAUDE, CODEX, findings, repo
from tests.conftest import TRANSCRIPTS, needs_shared


def errors(found: list[Finding], path: str) -> set[str]:
    return {f.rule for f in found if f.path == path and f.severity is Severity.ERROR}


def one(path: str, content: str | bytes, tmp_path: Path) -> list[Finding]:
    return findings(repo(tmp_path, {path: content}))


# --------------------------------------------------------------------------- Cline API history

ENV = (
    "<environment_details>\n# VSCode Visible Files\nsrc/app.ts\n\n# VSCode Open Tabs\n"
    "src/app.ts\n\n# Current Time\n1/1/2026, 10:00:00 AM (UTC)\n\n# Current Mode\nACT MODE\n"
    "</environment_details>"
)
CLINE_API = [
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "<task>\nAdd a dark mode toggle\n</task>"},
            {"type": "text", "text": ENV},
        ],
        "ts": 1767261600000,
    },
    {
        "role": "assistant",
        "content": [{"type": "text", "text": "<read_file>\n<path>src/app.ts</path>\n</read_file>"}],
        "ts": 1767261601000,
    },
    {
        "role": "user",
        "content": [
            {"type": "text", "text": "[TASK RESUMPTION] This task was interrupted 2 minutes ago."},
            {"type": "text", "text": ENV},
        ],
        "ts": 1767261720000,
    },
]


def test_a_renamed_cline_api_history_is_a_cline_session(tmp_path: Path) -> None:
    found = one("notes/chat-backup.json", json.dumps(CLINE_API, indent=2), tmp_path)
    (session,) = [f for f in found if f.rule == "BTR001"]
    assert session.severity is Severity.ERROR and "Cline" in session.message


def test_plain_anthropic_messages_stay_a_fixture_warning(tmp_path: Path) -> None:
    plain = [
        {"role": "user", "content": [{"type": "text", "text": "What is 2+2?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "4"}]},
    ]
    found = one("tests/fixtures/messages.json", json.dumps(plain), tmp_path)
    assert {(f.rule, f.severity) for f in found} == {("BTR002", Severity.WARNING)}


# --------------------------------------------------------------------------- Markdown exports


SPECSTORY = (
    TRANSCRIPTS
    / "specstory-history"
    / (
        "specstoryai__getspecstory__specstory-cli__.specstory__history__"
        "2026-01-12_15-08-38Z-update-our-docs-to.md"
    )
)


def _specstory_single() -> str:
    if not SPECSTORY.is_file():
        return ""  # no corpus beside the checkout (an sdist): the test skips (needs_shared)
    text = SPECSTORY.read_text(encoding="utf-8")
    body = text[text.index("_**User") :]
    second = body.index("_**Agent", body.index("_**Agent") + 1)
    return body[:second]  # one prompt, one reply, no SpecStory header


EXPORTS: dict[str, str] = {
    "headings-with-tools.md": (
        "# Session\n\n### User\n\nFix the failing test in utils.\n\n### Assistant\n\n"
        "I'll run the tests first.\n\n**Tool Call:** `Bash`\n```\npytest -q\n```\n\n"
        "**Tool Result:**\n```\n1 failed\n```\n"
    ),
    "specstory-headless.md": _specstory_single(),
    "claude-export.txt": (
        "╭───────────────────────────────────────────────────╮\n"
        "│ ✻ Welcome to Claude Code!                         │\n"
        "│   cwd: /w/app                                     │\n"
        "╰───────────────────────────────────────────────────╯\n\n"
        "> fix the build\n\n"
        "⏺ Bash(npm run build)\n"
        "  ⎿  > app@1.0.0 build\n     … +12 lines (ctrl+o to expand)\n\n"
        "⏺ The build passes now.\n"
    ),
    "claude-export-no-tools.txt": (
        "│ ✻ Welcome to Claude Code!                         │\n\n"
        "> what does this repo do?\n\n⏺ It is a small web app.\n"
    ),
    "conversation.md": (
        "# Claude Conversation Log\n\nSession ID: 5d2c9f0e-1a2b-4c3d-8e9f-0a1b2c3d4e5f\n"
        "Date: 2026-01-01 10:00:00\n\n---\n\n## 👤 User\n\nlist the files\n\n---\n\n"
        "## 🤖 Claude\n\nHere they are.\n\n---\n\n"
    ),
    "cctrace.md": (
        "# Claude Code Session Export\n\n**Session ID:** `f33cdb42-0a41-40d4-91eb-c89c109af38a`\n\n"
        "---\n\n### 👤 User\n\nwhere are the logs?\n\n---\n\n"
        "### 🤖 Assistant (claude-opus-4-20250514)\n\nIn ~/.claude/projects.\n"
    ),
}

EXPORT_TWINS: dict[str, str] = {
    # documentation of chat roles: speaker headings, no tool call and result, no session id
    "docs/roles.md": (
        "# Roles\n\n### User\n\nThe person who asks.\n\n### Assistant\n\nThe model that answers."
        "\n\nA tool call is how the assistant asks for an action.\n"
    ),
    # the assistant heading first: a reference page, not a recorded exchange
    "docs/api.md": (
        "## Assistant\n\nMessages the model wrote.\n\n## User\n\nSession id: `<uuid>`.\n"
    ),
    # Claude Code output quoted inline, not the export's line shapes
    "docs/colors.md": "Tool lines such as `⏺ Bash(cargo test)` get their own colour; `⎿` is dim.\n",
    "docs/log.md": "# Claude Conversation Log\n\nHow we keep notes of our design chats.\n",
    "docs/specstory.md": "SpecStory writes `_**User**_` and `_**Agent**_` lines.\n",
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_a_single_exchange_export_is_a_session(tmp_path: Path, name: str) -> None:
    if not EXPORTS[name]:
        needs_shared(SPECSTORY)
    assert "BTR001" in errors(one(f"exports/{name}", EXPORTS[name], tmp_path), f"exports/{name}")


@pytest.mark.parametrize("path", sorted(EXPORT_TWINS))
def test_export_twins_pass(tmp_path: Path, path: str) -> None:
    assert one(path, EXPORT_TWINS[path], tmp_path) == []


# --------------------------------------------------------------------------- disguises

COMPRESSED = {
    "gzip": gzip.compress(CLAUDE.encode(), mtime=0),
    "bzip2": bz2.compress(CLAUDE.encode()),
    "xz": lzma.compress(CLAUDE.encode()),
}


@pytest.mark.parametrize("how", sorted(COMPRESSED))
def test_a_compressed_session_is_found(tmp_path: Path, how: str) -> None:
    found = one("backup.bin", COMPRESSED[how], tmp_path)
    (session,) = [f for f in found if f.rule == "BTR001"]
    assert session.severity is Severity.ERROR
    assert session.message.startswith(f"{how}-compressed: Claude Code session")


def test_only_a_bounded_prefix_is_decompressed(tmp_path: Path) -> None:
    bomb = gzip.compress(CODEX.encode() + b" " * (64 << 20), mtime=0)  # 64 MiB of padding
    assert len(bomb) < 200_000
    assert "BTR001" in errors(one("rollout.gz", bomb, tmp_path), "rollout.gz")


def test_compressed_non_session_data_passes(tmp_path: Path) -> None:
    files = {name: gzip.compress(b'{"a": 1}\n' * 100, mtime=0) for name in ("d.json.gz",)}
    files["x.xz"] = lzma.compress(b"plain text\n")
    files["broken.gz"] = b"\x1f\x8b\x08\x00garbage"
    found = findings(repo(tmp_path, files))
    # a damaged archive is never silently clean (issue 30 item 11): a warning, nothing else
    assert [(f.rule, f.path, f.severity) for f in found] == [
        ("BIO007", "broken.gz", Severity.WARNING)
    ]


def test_zstd_without_a_zstd_module_is_reported_as_not_inspected(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where neither compression.zstd nor zstandard can be imported (a dependency is missing)."""
    monkeypatch.setattr(disguise, "zstd_module", lambda: None)
    blob = bytes.fromhex("28b52ffd0458510000") + b"\x00\x01\x02\x03" * 8
    found = one("rollout-x.bin", blob, tmp_path)
    assert [(f.rule, f.severity) for f in found] == [("BIO005", Severity.WARNING)]
    assert "zstd" in found[0].message


def test_a_zstd_session_is_opened(tmp_path: Path) -> None:
    assert disguise.zstd_module() is not None  # a dependency of the package (pyproject.toml)
    zstandard = pytest.importorskip("zstandard")
    found = one("rollout-x.bin", zstandard.ZstdCompressor().compress(CODEX.encode()), tmp_path)
    assert "BTR001" in {f.rule for f in found if f.severity is Severity.ERROR}, found


def test_base64_wrapped_sessions_are_found(tmp_path: Path) -> None:
    records = [json.loads(line) for line in CLAUDE.splitlines()]
    files = {
        "blob.txt": base64.encodebytes(json.dumps(records).encode()).decode(),
        "blob2.txt": base64.b64encode(gzip.compress(CLAUDE.encode(), mtime=0)).decode(),
        "config.b64": base64.b64encode(json.dumps({"name": "app", "port": 8080}).encode()).decode(),
    }
    found = findings(repo(tmp_path, files))
    assert "BTR001" in errors(found, "blob.txt")
    assert "BTR001" in errors(found, "blob2.txt")
    assert not [f for f in found if f.path == "config.b64"]


def test_a_base64_session_under_a_title_is_found(tmp_path: Path) -> None:
    """A few lines above the base64 body (``# notes``) are skipped, as before a JSON value;
    a JWT under a title is not a session."""
    body = base64.encodebytes(gzip.compress(CLAUDE.encode(), mtime=0)).decode()
    jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl"
    files = {"notes.md": f"# notes\n\n{body}", "auth.md": f"# Token\n\n{jwt}\n"}
    found = findings(repo(tmp_path, files))
    assert "BTR001" in errors(found, "notes.md")
    assert not errors(found, "auth.md")


def _notebook(outputs: list[dict[str, object]]) -> str:
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["x"]}
    return json.dumps(
        {
            "cells": [{**cell, "outputs": outputs}],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": 5,
        },
        indent=1,
    )


def test_a_session_in_a_notebooks_output_cells(tmp_path: Path) -> None:
    stream = {"output_type": "stream", "name": "stdout", "text": CLAUDE.splitlines(True)}
    clean = {"output_type": "stream", "name": "stdout", "text": ["accuracy: 0.93\n"]}
    files = {
        "analysis.ipynb": _notebook([stream]),
        "renamed.json": _notebook([stream]),
        "clean.ipynb": _notebook([clean]),
    }
    found = findings(repo(tmp_path, files))
    assert "BTR001" in errors(found, "analysis.ipynb")
    assert "BTR001" in errors(found, "renamed.json")
    assert "notebook" in next(f.message for f in found if f.path == "analysis.ipynb")
    assert not [f for f in found if f.path == "clean.ipynb"]


def test_nul_bytes_do_not_make_a_session_binary(tmp_path: Path) -> None:
    """git calls a blob with a NUL in its first 8000 bytes binary; one NUL appended to a
    session (or a gzip of session + NULs, or 6 MiB of compressed blank space before it) must
    not let it pass. Real binary data with NULs stays nothing."""
    padded = gzip.compress(b" " * (6 << 20) + CLAUDE.encode() + b"\0" * (1 << 20), mtime=0)
    png = bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)) * 64
    files: dict[str, str | bytes] = {
        "s.jsonl": CLAUDE.encode() + b"\0",
        "front.txt": b"\0" + CLAUDE.encode(),
        "padded.gz": padded,
        "image.png": png,
        "zeros.bin": b"\0" * 9000,
        "notes.txt": b"plain notes, then a NUL\0 and more words " * 8,
    }
    found = findings(repo(tmp_path, files))
    for path in ("s.jsonl", "front.txt", "padded.gz"):
        assert "BTR001" in errors(found, path), path
    assert not [f for f in found if f.path in ("image.png", "zeros.bin", "notes.txt")]


def test_a_wrapper_of_endless_blank_space_is_reported_not_passed(tmp_path: Path) -> None:
    blank = bz2.compress(b" " * (disguise.PADDING + disguise.LIMIT) + CLAUDE.encode())
    found = one("s.jsonl.bz2", blank, tmp_path)
    assert [(f.rule, f.severity) for f in found] == [("BIO006", Severity.ERROR)]
    assert "blank space" in found[0].message


def test_a_session_printed_after_other_output_in_a_notebook(tmp_path: Path) -> None:
    """The detectors look for a session at the top of what they read: each output is judged
    on its own, so 900 lines printed before it (or hundreds of outputs) do not hide it."""
    log = {"output_type": "stream", "name": "stdout", "text": ["x" * 1000 + "\n"] * 900}
    small = [{"output_type": "stream", "name": "stdout", "text": f"{n}\n"} for n in range(600)]
    stream = {"output_type": "stream", "name": "stdout", "text": CLAUDE.splitlines(True)}
    clean = _notebook([log, *small])
    files = {"after.ipynb": _notebook([log, stream]), "many.ipynb": _notebook([*small, stream])}
    found = findings(repo(tmp_path, {**files, "clean.ipynb": clean}))
    assert "BTR001" in errors(found, "after.ipynb")
    assert "BTR001" in errors(found, "many.ipynb")
    assert not [f for f in found if f.path == "clean.ipynb"]


def _yaml_of(records: list[dict[str, object]]) -> str:
    def scalar(v: object) -> str:
        return json.dumps(v)

    def block(value: object, indent: int) -> list[str]:
        pad = " " * indent
        if isinstance(value, dict):
            out: list[str] = []
            for k, v in value.items():
                if isinstance(v, dict | list) and v:
                    out += [f"{pad}{k}:", *block(v, indent + 2)]
                else:
                    out.append(f"{pad}{k}: {scalar(v)}")
            return out
        assert isinstance(value, list)
        out = []
        for item in value:
            inner = block(item, indent + 2)
            out.append(f"{pad}- {inner[0].strip()}")
            out += inner[1:]
        return out

    return "\n".join(block(records, 0)) + "\n"


def test_a_session_serialised_as_yaml(tmp_path: Path) -> None:
    records = [json.loads(line) for line in CLAUDE.splitlines()]
    ansible = "- hosts: all\n  roles:\n    - role: user\n    - role: assistant\n"
    files = {"session.yaml": _yaml_of(records), "site.yml": ansible}
    found = findings(repo(tmp_path, files))
    assert "BTR001" in errors(found, "session.yaml")
    assert "as YAML" in next(f.message for f in found if f.path == "session.yaml")
    assert not [f for f in found if f.path == "site.yml"]


def test_a_yaml_session_with_an_anchor_and_an_alias_is_still_a_session(tmp_path: Path) -> None:
    """An anchor is refused, never expanded, in contract files; in a YAML blob it must not make
    the records around it pass: the alias is read as null, the rest is judged."""
    records = [json.loads(line) for line in CLAUDE.splitlines()]
    text = _yaml_of(records).replace("- type:", "- &first\n  type:", 1) + "- *first\n"
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{n}: &{n} [*{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}, *{p}]\n"
        for p, n in zip("abcdefghijklmnop", "bcdefghijklmnopq", strict=True)
    )
    files = {"anchored.yaml": text, "laughs.yaml": bomb + "sessionId: x\n"}
    found = findings(repo(tmp_path, files))
    assert "BTR001" in errors(found, "anchored.yaml")
    assert not [f for f in found if f.path == "laughs.yaml"]


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_utf16_32_without_a_bom(tmp_path: Path, codec: str) -> None:
    files = {"s.jsonl": CLAUDE.encode(codec), "README.txt": "Just a readme.\n".encode(codec)}
    found = findings(repo(tmp_path, files))
    assert "BTR001" in errors(found, "s.jsonl")
    assert not [f for f in found if f.path == "README.txt"]


def test_long_mixed_blank_padding_before_a_session(tmp_path: Path) -> None:
    padded = " \t\r\n" * 400_000 + CODEX  # 1.6 MB of blank space, then the rollout
    found = one("export.json", padded, tmp_path)
    assert "BTR001" in errors(found, "export.json")


def test_broken_wrappers_are_no_traceback_and_no_finding(tmp_path: Path) -> None:
    whole = gzip.compress(CLAUDE.encode(), mtime=0)
    files: dict[str, str | bytes] = {
        "cut.gz": whole[: len(whole) // 3],  # a truncated stream: what it holds is read
        "bad.bz2": b"BZh91AY&SY" + b"\xff" * 64,
        "bad.xz": b"\xfd7zXZ\x00" + b"\x01" * 64,
        "nb.ipynb": json.dumps(
            {"cells": [{"outputs": [1, {"text": 5}, {"data": {"a/b": 1}}]}], "nbformat": 4}
        ),
        "half.ipynb": '{"cells": [',
        "s.yaml": "sessionId: [unclosed\n  - : :\n",
        "b64.txt": "eyJ" + "!" * 100,
    }
    found = findings(repo(tmp_path, files))
    # damaged archives are warnings (issue 30 item 11); the broken text wrappers are nothing
    assert {f.path for f in found if f.rule != "BIO007"} <= {"cut.gz"}
    damaged = {f.path for f in found if f.rule == "BIO007"}
    assert damaged == {"cut.gz", "bad.xz"}, found
    assert all(f.severity is Severity.WARNING for f in found if f.rule == "BIO007")


def test_a_session_in_a_large_notebook_with_images(tmp_path: Path) -> None:
    image = {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo" + "A" * 1_500_000}}
    stream = {"output_type": "stream", "name": "stdout", "text": CLAUDE.splitlines(True)}
    found = one("big.ipynb", _notebook([image, stream]), tmp_path)
    assert "BTR001" in errors(found, "big.ipynb")


def test_a_zstd_session_when_a_zstd_module_is_installed(tmp_path: Path) -> None:
    """Runs where `zstandard` is installed (pip install zstandard): opened, bounded."""
    zstandard = pytest.importorskip("zstandard")
    session = zstandard.ZstdCompressor().compress(CODEX.encode() + b" " * (32 << 20))
    found = one("rollout-1.jsonl.zst", session, tmp_path)
    assert "BTR001" in errors(found, "rollout-1.jsonl.zst")
    assert "BIO005" not in {f.rule for f in found}


def test_a_session_behind_more_blank_padding_than_the_read_limit_is_not_a_pass(
    tmp_path: Path,
) -> None:
    """Past the read limit the gate cannot see the session; blank space all the way to the limit
    is what hiding looks like, so the note is a warning, not info, and in a file of records (a
    JSON reader skips the padding and reads the session) an error (issue 30 item 15). A large
    file with content in its head keeps the info note."""
    cap = tmp_path / "cap.yaml"
    cap.write_text("version: 1\nboundary:\n  max_blob_bytes: 100000\n")
    root = repo(
        tmp_path,
        {
            "logs/padded.jsonl": "\n" * 150_000 + CLAUDE,
            "logs/padded.json": " " * 150_000 + CLAUDE,
            "logs/padded.txt": "\n" * 150_000 + CLAUDE,
            "data/big.csv": "a,b\n" + "1,2\n" * 40_000,
        },
    )
    found = findings(root, config=cap)
    for path in ("logs/padded.jsonl", "logs/padded.json"):
        padded = [f for f in found if f.path == path]
        assert [(f.rule, f.severity) for f in padded] == [("BIO001", Severity.ERROR)], padded
        assert "all blank" in padded[0].message
    text = [f for f in found if f.path == "logs/padded.txt"]
    assert [(f.rule, f.severity) for f in text] == [("BIO001", Severity.WARNING)], text
    big = [f for f in found if f.path == "data/big.csv"]
    assert [(f.rule, f.severity) for f in big] == [("BIO001", Severity.INFO)], big
