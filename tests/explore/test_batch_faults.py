"""The edge-free failure-mode pass (explore.fault_passes.batch_faults), which the Spark engine runs per Arrow
batch and reduces with Spark's ``min``: over the stored states cut into batches in any order, reduced by
(level, key, action), it gives exactly the local analysis' witnesses (explore.faults.FaultAnalysis, which
reads the explorer's edges). No Spark here: the batches are cut and reduced in Python."""
from __future__ import annotations

import numpy as np
import pytest

from explore.fault_passes import batch_faults
from explore.faults import Lattice, analyse, counter_fields
from invariants import ALWAYS, PROPERTIES
from model import Config, RocketMQModel

ALWAYS_PROPS = PROPERTIES.select([p.name for p in PROPERTIES if p.kind == ALWAYS])


def _order(states: np.ndarray, levels: np.ndarray, row: int, action: int) -> tuple:
    return (int(levels[row]), tuple(int(x) for x in states[row].view(np.int64)), action)


def _batched_pass(model, props, states, levels, batches):
    """Each batch's minima, reduced by the canonical order: what Spark's groupBy/min does."""
    state_check = props.state_check
    lattice = Lattice.of(model.config)
    actions = model.actions()
    kinds = sorted({type(a).__name__ for a in actions})
    kind_of = np.array([kinds.index(type(a).__name__) for a in actions], dtype=np.int64)
    props = list(props)
    prop_bits = np.array([p.bit for p in props], dtype=np.int64)
    shape = (len(prop_bits), len(kinds), lattice.size)
    violated: dict = {}
    breaking: dict = {}
    for rows in batches:
        bstates = np.ascontiguousarray(states[rows])
        blevels = np.ascontiguousarray(levels[rows])
        vbest = np.full(shape[::2], -1, dtype=np.int64)
        bbest = np.full(shape, -1, dtype=np.int64)
        bact = np.full(shape, -1, dtype=np.int64)
        out = np.zeros((len(actions), model.words), dtype=np.uint64)
        oflags = np.zeros(len(actions), dtype=np.int64)
        batch_faults(model.successors, state_check, np.asarray(model.params, dtype=np.int64), bstates,
                     blevels, prop_bits, kind_of, counter_fields(model, lattice), vbest, (bbest, bact), (out, oflags))
        for p, c in zip(*np.nonzero(vbest >= 0)):
            o = _order(bstates, blevels, vbest[p, c], -1)
            violated[(p, c)] = min(violated.get((p, c), o), o)
        for p, k, c in zip(*np.nonzero(bbest >= 0)):
            o = _order(bstates, blevels, bbest[p, k, c], int(bact[p, k, c]))
            breaking[(p, k, c)] = min(breaking.get((p, k, c), o), o)
    named_v = {(props[p].name, lattice.vector(int(c))): o for (p, c), o in violated.items()}
    named_b = {(props[p].name, kinds[k], lattice.vector(int(c))): o for (p, k, c), o in breaking.items()}
    return named_v, named_b


def _stored(a):
    """The analysis' stored states and the level of each."""
    states = a.explorer.stored_states()
    starts = a.explorer.level_starts
    levels = np.repeat(np.arange(len(starts) - 1, dtype=np.int64), np.diff(starts))[: len(states)]
    assert [a.depth(i) for i in (0, len(states) // 2, len(states) - 1)] == \
        [int(levels[i]) for i in (0, len(states) // 2, len(states) - 1)]
    return states, levels


@pytest.mark.parametrize("knobs", [{"messages": 1, "max_master_crashes": 0}, {"messages": 1, "slaves": 0}],
                         ids=["no-crash", "no-slave"])
def test_batches_in_any_order_reduce_to_the_local_analysis(knobs):
    model = RocketMQModel(Config.from_mapping(knobs))
    a = analyse(model, ALWAYS_PROPS)
    states, levels = _stored(a)

    def expected():
        v = {(name, vec): _order(states, levels, i, -1)
             for name, pf in a.faults.items() for vec, i in pf.violated_cells.items()}
        b = {(name, kind, vec): _order(states, levels, src, act)
             for name, pf in a.faults.items() for (kind, vec), (src, act) in pf.breaking.items()}
        return v, b

    want_v, want_b = expected()
    assert want_v and want_b                       # the configurations do break properties
    shuffled = np.random.default_rng(7).permutation(len(states))
    for batches in ([np.arange(len(states))], np.array_split(shuffled, 5), np.array_split(shuffled[::-1], 13)):
        assert _batched_pass(model, ALWAYS_PROPS, states, levels, batches) == (want_v, want_b)


def test_a_reduction_by_the_largest_instead_would_differ():
    """The seeded mutation: reducing by the wrong order (deepest first) changes the witnesses, so the
    equality above is not vacuous."""
    model = RocketMQModel(Config.from_mapping({"messages": 1, "slaves": 0}))
    a = analyse(model, ALWAYS_PROPS)
    states, levels = _stored(a)
    _, right = _batched_pass(model, ALWAYS_PROPS, states, levels, [np.arange(len(states))])
    _, deepest = _batched_pass(model, ALWAYS_PROPS, states, -levels, [np.arange(len(states))])
    assert right.keys() == deepest.keys()
    steps = {k: o[1:] for k, o in right.items()}            # (source key, action), the level left out
    assert steps != {k: o[1:] for k, o in deepest.items()}
