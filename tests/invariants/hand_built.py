"""Hand-built RocketMQ states for the property tests.

A state starts as the model's initial state (the started cluster, the group subscribed at offset 0) and
has fields changed by their readable names (``{"master.commitlog": [1, 2]}``), then goes through
``RocketMQModel.encode``; the checks are the compiled ones the engines call.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np

from invariants import PROPERTIES
from model import Config, RocketMQModel

State = tuple[int, ...]


@functools.lru_cache(maxsize=None)
def model(mutation: str | None = None, **knobs: Any) -> RocketMQModel:
    """The model of the 4.4 defaults with ``knobs`` changed (and a seeded mutation, if named)."""
    return RocketMQModel(Config.from_mapping(knobs), mutation=mutation)


def build(m: RocketMQModel, changes: dict[str, Any]) -> State:
    """The initial state of ``m`` with the named fields set; the state reads back exactly as asked."""
    view = m.view(m.initial()[0])
    unknown = sorted(set(changes) - set(view))
    assert not unknown, f"no such state fields: {unknown}"
    view.update(changes)
    state = m.encode(view)
    assert m.view(state) == view
    return state


def state_bits(m: RocketMQModel, state: State) -> int:
    """``state_check`` of the whole property set: violated always bits, satisfied sometimes/goal bits."""
    return int(PROPERTIES.state_check(np.array(state, dtype=np.uint64), m.params))


def flagged(m: RocketMQModel, name: str, changes: dict[str, Any]) -> bool:
    """Whether the state built from ``changes`` has property ``name``'s bit set: for an always property
    "violated", for a state-observed sometimes property "satisfied", for a graph property "goal holds"."""
    return bool(state_bits(m, build(m, changes)) & PROPERTIES.get(name).mask)


def fire(m: RocketMQModel, state: State, label: str) -> tuple[State, int]:
    """``(next state, flags)`` of the action labelled ``label``, which must be enabled in ``state``."""
    for action, nxt, flags in m.enabled(state):
        if str(action) == label:
            return nxt, flags
    enabled = [str(a) for a, _, _ in m.enabled(state)]
    raise AssertionError(f"{label} is not enabled; enabled: {enabled}")


def is_enabled(m: RocketMQModel, state: State, label: str) -> bool:
    return any(str(a) == label for a, _, _ in m.enabled(state))


def transition_bits(m: RocketMQModel, source: State, flags: int, target: State) -> int:
    return int(PROPERTIES.transition_check(np.array(source, dtype=np.uint64), flags,
                                           np.array(target, dtype=np.uint64), m.params))


def witnessing_actions(m: RocketMQModel, name: str, changes: dict[str, Any]) -> list[str]:
    """The enabled actions of the state built from ``changes`` whose transition witnesses sometimes property
    ``name``, by label. (An action that would change nothing is not enabled: the model has no stutters.)"""
    source = build(m, changes)
    mask = PROPERTIES.get(name).mask
    return [str(action) for action, target, flags in m.enabled(source)
            if transition_bits(m, source, flags, target) & mask]
