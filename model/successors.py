"""The kernel entry point: all successors of one packed state, one slot per action of the table.

``successors(state, params, out, flags)`` unpacks ``state`` once, then for each action ``a`` of the
configuration's action table copies the field vector, applies the action (guard and effect, through
:func:`model.dispatch.apply`, generated from the ``@action`` declarations), packs the result into ``out[a]``
and sets ``flags[a]`` (:mod:`model.events`): 0 when the action is disabled or would change nothing, only
``PRUNED`` and its reason when a bound of the model leaves the step out. It has
one fixed signature for every configuration (:data:`SUCCESSORS_SIG`), so the engines call it as a compiled
function pointer and numba caches it on disk once.
"""
from __future__ import annotations

import numba as nb

from .dispatch import apply
from .events import (DISCARD, ERR_FIELD_RANGE, ERR_WRITE_WHEN_DISABLED, ERROR, NOTE_SHIFT, PRUNED,
                     PRUNE_REASON_MASK)
from .fields import NFIELDS
from .layout import repack, unpack
from explore.native import scratch
from explore.packed import SUCCESSORS_SIG
from .slots import ACTION_STRIDE, K_ACTIONS_AT, K_STRICT
from .writes import DIRTY_COUNT, WORK_SIZE


@nb.njit(SUCCESSORS_SIG, cache=True, nogil=True, _nrt=False)
def successors(state, params, out, flags):
    """Fill ``out[a]`` / ``flags[a]`` for every action ``a``; returns the number of actions."""
    at = params[K_ACTIONS_AT]
    n = params[at]
    strict = params[K_STRICT] != 0
    v = scratch(NFIELDS)
    w = scratch(WORK_SIZE)
    unpack(state, params, v)
    for i in range(NFIELDS):  # an explicit loop: numba's slice assignment is much slower
        w[i] = v[i]
    w[DIRTY_COUNT] = 0
    # each action writes its successor into w (model.writes.put notes the fields); repack encodes them
    # and puts w back to v for the next action
    for a in range(n):
        base = at + 1 + ACTION_STRIDE * a
        f = apply(params[base], params[base + 1], params[base + 2], params[base + 3], v, w, params)
        if f == 0 and w[DIRTY_COUNT] != 0:
            repack(v, w, state, params, out[a])
            if strict:
                f = ERROR | (ERR_WRITE_WHEN_DISABLED << NOTE_SHIFT)
        elif f != 0:
            changed = repack(v, w, state, params, out[a])
            if f & ERROR:
                pass
            elif f & DISCARD:
                f = f & (PRUNED | PRUNE_REASON_MASK)   # not a transition; a pruned one stays counted
            elif changed < 0:
                f = ERROR | (ERR_FIELD_RANGE << NOTE_SHIFT)
            elif changed == 0:
                f = 0   # the action would change nothing: no transition
        flags[a] = f
    return n
