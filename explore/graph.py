"""Graph properties over the whole reachable graph: "from every state, a goal state stays reachable"
(CTL ``AG EF goal``), decided by backward reachability from the goal states.

The predecessor lists (the reversed edges, as a CSR) are built in two passes over the edges: count each
state's predecessors, then file them. With a :class:`explore.team.ThreadTeam` each pass gives each
thread a range of destination states (as many states each to count, as many edges each to file): every
thread reads every edge, and writes only its range's counts and predecessors, so no two threads write
one word; the predecessors come out in source order either way. The counts are kept two places ahead,
so the filing's cursors end as the lists' starts and no copy of them is needed. The backward search
from the goal states then runs on one thread.
"""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def count_predecessors(edges, n_edges, lo, hi, first):
    """``first[d + 2] += 1`` for every edge into a state ``d`` of ``[lo, hi)`` (two ahead: summed, then
    advanced by the filing, ``first[d]`` ends at ``d``'s first predecessor)."""
    for e in range(n_edges):
        d = np.int64(edges[e])
        if lo <= d < hi:
            first[d + 2] += 1


@nb.njit(cache=True, nogil=True)
def file_predecessors(row_start, edges, count, lo, hi, first, preds):
    """For every edge ``src -> d`` into ``[lo, hi)``, sources ascending: ``src`` at ``preds[first[d + 1]]``,
    and ``first[d + 1]`` advanced (from ``d``'s first predecessor to the next state's)."""
    for src in range(count):
        for e in range(row_start[src], row_start[src + 1]):
            d = np.int64(edges[e])
            if lo <= d < hi:
                preds[first[d + 1]] = src
                first[d + 1] += 1


@nb.njit(cache=True, nogil=True)
def reach_backwards(first, preds, goal, count, goal_index):
    """Whether each state cannot reach a state whose goal bit ``goal_index`` is set (breadth-first from
    the goal states over the predecessor lists ``preds[first[d]:first[d + 1]]``)."""
    reach = np.zeros(count, np.uint8)
    queue = np.empty(count, np.int32)
    head = 0
    tail = 0
    for i in range(count):
        if (goal[i] >> goal_index) & 1:
            reach[i] = 1
            queue[tail] = i
            tail += 1
    while head < tail:
        dst = queue[head]
        head += 1
        for e in range(first[dst], first[dst + 1]):
            src = preds[e]
            if reach[src] == 0:
                reach[src] = 1
                queue[tail] = src
                tail += 1
    return reach == 0


def cannot_reach_goal(row_start: np.ndarray, edges: np.ndarray, n_edges: int, goal: np.ndarray, count: int,
                      goal_index: int, team: Any = None) -> np.ndarray:
    """For each of the ``count`` states (CSR successors ``edges[row_start[i]:row_start[i+1]]``), whether no
    state whose goal bit ``goal_index`` is set can be reached from it. ``team``: the threads that build
    the predecessor lists (None: this thread)."""
    ranges = team.threads if team is not None else 1

    def on_each(fn: Any) -> None:
        if team is None:
            fn(0)
        else:
            team.run(fn)

    first = np.zeros(count + 2, np.int64)
    counted = [count * t // ranges for t in range(ranges + 1)]
    on_each(lambda t: count_predecessors(edges, n_edges, counted[t], counted[t + 1], first))
    np.cumsum(first, out=first)   # first[d + 1]: d's first predecessor
    # the filing's ranges hold about as many edges each (what a thread writes), not as many states
    filed = [0] + [int(x) for x in np.searchsorted(first[1:count + 1], [n_edges * t // ranges
                                                                        for t in range(1, ranges)])] + [count]
    preds = np.empty(n_edges, np.int32)
    on_each(lambda t: file_predecessors(row_start, edges, count, filed[t], filed[t + 1], first, preds))
    return reach_backwards(first, preds, goal, count, goal_index)
