"""The ``--json`` result against a JSON Schema written from model-scope.md (extra keys allowed)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

from invariants import PROPERTIES
from model import KNOBS

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, TINY, invoke  # noqa: E402

VALUE = {"type": ["boolean", "integer", "string", "array", "null"]}
STEP = {
    "type": "object",
    "required": ["step", "action", "state", "changes"],
    "properties": {
        "step": {"type": "integer", "minimum": 0},
        "action": {"type": "string", "minLength": 1},
        "state": {"type": "object", "minProperties": 1, "additionalProperties": VALUE},
        "changes": {"type": "object",
                    "additionalProperties": {"type": "array", "minItems": 2, "maxItems": 2, "items": VALUE}},
    },
}
PROPERTY = {
    "type": "object",
    "required": ["name", "kind", "status"],
    "properties": {
        "name": {"enum": PROPERTIES.names()},
        "kind": {"enum": ["always", "sometimes", "graph"]},
        "status": {"enum": ["holds", "violated", "reached", "unreached", "unknown"]},
        "trace": {"type": "array", "minItems": 1, "items": STEP},
    },
    # a trace for a violated always/graph property and for a reached sometimes property
    "allOf": [{"if": {"properties": {"status": {"enum": ["violated", "reached"]}}},
               "then": {"required": ["trace"]}}],
}
RESULT_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["tool", "version", "config", "engine", "outcome", "stats", "properties"],
    "properties": {
        "tool": {"const": "rmqcheck"},
        "version": {"type": "string", "minLength": 1},
        "config": {"type": "object", "required": [k.key for k in KNOBS],
                   "additionalProperties": {"type": ["boolean", "integer", "string"]}},
        "engine": {"enum": ["local", "spark"]},
        "outcome": {"enum": ["passed", "violated", "incomplete", "error"]},
        "stats": {
            "type": "object",
            "required": ["distinct_states", "transitions", "depth", "seconds", "states_per_second",
                         "peak_rss_bytes"],
            "properties": {
                "distinct_states": {"type": "integer", "minimum": 0},
                "transitions": {"type": "integer", "minimum": 0},
                "depth": {"type": "integer", "minimum": 0},
                "seconds": {"type": "number", "minimum": 0},
                "states_per_second": {"type": "number", "minimum": 0},
                "peak_rss_bytes": {"type": "integer", "minimum": 0},
            },
        },
        "properties": {"type": "array", "items": PROPERTY},
    },
}


def validate(data: dict) -> None:
    jsonschema.Draft202012Validator.check_schema(RESULT_SCHEMA)
    jsonschema.validate(data, RESULT_SCHEMA, cls=jsonschema.Draft202012Validator)


def check_json(tmp_path: Path, *args: str) -> dict:
    path = tmp_path / "r.json"
    invoke("check", *args, "--json", str(path), "--quiet")
    return json.loads(path.read_text())


def test_violated_result_fits_the_schema(tmp_path):
    data = check_json(tmp_path, *SMALL)
    validate(data)
    assert data["outcome"] == "violated" and data["engine"] == "local"
    assert [p["name"] for p in data["properties"]] == PROPERTIES.names()
    trace = next(p for p in data["properties"] if p["name"] == "acked_message_never_lost")["trace"]
    assert [s["action"] for s in trace] == ["INIT", "SendMessage()", "MasterPowerLoss()"]
    assert [s["step"] for s in trace] == [0, 1, 2]
    assert trace[2]["changes"]["master.commitlog"] == [[1], []]
    assert trace[0]["changes"] == {}


def test_passed_and_incomplete_results_fit_the_schema(tmp_path):
    data = check_json(tmp_path, *TINY, "--property", "replicas_agree")
    validate(data)
    assert data["outcome"] == "passed" and data["properties"][0]["status"] == "holds"
    assert "trace" not in data["properties"][0]
    data = check_json(tmp_path, *SMALL, "--max-states", "10")
    validate(data)
    assert data["outcome"] == "incomplete"


def test_simulation_result_fits_the_schema(tmp_path):
    path = tmp_path / "s.json"
    r = invoke("simulate", *SMALL, "--walks", "30", "--depth", "12", "--json", str(path), "--quiet")
    assert r.exit_code in (1, 3)
    data = json.loads(path.read_text())
    validate(data)
    assert data["search"] == "random-walks" and data["outcome"] in ("violated", "incomplete")


def test_schema_rejects_a_wrong_result():
    """The schema is not vacuous: a result missing a knob or with a bad status fails it."""
    good = {"tool": "rmqcheck", "version": "1", "config": {k.key: k.default for k in KNOBS}, "engine": "local",
            "outcome": "passed", "stats": {"distinct_states": 1, "transitions": 0, "depth": 0, "seconds": 0.1,
                                           "states_per_second": 10.0, "peak_rss_bytes": 1},
            "properties": [{"name": "replicas_agree", "kind": "always", "status": "holds"}]}
    validate(good)
    for broken in ({**good, "config": {}},
                   {**good, "properties": [{"name": "replicas_agree", "kind": "always", "status": "fine"}]},
                   {**good, "properties": [{"name": "replicas_agree", "kind": "always", "status": "violated"}]}):
        with pytest.raises(jsonschema.ValidationError):
            validate(broken)
