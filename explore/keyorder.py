"""Canonical key order of packed states, shared by the threaded engine's level sort and the Spark engine's.

States compare as their words read as signed integers, word 0 first (:func:`explore.step.key_less`). Both
engines sort by word 0 first, since it mostly tells states apart, and then settle each run of states
sharing their first word with :func:`settle_ties`.
"""
from __future__ import annotations

import numba as nb
import numpy as np
from numba import types

from .step import I64_1D, U64_2D, key_less

SHORT_RUN = 16   # states sharing their first word sorted by insertion; a longer run by its other words


@nb.njit(types.boolean(U64_2D, types.int64, types.int64, types.int64), cache=True, nogil=True)
def _before(states, lo, a, b):
    """State ``lo + a`` before state ``lo + b``: a smaller key, or the same key and ``a < b`` (so a sort
    that uses it is stable)."""
    if key_less(states[lo + a], states[lo + b]):
        return True
    if key_less(states[lo + b], states[lo + a]):
        return False
    return a < b


@nb.njit(types.void(U64_2D, types.int64, I64_1D), cache=True, nogil=True)
def settle_ties(states, lo, order):
    """``order`` holds indices of ``states`` from row ``lo``, sorted by word 0 only: put each run of equal
    first words in key order, equal keys by index, in place. Insertion sort for a run of up to
    ``SHORT_RUN``; a longer one by each further word, last word first, every pass stable. Compiled at
    import (explicit signature): it also runs in processes near their memory limit, where compiling
    would fail."""
    s = states.view(np.int64)
    n = len(order)
    i = 0
    while i < n:
        first = s[lo + order[i], 0]
        j = i + 1
        while j < n and s[lo + order[j], 0] == first:
            j += 1
        if j - i <= SHORT_RUN:
            for a in range(i + 1, j):
                x = order[a]
                b = a - 1
                while b >= i and _before(states, lo, x, order[b]):
                    order[b + 1] = order[b]
                    b -= 1
                order[b + 1] = x
        else:
            seg = np.sort(order[i:j])
            col = np.empty(len(seg), np.int64)
            for w in range(states.shape[1] - 1, 0, -1):
                for k in range(len(seg)):
                    col[k] = s[lo + seg[k], w]
                seg = seg[np.argsort(col, kind="mergesort")]
            order[i:j] = seg
        i = j
