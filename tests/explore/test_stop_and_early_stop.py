"""Two ways a run ends before the space is exhausted, each said out loud: a stop requested from outside
(Ctrl-C, SIGTERM: incomplete, with the verdicts so far) and an early stop because every selected property
was settled (``stats.stopped_early`` and ``stats.stop_reason``)."""
from __future__ import annotations

import pytest

from explore import stop
from explore.local import Limits, LocalExplorer, explore
from explore.result import INCOMPLETE, PASSED, VIOLATED
from explore.toys.counter import COUNTER_PROPERTIES, Counter
from explore.toys.twophase import TWOPHASE_PROPERTIES, TwoPhase
from invariants import PROPERTIES
from model import Config, RocketMQModel
from reports.json_report import result_to_dict


@pytest.fixture(autouse=True)
def no_leftover_request():
    stop.clear()
    yield
    stop.clear()


class StopAfter:
    """A listener that asks for a stop after ``n`` progress reports, as the signal handler would."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.seen = 0

    def on_progress(self, progress) -> None:
        self.seen += 1
        if self.seen == self.n:
            stop.request("interrupted (SIGINT)")


def test_a_stop_request_ends_the_run_as_incomplete_within_a_chunk():
    full = explore(TwoPhase(6), TWOPHASE_PROPERTIES)
    r = LocalExplorer(TwoPhase(6), TWOPHASE_PROPERTIES, listener=StopAfter(3), chunk=256).run()
    assert r.outcome in (INCOMPLETE, VIOLATED)
    assert r.incomplete_reason == "interrupted (SIGINT)"
    assert r.stats.distinct_states < full.stats.distinct_states
    assert r.property("tc_consistent").status == "unknown"   # never "holds" from a partial space
    assert r.stats.stopped_early is False


def test_a_request_before_the_first_level_stops_at_once():
    stop.request("interrupted (SIGTERM)")
    r = explore(TwoPhase(4), TWOPHASE_PROPERTIES)
    assert r.outcome == INCOMPLETE and r.incomplete_reason == "interrupted (SIGTERM)"
    assert r.stats.depth == 0


def test_violations_found_before_the_stop_are_kept():
    r = LocalExplorer(Counter(60, k=5), COUNTER_PROPERTIES, listener=StopAfter(8)).run()
    assert r.incomplete_reason == "interrupted (SIGINT)"
    assert r.property("below_k").status == "violated" and r.outcome == VIOLATED


# -- early stop ------------------------------------------------------------------------------------------
def test_settling_every_property_early_is_said_in_the_stats_and_json():
    props = COUNTER_PROPERTIES.select(["below_k"])
    r = explore(Counter(50, k=5), props)
    assert r.outcome == VIOLATED
    s = r.stats
    assert s.stopped_early is True
    assert s.stop_reason == "every selected property was settled at depth 5; 1 state at that depth left unexpanded"
    assert s.depth == 5
    d = result_to_dict(r)["stats"]
    assert d["stopped_early"] is True and d["stop_reason"] == s.stop_reason


def test_an_exhausted_space_did_not_stop_early():
    """Mutation check: the same property, but k beyond the counter's reach: nothing is settled early, the
    whole space is explored, and the flag stays false."""
    r = explore(Counter(50, k=100), COUNTER_PROPERTIES.select(["below_k"]))
    assert r.outcome == PASSED
    assert r.stats.stopped_early is False and r.stats.stop_reason is None
    d = result_to_dict(r)["stats"]
    assert d["stopped_early"] is False and d["stop_reason"] is None


def test_a_graph_property_never_stops_early():
    r = explore(Counter(20, k=5), COUNTER_PROPERTIES)
    assert r.stats.stopped_early is False


def test_a_limit_is_not_an_early_stop():
    r = explore(Counter(50, k=100), COUNTER_PROPERTIES.select(["below_k"]), Limits(max_depth=3))
    assert r.outcome == INCOMPLETE and r.stats.stopped_early is False


def test_the_rocketmq_model_says_it_stopped_early():
    model = RocketMQModel(Config())
    r = explore(model, PROPERTIES.select(["replicas_agree"]))
    assert r.outcome == VIOLATED and r.stats.stopped_early
    assert r.stats.stop_reason.startswith(f"every selected property was settled at depth {r.stats.depth}")
