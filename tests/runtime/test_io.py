"""Reading and writing history files (apc_tools.runtime.io), on real files in tmp folders."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apc_tools.findings import CannotRun
from apc_tools.runtime.io import (
    BAD_LINE,
    HistoryError,
    HistoryReader,
    read_history,
    render_history,
    write_history,
)

RECORDS: list[dict[str, Any]] = [
    {"role": "system", "content": "be brief"},
    {"role": "user", "content": 'héllo "{" } ✓ 𝄞'},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "function": {"name": "f", "arguments": '{"x": 1'}}],
    },
    {"role": "tool", "tool_call_id": "call_1", "content": "1.5", "n": [1, 2.5, -3e-7, None]},
]


def dumps(value: Any, **kwargs: Any) -> str:
    return json.dumps(value, ensure_ascii=False, **kwargs)


def jsonl(records: list[dict[str, Any]], **kwargs: Any) -> str:
    return "".join(dumps(r, **kwargs) + "\n" for r in records)


LAYOUTS = {
    "array-compact.json": dumps(RECORDS),
    "array-compact-nl.json": dumps(RECORDS) + "\n",
    "array-tight.json": dumps(RECORDS, separators=(",", ":")),
    "array-indent2.json": dumps(RECORDS, indent=2) + "\n",
    "array-indent4.json": dumps(RECORDS, indent=4),
    "array-tab.json": dumps(RECORDS, indent="\t"),
    "array-ascii.json": json.dumps(RECORDS, indent=2),
    "array-empty.json": "[]\n",
    "array-inline.json": "[\n" + ",\n".join("  " + dumps(r) for r in RECORDS) + "\n]\n",
    "array-crlf.json": dumps(RECORDS, indent=2).replace("\n", "\r\n"),
    "object-messages.json": dumps({"model": "m", "messages": RECORDS, "stream": False}, indent=2),
    "object-input.json": dumps({"input": RECORDS, "tools": [{"type": "function"}]}),
    "object-contents.json": dumps({"contents": RECORDS, "cfg": {"t": 0.2}}, indent=4) + "\n",
    "object-empty-list.json": dumps({"messages": [], "x": 1}, indent=2),
    "object-tight.json": dumps({"a": [1, {"b": 2}], "messages": RECORDS}, separators=(",", ":")),
    "history.jsonl": jsonl(RECORDS),
    "tight.jsonl": jsonl(RECORDS, separators=(",", ":")),
    "crlf.jsonl": jsonl(RECORDS).replace("\n", "\r\n"),
    "ascii.jsonl": "".join(json.dumps(r) + "\n" for r in RECORDS),
    "one-record.jsonl": jsonl(RECORDS[:1]),
}


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_layouts_round_trip_byte_for_byte(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, LAYOUTS[name])
    history = read_history(path)
    expected = [] if "empty" in name else RECORDS[:1] if "one-record" in name else RECORDS
    assert history.records == expected
    assert write_history(history) == LAYOUTS[name]


def test_layout_kind_and_container_key(tmp_path: Path) -> None:
    assert read_history(write(tmp_path, "a.json", LAYOUTS["array-indent2.json"])).layout.kind == (
        "array"
    )
    history = read_history(write(tmp_path, "o.json", LAYOUTS["object-input.json"]))
    assert (history.layout.kind, history.layout.key) == ("object", "input")
    assert history.before == []
    assert history.after == [("tools", [{"type": "function"}])]
    history = read_history(write(tmp_path, "t.json", LAYOUTS["object-tight.json"]))
    assert history.before == [("a", [1, {"b": 2}])]
    assert read_history(write(tmp_path, "h.jsonl", jsonl(RECORDS))).layout.kind == "jsonl"


def test_utf8_bom_is_accepted(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.json", b"\xef\xbb\xbf" + dumps(RECORDS).encode())
    assert read_history(path).records == RECORDS
    path = write(tmp_path, "bom.jsonl", b"\xef\xbb\xbf" + jsonl(RECORDS).encode())
    assert read_history(path).records == RECORDS


def test_jsonl_with_unexpected_suffix_is_detected(tmp_path: Path) -> None:
    path = write(tmp_path, "session.json", jsonl(RECORDS))
    assert read_history(path).layout.kind == "jsonl"


def test_jsonl_blank_lines_are_skipped_and_line_numbers_kept(tmp_path: Path) -> None:
    text = dumps(RECORDS[0]) + "\n\n  \n" + dumps(RECORDS[1]) + "\n"
    with HistoryReader(write(tmp_path, "h.jsonl", text)) as reader:
        assert [(r.line, r.column) for r in reader.records()] == [(1, None), (4, None)]


def test_json_records_carry_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "h.json", dumps({"messages": RECORDS[:2]}, indent=2))
    with HistoryReader(path) as reader:
        assert [(r.line, r.column) for r in reader.records()] == [(3, 5), (7, 5)]


def test_small_chunks_give_the_same_records_and_positions(tmp_path: Path) -> None:
    text = dumps({"model": "m", "messages": RECORDS * 5, "n": 12345678901234}, indent=2)
    path = write(tmp_path, "h.json", text)
    with HistoryReader(path) as reader:
        big = [(r.line, r.column, r.record) for r in reader.records()]
    with HistoryReader(path, chunk_chars=3) as reader:
        small = [(r.line, r.column, r.record) for r in reader.records()]
        assert reader.after == [("n", 12345678901234)]
    assert small == big


def test_json_array_is_streamed_with_a_bounded_buffer(tmp_path: Path) -> None:
    record = {"role": "user", "content": "x" * 200}
    path = write(tmp_path, "big.json", dumps([record] * 5000))  # about 1.1 MB
    with HistoryReader(path, chunk_chars=4096) as reader:
        scanner = reader._scanner
        assert scanner is not None
        sizes = []
        for located in reader.records():
            assert located.record == record
            sizes.append(len(scanner.buf))
    assert len(sizes) == 5000
    assert max(sizes) < 3 * 4096  # never the whole file


def test_records_are_read_lazily(tmp_path: Path) -> None:
    """The reader yields the first record before it has read the rest of the file."""
    text = jsonl(RECORDS) + "{broken\n"
    with HistoryReader(write(tmp_path, "h.jsonl", text)) as reader:
        records = reader.records()
        assert next(records).record == RECORDS[0]
        with pytest.raises(HistoryError, match=r"h\.jsonl:5:"):
            list(records)


# --------------------------------------------------------------------------------------------
# Bad input: a clear error naming the file (and the place), never a traceback


def read_error(path: Path, **kwargs: Any) -> str:
    with pytest.raises(HistoryError) as info:
        read_history(path, **kwargs)
    assert isinstance(info.value, CannotRun)
    return str(info.value)


BAD = {
    "empty.json": ("", r"empty\.json: empty file; expected a JSON array"),
    "blank.jsonl": (" \n\n", r"blank\.jsonl: empty file"),
    "notes.md": (
        "# Session\n\nhello\n",
        r"notes\.md: not a history file: expected a JSON array, a JSON object holding "
        r"'messages', 'input' or 'contents', or JSONL .* starts with '# Session'",
    ),
    "truncated.json": (
        dumps(RECORDS, indent=2)[:-40],
        r"truncated\.json:\d+:\d+: invalid JSON: .*truncated\?",
    ),
    "truncated-compact.json": (
        dumps({"messages": RECORDS})[:-5],
        r"truncated-compact\.json:1:\d+: invalid JSON: .*truncated\?",
    ),
    "cut-after-record.json": (dumps(RECORDS)[:-1], r"cut-after-record\.json:1:\d+: the file ends"),
    "no-list.json": (
        dumps({"model": "m", "prompt": "x"}, indent=2),
        r"no-list\.json: a JSON object must hold the history as a list under 'messages', "
        r"'input' or 'contents' \(keys found: 'model', 'prompt'\)",
    ),
    "numbers.json": ("[1, 2]", r"numbers\.json:1:2: expected each record .* JSON object, found a"),
    "strings.json": (dumps({"messages": ["hi"]}), r"strings\.json:1:15: .*found a string"),
    "trailing.json": ('[{"a": 1}]\n{"b": 2}\n', r"trailing\.json:2:1: extra content"),
    "trailing-comma.json": ('[{"a": 1},]', r"trailing-comma\.json:1:11: invalid JSON"),
    "bad-key.json": ("{'messages': []}", r"bad-key\.json:1:2: expected a key in double quotes"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_input_gives_a_clear_error(tmp_path: Path, name: str) -> None:
    content, pattern = BAD[name]
    message = read_error(write(tmp_path, name, content))
    assert message.startswith(str(tmp_path))
    assert re.search(pattern, message), message


def test_binary_file_is_refused(tmp_path: Path) -> None:
    message = read_error(write(tmp_path, "blob.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"))
    assert "blob.json: binary file" in message


def test_utf16_is_refused_with_a_hint(tmp_path: Path) -> None:
    path = tmp_path / "u16.json"
    path.write_text(dumps(RECORDS), encoding="utf-16")
    assert "UTF-16 text is not supported; save the history as UTF-8" in read_error(path)


def test_non_utf8_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "latin.json", '[\n{"a": "ok"},\n{"a": "é"}]'.encode("latin-1"))
    assert "latin.json: not valid UTF-8 near line" in read_error(path)


def test_non_utf8_jsonl_line_is_a_bad_line(tmp_path: Path) -> None:
    content = jsonl(RECORDS[:2]).encode() + '{"a": "é"}\n'.encode("latin-1")
    path = write(tmp_path, "latin.jsonl", content)
    assert "latin.jsonl:3: not valid UTF-8" in read_error(path)
    history = read_history(path, skip_bad_lines=True)
    assert history.records == RECORDS[:2]
    assert [b.line for b in history.bad_lines] == [3]


def test_missing_file_and_folder(tmp_path: Path) -> None:
    assert read_error(tmp_path / "nope.json").endswith("nope.json: no such file")
    (tmp_path / "dir.json").mkdir()
    assert read_error(tmp_path / "dir.json").endswith("is a folder, not a history file")


def test_sparse_2gib_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as fh:
        fh.write(b"[")
        fh.truncate(2 << 30)  # a 2 GiB file of NUL bytes, sparse on disk
    assert "huge.json: binary file" in read_error(path)


def test_oversized_record_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, "big.json", dumps([{"content": "x" * 5000}]))
    message = read_error(path, max_record_bytes=1000)
    assert "big.json:1:2: a record larger than" in message
    path = write(tmp_path, "open.json", '[{"content": "' + "x" * 5000)
    assert "open.json:1:2: a record larger than" in read_error(path, max_record_bytes=1000)


def test_oversized_jsonl_line_is_a_bad_line(tmp_path: Path) -> None:
    text = jsonl(RECORDS[:1]) + dumps({"content": "x" * 5000}) + "\n" + jsonl(RECORDS[1:2])
    path = write(tmp_path, "big.jsonl", text)
    assert "big.jsonl:2: longer than" in read_error(path, max_record_bytes=1000)
    history = read_history(path, skip_bad_lines=True, max_record_bytes=1000)
    assert history.records == RECORDS[:2]


# --------------------------------------------------------------------------------------------
# JSONL broken lines


BROKEN = jsonl(RECORDS[:2]) + '{"role": "assistant", "content": "cut mid-wri\n' + jsonl(RECORDS[3:])


def test_broken_jsonl_line_is_an_error_naming_its_line(tmp_path: Path) -> None:
    message = read_error(write(tmp_path, "h.jsonl", BROKEN))
    assert "h.jsonl:3: not valid JSON" in message
    assert "--skip-bad-lines" in message


def test_broken_jsonl_line_skipped_on_request_and_reported(tmp_path: Path) -> None:
    history = read_history(write(tmp_path, "h.jsonl", BROKEN), skip_bad_lines=True)
    assert history.records == [RECORDS[0], RECORDS[1], RECORDS[3]]
    assert [b.line for b in history.bad_lines] == [3]
    with HistoryReader(tmp_path / "h.jsonl", skip_bad_lines=True) as reader:
        list(reader.records())
        (finding,) = reader.bad_line_findings("h.jsonl")
    assert (finding.rule, finding.path, finding.line) == (BAD_LINE.id, "h.jsonl", 3)
    assert "line left out: not valid JSON" in finding.message


def test_jsonl_whose_first_line_is_broken(tmp_path: Path) -> None:
    text = '{"role": "us\n' + jsonl(RECORDS)
    path = write(tmp_path, "first.json", text)  # detected as JSONL from the later lines
    assert "first.json:1: not valid JSON" in read_error(path)
    assert read_history(path, skip_bad_lines=True).records == RECORDS


def test_jsonl_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "h.jsonl", jsonl(RECORDS[:1]) + "[1, 2]\n" + jsonl(RECORDS[1:2]))
    assert "h.jsonl:2: expected a JSON object, found an array" in read_error(path)


# --------------------------------------------------------------------------------------------
# Writing


def test_render_streams_one_chunk_per_record(tmp_path: Path) -> None:
    history = read_history(write(tmp_path, "h.json", LAYOUTS["array-indent2.json"]))
    chunks = list(render_history(history.layout, iter(RECORDS)))
    assert len(chunks) == len(RECORDS) + 2  # "[", one per record, "]"
    assert "".join(chunks) == LAYOUTS["array-indent2.json"]


def test_object_keys_after_the_list_are_asked_for_last(tmp_path: Path) -> None:
    history = read_history(write(tmp_path, "o.json", LAYOUTS["object-messages.json"]))
    asked: list[bool] = []

    def after() -> list[tuple[str, Any]]:
        asked.append(True)
        return history.after

    chunks = render_history(history.layout, iter(RECORDS), history.before, after)
    assert next(chunks).startswith('{\n  "model": "m",\n  "messages": [')
    assert asked == []
    assert "".join(chunks).endswith('\n  ],\n  "stream": false\n}')
    assert asked == [True]


def test_records_added_and_removed_keep_the_style(tmp_path: Path) -> None:
    history = read_history(write(tmp_path, "o.json", LAYOUTS["object-messages.json"]))
    history.records = [*RECORDS[:2], {"role": "tool", "content": "new"}]
    expected = {"model": "m", "messages": history.records, "stream": False}
    assert write_history(history) == dumps(expected, indent=2)


# --------------------------------------------------------------------------------------------
# Property: any history in any of the common styles reads back and writes back unchanged


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=20),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
records_strategy = st.lists(
    st.dictionaries(st.text(max_size=8), json_values, max_size=5), max_size=6
)
STYLES = [
    {},
    {"indent": 2},
    {"indent": 4},
    {"separators": (",", ":")},
    {"indent": 1, "separators": (",", ":")},
]


@settings(max_examples=200)  # file I/O per example: kept below the CI profile's 2000
@given(
    records=records_strategy,
    style=st.sampled_from(STYLES),
    container=st.sampled_from(["array", "messages", "input", "contents", "jsonl"]),
    extra=st.dictionaries(st.sampled_from(["model", "stream", "x"]), json_values, max_size=2),
    newline=st.booleans(),
    chunk=st.sampled_from([1, 7, 1 << 20]),
)
def test_any_history_round_trips(
    tmp_path_factory: pytest.TempPathFactory,
    records: list[dict[str, Any]],
    style: dict[str, Any],
    container: str,
    extra: dict[str, Any],
    newline: bool,
    chunk: int,
) -> None:
    if container == "jsonl":
        if not records:
            return
        text = "".join(dumps(r, separators=style.get("separators")) + "\n" for r in records)
        name = "h.jsonl"
    else:
        value: Any = records if container == "array" else {**extra, container: records}
        text = dumps(value, **style) + ("\n" if newline else "")
        name = "h.json"
    path = tmp_path_factory.mktemp("rt") / name
    path.write_text(text, encoding="utf-8")
    with HistoryReader(path, chunk_chars=chunk) as reader:
        read = [located.record for located in reader.records()]
        chunks = list(render_history(reader.layout, read, reader.before, lambda: reader.after))
    assert read == records
    assert "".join(chunks) == text


# --------------------------------------------------------------------------------------------
# Property: the readers' fast paths (a compact JSONL line; ", {...}" in a list) read exactly
# what the general path reads, whatever surrounds the records


small_records = st.dictionaries(st.sampled_from(["role", "content", "n"]), json_values, max_size=3)
jsonl_lines = st.one_of(
    st.builds(
        lambda record, lead, trail, end: (lead + dumps(record) + trail + end).encode(),
        small_records,
        st.sampled_from(["", " ", "\t"]),
        st.sampled_from(["", " ", "\r", "\r\r"]),
        st.sampled_from(["\n", "\r\n"]),
    ),
    st.sampled_from(
        [
            b"\n",
            b"  \r\n",
            b"{broken\n",
            b"[1]\n",
            b'"text"\n',
            b"{}{}\n",
            b'{"a": 1} x\n',
            '\ufeff{"a": 1}\n'.encode(),
            b'{"a": "\xe9"}\n',
            b'{"a": "tab\tinside"}\n',
            b"{}",
        ]
    ),
)


def expected_jsonl(lines: list[bytes], limit: int) -> tuple[list[tuple[int, Any, str]], list[int]]:
    """What the module doc promises for each line: a record (with its text), a bad line, or
    nothing (a blank line)."""
    records, bad = [], []
    for number, raw in enumerate(lines, 1):
        if len(raw) > limit + raw.endswith(b"\n"):
            bad.append(number)
            continue
        try:
            text = raw.decode("utf-8")
            if not text.strip():
                continue
            value = json.loads(text)
        except ValueError:  # UnicodeDecodeError and JSONDecodeError alike
            bad.append(number)
            continue
        if isinstance(value, dict):
            records.append((number, value, text.rstrip("\r\n")))
        else:
            bad.append(number)
    return records, bad


@given(
    lines=st.lists(jsonl_lines, max_size=8),
    last_newline=st.booleans(),
    limit=st.sampled_from([1 << 20, 12, 30]),
)
def test_jsonl_lines_read_as_documented(
    tmp_path_factory: pytest.TempPathFactory, lines: list[bytes], last_newline: bool, limit: int
) -> None:
    # The first record makes the file JSONL and settles the style (", " and ": "), so that the
    # later lines are read by the fast path where it applies; the last line may lack its "\n".
    first = b'{"role": "user", "content": "hi"}\n'
    lines = [first, *(line.rstrip(b"\n") + b"\n" for line in lines)]
    if not last_newline:
        lines[-1] = lines[-1].rstrip(b"\r\n")
    path = tmp_path_factory.mktemp("jl") / "h.jsonl"
    path.write_bytes(b"".join(lines))
    records, bad = expected_jsonl(lines, max(limit, 16))
    with HistoryReader(path, skip_bad_lines=True, max_record_bytes=max(limit, 16)) as reader:
        assert reader.layout.kind == "jsonl"
        read = [(r.line, r.record, r.raw) for r in reader.records()]
        assert [b.line for b in reader.bad_lines] == bad
    assert read == records


@given(
    records=st.lists(small_records, min_size=1, max_size=6),
    spaces=st.lists(st.sampled_from(["", " ", "\n", "\r\n  ", "\t"]), min_size=24, max_size=24),
    chunk=st.sampled_from([1, 5, 16, 1 << 20]),
)
def test_json_list_records_read_with_their_text_and_place(
    tmp_path_factory: pytest.TempPathFactory,
    records: list[dict[str, Any]],
    spaces: list[str],
    chunk: int,
) -> None:
    gaps = iter(spaces)
    texts = [dumps(r) for r in records]
    text = "[" + next(gaps)
    places = []
    for index, record_text in enumerate(texts):
        if index:
            text += next(gaps) + "," + next(gaps)
        lines = text.split("\n")
        places.append((len(lines), len(lines[-1]) + 1))
        text += record_text
    text += next(gaps) + "]"
    path = tmp_path_factory.mktemp("js") / "h.json"
    path.write_text(text, encoding="utf-8", newline="")
    with HistoryReader(path, chunk_chars=chunk) as reader:
        read = [(r.line, r.column, r.record, r.raw) for r in reader.records()]
    assert read == [(*p, r, t) for p, r, t in zip(places, records, texts, strict=True)]


def test_a_number_cut_at_its_exponent_is_read_whole(tmp_path: Path) -> None:
    """Found by the round-trip property (the example as hypothesis reported it): the chunk
    boundary fell right after the ``e`` of ``1.3510798882109922e+16`` and the reader stopped
    there ("expected ',' between the object's keys, found 'e'")."""
    model = {
        "`ÍÕ#\U000b3200z": None,
        "": [None],
        "Ý ": [None, None],
        'þ\x8eÉ\x15"': [
            [None],
            {
                "": None,
                "\xad\x94\x93\r\x9f\x89[¥": None,
                "ÙÓ'\x10\x81¬$m": None,
                "\x9f\U0010f4b7": 3666008391406538240,
            },
        ],
    }
    value = {"model": model, "stream": 1.3510798882109922e16, "messages": [{"role": "user"}]}
    text = dumps(value, indent=1, separators=(",", ":"))
    path = tmp_path / "h.json"
    path.write_text(text, encoding="utf-8")
    with HistoryReader(path, chunk_chars=1) as reader:
        assert [located.record for located in reader.records()] == [{"role": "user"}]
