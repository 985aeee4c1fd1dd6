"""``rmqcheck replay`` of a faults JSON replays every mode, combination and budget-vector trace, says how
many, and exits 0 only when every one replays; a tampered trace makes it exit 1 and names it."""
from __future__ import annotations

import copy
import json

import pytest

from cli_driver import invoke


@pytest.fixture(scope="module")
def faults_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("faults") / "f.json"
    r = invoke("faults", "--set", "messages=1", "--set", "max_master_crashes=0", "--max-configs", "0", "--jobs", "1",
               "--quiet", "--json", str(path))
    assert r.exit_code == 1, r.output
    return json.loads(path.read_text())


def _replay(tmp_path, data: dict):
    path = tmp_path / "r.json"
    path.write_text(json.dumps(data))
    return invoke("replay", str(path))


def _counts(data: dict) -> tuple[int, int, int, int]:
    props = data["properties"]
    grown = [p["at_next_bound"] for p in props if "at_next_bound" in p]
    return (sum(len(p.get("modes", [])) for p in props), sum(len(p.get("combinations", [])) for p in props),
            sum(1 for p in props for v in p.get("vectors", []) if "trace" in v),
            sum(len(g["modes"]) + len(g["combinations"]) for g in grown))


def test_every_trace_of_a_faults_json_replays(faults_file, tmp_path):
    modes, combos, vectors, grown = _counts(faults_file)
    assert modes and combos and vectors and grown
    r = _replay(tmp_path, faults_file)
    assert r.exit_code == 0, r.output
    total = modes + combos + vectors + grown
    assert f"replayed {total} of {total} traces ({modes} mode, {combos} combination, {vectors} budget-vector, " \
           f"{grown} next-bound traces)" in " ".join(r.stdout.split())


def test_a_tampered_next_bound_trace_is_named(faults_file, tmp_path):
    data = copy.deepcopy(faults_file)
    prop = next(p for p in data["properties"] if p.get("at_next_bound", {}).get("modes"))
    prop["at_next_bound"]["modes"][0]["trace"].pop()
    r = _replay(tmp_path, data)
    assert r.exit_code == 1
    assert f"property {prop['name']}, next-bound mode 1 (" in " ".join(r.stdout.split())


@pytest.mark.parametrize("tamper, words", [
    # a step's recorded state no longer what the action leads to
    (lambda m: m["trace"][-1]["state"].update({"master.up": not m["trace"][-1]["state"]["master.up"]}),
     "leads to a different state"),
    # the trace stops before the breaking step: its last state does not violate the property
    (lambda m: m["trace"].pop(), "does not violate"),
    # a mode claiming another breaking action
    (lambda m: m.update(breaking_action="SlaveCrash"), "is not a SlaveCrash"),
    # a mode claiming fewer failures than its trace has
    (lambda m: m["combination"].update({k: 0 for k in m["combination"]}), "are not its combination"),
])
def test_a_tampered_mode_trace_fails_and_is_named(faults_file, tmp_path, tamper, words):
    data = copy.deepcopy(faults_file)
    prop = next(p for p in data["properties"] if p["name"] == "acked_message_never_lost")
    tamper(prop["modes"][0])
    r = _replay(tmp_path, data)
    assert r.exit_code == 1, r.output
    out = " ".join(r.stdout.split())
    assert "property acked_message_never_lost, mode 1 (" in out and words in out
    total = sum(_counts(data))
    assert f"replayed {total - 1} of {total} traces" in out
