"""Hand-built states and single steps of the RocketMQ model, for the kernel's unit and scenario tests.

A state is built as a readable view (``m.view(m.initial()[0])`` with some fields changed by name) and
encoded back; a step is checked by comparing views field by field, so a failure names the fields that
differ. Models are built strict (unused fields must stay 0) and cached per configuration: compiling the
kernel is shared by every configuration, building its parameters is cheap.
"""
from __future__ import annotations

import functools
from typing import Any, Iterable

import pytest

from model import Config, RocketMQModel
from model.actions import Action

#: no master failures: the smallest space, where only the actions under test matter
NO_FAILURES = dict(max_master_crashes=0, max_master_power_losses=0)


@functools.lru_cache(maxsize=None)
def _model(items: tuple[tuple[str, Any], ...]) -> RocketMQModel:
    return RocketMQModel(Config.from_mapping(dict(items)), strict=True)


def model(**knobs: Any) -> RocketMQModel:
    """The strict model of the 4.4 defaults with ``knobs`` applied (cached)."""
    return _model(tuple(sorted(knobs.items())))


def initial_view(m: RocketMQModel) -> dict[str, Any]:
    return m.view(m.initial()[0])


def build(m: RocketMQModel, base: dict[str, Any] | None = None, **fields: Any) -> tuple[int, ...]:
    """The packed state of ``base`` (default: the initial state) with ``fields`` changed.

    Field names contain dots and brackets, so they are given as a dict: ``build(m, **{"master.up": False})``.
    An unknown field name is an error (so a typo cannot silently build the wrong state).
    """
    view = dict(initial_view(m) if base is None else base)
    for name, value in fields.items():
        if name not in view:
            raise KeyError(f"no state field {name!r} in this configuration")
        view[name] = value
    return m.encode(view)


def changes(m: RocketMQModel, before: tuple[int, ...], after: tuple[int, ...]) -> dict[str, Any]:
    """``{field: new value}`` for every field that differs between two states."""
    b, a = m.view(before), m.view(after)
    return {k: a[k] for k in a if a[k] != b[k]}


def fire(m: RocketMQModel, state: tuple[int, ...], action: Action) -> tuple[tuple[int, ...], int]:
    """``(next state, flags)`` of an enabled action; fails the test, naming it, when it is disabled."""
    acts = list(m.actions())
    assert action in acts, f"{action} is not an action of {m!r}"
    a = acts.index(action)
    out, flags = m.expand(state)
    f = int(flags[a])
    assert not f & 2, f"{action} raised a model error: {m.describe_outcome(f)}"
    assert f & 1, f"{action} is not enabled in {m.view(state)}"
    return tuple(int(x) for x in out[a]), f


def effect(m: RocketMQModel, state: tuple[int, ...], action: Action) -> tuple[dict[str, Any], str]:
    """``(changed fields, outcome text)`` of firing an enabled action."""
    nxt, f = fire(m, state, action)
    return changes(m, state, nxt), m.describe_outcome(f)


def assert_effect(m: RocketMQModel, state: tuple[int, ...], action: Action, expected: dict[str, Any],
                  outcome: str | None = None) -> tuple[int, ...]:
    """Fire ``action`` and check that exactly the ``expected`` fields changed, to exactly those values."""
    nxt, f = fire(m, state, action)
    assert changes(m, state, nxt) == expected
    if outcome is not None:
        assert m.describe_outcome(f) == outcome
    return nxt


def assert_disabled(m: RocketMQModel, state: tuple[int, ...], action: Action) -> None:
    """The action is not enabled (its guard fails, or firing it would change nothing)."""
    acts = list(m.actions())
    assert action in acts, f"{action} is not an action of {m!r}"
    out, flags = m.expand(state)
    f = int(flags[acts.index(action)])
    assert not f & 2, f"{action} raised a model error: {m.describe_outcome(f)}"
    assert not f & 1, f"{action} is enabled: {changes(m, state, tuple(int(x) for x in out[acts.index(action)]))}"


def step(m: RocketMQModel, state: tuple[int, ...], label: str) -> tuple[int, ...]:
    """The state after the enabled action labelled ``label``; fails clearly if that step is disabled."""
    enabled = m.enabled(state)
    for action, nxt, f in enabled:
        if str(action) == label:
            assert not f & 2, f"{label}: model error {m.describe_outcome(f)}"
            return nxt
    pytest.fail(f"scripted step {label} is not enabled; enabled: {[str(a) for a, _, _ in enabled]}")


def run(m: RocketMQModel, state: tuple[int, ...], labels: Iterable[str]) -> tuple[int, ...]:
    """Replay a script of action labels from ``state``."""
    for label in labels:
        state = step(m, state, label)
    return state


def outcome_of(m: RocketMQModel, state: tuple[int, ...], label: str) -> str:
    """The outcome text of the enabled action labelled ``label``."""
    for action, _, f in m.enabled(state):
        if str(action) == label:
            return m.describe_outcome(f)
    pytest.fail(f"{label} is not enabled")
