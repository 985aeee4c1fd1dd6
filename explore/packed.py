"""What every packed-state model offers on top of its compiled kernel.

A model is a configuration's parameter vector, a compiled ``successors`` kernel with the fixed signature
of :data:`SUCCESSORS_SIG`, its actions in a fixed order and a readable view. This base
class turns those into the small API of the engines' ``Model`` protocol: initial states, the enabled
actions of a state, the next state for an action, the view and the fingerprint. States cross this API as
tuples of ints (the packed words): immutable, hashable and canonical.
"""
from __future__ import annotations

from . import kernel_cache  # noqa: F401  (first: fixes where compiled kernels are cached)

from typing import Any, Sequence

import numpy as np
from numba import types

from .fingerprint import fingerprint as _fingerprint

State = tuple[int, ...]

#: ``successors(state, params, out, flags) -> number of actions``: fills ``out[a]`` and ``flags[a]``
#: (bit 0 enabled, bit 1 model error, higher bits events) for every action ``a``.
SUCCESSORS_SIG = types.int64(types.uint64[::1], types.int64[::1], types.uint64[:, ::1], types.int64[::1])
#: ``state_check(state, params) -> bits``: per property bit, an always property violated, a sometimes
#: property satisfied, or a graph property's goal holding in ``state``.
STATE_CHECK_SIG = types.uint64(types.uint64[::1], types.int64[::1])
#: ``transition_check(source, flags, target, params) -> bits``: sometimes properties a transition witnesses.
TRANSITION_CHECK_SIG = types.uint64(types.uint64[::1], types.int64, types.uint64[::1], types.int64[::1])
#: ``eventually_masks(state, params, out)``: the P and Q instance masks of every eventually property
#: (``out[2 * bit]``, ``out[2 * bit + 1]``: :mod:`invariants.base`)
EVENTUALLY_MASKS_SIG = types.void(types.uint64[::1], types.int64[::1], types.uint64[::1])


class PackedModel:
    """Base for models whose states are packed ``uint64`` words and whose kernel is compiled."""

    name: str = "model"
    prune_reasons: dict[int, str] = {}   # names of the reason codes of its PRUNED rows (explore.flags)
    words: int
    params: np.ndarray
    successors: Any

    # -- to provide ---------------------------------------------------------------------------------
    def initial_states(self) -> np.ndarray:  # pragma: no cover - abstract
        """The initial states as a ``(n, words)`` ``uint64`` array."""
        raise NotImplementedError

    def actions(self) -> Sequence[Any]:  # pragma: no cover - abstract
        """Every action, in the kernel's fixed order; ``str(action)`` is its trace label."""
        raise NotImplementedError

    def view(self, state: State) -> dict[str, Any]:  # pragma: no cover - abstract
        """The readable fields of a state, flat: ``{"master.commitlog": [1, 2], ...}``."""
        raise NotImplementedError

    def describe_outcome(self, flags: int) -> str:
        """Readable outcome of a fired action (e.g. a send status); empty by default."""
        return ""

    # -- derived ------------------------------------------------------------------------------------
    def expand(self, state: State) -> tuple[np.ndarray, np.ndarray]:
        """Run the kernel on one state: ``(out, flags)`` with one row per action."""
        n = len(self.actions())
        out = np.zeros((max(n, 1), self.words), dtype=np.uint64)
        flags = np.zeros(max(n, 1), dtype=np.int64)
        self.successors(np.asarray(state, dtype=np.uint64), self.params, out, flags)
        return out[:n], flags[:n]

    def enabled(self, state: State) -> list[tuple[Any, State, int]]:
        """``(action, next_state, flags)`` for every action enabled in ``state``, in action order."""
        out, flags = self.expand(state)
        acts = self.actions()
        return [(acts[a], tuple(int(x) for x in out[a]), int(flags[a]))
                for a in range(len(acts)) if flags[a] & 1]

    def next_state(self, state: State, action: Any) -> State | None:
        """The state ``action`` leads to from ``state``, or None when it is not enabled there."""
        acts = list(self.actions())
        a = acts.index(action)
        out, flags = self.expand(state)
        if not flags[a] & 1 or flags[a] & 2:
            return None
        return tuple(int(x) for x in out[a])

    def initial(self) -> list[State]:
        return [tuple(int(x) for x in row) for row in self.initial_states()]

    def fingerprint(self, state: State) -> int:
        return _fingerprint(state)
