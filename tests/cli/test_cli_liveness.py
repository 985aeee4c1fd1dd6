"""Eventually properties on the command line: --fairness / --unfair, the lasso on the console, in JSON
(schema), ITF and Markdown, and ``replay`` checking that a lasso closes and is fair."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from cli_driver import TINY, assert_bad_input, invoke
from reports.result_schema import schema_text

#: a master that may crash (and, with --unfair MasterRestart, stay down): 3,700 states
CRASHING = ("--set", "messages=1", "--set", "max_master_power_losses=0")
LIVE = ("--property", "acked_message_eventually_consumed", "--property", "slaves_eventually_catch_up",
        "--property", "consumption_eventually_completes")


@pytest.fixture(scope="module")
def unfair_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("live")
    r = invoke("check", *CRASHING, *LIVE, "--unfair", "MasterRestart", "--json", str(out / "r.json"),
               "--itf", str(out / "itf"), "--report", str(out / "r.md"))
    return r, out, json.loads((out / "r.json").read_text())


def test_bad_fairness_input_is_one_line():
    assert_bad_input(invoke("check", *TINY, *LIVE, "--unfair", "MasterRestrat"), "--unfair MasterRestrat",
                     "MasterRestart")
    assert_bad_input(invoke("check", *TINY, *LIVE, "--fairness", "fair"), "--fairness")


def test_fairness_without_an_eventually_property_is_said_once():
    r = invoke("check", *TINY, "--property", "replicas_agree", "--fairness", "strong", "--quiet")
    assert r.exit_code == 0
    assert r.stderr.count("only affect eventually properties") == 1


def test_lasso_on_the_console_json_itf_and_markdown(unfair_run):
    r, out, data = unfair_run
    assert r.exit_code == 1
    assert "acked_message_eventually_consumed: violated: a lasso of" in r.stdout
    assert "the run stays in the state of step" in r.stdout
    props = {p["name"]: p for p in data["properties"]}
    acked = props["acked_message_eventually_consumed"]
    assert acked["kind"] == "eventually" and acked["status"] == "violated"
    assert acked["fairness"] == {"mode": "weak", "unfair": ["MasterRestart"]}
    assert acked["trace"][acked["loop_start"]]["state"] == acked["trace"][-1]["state"]
    assert "message 1" in acked["note"] and acked["explanation"]["summary"]
    assert props["consumption_eventually_completes"]["status"] == "holds"
    jsonschema.validate(data, json.loads(schema_text()), cls=jsonschema.Draft202012Validator)
    broken = copy.deepcopy(data)
    del next(p for p in broken["properties"] if p["status"] == "violated")["loop_start"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, json.loads(schema_text()), cls=jsonschema.Draft202012Validator)
    itf = json.loads((out / "itf" / "acked_message_eventually_consumed.itf.json").read_text())
    assert itf["loop"] == acked["loop_start"] and len(itf["states"]) == len(acked["trace"])
    assert "↻" in (out / "r.md").read_text()


def test_replay_checks_the_lasso(unfair_run, tmp_path):
    _, out, data = unfair_run
    r = invoke("replay", str(out / "r.json"))
    assert r.exit_code == 0, r.output
    assert "acked_message_eventually_consumed: the lasso closes, is fair" in r.stdout
    # under weak fairness for every action the master's restart is enabled in the state the run stays in
    fair = copy.deepcopy(data)
    for p in fair["properties"]:
        p.get("fairness", {})["unfair"] = []
    path = tmp_path / "fair.json"
    path.write_text(json.dumps(fair))
    r = invoke("replay", "--property", "acked_message_eventually_consumed", str(path))
    assert r.exit_code == 1
    assert "the cycle is not fair: the run stays in a state where MasterRestart() is enabled" in r.stdout
    # the trace's caption does not claim the fairness the check just refuted
    assert "stuttering" not in r.stdout and "no fair action is enabled" not in r.stdout
    assert "the file's loop starts at step" in r.stdout
    # a loop start whose state is not the last one's: the cycle does not close
    bad = copy.deepcopy(data)
    p = next(p for p in bad["properties"] if p["name"] == "acked_message_eventually_consumed")
    p["loop_start"] = 0
    path.write_text(json.dumps(bad))
    r = invoke("replay", "--property", "acked_message_eventually_consumed", str(path))
    assert r.exit_code == 1 and "the cycle does not close" in r.stdout


def test_gate_keeps_eventually_verdicts_under_their_fairness(tmp_path):
    path = tmp_path / "baseline.toml"
    path.write_text('[[configuration]]\nname = "master-may-stay-down"\npreset = "default"\n'
                    'set = { messages = 1, max_master_power_losses = 0 }\n'
                    'properties = ["acked_message_eventually_consumed", "consumption_eventually_completes"]\n'
                    'unfair = ["MasterRestart"]\n')
    assert invoke("gate", "--baseline", str(path), "--update", "--quiet").exit_code == 0
    text = path.read_text()
    assert 'acked_message_eventually_consumed = "violated"' in text
    assert 'consumption_eventually_completes = "holds"' in text
    assert invoke("gate", "--baseline", str(path), "--quiet").exit_code == 0
    # the master comes back under weak fairness for every restart: the message is consumed after all
    path.write_text(text.replace('unfair = ["MasterRestart"]\n', ""))
    junit = tmp_path / "gate.xml"
    r = invoke("gate", "--baseline", str(path), "--quiet", "--junit", str(junit))
    assert r.exit_code == 1
    assert "acked_message_eventually_consumed: expected violated -> got holds" in r.stdout
    assert "expected violated, got holds" in junit.read_text()
    path.write_text(text.replace('unfair = ["MasterRestart"]', 'unfair = ["MasterRestarts"]'))
    assert_bad_input(invoke("gate", "--baseline", str(path)), "'MasterRestarts' is not an action kind")


def test_matrix_and_faults_take_the_fairness(tmp_path):
    one = ("--set", "messages=1", "--set", "max_master_power_losses=0", "--property",
           "acked_message_eventually_consumed", "--quiet")
    fair = invoke("matrix", "--preset", "default", *one)
    unfair = invoke("matrix", "--preset", "default", *one, "--unfair", "MasterRestart")
    assert fair.exit_code == 0 and "holds" in fair.stdout
    assert unfair.exit_code == 1 and "violated (6)" in unfair.stdout
    path = tmp_path / "f.json"
    r = invoke("faults", *one, "--unfair", "MasterRestart", "--jobs", "1", "--json", str(path))
    assert r.exit_code == 1, r.output
    data = json.loads(path.read_text())
    jsonschema.validate(data, json.loads(schema_text()), cls=jsonschema.Draft202012Validator)
    (p,) = data["properties"]
    assert p["kind"] == "eventually" and p["status"] == "violated"
    # one verdict per budget vector: without a master crash the message is consumed
    assert [(v["budgets"]["master_crashes"], v["status"]) for v in p["vectors"]] == [(0, "holds"), (1, "violated")]
    lasso = p["vectors"][1]
    assert lasso["trace"][lasso["loop_start"]]["state"] == lasso["trace"][-1]["state"]
