"""``apc repair`` on a session file: plan, check, and the write that never clobbers a live file.

A session file may be in use: the agent appends to it while it runs. So ``--in-place`` refuses a
file changed in the last :data:`QUIET_SECONDS` seconds, and right before the atomic rename the
file's size, mtime and SHA-256 are compared with what was read; if another process wrote to it
meanwhile, nothing is replaced (exit 2) and its lines are kept.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import IO, Any

from apc_tools.findings import Finding
from apc_tools.runtime.formats import Format
from apc_tools.runtime.sessions.base import (
    Note,
    Options,
    Plan,
    Projection,
    SessionError,
    SessionFile,
    bad_line_notes,
    render,
    torn_tail,
)

QUIET_SECONDS = 5.0
"""--in-place leaves alone a session file changed more recently than this."""


@dataclass
class Planned:
    """A session file read and its repair planned, not yet written."""

    session: SessionFile
    plan: Plan
    format: Format
    findings: list[Finding]


def handler(fmt: Format) -> ModuleType:
    return import_module(f"apc_tools.runtime.sessions.{fmt.handler}")


def _legacy(session: SessionFile, fmt: Format) -> dict[str, Any] | None:
    """A Gemini CLI legacy ``.json`` session: the whole object."""
    if fmt.handler != "gemini_cli":
        return None
    filled = [line for line in session.lines if line.problem != "blank"]
    if not filled:
        return None
    if filled[0].record is not None:
        one = filled[0].record
        return one if len(filled) == 1 and isinstance(one.get("messages"), list) else None
    try:
        value = json.loads(session.data)
    except ValueError:
        raise SessionError(f"{session.path}: not valid JSON") from None
    return value if isinstance(value, dict) else None


def _read(
    file: Path, fmt: Format, skip_bad_lines: bool, data: bytes | None
) -> tuple[SessionFile, list[Finding]]:
    from apc_tools.runtime.io import BAD_LINE

    session = SessionFile.read(file, data)
    findings: list[Finding] = []
    if _legacy(session, fmt) is None and (torn := torn_tail(session)) is not None:
        if not skip_bad_lines:
            raise SessionError(
                f"{file}: line {torn.number}: not valid JSON (cut mid-write?); a repair would "
                "bury it mid-file: use --skip-bad-lines to leave it out"
            )
        torn.problem = "left out"
        findings.append(
            BAD_LINE.finding(
                file.as_posix(), f"line {torn.number}: not valid JSON; left out", torn.number
            )
        )
    return session, findings


def plan_session(
    file: Path,
    fmt: Format,
    *,
    skip_bad_lines: bool = False,
    options: Options | None = None,
    data: bytes | None = None,
) -> Planned:
    """Read ``file`` (a session of format ``fmt``; or ``data``, its bytes read from a stream)
    and plan its add-only repair."""
    session, findings = _read(file, fmt, skip_bad_lines, data)
    module = handler(fmt)
    legacy = _legacy(session, fmt)
    opts = options or Options()
    plan = module.plan(session, opts, legacy=legacy) if legacy else module.plan(session, opts)
    notes = plan.notes + ([] if legacy else bad_line_notes(session))
    findings += notes_to_findings(notes, file.as_posix())
    for index, line in enumerate(session.lines):
        if line.problem == "left out":
            plan.replaced[index] = b""
    return Planned(session, plan, fmt, findings)


def check_session(
    file: Path, fmt: Format, *, skip_bad_lines: bool = False, data: bytes | None = None
) -> list[Finding]:
    """What the tool would send, checked against its provider's rules (WIR findings)."""
    from apc_tools.runtime.conformance import check
    from apc_tools.runtime.rules import BY_ID

    session, findings = _read(file, fmt, skip_bad_lines, data)
    legacy = _legacy(session, fmt)
    module = handler(fmt)
    projection: Projection = (
        module.project(session, legacy=legacy) if legacy else module.project(session)
    )
    name = file.as_posix()
    on_resume: str | None = getattr(module, "ON_RESUME", None)
    for v in check(projection.records, projection.wire):
        line = projection.lines[v.index] if v.index < len(projection.lines) else 0
        where = f"line {line}" if line else f"message {v.index + 1}"
        message = f"{where}: {v.message}"
        if v.rule == "WIR001" and on_resume:  # the API's rule, and what the tool does itself
            message += f" (the provider API requires the answer; {on_resume})"
        findings.append(BY_ID[v.rule].finding(name, message, line or None))
    notes = [] if legacy else bad_line_notes(session)
    return findings + notes_to_findings(notes, name)


def notes_to_findings(notes: list[Note], name: str) -> list[Finding]:
    from apc_tools.runtime.rules import BY_ID

    return [BY_ID[n.rule].finding(name, n.message, n.line) for n in notes]


def ensure_quiet(file: Path, now: float | None = None) -> None:
    """Refuse a session file changed in the last QUIET_SECONDS (the agent may be writing)."""
    age = (now if now is not None else time.time()) - file.stat().st_mtime
    if age < QUIET_SECONDS:
        raise SessionError(
            f"{file}: changed {max(age, 0):.1f}s ago: the session may be in use; stop the agent "
            f"(or wait {QUIET_SECONDS:.0f}s) and run again"
        )


def unchanged_guard(session: SessionFile) -> None:
    """Raise if the file is no longer what was read (another process wrote to it)."""
    path, stamp = session.path, session.stamp
    try:
        with path.open("rb") as fh:
            data = fh.read(stamp.size + 1)
            info = path.stat()
    except OSError as exc:
        raise SessionError(f"{path}: cannot be read again before replacing it: {exc}") from None
    same = (
        len(data) == stamp.size
        and info.st_mtime_ns == stamp.mtime_ns
        and hashlib.sha256(data).hexdigest() == stamp.sha256
    )
    if not same:
        raise SessionError(
            f"{path}: changed while it was repaired (another process wrote to it); "
            "nothing was replaced: run again when the agent has stopped"
        )


def write(planned: Planned, target: Path | None, stdout: IO[bytes] | None, in_place: bool) -> bool:
    """Write the repaired file; True when a file was written."""
    from apc_tools.runtime.store import atomic_write, sweep

    chunks: Iterator[bytes] = render(planned.session, planned.plan)
    if target is None:
        if stdout is not None:
            for chunk in chunks:
                stdout.write(chunk)
            stdout.flush()
        return False
    if in_place:
        if not planned.plan.changed:
            sweep(target)  # what a killed earlier repair left beside it
            return False
        guard = planned.session
        return atomic_write(target, chunks, before_replace=lambda: unchanged_guard(guard))
    return atomic_write(target, chunks)
