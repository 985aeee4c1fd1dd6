"""Writing the successor's field vector: each write also notes which field changed.

An action computes its successor in a work vector ``w`` that starts equal to the state's field vector
``v``. :func:`put` writes a field and appends its index to a short list kept at the end of ``w``, so
packing the successor re-encodes only those fields (:func:`model.layout.repack`) and putting ``w`` back
to ``v`` for the next action touches only them - instead of scanning or copying the whole vector for
each of the dozens of actions of every state.
"""
from __future__ import annotations

from .fields import NFIELDS
from explore.native import kernel

DIRTY_COUNT = NFIELDS           # slot of w: how many writes since w was last equal to v
DIRTY_BASE = NFIELDS + 1        # slots of w: the fields written, in order (repeats allowed)
MAX_DIRTY = 96                  # beyond this many writes repack falls back to a full scan
WORK_SIZE = NFIELDS + 1 + MAX_DIRTY


@kernel(inline=True)
def put(w, field, value):
    """``w[field] = value``, noting that ``field`` changed."""
    w[field] = value
    n = w[DIRTY_COUNT]
    if n < MAX_DIRTY:
        w[DIRTY_BASE + n] = field
    w[DIRTY_COUNT] = n + 1
