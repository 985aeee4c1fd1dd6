"""How the kernel's functions are compiled.

Every kernel function is compiled by numba and cached on disk, without numba's reference counting
(``_nrt=False``): with it, every array a function holds or passes on pays atomic reference-count updates
(``lock inc`` / ``lock dec``), which made a call cost tens of nanoseconds - more than most actions'
whole work - and kept LLVM from inlining. A profile of successor generation with ``perf`` found those
two instructions in over half of the samples while ``successors`` still allocated its field vectors with
``np.empty``. So nothing on the hot path allocates: the few work vectors a kernel needs come from
:func:`scratch`, on the stack.
"""
from __future__ import annotations

from . import kernel_cache  # noqa: F401  (first: fixes where compiled kernels are cached)

import numba as nb
import numpy as np
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def kernel(fn=None, *, inline: bool = False):
    """Decorator for an allocation-free kernel function (``@kernel`` or ``@kernel(inline=True)``)."""
    options = dict(cache=True, nogil=True, _nrt=False, inline="always" if inline else "never")
    if fn is None:
        return nb.njit(**options)
    return nb.njit(**options)(fn)


@intrinsic
def scratch(typingctx, size):
    """``scratch(N)``: an uninitialised ``int64`` array of the compile-time constant length ``N``, on the
    calling function's stack frame (no heap allocation, no reference count; valid until it returns)."""
    if not isinstance(size, types.IntegerLiteral):
        return None     # the length must be a constant known when the kernel is compiled
    array_type = types.Array(types.int64, 1, "C")

    def codegen(context, builder, signature, args):
        n = signature.args[0].literal_value
        item = context.get_value_type(types.int64)
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(item))
        array = context.make_array(array_type)(context, builder)
        context.populate_array(array, data=cgutils.alloca_once(builder, item, size=n),
                               shape=[context.get_constant(types.intp, n)], strides=[itemsize],
                               itemsize=itemsize, meminfo=None)
        return array._getvalue()

    return array_type(size), codegen


if nb.config.DISABLE_JIT:
    # pure-Python mode (NUMBA_DISABLE_JIT=1, to step through the model in a debugger): numba leaves every
    # kernel a plain function, but an intrinsic has no Python body; a heap array does the same job
    def scratch(size):  # noqa: F811
        """``scratch(N)`` in pure-Python mode: a fresh ``int64`` array of length ``N``."""
        return np.empty(size, dtype=np.int64)
