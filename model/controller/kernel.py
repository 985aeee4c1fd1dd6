"""The controller-mode successor kernel: every action of the configuration's table on one state.

Same fixed signature as the 4.4 kernel (:data:`explore.packed.SUCCESSORS_SIG`), so every engine runs it
unchanged. The state is unpacked once (in the configuration's layout, carried in ``params``) into a field
vector on the stack; each action works on a copy (fired by the generated dispatch,
:mod:`model.controller.dispatch`), and its row is the state's words with the fields it changed re-encoded
(:func:`model.controller.state.repack`); an action that would leave the state as it was is no transition.
"""
from __future__ import annotations

import numba as nb
import numpy as np

from explore.native import scratch
from explore.packed import SUCCESSORS_SIG
from . import fields as F
from .declare import CONTROLLER
from .dispatch import apply
from .fields import NFIELDS
from .params import ACTION_STRIDE, P_ACTIONS
from .state import pack, repack, unpack

#: every action kind's name, by kind code (what a label starts with; ``--unfair`` takes them)
KINDS = tuple(d.name for d in CONTROLLER.declarations())


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def successors(state, params, out, flags):
    """Fill ``out[a]`` / ``flags[a]`` for every action ``a`` of the table; returns their number."""
    n = params[P_ACTIONS]
    v = scratch(NFIELDS)
    w = scratch(NFIELDS)
    unpack(state, params, v)
    for a in range(n):
        base = P_ACTIONS + 1 + ACTION_STRIDE * a
        for i in range(F.NFIELDS):
            w[i] = v[i]
        f = apply(params[base], params[base + 1], params[base + 2], w, params)
        if f == 0:
            flags[a] = 0
            continue
        changed = repack(v, w, state, params, out[a])   # only the fields the action changed
        if changed < 0:
            flags[a] = 3
            continue
        flags[a] = 0 if changed == 0 and f == 1 else f
    return n
