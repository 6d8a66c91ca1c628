"""``apc repair`` as a library call: read a history file, repair or check it, write it safely.

:func:`run_repair` streams: records are read one at a time, fed to
:class:`~apc_tools.runtime.RepairStream`, and written as soon as the stream says they are final,
so a JSONL file of any length is repaired with memory bounded by the open tool calls (plus, for
line numbers, one entry per skipped or blank line). Where the repaired history goes:

* ``out``: a new file outside the project tree, written atomically;
* ``in_place``: the input file itself (outside the project tree), replaced atomically, and only
  when something changed;
* otherwise ``stdout`` (a binary stream) if given, after the whole file was read successfully
  (a broken line never leaves half a history on stdout); else the text is in the outcome.

``check_only`` writes nothing: it reports, with the provider's own wording, what a provider
would reject (this holds the records in memory).
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain, islice
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from apc_tools.findings import CannotRun, Finding, Result
from apc_tools.runtime.adapters import DETECT_WINDOW, detect_wire, wire_votes
from apc_tools.runtime.formats import Format, Head, head_of_stream, identify, read_head
from apc_tools.runtime.io import (
    DEFAULT_MAX_RECORD_BYTES,
    LIST_KEYS,
    HistoryReader,
    Layout,
    Located,
    RawText,
    Record,
    render_history,
)
from apc_tools.runtime.model import WIRES, UnknownWire
from apc_tools.runtime.repair import RepairStream
from apc_tools.runtime.rules import BY_ID, CHANGE_RULES
from apc_tools.runtime.store import StoreError, atomic_write, ensure_outside

if TYPE_CHECKING:  # the contract model is only read, through the object the caller passes
    from apc_tools.contract.model import Contract


SPOOL_BYTES = 32 << 20  # stdout output is held in memory up to this size, then in a temp file


class RepairUsageError(CannotRun):
    """The options do not fit together, or name something that cannot be used."""


@dataclass(frozen=True)
class RepairOutcome:
    """What :func:`run_repair` did.

    ``result`` holds one finding per change (repair) or per violation (check), plus one per
    JSONL line left out. ``destination`` is the file written, None when the history went to
    ``stdout`` or ``text``, or nothing was written (``--check``, or ``--in-place`` with nothing
    to change: then ``written`` is False).
    """

    result: Result
    wire: str | None
    layout: Layout
    records: int
    changes: int
    destination: Path | None = None
    written: bool = False
    text: str | None = None
    format: str | None = None  # the session or transcript format recognised, if any


def run_repair(
    file: Path,
    *,
    out: Path | None = None,
    in_place: bool = False,
    wire: str = "auto",
    check_only: bool = False,
    skip_bad_lines: bool = False,
    contract: Contract | None = None,
    stdout: IO[bytes] | None = None,
    max_record_bytes: int = DEFAULT_MAX_RECORD_BYTES,
    reparent: bool = False,
    source: IO[bytes] | None = None,
) -> RepairOutcome:
    """Repair (or with ``check_only``, check) the history in ``file``. See the module doc.

    Raises :class:`~apc_tools.findings.CannotRun` (exit 2) for bad options, a file that is not
    a history, a target inside the project tree of ``contract``, or a failed write; the input
    file is then untouched. ``source``: an open binary stream (stdin) to read instead of
    ``file``, which then only names it in messages; it is read once, never closed.
    """
    _check_options(file, out, in_place, wire, check_only)
    if source is None and _stream_path(file):  # a FIFO, /dev/stdin: read once, as a stream
        with file.open("rb") as stream:
            return run_repair(
                file,
                out=out,
                in_place=in_place,
                wire=wire,
                check_only=check_only,
                skip_bad_lines=skip_bad_lines,
                contract=contract,
                stdout=stdout,
                max_record_bytes=max_record_bytes,
                reparent=reparent,
                source=stream,
            )
    head: Head | None
    if source is not None:  # a stream is read once: fingerprint its first bytes, put them back
        head, source = head_of_stream(file, source)
    else:
        head = read_head(file)
    known = identify(head) if head is not None else None
    list_keys: tuple[str, ...] = LIST_KEYS
    if known is not None:
        _refuse(known, file, wire)
        if known.kind != "wire":
            request = _Request(
                file, out, in_place, check_only, skip_bad_lines, contract, stdout, reparent, source
            )
            return _run_known(known, request)
        wire, list_keys = known.wire, (known.list_key,)
    target = _target(file, out, in_place, contract)
    with HistoryReader(
        file,
        skip_bad_lines=skip_bad_lines,
        max_record_bytes=max_record_bytes,
        list_keys=list_keys,
        source=source,
    ) as reader:
        if check_only:
            return _check(reader, wire, _name(file))
        return _repair(reader, wire, _name(file), target, stdout, in_place)


# --------------------------------------------------------------------------------------------
# Known session and transcript formats


def _stream_path(file: Path) -> bool:
    """A path that names a stream (FIFO, character device), not a file that can be re-read."""
    import stat

    try:
        mode = file.stat().st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def _refuse(known: Format, file: Path, wire: str) -> None:
    """Exit 2 for a recognised format apc does not repair, or a --wire that contradicts it."""
    what = f"{_name(file)}: recognised as {known.name}"
    if known.kind == "refused":
        raise RepairUsageError(f"{what}, which apc repair does not support: {known.advice}")
    if wire != "auto" and known.kind != "nothing" and wire != known.wire:
        raise RepairUsageError(
            f"{what}; --wire {wire} cannot be forced onto it (its records are not {wire} "
            "records): drop --wire"
        )


class _Request(NamedTuple):
    """What ``apc repair`` was asked to do with one file."""

    file: Path
    out: Path | None
    in_place: bool
    check_only: bool
    skip_bad_lines: bool
    contract: Contract | None
    stdout: IO[bytes] | None
    reparent: bool
    source: IO[bytes] | None


def _run_known(known: Format, request: _Request) -> RepairOutcome:
    from apc_tools.runtime.rules import BY_ID

    if known.kind == "nothing":
        message = f"recognised as {known.name}: {known.advice}"
        finding = BY_ID["RPR013"].finding(_name(request.file), message)
        return RepairOutcome(Result.of([finding], 1), None, Layout("text"), 0, 0, format=known.name)
    from apc_tools.runtime.sessions.base import quiet_gc

    with quiet_gc():
        return _run_session(known, request)


def _run_session(known: Format, request: _Request) -> RepairOutcome:
    from apc_tools.runtime.sessions import run
    from apc_tools.runtime.sessions.base import Options

    file = request.file
    data = request.source.read() if request.source is not None else None
    if request.check_only:
        findings = run.check_session(file, known, skip_bad_lines=request.skip_bad_lines, data=data)
        return RepairOutcome(Result.of(findings, 1), None, Layout("jsonl"), 0, 0, format=known.name)
    target = _target(file, request.out, request.in_place, request.contract)
    if request.in_place:
        run.ensure_quiet(file)
    planned = run.plan_session(
        file,
        known,
        skip_bad_lines=request.skip_bad_lines,
        options=Options(reparent=request.reparent),
        data=data,
    )
    written = run.write(planned, target, request.stdout, request.in_place)
    return RepairOutcome(
        result=Result.of(planned.findings, 1),
        wire=None,
        layout=Layout("jsonl"),
        records=sum(1 for line in planned.session.lines if line.record is not None),
        changes=planned.plan.closed,
        destination=target if written else None,
        written=written,
        format=known.name,
    )


# --------------------------------------------------------------------------------------------
# Options and targets


def _name(file: Path) -> str:
    return file.as_posix()


def _check_options(
    file: Path, out: Path | None, in_place: bool, wire: str, check_only: bool
) -> None:
    if wire != "auto" and wire not in WIRES:
        raise RepairUsageError(f"unknown wire format {wire!r}; use auto or one of: {_wires()}")
    if out is not None and in_place:
        raise RepairUsageError("use either -o OUT or --in-place, not both")
    if check_only and (out is not None or in_place):
        raise RepairUsageError("--check writes nothing; drop -o/--in-place")
    if in_place and file.exists() and not file.is_file():
        raise RepairUsageError(f"--in-place {file}: not a regular file; write with -o OUT")
    if out is not None and out.is_dir():
        raise RepairUsageError(f"-o {out}: is a folder; name the file to write")
    if out is not None and file.exists() and _same_file(out, file):
        raise RepairUsageError(
            f"-o {out} is the input file; use --in-place to replace it (outside the project)"
        )


def _same_file(out: Path, file: Path) -> bool:
    """Is ``out`` the input file? Not when it is missing or cannot be read (a folder that
    changes meanwhile): the atomic writer judges the target again when it writes."""
    try:
        return out.samefile(file)
    except OSError:
        return False


def _target(file: Path, out: Path | None, in_place: bool, contract: Contract | None) -> Path | None:
    if in_place:
        return ensure_outside(contract, file)
    if out is not None:
        return ensure_outside(contract, out)
    return None


def _wires() -> str:
    return ", ".join(WIRES)


def _detect(records: Sequence[dict[str, Any]], name: str) -> str:
    try:
        return detect_wire(records)
    except UnknownWire as exc:
        raise RepairUsageError(
            f"{name}: cannot tell the wire format from the first {len(records)} records "
            f"({exc}); name it with --wire ({_wires()})"
        ) from None


def _confirm(records: Sequence[dict[str, Any]], wire: str, name: str) -> str:
    """A forced ``--wire`` that every record with a sign of its wire contradicts is refused:
    read as the wrong wire, a tool call looks like an empty message and would be dropped."""
    votes = wire_votes(records)
    if votes and not votes[wire]:
        seen, count = votes.most_common(1)[0]
        raise RepairUsageError(
            f"{name}: --wire {wire} does not fit: {count} of the first {len(records)} records "
            f"look like {seen} and none like {wire}; drop --wire (auto-detection reads {seen}) "
            "or name the right one"
        )
    return wire


# --------------------------------------------------------------------------------------------
# Where records are (line, column), kept small


_MAX_U32 = 2**32 - 1


class _Places:
    """Record index -> (line, column) in the file.

    JSONL: line = index + offset, and the offset changes only at blank or skipped lines, so
    only those breakpoints are stored. JSON: one line and one column per record (4 bytes each,
    columns beyond 2**32 - 1 are clamped).
    """

    def __init__(self, jsonl: bool) -> None:
        self.jsonl = jsonl
        self.starts: array[int] = array("q")
        self.offsets: array[int] = array("q")
        self.lines: array[int] = array("I")
        self.columns: array[int] = array("I")
        self.count = 0

    def add(self, located: Located) -> None:
        index = self.count
        self.count += 1
        if not self.jsonl:
            line, column = located.line, located.column or 0
            self.lines.append(line if line < _MAX_U32 else _MAX_U32)
            self.columns.append(column if column < _MAX_U32 else _MAX_U32)
            return
        offset = located.line - index
        if not self.offsets or self.offsets[-1] != offset:
            self.starts.append(index)
            self.offsets.append(offset)

    def place(self, index: int) -> tuple[int | None, int | None]:
        if not 0 <= index < self.count:
            return None, None
        if not self.jsonl:
            return self.lines[index], self.columns[index] or None
        low, high = 0, len(self.starts) - 1
        while low < high:  # the last breakpoint at or before index
            middle = (low + high + 1) // 2
            if self.starts[middle] <= index:
                low = middle
            else:
                high = middle - 1
        return index + self.offsets[low], None


# --------------------------------------------------------------------------------------------
# Unchanged records are written as they were read


class _Passthrough:
    """Pairs the records coming out of the repair with the records fed to it.

    A record that comes out equal to one fed in (the repair never mutates its input) is written
    as the text it was read from, byte for byte: numbers, escapes and spacing stay as they were,
    and nothing is encoded again. Outputs come in input order; a record the repair dropped or
    changed is skipped. Only records not yet out are held (at most ``LIMIT``).
    """

    WINDOW = 16
    LIMIT = 4096

    def __init__(self) -> None:
        self.pending: deque[tuple[dict[str, Any], str]] = deque(maxlen=self.LIMIT)

    def fed(self, located: Located) -> None:
        self.pending.append((located.record, located.raw))  # the oldest goes beyond LIMIT

    def out(self, record: dict[str, Any]) -> Record:
        pending = self.pending
        if pending:  # the common case: the oldest record fed comes out unchanged
            source, raw = pending[0]
            if source is record or source == record:
                pending.popleft()
                return RawText(raw)
        for index, (source, raw) in enumerate(pending):
            if index == self.WINDOW:
                break
            if source == record:
                for _ in range(index + 1):
                    self.pending.popleft()
                return RawText(raw)
        return record


# --------------------------------------------------------------------------------------------
# Repair


def _repair(
    reader: HistoryReader,
    wire: str,
    name: str,
    target: Path | None,
    stdout: IO[bytes] | None,
    in_place: bool,
) -> RepairOutcome:
    located = reader.records()
    head: list[Located] = []
    wire_name: str | None = wire
    head = list(islice(located, DETECT_WINDOW))
    if wire == "auto":
        wire_name = _detect([item.record for item in head], name) if head else None
    else:
        _confirm([item.record for item in head], wire, name)
    stream = RepairStream(wire_name) if wire_name is not None else None
    places = _Places(reader.layout.kind == "jsonl")

    passthrough = _Passthrough()

    def repaired() -> Iterator[Record]:
        add = places.add
        if stream is None:
            for item in chain(head, located):
                add(item)
                yield RawText(item.raw)
            return
        feed, out, pending = stream.feed, passthrough.out, passthrough.pending
        push = pending.append  # passthrough.fed, inline
        for item in chain(head, located):
            add(item)
            push((item.record, item.raw))
            for record in feed(item.record):
                if pending and pending[0][0] == record:  # passthrough.out, inline
                    yield RawText(pending.popleft()[1])
                else:
                    yield out(record)
        for record in stream.finish():
            yield out(record)

    chunks = render_history(reader.layout, repaired(), reader.before, lambda: reader.after)

    def changed() -> bool:
        return bool(stream is not None and stream.changes) or bool(reader.bad_lines)

    written, text = _deliver(chunks, target, stdout, changed if in_place else None)
    changes = list(stream.changes) if stream is not None else []
    findings = _change_findings(changes, name, places) + reader.bad_line_findings(name)
    return RepairOutcome(
        result=Result.of(findings, 1),
        wire=wire_name,
        layout=reader.layout,
        records=places.count,
        changes=len(changes),
        destination=target if written else None,
        written=written,
        text=text,
    )


def _deliver(
    chunks: Iterator[str],
    target: Path | None,
    stdout: IO[bytes] | None,
    keep: Callable[[], bool] | None,
) -> tuple[bool, str | None]:
    """Send the repaired text where it goes: (a file was written, the text if kept).

    ``keep`` (for --in-place) is asked at the end whether the file must be replaced at all.
    """
    if target is not None:
        return atomic_write(target, chunks, keep=keep), None
    if stdout is None:
        return False, "".join(chunks)
    import shutil
    import tempfile

    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES, mode="w+b") as spool:
        try:
            for chunk in chunks:
                spool.write(chunk.encode("utf-8"))
            spool.seek(0)
        except OSError as exc:  # the temporary file beyond SPOOL_BYTES (TMPDIR full)
            raise StoreError(
                f"cannot hold the history for stdout in a temporary file: {exc.strerror or exc}"
            ) from None
        try:
            shutil.copyfileobj(spool, stdout)
            stdout.flush()
        except BrokenPipeError:
            raise  # the reader went away: not an error of the repair
        except OSError as exc:
            raise StoreError(f"cannot write the history to stdout: {exc.strerror or exc}") from None
    return False, None


def _change_findings(changes: Sequence[Any], name: str, places: _Places) -> list[Finding]:
    """One RPR finding per change, placed at the record's line in the file."""
    findings = []
    for change in changes:
        where = f" (call {change.call_id})" if change.call_id else ""
        message = f"record {change.index + 1}: {change.detail}{where}"
        rule = CHANGE_RULES[change.kind]
        findings.append(rule.finding(name, message, *places.place(change.index)))
    return findings


# --------------------------------------------------------------------------------------------
# Check


def _check(reader: HistoryReader, wire: str, name: str) -> RepairOutcome:
    from apc_tools.runtime.conformance import check

    places = _Places(reader.layout.kind == "jsonl")
    records: list[dict[str, Any]] = []
    for item in reader.records():
        places.add(item)
        records.append(item.record)
    wire_name: str | None = wire
    if wire == "auto":
        wire_name = _detect(records[:DETECT_WINDOW], name) if records else None
    else:
        _confirm(records[:DETECT_WINDOW], wire, name)
    violations = check(records, wire_name) if wire_name is not None else ()
    findings = _violation_findings(violations, name, places) + reader.bad_line_findings(name)
    return RepairOutcome(
        result=Result.of(findings, 1),
        wire=wire_name,
        layout=reader.layout,
        records=len(records),
        changes=0,
    )


def _violation_findings(violations: Sequence[Any], name: str, places: _Places) -> list[Finding]:
    """One WIR finding per violation (the provider's own wording), at the record's line."""
    return [
        BY_ID[v.rule].finding(name, f"record {v.index + 1}: {v.message}", *places.place(v.index))
        for v in violations
    ]
