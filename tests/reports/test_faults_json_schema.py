"""The faults JSON, like every JSON rmqcheck writes, validates against the shipped schema (``rmqcheck
schema``), whose root tells the documents apart; and the schema refuses a faults JSON that breaks it."""
from __future__ import annotations

import copy
import functools
import json
import sys
from pathlib import Path

import jsonschema
import pytest

from reports.result_schema import result_schema

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, invoke  # noqa: E402


@functools.lru_cache(maxsize=1)
def validator() -> jsonschema.Draft202012Validator:
    schema = result_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def validate(data: dict) -> None:
    error = jsonschema.exceptions.best_match(validator().iter_errors(data))
    if error is not None:
        raise error


@pytest.fixture(scope="module")
def faults_json(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("faults") / "f.json"
    r = invoke("faults", *SMALL, "--max-configs", "2", "--jobs", "1", "--table", "--quiet", "--json", str(path))
    assert r.exit_code == 1, r.output
    return json.loads(path.read_text())


def test_a_real_faults_json_fits_the_schema(faults_json):
    validate(faults_json)
    kinds = {p["kind"] for p in faults_json["properties"]}
    assert kinds == {"always", "graph", "eventually"}
    eventually = [p for p in faults_json["properties"] if p["kind"] == "eventually"]
    assert all(v["status"] in ("holds", "violated") for p in eventually for v in p["vectors"])
    modes = [m for p in faults_json["properties"] if p["kind"] == "always" for m in p["modes"]]
    assert modes and all("explanation" in m for m in modes)
    grown = [p["at_next_bound"] for p in faults_json["properties"] if "at_next_bound" in p]
    assert faults_json["next_bound"]["bounds"]["messages"] == 2 and grown
    assert any(g["modes"] for g in grown)
    assert len(faults_json["table"]) == 4


def graph(d: dict) -> dict:
    return next(p for p in d["properties"] if p["kind"] == "graph")


def eventually(d: dict) -> dict:
    """The first eventually property with a violated vector (its lasso's ``loop_start`` is an integer)."""
    return next(p for p in d["properties"] if p["kind"] == "eventually"
                and any(v["status"] == "violated" for v in p["vectors"]))


@pytest.mark.parametrize("breaking", [
    lambda d: d.pop("sweep"),
    lambda d: d["bounds"].pop("messages"),
    lambda d: d["bounds"]["budgets"].pop("ha_disconnects"),
    lambda d: d["properties"][0]["modes"][0].update(breaking_action="master crash"),
    lambda d: d["properties"][0]["modes"][0]["combination"].update(master_crashes=-1),
    lambda d: d["properties"][0]["modes"][0].update(closed_at_a_cost=[{"change": {"slaves": 0}, "costs": []}]),
    lambda d: d["properties"][0].update(holds_with=["flush_disk_type=SYNC_FLUSH"]),
    lambda d: graph(d)["vectors"][0].update(status="violated") or graph(d)["vectors"][0].pop("trace", None),
    lambda d: eventually(d)["vectors"][0].update(loop_start="2"),
    lambda d: d.update(outcome="error"),
    lambda d: d["next_bound"].update(grow="brokers"),
    lambda d: d["table"][0]["properties"]["acked_message_never_lost"].update(status="broken"),
    lambda d: next(p for p in d["properties"] if "at_next_bound" in p)["at_next_bound"].pop("same"),
])
def test_the_schema_refuses_a_broken_faults_json(faults_json, breaking):
    d = copy.deepcopy(faults_json)
    breaking(d)
    with pytest.raises(jsonschema.ValidationError):
        validate(d)


def test_check_and_matrix_results_are_told_apart_from_faults(tmp_path):
    """The root schema sends each document to its own definition: a check result with a faults command
    name is checked as a faults JSON (and fails), a matrix as a matrix."""
    path = tmp_path / "c.json"
    assert invoke("check", *SMALL, "--json", str(path), "--quiet").exit_code == 1
    check = json.loads(path.read_text())
    validate(check)
    with pytest.raises(jsonschema.ValidationError):
        validate({**check, "command": "faults"})
    with pytest.raises(jsonschema.ValidationError):
        validate({"tool": "rmqcheck", "version": "1",   # a matrix entry names itself
                  "configurations": [{k: v for k, v in check.items() if k != "name"}]})
    validate({"tool": "rmqcheck", "version": "1", "configurations": [{**check, "name": "default"}]})
