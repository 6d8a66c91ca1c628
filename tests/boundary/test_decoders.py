"""Issue 30 items 9-16: every layer and every framing people use is decoded, within budgets,
and what a decoder could not read is reported, never passed. Each case has a clean twin.

The archives are made here with the standard library (and ``zstandard``), byte for byte what
``gzip >> log.gz``, ``cat a.gz b.gz``, ``bzip2``/``xz`` of concatenated files and ``zstd`` of
several frames write (RFC 1952 members, bzip2 and xz streams one after another, RFC 8878 frames).
"""

from __future__ import annotations

import base64
import bz2
import gzip
import json
import lzma
import shutil
import subprocess
from pathlib import Path

import pytest

from apc_tools.boundary import disguise
from apc_tools.findings import Finding, Severity
from tests.boundary.helpers import CLAUDE, CODEX, findings, repo, token
from tests.conftest import run_apc

SESSION = CLAUDE.encode()
LOGS = b"".join(b"2026-01-01 10:00:%02d INFO worker %d done\n" % (i % 60, i) for i in range(400))
zstandard = pytest.importorskip("zstandard")


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


def zst(data: bytes) -> bytes:
    return bytes(zstandard.ZstdCompressor(write_checksum=True).compress(data))


def at(found: list[Finding], path: str) -> set[tuple[str, Severity]]:
    return {(f.rule, f.severity) for f in found if f.path == path}


def apc(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_apc(root, "boundary", *args, timeout=300)


COMPRESSORS = {"gz": gz, "bz2": bz2.compress, "xz": lzma.compress, "zst": zst}


# --------------------------------------------------------------------------- item 9: members


@pytest.mark.parametrize("kind", sorted(COMPRESSORS))
def test_every_member_of_a_multi_member_archive_is_read(tmp_path: Path, kind: str) -> None:
    """A first member of blank lines (``gzip >> log.gz`` after an empty log) hid the rest."""
    pack = COMPRESSORS[kind]
    files = {
        f"blank-first.{kind}": pack(b"\n" * 5000) + pack(SESSION),
        f"empty-first.{kind}": pack(b"") + pack(b"  \n") + pack(CODEX.encode()),
        f"clean.{kind}": pack(LOGS) + pack(LOGS[::-1]) + pack(b"\n"),  # cat a b c: ordinary logs
    }
    found = findings(repo(tmp_path, files))
    assert ("BTR001", Severity.ERROR) in at(found, f"blank-first.{kind}")
    assert ("BTR001", Severity.ERROR) in at(found, f"empty-first.{kind}")
    assert at(found, f"clean.{kind}") == set()


def test_a_real_gzip_append_and_xz_stream_padding(tmp_path: Path) -> None:
    """What the gzip tool writes when a log is appended to (where it is installed), and xz's
    zero stream padding between streams (``xz --format=xz`` of a concatenation)."""
    blank = b"\n" * 3000
    files: dict[str, str | bytes] = {
        "padded.xz": lzma.compress(blank) + b"\0" * 8 + lzma.compress(SESSION),
        "clean.xz": lzma.compress(LOGS) + b"\0" * 4 + lzma.compress(LOGS),
    }
    gzip_tool = shutil.which("gzip")
    if gzip_tool is not None:
        work = tmp_path / "work"
        work.mkdir()
        for name, data in (("blank.log", blank), ("a.log", LOGS), ("b.log", SESSION)):
            (work / name).write_bytes(data)
            with (work / f"{name}.gz").open("ab") as out:  # gzip -c FILE >> FILE.gz
                subprocess.run([gzip_tool, "-c", name], cwd=work, stdout=out, check=True)
        with (work / "blank.log.gz").open("ab") as out:
            subprocess.run([gzip_tool, "-c", "b.log"], cwd=work, stdout=out, check=True)
        with (work / "a.log.gz").open("ab") as out:
            subprocess.run([gzip_tool, "-c", "a.log"], cwd=work, stdout=out, check=True)
        files["appended.log.gz"] = (work / "blank.log.gz").read_bytes()
        files["clean.log.gz"] = (work / "a.log.gz").read_bytes()
    found = findings(repo(tmp_path, files))
    assert ("BTR001", Severity.ERROR) in at(found, "padded.xz")
    assert at(found, "clean.xz") == set()
    if gzip_tool is not None:
        assert ("BTR001", Severity.ERROR) in at(found, "appended.log.gz")
        assert at(found, "clean.log.gz") == set()


# --------------------------------------------------------------------------- item 10: depth


def test_three_and_more_layers_are_opened(tmp_path: Path) -> None:
    files = {
        "three.gz": gz(gz(gz(SESSION))),
        "mixed.xz": lzma.compress(bz2.compress(gz(zst(SESSION)))),
        "b64.txt": base64.b64encode(gz(gz(gz(SESSION)))).decode(),
        "clean.gz": gz(gz(gz(LOGS))),
    }
    found = findings(repo(tmp_path, files))
    for path in ("three.gz", "mixed.xz", "b64.txt"):
        assert ("BTR001", Severity.ERROR) in at(found, path), (path, found)
    assert at(found, "clean.gz") == set()


def test_layers_past_the_depth_are_reported_not_passed(tmp_path: Path) -> None:
    deep = SESSION
    for _ in range(disguise.MAX_DEPTH + 1):
        deep = gz(deep)
    found = findings(repo(tmp_path, {"deep.gz": deep}))
    assert at(found, "deep.gz") == {("BIO006", Severity.ERROR)}
    assert f"inside {disguise.MAX_DEPTH} other wrappers" in found[0].message


def _xz_asking_for(dict_props: int, data: bytes) -> bytes:
    """An xz stream whose LZMA2 block header asks for another dictionary size (its CRC redone)."""
    import zlib

    whole = bytearray(lzma.compress(data))
    size = (whole[12] + 1) * 4  # the block header, after the 12-byte stream header
    at = whole.index(b"\x21\x01", 12, 12 + size) + 2
    whole[at] = dict_props
    whole[12 + size - 4 : 12 + size] = zlib.crc32(whole[12 : 12 + size - 4]).to_bytes(4, "little")
    return bytes(whole)


def test_a_decoder_asking_for_gigabytes_is_reported_not_passed(tmp_path: Path) -> None:
    """A header may ask for a 2 GiB dictionary (xz) or window (zstd): the gate does not give
    it, and says so as an error, since the content was not read; xz -9's own is read."""
    window = b"\x28\xb5\x2f\xfd" + bytes([0x00, 21 << 3]) + b"\x01\x00\x00"  # 2 GiB window
    files = {
        "huge.xz": _xz_asking_for(38, SESSION),
        "huge.zst": window,
        "nine.xz": lzma.compress(SESSION, preset=9),
    }
    found = findings(repo(tmp_path, files))
    assert at(found, "huge.xz") == {("BIO006", Severity.ERROR)}
    assert at(found, "huge.zst") == {("BIO006", Severity.ERROR)}
    assert "memory" in next(f.message for f in found if f.path == "huge.xz")
    assert ("BTR001", Severity.ERROR) in at(found, "nine.xz")


# --------------------------------------------------------------------------- item 11: damage


def _damaged_gzip(data: bytes) -> bytes:
    whole = bytearray(gz(data))
    whole[-8] ^= 0xFF  # the CRC-32 of the trailer
    return bytes(whole)


def _damaged_xz(data: bytes) -> bytes:
    whole = bytearray(lzma.compress(data))
    whole[-14] ^= 0x55  # in the index, before the stream footer
    return bytes(whole)


def _damaged_zstd(data: bytes) -> bytes:
    whole = bytearray(zst(data))
    whole[-1] ^= 0xFF  # the content checksum
    return bytes(whole)


def _damaged_bzip2(data: bytes) -> bytes:
    whole = bytearray(bz2.compress(data))
    whole[-3] ^= 0x55  # the stream's combined CRC
    return bytes(whole)


DAMAGE = {"gz": _damaged_gzip, "xz": _damaged_xz, "zst": _damaged_zstd, "bz2": _damaged_bzip2}


@pytest.mark.parametrize("kind", sorted(DAMAGE))
def test_a_damaged_trailer_is_judged_and_reported(tmp_path: Path, kind: str) -> None:
    damage = DAMAGE[kind]
    files = {f"s.{kind}": damage(SESSION), f"logs.{kind}": damage(LOGS)}
    found = findings(repo(tmp_path, files))
    assert at(found, f"s.{kind}") == {("BTR001", Severity.ERROR), ("BIO007", Severity.WARNING)}
    # the clean twin: a damaged archive of ordinary logs is a warning, never silently clean
    assert at(found, f"logs.{kind}") == {("BIO007", Severity.WARNING)}


def test_a_whole_archive_read_in_part_is_not_damaged(tmp_path: Path) -> None:
    """The twins: an archive larger than the window is cut by the reader, not damaged; a base64
    body followed by prose ends at the prose."""
    import random

    noise = random.Random(1).randbytes(3 << 20).hex().encode()  # compresses only about 2x
    big = base64.encodebytes(gz(noise)).decode()
    files = {
        "big.gz": gz(noise),
        "notes/big.b64": big,
        "notes/then-prose.md": "# data\n\n" + base64.encodebytes(gz(LOGS)).decode() + "\nDone.\n",
    }
    found = findings(repo(tmp_path, files))
    assert found == [], found


def test_damage_through_the_command(tmp_path: Path) -> None:
    root = repo(tmp_path, {"logs.gz": _damaged_gzip(LOGS), "trail.gz": gz(LOGS) + b"tail"})
    done = apc(root)
    assert done.returncode == 0, done.stdout + done.stderr  # warnings only
    assert "logs.gz: warning BIO007 gzip-compressed blob: its CRC check fails" in done.stdout
    assert "trail.gz: warning BIO007" in done.stdout and "other data follows" in done.stdout
    root = repo(tmp_path, {"s.gz": _damaged_gzip(SESSION)}, name="leak")
    assert apc(root).returncode == 1


# --------------------------------------------------------------------------- item 12: notebook


def _notebook(texts: list[str]) -> str:
    outputs = [{"output_type": "stream", "name": "stdout", "text": text} for text in texts]
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["x"]}
    cells = [{**cell, "outputs": outputs}]
    return json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_a_session_printed_by_a_late_output_of_many(tmp_path: Path) -> None:
    """Outputs past a count were not read; now every output is, within the blob."""
    ordinary = [f"step {n}: loss {1 / (n + 1):.4f}\n" for n in range(5000)]
    records = [f'{{"role": "user", "content": "row {n}"}}\n' for n in range(5000)]
    late = [*ordinary[:4499], CLAUDE, *ordinary[4500:]]
    late_records = [*records[:4499], CLAUDE, *records[4500:]]
    files = {
        "late.ipynb": _notebook(late),
        "late-records.ipynb": _notebook(late_records),
        "clean.ipynb": _notebook(ordinary),
        "clean-records.ipynb": _notebook(records),
    }
    found = findings(repo(tmp_path, files))
    assert ("BTR001", Severity.ERROR) in at(found, "late.ipynb")
    assert ("BTR001", Severity.ERROR) in at(found, "late-records.ipynb")
    assert at(found, "clean.ipynb") == set()
    assert ("BTR001", Severity.ERROR) not in at(found, "clean-records.ipynb")


def test_more_outputs_than_are_judged_one_by_one_is_an_error(tmp_path: Path) -> None:
    many = [f'{{"role": "user", "content": "row {n}"}}\n' for n in range(disguise.MAX_PARTS + 5)]
    found = findings(repo(tmp_path, {"many.ipynb": _notebook(many)}))
    assert ("BIO006", Severity.ERROR) in at(found, "many.ipynb")
    assert "judged together" in next(f.message for f in found if f.rule == "BIO006")


# --------------------------------------------------------------------------- item 14: YAML


def _flow(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return json.dumps(value)


def test_a_session_written_as_a_yaml_list_of_its_records(tmp_path: Path) -> None:
    records = [json.loads(line) for line in CLAUDE.splitlines()]
    flow = "".join(f"- {_flow(r)}\n" for r in records)
    quoted = "".join(f"- {json.dumps(r)}\n" for r in records)
    files = {
        "notes/session.txt": flow,
        "notes/session": "# exported\n---\n" + flow,
        "notes/session.json": flow,
        "notes/quoted.yaml": quoted,
        "notes/quoted.md": quoted,
        # the clean twins: a changelog's bullets and a YAML task list that name the same keys
        "CHANGES.md": "- sessionId: now kept across restarts\n- role: user is the default\n",
        "tasks.txt": "- name: add sessionId\n  role: user\n- name: fix parentUuid: null\n",
    }
    found = findings(repo(tmp_path, files))
    for path in [p for p in files if p.startswith("notes/")]:
        assert ("BTR001", Severity.ERROR) in at(found, path), (path, found)
    assert at(found, "CHANGES.md") == set() and at(found, "tasks.txt") == set()


# --------------------------------------------------------------------------- item 15: padding


def test_padding_past_the_read_limit_fails_a_record_file(tmp_path: Path) -> None:
    cap = tmp_path / "cap.yaml"
    cap.write_text("version: 1\nboundary:\n  max_blob_bytes: 100000\n")
    files = {"s.jsonl": "\n" * 150_000 + CLAUDE, "big.jsonl": CLAUDE * 600}
    root = repo(tmp_path, files)
    done = apc(root, "--config", str(cap))
    assert done.returncode == 1, done.stdout
    assert "s.jsonl: error BIO001" in done.stdout
    found = findings(root, config=cap)
    assert ("BIO001", Severity.INFO) in at(found, "big.jsonl")  # content in its head: info


# --------------------------------------------------------------------------- item 16: escapes


def test_json_escaped_tokens_in_agent_configuration(tmp_path: Path) -> None:
    anthropic = token("sk-ant-api03-", 93)
    github = token("ghp_", 36, seed=3)
    bearer = token("", 24, seed=5) + "/" + token("", 20, seed=6)
    mcp = {"mcpServers": {"x": {"command": "npx", "env": {"ANTHROPIC_API_KEY": "@@A@@"}}}}
    text = json.dumps(mcp).replace("@@A@@", "\\u0073" + anthropic[1:])
    settings = '{"apiKeyHelper": "echo \\"@@G@@\\"", "model": "opus"}'.replace("@@G@@", github)
    headers = {"Authorization": "Bearer @@B@@"}
    mcps = json.dumps({"mcpServers": {"y": {"url": "https://x.example", "headers": headers}}})
    mcps = mcps.replace("@@B@@", bearer.replace("/", "\\/"))
    files = {
        ".mcp.json": text,
        ".claude/settings.json": settings,
        ".apc/mcps.json": mcps,
        ".apc/project.json": '{"name": "demo", "apc": "0.1"}',
        "AGENTS.md": "# Demo\n",
        # the clean twin: escapes around ordinary text and placeholders
        ".cursor/mcp.json": json.dumps(
            {
                "mcpServers": {
                    "z": {
                        "command": "npx",
                        "args": ["-y", "@scope/server", "--note", 'say "hi" \u00e9'],
                        "env": {"API_KEY": "${env:API_KEY}"},
                    }
                }
            }
        ).replace("/", "\\/"),
    }
    root = repo(tmp_path, files)
    found = findings(root)
    for path in (".mcp.json", ".claude/settings.json", ".apc/mcps.json"):
        assert [f.rule for f in found if f.path == path] == ["BSC001"], (path, found)
    assert at(found, ".cursor/mcp.json") == set()
    (escaped,) = [f for f in found if f.path == ".mcp.json"]  # where the raw text has it
    assert (escaped.line, escaped.column) == (1, text.index("\\u0073") + 1)
    done = apc(root, "--format", "json")
    assert done.returncode == 1
    for secret in (anthropic, anthropic[1:], github, bearer, bearer.replace("/", "\\/")):
        assert secret not in done.stdout and secret[8:30] not in done.stdout


def test_the_outputs_of_a_notebook_larger_than_the_read_limit(tmp_path: Path) -> None:
    """A notebook cut by the read limit (images make them large) is not one JSON document any
    more: the outputs of every cell that is whole in what was read are still judged."""
    image = {"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo" + "A" * 300_000}}
    stream = {"output_type": "stream", "name": "stdout", "text": CLAUDE}
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": ["x"]}
    cells = [{**cell, "outputs": [stream]}, {**cell, "outputs": [image]}]
    clean = [{**cell, "outputs": [{**stream, "text": "accuracy 0.93\n"}]}, cells[1]]
    cap = tmp_path / "cap.yaml"
    cap.write_text("version: 1\nboundary:\n  max_blob_bytes: 100000\n")
    files = {
        "big.ipynb": json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}),
        "clean.ipynb": json.dumps({"cells": clean, "metadata": {}, "nbformat": 4}),
    }
    found = findings(repo(tmp_path, files), config=cap)
    assert ("BTR001", Severity.ERROR) in at(found, "big.ipynb")
    assert at(found, "clean.ipynb") == {("BIO001", Severity.INFO)}
