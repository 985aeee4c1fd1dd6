"""Graph properties over the whole reachable graph: "from every state, a goal state stays reachable"
(CTL ``AG EF goal``), decided by backward reachability from the goal states."""
from __future__ import annotations

import numba as nb
import numpy as np


@nb.njit(cache=True, nogil=True)
def cannot_reach_goal(row_start, edges, n_edges, goal, count, goal_index):
    """For each of the ``count`` states (CSR successors ``edges[row_start[i]:row_start[i+1]]``), whether no
    state whose goal bit ``goal_index`` is set can be reached from it."""
    indeg = np.zeros(count + 1, np.int64)
    for e in range(n_edges):
        indeg[edges[e] + 1] += 1
    for i in range(count):
        indeg[i + 1] += indeg[i]
    fill = indeg[:count].copy()
    preds = np.empty(n_edges, np.int32)
    for src in range(count):
        for e in range(row_start[src], row_start[src + 1]):
            dst = edges[e]
            preds[fill[dst]] = src
            fill[dst] += 1
    reach = np.zeros(count, np.uint8)
    queue = np.empty(count, np.int64)
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
        for e in range(indeg[dst], indeg[dst + 1]):
            src = preds[e]
            if reach[src] == 0:
                reach[src] = 1
                queue[tail] = src
                tail += 1
    return reach == 0
