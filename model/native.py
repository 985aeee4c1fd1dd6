"""How the kernel's functions are compiled.

Every kernel function is compiled by numba and cached on disk. Those that allocate nothing are compiled
without numba's reference counting (``_nrt=False``): with it, each call that passes arrays pays atomic
reference-count updates on them, which made a call cost tens of nanoseconds - more than most actions'
whole work - and kept LLVM from inlining. Functions that allocate arrays keep the default.
"""
from __future__ import annotations

import numba as nb


def kernel(fn=None, *, inline: bool = False):
    """Decorator for an allocation-free kernel function (``@kernel`` or ``@kernel(inline=True)``)."""
    options = dict(cache=True, nogil=True, _nrt=False, inline="always" if inline else "never")
    if fn is None:
        return nb.njit(**options)
    return nb.njit(**options)(fn)
