"""Coverage and dead ends (per action kind, terminal states) and pruned transitions, from the engines'
shared step: pinned numbers of small configurations (all in :data:`PINNED`), an independent reference
(the whole reachable graph built in Python, ``reachable_graph.py``), and the relations that hold on any
run (the sums equal the totals).

When the model changes, re-derive :data:`PINNED` with ``python tests/explore/test_coverage.py`` (it prints
the dict); everything else here is relational.
"""
from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from explore import explore
from explore.coverage import COUNT_CHUNK, action_kind, never_enabled, new_states_per_action
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase
from invariants import PROPERTIES
from model import RocketMQModel
from model.config import preset
from model.events import PRUNED, prune_reason

sys.path.insert(0, str(Path(__file__).parent))
from reachable_graph import ReachableGraph, key  # noqa: E402

NO_FAILURES = ("max_master_crashes=0", "max_master_power_losses=0")

#: configuration name -> ``--preset default`` overrides
CONFIGS = {
    "default-one-message": ("messages=1",),
    "no-failures": ("messages=1", *NO_FAILURES),
    "power-loss": ("messages=1", "max_master_crashes=0"),
    # consumer 2 takes the queue whenever consumer 1 is down, and meets the offset the power loss made
    # illegal each time: the third time two correction tasks still wait (one restart less prunes nothing)
    "pruning": ("slaves=0", "which_broker_when_consume_slowly=0", "messages=1", "consumers=2",
                "max_master_crashes=0", "max_consumer_restarts=3"),
    "pruning-one-restart-less": ("slaves=0", "which_broker_when_consume_slowly=0", "messages=1", "consumers=2",
                                 "max_master_crashes=0", "max_consumer_restarts=2"),
}

#: what the model gives today: (distinct states, transitions, terminal states, pruned per reason, coverage)
PINNED: dict[str, dict[str, Any]] = {
    "default-one-message": {
        "distinct_states": 29627, "transitions": 132550, "terminal_states": 10,
        "pruned_reasons": {},
        "coverage": {
            "SendMessage": {"transitions": 377, "new_states": 309},
            "FlushCommitLog": {"transitions": 13616, "new_states": 1601},
            "SlaveConnect": {"transitions": 7402, "new_states": 2014},
            "SlaveReportOffset": {"transitions": 9486, "new_states": 1796},
            "MasterPushData": {"transitions": 847, "new_states": 260},
            "SlaveRegister": {"transitions": 14519, "new_states": 486},
            "SlaveSyncAll": {"transitions": 8662, "new_states": 1233},
            "PersistConsumerOffset": {"transitions": 20476, "new_states": 814},
            "NameServerExpireMaster": {"transitions": 907, "new_states": 84},
            "RefreshRoute": {"transitions": 8905, "new_states": 2247},
            "Rebalance": {"transitions": 2916, "new_states": 2151},
            "Pull": {"transitions": 8002, "new_states": 4770},
            "Consume": {"transitions": 4906, "new_states": 4498},
            "ConsumeDropped": {"transitions": 2784, "new_states": 2046},
            "CorrectIllegalOffset": {"transitions": 4395, "new_states": 478},
            "PersistAllOffsets": {"transitions": 10037, "new_states": 2335},
            "MasterCrash": {"transitions": 6648, "new_states": 764},
            "MasterPowerLoss": {"transitions": 3336, "new_states": 903},
            "MasterRestart": {"transitions": 4329, "new_states": 837},
        },
    },
    "no-failures": {
        "distinct_states": 351, "transitions": 1188, "terminal_states": 1,
        "pruned_reasons": {},
        "coverage": {
            "SendMessage": {"transitions": 15, "new_states": 15},
            "FlushCommitLog": {"transitions": 264, "new_states": 21},
            "SlaveConnect": {"transitions": 53, "new_states": 10},
            "SlaveReportOffset": {"transitions": 149, "new_states": 12},
            "MasterPushData": {"transitions": 48, "new_states": 10},
            "SlaveRegister": {"transitions": 0, "new_states": 0},
            "SlaveSyncAll": {"transitions": 174, "new_states": 70},
            "PersistConsumerOffset": {"transitions": 174, "new_states": 12},
            "RefreshRoute": {"transitions": 0, "new_states": 0},
            "Rebalance": {"transitions": 0, "new_states": 0},
            "Pull": {"transitions": 140, "new_states": 126},
            "Consume": {"transitions": 70, "new_states": 70},
            "ConsumeDropped": {"transitions": 0, "new_states": 0},
            "CorrectIllegalOffset": {"transitions": 0, "new_states": 0},
            "PersistAllOffsets": {"transitions": 101, "new_states": 4},
        },
    },
    "pruning": {
        "distinct_states": 26675, "transitions": 131440, "terminal_states": 10,
        "pruned_reasons": {"third_pending_offset_correction": 84},
        "coverage": {
            "SendMessage": {"transitions": 343, "new_states": 69},
            "FlushCommitLog": {"transitions": 4337, "new_states": 83},
            "PersistConsumerOffset": {"transitions": 10526, "new_states": 909},
            "NameServerExpireMaster": {"transitions": 2846, "new_states": 1682},
            "RefreshRoute": {"transitions": 2214, "new_states": 0},
            "Rebalance": {"transitions": 19393, "new_states": 3464},
            "Pull": {"transitions": 10893, "new_states": 4793},
            "Consume": {"transitions": 9074, "new_states": 2967},
            "ConsumeDropped": {"transitions": 11197, "new_states": 625},
            "CorrectIllegalOffset": {"transitions": 6470, "new_states": 368},
            "PersistAllOffsets": {"transitions": 10259, "new_states": 982},
            "MasterPowerLoss": {"transitions": 4202, "new_states": 2152},
            "MasterRestart": {"transitions": 6620, "new_states": 885},
            "ConsumerCrash": {"transitions": 26800, "new_states": 5055},
            "ConsumerRestart": {"transitions": 6266, "new_states": 2640},
        },
    },
}


def model_of(name: str) -> RocketMQModel:
    return RocketMQModel(preset("default").with_overrides(list(CONFIGS[name])))


@functools.lru_cache(maxsize=None)
def checked(name: str, prop: str | None = None):
    return explore(model_of(name), PROPERTIES.select([prop]) if prop else PROPERTIES)


def observed(name: str) -> dict[str, Any]:
    s = checked(name).stats
    return {"distinct_states": s.distinct_states, "transitions": s.transitions,
            "terminal_states": s.terminal_states, "pruned_reasons": s.pruned_reasons, "coverage": s.coverage}


@functools.lru_cache(maxsize=None)
def reference(name: str) -> tuple[RocketMQModel, ReachableGraph]:
    m = model_of(name)
    return m, ReachableGraph.build(m)


def assert_sums_match_totals(result, initial: int = 1) -> None:
    s = result.stats
    assert sum(row["transitions"] for row in s.coverage.values()) == s.transitions
    assert sum(row["new_states"] for row in s.coverage.values()) == s.distinct_states - initial
    assert s.pruned_transitions == sum(s.pruned_reasons.values())


@pytest.mark.parametrize("name", sorted(PINNED))
def test_pinned_coverage(name):
    """The pinned numbers, over the configuration's action kinds (from the declarations): a kind PINNED does
    not list (an action declared since) has an idle row - were it to fire, the pinned totals would move."""
    kinds = dict.fromkeys(action_kind(a) for a in model_of(name).actions())
    pinned = PINNED[name]
    assert set(pinned["coverage"]) <= set(kinds)
    idle = {"transitions": 0, "new_states": 0}
    assert observed(name) == {**pinned, "coverage": {k: pinned["coverage"].get(k, idle) for k in kinds}}


@pytest.mark.parametrize("name", ["no-failures", "power-loss", "pruning"])
def test_coverage_terminal_states_and_pruned_rows_match_the_reference_graph(name):
    """Per kind: transitions are the graph's edges by action; new states are the canonical parent links
    (smallest parent key, then action) by action; terminal states have no outgoing edge, and the trace to
    one ends at the smallest-key one at the smallest distance, by the canonical path."""
    m, g = reference(name)
    r = checked(name)
    kinds = [action_kind(a) for a in m.actions()]
    want = {k: {"transitions": 0, "new_states": 0} for k in kinds}
    for e in g.edges:
        want[kinds[e.action]]["transitions"] += 1
    for s in g.graph:
        if s != g.root:
            want[kinds[g.canonical_path(s)[-1]]]["new_states"] += 1
    assert r.stats.coverage == want
    sources = {e.source for e in g.edges}
    terminal = {s for s in g.graph if s not in sources}
    assert r.stats.terminal_states == len(terminal) > 0
    end = g.first_state_witness(terminal)
    assert [st.action_index for st in r.terminal_trace.steps[1:]] == g.canonical_path(end)
    assert r.terminal_trace.steps[-1].state == end and m.enabled(end) == []
    pruned: dict[str, int] = {}
    for s in g.graph:
        _, flags = m.expand(s)
        for f in flags:
            if int(f) & PRUNED:
                pruned[prune_reason(int(f))] = pruned.get(prune_reason(int(f)), 0) + 1
    assert r.stats.pruned_reasons == pruned


@pytest.mark.parametrize("name", ["default-one-message", "no-failures", "power-loss"])
def test_sums_equal_the_totals(name):
    assert_sums_match_totals(checked(name))


def test_sums_hold_on_a_run_that_stops_early():
    """Counts cover what was expanded: a run that stops early expands less, and the sums still equal the
    totals of that run."""
    early = checked("power-loss", "master_recovers")
    assert early.stats.stopped_early
    assert_sums_match_totals(early)
    assert early.stats.transitions < checked("power-loss").stats.transitions


def test_every_action_kind_of_the_configuration_is_listed_and_the_idle_ones_are_flagged():
    m = model_of("no-failures")
    r = checked("no-failures")
    assert list(r.stats.coverage) == list(dict.fromkeys(action_kind(a) for a in m.actions()))
    _, g = reference("no-failures")
    fired = {action_kind(m.actions()[e.action]) for e in g.edges}
    assert never_enabled(r.stats) == [k for k in r.stats.coverage if k not in fired]
    assert "Rebalance" in never_enabled(r.stats)   # one consumer that never restarts keeps its queue
    assert "MasterCrash" not in r.stats.coverage   # not an action of this configuration
    assert never_enabled(checked("default-one-message").stats) == []


def test_toy_models_count_per_action_name():
    r = explore(Counter(5, k=100, reset=False), COUNTER_PROPERTIES)
    assert r.stats.coverage == {"Inc": {"transitions": 5, "new_states": 5}, "Reset": {"transitions": 0, "new_states": 0}}
    assert never_enabled(r.stats) == ["Reset"]
    assert r.stats.terminal_states == 1
    assert r.terminal_trace.actions == ["Inc()"] * 5 and r.terminal_trace.steps[-1].state == (5,)
    r = explore(Counter(5, k=100), COUNTER_PROPERTIES)
    assert r.stats.terminal_states == 0 and r.terminal_trace is None
    r = explore(TwoPhase(3), TWOPHASE_PROPERTIES)
    assert list(r.stats.coverage) == ["TMCommit", "TMAbort", "TMRcvPrepared", "RMPrepare", "RMChooseToAbort",
                                      "RMRcvCommitMsg", "RMRcvAbortMsg"]
    assert_sums_match_totals(r)
    assert r.stats.terminal_states == 0   # as in TLC, a step that changes nothing still counts (TwoPhase.tla)


def test_pruned_transitions_are_counted_and_every_absence_claim_says_so():
    r = checked("pruning")
    s = r.stats
    assert s.pruned_transitions > 0 and set(s.pruned_reasons) == {"third_pending_offset_correction"}
    assert_sums_match_totals(r)
    for p in r.properties:
        noted = "left out by a bound of the model" in p.note
        # an eventually property's verdict either way: its lasso may stay where a left-out step goes on
        assert noted == (p.status in ("holds", "unreached") or p.kind == "eventually"), p.name
    quiet = checked("pruning-one-restart-less")
    assert quiet.stats.pruned_transitions == 0 and quiet.stats.pruned_reasons == {}
    assert not any("bound of the model" in p.note for p in quiet.properties)


def test_new_states_are_counted_in_slices_that_add_up():
    """Counted a slice at a time (a run that ended short of memory has little to spare): the same sums."""
    via = np.random.default_rng(7).integers(0, 21, size=3 * COUNT_CHUNK + 5).astype(np.int16)
    assert new_states_per_action(via, 21).tolist() == np.bincount(via, minlength=21).tolist()
    assert new_states_per_action(via[:0], 3).tolist() == [0, 0, 0]


def test_counts_are_the_same_whatever_the_chunk_size():
    """Chunks end anywhere in a level (growing the table, the 0.25 s slices): the tally does not care."""
    from explore.local import LocalExplorer, Limits
    a = LocalExplorer(model_of("power-loss"), PROPERTIES, Limits(), chunk=7).run()
    b = checked("power-loss")
    assert (a.stats.coverage, a.stats.terminal_states, a.stats.pruned_reasons) == \
        (b.stats.coverage, b.stats.terminal_states, b.stats.pruned_reasons)
    assert a.terminal_trace.actions == b.terminal_trace.actions


def pinned_text(names) -> str:
    """:data:`PINNED` as source text, from fresh runs."""
    lines = ["PINNED: dict[str, dict[str, Any]] = {"]
    for name in names:
        o = observed(name)
        reasons = ", ".join(f'"{k}": {v}' for k, v in o["pruned_reasons"].items())
        lines += [f'    "{name}": {{',
                  f'        "distinct_states": {o["distinct_states"]}, "transitions": {o["transitions"]}, '
                  f'"terminal_states": {o["terminal_states"]},',
                  f'        "pruned_reasons": {{{reasons}}},', '        "coverage": {']
        lines += [f'            "{kind}": {{"transitions": {row["transitions"]}, "new_states": {row["new_states"]}}},'
                  for kind, row in o["coverage"].items()]
        lines += ["        },", "    },"]
    return "\n".join(lines + ["}"])


if __name__ == "__main__":   # re-derive PINNED
    print(pinned_text(PINNED))
