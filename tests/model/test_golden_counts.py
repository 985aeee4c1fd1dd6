"""Golden values of tiny configurations: distinct states, transitions, depth, verdicts, shortest traces.

The configurations, their counts and their verdicts (by property name) are the ``golden`` group of the
pinned table (tests/tooling/pinned.toml), PRODUCED BY EXPLORATION (``python -m tests.tooling.pinned --update``); the
shortest traces below were produced by exploration too, run once and pasted here. Exploration is
deterministic, so they must come out identical on every run. A change to the model, the properties or the
engine that moves any of them must say so, and update them, in a reviewed commit.
"""
from __future__ import annotations

import pytest

import invariants
from explore import explore
from handbuilt import model
from tests.tooling.pinned import group

GOLDEN = {e.name: e for e in group("golden")}

# shortest counterexamples, also from exploration: (golden id, property) -> action labels
SHORTEST = {
    ("two-messages-one-master-crash", "committed_offset_never_regresses"):
        ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)", "Pull(consumer=1, queue=0)",
         "MasterCrash()"],
    ("two-consumers-one-restart", "committed_offset_never_regresses"):
        ["SendMessage()", "ConsumerCrash(consumer=1)", "Rebalance(consumer=2)", "ConsumerRestart(consumer=1)",
         "Rebalance(consumer=1)", "Pull(consumer=2, queue=0)", "Consume(consumer=2, queue=0)",
         "Rebalance(consumer=2)", "PersistAllOffsets(consumer=1)"],
    ("no-slave-one-power-loss", "acked_message_never_lost"): ["SendMessage()", "MasterPowerLoss()"],
    ("no-slave-one-power-loss", "consumed_message_never_lost"):
        ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)", "MasterPowerLoss()"],
    ("no-slave-one-power-loss", "committed_offset_never_regresses"):
        ["SendMessage()", "Pull(consumer=1, queue=0)", "Consume(consumer=1, queue=0)", "Pull(consumer=1, queue=0)",
         "MasterPowerLoss()", "MasterRestart()"],
}

_results: dict[str, object] = {}


def result(golden_id: str):
    """The exploration of one golden configuration (run once per test session)."""
    if golden_id not in _results:
        _results[golden_id] = explore(model(**GOLDEN[golden_id].knobs), invariants.PROPERTIES)
    return _results[golden_id]


@pytest.mark.parametrize("golden_id", GOLDEN)
def test_golden_counts_and_verdicts(golden_id):
    pinned = GOLDEN[golden_id]
    r = result(golden_id)
    assert r.error is None and not r.incomplete_reason
    assert (r.stats.distinct_states, r.stats.transitions, r.stats.depth) == pinned.counts
    assert sum(r.stats.levels) == pinned.distinct_states
    assert {p.name: p.status for p in r.properties} == pinned.verdicts


def test_the_table_lists_verdicts_in_the_public_order():
    for e in GOLDEN.values():
        assert list(e.verdicts) == list(invariants.PROPERTIES.names()), e.name


@pytest.mark.parametrize("golden_id, prop", sorted(SHORTEST), ids=[f"{g}:{p}" for g, p in sorted(SHORTEST)])
def test_golden_shortest_traces(golden_id, prop):
    trace = result(golden_id).property(prop).trace
    assert trace is not None and trace.actions == SHORTEST[golden_id, prop]


def test_exploration_is_deterministic():
    """A second exploration of the same configuration (a fresh model object) gives the same numbers."""
    from model import RocketMQModel
    again = explore(RocketMQModel(GOLDEN["two-messages-one-master-crash"].config(), strict=True),
                    invariants.PROPERTIES)
    first = result("two-messages-one-master-crash")
    assert (again.stats.distinct_states, again.stats.transitions, again.stats.depth, again.stats.levels) == \
        (first.stats.distinct_states, first.stats.transitions, first.stats.depth, first.stats.levels)
    assert [(p.status, p.trace.actions if p.trace else None) for p in again.properties] == \
        [(p.status, p.trace.actions if p.trace else None) for p in first.properties]
