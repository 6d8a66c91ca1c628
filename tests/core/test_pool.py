"""core/pool.py: per-item work on forked processes, results in index order, never lost.

Real processes (the ``fork`` start method); the pool is forced on small batches with the
internal knobs ``APC_POOL_MIN_ITEMS`` and ``APC_POOL_WORKERS``. A test that needs the caller
and the workers to each compute something synchronises them through pipes (:class:`Meeting`,
:class:`Signal`), never by sleeping: on a loaded machine a sleep proves nothing about which
process runs when.
"""

from __future__ import annotations

import os
import select
import signal
import time
from collections.abc import Callable, Iterator

import pytest

from apc_tools.core import pool

pytestmark = pytest.mark.skipif(not pool.fork_available(), reason="needs the fork start method")


GUARD = 60.0  # seconds a process waits for another before the test fails (never reached)


class Signal:
    """Bytes through a pipe, from any process (forked workers included) to any other."""

    def __init__(self) -> None:
        self.reading, self.writing = os.pipe()

    def send(self, count: int = 1) -> None:
        os.write(self.writing, b"x" * count)

    def wait(self, timeout: float = GUARD) -> bool:
        """Take one byte; False when none came within ``timeout``."""
        ready, _, _ = select.select([self.reading], [], [], timeout)
        return bool(ready) and os.read(self.reading, 1) == b"x"

    def sent(self) -> bool:
        """Has a byte come (without waiting)?"""
        return self.wait(0)

    def close(self) -> None:
        os.close(self.reading)
        os.close(self.writing)


@pytest.fixture
def signals() -> Iterator[Callable[[], Signal]]:
    made: list[Signal] = []

    def make() -> Signal:
        made.append(Signal())
        return made[-1]

    yield make
    for one in made:
        one.close()


class Meeting:
    """Called as each item starts: the caller's first item lets the workers go on and waits
    until one of them has started an item; a worker's first item waits for the caller's. So
    the caller and at least one worker each compute items, whatever the machine's load."""

    def __init__(self, make: Callable[[], Signal], helpers: int) -> None:
        self.parent = os.getpid()
        self.helpers = helpers
        self.go, self.started = make(), make()
        self.met = False  # per process: a forked worker has its own copy

    def __call__(self) -> None:
        if self.met:
            return
        self.met = True
        if os.getpid() == self.parent:
            self.go.send(self.helpers)  # one byte for each worker
            assert self.started.wait(), "no worker started an item"
        else:
            assert self.go.wait(), "the caller never started an item"
            self.started.send()


@pytest.fixture
def forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "2")
    monkeypatch.setenv(pool.WORKERS_ENV, "3")


def test_results_in_order_and_computed_in_workers(
    forced: None, signals: Callable[[], Signal]
) -> None:
    parent = os.getpid()
    meet = Meeting(signals, helpers=2)

    def work(i: int) -> tuple[int, int]:
        meet()
        return i * i, os.getpid()

    out = pool.map_items(work, 300)
    assert [value for value, _ in out] == [i * i for i in range(300)]
    pids = {pid for _, pid in out}
    assert parent in pids  # the caller takes chunks itself
    assert len(pids) >= 2  # ... and the workers the others


def test_a_slow_process_takes_fewer_chunks(forced: None, signals: Callable[[], Signal]) -> None:
    """Chunks are taken, not dealt: the caller, busy with its ``meanwhile`` work until the
    workers have taken the chunks up to item 250 (they are taken in order), computes far fewer
    items than a fixed third."""
    parent = os.getpid()
    far = signals()

    def work(i: int) -> int:
        if i == 250:
            far.send()
        return os.getpid()

    def meanwhile() -> None:
        assert far.wait(), "the workers never reached item 250"

    out = pool.map_items(work, 300, meanwhile=meanwhile)
    assert len(out) == 300
    assert out.count(parent) < 100


@pytest.mark.parametrize("items", [3, 300])
def test_meanwhile_runs_once_in_this_process(items: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "10")  # 3 items: serial; 300: on the pool
    monkeypatch.setenv(pool.WORKERS_ENV, "2")
    calls: list[int] = []
    out = pool.map_items(lambda i: i, items, meanwhile=lambda: calls.append(os.getpid()))
    assert out == list(range(items))
    assert calls == [os.getpid()]


@pytest.mark.parametrize("items", [3, 300])
def test_prepare_runs_before_the_fork_only_when_there_is_one(
    items: int, monkeypatch: pytest.MonkeyPatch, signals: Callable[[], Signal]
) -> None:
    """What ``prepare`` sets up (an import) is there in every worker, set up once; a serial
    batch never pays for it."""
    monkeypatch.setenv(pool.MIN_ITEMS_ENV, "10")
    monkeypatch.setenv(pool.WORKERS_ENV, "2")
    ready: list[int] = []
    meet = Meeting(signals, helpers=1) if items == 300 else lambda: None

    def work(i: int) -> tuple[int, list[int]]:
        meet()  # the worker computes items too
        return os.getpid(), list(ready)

    out = pool.map_items(work, items, prepare=lambda: ready.append(1))
    assert ready == ([1] if items == 300 else [])
    assert all(seen == ready for _, seen in out)
    assert len({pid for pid, _ in out}) == (2 if items == 300 else 1)


def test_chunks_a_killed_worker_took_are_computed_here(forced: None) -> None:
    parent = os.getpid()

    def work(i: int) -> int:
        if os.getpid() != parent and i % 7 == 3:
            os.kill(os.getpid(), signal.SIGKILL)  # after it took chunks and computed some
        time.sleep(0.001)
        return i * 3

    assert pool.map_items(work, 200) == [i * 3 for i in range(200)]


def test_work_reads_the_inherited_data_not_a_pickled_copy(forced: None) -> None:
    data = [bytes([i % 256]) * 1000 for i in range(300)]
    unpicklable = lambda b: len(b)  # noqa: E731 - a lambda: fork inherits, nothing is pickled
    assert pool.map_items(lambda i: unpicklable(data[i]), len(data)) == [1000] * 300


def test_a_worker_that_raises_is_replaced_by_the_serial_run(forced: None) -> None:
    parent = os.getpid()

    def work(i: int) -> int:
        if os.getpid() != parent and i == 3:
            raise RuntimeError("boom in a worker")
        return i + 1

    assert pool.map_items(work, 30) == list(range(1, 31))


def test_a_worker_that_dies_is_replaced_by_the_serial_run(forced: None) -> None:
    parent = os.getpid()

    def work(i: int) -> int:
        if os.getpid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)
        return -i

    assert pool.map_items(work, 20) == [-i for i in range(20)]


def test_an_error_the_serial_run_would_raise_is_raised(forced: None) -> None:
    def work(i: int) -> int:
        if i == 7:
            raise ValueError("the same in every process")
        return i

    with pytest.raises(ValueError, match="the same in every process"):
        pool.map_items(work, 20)


def test_a_result_that_cannot_be_pickled_is_computed_here(forced: None) -> None:
    parent = os.getpid()
    out = pool.map_items(lambda i: (lambda: i) if os.getpid() != parent else i, 12)
    assert out == list(range(12))  # the workers' lambdas could not travel: all computed here


def test_small_batches_stay_serial(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pool.MIN_ITEMS_ENV, raising=False)
    monkeypatch.setenv(pool.WORKERS_ENV, "4")
    assert pool.workers_for(10, 10 * 4096) == 1  # a pre-commit run on a few files
    assert pool.workers_for(pool.MIN_ITEMS, pool.MIN_COST - 1) == 1  # many tiny files
    assert pool.workers_for(pool.MIN_ITEMS, pool.MIN_COST) == 4
    parent = os.getpid()
    assert {pid for pid in pool.map_items(lambda i: os.getpid(), 10)} == {parent}
    monkeypatch.setenv(pool.WORKERS_ENV, "1")
    assert pool.workers_for(10_000, 10**9) == 1


def test_worker_count_follows_the_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pool.WORKERS_ENV, raising=False)
    monkeypatch.delenv(pool.MIN_ITEMS_ENV, raising=False)
    cpus = pool.cpu_count()
    assert cpus >= 1
    if hasattr(os, "sched_getaffinity"):
        assert cpus == len(os.sched_getaffinity(0))
    expected = 1 if cpus < 2 else min(cpus, 10_000)
    assert pool.workers_for(10_000, 10**9) == expected


@pytest.mark.parametrize("parts", [1, 2, 3, 7])
def test_chunks_cover_every_item_once_in_order(parts: int) -> None:
    costs = [1, 100, 3, 3, 3, 50, 1, 1, 1, 200, 5]
    ranges = pool.chunks(costs, parts)
    assert [i for r in ranges for i in r] == list(range(len(costs)))
    assert 1 <= len(ranges) <= parts
    assert all(len(r) for r in ranges)
    assert pool.chunks([], 3) == []
    assert pool.chunks([5, 5, 5, 5], 2) == [range(0, 2), range(2, 4)]


def test_ctrl_c_stops_the_workers_and_goes_on_as_in_a_serial_run(
    forced: None, signals: Callable[[], Signal]
) -> None:
    """Ctrl-C while the caller computes its chunk and the workers are busy with theirs: the
    interrupt goes on, and the workers are killed (not waited for) and reaped."""
    parent = os.getpid()
    never, survived, busy = signals(), signals(), signals()
    workers: set[int] = set()

    def work(i: int) -> int:
        if os.getpid() == parent:
            while len(workers) < 2:  # both workers are busy with a chunk of their own
                assert select.select([busy.reading], [], [], GUARD)[0], "a worker never started"
                workers.update(int(pid) for pid in os.read(busy.reading, 4096).split())
            os.kill(parent, signal.SIGINT)  # raises KeyboardInterrupt here (checked at once)
            time.sleep(GUARD)  # a bound only: the interrupt has been raised
        else:
            # busy until killed: a worker holds its chunk, so chunks are left for the caller
            os.write(busy.writing, f"{os.getpid()}\n".encode())
            if not never.wait(GUARD):
                survived.send()  # reached only if the pool waited for it instead of killing it
        return i

    # the default handler, whoever ran before (a test runner's worker may ignore SIGINT)
    kept = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            pool.map_items(work, 30)
    finally:
        signal.signal(signal.SIGINT, kept)
    assert len(workers) == 2
    for pid in workers:  # stopped and reaped, none left behind
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
    assert not survived.sent()


def test_nothing_is_left_frozen_and_a_callers_freeze_is_kept(forced: None) -> None:
    """The heap is frozen only across each fork (gc.freeze): the caller's collections see
    every object again afterwards, and objects the caller froze itself stay frozen."""
    import gc

    assert gc.get_freeze_count() == 0
    assert pool.map_items(lambda i: i, 50) == list(range(50))
    assert gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        assert pool.map_items(lambda i: i * 2, 50) == [i * 2 for i in range(50)]
        assert gc.get_freeze_count() == frozen
    finally:
        gc.unfreeze()


def test_results_larger_than_the_pipes_arrive_whole(
    forced: None, signals: Callable[[], Signal]
) -> None:
    """Workers send each chunk's results as they go (frames the caller reads between its own
    chunks): results far larger than a pipe's buffer neither block a worker for good nor lose
    a frame."""
    parent = os.getpid()
    meet = Meeting(signals, helpers=2)

    def work(i: int) -> tuple[int, bytes]:
        meet()
        return os.getpid(), bytes([i % 251]) * 40_000

    out = pool.map_items(work, 300)  # 12 MB of results
    assert [data for _, data in out] == [bytes([i % 251]) * 40_000 for i in range(300)]
    assert {pid for pid, _ in out} - {parent}  # the workers computed some of them


def test_frames_of_a_killed_worker_are_kept(forced: None) -> None:
    """A worker killed after it sent some frames: those are kept, the chunk it was computing
    and the ones it never took are computed here."""
    parent = os.getpid()

    def work(i: int) -> bytes:
        if os.getpid() != parent and i % 50 == 49:
            os.kill(os.getpid(), signal.SIGKILL)
        return bytes([i % 256]) * 5_000

    assert pool.map_items(work, 300) == [bytes([i % 256]) * 5_000 for i in range(300)]
