"""The whole reachable graph of a small model, built in plain Python from ``Model.enabled``, as an
independent reference for the compiled explorer: networkx gives the shortest distances, and the
canonical rules of ``explore/kernel.py`` (smallest key first) give the exact trace each engine must print.

A key is the packed words read as signed 64-bit integers, compared lexicographically. The canonical path
to a state at distance ``d`` comes from its smallest-key predecessor at distance ``d - 1``, by the smallest
action index from there; the witness among the states at the first distance where a property shows is the
smallest-key one; a transition witness is the smallest-key source at the first level, then the smallest
action index.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import networkx as nx
import numpy as np

State = tuple[int, ...]


def key(state: State) -> tuple[int, ...]:
    return tuple(w - (1 << 64) if w >= 1 << 63 else w for w in state)


@dataclass
class Edge:
    source: State
    action: int
    target: State
    flags: int


@dataclass
class ReachableGraph:
    model: Any
    root: State
    graph: nx.DiGraph
    edges: list[Edge]
    distance: dict[State, int] = field(default_factory=dict)

    @classmethod
    def build(cls, model: Any) -> "ReachableGraph":
        roots = model.initial()
        assert len(roots) == 1, "the reference handles one initial state"
        index = {a: i for i, a in enumerate(model.actions())}
        graph = nx.DiGraph()
        edges: list[Edge] = []
        seen = {roots[0]}
        queue = deque(roots)
        while queue:
            s = queue.popleft()
            graph.add_node(s)
            for action, target, flags in model.enabled(s):
                edges.append(Edge(s, index[action], target, flags))
                graph.add_edge(s, target)
                if target not in seen:
                    seen.add(target)
                    queue.append(target)
        g = cls(model, roots[0], graph, edges)
        g.distance = nx.single_source_shortest_path_length(graph, roots[0])
        return g

    # -- counts the explorer reports ---------------------------------------------------------------------
    @property
    def distinct(self) -> int:
        return self.graph.number_of_nodes()

    @property
    def transitions(self) -> int:
        """Successors generated from every state, duplicates and self-loops included."""
        return len(self.edges)

    @property
    def depth(self) -> int:
        return max(self.distance.values())

    # -- property evaluation -----------------------------------------------------------------------------
    def state_bits(self, properties: Any) -> dict[State, int]:
        params = self.model.params
        return {s: int(properties.state_check(np.array(s, dtype=np.uint64), params)) for s in self.graph}

    def transition_bits(self, properties: Any, edge: Edge) -> int:
        return int(properties.transition_check(np.array(edge.source, dtype=np.uint64), edge.flags,
                                               np.array(edge.target, dtype=np.uint64), self.model.params))

    def cannot_reach(self, goals: set[State]) -> set[State]:
        """The states from which no state of ``goals`` is reachable (backward search from the goals)."""
        reach = set(goals)
        queue = deque(goals)
        while queue:
            s = queue.popleft()
            for p in self.graph.predecessors(s):
                if p not in reach:
                    reach.add(p)
                    queue.append(p)
        return set(self.graph) - reach

    # -- canonical traces --------------------------------------------------------------------------------
    @cached_property
    def incoming(self) -> dict[State, list[Edge]]:
        into: dict[State, list[Edge]] = {}
        for e in self.edges:
            into.setdefault(e.target, []).append(e)
        return into

    def canonical_path(self, state: State) -> list[int]:
        """Action indices of the canonical shortest path from the root to ``state``."""
        incoming = self.incoming
        path: list[int] = []
        while state != self.root:
            d = self.distance[state]
            best = min((e for e in incoming[state] if self.distance[e.source] == d - 1),
                       key=lambda e: (key(e.source), e.action))
            path.append(best.action)
            state = best.source
        path.reverse()
        return path

    def first_state_witness(self, states: set[State]) -> State | None:
        """The canonical witness among ``states``: the smallest key at the smallest distance."""
        if not states:
            return None
        d = min(self.distance[s] for s in states)
        return min((s for s in states if self.distance[s] == d), key=key)

    def first_transition_witness(self, edges: list[Edge]) -> Edge | None:
        if not edges:
            return None
        return min(edges, key=lambda e: (self.distance[e.source], key(e.source), e.action))
