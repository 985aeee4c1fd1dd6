"""Backward reachability for graph properties (explore/graph.py), on one thread and on a team, against
networkx's on random graphs."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

from explore.graph import cannot_reach_goal
from explore.team import ThreadTeam


def random_graph(seed: int, count: int, degree: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """CSR successors (some states without any, self-loops and duplicate edges allowed) and goal bits 0
    and 1 on a few states."""
    rng = np.random.default_rng(seed)
    out_degrees = rng.integers(0, 2 * degree + 1, count)
    out_degrees[rng.random(count) < 0.2] = 0
    row_start = np.zeros(count + 1, np.int64)
    np.cumsum(out_degrees, out=row_start[1:])
    edges = rng.integers(0, count, int(row_start[-1])).astype(np.int32)
    goal = np.zeros(count, np.uint8)
    goal[rng.random(count) < 0.05] |= 1
    goal[rng.random(count) < 0.01] |= 2
    return row_start, edges, goal


def expected(row_start: np.ndarray, edges: np.ndarray, goal: np.ndarray, bit: int) -> np.ndarray:
    g = nx.DiGraph()
    g.add_nodes_from(range(len(goal)))
    g.add_edges_from((src, int(d)) for src in range(len(goal)) for d in edges[row_start[src]:row_start[src + 1]])
    reaches = set()
    for target in np.flatnonzero((goal >> bit) & 1):
        reaches |= nx.ancestors(g, int(target)) | {int(target)}
    return np.array([i not in reaches for i in range(len(goal))])


@pytest.fixture(scope="module")
def teams():
    made = {n: ThreadTeam(n) for n in (2, 3)}
    yield made
    for team in made.values():
        team.close()


@pytest.mark.parametrize("seed,count,degree", [(1, 1, 1), (2, 7, 1), (3, 300, 1), (4, 2000, 3), (5, 500, 0)])
@pytest.mark.parametrize("threads", [1, 2, 3])
def test_every_thread_count_finds_the_states_that_cannot_reach_a_goal(teams, seed, count, degree, threads):
    row_start, edges, goal = random_graph(seed, count, degree)
    team = teams.get(threads)
    for bit in (0, 1, 2):   # bit 2: no goal state at all, so no state reaches one
        bad = cannot_reach_goal(row_start, edges, len(edges), goal, count, bit, team)
        assert bad.tolist() == expected(row_start, edges, goal, bit).tolist()


def test_only_the_edges_stored_count(teams):
    """``n_edges`` edges are stored; the list's room beyond them holds garbage that must not be read."""
    row_start, edges, goal = random_graph(6, 400, 2)
    padded = np.concatenate([edges, np.zeros(100, np.int32)])   # state 0 would gain predecessors
    for team in (None, teams[2]):
        bad = cannot_reach_goal(row_start, padded, len(edges), goal, 400, 0, team)
        assert bad.tolist() == expected(row_start, edges, goal, 0).tolist()


def test_a_chain_is_decided_end_to_end(teams):
    """0 -> 1 -> ... -> n-1, the goal at the end: every state reaches it; with the goal at 0, only 0."""
    n = 1000
    row_start = np.concatenate([np.arange(n), [n - 1]]).astype(np.int64)
    edges = np.arange(1, n, dtype=np.int32)
    for team in (None, teams[2], teams[3]):
        at_end = np.zeros(n, np.uint8)
        at_end[-1] = 1
        assert not cannot_reach_goal(row_start, edges, n - 1, at_end, n, 0, team).any()
        at_start = np.zeros(n, np.uint8)
        at_start[0] = 1
        assert cannot_reach_goal(row_start, edges, n - 1, at_start, n, 0, team).tolist() == [False] + [True] * (n - 1)
