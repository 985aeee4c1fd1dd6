"""Shrinking simulation traces: shorter, still real, still violating, locally minimal, never below BFS."""
from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path

import pytest

from explore import explore
from explore.result import REACHED, S_VIOLATED
from explore.shrink import _Oracle, shrink, shrink_actions
from explore.simulate import WalkLimits, simulate
from explore.trace import replay
from invariants import PROPERTIES
from model import Config, RocketMQModel

sys.path.insert(0, str(Path(__file__).parent.parent / "cli"))
from cli_driver import SMALL, assert_bad_input, invoke  # noqa: E402


@functools.lru_cache(maxsize=None)
def default_model() -> RocketMQModel:
    return RocketMQModel(Config())


@functools.lru_cache(maxsize=None)
def walks():
    return simulate(default_model(), PROPERTIES, WalkLimits(walks=60, depth=60, seed=3))


@functools.lru_cache(maxsize=None)
def shortest():
    return {p.name: len(p.trace) for p in explore(default_model(), PROPERTIES).properties if p.trace is not None}


def found():
    return [p for p in walks().properties if p.trace is not None and p.status in (S_VIOLATED, REACHED)]


def test_shrunk_traces_are_real_shorter_still_hit_and_locally_minimal():
    model = default_model()
    assert len(found()) >= 3
    shrank_somewhere = False
    for p in found():
        prop = PROPERTIES.get(p.name)
        s = shrink(model, PROPERTIES, prop, p.trace)
        assert s.before == len(p.trace) and s.after == len(s.trace) <= s.before
        shrank_somewhere |= s.after < s.before
        actions = [st.action_index for st in s.trace.steps[1:]]
        # a real path: replaying the actions gives the same states
        again = replay(model, s.trace.steps[0].state, actions)
        assert [st.state for st in again.steps] == [st.state for st in s.trace.steps]
        oracle = _Oracle(model, PROPERTIES, prop, s.trace.steps[0].state)
        assert oracle.first_hit(actions) == len(actions)          # hit exactly at its last step
        for i in range(len(actions)):                             # no single step can be dropped
            assert oracle.first_hit(actions[:i] + actions[i + 1:]) is None, (p.name, i)
        # never shorter than the shortest trace BFS finds
        assert s.after >= shortest()[p.name]
    assert shrank_somewhere


def test_shrinking_is_deterministic():
    p = max(found(), key=lambda q: len(q.trace))
    prop = PROPERTIES.get(p.name)
    a = shrink(default_model(), PROPERTIES, prop, p.trace)
    b = shrink(default_model(), PROPERTIES, prop, p.trace)
    assert [s.state for s in a.trace.steps] == [s.state for s in b.trace.steps]


def test_a_trace_that_does_not_hit_the_property_is_refused():
    """The oracle is not vacuous: one step from the initial state loses no acknowledged message."""
    model = default_model()
    prop = PROPERTIES.get("acked_message_never_lost")
    root = model.initial()[0]
    first = model.actions().index(next(iter(model.enabled(root)))[0])
    with pytest.raises(ValueError, match="does not hit"):
        shrink_actions(model, PROPERTIES, prop, root, [first])


def test_an_expired_deadline_only_cuts_at_the_first_hit():
    p = max(found(), key=lambda q: len(q.trace))
    prop = PROPERTIES.get(p.name)
    actions = [s.action_index for s in p.trace.steps[1:]]
    best, calls = shrink_actions(default_model(), PROPERTIES, prop, p.trace.steps[0].state, actions,
                                 deadline=time.monotonic() - 1)
    assert calls == 1 and best == actions[:len(best)]


def test_simulate_command_says_how_far_each_trace_shrank(tmp_path):
    path = tmp_path / "s.json"
    r = invoke("simulate", *SMALL, "--walks", "30", "--depth", "40", "--json", str(path))
    assert r.exit_code == 1, r.output
    data = json.loads(path.read_text())
    for p in data["properties"]:
        if "trace" in p:
            assert f"{p['name']}: shrunk " in r.stdout
            assert "shrunk " in p["note"] and p["note"].endswith(f"-> {len(p['trace']) - 1} steps")
    assert "acked_message_never_lost: shrunk" in r.stdout


def test_simulate_max_seconds(tmp_path):
    assert_bad_input(invoke("simulate", *SMALL, "--max-seconds", "0"), "--max-seconds 0")
    r = invoke("simulate", *SMALL, "--walks", "100000", "--depth", "40", "--max-seconds", "1", "--quiet")
    assert r.exit_code in (1, 3), r.output
