"""``check --graph``: the explored graph in GraphML and DOT, read back by networkx, traces marked."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import networkx as nx  # reads DOT through pydot (a test extra)
import pytest

from reports.result_schema import result_schema

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, assert_bad_input, invoke  # noqa: E402

#: stops early (both properties decided at depth 2): a graph of a few states with one of each trace kind
EARLY = SMALL + ("--property", "acked_message_never_lost", "--property", "master_recovers")


def export(tmp_path: Path, name: str, *args: str, exit_code: int = 1) -> tuple[dict, Path]:
    g, j = tmp_path / name, tmp_path / "r.json"
    r = invoke("check", *args, "--graph", str(g), "--json", str(j), "--quiet")
    assert r.exit_code == exit_code, r.output
    data = json.loads(j.read_text())
    jsonschema.validate(data, result_schema(), cls=jsonschema.Draft202012Validator)
    return data, g


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


def test_the_size_limit_error_suggests_a_configuration_that_fits(tmp_path):
    """The suggestion is true: adding its --set options to the refused command exports the graph, with
    the state count the message announced."""
    import re
    r = invoke("check", "--preset", "default", "--graph", str(tmp_path / "g.graphml"))
    assert_bad_input(r, "more than 20,000 states", "this fits: --set ", "--graph-around")
    m = re.search(r"this fits: ((?:--set \S+ )+)explores ([\d,]+) states", r.stderr)
    assert m, r.stderr
    extra, states = m[1].split(), int(m[2].replace(",", ""))
    result, path = export(tmp_path, "g.graphml", "--preset", "default", *extra)
    assert result["stats"]["distinct_states"] == states <= 20_000
    assert nx.read_graphml(path, force_multigraph=True).number_of_nodes() == states


def test_node_labels_say_what_the_discovering_step_changed(tmp_path):
    result, path = export(tmp_path, "g.graphml", *EARLY)
    g = nx.read_graphml(path, force_multigraph=True)
    violation = next(p for p in result["properties"] if p["name"] == "acked_message_never_lost")
    end = next(n for n, d in g.nodes(data=True) if d["violates"] == "acked_message_never_lost")
    last = violation["trace"][-1]
    assert g.nodes[end]["discovered_by"] == last["action"]
    for field, (before, after) in last["changes"].items():
        assert field in g.nodes[end]["changes"]
    assert "master.commitlog: [1] -> []" in g.nodes[end]["changes"]
    init = next(n for n, d in g.nodes(data=True) if d["initial"])
    assert g.nodes[init]["changes"] == "initial state"
    # every non-initial node names the action of an edge that reaches it from the level before
    for n, d in g.nodes(data=True):
        if not d["initial"]:
            assert any(e["action"] == d["discovered_by"] and g.nodes[a]["level"] == d["level"] - 1
                       for a, _, e in g.in_edges(n, data=True)), n
    dot_result, dot = export(tmp_path, "g.dot", *EARLY)
    text = dot.read_text()
    end_line = next(line for line in text.splitlines() if 'violates="acked_message_never_lost"' in line)
    label = end_line.split('label="', 1)[1].split('"', 1)[0]
    assert label.startswith(f"{end_line.split()[0]} (level 2)\\lMasterPowerLoss()\\l")
    assert "master.commitlog: [1] -> []" in label


def test_graph_around_exports_the_trace_and_its_neighbourhood_of_any_space(tmp_path):
    """The default preset (657,921 states) is far above the export limit; around one trace it exports."""
    g_path, j = tmp_path / "g.graphml", tmp_path / "r.json"
    r = invoke("check", "--preset", "default", "--property", "acked_message_never_lost", "--graph", str(g_path),
               "--graph-around", "acked_message_never_lost", "--graph-radius", "2", "--json", str(j), "--quiet")
    assert r.exit_code == 1, r.output
    result = json.loads(j.read_text())
    trace = result["properties"][0]["trace"]
    g = nx.read_graphml(g_path, force_multigraph=True)
    assert g.graph["around"] == "acked_message_never_lost" and g.graph["radius"] == 2
    assert marked_path(g, "counterexample", "acked_message_never_lost") == [s["action"] for s in trace[1:]]
    assert max(d["distance"] for _, d in g.nodes(data=True)) == 2
    assert sum(1 for _, d in g.nodes(data=True) if d["distance"] == 0) == len(trace)
    # each node at distance k > 0 is one step after a node at distance k - 1
    from model import Config, RocketMQModel
    model = RocketMQModel(Config.from_mapping(result["config"]))
    encoded = {n: model.encode(json.loads(d["state"])) for n, d in g.nodes(data=True)}
    for n, d in g.nodes(data=True):
        if d["distance"]:
            assert any(g.nodes[a]["distance"] == d["distance"] - 1 for a, _ in g.in_edges(n)), n
    for a, b, d in g.edges(data=True):
        assert {str(x): nxt for x, nxt, _ in model.enabled(encoded[a])}[d["action"]] == encoded[b]
    smaller = tmp_path / "g1.graphml"
    invoke("check", "--preset", "default", "--property", "acked_message_never_lost", "--graph", str(smaller),
           "--graph-around", "acked_message_never_lost", "--graph-radius", "1", "--quiet")
    assert nx.read_graphml(smaller).number_of_nodes() < g.number_of_nodes()


@pytest.mark.parametrize("args, words", [
    (("--graph-around", "replicas_agree"), ("--graph-around needs --graph",)),
    (("--graph", "G", "--graph-radius", "2"), ("--graph-radius", "--graph-around")),
    (("--graph", "G", "--graph-around", "replicas_agre"), ("unknown property 'replicas_agre'",
                                                            "did you mean 'replicas_agree'?")),
    (("--graph", "G", "--graph-around", "replicas_agree", "--property", "master_recovers"),
     ("not among the checked properties", "--property replicas_agree")),
    (("--graph", "G", "--graph-around", "replicas_agree", "--graph-radius", "-1"), ("--graph-radius -1",)),
])
def test_graph_around_bad_input(tmp_path, args, words):
    args = tuple(str(tmp_path / "g.dot") if a == "G" else a for a in args)
    assert_bad_input(invoke("check", *SMALL, *args), *words)
    assert list(tmp_path.iterdir()) == []


def test_graph_around_a_property_without_trace_is_refused(tmp_path):
    r = invoke("check", *SMALL, "--property", "slave_serves_pull", "--property", "replicas_agree", "--max-depth", "1",
               "--graph", str(tmp_path / "g.dot"), "--graph-around", "replicas_agree")
    assert_bad_input(r, "--graph-around replicas_agree", "has no trace")
