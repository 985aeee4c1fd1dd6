"""Every JSON the tool writes against the JSON Schema shipped in the package (``rmqcheck schema``)."""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import jsonschema
import pytest

from invariants import PROPERTIES
from model import KNOBS
from reports.result_schema import matrix_schema, result_schema as shipped_result_schema, schema_text

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, TINY, invoke  # noqa: E402

def result_schema() -> dict:
    """The shipped schema, tightened with what only this checkout knows: every knob in ``config``,
    every property name."""
    schema = shipped_result_schema()
    schema["$defs"]["result"]["properties"]["config"]["required"] = [k.key for k in KNOBS]
    schema["$defs"]["property"]["properties"]["name"] = {"enum": PROPERTIES.names()}
    return schema


def validate(data: dict, schema: dict | None = None) -> None:
    schema = schema or result_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def validate_matrix(data: dict) -> None:
    schema = result_schema()
    schema["$ref"] = "#/$defs/matrix"
    validate(data, schema)


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


GOOD = {"tool": "rmqcheck", "version": "1", "config": {k.key: k.default for k in KNOBS}, "engine": "local",
        "outcome": "violated",
        "stats": {"distinct_states": 3, "transitions": 2, "depth": 1, "seconds": 0.1, "states_per_second": 30.0,
                  "peak_rss_bytes": 1, "pruned_transitions": 1, "pruned_reasons": {"pending corrections": 1},
                  "stopped_early": True, "stop_reason": "every selected property settled",
                  "coverage": {"SendMessage": {"transitions": 2, "new_states": 2}}, "terminal_states": 0},
        "properties": [{"name": "acked_message_never_lost", "kind": "always", "status": "violated",
                        "trace": [{"step": 0, "action": "INIT", "state": {"master.commitlog": []}, "changes": {}}],
                        "explanation": {"summary": "message 1 got SEND_OK and is in no commitlog",
                                        "conditions": [{"text": "in master's commitlog", "holds": False,
                                                        "fields": {"master.commitlog": []}}],
                                        "last_changed": {"master.commitlog": 2}}}]}


def test_next_wave_keys_fit_in_the_shapes_model_scope_fixes():
    validate(GOOD)
    stats, prop = GOOD["stats"], GOOD["properties"][0]
    for broken in ({**GOOD, "stats": {**stats, "stopped_early": "yes"}},
                   {**GOOD, "stats": {**stats, "stop_reason": 3}},
                   {**GOOD, "stats": {**stats, "pruned_transitions": -1}},
                   {**GOOD, "stats": {**stats, "pruned_reasons": {"x": "many"}}},
                   {**GOOD, "stats": {**stats, "coverage": {"SendMessage": {"transitions": 2}}}},
                   {**GOOD, "stats": {**stats, "terminal_states": 1.5}},
                   {**GOOD, "properties": [{**prop, "explanation": {"summary": "x"}}]},
                   {**GOOD, "properties": [{**prop, "explanation": {**prop["explanation"],
                                                                    "last_changed": {"master.commitlog": "two"}}}]},
                   {**GOOD, "properties": [{**prop, "kind": "sometimes"}]},
                   {**GOOD, "outcome": "error"}):
        with pytest.raises(jsonschema.ValidationError):
            validate(broken)
    validate({**GOOD, "stats": {**stats, "stop_reason": None}})


def test_matrix_result_fits_the_schema(tmp_path):
    path = tmp_path / "m.json"
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", *SMALL, "--json",
               str(path), "--quiet")
    assert r.exit_code == 1, r.output
    data = json.loads(path.read_text())
    validate_matrix(data)
    jsonschema.validate(data, matrix_schema(), cls=jsonschema.Draft202012Validator)
    assert [c["name"] for c in data["configurations"]] == ["default", "sync-master"]
    with pytest.raises(jsonschema.ValidationError):
        validate_matrix({**data, "configurations": [{k: v for k, v in data["configurations"][0].items()
                                                     if k != "name"}]})


def test_schema_command_prints_the_shipped_schema():
    r = invoke("schema")
    assert r.exit_code == 0 and r.stdout == schema_text()
    schema = json.loads(r.stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$ref"] == "#/$defs/output"    # tells a result, a matrix, a faults and a bench JSON apart
    assert {"result", "matrix", "faults", "bench"} <= set(schema["$defs"])


def test_schema_keeps_step_with_the_documented_json():
    """Every key the documentation's JSON section names is in the schema."""
    readme = (Path(__file__).resolve().parents[2] / "docs" / "reference" / "formats.md").read_text()
    section = readme[readme.index("## JSON result"):]
    section = section[:section.index("\n## ", 5)]
    text = schema_text()
    named = set(re.findall(r'"([a-z_]+)"\s*:', section)) | set(re.findall(r"`(?:stats\.|properties\[\]\.)([a-z_]+)`",
                                                                         section))
    named -= {"bfs", "random"}
    assert {"distinct_states", "explanation", "stopped_early", "stop_reason", "pruned_transitions",
            "pruned_reasons", "coverage", "terminal_states", "last_changed"} <= named
    for key in named:
        assert f'"{key}"' in text, key
