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
from typing import TYPE_CHECKING, Any

from .console import fmt_value
from .files import OutputPathError, format_by_suffix, write_text_atomic

#: largest number of states ``--graph`` exports
GRAPH_NODE_LIMIT = 20_000
GRAPH_FORMATS = {".graphml": "graphml", ".dot": "dot", ".gv": "dot"}

if TYPE_CHECKING:  # networkx, numpy and the engine load when a graph is built, not for ``check --help``
    import networkx as nx
    import numpy as np

    from explore.result import CheckResult

_NODE_MARKS = ("counterexample", "witness", "violates", "reaches")
_EDGE_MARKS = ("counterexample", "witness")


def graph_format(path: str | Path, option: str = "--graph") -> str:
    """``graphml`` or ``dot`` from the file extension; bad input otherwise."""
    return format_by_suffix(path, GRAPH_FORMATS, "graph", option)


#: ``--graph-radius`` default: states up to this many steps after a state of the trace
DEFAULT_RADIUS = 3
#: changed fields a node's label lists before "..." (the ``changes`` attribute has them all)
LABEL_FIELDS = 4


def too_big(suggestion: str = "") -> str:
    return (f"--graph: the explored space has more than {GRAPH_NODE_LIMIT:,} states (the export limit); "
            "nothing was written; " + (suggestion or "use a smaller configuration, --max-states or --max-depth")
            + ", or export one trace's neighbourhood with --graph-around PROPERTY")


def changes_text(before: dict[str, Any] | None, after: dict[str, Any]) -> str:
    """The fields that differ, ``field: before -> after``, one per line."""
    if before is None:
        return "initial state"
    return "\n".join(f"{k}: {fmt_value(before.get(k))} -> {fmt_value(v)}" for k, v in after.items() if before.get(k) != v)


def _node_attrs(model: Any, state: tuple[int, ...], index: int, initial: bool) -> dict[str, Any]:
    return {"index": index, "initial": initial, "level": -1, "discovered_by": "", "changes": "",
            "state": json.dumps(model.view(state), separators=(",", ":")), **{mark: "" for mark in _NODE_MARKS}}


def _add_edges(g: nx.MultiDiGraph, model: Any, rows: list[tuple[int, ...]], index: dict[tuple[int, ...], int]) -> int:
    """Every enabled action of each of ``rows`` whose target is a node too; the number of other targets."""
    dangling = 0
    for i, state in enumerate(rows):
        for action, nxt, flags in model.enabled(state):
            j = index.get(nxt)
            if j is None:
                dangling += 1
                continue
            g.add_edge(f"s{i}", f"s{j}", key=str(action), action=str(action),
                       outcome=model.describe_outcome(flags), **{mark: "" for mark in _EDGE_MARKS})
    return dangling


def build_graph(model: Any, states: np.ndarray, result: CheckResult) -> nx.MultiDiGraph:
    """The explored graph of ``states`` (row i = state i) with every trace of ``result`` marked."""
    import networkx as nx

    if len(states) > GRAPH_NODE_LIMIT:
        raise OutputPathError(too_big())
    rows = [tuple(int(x) for x in row) for row in states]
    index = {state: i for i, state in enumerate(rows)}
    g = nx.MultiDiGraph(outcome=result.outcome, distinct_states=len(rows),
                        config=json.dumps(result.config, sort_keys=True))
    initial = {index[s] for s in model.initial() if s in index}
    for i, state in enumerate(rows):
        g.add_node(f"s{i}", **_node_attrs(model, state, i, i in initial))
    g.graph["edges_to_unexplored_states"] = _add_edges(g, model, rows, index)
    _set_levels(g, [f"s{i}" for i in sorted(initial)])
    _label_discoveries(g)
    _mark_traces(g, index, result)
    return g


def build_graph_around(model: Any, result: CheckResult, name: str, radius: int = DEFAULT_RADIUS) -> nx.MultiDiGraph:
    """The states of property ``name``'s trace and every state up to ``radius`` steps after one of them,
    with every transition between those states; ``level`` is the step for a trace state (-1 for the
    others), ``distance`` the steps from the trace. Needs no stored states: the model re-expands them."""
    import networkx as nx

    prop = next((p for p in result.properties if p.name == name), None)
    if prop is None:
        raise OutputPathError(f"--graph-around {name}: not a checked property; checked: "
                              f"{', '.join(p.name for p in result.properties)}")
    if prop.trace is None:
        raise OutputPathError(f"--graph-around {name}: it has no trace (it {prop.status}); properties with a "
                              f"trace: {', '.join(p.name for p in result.properties if p.trace) or 'none'}")
    rows = list(dict.fromkeys(step.state for step in prop.trace.steps))
    index = {state: i for i, state in enumerate(rows)}
    distance = {i: 0 for i in range(len(rows))}
    found_from: dict[int, tuple[int, str]] = {}
    frontier = list(range(len(rows)))
    for d in range(1, radius + 1):
        nxt_frontier = []
        for i in frontier:
            for action, nxt, _ in model.enabled(rows[i]):
                if nxt in index:
                    continue
                if len(rows) >= GRAPH_NODE_LIMIT:
                    raise OutputPathError(
                        f"--graph-around {name}: more than {GRAPH_NODE_LIMIT:,} states lie within {radius} steps "
                        f"of its trace (the export limit); nothing was written; use --graph-radius {max(d - 1, 0)}")
                index[nxt] = len(rows)
                rows.append(nxt)
                distance[index[nxt]] = d
                found_from[index[nxt]] = (i, str(action))
                nxt_frontier.append(index[nxt])
        frontier = nxt_frontier
    g = nx.MultiDiGraph(outcome=result.outcome, around=name, radius=radius, distinct_states=len(rows),
                        config=json.dumps(result.config, sort_keys=True))
    initial = set(model.initial())
    for i, state in enumerate(rows):
        g.add_node(f"s{i}", **_node_attrs(model, state, i, state in initial), distance=distance[i])
    for step in prop.trace.steps:
        g.nodes[f"s{index[step.state]}"]["level"] = step.index
    g.graph["edges_to_unexported_states"] = _add_edges(g, model, rows, index)
    views = {}
    for step in prop.trace.steps[1:]:
        attrs = g.nodes[f"s{index[step.state]}"]
        attrs["discovered_by"] = step.action
        attrs["changes"] = changes_text(dict(step.view, **{k: v[0] for k, v in step.changes.items()}), step.view)
    for i, (src, action) in found_from.items():
        views.setdefault(src, json.loads(g.nodes[f"s{src}"]["state"]))
        attrs = g.nodes[f"s{i}"]
        attrs["discovered_by"] = action
        attrs["changes"] = changes_text(views[src], json.loads(attrs["state"]))
    _mark_traces(g, index, result)
    return g


def _set_levels(g: nx.MultiDiGraph, roots: list[str]) -> None:
    """BFS distance from the initial states: the level at which the explorer found each state; each
    state's ``discovered_by`` is the action of the first edge (in BFS order) that reached it."""
    queue = deque(roots)
    for r in roots:
        g.nodes[r]["level"] = 0
    while queue:
        n = queue.popleft()
        for _, m, action in g.out_edges(n, keys=True):
            if g.nodes[m]["level"] < 0:
                g.nodes[m]["level"] = g.nodes[n]["level"] + 1
                g.nodes[m]["discovered_by"] = action
                g.nodes[m]["found_from"] = n
                queue.append(m)


def _label_discoveries(g: nx.MultiDiGraph) -> None:
    """Each node's ``changes``: the fields the step that discovered it changed."""
    views: dict[str, dict[str, Any]] = {}
    for n, attrs in g.nodes(data=True):
        src = attrs.pop("found_from", None)
        if src is None:
            attrs["changes"] = changes_text(None, {}) if attrs["initial"] else ""
            continue
        if src not in views:
            views[src] = json.loads(g.nodes[src]["state"])
        attrs["changes"] = changes_text(views[src], json.loads(attrs["state"]))


def _add_mark(attrs: dict[str, Any], mark: str, name: str) -> None:
    attrs[mark] = f"{attrs[mark]},{name}" if attrs[mark] else name


def _mark_traces(g: nx.MultiDiGraph, index: dict[tuple[int, ...], int], result: CheckResult) -> None:
    from explore.result import REACHED, S_VIOLATED

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
    import networkx as nx

    return "\n".join(nx.generate_graphml(graph, encoding="utf-8", prettyprint=True)) + "\n"


def _quote(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\l")
    return '"' + text + ('\\l"' if "\\l" in text else '"')


def _attrs(attrs: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_quote(v)}" for k, v in attrs.items() if v != "")  # unmarked: no attribute


def node_label(node: str, attrs: dict[str, Any]) -> str:
    """What a node says in a drawing: its id and level, the step that found it and what that step changed."""
    head = node + (f" (level {attrs['level']})" if attrs.get("level", -1) >= 0 else
                   f" (+{attrs['distance']})" if "distance" in attrs else "")
    if attrs.get("initial"):
        return f"{head}\ninitial state"
    lines = attrs.get("changes", "").split("\n")
    if len(lines) > LABEL_FIELDS:
        lines = lines[:LABEL_FIELDS] + [f"... {len(lines) - LABEL_FIELDS} more"]
    return "\n".join([head, attrs.get("discovered_by", ""), *lines]).rstrip("\n")


def _dot(graph: nx.MultiDiGraph) -> str:
    """DOT by hand (networkx's writer needs pydot or pygraphviz): plain attributes, styled traces."""
    lines = ["digraph rmqcheck {",
             f"  graph [{_attrs({k: v for k, v in graph.graph.items()})}];",
             '  node [shape=box, fontsize=9];',
             '  edge [fontsize=8];']
    for n, attrs in graph.nodes(data=True):
        style = {"label": node_label(n, attrs)}
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
