"""The prefilter never drops a blob a detector would report (apc_tools/boundary/prefilter.py).

Every input of the boundary corpus (the boundary cases of tests/cases, the real transcripts
and runtime files of ../shared/corpus/transcripts, the disguised sessions, the secrets with
``--secrets all``, the attribute trap, hostile file names) is scanned in real git repositories
with the prefilter off (``APC_PREFILTER=0``), with the bytes test (the fast matcher and the
plain one) and with the git grep pass (its size thresholds lowered so that it runs on these
small trees), and the JSON reports must be identical. Then, per detector: every blob of the
corpus a content rule reports holds one of the literals that rule's detectors declare (or is a
blob the prefilter always reads), so a new detector without needles fails here.
"""

from __future__ import annotations

import base64
import bz2
import codecs
import gzip
import json
import lzma
import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from apc_tools.boundary import (
    blobs,
    disguise,
    engine,
    inputs,
    markers,
    model,
    prefilter,
    secrets,
    stores,
    transcripts,
)
from apc_tools.boundary.rules import RULES
from apc_tools.report.json_out import render_json
from tests.boundary.cases import build_boundary_case
from tests.boundary.helpers import init, run, token
from tests.conftest import GIT_ENV, git, needs_shared, write_tree

CASES = Path(__file__).parents[1] / "cases"
TRANSCRIPTS = Path(__file__).parents[2] / ".." / "shared" / "corpus" / "transcripts"
MODES = ("off", "plain", "fast", "git")


@pytest.fixture(autouse=True)
def _small_trees(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let the git grep pass and the bytes test run on trees of a few files (their
    thresholds are for speed)."""
    monkeypatch.setattr(prefilter, "MIN_GREP_BLOBS", 0)
    monkeypatch.setattr(prefilter, "MIN_MATCHER_BLOBS", 0)
    monkeypatch.setattr(prefilter, "MAX_TREE_RATIO", 10**9)


GREPPED: list[int] = []


def scan_as(how: str, root: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> str:
    """The JSON report of one scan with the prefilter in mode ``how``."""
    with monkeypatch.context() as patch:
        patch.setenv(prefilter.ENV, {"off": "0", "git": "git"}.get(how, "1"))
        if how == "plain":
            patch.setattr(prefilter, "fast_matcher", lambda: prefilter.plain_matcher)
        if how == "git":
            real = prefilter.git_candidates

            def counted(*args: Any, **kwargs: Any) -> set[str] | None:
                found = real(*args, **kwargs)
                GREPPED.append(found is not None)
                return found

            patch.setattr(prefilter, "git_candidates", counted)
        # never the result cache: each way must judge the blobs itself (a warm run would
        # answer every way but the first from the first's verdicts)
        return render_json(run(root, cache=False, **options).result)


def same_everywhere(root: Path, monkeypatch: pytest.MonkeyPatch, **options: Any) -> str:
    """The report, asserted identical in every mode; returns it (prefilter off)."""
    reports = {how: scan_as(how, root, monkeypatch, **options) for how in MODES}
    for how in MODES[1:]:
        assert reports[how] == reports["off"], f"{how} differs from off ({options})"
    return reports["off"]


def findings_of(report: str) -> list[dict[str, Any]]:
    found = json.loads(report)["findings"]
    assert isinstance(found, list)
    return found


def commit_all(root: Path, message: str = "corpus") -> None:
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)


# --------------------------------------------------------------------------- the corpus


def boundary_cases() -> list[Path]:
    out = []
    for kind in ("valid", "invalid"):
        base = CASES / kind / "boundary"
        for case in sorted(base.iterdir()) if base.is_dir() else ():
            spec = case / "case.json"
            if spec.exists() and json.loads(spec.read_text()).get("command") == "boundary":
                out.append(case)
    return out


def build_case(case: Path, tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    work = tmp_path / "case"
    shutil.copytree(case, work, symlinks=True)
    spec = json.loads((work / "case.json").read_text())
    (work / "case.json").unlink()
    for rel, target in spec.get("links", {}).items():
        (work / rel).symlink_to(target)
    for rel, what in spec.get("generate", {}).items():
        (work / rel).write_bytes(b"# Generated\n" + b"x" * (int(what) - 12))
    return build_boundary_case(work, spec)


@pytest.mark.parametrize("case", boundary_cases(), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_every_boundary_case_is_the_same_with_and_without(
    case: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = json.loads((case / "case.json").read_text())
    if spec.get("without") == "zstd":
        monkeypatch.setattr(disguise, "zstd_module", lambda: None)
    root, args = build_case(case, tmp_path)
    report = same_everywhere(root, monkeypatch, **args)
    if args.get("mode", "tracked") == "tracked":
        # and staged: the same tree, as the index against an empty HEAD
        git(root, "update-ref", "-d", "HEAD")
        same_everywhere(root, monkeypatch, **{**args, "mode": "staged"})
    check_needles(root, report)


def test_the_real_transcripts_and_runtime_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    needs_shared(TRANSCRIPTS)
    root = init(tmp_path / "repo")
    shutil.copytree(TRANSCRIPTS, root / "corpus", symlinks=False)
    # and each under an ordinary source name, where no path rule reads it
    for path in sorted((root / "corpus").rglob("*")):
        if path.is_file() and path.stat().st_size < 4 << 20:
            flat = "_".join(path.relative_to(root / "corpus").parts)
            (root / "renamed").mkdir(exist_ok=True)
            (root / "renamed" / f"{flat}.py").write_bytes(path.read_bytes())
    commit_all(root)
    report = same_everywhere(root, monkeypatch)
    found = findings_of(report)
    assert any(f["rule"] == "BTR001" and f["path"].startswith("renamed/") for f in found)
    check_needles(root, report)
    git(root, "update-ref", "-d", "HEAD")
    same_everywhere(root, monkeypatch, mode="staged")


SESSION = (
    '{"type":"user","sessionId":"9eda0c53-1f0e-4a4c-9a57-3c1a1d2f0b11","parentUuid":null,'
    '"uuid":"a1","cwd":"/work","message":{"role":"user","content":"fix the build"}}\n'
    '{"type":"assistant","sessionId":"9eda0c53-1f0e-4a4c-9a57-3c1a1d2f0b11","parentUuid":"a1",'
    '"uuid":"a2","cwd":"/work","message":{"role":"assistant","content":"done"}}\n'
)


def _escaped_keys(text: str) -> str:
    """The session with every key letter written as a JSON \\u escape (no literal key)."""
    out = []
    for record in text.splitlines():
        value = json.loads(record)
        out.append(json.dumps(value, ensure_ascii=True).replace('"sessionId"', '"\\u0073essionId"'))
    return "\n".join(out).replace('"parentUuid"', '"p\\u0061rentUuid"') + "\n"


def disguised() -> Iterator[tuple[str, bytes]]:
    data = SESSION.encode()
    yield "src/gz.py", gzip.compress(data)
    yield "src/bz.py", bz2.compress(data)
    yield "src/xz.py", lzma.compress(data)
    module = disguise.zstd_module()
    if module is not None:
        compress = getattr(module, "compress", None)
        if compress is None:
            compress = module.ZstdCompressor().compress
        yield "src/zst.py", compress(data)
    yield "src/b64.py", base64.b64encode(data)
    yield (
        "src/b64wrapped.py",
        b"\n".join(base64.encodebytes(data).splitlines()),
    )  # wrapped at 76 columns
    yield "src/b64gz.py", base64.b64encode(gzip.compress(data))
    notebook = {
        "cells": [{"cell_type": "code", "source": "print()", "outputs": [{"text": SESSION}]}],
        "nbformat": 4,
    }
    yield "src/nb.ipynb", json.dumps(notebook).encode()
    yield "src/nb_renamed.py", json.dumps(notebook).encode()
    records = [json.loads(line) for line in SESSION.splitlines()]
    import yaml

    yield "src/session.yaml", yaml.safe_dump(records).encode()
    # issue 30 items 9-14: members, layers, damage, a late notebook output, a YAML list
    yield "src/members.py", gzip.compress(b"\n" * 5000) + gzip.compress(data)
    yield "src/streams.py", bz2.compress(b"\n" * 5000) + bz2.compress(data)
    yield "src/layers.py", gzip.compress(gzip.compress(gzip.compress(data)))
    crc = bytearray(gzip.compress(data))
    crc[-8] ^= 0xFF
    yield "src/crc.py", bytes(crc)
    late = [{"text": f"{n}\n"} for n in range(4999)] + [{"text": SESSION}]
    yield "src/late.ipynb", json.dumps({"cells": [{"outputs": late}], "nbformat": 4}).encode()
    yield "src/yaml_list.py", "".join(f"- {json.dumps(r)}\n" for r in records).encode()
    for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        yield f"src/{codec}.py", SESSION.encode(codec)
    # a BOM, then 9000 bytes of text with no NUL and no ASCII literal, then the session
    yield "src/bom16.py", codecs.BOM_UTF16_LE + ("\u4e00" * 4500 + SESSION).encode("utf-16-le")
    yield "src/bom8.py", codecs.BOM_UTF8 + data
    yield "src/nul.py", data.replace(b"\n", b"\n\0")
    yield "src/nul_tail.py", data + b"\0"
    yield "src/blank.py", b" " * 20000 + data
    yield "src/blank_lines.py", b"\n" * 9000 + data
    yield "src/escaped.py", _escaped_keys(SESSION).encode()
    yield "src/markers.py", b"# the user saw [Request interrupted by user]\n"
    yield "src/lfs.bin", b"version https://git-lfs.github.com/spec/v1\noid sha256:" + b"0" * 64
    yield "src/big.py", b"x = 1\n" * 300_000  # above the read limit set below
    yield "src/plain.py", b"def f():\n    return 1\n"
    yield (
        "docs/export.md",
        (
            b"## User\nfix it\n\n## Assistant\nTool call: `ls`\n\n"
            b"Tool result: ok\n\n## User\nthanks\n"
        ),
    )
    yield "notes/notes", b"**User:**\nhi\n\n**Assistant:**\nhello\n"


def _sqlite(path: Path, table: str) -> bytes:
    connection = sqlite3.connect(path)
    connection.execute(f"CREATE TABLE {table} (key TEXT, value BLOB)")
    connection.commit()
    connection.close()
    data = path.read_bytes()
    path.unlink()
    return data


def test_disguised_sessions_and_stores(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = init(tmp_path / "repo")
    for rel, data in disguised():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    (root / "data").mkdir()
    (root / "data" / "app.db").write_bytes(_sqlite(tmp_path / "a.db", "cursorDiskKV"))
    (root / "data" / "plain.sqlite").write_bytes(_sqlite(tmp_path / "b.db", "users"))
    (root / ".apc-tools.yaml").write_text("version: 1\nboundary:\n  max_blob_bytes: 1000000\n")
    commit_all(root)
    report = same_everywhere(root, monkeypatch)
    at = {(f["rule"], f["path"]) for f in findings_of(report)}
    for path in ("src/gz.py", "src/b64.py", "src/b64gz.py", "src/utf-16-le.py", "src/bom16.py"):
        assert ("BTR001", path) in at, path
    assert ("BTR001", "src/escaped.py") in at
    for path in ("members", "streams", "layers", "crc", "yaml_list"):
        assert ("BTR001", f"src/{path}.py") in at, path
    assert ("BIO007", "src/crc.py") in at
    assert ("BTR001", "src/late.ipynb") in at
    assert ("BDB001", "data/app.db") in at
    assert ("BIO001", "src/big.py") in at
    assert ("BIO003", "src/lfs.bin") in at
    assert ("BMK002", "src/markers.py") in at
    check_needles(root, report)
    git(root, "update-ref", "-d", "HEAD")
    same_everywhere(root, monkeypatch, mode="staged")


def test_secrets_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = init(tmp_path / "repo")
    files = {
        "src/config.py": f'API_KEY = "{token("ghp_", 36)}"\n',
        "src/settings.py": 'password = "Zx9!qLm2#Vb7@Tr4"\n',
        "src/plain.py": "def f():\n    return 1\n",
        ".mcp.json": json.dumps(
            {"mcpServers": {"x": {"command": "x", "env": {"BRAVE_API_KEY": "BSAx9f2kLq8"}}}}
        ),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    commit_all(root)
    everywhere = findings_of(same_everywhere(root, monkeypatch, secrets="all"))
    assert {f["path"] for f in everywhere if f["rule"] == "BSC001"} >= {
        "src/config.py",
        "src/settings.py",
        ".mcp.json",
    }
    contract_only = findings_of(same_everywhere(root, monkeypatch))
    assert {f["path"] for f in contract_only if f["rule"] == "BSC001"} == {".mcp.json"}


# --------------------------------------------------------------------------- git's own traps

UTF16_SESSION = SESSION.encode("utf-16-le")  # NULs everywhere, no ASCII literal


@pytest.mark.parametrize(
    "where", [".gitattributes", "sub/.gitattributes", "info", "untracked", "macro"]
)
def test_a_diff_attribute_cannot_hide_a_binary_blob(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`diff` set makes git grep read a binary blob as text: it holds no needle, so git alone
    would call it clean. The prefilter sees the attribute and keeps the blob."""
    root = init(tmp_path / "repo")
    (root / "sub").mkdir()
    (root / "sub" / "session.py").write_bytes(UTF16_SESSION)
    (root / "sub" / "plain.c").write_text("int x;\n")  # no attribute: still skipped
    rule = "*.py diff\n"
    if where in (".gitattributes", "sub/.gitattributes"):
        (root / where).write_text(rule)
    elif where == "macro":
        (root / ".gitattributes").write_text("[attr]texty diff\n*.py texty\n")
    commit_all(root)
    if where == "info":
        (root / ".git" / "info").mkdir(exist_ok=True)
        (root / ".git" / "info" / "attributes").write_text(rule)
    elif where == "untracked":
        (root / "sub" / ".gitattributes").write_text(rule)
    unit = prefilter.Unit(git(root, "rev-parse", "HEAD").strip(), 3)
    repo = engine.gitio.open_repo(root)
    clean = prefilter._clean_paths(repo, unit)
    assert "sub/session.py" in clean  # the trap is real: git reads it as text
    report = same_everywhere(root, monkeypatch)
    assert ("BTR001", "sub/session.py") in {(f["rule"], f["path"]) for f in findings_of(report)}
    oid = git(root, "rev-parse", "HEAD:sub/session.py").strip()
    entries = list(engine.gitio.tree_entries(repo, unit.commit or ""))
    by_oid: dict[str, list[engine.Entry]] = {}
    for entry in entries:
        by_oid.setdefault(entry.oid, []).append(entry)
    kept = prefilter.git_candidates(repo, unit, by_oid, list(by_oid), lambda e: False, 1 << 20)
    assert kept is not None and oid in kept
    plain = git(root, "rev-parse", "HEAD:sub/plain.c").strip()
    assert plain not in kept  # still a filter, not "read everything"


def test_without_attributes_binary_blobs_are_candidates(tmp_path: Path) -> None:
    root = init(tmp_path / "repo")
    (root / "session.py").write_bytes(UTF16_SESSION)
    (root / "plain.py").write_text("x = 1\n")
    (root / "marked.py").write_text("# [Request interrupted by user]\n")
    commit_all(root)
    repo = engine.gitio.open_repo(root)
    unit = prefilter.Unit(git(root, "rev-parse", "HEAD").strip(), 3)
    assert prefilter._clean_paths(repo, unit) == {"plain.py"}


HOSTILE = [
    "new\nline.py",
    'quo"te.py',
    "it's.py",
    "-leading-dash.py",
    "--cached",
    "tab\there.py",
    "HEAD:colon.py",
    "space .py",
]


def test_hostile_file_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    GREPPED.clear()
    root = init(tmp_path / "repo")
    names = [*HOSTILE]
    raw = b"caf\xe9-latin1.py"  # not UTF-8
    for name in names:
        (root / name).write_text(SESSION if "line" in name or "dash" in name else "x = 1\n")
    (root / os.fsdecode(raw)).write_bytes(SESSION.encode())
    (root / "plain.py").write_text("x = 1\n")
    commit_all(root)
    report = same_everywhere(root, monkeypatch)
    reported = {f["path"] for f in findings_of(report) if f["rule"] == "BTR001"}
    assert len(reported) == 3, reported
    repo = engine.gitio.open_repo(root)
    unit = prefilter.Unit(git(root, "rev-parse", "HEAD").strip(), 10)
    clean = prefilter._clean_paths(repo, unit)
    assert clean == {n for n in names if "line" not in n and "dash" not in n} | {"plain.py"}
    assert GREPPED and all(GREPPED)  # the git grep pass did run (and gave an answer)
    git(root, "update-ref", "-d", "HEAD")
    same_everywhere(root, monkeypatch, mode="staged")


def test_a_changed_index_is_not_trusted(tmp_path: Path) -> None:
    """The index paths are checked again after git grep: a blob staged in between is read."""
    root = init(tmp_path / "repo")
    (root / "a.py").write_text("x = 1\n")
    git(root, "add", "a.py")
    repo = engine.gitio.open_repo(root)
    old = git(root, "rev-parse", ":a.py").strip()
    (root / "a.py").write_text(SESSION)
    git(root, "add", "a.py")  # the listing said `old`; the index now holds the session
    entry = engine.Entry("100644", old, "a.py")
    kept = prefilter.git_candidates(
        repo, prefilter.Unit(None), {old: [entry]}, [old], lambda e: False, 1 << 20
    )
    assert kept == {old}


# --------------------------------------------------------------------------- per detector

# The literals each content rule's detectors declare (None: the rule reports only blobs the
# prefilter always reads, or the bytes decide it: binary, too large); path rules read no blob.
WRAPPED = (*disguise.NEEDLES, *model.NEEDLES)
DECLARED: dict[str, tuple[bytes, ...] | None] = {
    "BTR": (*transcripts.NEEDLES, *WRAPPED),
    "BMK": (*markers.NEEDLES, *model.NEEDLES),
    "BIO003": inputs.NEEDLES,
    "BSC": secrets.NEEDLES,  # None: contract, agent config, flagged, or --secrets all
    "BLP": None,  # contract files only
    "BDB": None,  # binary: a NUL in the head (stores.NEEDLES holds one)
    "BIO001": None,  # the read part (above the limit)
    "BIO005": None,  # binary (compressed)
    "BIO006": WRAPPED,  # compressed (binary), nested, a notebook (always read)
    "BIO007": WRAPPED,  # compressed (binary), or base64 of gzip
}
PATH_ONLY = ("BPA", "BIO002", "BPL")


def _declared(rule: str) -> tuple[bytes, ...] | str | None:
    for key in (rule, rule[:3]):
        if key in DECLARED:
            return DECLARED[key]
    if rule.startswith(PATH_ONLY):
        return "path"
    raise AssertionError(f"{rule}: a boundary rule that declares no needles (add it here)")


def test_every_boundary_rule_declares_its_needles() -> None:
    for rule in RULES:
        _declared(rule.id)
    assert b"\0" in stores.NEEDLES[0]  # a store is binary: never in git grep's clean list
    assert secrets.NEEDLES is None and secrets.NEEDLES in prefilter.DECLARED.values()


def _blob(root: Path, finding: dict[str, Any]) -> bytes | None:
    rev = finding.get("commit") or "HEAD"
    done = subprocess.run(
        ["git", "cat-file", "blob", f"{rev}:{finding['path']}"],
        cwd=root,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
        check=False,
    )
    if done.returncode != 0:  # the index (staged) or a message
        done = subprocess.run(
            ["git", "cat-file", "blob", f":{finding['path']}"],
            cwd=root,
            capture_output=True,
            check=False,
        )
    return done.stdout if done.returncode == 0 else None


def _always_read(root: Path, finding: dict[str, Any], report: list[dict[str, Any]]) -> bool:
    path = finding["path"]
    if blobs.is_contract(path) or secrets.is_agent_config(path.casefold()):
        return True
    if prefilter.always_suffix(path) or (root / path).is_symlink():
        return True
    if "a path the policy names" in finding["message"]:
        return True  # the policy's BTR globs
    return any(f["path"] == path and f["rule"].startswith("BPA") for f in report)


def check_needles(root: Path, report_text: str) -> None:
    """Every blob a content rule reports holds one of that rule's declared literals, unless it
    is binary, read only in part, or at a path the prefilter always reads."""
    report = findings_of(report_text)
    for finding in report:
        declared = _declared(finding["rule"])
        if declared == "path" or finding["path"].startswith("("):
            continue
        data = _blob(root, finding)
        if data is None:
            continue
        if b"\0" in data[: model.BINARY_SNIFF] or _always_read(root, finding, report):
            continue
        if finding["rule"] == "BIO001":
            continue  # its blob is larger than the read limit: read whatever it holds
        assert isinstance(declared, tuple), f"{finding['rule']} at {finding['path']}: no needles"
        assert any(n in data for n in declared), f"{finding['rule']} at {finding['path']}"


def test_check_needles_fails_on_a_blob_without_them(tmp_path: Path) -> None:
    """The per-detector check itself can fail: a BMK finding on a blob without its needles."""
    root = init(tmp_path / "repo")
    (root / "a.py").write_text("x = 1\n")
    commit_all(root)
    fake = {"findings": [{"rule": "BMK002", "path": "a.py", "message": "m"}]}
    with pytest.raises(AssertionError):
        check_needles(root, json.dumps(fake))


def test_an_odd_attributes_file_turns_the_git_pass_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A FIFO where a `.gitattributes` would be (git itself would block opening it) or a
    symlink: the git pass gives no answer (every blob is read), the scan never hangs."""
    root = init(tmp_path / "repo")
    (root / "sub").mkdir()
    (root / "sub" / "session.py").write_bytes(UTF16_SESSION)
    commit_all(root)
    repo = engine.gitio.open_repo(root)
    oid = git(root, "rev-parse", "HEAD:sub/session.py").strip()
    entry = engine.Entry("100644", oid, "sub/session.py")
    unit = prefilter.Unit(git(root, "rev-parse", "HEAD").strip(), 1)
    os.mkfifo(root / "sub" / ".gitattributes")
    assert prefilter.git_candidates(repo, unit, {oid: [entry]}, [oid], lambda e: False, 1) is None
    (root / "sub" / ".gitattributes").unlink()
    (root / "sub" / ".gitattributes").symlink_to("/etc/hostname")
    assert prefilter.git_candidates(repo, unit, {oid: [entry]}, [oid], lambda e: False, 1) is None
    report = same_everywhere(root, monkeypatch)
    assert ("BTR001", "sub/session.py") in {(f["rule"], f["path"]) for f in findings_of(report)}


def test_the_fast_matcher_agrees_with_the_plain_one() -> None:
    fast = prefilter.fast_matcher()
    if fast is None:
        pytest.skip("ahocorasick_rs is not installed (the optional fast matcher)")
    samples = [n for n in prefilter.NEEDLES] + [b"x" + n + b"y" for n in prefilter.NEEDLES]
    samples += [b"", b"def f():\n    return 1\n", bytes(range(1, 256)) * 3, b'"sessio"n"']
    for data in samples:
        assert fast(data) == prefilter.plain_matcher(data), data


def test_stores_and_sessions_by_content_are_the_same_in_every_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.boundary import test_content_rules as shapes

    db = shapes.database(tmp_path, shapes.CRUSH_SCHEMA, wal=True)
    files: dict[str, str | bytes] = {
        "data/agent.db": db[""],
        "data/agent.db-wal": db["-wal"],
        "data/agent.db-shm": db["-shm"],
        "state/graph.pckl": shapes._langgraph_pickle(True),
        "notes/goose.jsonl": shapes.GOOSE,
        "history/fluux.jsonl": shapes.FLUUX,
        "export/thread.json": shapes.ZED_THREAD,
        "docs/logs.json": shapes.PROMPT_LOG,
        "chats/session.json": shapes._gemini_chat(2600),
        "tests/fixtures/request.json": shapes.REQUEST,
    }
    root = init(tmp_path / "repo")
    write_tree(root, files)
    commit_all(root)
    report = same_everywhere(root, monkeypatch)
    at = {(f["rule"], f["path"]) for f in findings_of(report)}
    for path in files:
        if path != "tests/fixtures/request.json":
            assert {"BDB001", "BTR001"} & {r for r, p in at if p == path}, path
    check_needles(root, report)
