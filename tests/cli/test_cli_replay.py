"""``rmqcheck replay``: a produced trace replays step by step; a tampered one fails at its step number."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from cli_driver import SMALL, assert_bad_input, invoke


@pytest.fixture(scope="module")
def produced(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("replay") / "r.json"
    r = invoke("check", *SMALL, "--json", str(path), "--quiet")
    assert r.exit_code == 1
    return json.loads(path.read_text())


def write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data))
    return str(path)


def prop(data: dict, name: str) -> dict:
    return next(p for p in data["properties"] if p["name"] == name)


def test_every_trace_of_a_result_replays(produced, tmp_path):
    r = invoke("replay", write(tmp_path, produced))
    assert r.exit_code == 0, r.output
    traced = [p for p in produced["properties"] if "trace" in p]
    assert len(traced) >= 5
    for p in traced:
        assert f"{p['name']}: {len(p['trace']) - 1} steps replayed" in r.stdout
    assert "acked_message_never_lost: the last state still shows it violated" in r.stdout
    assert "master_recovers: the last state still shows it reached" in r.stdout
    assert "MasterPowerLoss()" in r.stdout and "master.commitlog: [1] -> []" in r.stdout


def test_one_property_can_be_chosen(produced, tmp_path):
    r = invoke("replay", write(tmp_path, produced), "--property", "replication_can_catch_up")
    assert r.exit_code == 0
    assert "replication_can_catch_up: 5 steps replayed" in r.stdout
    assert "acked_message_never_lost" not in r.stdout


def test_an_action_that_is_not_enabled_fails_at_its_step(produced, tmp_path):
    data = copy.deepcopy(produced)
    trace = prop(data, "acked_message_never_lost")["trace"]
    trace[2]["action"] = "MasterRestart()"   # the master is up: it cannot restart
    r = invoke("replay", write(tmp_path, data), "--property", "acked_message_never_lost")
    # the line names the actions enabled there, as many as fit in its 300 characters
    assert_bad_input(r, "property acked_message_never_lost, step 2", "MasterRestart() is not enabled",
                     "enabled there: FlushCommitLog(broker=0)")


def test_a_state_that_differs_from_the_model_fails_at_its_step(produced, tmp_path):
    data = copy.deepcopy(produced)
    trace = prop(data, "consumed_message_never_lost")["trace"]
    trace[3]["state"]["history.redelivered"] = True
    r = invoke("replay", write(tmp_path, data))
    assert_bad_input(r, "property consumed_message_never_lost, step 3", "leads to a different state",
                     "history.redelivered")


@pytest.mark.parametrize("tamper, words", [
    (lambda t: t[1].update(action="Fly(to=the moon)"), ("step 1", "not an action of this configuration")),
    (lambda t: t[1].update(action="not a label"), ("step 1", "is not an action label")),
    (lambda t: t[0].update(action="SendMessage()"), ("step 0", "must be INIT")),
    (lambda t: t[0]["state"].update({"master.up": False}), ("step 0", "not the initial state", "master.up")),
    (lambda t: t[2]["state"].pop("master.up"), ("step 2", "state field 'master.up' is missing")),
    (lambda t: t[2]["state"].update({"master.speed": 3}), ("step 2", "unknown state field 'master.speed'")),
    (lambda t: t[1]["state"].update({"slave1.haLink": "FLYING"}), ("step 1", "slave1.haLink")),
    (lambda t: t[2].update(step=7), ("step 2", "numbered 7")),
    (lambda t: t.clear(), ("the trace is empty",)),
])
def test_traces_that_do_not_fit_the_model_are_bad_input(produced, tmp_path, tamper, words):
    data = copy.deepcopy(produced)
    tamper(prop(data, "acked_message_never_lost")["trace"])
    assert_bad_input(invoke("replay", write(tmp_path, data), "--property", "acked_message_never_lost"), *words)


@pytest.mark.parametrize("content, words", [
    ("{not json", ("not valid JSON",)),
    ("[1, 2]", ("expected a JSON object",)),
    ('{"properties": []}', ("missing 'config'",)),
    ('{"config": {}, "properties": [{"name": 3}]}', ("properties[0]",)),
    ('{"config": {}, "properties": [{"name": "replicas_agree", "trace": [{"step": 0}]}]}', ("'action'",)),
    ('{"config": {"colour": 1}, "properties": []}', ("unknown knob 'colour'",)),
    ('{"config": {}, "properties": []}', ("no property to re-check",)),
    ('{"config": {}, "properties": [{"name": "replicas_agree", "status": "fine"}]}',
     ("replicas_agree", "status 'fine'", "allowed: holds, violated, unknown")),
    ('{"config": {}, "properties": [{"name": "nope", "status": "holds"}]}', ("unknown property 'nope'",)),
])
def test_files_that_do_not_fit_the_schema_are_bad_input(tmp_path, content, words):
    from reports.json_report import version
    path = tmp_path / "t.json"
    if content.startswith('{"config"'):   # a result of this rmqcheck, but for what the test changes
        content = content.replace('{"config"', f'{{"tool": "rmqcheck", "version": "{version()}", "config"', 1)
    path.write_text(content)
    assert_bad_input(invoke("replay", str(path)), *words)


def test_a_property_without_a_trace_is_re_checked_by_exploration(produced, tmp_path):
    path = write(tmp_path, produced)
    assert prop(produced, "no_message_skipped")["status"] == "holds"
    r = invoke("replay", path, "--property", "no_message_skipped")
    assert r.exit_code == 0, r.output
    assert "no_message_skipped: recorded holds; exploration agrees" in r.stdout
    assert_bad_input(invoke("replay", path, "--property", "bogus"), "unknown property 'bogus'")


def test_a_property_not_in_the_file_is_bad_input(produced, tmp_path):
    data = copy.deepcopy(produced)
    data["properties"] = [p for p in data["properties"] if p["name"] != "no_message_skipped"]
    assert_bad_input(invoke("replay", write(tmp_path, data), "--property", "no_message_skipped"),
                     "no_message_skipped is not in this file")


def test_a_violation_edited_to_holds_is_refused(produced, tmp_path):
    """The false verdict of the issue: a violated property edited to 'holds' was 'not re-checked', exit 0."""
    data = copy.deepcopy(produced)
    p = prop(data, "acked_message_never_lost")
    assert p["status"] == "violated"
    p["status"] = "holds"
    r = invoke("replay", write(tmp_path, data))
    assert r.exit_code == 1, r.output
    assert "acked_message_never_lost: recorded holds, but exploration finds it violated" in r.stdout
    del p["trace"]   # the same claim without a trace
    r = invoke("replay", write(tmp_path, data), "--property", "acked_message_never_lost")
    assert r.exit_code == 1, r.output
    assert "recorded holds, but exploration finds it violated" in r.stdout


def test_every_kind_of_edited_verdict_is_refused(produced, tmp_path):
    flips = {"holds": "violated", "violated": "holds", "reached": "unreached", "unreached": "reached"}
    for original in produced["properties"]:
        if original["status"] not in flips:
            continue
        data = copy.deepcopy(produced)
        p = prop(data, original["name"])
        p["status"] = flips[p["status"]]
        p.pop("trace", None)
        r = invoke("replay", write(tmp_path, data), "--property", p["name"])
        assert r.exit_code == 1, (p["name"], r.output)
        assert f"recorded {p['status']}, but exploration finds it {original['status']}" in r.stdout


def test_a_limit_that_keeps_a_verdict_from_being_re_checked_exits_3(produced, tmp_path):
    r = invoke("replay", write(tmp_path, produced), "--property", "no_message_skipped", "--max-states", "50")
    assert r.exit_code == 3, r.output
    assert "no_message_skipped: recorded holds; not re-checked: state limit 50 reached" in r.stdout


def test_a_trace_that_replays_but_no_longer_shows_its_verdict_exits_1(produced, tmp_path):
    data = copy.deepcopy(produced)
    p = prop(data, "acked_message_never_lost")
    p["trace"] = p["trace"][:-1]   # stop before the power loss: every step allowed, nothing lost yet
    r = invoke("replay", write(tmp_path, data), "--property", "acked_message_never_lost")
    assert r.exit_code == 1, r.output
    assert "recorded violated, but the last state no longer shows it" in r.stdout
