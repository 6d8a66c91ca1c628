"""Hang guards: run work in a forked child and fail if it has not finished after a generous limit.

A catastrophic regex holds the interpreter lock inside the C matcher, so a thread cannot be
stopped or even observed: the work runs in a child process, killed when the limit passes. The
limit only catches a hang (minutes or hours); it is never a speed assertion.

:func:`pathological_inputs` builds the classic attack strings for a regex from its own syntax
tree: for every repeated part, the text before it, the part pumped many times, and a character
that makes the match fail (``prefix + pump * n + "\\x00"``). A pattern whose time grows faster
than the input (nested or adjacent overlapping quantifiers, a lazy scan per start) runs for
minutes on these; a linear one takes milliseconds.
"""

from __future__ import annotations

import multiprocessing
import re
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from re import _parser as sre_parse  # type: ignore[attr-defined]
from types import FrameType
from typing import Any

import pytest

LIMIT = 30.0  # seconds: generous; only a hang (or a quadratic blow-up) reaches it
PUMP_LENGTH = 100_000  # characters of pumped text after one start
# Many starts in a row: at 256 KiB a pattern that rescans the rest of the text from each start
# needs more than 10**10 steps (hours), while a linear one needs milliseconds.
FILE_LENGTH = 256 * 1024


ALARM = 60  # seconds per example of a fuzz test


class Hang(Exception):
    pass


@contextmanager
def hang_guard(limit: int = ALARM) -> Iterator[None]:
    """In-process guard for fuzz examples: SIGALRM raises :class:`Hang` after ``limit`` seconds
    (the regex engine checks for signals, so this interrupts a catastrophic match too)."""

    def expire(signum: int, frame: FrameType | None) -> None:
        raise Hang(f"no result after {limit} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(limit)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _child(conn: Any, func: Callable[..., Any], args: tuple[Any, ...]) -> None:
    try:
        func(*args)
    except BaseException:  # report any failure to the parent, with its traceback
        conn.send(traceback.format_exc())
    else:
        conn.send(None)
    conn.close()


def run_guarded(func: Callable[..., Any], *args: Any, limit: float = LIMIT) -> None:
    """Run ``func(*args)`` in a forked child; fail the test if it raises or outlives ``limit``."""
    context = multiprocessing.get_context("fork")
    parent, child = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(child, func, args), daemon=True)
    process.start()
    child.close()
    finished = parent.poll(limit)
    if not finished:
        process.kill()
        process.join()
        pytest.fail(f"hang: {getattr(func, '__name__', func)} still running after {limit:.0f} s")
    error = parent.recv()
    process.join()
    if error is not None:
        pytest.fail(f"the guarded work raised:\n{error}")


# --------------------------------------------------------------------------- attack strings

_CATEGORY_CHARS = {
    "CATEGORY_DIGIT": "0",
    "CATEGORY_NOT_DIGIT": "a",
    "CATEGORY_SPACE": " \t\n",
    "CATEGORY_NOT_SPACE": "a-",
    "CATEGORY_WORD": "a_0",
    "CATEGORY_NOT_WORD": " -.",
    "CATEGORY_LINEBREAK": "\n",
    "CATEGORY_NOT_LINEBREAK": "a ",
}


def _class_chars(items: list[tuple[Any, Any]]) -> str:
    """Representative characters of a character class (``[...]``)."""
    if items and str(items[0][0]) == "NEGATE":
        return "a -"
    out = ""
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out += chr(arg)
        elif name == "RANGE":
            out += chr(arg[0]) + chr(arg[1])
        elif name == "CATEGORY":
            out += _CATEGORY_CHARS.get(str(arg), "a")
    return out


class _Sampler:
    """Walks a parsed regex, writing a near-match sample and recording the pump points."""

    def __init__(self) -> None:
        self.sample: list[str] = []
        self.pumps: list[tuple[int, str]] = []  # (offset in sample, pumped text)

    @property
    def offset(self) -> int:
        return sum(len(s) for s in self.sample)

    def walk(self, items: Any) -> None:
        for op, arg in items:
            self.op(str(op), arg)

    def text_of(self, items: Any) -> str:
        saved, saved_pumps = self.sample, list(self.pumps)
        self.sample = []
        self.walk(items)
        text = "".join(self.sample)
        self.sample, self.pumps = saved, saved_pumps + self.pumps[len(saved_pumps) :]
        return text

    def op(self, name: str, arg: Any) -> None:
        if name == "LITERAL":
            self.sample.append(chr(arg))
        elif name == "NOT_LITERAL":
            self.sample.append("a" if chr(arg) != "a" else "b")
        elif name == "IN":
            chars = _class_chars(arg)
            self.sample.append(chars[:1] or "a")
            for char in set(chars):
                self.pumps.append((self.offset, char))
        elif name == "ANY":
            self.sample.append("a")
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _high, body = arg
            at = self.offset
            text = self.text_of(body) or "a"
            self.pumps.append((at, text))
            self.sample.append(text * max(low, 1) if low <= 64 else text * 64)
        elif name == "SUBPATTERN":
            self.walk(arg[-1])
        elif name == "ATOMIC_GROUP":
            self.walk(arg)
        elif name == "BRANCH":
            alternatives = arg[1]
            first = True
            for alt in alternatives:
                if first:
                    self.walk(alt)
                    first = False
                else:
                    self.pumps.append((self.offset, self.text_of(alt)))
        elif name == "GROUPREF":
            self.sample.append("a")


def _times(text: str, length: int) -> str:
    return text * max(1, length // max(1, len(text)))


def pathological_inputs(pattern: re.Pattern[str]) -> Iterator[str]:
    """Attack strings for ``pattern``. For each pump point: one start followed by a long pump
    and a stopper (``prefix + pump * n + "\\x00"``: backtracking inside one match), and many
    starts in a row (``(prefix + pump) * n``, ``prefix * n``: a rescan per start), up to the
    :data:`FILE_LENGTH` characters."""
    sampler = _Sampler()
    sampler.walk(sre_parse.parse(pattern.pattern, pattern.flags))
    sample = "".join(sampler.sample)
    candidates: list[str] = [_times(sample, FILE_LENGTH)]
    for offset, pump in sampler.pumps:
        if not pump:
            continue
        prefix, pumped = sample[:offset], _times(pump, PUMP_LENGTH)
        candidates += [
            prefix + pumped + "\x00",
            prefix + pumped + sample[offset:] + "\x00",
            pumped + "\x00",
            _times(prefix + pump, FILE_LENGTH),
        ]
        if prefix:
            candidates.append(_times(prefix, FILE_LENGTH))
    yield from dict.fromkeys(candidates)


def exercise_window(pattern: re.Pattern[str], width: int = 48) -> None:
    """For patterns only ever searched in a short window before a match (a detector's
    ``before``): search every window of ``width`` characters of each attack string."""
    for text in pathological_inputs(pattern):
        for end in range(0, len(text), 13):
            pattern.search(text, max(0, end - width), end)


def exercise(pattern: re.Pattern[str] | re.Pattern[bytes]) -> None:
    """Scan each attack string the ways apc uses patterns (finditer, and match at the start);
    a bytes pattern gets the attack strings of its text twin, as Latin-1 bytes."""
    if isinstance(pattern.pattern, bytes):
        twin = re.compile(pattern.pattern.decode("latin-1"), pattern.flags & ~re.ASCII)
        for text in pathological_inputs(twin):
            data = text.encode("latin-1", "replace")
            for _ in pattern.finditer(data):  # type: ignore[arg-type]
                pass
            pattern.match(data)  # type: ignore[arg-type]
        return
    for text in pathological_inputs(pattern):  # type: ignore[arg-type]
        for _ in pattern.finditer(text):  # type: ignore[arg-type]
            pass
        pattern.match(text)  # type: ignore[arg-type]
