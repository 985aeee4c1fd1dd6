"""The level threads' team (explore.team): every call once, on its own thread, at once; the first error in
index order; no call lost whether a waiter spins or sleeps. A lost wake-up fails a test instead of hanging
it: every wait here is bounded."""
from __future__ import annotations

import contextlib
import threading
import time

import pytest

from explore.team import ThreadTeam


def finishes(work, seconds: float = 20.0):
    """``work()`` on a helper thread: its result (or what it raised), or a test failure if it hangs."""
    out: list = []

    def run():
        try:
            out.append(("ok", work()))
        except BaseException as exc:
            out.append(("raised", exc))

    helper = threading.Thread(target=run, daemon=True)
    helper.start()
    helper.join(seconds)
    assert not helper.is_alive(), f"the team did not return within {seconds} s"
    kind, value = out[0]
    if kind == "raised":
        raise value
    return value


@contextlib.contextmanager
def team_of(threads: int, **options):
    team = ThreadTeam(threads, **options)
    try:
        yield team
    finally:
        finishes(team.close, 10)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_each_index_runs_once_on_its_own_thread_and_results_come_in_index_order(threads):
    def calls(team):
        for _ in range(50):
            seen = []
            caller = threading.get_ident()
            results = team.run(lambda i: seen.append((i, threading.get_ident())) or i * 10)
            assert results == [10 * i for i in range(threads)]
            assert sorted(i for i, _ in seen) == list(range(threads))
            assert len({ident for _, ident in seen}) == threads
            assert dict(seen)[0] == caller   # fn(0) on the caller's thread
        assert team.run(lambda i: i, 1) == [0]
        assert team.run(lambda i: i, 0) == []

    with team_of(threads) as team:
        finishes(lambda: calls(team))


def test_the_calls_run_at_once():
    barrier = threading.Barrier(3, timeout=10)
    with team_of(3) as team:   # one thread at a time would break the barrier
        assert finishes(lambda: team.run(lambda i: barrier.wait() is not None)) == [True] * 3


@pytest.mark.parametrize("spin", [0.0, 0.002])
def test_no_call_is_lost_when_waiters_sleep(spin):
    """With no spinning at all, and with pauses longer than the spin (every waiter then sleeps), every call
    still wakes the workers and the caller."""
    def calls(team):
        totals = []
        for k in range(120):
            if k % 3 == 0:
                time.sleep(0.005)   # the workers go to sleep
            # one call in three slow, in turn, so the caller and each worker wait in turn
            totals.append(sum(team.run(lambda i: (time.sleep(0.003) if i == k % 3 else None) or i + k)))
        return totals

    with team_of(3, spin_seconds=spin) as team:
        assert finishes(lambda: calls(team)) == [3 + 3 * k for k in range(120)]


def test_the_first_error_in_index_order_is_raised_once_every_call_returned():
    done = threading.Event()

    def fn(i):
        if i == 1:
            time.sleep(0.05)
            done.set()
            raise KeyError("worker 1")
        if i == 2:
            raise ValueError("worker 2")
        return i

    with team_of(3) as team:
        with pytest.raises(KeyError, match="worker 1"):
            finishes(lambda: team.run(fn))
        assert done.is_set()   # the slow call had returned before the error reached the caller
        assert team.failed == 1
        assert finishes(lambda: team.run(lambda i: i)) == [0, 1, 2]   # the team works on


def test_more_calls_than_threads_are_refused():
    with team_of(2) as team:
        with pytest.raises(ValueError, match="3 calls for a team of 2 threads"):
            team.run(lambda i: i, 3)


def test_close_stops_the_workers():
    with team_of(3) as team:
        finishes(lambda: team.run(lambda i: i))
        workers = list(team._workers)
        assert len(workers) == 2 and all(t.is_alive() for t in workers)
    assert not any(t.is_alive() for t in workers)
