"""Why a controller property fails (invariants/controller/explain.py): every always property and the
eventually property has conditions, they agree with the compiled checks on every state, and ``check
--mode controller`` shows "why" and "last changed" in the console and the JSON as it does for 4.4."""
from __future__ import annotations

import json

import numpy as np
import pytest

from cli_driver import invoke
from explore.local import explore
from invariants.controller import PROPERTIES
from invariants.controller.declare import CONTROLLER as CHECKS
from invariants.controller.explain import EXPLAINED
from invariants.explain import conditions, explain, explain_result
from model.controller import preset
from model.controller.model import ControllerModel


def test_every_always_and_eventually_property_has_an_explanation():
    assert set(EXPLAINED.conditions) == {d.name for d in CHECKS.declarations()
                                         if d.kind in ("always", "graph", "eventually")}


@pytest.mark.parametrize("base, sets, mutation", [
    ("controller", ["messages=2"], None),
    ("controller-allack", ["messages=2"], None),
    ("controller", ["max_broker_crashes=0", "max_link_losses=2"], "election_keeps_epoch"),
    ("controller", ["max_broker_crashes=0", "max_link_losses=1"], "epoch_entry_past_max"),
    ("controller", ["queues=2", "messages=3"], None),
    ("controller", ["consumer_offsets=on", "messages=1", "max_consumer_restarts=1"], None),
    ("controller", ["consumer_offsets=on", "max_broker_crashes=0", "max_consumer_restarts=1"], "restart_from_queue_max"),
])
def test_the_conditions_agree_with_the_compiled_check_on_every_state_of_the_counterexamples(base, sets, mutation):
    """Each counterexample's states (the last one violates its property, the others lead there), and a few
    random walks: the conjunction of the conditions is the compiled verdict, property by property."""
    model = ControllerModel(preset(base).with_overrides(sets), mutation=mutation)
    result = explore(model, PROPERTIES)
    states = [s.state for p in result.properties if p.trace is not None for s in p.trace.steps]
    rng = np.random.default_rng(44)
    for _ in range(40):
        state = model.initial()[0]
        for _ in range(30):
            states.append(state)
            succ = model.enabled(state)
            if not succ:
                break
            state = succ[rng.integers(len(succ))][1]
    seen: dict[str, set[bool]] = {}
    for state in states:
        bits = int(PROPERTIES.state_check(np.asarray(state, dtype=np.uint64), model.params))
        view = model.view(state)
        for p in PROPERTIES.of_kind("always"):
            holds = all(c.holds for c in conditions(p.name, model, view))
            assert holds == (not bits & p.mask), (p.name, view)
            seen.setdefault(p.name, set()).add(holds)
    assert any(v == {True, False} for v in seen.values())   # not vacuous: some property fails in these states


def test_each_violation_is_explained_by_the_failed_conditions_of_its_last_state():
    cfg = preset("controller").with_overrides(["messages=2"])
    model = ControllerModel(cfg)
    result = explore(model, PROPERTIES)
    explained = 0
    for p in result.properties:
        if p.status != "violated" or p.name not in EXPLAINED.conditions:
            continue
        e = explain(p.name, p.trace, model)
        assert e is not None and e.failed, p.name
        assert e.summary.endswith("; ".join(c.text for c in e.failed))
        last = p.trace.steps[-1].view
        assert all(last[f] == v for c in e.failed for f, v in c.fields.items())
        for f, step in e.last_changed.items():
            assert step == 0 or f in p.trace.steps[step].changes
            assert all(f not in s.changes for s in p.trace.steps[step + 1:])
        assert all(c.holds for c in conditions(p.name, model, p.trace.steps[-2].view))   # a shortest trace
        assert explain_result(p, cfg.as_dict()).to_dict() == e.to_dict()   # as the reports compute it
        explained += 1
    assert explained >= 3


def test_the_lost_send_ok_names_the_message_and_the_new_master():
    model = ControllerModel(preset("controller"))
    result = explore(model, PROPERTIES.select(["acked_message_on_every_later_master"]))
    e = explain("acked_message_on_every_later_master", result.properties[0].trace, model)
    (c,) = e.failed
    master = c.fields["controller.masterBrokerId"]
    lost = set(c.fields["producer.sendOk"]) - {int(x.split("@")[0]) for x in c.fields[f"broker{master}.commitlog"]}
    assert lost and f"broker{master}" in c.text and f"message {min(lost)} got SEND_OK" in c.text


def test_check_shows_why_and_last_changed_in_the_console_and_the_json():
    args = ("check", "--mode", "controller", "--set", "messages=1", "--property", "acked_message_on_every_later_master",
            "--property", "epoch_file_agrees_with_log")
    console = invoke(*args)
    assert console.exit_code == 1, console.stderr
    assert "why" in console.stdout and "last changed" in console.stdout
    doc = json.loads(invoke(*args, "--json", "-", "--quiet").stdout)
    for p in doc["properties"]:
        assert p["status"] == "violated", p["name"]
        e = p["explanation"]
        assert e["summary"] and e["last_changed"] and any(not c["holds"] for c in e["conditions"])
        assert all(set(c) == {"text", "holds", "fields"} for c in e["conditions"])
