"""``check --itf DIR``: each trace in the Informal Trace Format, read back with the ``itf-py`` package."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest
from itf_py import trace_from_json

from reports.itf import OPTION, SET, field_kinds, field_value, itf_value, variables
from reports.result_schema import result_schema

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, assert_bad_input, invoke  # noqa: E402

EARLY = SMALL + ("--property", "acked_message_never_lost", "--property", "master_recovers")


def test_every_trace_is_written_and_parses_with_itf_py(tmp_path):
    out, result_path = tmp_path / "itf", tmp_path / "r.json"
    r = invoke("check", *EARLY, "--itf", str(out), "--json", str(result_path), "--quiet")
    assert r.exit_code == 1, r.output
    result = json.loads(result_path.read_text())
    jsonschema.validate(result, result_schema(), cls=jsonschema.Draft202012Validator)
    written = sorted(p.name for p in out.iterdir())
    assert written == ["acked_message_never_lost.itf.json", "master_recovers.itf.json"]
    for prop in result["properties"]:
        data = json.loads((out / f"{prop['name']}.itf.json").read_text())
        trace = trace_from_json(data)
        assert trace.meta["format"] == "ITF" and trace.meta["property"] == prop["name"]
        assert trace.meta["status"] == prop["status"]
        assert len(trace.states) == len(prop["trace"])
        assert set(trace.vars) >= {"master", "producer", "consumer1"}
        for state, step in zip(trace.states, prop["trace"]):
            assert state.meta["index"] == step["step"] and state.meta["action"] == step["action"]
            assert set(state.values) == set(trace.vars)
            # every readable field is there, under its actor's record, with the same value
            kinds = field_kinds(result["config"])
            for field, value in step["state"].items():
                assert _decoded(_lookup(state.values, field), kinds[field]) == value, (field, value)
    acked = json.loads((out / "acked_message_never_lost.itf.json").read_text())
    assert [s["#meta"]["action"] for s in acked["states"]] == ["INIT", "SendMessage()", "MasterPowerLoss()"]
    assert acked["states"][1]["master"]["commitlog"] == {"#set": [1]}
    assert acked["states"][2]["master"]["commitlog"] == {"#set": []}
    assert acked["states"][0]["master"]["consumerOffset"] == {"#map": [[0, {"#set": []}]]}


def _lookup(values, field: str):
    """A readable field in itf-py's decoded state: records by attribute, ``name[k]`` in a map."""
    *path, last = field.split(".")
    node = values[path[0]]
    for part in path[1:]:
        node = getattr(node, part)
    if "[" in last:
        name, key = last[:-1].split("[")
        return getattr(node, name)[int(key)]
    return getattr(node, last)


def _decoded(value, kind):
    """The readable value of what itf-py decoded: a set from a frozenset, an optional value from a set of
    at most one element."""
    if kind == SET:
        assert isinstance(value, frozenset)
        return sorted(value)
    if kind == OPTION:
        assert isinstance(value, frozenset) and len(value) <= 1, value
        return next(iter(value), None)
    return list(value) if isinstance(value, list) else value


def _shapes(node, path=""):
    """``(field path, ITF type)`` of every field of an ITF state, one type name per encoding."""
    if isinstance(node, dict) and "#map" in node:
        for key, value in node["#map"]:
            yield from _shapes(value, f"{path}[{key}]")
    elif isinstance(node, dict) and any(k.startswith("#") for k in node):
        yield path, next(k for k in node if k.startswith("#"))
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _shapes(value, f"{path}.{key}" if path else key)
    else:
        yield path, type(node).__name__


def test_every_field_keeps_one_itf_type_in_every_state_and_sets_are_sets(tmp_path):
    """A field that may have no value is a set of at most one element in every state (it was an int in
    some states and an empty tuple in others), and sets of ids are ITF sets, not sequences."""
    out = tmp_path / "itf"
    assert invoke("check", *SMALL, "--itf", str(out), "--quiet").exit_code == 1
    types: dict[str, set[str]] = {}
    options_seen = set()
    for path in sorted(out.iterdir()):
        data = json.loads(path.read_text())
        trace_from_json(data)   # itf-py reads it
        for state in data["states"]:
            for field, shape in _shapes({k: v for k, v in state.items() if k != "#meta"}):
                types.setdefault(field, set()).add(shape)
            options_seen.add(len(_at(state, "consumer1.q0.offset")["#set"]))
    assert {f: t for f, t in types.items() if len(t) > 1} == {}
    assert types["master.commitlog"] == {"#set"} and types["producer.sendOk"] == {"#set"}
    assert types["consumer1.q0.offset"] == {"#set"}
    # not vacuous: the consumer's offset goes from no value to a value within the traces
    assert options_seen == {0, 1}


def _at(state, field):
    node = state
    for part in field.replace("[", ".[").split("."):
        node = dict(node["#map"])[int(part[1:-1])] if part.startswith("[") else node[part]
    return node


def test_passing_run_writes_no_trace_file(tmp_path):
    out = tmp_path / "itf"
    r = invoke("check", "--set", "messages=1", "--set", "max_master_crashes=0", "--set",
               "max_master_power_losses=0", "--property", "replicas_agree", "--itf", str(out), "--quiet")
    assert r.exit_code == 0, r.output
    assert out.is_dir() and list(out.iterdir()) == []


def test_itf_path_that_is_a_file_is_bad_input(tmp_path):
    f = tmp_path / "f"
    f.write_text("x")
    assert_bad_input(invoke("check", *SMALL, "--itf", str(f)), "--itf", "is a file")
    assert_bad_input(invoke("check", *SMALL, "--itf", str(tmp_path / "no" / "dir")), "--itf", "does not exist")


@pytest.mark.parametrize("value, encoded", [
    (5, 5), (True, True), ("DOWN", "DOWN"), (None, {"#tup": []}), ([1, 2], [1, 2]),
    (2 ** 60, {"#bigint": str(2 ** 60)}), (-(2 ** 60), {"#bigint": str(-(2 ** 60))}),
    ({1: [2]}, {"#map": [[1, [2]]]}),
])
def test_values_use_itf_encodings(value, encoded):
    assert itf_value(value) == encoded


def test_fields_group_into_one_record_per_actor():
    kinds = {"master.commitlog": SET, "consumer1.q0.offset": OPTION, "master.consumerOffset[0]": OPTION,
             "master.consumerOffset[1]": OPTION}
    assert variables({"master.up": True, "master.commitlog": [1], "slave1.up": False, "consumer1.q0.offset": 2,
                      "master.consumerOffset[1]": None, "master.consumerOffset[0]": 3}, kinds) == \
        {"master": {"up": True, "commitlog": {"#set": [1]},
                    "consumerOffset": {"#map": [[0, field_value(3, OPTION)], [1, field_value(None, OPTION)]]}},
         "slave1": {"up": False}, "consumer1": {"q0": {"offset": {"#set": [2]}}}}
