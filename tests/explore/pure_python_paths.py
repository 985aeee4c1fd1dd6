"""Run every model and engine path on small configurations and print what they give, as JSON: run by
tests/explore/test_pure_python.py twice, compiled and with NUMBA_DISABLE_JIT=1."""
from __future__ import annotations

import json
import sys

import numpy as np

from explore import explore
from explore.simulate import WalkLimits, simulate
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase
from invariants import PROPERTIES
from model import Config, RocketMQModel
from explore.step import tally_size
from explore import counters
from explore.step import Rows
from spark_explore.batch import edge_width, expand_batch

CONFIGS = {
    "one-message-no-failures": dict(messages=1, max_master_crashes=0, max_master_power_losses=0),
    "no-slave-one-power-loss": dict(messages=1, slaves=0, which_broker_when_consume_slowly=0,
                                    max_master_crashes=0, max_master_power_losses=1),
}


def summary(result) -> dict:
    return {"counts": [result.stats.distinct_states, result.stats.transitions, result.stats.depth],
            "coverage": [result.stats.coverage, result.stats.terminal_states, result.stats.pruned_reasons,
                         [s.action for s in result.terminal_trace.steps] if result.terminal_trace else None],
            "verdicts": {p.name: [p.status, [s.action for s in p.trace.steps] if p.trace else None]
                         for p in result.properties}}


def batch(model: RocketMQModel) -> list:
    """The Spark batch kernel on the initial states and their successors."""
    states = np.ascontiguousarray(model.initial_states(), dtype=np.uint64)
    states = np.ascontiguousarray(np.vstack([states] + [np.array([s for _, s, _ in model.enabled(tuple(int(x) for x in r))],
                                                                  dtype=np.uint64) for r in states]))
    nact, w = len(model.actions()), model.words
    cap = len(states) * nact
    child = np.zeros((cap, w), dtype=np.uint64)
    parent = np.zeros(cap, dtype=np.int64)
    action = np.zeros(cap, dtype=np.int64)
    sbits = np.zeros(cap, dtype=np.uint64)
    table = np.zeros(1 << (2 * cap).bit_length(), dtype=np.int64)
    tw_src, tw_act = np.zeros(64, dtype=np.int64), np.zeros(64, dtype=np.int64)
    io = counters.new(counters.BATCH, 1)
    tally = np.zeros(tally_size(nact), dtype=np.int64)
    masks = counters.new(counters.MASKS, 1)
    masks["state_watch"] = masks["trans_watch"] = (1 << len(PROPERTIES)) - 1
    edges = np.zeros((cap, edge_width(w)), dtype=np.uint64)
    rows = Rows(np.zeros((nact, w), dtype=np.uint64), np.zeros(nact, dtype=np.int64), np.zeros(nact, dtype=np.int64),
                np.zeros(nact, dtype=np.uint64))
    n = expand_batch(model.successors, PROPERTIES.state_check, PROPERTIES.transition_check, model.params, states,
                     masks, (child, parent, action, table, edges), sbits, (tw_src, tw_act), io, rows, tally)
    return [int(n), child[:n].tolist(), parent[:n].tolist(), action[:n].tolist(), sbits[:n].tolist(),
            [int(x) for x in io[0].tolist()], tw_src.tolist(), tw_act.tolist(), tally.tolist(),
            edges[:io[0]["edges"]].tolist()]


def main() -> None:
    out = {}
    for name, knobs in CONFIGS.items():
        model = RocketMQModel(Config.from_mapping(knobs))
        out[name] = summary(explore(model, PROPERTIES))
        out[name + "/simulate"] = summary(simulate(model, PROPERTIES, WalkLimits(walks=8, depth=25, seed=3)))
        out[name + "/batch"] = batch(model)
    out["twophase-3"] = summary(explore(TwoPhase(3), TWOPHASE_PROPERTIES))
    out["counter-5"] = summary(explore(Counter(5, k=6), COUNTER_PROPERTIES))
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main()
