"""The compact visited set (``visited="compact"``, ``check --compact``; explore/compact.py) against the exact
store: the same configuration gives the same distinct states, transitions, depth, levels, verdicts and
shortest traces, on every small pinned configuration of every mode (tests/tooling/pinned.toml); explored
whole (no property) it gives the pinned counts; with the graph and eventually properties (the default
selection) their verdicts and lassos are the exact store's too, decided over the graph on disk."""
from __future__ import annotations

import os

import pytest

import invariants
from explore.compact import collision_probability
from explore.local import LocalExplorer
from invariants.base import EVENTUALLY, GRAPH
from model.modes import get_mode
from tests.tooling.pinned import load, model_of

SMALL = [e for e in load().values() if not e.large]


def trace_of(t):
    return None if t is None else [(s.action, s.state) for s in t.steps]


def signature(r):
    """Everything a run answers but its timings and memory."""
    s = r.stats
    return {"counts": (s.distinct_states, s.transitions, s.depth), "levels": s.levels, "outcome": r.outcome,
            "incomplete": r.incomplete_reason, "stopped": s.stop_reason, "unexpanded": s.unexpanded,
            "coverage": s.coverage, "terminal_states": s.terminal_states, "pruned": s.pruned_reasons,
            "verdicts": [(p.name, p.status, p.note, trace_of(p.trace)) for p in r.properties],
            "terminal": trace_of(r.terminal_trace)}


def run(model, props, visited, threads=1, **kw):
    return LocalExplorer(model, props, threads=threads, visited=visited, **kw).run()


#: two threads with every level of more than one state in rounds of small slices (explore/compact_rounds.py):
#: the pinned configurations' levels are too small for the default thresholds
ROUNDS = dict(threads=2, slice_states=16, parallel_from=2)
#: the rounds of 16-state slices cost a thread wait each: two threads on the configurations under this size
#: (the larger ones' levels go through the same rounds; the default preset's test below runs them whole); 30,000
#: since the quorum's and the ranking's entries of 70,000-90,000 states took 15-30 s each in CI's 20 minutes
ROUNDS_UNDER = 30_000


@pytest.mark.parametrize("entry, threads", [(e, 1) for e in SMALL] +
                         [(e, 2) for e in SMALL if e.distinct_states < ROUNDS_UNDER],
                         ids=lambda x: x.name if hasattr(x, "name") else str(x))
def test_compact_answers_as_exact_on_the_pinned_configurations(entry, threads):
    # the safety properties (always and sometimes): what the compact set serves; against the exact store on
    # one thread, the compact set on one thread and on two (every level in rounds)
    props = get_mode(entry.mode_name).properties
    safety = props().without([GRAPH, EVENTUALLY])
    kw = ROUNDS if threads == 2 else {}
    exact = run(model_of(entry), safety, "exact")
    compact = run(model_of(entry), safety, "compact", **kw)
    assert compact.stats.visited == "compact" and not compact.stats.visited_note
    assert exact.stats.visited == "exact"
    assert signature(compact) == signature(exact)
    assert {p.name: p.status for p in compact.properties} == {k: v for k, v in entry.verdicts.items()
                                                              if k in safety.names()}
    if compact.stats.stop_reason is None:   # explored whole: the pinned size
        assert (compact.stats.distinct_states, compact.stats.transitions, compact.stats.depth) == entry.counts
    # explored whole with no property: the pinned counts, whatever the properties would have stopped
    whole = run(model_of(entry), props().only([]), "compact", **kw)
    assert (whole.stats.distinct_states, whole.stats.transitions, whole.stats.depth) == entry.counts
    words = model_of(entry).words
    assert compact.stats.exact == (words == 1)
    assert compact.stats.collision_probability == collision_probability(compact.stats.distinct_states, words)


def test_compact_gives_back_the_pages_of_expanded_levels_and_writes_the_links_to_disk():
    import os
    from model import RocketMQModel, preset
    ex = LocalExplorer(RocketMQModel(preset("default")), invariants.PROPERTIES.only([]), visited="compact")
    r = ex.run()
    assert r.stats.distinct_states == 657921
    # every level but the last two (frontier and the one filed from it) and the initial states is given back
    assert ex.store.released_to == ex.level_starts[ex.level]
    assert ex.store.released_to > r.stats.distinct_states // 2
    # every parent link went to disk (6 bytes a state), every level's states to its level file (8 bytes a
    # word, and a pad each: explore/compact_dir.py), and the files are gone once the result is built
    n = r.stats.distinct_states
    assert ex.store.links.rows == n and r.stats.disk_bytes == 6 * n + ex.levels.wd.level_bytes
    assert 8 * n <= ex.levels.wd.level_bytes < 8 * n + (1 << 16) * len(r.stats.levels)
    assert not os.path.exists(ex.store.links.dir)
    with pytest.raises(RuntimeError, match="keeps no old state"):
        ex.stored_states()


def test_a_disk_refusing_the_links_ends_the_run_incomplete_with_real_traces(monkeypatch):
    from explore.compact import LinkFiles
    entry = load()["no-slave-one-power-loss"]
    calls = []

    def full(self, parent, via):
        calls.append(len(parent))
        if len(calls) > 2:
            raise OSError(28, "No space left on device")
        return real(self, parent, via)

    real = LinkFiles.append
    monkeypatch.setattr(LinkFiles, "append", full)
    props = invariants.PROPERTIES.without([GRAPH, EVENTUALLY])
    r = run(model_of(entry), props, "compact")
    assert r.outcome in ("incomplete", "violated")
    assert "No space left on device" in r.incomplete_reason and "TMPDIR" in r.incomplete_reason
    assert "the parent links" in r.incomplete_reason
    exact = run(model_of(entry), props, "exact")
    for p in r.properties:   # what was found before the disk filled is what the exact search found
        if p.trace is not None:
            assert trace_of(p.trace) == trace_of(exact.property(p.name).trace)


#: the default selection's passes on both stores: every small pinned configuration under this size on one
#: thread (the larger ones' graphs go through the same files and passes; CI's 20 minutes), and on two threads
#: the ones under GRAPH_ROUNDS_UNDER (every level in rounds of 16-state slices)
GRAPH_UNDER, GRAPH_ROUNDS_UNDER = 300_000, 20_000


@pytest.mark.parametrize("entry, threads", [(e, 1) for e in SMALL if e.distinct_states < GRAPH_UNDER] +
                         [(e, 2) for e in SMALL if e.distinct_states < GRAPH_ROUNDS_UNDER],
                         ids=lambda x: x.name if hasattr(x, "name") else str(x))
def test_compact_decides_the_graph_and_eventually_properties_as_exact(entry, threads):
    # the default selection (graph and eventually properties too): their passes run over the graph the compact
    # search wrote to disk (explore/compact_graph.py); the same verdicts, lassos and traces as the exact store
    props = get_mode(entry.mode_name).properties()
    assert any(p.kind in (GRAPH, EVENTUALLY) for p in props)
    kw = ROUNDS if threads == 2 else {}
    exact = run(model_of(entry), props, "exact")
    ex = LocalExplorer(model_of(entry), props, visited="compact", **kw)
    compact = ex.run()
    assert compact.stats.visited == "compact" and not compact.stats.visited_note
    assert signature(compact) == signature(exact)
    assert [p.loop_start for p in compact.properties] == [p.loop_start for p in exact.properties]
    assert {p.name: p.status for p in compact.properties} == entry.verdicts
    assert (compact.stats.distinct_states, compact.stats.transitions, compact.stats.depth) == entry.counts
    assert compact.stats.disk_bytes > 6 * compact.stats.distinct_states + 14 * compact.stats.transitions
    assert not os.path.exists(ex.store.links.dir)   # the graph's files went with the links'


def test_compact_rounds_ended_early_by_a_full_transition_buffer_record_the_graph_as_one_thread(monkeypatch):
    import explore.compact_graph as CG
    entry = load()["files"]   # replication_can_catch_up and an eventually property violated: traces and a lasso
    props = get_mode(entry.mode_name).properties()
    one = run(model_of(entry), props, "compact")
    monkeypatch.setattr(CG, "ROUND_EDGES_PER_STATE", 1)   # a slice records one transition a state: fills often
    ex = LocalExplorer(model_of(entry), props, visited="compact", threads=2, slice_states=64, parallel_from=16)
    two = ex.run()
    assert ex.rounds is not None and ex.rounds.short_rounds > 0
    assert signature(two) == signature(one)
    assert any(p.status == "violated" and p.loop_start is not None for p in two.properties)


def test_the_compact_graph_is_refused_when_its_passes_would_not_fit_and_the_rest_is_decided():
    from explore.compact_graph import PASS_BYTES
    entry = load()["two-queues"]
    props = invariants.PROPERTIES
    exact = run(model_of(entry), props, "exact")
    said = []

    class Listener:   # as the CLI's: progress, and one line said at once on stderr
        def on_progress(self, progress):
            pass

        def say(self, text):
            said.append(text)

    # a budget the search fits in and the passes over the whole graph do not
    r = run(model_of(entry), props, "compact", memory_budget=PASS_BYTES, listener=Listener())
    assert not r.incomplete_reason and r.stats.distinct_states == exact.stats.distinct_states
    assert len(said) == 1 and said[0].startswith("note: not decided") and "the search goes on" in said[0]
    for p in r.properties:
        if p.kind in (GRAPH, EVENTUALLY):
            assert p.status == "unknown" and "would need at least" in p.note and "of memory" in p.note, p.note
        else:
            assert (p.status, trace_of(p.trace)) == (exact.property(p.name).status,
                                                     trace_of(exact.property(p.name).trace))


@pytest.mark.parametrize("props", ["safety", "none"])
def test_compact_on_two_threads_answers_as_one_thread_and_as_exact(props):
    from model import RocketMQModel, preset
    chosen = invariants.PROPERTIES.without([GRAPH, EVENTUALLY]) if props == "safety" else invariants.PROPERTIES.only([])
    model = RocketMQModel(preset("default"))   # levels of up to 47,091 states: rounds on two threads
    exact = run(model, chosen, "exact")
    one = run(model, chosen, "compact")
    for kw in (dict(threads=2), dict(threads=2, slice_states=256, parallel_from=64)):
        ex = LocalExplorer(model, chosen, visited="compact", **kw)
        two = ex.run()
        assert ex.threads == 2 and ex.rounds is not None
        assert two.stats.visited == "compact" and not two.stats.visited_note
        assert signature(two) == signature(one) == signature(exact)
    if props == "none":
        assert one.stats.distinct_states == 657921


def test_compact_rounds_ended_early_by_a_full_buffer_answer_as_one_thread(monkeypatch):
    import explore.compact_rounds as CR
    from model import RocketMQModel, preset
    model = RocketMQModel(preset("default"))
    props = invariants.PROPERTIES.without([GRAPH, EVENTUALLY])
    one = run(model, props, "compact")
    monkeypatch.setattr(CR, "BUFFER_PER_STATE", 1)   # a buffer of one successor a state fills up often
    ex = LocalExplorer(model, props, visited="compact", threads=2, slice_states=64, parallel_from=16)
    two = ex.run()
    assert ex.rounds.short_rounds > 0
    assert signature(two) == signature(one)


def test_compact_rounds_stop_at_the_state_limit_as_one_thread_does():
    from explore.run_control import Limits
    from model import RocketMQModel, preset
    model = RocketMQModel(preset("default"))
    props = invariants.PROPERTIES.only([])
    for limit in (1000, 40000):
        runs = [LocalExplorer(model, props, Limits(max_states=limit), visited=v, **kw).run()
                for v, kw in (("exact", {}), ("compact", {}), ("compact", dict(threads=2, slice_states=64,
                                                                                  parallel_from=16)))]
        assert runs[0].outcome == "incomplete" and "state limit" in runs[0].incomplete_reason
        assert signature(runs[1]) == signature(runs[0]) == signature(runs[2])


def test_collision_probability_is_the_birthday_bound():
    assert collision_probability(10**6, 1) == 0.0   # one word: the fingerprint is a bijection
    assert collision_probability(1, 2) == 0.0
    assert collision_probability(2**20, 2) == pytest.approx(2.0 ** 40 / 2 ** 65, rel=1e-5)
    assert collision_probability(2**40, 5) == 1.0


def test_an_unknown_visited_set_is_refused():
    from model import RocketMQModel, preset
    with pytest.raises(ValueError, match="visited"):
        LocalExplorer(RocketMQModel(preset("default")), invariants.PROPERTIES, visited="fingerprints")


def test_an_allocation_failing_in_the_compact_graph_passes_leaves_those_properties_unknown(monkeypatch):
    import explore.compact_graph as CG
    entry = load()["two-queues"]

    def short(*args):
        raise MemoryError

    monkeypatch.setattr(CG.CompactGraph, "_graph_properties", short)
    r = run(model_of(entry), invariants.PROPERTIES, "compact")
    assert not r.incomplete_reason   # the search was whole: only these properties are not decided
    for p in r.properties:
        if p.kind in (GRAPH, EVENTUALLY):
            assert p.status == "unknown" and "out of memory deciding them" in p.note, p.note
        else:
            assert p.status == entry.verdicts[p.name]
