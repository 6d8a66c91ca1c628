"""Per-item work on every core: forked worker processes over contiguous chunks, results in order.

:func:`map_items` computes ``work(i)`` for ``i`` in ``range(count)`` and returns the results in
index order, exactly as ``[work(i) for i in range(count)]`` would. When the batch is large
enough to pay for processes (at least :data:`MIN_ITEMS` items and :data:`MIN_COST` cost units,
bytes for files) and the machine has more than one usable CPU, the items are cut into
contiguous chunks of about equal cost (balanced by ``costs``), :data:`SLICES` per process, and
the chunks' numbers are put in a pipe that every process reads: worker processes started with
``fork`` and the calling process (after its own ``meanwhile`` work) each take the next chunk
until none is left, so a process slowed by a costly file, an import or the machine's load takes
fewer (a fixed cut made the run wait for the slowest part). A worker sends each chunk's results
(pickled, one frame each, through its own pipe) as soon as it has computed them, and the
calling process reads and unpickles what has arrived between its own chunks, so little is left
to receive when the last chunk is done; it then puts every chunk in its place. ``work`` and the
data it reads are inherited through ``fork``, never pickled: only the results travel.

Nothing is lost and nothing raises because of the pool: where ``fork`` is not available
(Windows; macOS, where a forked child is unsafe) the work stays serial; a chunk whose worker
cannot start, crashes, is killed or raises is computed serially in the calling process (which
raises what the serial run would raise). Workers ignore SIGINT: on Ctrl-C the calling process
stops them and the interrupt goes on as in a serial run.

``APC_POOL_MIN_ITEMS`` (an internal knob for tests and benchmarks) overrides the item threshold
and drops the cost threshold; ``APC_POOL_WORKERS`` overrides the number of processes
(``1`` keeps everything serial).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, TypeVar

T = TypeVar("T")

MIN_ITEMS = 200  # below this a batch stays serial (a pre-commit run on a few files)
MIN_COST = 1024 * 1024  # ... and below this many cost units (bytes; about 4 KiB a file) too
MIN_ITEMS_ENV = "APC_POOL_MIN_ITEMS"
WORKERS_ENV = "APC_POOL_WORKERS"
SLICES = 16  # chunks per process for map_items (a process that runs late takes fewer)
MAX_CHUNKS = 255  # chunk numbers travel as single bytes


def cpu_count() -> int:
    """CPUs this process may run on (the affinity mask where the platform has one)."""
    counter = getattr(os, "process_cpu_count", None)  # Python 3.13+
    if counter is not None:
        return int(counter() or 1)
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _env_int(name: str) -> int | None:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return None


def workers_for(count: int, cost: int, min_items: int = MIN_ITEMS, min_cost: int = MIN_COST) -> int:
    """How many processes (the caller included) a batch of ``count`` items costing ``cost``
    gets: 1 (serial) below the thresholds (``min_items``, ``min_cost``) or without ``fork``."""
    if not fork_available():
        return 1
    forced = _env_int(WORKERS_ENV)
    workers = forced if forced is not None else cpu_count()
    knob = _env_int(MIN_ITEMS_ENV)
    small = count < max(knob, 2) if knob is not None else count < min_items or cost < min_cost
    if small or workers < 2:
        return 1
    return min(workers, count)


def fork_available() -> bool:
    """``fork`` where it is safe: not Windows (none), not macOS (system frameworks break in a
    forked child, which is why Python's default there is spawn). Elsewhere every POSIX Python
    offers it (multiprocessing lists it there; importing multiprocessing to ask cost a run
    8 ms)."""
    return sys.platform not in ("win32", "darwin") and hasattr(os, "fork")


def chunks(costs: Sequence[int], parts: int) -> list[range]:
    """``range(len(costs))`` cut into at most ``parts`` contiguous, non-empty ranges of about
    equal total cost (each item costs at least 1)."""
    count = len(costs)
    if count == 0:
        return []
    parts = max(1, min(parts, count))
    total = sum(max(1, c) for c in costs)
    out: list[range] = []
    start, spent = 0, 0
    for index, cost in enumerate(costs):
        spent += max(1, cost)
        left = parts - len(out) - 1  # ranges still to open after this one
        if left and spent >= total * (len(out) + 1) / parts and count - index - 1 >= left:
            out.append(range(start, index + 1))
            start = index + 1
    out.append(range(start, count))
    return [r for r in out if len(r)]


def map_items(
    work: Callable[[int], T],
    count: int,
    costs: Sequence[int] | None = None,
    meanwhile: Callable[[], None] | None = None,
    prepare: Callable[[], None] | None = None,
) -> list[T]:
    """``[work(i) for i in range(count)]``, on several processes when it pays (module doc).
    ``meanwhile`` (work of the caller's own that ``work`` does not depend on) runs once in
    this process: before the items when they stay serial, else while the workers start.
    ``prepare`` runs once in this process before the workers are forked, and only then (an
    import every process would otherwise make on its own)."""
    costs = costs if costs is not None else [1] * count
    workers = workers_for(count, sum(costs))
    if workers < 2:
        if meanwhile is not None:
            meanwhile()
        return [work(i) for i in range(count)]
    if prepare is not None:
        prepare()
    parts = chunks(costs, min(MAX_CHUNKS, workers * SLICES))
    return _shared(work, parts, workers - 1, meanwhile)


def map_parts(work: Callable[[int], T], count: int) -> list[T]:
    """``[work(i) for i in range(count)]`` with each ``work(i)`` (a whole chunk the caller cut,
    e.g. one that opens its own reader) in its own forked worker but the last, which this
    process computes; a failed worker's part is computed here, as in :func:`map_items`. The
    caller has already decided that the batch pays for processes (:func:`workers_for`)."""
    if count < 2 or not fork_available():
        return [work(i) for i in range(count)]
    return _parallel(work, [range(i, i + 1) for i in range(count)])


def _serial(work: Callable[[int], T], items: range) -> list[T]:
    return [work(i) for i in items]


# --------------------------------------------------------------------------- the processes
# A worker is apc itself forked (os.fork: no program is run, nothing is imported again): it
# computes with the inherited work and data, writes its pickled payload to its own pipe and
# ends with os._exit (no exit handler of the caller runs twice, no inherited buffer is written
# twice). multiprocessing did the same with more bookkeeping per process (and 8 ms of import).


def _fork(body: Callable[[], Any]) -> tuple[int, int] | None:
    """Start a worker that sends ``body()`` (as ``("ok", value)``, or ``("error", traceback)``
    when it raises or cannot be pickled); its (process id, reading end), or None when it
    cannot start (process limits, memory)."""
    # Imported here (in the caller, once, before the fork): a run that never forks does not
    # pay their import (2.5 ms, a tenth of a warm ``--tracked`` run).
    import pickle
    import traceback

    reading, writing = os.pipe()

    def send() -> None:
        os.close(reading)
        try:
            payload: tuple[str, Any] = ("ok", body())
            data = pickle.dumps(payload, pickle.HIGHEST_PROTOCOL)
        except BaseException:  # reported to the parent, which computes the work itself
            data = pickle.dumps(("error", traceback.format_exc()))
        view = memoryview(data)
        while view:
            view = view[os.write(writing, view) :]

    pid = _start(send)
    os.close(writing)
    if pid is None:
        os.close(reading)
        return None
    return pid, reading


def _start(body: Callable[[], None]) -> int | None:
    """Fork a worker that runs ``body()`` and ends (exit status 0, or 1 when it raised); its
    process id, or None when it cannot start (process limits, memory)."""
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        with contextlib.suppress(Exception):
            stream.flush()
    # Frozen, the objects inherited are left out of the worker's garbage collections, which
    # would otherwise walk every one of them and so copy every page they are on. (Not when
    # the caller keeps objects frozen itself: unfreezing would release those too.)
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        pid = os.fork()
    except OSError:
        pid = -1
    if freeze and pid:
        gc.unfreeze()
    if pid < 0:
        return None
    if pid == 0:  # the worker: never returns
        code = 0
        try:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
            body()
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    return pid


def _receive(reading: int) -> Any:
    """The payload a worker sent on ``reading`` (closed here), or None when there is none."""
    import pickle

    parts: list[bytes] = []
    try:
        while True:
            got = os.read(reading, 1 << 20)
            if not got:
                break
            parts.append(got)
    finally:
        os.close(reading)
    try:
        status, value = pickle.loads(b"".join(parts))
    except Exception:  # crashed or killed before it sent everything
        return None
    return value if status == "ok" else None


def _stop(started: Sequence[tuple[int, int | None]], kill: bool) -> None:
    """Close what is still open, kill the workers when ``kill``, and reap them all."""
    for pid, reading in started:
        if reading is not None:
            with contextlib.suppress(OSError):
                os.close(reading)
        if kill:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)


def _take(
    queue: int,
    work: Callable[[int], Any],
    parts: Sequence[range],
    each: Callable[[int, list[Any]], None] | None = None,
) -> dict[int, list[Any]]:
    """Compute the chunks whose numbers this process reads from ``queue`` until it is empty;
    ``each(index, results)`` after each one."""
    done: dict[int, list[Any]] = {}
    while True:
        try:
            got = os.read(queue, 1)
        except BlockingIOError:  # empty: every chunk is taken
            return done
        if not got:
            return done
        index = got[0]
        if index < len(parts):
            done[index] = [work(i) for i in parts[index]]
            if each is not None:
                each(index, done[index])


# A worker of map_items sends each chunk's results as soon as they are computed, one frame
# each (4-byte length, then the pickled (chunk number, results)), and the calling process
# unpickles them between its own chunks: the results travel while the batch is computed,
# instead of all of them pickled, sent and unpickled after it.
PIPE_BYTES = 1 << 20  # the pipe's buffer (Linux), so that a worker never waits for a reader


def _fork_streaming(
    queue: int, work: Callable[[int], Any], parts: Sequence[range]
) -> tuple[int, int] | None:
    """Start a worker that takes chunks from ``queue`` and sends each chunk's results as a
    frame (it stops at the first chunk it cannot compute or pickle: that chunk and the ones
    it did not take are computed by the caller); its (process id, reading end), or None."""
    reading, writing = os.pipe()
    with contextlib.suppress(Exception):  # a larger buffer where the platform allows it
        import fcntl

        fcntl.fcntl(writing, fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    import pickle

    def send(index: int, results: list[Any]) -> None:
        data = pickle.dumps((index, results), pickle.HIGHEST_PROTOCOL)
        view = memoryview(len(data).to_bytes(4, "big") + data)
        while view:
            view = view[os.write(writing, view) :]

    def body() -> None:
        os.close(reading)
        _take(queue, work, parts, send)

    started = _start(body)
    os.close(writing)
    if started is None:
        os.close(reading)
        return None
    os.set_blocking(reading, False)
    return started, reading


class _Frames:
    """The frames read so far from a streaming worker's pipe, and the results they held."""

    def __init__(self, reading: int) -> None:
        self.reading: int | None = reading
        self.buffer = bytearray()
        self.results: dict[int, list[Any]] = {}

    def drain(self, *, wait: bool = False) -> None:
        """Read what is there (``wait``: everything, until the worker closes its end), and
        unpickle the whole frames."""
        if self.reading is None:
            return
        if wait:
            os.set_blocking(self.reading, True)
        while True:
            try:
                got = os.read(self.reading, PIPE_BYTES)
            except BlockingIOError:
                break
            except OSError:
                got = b""
            if not got:
                os.close(self.reading)
                self.reading = None
                break
            self.buffer += got
        self._parse()

    def _parse(self) -> None:
        import pickle

        buffer = self.buffer
        at = 0
        while len(buffer) - at >= 4:
            size = int.from_bytes(buffer[at : at + 4], "big")
            if len(buffer) - at - 4 < size:
                break
            try:
                index, results = pickle.loads(buffer[at + 4 : at + 4 + size])
            except Exception:  # not a frame this pool wrote: nothing after it is trusted
                self.buffer = bytearray()
                return
            if isinstance(index, int) and isinstance(results, list):
                self.results.setdefault(index, results)
            at += 4 + size
        del buffer[:at]


def _shared(
    work: Callable[[int], T],
    parts: list[range],
    helpers: int,
    meanwhile: Callable[[], None] | None,
) -> list[T]:
    """``parts`` computed by ``helpers`` forked workers and this process, each taking the next
    chunk from a shared pipe (module doc); a chunk no one delivered is computed here."""
    queue, feed = os.pipe()
    try:
        os.write(feed, bytes(range(len(parts))))  # at most 255 bytes: one atomic write
    finally:
        os.close(feed)
    os.set_blocking(queue, False)
    started: list[tuple[int, int | None]] = []  # (process id, reading end until read)
    frames: list[_Frames] = []
    failed = True
    try:
        for _ in range(helpers):
            forked = _fork_streaming(queue, work, parts)
            if forked is not None:
                started.append((forked[0], None))  # its reading end is the frames'
                frames.append(_Frames(forked[1]))

        def drain(_index: int = -1, _results: list[Any] | None = None) -> None:
            for stream in frames:
                stream.drain()

        if meanwhile is not None:
            meanwhile()
        done: dict[int, list[Any]] = _take(queue, work, parts, drain)
        for stream in frames:
            stream.drain(wait=True)
            for index, results in stream.results.items():
                if index < len(parts) and len(results) == len(parts[index]):
                    done.setdefault(index, results)
        out: list[T] = []
        for index, items in enumerate(parts):
            out += done[index] if index in done else _serial(work, items)
        failed = False
        return out
    finally:
        os.close(queue)
        for stream in frames:
            if stream.reading is not None:
                with contextlib.suppress(OSError):
                    os.close(stream.reading)
        _stop(started, kill=failed)


def _parallel(work: Callable[[int], T], parts: list[range]) -> list[T]:
    """Each part but the last in its own forked worker, the last here; a part whose worker
    failed in any way is computed here."""
    started: list[tuple[int, int | None]] = []
    plan: list[tuple[range, int | None]] = []  # (items, index in started) or no worker
    failed = True
    try:
        for items in parts[:-1]:
            one = _fork(partial(_serial, work, items))
            plan.append((items, len(started) if one is not None else None))
            if one is not None:
                started.append(one)
        mine = _serial(work, parts[-1])
        results: list[T] = []
        for items, at in plan:
            value: Any = None
            if at is not None:
                pid, reading = started[at]
                assert reading is not None
                started[at] = (pid, None)
                value = _receive(reading)
            ok = isinstance(value, list) and len(value) == len(items)
            results += value if ok else _serial(work, items)
        failed = False
        return results + mine
    finally:
        _stop(started, kill=failed)
