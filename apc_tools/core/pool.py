"""Per-item work on every core: forked worker processes over contiguous chunks, results in order.

:func:`map_items` computes ``work(i)`` for ``i`` in ``range(count)`` and returns the results in
index order, exactly as ``[work(i) for i in range(count)]`` would. When the batch is large
enough to pay for processes (at least :data:`MIN_ITEMS` items and :data:`MIN_COST` cost units,
bytes for files) and the machine has more than one usable CPU, the items are cut into
contiguous chunks of about equal cost (balanced by ``costs``), :data:`SLICES` per process, and
the chunks' numbers are put in a pipe that every process reads: worker processes started with
``fork`` and the calling process (after its own ``meanwhile`` work) each take the next chunk
until none is left, so a process slowed by a costly file, an import or the machine's load takes
fewer (a fixed cut made the run wait for the slowest part). The calling process then reads the
workers' results (pickled through a pipe) and puts every chunk in its place. ``work`` and the
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

import os
import signal
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")

MIN_ITEMS = 200  # below this a batch stays serial (a pre-commit run on a few files)
MIN_COST = 1024 * 1024  # ... and below this many cost units (bytes; about 4 KiB a file) too
MIN_ITEMS_ENV = "APC_POOL_MIN_ITEMS"
WORKERS_ENV = "APC_POOL_WORKERS"
SLICES = 16  # chunks per process for map_items (a process that runs late takes fewer)
MAX_CHUNKS = 255  # chunk numbers travel as single bytes

# The work of the current batch, inherited by the forked workers (never pickled).
_WORK: Callable[[int], Any] | None = None
_PARTS: list[range] = []  # map_items: the chunks, numbered by their index here


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
    forked child, which is why Python's default there is spawn)."""
    if sys.platform in ("win32", "darwin") or not hasattr(os, "fork"):
        return False
    import multiprocessing

    return "fork" in multiprocessing.get_all_start_methods()


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
) -> list[T]:
    """``[work(i) for i in range(count)]``, on several processes when it pays (module doc).
    ``meanwhile`` (work of the caller's own that ``work`` does not depend on) runs once in
    this process: before the items when they stay serial, else while the workers start."""
    costs = costs if costs is not None else [1] * count
    workers = workers_for(count, sum(costs))
    if workers < 2:
        if meanwhile is not None:
            meanwhile()
        return [work(i) for i in range(count)]
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


def _child(items: range, sender: Any) -> None:
    """The body of a worker: compute ``items`` with the inherited work, send the results."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    work = _WORK
    try:
        assert work is not None
        payload: tuple[str, Any] = ("ok", [work(i) for i in items])
    except BaseException:  # reported to the parent, which recomputes the chunk itself
        payload = ("error", traceback.format_exc())
    try:
        sender.send(payload)
    except Exception:  # a result that cannot be pickled: the parent recomputes
        sender.send(("error", traceback.format_exc()))
    finally:
        sender.close()


def _take(queue: int, work: Callable[[int], Any], parts: Sequence[range]) -> dict[int, list[Any]]:
    """Compute the chunks whose numbers this process reads from ``queue`` until it is empty."""
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


def _taker(queue: int, sender: Any) -> None:
    """The body of a map_items worker: take chunks, send ``{chunk number: results}``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    work = _WORK
    try:
        assert work is not None
        payload: tuple[str, Any] = ("ok", _take(queue, work, _PARTS))
    except BaseException:  # the chunks it took are computed by the parent
        payload = ("error", traceback.format_exc())
    try:
        sender.send(payload)
    except Exception:  # a result that cannot be pickled: the parent recomputes
        sender.send(("error", traceback.format_exc()))
    finally:
        sender.close()


def _shared(
    work: Callable[[int], T],
    parts: list[range],
    helpers: int,
    meanwhile: Callable[[], None] | None,
) -> list[T]:
    """``parts`` computed by ``helpers`` forked workers and this process, each taking the next
    chunk from a shared pipe (module doc); a chunk no one delivered is computed here."""
    import multiprocessing

    global _WORK, _PARTS
    context = multiprocessing.get_context("fork")
    queue, feed = os.pipe()
    try:
        os.write(feed, bytes(range(len(parts))))  # at most 255 bytes: one atomic write
    finally:
        os.close(feed)
    os.set_blocking(queue, False)
    _WORK, _PARTS = work, parts
    started: list[tuple[Any, Any]] = []  # (process, receiving end)
    try:
        for _ in range(helpers):
            try:
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(target=_taker, args=(queue, sender), daemon=True)
                process.start()
                sender.close()
                started.append((process, receiver))
            except Exception:  # cannot fork (limits, memory): fewer helpers
                continue
        if meanwhile is not None:
            meanwhile()
        done: dict[int, list[Any]] = _take(queue, work, parts)
        for _process, receiver in started:
            for index, results in _delivered(receiver).items():
                if index < len(parts) and len(results) == len(parts[index]):
                    done.setdefault(index, results)
        out: list[T] = []
        for index, items in enumerate(parts):
            out += done[index] if index in done else _serial(work, items)
        return out
    except BaseException:
        for process, _ in started:
            if process.is_alive():
                process.kill()
        raise
    finally:
        os.close(queue)
        for process, receiver in started:
            receiver.close()
            process.join(5)
        _WORK, _PARTS = None, []


def _delivered(receiver: Any) -> dict[int, list[Any]]:
    """A map_items worker's results by chunk number (none when it failed in any way)."""
    try:
        status, value = receiver.recv()
    except (EOFError, OSError, Exception):  # crashed or killed before sending
        return {}
    return value if status == "ok" and isinstance(value, dict) else {}


def _parallel(work: Callable[[int], T], parts: list[range]) -> list[T]:
    import multiprocessing

    global _WORK
    context = multiprocessing.get_context("fork")
    _WORK = work
    started: list[tuple[range, Any, Any]] = []  # (items, process, receiving end) or no process
    try:
        for items in parts[:-1]:
            try:
                receiver, sender = context.Pipe(duplex=False)
                process = context.Process(target=_child, args=(items, sender), daemon=True)
                process.start()
                sender.close()
                started.append((items, process, receiver))
            except Exception:  # cannot fork (limits, memory): this chunk is done here
                started.append((items, None, None))
        mine = _serial(work, parts[-1])
        results: list[T] = []
        for items, process, receiver in started:
            results += _collect(work, items, process, receiver)
        return results + mine
    except BaseException:
        for _, process, _ in started:
            if process is not None and process.is_alive():
                process.kill()
        raise
    finally:
        for _, process, receiver in started:
            if receiver is not None:
                receiver.close()
            if process is not None:
                process.join(5)
        _WORK = None


def _collect(work: Callable[[int], T], items: range, process: Any, receiver: Any) -> list[T]:
    """A worker's results, or the chunk computed here when the worker failed in any way."""
    if process is None:
        return _serial(work, items)
    try:
        status, value = receiver.recv()
    except (EOFError, OSError, Exception):  # crashed or killed before sending
        status, value = "error", "worker ended without a result"
    if status == "ok" and isinstance(value, list) and len(value) == len(items):
        return value
    return _serial(work, items)
