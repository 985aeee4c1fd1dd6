"""Hypothesis: random action sequences through the model, from every preset and from random small
configurations. Along every walk the kernel never reports a model error, its successors are deterministic
and in the fixed action order, the readable view round-trips, and states stay canonical (strict packing:
every field fits its width, fields absent from the configuration stay 0). Fingerprints are the same in a
fresh process. On every state and transition of the walks, the compiled property checks agree with the
properties' plain-Python reading over the view (:mod:`invariants.readable`).
"""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from handbuilt import model
from invariants import PROPERTIES, readable
from invariants.rocketmq import AVAILABILITY_WITNESSES
from model import Config, RocketMQModel
from model.actions import actions_for
from model.config import PRESETS
from model.params import ACTION_STRIDE, K_ACTIONS_AT

WALK = st.lists(st.integers(min_value=0, max_value=2**16), min_size=1, max_size=40)
ERROR = 2


def preset_model(name: str) -> RocketMQModel:
    return model(**PRESETS[name])


def check_state(m: RocketMQModel, s: tuple[int, ...]) -> None:
    """The state is canonical and its view round-trips."""
    assert len(s) == m.words and all(0 <= w < 2**64 for w in s)
    assert tuple(int(x) for x in m.pack_vector(m.unpack_state(s))) == s      # strict: raises if not canonical
    assert m.encode(m.view(s)) == s
    assert m.fingerprint(s) == m.fingerprint(tuple(s))


def check_properties(m: RocketMQModel, s: tuple[int, ...], step: tuple | None = None) -> None:
    """The compiled checks of state ``s`` (and of the transition ``step = (source, action, flags)`` that
    reached it) give what the plain-Python predicates say on the views."""
    view = m.view(s)
    state = np.asarray(s, dtype=np.uint64)
    bits = int(PROPERTIES.state_check(state, m.params))
    for p in PROPERTIES:
        if p.on_transitions or p.kind == "eventually":   # P and Q masks, not a state bit: test_explain.py
            continue
        plain = readable.STATE[p.name](view, m.config)
        assert bool(bits & p.mask) == (not plain if p.kind == "always" else plain), (p.name, view)
    if step is None:
        return
    source, action, flags = step
    tbits = int(PROPERTIES.transition_check(np.asarray(source, dtype=np.uint64), flags, state, m.params))
    for p in AVAILABILITY_WITNESSES:   # every property and the faults-only witnesses
        if p.on_transitions:
            plain = readable.TRANSITION[p.name](m.view(source), action, m.describe_outcome(flags), view, m.config)
            assert bool(tbits & p.mask) == plain, (p.name, str(action), m.view(source), view)


def walk(m: RocketMQModel, choices: list[int]) -> list[tuple[int, ...]]:
    """Fire one enabled action per choice; check every expansion on the way. Returns the states visited."""
    acts = m.actions()
    s = m.initial()[0]
    visited = [s]
    check_state(m, s)
    check_properties(m, s)
    for choice in choices:
        out, flags = m.expand(s)
        out2, flags2 = m.expand(s)
        assert np.array_equal(out, out2) and np.array_equal(flags, flags2), "successors are not deterministic"
        errors = [f"{acts[a]}: {m.describe_outcome(int(flags[a]))}" for a in range(len(acts)) if flags[a] & ERROR]
        assert not errors, f"model error in {m.view(s)}: {errors}"
        enabled = m.enabled(s)
        assert [acts.index(a) for a, _, _ in enabled] == [a for a in range(len(acts)) if flags[a] & 1]
        for a, nxt, f in enabled:
            assert nxt != s, f"{a} is enabled but changes nothing (a stuttering step)"
            assert m.next_state(s, a) == nxt
        if not enabled:
            break
        source = s
        action, s, f = enabled[choice % len(enabled)]
        check_state(m, s)
        if not m.mutation:
            check_properties(m, s, (source, action, f))
        visited.append(s)
    return visited


def test_action_table_is_the_fixed_order():
    for name in PRESETS:
        m = preset_model(name)
        assert m.actions() == actions_for(m.config)
        at = int(m.params[K_ACTIONS_AT])
        n = int(m.params[at])
        table = [tuple(int(x) for x in m.params[at + 1 + ACTION_STRIDE * i: at + 1 + ACTION_STRIDE * (i + 1)])
                 for i in range(n)]
        assert table == [a.code() for a in m.actions()]
        assert len({str(a) for a in m.actions()}) == n, "two actions share a label"


@settings(deadline=None, max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(PRESETS)), choices=WALK)
def test_random_walks_from_every_preset(name, choices):
    walk(preset_model(name), choices)


SMALL = st.fixed_dictionaries({
    "broker_role": st.sampled_from(["ASYNC_MASTER", "SYNC_MASTER"]),
    "flush_disk_type": st.sampled_from(["ASYNC_FLUSH", "SYNC_FLUSH"]),
    "slave_read_enable": st.booleans(),
    "slave_read_enable_in_slaves": st.sampled_from(["AS_MASTER", "FALSE", "TRUE"]),
    "offset_check_in_slave": st.booleans(),
    "slaves": st.integers(0, 2),
    "consumers": st.integers(1, 2),
    "messages": st.integers(1, 4),
    "queues": st.integers(1, 2),
    "max_master_crashes": st.integers(0, 1),
    "max_master_power_losses": st.integers(0, 2),
    "max_slave_crashes": st.integers(0, 1),
    "max_slave_power_losses": st.integers(0, 1),
    "max_consumer_restarts": st.integers(0, 1),
    "max_ha_disconnects": st.integers(0, 1),
    "monotonic_commit": st.booleans(),
    "sync_offsets_max": st.booleans(),
    "reverse_offset_sync": st.booleans(),
    "overflow_to_max": st.booleans(),
    "validate_slave_ack": st.booleans(),
})


@st.composite
def small_configs(draw):
    knobs = draw(SMALL)
    knobs["group_broker_id"] = draw(st.integers(0, knobs["slaves"]))
    knobs["which_broker_when_consume_slowly"] = draw(st.integers(0, knobs["slaves"]))
    knobs["consume_slowly_backlog"] = draw(st.integers(0, knobs["messages"]))
    return knobs


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(knobs=small_configs(), choices=WALK)
def test_random_walks_from_random_small_configs(knobs, choices):
    walk(RocketMQModel(Config.from_mapping(knobs), strict=True), choices)


@settings(deadline=None, max_examples=10)
@given(choices=WALK)
def test_same_walk_same_states_in_a_new_model(choices):
    """Building the model again (same config) gives the same states along the same choices."""
    first = walk(preset_model("bench"), choices)
    again = walk(RocketMQModel(Config.from_mapping(PRESETS["bench"]), strict=True), choices)
    assert first == again


# --- fingerprints in a fresh process ---------------------------------------------------------------------
FRESH = """
import json, sys
from model import Config, RocketMQModel
request = json.load(sys.stdin)
m = RocketMQModel(Config.from_mapping(request["knobs"]), strict=True)
print(json.dumps([m.fingerprint(tuple(s)) for s in request["states"]]))
"""


def test_fingerprints_are_the_same_in_a_fresh_process():
    knobs = PRESETS["bench"]
    m = preset_model("bench")
    rng = np.random.default_rng(7)
    states = walk(m, [int(x) for x in rng.integers(0, 2**16, size=30)])[::3]
    assert len(set(states)) > 3
    here = [m.fingerprint(s) for s in states]
    assert len(set(here)) == len(set(states))
    done = subprocess.run([sys.executable, "-c", FRESH], input=json.dumps({"knobs": knobs, "states": states}),
                          capture_output=True, text=True, timeout=300, check=True,
                          cwd=Path(__file__).resolve().parents[2])
    assert json.loads(done.stdout) == here
