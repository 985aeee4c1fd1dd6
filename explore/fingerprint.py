"""A stable 64-bit fingerprint of a packed state.

Equal on every process and machine (no ``hash()``, no salt): a splitmix64 mix of the state's words. The
engines key their visited sets on the packed words themselves, so the fingerprint only spreads states over
hash buckets and Spark partitions; no result depends on it being collision-free.
"""
from __future__ import annotations

from .native import kernel
import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel(inline=True)
def mix64(x):
    """The splitmix64 finaliser."""
    x = (x ^ (x >> np.uint64(30))) * _M1
    x = (x ^ (x >> np.uint64(27))) * _M2
    return x ^ (x >> np.uint64(31))


@kernel
def fingerprint_words(words):
    """Fingerprint of one packed state (a 1-D ``uint64`` array)."""
    h = np.uint64(len(words)) * _GOLDEN
    for i in range(len(words)):
        h = mix64(h ^ (words[i] + _GOLDEN))
    return h


def fingerprint(state) -> int:
    """Fingerprint of a state given as a tuple of ints or an array of words, as a Python int."""
    return int(fingerprint_words(np.ascontiguousarray(state, dtype=np.uint64)))
