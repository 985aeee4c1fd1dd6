"""Explained violations (invariants/explain.py) against the compiled checks and real traces.

The conditions of a property must be an exact decomposition of it: on every state of an exploration they
all hold exactly when the compiled check says the property holds (for the graph property: when the state is
a goal state). The explanations of the shortest counterexamples an exploration finds must name failed
conditions whose values are the state's, and date them from the trace.
"""
from __future__ import annotations

import functools

import numpy as np
import pytest

from explore import Limits, LocalExplorer
from invariants import PROPERTIES
from invariants.explain import EXPLAINERS, conditions, explain, explain_result
from model import Config, RocketMQModel
from model.bits import prefix_related

#: every explained property is violated here (127,544 states): counterexamples of all six
ALL_VIOLATED = {"max_master_crashes": 0}
#: small enough to compare every state (7,470 states)
SMALL = {"messages": 1, "max_master_crashes": 0}


@functools.lru_cache(maxsize=None)
def explored(knobs: tuple[tuple[str, object], ...]):
    model = RocketMQModel(Config.from_mapping(dict(knobs)))
    explorer = LocalExplorer(model, PROPERTIES.select(PROPERTIES.names_in_order), Limits())
    result = explorer.run()
    return model, explorer.stored_states().copy(), result


def compiled_holds(model: RocketMQModel, state: np.ndarray, name: str) -> bool:
    """The compiled verdict of ``name`` on one state: an always property holds; the graph goal holds; an
    eventually property's goal holds for every instance its trigger holds for."""
    if PROPERTIES.get(name).kind == "eventually":
        masks = np.zeros(128, np.uint64)
        PROPERTIES.eventually_masks(np.asarray(state, dtype=np.uint64), model.params, masks)
        bit = PROPERTIES.get(name).bit
        return int(masks[2 * bit]) & ~int(masks[2 * bit + 1]) == 0
    bits = int(PROPERTIES.state_check(np.asarray(state, dtype=np.uint64), model.params))
    flagged = bool(bits & PROPERTIES.get(name).mask)
    return flagged if PROPERTIES.get(name).kind == "graph" else not flagged


def compare_states(model: RocketMQModel, states: np.ndarray) -> dict[str, set[bool]]:
    seen: dict[str, set[bool]] = {name: set() for name in EXPLAINERS}
    for row in states:
        view = model.view(tuple(int(x) for x in row))
        for name in EXPLAINERS:
            conds = conditions(name, model, view)
            expected = compiled_holds(model, row, name)
            assert all(c.holds for c in conds) == expected, (name, view, [c.text for c in conds])
            for c in conds:
                assert all(view[f] == v for f, v in c.fields.items()), (name, c)
            seen[name].add(expected)
    return seen


def test_conditions_match_the_compiled_checks_on_every_state_of_a_small_space():
    model, states, _ = explored(tuple(SMALL.items()))
    assert len(states) == 7470
    seen = compare_states(model, states)
    # the space has both verdicts for the properties it violates
    for name in ("acked_message_never_lost", "consumed_message_never_lost", "committed_offset_never_regresses",
                 "replication_can_catch_up"):
        assert seen[name] == {True, False}, name


def test_conditions_match_the_compiled_checks_where_every_property_fails():
    model, states, _ = explored(tuple(ALL_VIOLATED.items()))
    sample = states[::40]
    seen = compare_states(model, sample)
    assert all(verdicts == {True, False} for verdicts in seen.values()), seen


@pytest.fixture(scope="module")
def counterexamples():
    model, _, result = explored(tuple(ALL_VIOLATED.items()))
    return model, {p.name: p for p in result.properties if p.name in EXPLAINERS}


@pytest.mark.parametrize("name", sorted(EXPLAINERS))
def test_each_counterexample_is_explained_by_failed_conditions_of_its_last_state(counterexamples, name):
    model, props = counterexamples
    p = props[name]
    config = explored(tuple(ALL_VIOLATED.items()))[2].config
    if name == "consumption_eventually_completes":   # holds there: the seeded bug's lasso (test_liveness_properties)
        from invariants import Fairness
        model = RocketMQModel(Config.from_mapping({"messages": 1, "max_master_power_losses": 0}),
                              mutation="consumer_stops_after_route_change")
        result = LocalExplorer(model, PROPERTIES.select([name]).with_fairness(Fairness("weak", ("MasterRestart",))),
                               Limits()).run()
        p, config = result.properties[0], None
    assert p.status == "violated" and p.trace is not None
    e = explain(name, p.trace, model)
    assert e is not None and e.failed
    last = p.trace.steps[-1].view
    assert e.summary.endswith("; ".join(c.text for c in e.failed))
    for c in e.failed:
        assert all(last[f] == v for f, v in c.fields.items())
    # each deciding field: the step named changed it, and no later step did
    assert set(e.last_changed) == {f for c in e.failed for f in c.fields}
    for f, step in e.last_changed.items():
        assert step == 0 or f in p.trace.steps[step].changes
        assert all(f not in s.changes for s in p.trace.steps[step + 1:])
    # one step earlier the property held (a shortest trace), and so did every condition; an eventually
    # property's lasso ends in the state it repeats from, where its goal does not hold
    if p.kind != "eventually":
        before = conditions(name, model, p.trace.steps[-2].view)
        assert all(c.holds for c in before)
    # the explanation reads the same from the result's config dict, as the reports compute it
    if config is not None:
        assert explain_result(p, config).to_dict() == e.to_dict()


def test_acked_message_lost_names_the_message_and_the_power_loss_that_erased_it(counterexamples):
    model, props = counterexamples
    trace = props["acked_message_never_lost"].trace
    e = explain("acked_message_never_lost", trace, model)
    (c,) = e.failed
    lost = set(c.fields["producer.sendOk"]) - set(c.fields["master.commitlog"]) - set(c.fields["slave1.commitlog"])
    assert lost, c
    power_loss = next(s.index for s in trace.steps if s.action == "MasterPowerLoss()")
    assert f"MasterPowerLoss() at step {power_loss} erased" in c.text
    assert e.last_changed["master.commitlog"] == power_loss


def test_replicas_agree_failure_shows_logs_that_are_not_prefix_related(counterexamples):
    model, props = counterexamples
    e = explain("replicas_agree", props["replicas_agree"].trace, model)
    for c in e.failed:
        slave = next(f for f in c.fields if f.startswith("slave"))
        mask = lambda ids: sum(1 << (m - 1) for m in ids)  # noqa: E731
        assert not prefix_related(mask(c.fields[slave]), mask(c.fields["master.commitlog"]))
    # the point: the deciding slave log last changed steps before the end
    assert min(e.last_changed.values()) < len(props["replicas_agree"].trace)


def test_offset_explanations_cite_the_broker_a_restart_asks(counterexamples):
    model, props = counterexamples
    for name in ("committed_offset_never_regresses", "no_message_skipped"):
        e = explain(name, props[name].trace, model)
        (c,) = e.failed   # one queue
        registered = c.fields["nameserver.route"][:1] == [0]
        asked = "master" if registered else "slave1"
        assert f"asks {'the master' if registered else 'slave1'}" in c.text
        assert c.fields[f"{asked}.up"] is True
        offset = c.fields[f"{asked}.consumerOffset[0]"]
        if name == "committed_offset_never_regresses":
            read = 0 if offset is None else offset
            assert read < c.fields["history.highestCommitted[0]"]
        else:
            assert offset is not None
            passed = c.fields[f"{asked}.commitlog"][:offset]
            assert set(passed) - set(c.fields["history.delivered"])


def test_no_explanation_for_a_trace_that_does_not_end_in_a_violation(counterexamples):
    model, props = counterexamples
    p = props["acked_message_never_lost"]
    from explore.result import Trace
    assert explain(p.name, Trace(p.trace.steps[:-1]), model) is None


def test_consumed_and_catch_up_failures_show_the_values_that_break_them(counterexamples):
    model, props = counterexamples
    e = explain("consumed_message_never_lost", props["consumed_message_never_lost"].trace, model)
    for c in e.failed:
        assert set(c.fields["history.delivered"]) - set(c.fields["master.commitlog"]) - set(c.fields["slave1.commitlog"])
    e = explain("replication_can_catch_up", props["replication_can_catch_up"].trace, model)
    assert e.summary.startswith("from this state no path leads to one where every live slave holds exactly")
    for c in e.failed:
        assert c.fields["slave1.up"] is True and c.fields["slave1.commitlog"] != c.fields["master.commitlog"]


def test_conditions_match_the_compiled_checks_with_files_and_retention():
    """Retention: a sample of a space where files are deleted, slaves start at the master's last file and
    the properties read offsets rather than list positions."""
    knobs = {"messages": 2, "commitlog_file_messages": 1, "max_file_deletions": 1, "max_master_crashes": 0}
    model, states, _ = explored(tuple(knobs.items()))
    assert len(states) == 321395
    seen = compare_states(model, states[::100])
    for name in ("acked_message_never_lost", "replicas_agree", "replication_can_catch_up"):
        assert seen[name] == {True, False}, name
