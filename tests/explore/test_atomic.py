"""The atomic steps the threaded rounds rely on, compiled, alone and from two threads at once."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from explore.atomic import acquire_fence, claim, compare_swap, fetch_add, load_acquire, store_release


@nb.njit(nogil=True)
def _steps(words, counts):
    swapped = compare_swap(words, 1, np.uint64(5), np.uint64(7))   # holds 5: swapped
    kept = compare_swap(words, 1, np.uint64(5), np.uint64(9))      # holds 7 now: kept
    store_release(words, 2, load_acquire(words, 1) + np.uint64(1))
    acquire_fence()
    first = claim(words, 0, np.uint64(3))
    second = claim(words, 0, np.uint64(4))
    old = fetch_add(counts, 0, 10)
    return swapped, kept, first, second, old


def test_each_step_does_what_it_says():
    words = np.array([0, 5, 0], dtype=np.uint64)
    counts = np.array([2], dtype=np.int64)
    assert _steps(words, counts) == (5, 7, True, False, 2)
    assert words.tolist() == [3, 7, 8] and counts.tolist() == [12]


@nb.njit(nogil=True)
def _race(counter, best, claims, n, me):
    won = 0
    for i in range(n):
        fetch_add(counter, 0, 1)
        cur = best[i % len(best)]
        mine = np.int64(2 * i + me)
        while mine < cur:    # the lowering loop of explore.threaded._lower_best
            old = compare_swap(best, i % len(best), cur, mine)
            if old == cur:
                break
            cur = old
        if claim(claims, i % len(claims), np.uint64(me + 1)):
            won += 1
    return won


def test_two_threads_lose_no_update():
    n = 200_000
    counter = np.zeros(1, dtype=np.int64)
    best = np.full(1000, np.iinfo(np.int64).max, dtype=np.int64)
    claims = np.zeros(5000, dtype=np.uint64)
    with ThreadPoolExecutor(2) as pool:
        won = list(pool.map(lambda me: _race(counter, best, claims, n, me), (0, 1)))
    assert counter[0] == 2 * n
    assert best.tolist() == [2 * k for k in range(1000)]   # the smallest of each slot's values, from thread 0
    assert sum(won) == len(claims) and np.all(claims != 0)   # each word claimed exactly once
