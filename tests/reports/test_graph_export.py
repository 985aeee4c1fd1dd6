"""``check --graph``: the explored graph in GraphML and DOT, read back by networkx, traces marked."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import networkx as nx  # reads DOT through pydot (a test extra)

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, assert_bad_input, invoke  # noqa: E402

#: stops early (both properties decided at depth 2): a graph of a few states with one of each trace kind
EARLY = SMALL + ("--property", "acked_message_never_lost", "--property", "master_recovers")


def export(tmp_path: Path, name: str, *args: str, exit_code: int = 1) -> tuple[dict, Path]:
    g, j = tmp_path / name, tmp_path / "r.json"
    r = invoke("check", *args, "--graph", str(g), "--json", str(j), "--quiet")
    assert r.exit_code == exit_code, r.output
    return json.loads(j.read_text()), g


def marked_path(g: nx.MultiDiGraph, mark: str, name: str) -> list[str]:
    """Follow the edges marked for ``name`` from the initial state: the trace's actions."""
    start = [n for n, d in g.nodes(data=True) if str(d.get("initial")).strip('"').lower() == "true"]
    assert len(start) == 1
    node, actions = start[0], []
    while True:
        out = [(b, d) for _, b, d in g.out_edges(node, data=True) if name in str(d.get(mark, "")).strip('"').split(",")]
        if not out:
            return actions
        assert len(out) == 1
        node, d = out[0]
        actions.append(str(d["action"]).strip('"'))


def test_graphml_reads_back_with_counterexample_and_witness_marked(tmp_path):
    result, path = export(tmp_path, "g.graphml", *EARLY)
    g = nx.read_graphml(path, force_multigraph=True)
    assert g.number_of_nodes() == result["stats"]["distinct_states"]
    violation = next(p for p in result["properties"] if p["name"] == "acked_message_never_lost")
    witness = next(p for p in result["properties"] if p["name"] == "master_recovers")
    assert marked_path(g, "counterexample", violation["name"]) == [s["action"] for s in violation["trace"][1:]]
    assert marked_path(g, "witness", witness["name"]) == [s["action"] for s in witness["trace"][1:]]
    ends = [n for n, d in g.nodes(data=True) if d["violates"] == "acked_message_never_lost"]
    assert len(ends) == 1
    assert json.loads(g.nodes[ends[0]]["state"]) == violation["trace"][-1]["state"]
    assert g.nodes[ends[0]]["level"] == len(violation["trace"]) - 1
    # an unmarked edge exists too: the graph is more than the traces
    assert any(d["counterexample"] == "" and d["witness"] == "" for _, _, d in g.edges(data=True))


def test_dot_reads_back_with_the_counterexample_drawn_red(tmp_path):
    result, path = export(tmp_path, "g.dot", *EARLY)
    g = nx.nx_pydot.read_dot(path)
    assert g.number_of_nodes() == result["stats"]["distinct_states"]
    violation = next(p for p in result["properties"] if p["name"] == "acked_message_never_lost")
    assert marked_path(g, "counterexample", violation["name"]) == [s["action"] for s in violation["trace"][1:]]
    red = [d for _, _, d in g.edges(data=True) if str(d.get("color", "")).strip('"') == "red"]
    assert len(red) == len(violation["trace"]) - 1


def test_every_edge_is_a_model_transition_between_explored_states(tmp_path):
    from model import Config, RocketMQModel
    result, path = export(tmp_path, "g.graphml", *SMALL, "--property", "replicas_agree", "--max-depth", "3",
                          exit_code=3)
    g = nx.read_graphml(path, force_multigraph=True)
    model = RocketMQModel(Config.from_mapping(result["config"]))
    encoded = {n: model.encode(json.loads(d["state"])) for n, d in g.nodes(data=True)}
    for a, b, d in list(g.edges(data=True))[:200]:
        labels = {str(act): nxt for act, nxt, _ in model.enabled(encoded[a])}
        assert labels[d["action"]] == encoded[b]


def test_a_space_above_the_limit_is_refused_and_nothing_is_written(tmp_path):
    files = [tmp_path / "g.graphml", tmp_path / "r.json", tmp_path / "r.md"]
    r = invoke("check", "--preset", "default", "--graph", str(files[0]), "--json", str(files[1]),
               "--report", str(files[2]))
    assert_bad_input(r, "more than 20,000 states", "nothing was written")
    assert list(tmp_path.iterdir()) == []
