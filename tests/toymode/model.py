"""The toy model as the engines see it: a compiled ``successors`` kernel over the action table, and the
readable view (:class:`explore.packed.PackedModel` derives the rest of the engines' ``Model`` protocol)."""
from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from model.declare import actions_for
from explore.native import scratch
from explore.packed import SUCCESSORS_SIG, PackedModel

from .declare import ACTIONS
from .dispatch import apply
from .state import ACTION_STRIDE, FIELDS, NFIELDS, P_ACTIONS, WORDS, build_params, pack, unpack

ACTION_TYPES = ACTIONS.types(__name__)
globals().update({cls.__name__: cls for cls in ACTION_TYPES})
#: every action kind's name, by kind code
KINDS = tuple(d.name for d in ACTIONS.declarations())


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def successors(state, params, out, flags):
    n = params[P_ACTIONS]
    v = scratch(NFIELDS)
    w = scratch(NFIELDS)
    unpack(state, v)
    for a in range(n):
        base = P_ACTIONS + 1 + ACTION_STRIDE * a
        for i in range(NFIELDS):
            w[i] = v[i]
        f = apply(params[base], params[base + 1], w, params)
        if f == 0:
            flags[a] = 0
            continue
        flags[a] = f if pack(w, out[a]) else 3
    return n


class ToyModel(PackedModel):
    """A client, a primary, a backup and primary crashes, under one :class:`~tests.toymode.config.ToyConfig`."""

    name = "toy-log"
    words = WORDS

    def __init__(self, config: Any = None, mutation: str | None = None) -> None:
        from .config import ToyConfig
        self.config = config if config is not None else ToyConfig()
        self.mutation = mutation or ""
        self._actions = actions_for(ACTION_TYPES, self.config)
        self.params = build_params(self.config, ACTIONS.mutated_codes(self._actions, mutation))
        self.successors = successors

    def actions(self):
        return self._actions

    def initial_states(self) -> np.ndarray:
        return np.zeros((1, WORDS), dtype=np.uint64)

    def view(self, state) -> dict[str, Any]:
        v = np.zeros(NFIELDS, dtype=np.int64)
        unpack(np.asarray(state, dtype=np.uint64), v)
        return {name: int(v[i]) for i, (name, _) in enumerate(FIELDS)}

    def encode(self, view: dict[str, Any]):
        v = np.array([view[name] for name, _ in FIELDS], dtype=np.int64)
        out = np.zeros(WORDS, dtype=np.uint64)
        if not pack(v, out):
            raise ValueError("a field of the view does not fit its bit width")
        return tuple(int(x) for x in out)

    def parse_action(self, label: str):
        for action in self._actions:
            if str(action) == label:
                return action
        raise ValueError(f"action {label!r} is not in this configuration's table; kinds: {', '.join(KINDS)}")
