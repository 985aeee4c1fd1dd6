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
from explore.local import LocalExplorer
from explore.run_control import Limits
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
    n = int(ex.store.io["count"])
    out = [ex.store.states[:n].copy(), ex.store.parent[:n].copy(), ex.store.via[:n].copy()]
    if ex.graph:
        out += [ex.store.edges[:int(ex.store.io["edges"])].copy(), ex.store.goal[:n].copy()]
        if ex.labels:
            out.append(ex.store.edge_act[:int(ex.store.io["edges"])].copy())
        if not ex.incomplete and ex.error is None:   # a stopped level's rows are not kept
            out.append(ex.store.row_start[:n + 1].copy())
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


@pytest.mark.parametrize("case", ["twophase-5", "default-1msg", "retention"])
def test_blocks_wider_than_a_round_move_their_states_with_everything_that_names_them(monkeypatch, case):
    # each thread takes 500 indices at once, far more than a round of 37-state slices files: most of a
    # round's states sit after its threads' holes and move into them (rows, table entries, parents, goal
    # and unexpanded flags, witness candidates, edges)
    from explore import threaded
    monkeypatch.setattr(threaded, "BLOCK", 500)
    moved = {"n": 0}
    real = threaded.close_blocks

    def close(stored, round_, slices, blocks, top, *rest):
        new = real(stored, round_, slices, blocks, top, *rest)
        count = round_[threaded.Round._fields.index("round_lo")]
        moved["n"] += min(top - new, new - count)
        return new

    monkeypatch.setattr(threaded, "close_blocks", close)
    make, props = CASES[case]
    same_for_every_thread_count(make(), props)
    assert moved["n"] > 1000


@pytest.mark.parametrize("viewed", [False, True])
def test_an_edge_list_grown_many_times_on_threads_holds_the_same_edges(monkeypatch, viewed):
    """The edge list starts tiny, so it grows in many rounds: in place, or (``viewed``: a view of it held
    elsewhere, so numpy will not move it) copied into a new list; each round's slices are placed by the
    threads."""
    from explore import visited as V
    make, props = CASES["default-1msg"]
    unpatched_ex, unpatched = run(make(), props, 1)   # its list never grows
    monkeypatch.setattr(V, "EDGES_START", 16)
    sizes, views = [], []
    real = V.VisitedStore.grow_edges

    def grow_edges(self, n_edges):
        if viewed:
            views.append(self.edges[:1])
        before = id(self.edges), len(self.edges)   # not the list itself: numpy would not resize it
        real(self, n_edges)
        if len(self.edges) != before[1]:
            sizes.append((len(self.edges), id(self.edges) == before[0]))

    monkeypatch.setattr(V.VisitedStore, "grow_edges", grow_edges)
    for threads in THREADS:
        ex, r = run(make(), props, threads)
        assert results(r) == results(unpatched), threads
        for mine, theirs in zip(visited(ex), visited(unpatched_ex)):
            assert np.array_equal(mine, theirs), threads
    assert len(sizes) > 3 * 8 and unpatched.stats.transitions > 16 << 8   # more than eight doublings a run
    assert all(in_place != viewed for _, in_place in sizes)


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


@pytest.mark.parametrize("viewed", [False, True])
def test_edge_actions_are_stored_alike_on_every_thread_count_and_match_the_model(monkeypatch, viewed):
    """With an eventually property selected the kernels keep each edge's action (through every growth of the
    edge list, in place or copied): the same on 1-3 threads, and what the model's successors say the k-th
    enabled action of each state is (explore.liveness.label_edges recomputes it from the model)."""
    from explore import visited as V
    from explore.liveness import label_edges
    monkeypatch.setattr(V, "EDGES_START", 16)
    real = V.VisitedStore.grow_edges
    views = []

    def grow_edges(self, n_edges):
        if viewed:
            views.append((self.edges[:1], self.edge_act[:1]))
        real(self, n_edges)

    monkeypatch.setattr(V.VisitedStore, "grow_edges", grow_edges)
    model = rocketmq(messages=1)
    props = PROPERTIES.select(["acked_message_eventually_consumed", "committed_offset_never_regresses"])
    ex, _ = run(model, props, 1)
    assert ex.labels
    same_for_every_thread_count(model, props)
    n, e = ex.store.count, int(ex.store.io["edges"])
    recomputed = np.full(e, -1, dtype=np.int16)
    nact = len(model.actions())
    out, oflags = np.zeros((nact, model.words), dtype=np.uint64), np.zeros(nact, dtype=np.int64)
    assert label_edges(model.successors, model.params, ex.store.states[:n], 0, n, ex.store.row_start, recomputed,
                       out, oflags) == -1
    assert np.array_equal(ex.store.edge_act[:e], recomputed) and e > 16 << 8


def test_one_state_per_level_and_empty_slices():
    # 1 state per level, 3 threads: two slices of every round are empty
    same_for_every_thread_count(Counter(40, k=100), COUNTER_PROPERTIES, parallel_from=1)


def test_default_round_sizes_agree_too():
    same_for_every_thread_count(rocketmq(messages=1), PROPERTIES, slice_states=None, parallel_from=None)



def test_the_table_grows_on_every_thread_count(monkeypatch):
    # the smallest table: it doubles several times, the threads filing a range of states each at once
    from explore import visited as V
    monkeypatch.setattr(V, "TABLE_START", 64)
    grown = {"n": 0}
    real = V.VisitedStore.grow_table

    def grow(self, team=None):
        grown["n"] += 1
        real(self, team)

    monkeypatch.setattr(V.VisitedStore, "grow_table", grow)
    r = same_for_every_thread_count(rocketmq("two-slaves", max_master_crashes=0, max_master_power_losses=0),
                                    PROPERTIES)
    assert grown["n"] >= 3 * len(THREADS) and r.stats.distinct_states > 8 * V._region_start(1)

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
    real = LocalExplorer.report

    def report(self, *a):
        calls["n"] += 1
        if calls["n"] == 3:
            stop.request("interrupted (test)")
        return real(self, *a)

    monkeypatch.setattr(LocalExplorer, "report", report)
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


@pytest.mark.parametrize("words", [1, 2])
def test_closing_blocks_moves_the_states_after_the_holes_into_them(words):
    # a round from index 10 on two threads: thread 0 used 10-11 of its block [10, 14); thread 1 used all
    # of [14, 18) and 18 of [18, 22). Holes 12-13 and 19-21: the state count is 17, and the states 17
    # and 18 move into 12 and 13, with their table entries and everything else that names them
    from explore import threaded as P
    count, top, slots_n = 10, 22, 64
    states = np.zeros((32, words), dtype=np.uint64)
    states[count:top, 0] = np.arange(100, 100 + top - count, dtype=np.uint64)
    table = np.zeros(slots_n * (2 if words == 1 else 1), dtype=np.uint64)
    slots = np.arange(count, top, dtype=np.int64) * 2   # state j filed at slot 2j
    for j in range(count, top):
        K._put(table, words, np.int64(2 * j), np.uint64(7), j)
    goal = np.zeros(32, dtype=np.uint8)
    noexp = np.zeros(32, dtype=np.uint8)
    goal[17], noexp[18] = 3, 1
    from explore import counters
    blocks = counters.new(counters.BLOCK, 2)
    blocks[0]["next"], blocks[0]["end"] = 12, 14
    blocks[1]["next"], blocks[1]["end"] = 19, 22
    best = np.arange(top - count, dtype=np.int64) + 1000
    wit_thread = np.full((2, 64 + 16), -1, dtype=np.int64)
    wit_thread[0, 5], wit_thread[1, 0], wit_thread[1, 1] = 18, 11, 17
    capacity = 4
    edges_t = np.zeros(2 * capacity, dtype=np.int64)
    slices = counters.new(counters.SLICE, 2)
    edges_t[:3], slices[0]["edges"] = (17, 5, 18), 3
    edges_t[capacity:capacity + 2], slices[1]["edges"] = (16, 17), 2
    moves = np.empty((2, 2 * 64), dtype=np.int64)

    round_ = tuple(P.Round(np.zeros(2, dtype=np.int64), capacity, wit_thread, wit_thread, wit_thread, 0, edges_t,
                           np.zeros(1, dtype=np.int16), best, slots, count, np.zeros(1, dtype=np.int64), 1, 0, 1))
    # (only edges, best, slots, round_lo, graph and leaves are read)
    new = P.close_blocks((states, table, goal, noexp), round_, slices, blocks, top, moves, wit_thread)

    assert new == 17
    assert list(states[count:new, 0]) == [100, 101, 107, 108, 104, 105, 106]
    assert list(best[:new - count]) == [1000, 1001, 1007, 1008, 1004, 1005, 1006]
    assert list(slots[:new - count]) == [20, 22, 34, 36, 28, 30, 32]
    for k, j in enumerate(range(count, new)):   # every entry points at its state's place
        slot = slots[k]
        index = table[2 * slot + 1] if words == 1 else table[slot] & K.LOW32
        assert int(index) - 1 == j
    assert (goal[12], noexp[13]) == (3, 1)
    assert (wit_thread[0, 5], wit_thread[1, 0], wit_thread[1, 1]) == (13, 11, 12)
    assert list(edges_t[:3]) == [12, 5, 13] and list(edges_t[capacity:capacity + 2]) == [16, 12]


@pytest.mark.parametrize("words, first_word_values", [(1, 1000), (2, 5), (2, 400), (3, 3), (3, 2000)])
def test_the_level_sort_orders_by_every_word_as_signed_integers(words, first_word_values):
    # few first-word values: long runs of equal first words (sorted by the other words); many: short
    # runs (insertion sort); words with the top bit set order first, as signed integers
    from explore import threaded as P
    rng = np.random.default_rng(words * first_word_values)
    rows = rng.integers(0, 1 << 63, size=(3000, words), dtype=np.uint64)
    rows[:, 0] = rng.integers(0, first_word_values, size=3000).astype(np.uint64) << np.uint64(50)
    rows[::7, -1] |= np.uint64(1 << 63)
    rows = np.unique(rows, axis=0)
    lo = 5
    states = np.vstack([np.zeros((lo, words), dtype=np.uint64), rows])
    segment = rng.permutation(len(rows)).astype(np.int64)
    P.sort_bucket(states, lo, segment)
    expected = np.lexsort(tuple(rows[:, i].view(np.int64) for i in reversed(range(words))))
    assert np.array_equal(segment, expected)


def test_a_grown_table_is_touched_page_by_page_before_it_is_filed():
    """Every 4 KiB page of a new table is written once, with the zero it holds, whichever thread takes it
    (the pattern shows which words were written)."""
    from explore import threaded as P
    from explore.rounds import PAD
    from explore.team import ThreadTeam

    table = np.ones(3 * P.TOUCH_CHUNK + 700, dtype=np.uint64)   # not a whole chunk at the end
    counter = np.zeros(PAD, dtype=np.int64)
    team = ThreadTeam(3)
    try:
        team.run(lambda t: P.touch_pages(table, counter))
    finally:
        team.close()
    written = np.flatnonzero(table == 0)
    assert np.array_equal(written, np.arange(0, len(table), P.PAGE_WORDS))


def test_a_grown_table_lets_the_old_one_go_at_once(monkeypatch):
    """Nothing holds the table a growth replaces (the threads' level sort once kept it until the level's
    end, 128 MiB more at the peak of bench on two threads)."""
    import weakref

    from explore import visited as V
    monkeypatch.setattr(V, "TABLE_START", 64)
    real = V.VisitedStore.grow_table
    alive_after = []

    def grow(self, team=None):
        old = weakref.ref(self.table)
        real(self, team)
        alive_after.append(old() is not None)

    monkeypatch.setattr(V.VisitedStore, "grow_table", grow)
    explorer = LocalExplorer(TwoPhase(5), TWOPHASE_PROPERTIES, threads=2, parallel_from=1, slice_states=64)
    explorer.run()
    assert len(alive_after) >= 3 and not any(alive_after)
