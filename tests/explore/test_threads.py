"""The local engine on several threads gives exactly the results of one thread.

Every run here forces the threaded rounds on small levels (``parallel_from``) and cuts each level into
many rounds (``slice_states``), so a state is often found again in a later round than the one that
stored it, and owners meet candidates from every thread. Compared: the stored states in order, their
parents, actions and edge lists (the visited set itself), and every result: counts, levels, verdicts,
traces, witnesses, coverage, pruned counts, the terminal trace.
"""
from __future__ import annotations

import numpy as np
import pytest

from explore import kernel as K
from explore import stop
from explore.faults import FaultAnalysis
from explore.local import Limits, LocalExplorer
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase
from invariants import PROPERTIES
from model import Config, RocketMQModel, preset

THREADS = (1, 2, 3)


def rocketmq(name: str = "default", mutation: str | None = None, **knobs) -> RocketMQModel:
    return RocketMQModel(Config.from_mapping(knobs, base=preset(name)), mutation=mutation)


def run(model, props, threads, limits=Limits(), **kw):
    ex = LocalExplorer(model, props, limits, threads=threads, slice_states=kw.pop("slice_states", 37),
                       parallel_from=kw.pop("parallel_from", 8), **kw)
    return ex, ex.run()


def visited(ex) -> list[np.ndarray]:
    n = int(ex.io[K.IO_COUNT])
    out = [ex.states[:n].copy(), ex.parent[:n].copy(), ex.via[:n].copy()]
    if ex.graph:
        out += [ex.edges[:int(ex.io[K.IO_EDGES])].copy(), ex.goal[:n].copy()]
        if not ex.incomplete and ex.error is None:   # a stopped level's rows are not kept
            out.append(ex.row_start[:n + 1].copy())
    return out


def results(r) -> dict:
    s = r.stats
    return {
        "outcome": r.outcome, "incomplete": r.incomplete_reason,
        "counts": (s.distinct_states, s.transitions, s.depth, s.unexpanded, s.terminal_states),
        "levels": s.levels, "coverage": s.coverage, "pruned": (s.pruned_transitions, s.pruned_reasons),
        "stopped_early": (s.stopped_early, s.stop_reason),
        "properties": [(p.name, p.status, p.trace and [(st.action, tuple(st.state)) for st in p.trace.steps])
                       for p in r.properties],
        "terminal": r.terminal_trace and [(st.action, tuple(st.state)) for st in r.terminal_trace.steps],
        "error": r.error and (r.error.message, r.error.action, len(r.error.trace.steps)),
    }


def same_for_every_thread_count(model, props, limits=Limits(), **kw):
    ref_ex, ref = run(model, props, 1, limits, **kw)
    for threads in THREADS[1:]:
        ex, r = run(model, props, threads, limits, **kw)
        assert results(r) == results(ref), threads
        for mine, theirs in zip(visited(ex), visited(ref_ex)):
            assert np.array_equal(mine, theirs), threads
    return ref


CASES = {
    "twophase-5": (lambda: TwoPhase(5), TWOPHASE_PROPERTIES),
    "default-1msg": (lambda: rocketmq(messages=1), PROPERTIES),
    "sync-master-1msg": (lambda: rocketmq("sync-master", messages=1), PROPERTIES),
    "two-slaves-no-master-failure": (lambda: rocketmq("two-slaves", max_master_crashes=0, max_master_power_losses=0),
                                     PROPERTIES),
    "retention": (lambda: rocketmq("retention", messages=2, consumers=1, max_master_crashes=0,
                                   max_master_power_losses=0), PROPERTIES),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_thread_count_explores_the_same_graph_with_the_same_results(case):
    make, props = CASES[case]
    ref = same_for_every_thread_count(make(), props)
    assert ref.stats.distinct_states > 1000 and ref.stats.depth > 5   # big enough to need many rounds


def test_exhaustive_runs_keep_the_same_edges_and_fault_analysis():
    def summaries(threads):
        a = FaultAnalysis(rocketmq(messages=1), PROPERTIES, threads=threads).run()
        return [(s.name, s.violated, s.breaking) for s in a.summaries()], visited(a.explorer)

    ref, ref_arrays = summaries(1)
    assert any(v for _, v, _ in ref)
    for threads in THREADS[1:]:
        mine, arrays = summaries(threads)
        assert mine == ref
        assert all(np.array_equal(x, y) for x, y in zip(arrays, ref_arrays))


def test_one_state_per_level_and_empty_slices():
    # 1 state per level, 3 threads: two slices of every round are empty
    same_for_every_thread_count(Counter(40, k=100), COUNTER_PROPERTIES, parallel_from=1)


def test_default_round_sizes_agree_too():
    same_for_every_thread_count(rocketmq(messages=1), PROPERTIES, slice_states=None, parallel_from=None)



def test_the_table_grows_on_every_thread_count(monkeypatch):
    # the smallest table: it doubles several times, the threads filing a range of states each at once
    from explore import local as L
    monkeypatch.setattr(L, "TABLE_START", 64)
    grown = {"n": 0}
    real = LocalExplorer._grow_table

    def grow(self):
        grown["n"] += 1
        real(self)

    monkeypatch.setattr(LocalExplorer, "_grow_table", grow)
    r = same_for_every_thread_count(rocketmq("two-slaves", max_master_crashes=0, max_master_power_losses=0),
                                    PROPERTIES)
    assert grown["n"] >= 3 * len(THREADS) and r.stats.distinct_states > 8 * L._region_start(1)

# -- stops inside a level: the level is forgotten, whatever the thread count -----------------------------
def test_a_state_limit_stops_at_the_last_whole_level():
    full = run(TwoPhase(5), TWOPHASE_PROPERTIES, 1)[1]
    r = same_for_every_thread_count(TwoPhase(5), TWOPHASE_PROPERTIES, Limits(max_states=5000))
    assert r.outcome == "incomplete" and "state limit 5000" in r.incomplete_reason
    whole = [sum(full.stats.levels[:k]) for k in range(len(full.stats.levels) + 1)]
    assert r.stats.distinct_states in whole and r.stats.distinct_states <= 5000
    assert r.stats.levels == full.stats.levels[:len(r.stats.levels)]


def test_a_stop_request_inside_a_level_forgets_the_level(monkeypatch):
    calls = {"n": 0}
    real = LocalExplorer._report

    def report(self, *a):
        calls["n"] += 1
        if calls["n"] == 3:
            stop.request("interrupted (test)")
        return real(self, *a)

    monkeypatch.setattr(LocalExplorer, "_report", report)
    try:
        _, r = run(TwoPhase(6), TWOPHASE_PROPERTIES.select(["tc_consistent"]), 2, parallel_from=64,
                   slice_states=64)
    finally:
        stop.clear()
    assert r.outcome == "incomplete" and "interrupted (test)" in r.incomplete_reason
    assert r.stats.distinct_states == sum(r.stats.levels)
    full = run(TwoPhase(6), TWOPHASE_PROPERTIES.select(["tc_consistent"]), 1)[1]
    assert r.stats.levels == full.stats.levels[:len(r.stats.levels)]
    assert r.stats.transitions < full.stats.transitions


# -- model errors: the one a single thread meets first ---------------------------------------------------
def test_an_exception_in_model_code_is_reported_at_the_same_state():
    r = same_for_every_thread_count(Counter(40, raise_at=7), COUNTER_PROPERTIES, parallel_from=1)
    assert r.outcome == "error" and r.error.action == "Inc()" and len(r.error.trace.actions) == 7


def test_a_seeded_bug_is_found_on_threads_as_on_one():
    acked = PROPERTIES.select(["acked_message_never_lost"])
    knobs = dict(flush_disk_type="SYNC_FLUSH", messages=1)
    assert same_for_every_thread_count(rocketmq(**knobs), acked).outcome == "passed"
    r = same_for_every_thread_count(rocketmq(mutation="ack_without_flush", **knobs), acked)
    assert r.property("acked_message_never_lost").status == "violated"
