"""Random walks through controller-mode configurations: on every state visited, each compiled always
property agrees with its plain-Python reading over the view (invariants/controller/readable.py)."""
from __future__ import annotations

import numpy as np
import pytest

from invariants.controller import PROPERTIES
from invariants.controller.readable import ALWAYS
from model.controller import preset
from model.controller.model import ControllerModel

CONFIGS = {
    "allack-3-brokers": ("controller-allack", ["brokers=3", "messages=2"], None),
    "every-failure": ("controller", ["max_broker_power_losses=1", "max_controller_outages=1", "max_link_losses=1",
                                     "max_ha_disconnects=1", "messages=3"], None),
    "two-writers-one-epoch": ("controller", ["max_broker_crashes=0", "max_link_losses=2"], "election_keeps_epoch"),
    "two-queues": ("controller", ["queues=2", "messages=3", "max_broker_power_losses=1"], None),
    "consumer-offsets": ("controller", ["consumer_offsets=on", "max_consumer_restarts=2", "queues=2", "messages=3",
                                        "max_link_losses=1"], None),
    "stale-tail": ("controller", ["stale_tail=on", "max_broker_crashes=2", "max_broker_power_losses=1"], None),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_compiled_checks_agree_with_their_reading(name):
    base, sets, mutation = CONFIGS[name]
    cfg = preset(base).with_overrides(sets)
    model = ControllerModel(cfg, mutation=mutation)
    rng = np.random.default_rng(35)
    seen = {p.name: set() for p in PROPERTIES if p.name in ALWAYS}
    for _ in range(150):
        state = model.initial()[0]
        for _ in range(40):
            bits = int(PROPERTIES.state_check(np.asarray(state, dtype=np.uint64), model.params))
            view = model.view(state)
            for prop in PROPERTIES:
                if prop.name in ALWAYS:
                    holds = ALWAYS[prop.name](view, cfg)
                    assert holds == (not bits & prop.mask), (prop.name, view)
                    seen[prop.name].add(holds)
            succ = model.enabled(state)
            if not succ:
                break
            state = succ[rng.integers(len(succ))][1]
    # the walks saw both verdicts of the properties that fail in these spaces
    if mutation:
        assert seen["one_master_per_epoch"] == {True, False}


@pytest.mark.parametrize("base, sets", [("controller", []), ("controller-allack", []),
                                       ("controller", ["queues=2", "messages=3"]),
                                       ("controller", ["consumer_offsets=on", "messages=1",
                                                       "max_consumer_restarts=1"])])
def test_every_state_of_every_counterexample_agrees_with_the_reading(base, sets):
    """Random walks rarely reach the violations; the shortest counterexamples do, by construction."""
    from explore.local import explore

    cfg = preset(base).with_overrides(sets)
    model = ControllerModel(cfg)
    result = explore(model, PROPERTIES)
    checked = 0
    for p in result.properties:
        if p.name not in ALWAYS or p.trace is None:
            continue
        for step in p.trace.steps:
            bits = int(PROPERTIES.state_check(np.asarray(step.state, dtype=np.uint64), model.params))
            for prop in PROPERTIES:
                if prop.name in ALWAYS:
                    assert ALWAYS[prop.name](model.view(step.state), cfg) == (not bits & prop.mask), prop.name
        assert not ALWAYS[p.name](model.view(p.trace.steps[-1].state), cfg)   # the last state violates it
        checked += 1
    assert checked >= 3
