"""The driver's part of the Spark eventually pass (spark_explore/liveness.py ``Core``), without Spark: on
random labelled graphs, the candidates trimming leaves, gathered with their successor lists (edges out of
them to one stand-in state), have exactly the fair components the local pass finds on the whole graph, and
the fair cycle walked over the gathered core is the local one. The RocketMQ presets have no fair cycle
avoiding a goal, so this is where the cycle part of a Spark lasso is checked."""
from __future__ import annotations

import numpy as np
import pytest

from explore.liveness import Graph, fair_cycle, fair_ends
from spark_explore.liveness import Core

from test_liveness_reference import random_graph


def trimmed(rows, alive: np.ndarray) -> np.ndarray:
    """OWCTY as the Spark steps do it, one step at a time: drop the candidates with no candidate successor
    or no candidate predecessor (self-loops are no steps) until a step drops none."""
    alive = alive.copy()
    while True:
        succ = np.zeros(len(rows), bool)
        pred = np.zeros(len(rows), bool)
        for s, row in enumerate(rows):
            for _, d in row:
                if d != s and alive[s] and alive[d]:
                    succ[s] = pred[d] = True
        new = alive & succ & pred
        if (new == alive).all():
            return new
        alive = new


def gathered(rows, alive: np.ndarray) -> tuple:
    """What core_partition yields for one partition holding every state (state ``s``'s key: ``s``)."""
    live = np.flatnonzero(alive)
    acts = [a for s in live for a, _ in rows[s]]
    dsts = [[d] for s in live for _, d in rows[s]]
    return (0, live, live[:, None].astype(np.uint64), np.zeros(len(live), np.int32), np.ones(len(live), np.uint64),
            np.array([len(rows[s]) for s in live], np.int64), np.array(acts, np.int16),
            np.array(dsts, np.uint64).reshape(-1, 1))


@pytest.mark.parametrize("strong", [False, True], ids=["weak", "strong"])
def test_the_gathered_core_has_the_local_fair_components_and_cycles(strong):
    rng = np.random.default_rng(7 + strong)
    cycles = 0
    for _ in range(150):
        rows, row_start, edges, act, nact = random_graph(rng)
        fair = (rng.random(nact) < 0.7).astype(np.uint8)
        not_q = rng.random(len(rows)) < 0.8
        g = Graph(row_start, edges, act, fair, strong=strong)
        _, local = fair_ends(g, not_q.astype(np.uint8))
        core = Core.of([gathered(rows, trimmed(rows, not_q))], fair, strong, 1)
        mine = core.fair_comp[0]
        index = {key[0]: i for i, key in enumerate(core.keys)}
        assert {s for s in range(len(rows)) if local[s] >= 0} == {s for s, i in index.items() if mine[i] >= 0}
        for s, i in index.items():
            if local[s] >= 0 and not g.stutter[s]:
                want = fair_cycle(g, local == local[s], s)
                got = fair_cycle(core.graph, mine == mine[i], i)
                assert [(a, core.keys[d][0]) for a, d in got] == want
                cycles += 1
    assert cycles > 20
