"""A counter: ``Inc`` adds one up to ``limit``, ``Reset`` goes back to 0.

``limit + 1`` states, ``2 * limit`` transitions, depth ``limit``. Properties: ``below_k`` (always: the
counter stays below ``k``), ``reaches_top`` (sometimes: the counter reaches ``limit``), ``can_reset``
(graph: 0 stays reachable) and ``never_stuck_at_top`` (graph: from every state a state other than
``limit`` is reachable; violated when ``Reset`` is disabled). ``raise_at`` makes ``Inc`` raise at that
value, to test how engines report an exception in model code.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba as nb
import numpy as np

from explore.packed import STATE_CHECK_SIG, SUCCESSORS_SIG, TRANSITION_CHECK_SIG, PackedModel
from invariants.base import ALWAYS, GRAPH, SOMETIMES, Property, PropertySet

P_LIMIT, P_K, P_RAISE_AT, P_RESET = 0, 1, 2, 3


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def counter_successors(state, params, out, flags):
    x = state[0]
    limit = np.uint64(params[P_LIMIT])
    flags[0] = 0
    flags[1] = 0
    if x < limit:
        if params[P_RAISE_AT] >= 0 and x == np.uint64(params[P_RAISE_AT]):
            raise ValueError("counter: Inc raised on purpose")
        out[0, 0] = x + np.uint64(1)
        flags[0] = 1
    if x > np.uint64(0) and params[P_RESET] != 0:
        out[1, 0] = np.uint64(0)
        flags[1] = 1
    return 2


@nb.njit(STATE_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def counter_state_check(state, params):
    bits = np.uint64(0)
    x = state[0]
    if x >= np.uint64(params[P_K]):
        bits |= np.uint64(1)
    if x == np.uint64(params[P_LIMIT]):
        bits |= np.uint64(2)
    if x == np.uint64(0):
        bits |= np.uint64(4)
    if x != np.uint64(params[P_LIMIT]):
        bits |= np.uint64(8)
    return bits


@nb.njit(TRANSITION_CHECK_SIG, cache=True, nogil=True, _nrt=False)
def counter_transition_check(source, flags, target, params):
    return np.uint64(0)


@dataclass(frozen=True)
class CounterAction:
    name: str

    def __str__(self) -> str:
        return f"{self.name}()"


class Counter(PackedModel):
    name = "counter"
    words = 1

    def __init__(self, limit: int = 5, k: int = 100, raise_at: int = -1, reset: bool = True) -> None:
        self.limit = limit
        self.params = np.array([limit, k, raise_at, int(reset)], dtype=np.int64)
        self.successors = counter_successors
        self._actions = (CounterAction("Inc"), CounterAction("Reset"))

    def initial_states(self) -> np.ndarray:
        return np.zeros((1, 1), dtype=np.uint64)

    def actions(self):
        return self._actions

    def view(self, state):
        return {"x": int(state[0])}

    def failing_action(self, state) -> int | None:
        """The action that raises in ``state`` (only ``Inc`` ever does)."""
        return 0 if int(state[0]) == int(self.params[P_RAISE_AT]) else None


COUNTER_PROPERTIES = PropertySet(
    (Property("below_k", ALWAYS, 0, "the counter stays below k"),
     Property("reaches_top", SOMETIMES, 1, "the counter reaches its limit"),
     Property("can_reset", GRAPH, 2, "0 stays reachable from every state"),
     Property("never_stuck_at_top", GRAPH, 3, "a value below the limit stays reachable")),
    counter_state_check, counter_transition_check)
