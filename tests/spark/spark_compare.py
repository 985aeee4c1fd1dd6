"""What "the engines agree" means: same counts, depth, verdicts and identical shortest traces."""
from __future__ import annotations

from explore.result import CheckResult


def assert_same_exploration(local: CheckResult, spark: CheckResult) -> None:
    assert spark.engine == "spark"
    assert (spark.stats.distinct_states, spark.stats.transitions, spark.stats.depth) == \
        (local.stats.distinct_states, local.stats.transitions, local.stats.depth)
    assert spark.stats.levels == local.stats.levels
    assert spark.stats.unexpanded == local.stats.unexpanded
    assert (spark.stats.stopped_early, spark.stats.stop_reason) == (local.stats.stopped_early, local.stats.stop_reason)
    # coverage, dead ends and pruned rows: counted in the shared step and by the canonical parent links
    assert spark.stats.coverage == local.stats.coverage
    assert spark.stats.terminal_states == local.stats.terminal_states
    assert (spark.stats.pruned_transitions, spark.stats.pruned_reasons) == \
        (local.stats.pruned_transitions, local.stats.pruned_reasons)
    if local.terminal_trace is None:
        assert spark.terminal_trace is None
    else:
        assert [s.state for s in spark.terminal_trace.steps] == [s.state for s in local.terminal_trace.steps]
    assert [p.note for p in spark.properties] == [p.note for p in local.properties]
    assert spark.outcome == local.outcome
    assert spark.verdicts() == local.verdicts()
    for lp in local.properties:
        sp = spark.property(lp.name)
        if lp.trace is None:
            assert sp.trace is None, lp.name
            continue
        assert sp.trace is not None, lp.name
        assert [s.action for s in sp.trace.steps] == [s.action for s in lp.trace.steps], lp.name
        assert [s.state for s in sp.trace.steps] == [s.state for s in lp.trace.steps], lp.name
MASTER = "local[2]"
