"""Export of the explored state graph (GraphML or DOT, chosen by extension), counterexamples marked.

Only small spaces are exported: above :data:`GRAPH_NODE_LIMIT` states a graph is unreadable in any viewer
and the file runs to gigabytes, so the command line refuses (bad input) before writing anything.

Nodes are the explorer's stored states (row ``i`` is node ``s<i>``); edges are every enabled action of a
stored state whose target is stored too, found by re-expanding the state with the model. Each node carries
its BFS ``level``, ``initial`` and its readable ``state`` (JSON text); each edge its ``action`` label and
``outcome``. Traces are marked on both: ``counterexample`` (names of violated properties whose shortest
trace passes there), ``witness`` (names of reached sometimes properties), and on the last state of a
trace ``violates`` / ``reaches``. In DOT, counterexample paths are also drawn red and witnesses blue.
"""
from __future__ import annotations

import json
from collections import deque
from pathlib import Path
from typing import Any

import networkx as nx
import numpy as np

from explore.result import REACHED, S_VIOLATED, CheckResult

from .files import OutputPathError, format_by_suffix, write_text_atomic

#: largest number of states ``--graph`` exports
GRAPH_NODE_LIMIT = 20_000
GRAPH_FORMATS = {".graphml": "graphml", ".dot": "dot", ".gv": "dot"}

_NODE_MARKS = ("counterexample", "witness", "violates", "reaches")
_EDGE_MARKS = ("counterexample", "witness")


def graph_format(path: str | Path, option: str = "--graph") -> str:
    """``graphml`` or ``dot`` from the file extension; bad input otherwise."""
    return format_by_suffix(path, GRAPH_FORMATS, "graph", option)


def too_big() -> str:
    return (f"--graph: the explored space has more than {GRAPH_NODE_LIMIT:,} states (the export limit); "
            "nothing was written; use a smaller configuration (e.g. --set messages=1), --max-states or --max-depth")


def build_graph(model: Any, states: np.ndarray, result: CheckResult) -> nx.MultiDiGraph:
    """The explored graph of ``states`` (row i = state i) with every trace of ``result`` marked."""
    if len(states) > GRAPH_NODE_LIMIT:
        raise OutputPathError(too_big())
    rows = [tuple(int(x) for x in row) for row in states]
    index = {state: i for i, state in enumerate(rows)}
    g = nx.MultiDiGraph(outcome=result.outcome, distinct_states=len(rows),
                        config=json.dumps(result.config, sort_keys=True))
    initial = {index[s] for s in model.initial() if s in index}
    for i, state in enumerate(rows):
        g.add_node(f"s{i}", index=i, initial=i in initial, level=-1,
                   state=json.dumps(model.view(state), separators=(",", ":")),
                   **{mark: "" for mark in _NODE_MARKS})
    dangling = 0
    for i, state in enumerate(rows):
        for action, nxt, flags in model.enabled(state):
            j = index.get(nxt)
            if j is None:
                dangling += 1
                continue
            g.add_edge(f"s{i}", f"s{j}", key=str(action), action=str(action),
                       outcome=model.describe_outcome(flags), **{mark: "" for mark in _EDGE_MARKS})
    g.graph["edges_to_unexplored_states"] = dangling
    _set_levels(g, [f"s{i}" for i in sorted(initial)])
    _mark_traces(g, index, result)
    return g


def _set_levels(g: nx.MultiDiGraph, roots: list[str]) -> None:
    """BFS distance from the initial states: the level at which the explorer found each state."""
    queue = deque(roots)
    for r in roots:
        g.nodes[r]["level"] = 0
    while queue:
        n = queue.popleft()
        for m in g.successors(n):
            if g.nodes[m]["level"] < 0:
                g.nodes[m]["level"] = g.nodes[n]["level"] + 1
                queue.append(m)


def _add_mark(attrs: dict[str, Any], mark: str, name: str) -> None:
    attrs[mark] = f"{attrs[mark]},{name}" if attrs[mark] else name


def _mark_traces(g: nx.MultiDiGraph, index: dict[tuple[int, ...], int], result: CheckResult) -> None:
    for p in result.properties:
        if p.trace is None or p.status not in (S_VIOLATED, REACHED):
            continue
        path_mark, end_mark = ("counterexample", "violates") if p.status == S_VIOLATED else ("witness", "reaches")
        nodes = [f"s{index[s.state]}" for s in p.trace.steps if s.state in index]
        if len(nodes) != len(p.trace.steps):
            continue  # a trace outside the stored states cannot be drawn (never happens for local BFS)
        for n in nodes:
            _add_mark(g.nodes[n], path_mark, p.name)
        _add_mark(g.nodes[nodes[-1]], end_mark, p.name)
        for a, b, step in zip(nodes, nodes[1:], p.trace.steps[1:]):
            if g.has_edge(a, b, key=step.action):
                _add_mark(g.edges[a, b, step.action], path_mark, p.name)


def graph_text(path: str | Path, graph: nx.MultiDiGraph) -> str:
    """``graph`` in the format of ``path``'s extension."""
    return _graphml(graph) if graph_format(path) == "graphml" else _dot(graph)


def write_graph(path: str | Path, graph: nx.MultiDiGraph) -> None:
    """Write ``graph`` atomically in the format of ``path``'s extension."""
    write_text_atomic(path, graph_text(path, graph))


def _graphml(graph: nx.MultiDiGraph) -> str:
    return "\n".join(nx.generate_graphml(graph, encoding="utf-8", prettyprint=True)) + "\n"


def _quote(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _attrs(attrs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items() if v != "")  # unmarked: no attribute


def _dot(graph: nx.MultiDiGraph) -> str:
    """DOT by hand (networkx's writer needs pydot or pygraphviz): plain attributes, styled traces."""
    lines = ["digraph rmqcheck {",
             f"  graph [{_attrs({k: v for k, v in graph.graph.items()})}];",
             '  node [shape=box, fontsize=9];',
             '  edge [fontsize=8];']
    for n, attrs in graph.nodes(data=True):
        style = {"label": n}
        if attrs["counterexample"]:
            style.update(color="red", penwidth="2")
        elif attrs["witness"]:
            style.update(color="blue")
        lines.append(f"  {n} [{_attrs({**style, **attrs})}];")
    for a, b, attrs in graph.edges(data=True):
        style = {"label": attrs["action"]}
        if attrs["counterexample"]:
            style.update(color="red", penwidth="2")
        elif attrs["witness"]:
            style.update(color="blue")
        lines.append(f"  {a} -> {b} [{_attrs({**style, **attrs})}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
