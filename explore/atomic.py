"""Atomic steps for compiled loops: a fetch-and-add (LLVM's ``atomicrmw add``): the threads of a round take
its slices one by one from a shared counter, so a thread that meets cheaper states takes more of them; a
claim of an empty word (``cmpxchg``): the threads file the stored states again into a grown table at once."""
from __future__ import annotations

import threading

import numba as nb
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def fetch_add(typingctx, array, index, value):
    """``array[index] += value`` as one atomic step (sequentially consistent); returns the old value."""
    sig = types.int64(array, index, value)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        return builder.atomic_rmw("add", ptr, args[2], "seq_cst")

    return sig, codegen


@intrinsic
def claim(typingctx, array, index, value):
    """Set ``array[index]`` to ``value`` if it is 0, as one atomic step (sequentially consistent); returns
    whether it was 0."""
    sig = types.boolean(array, index, value)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        zero = context.get_constant(aryty.dtype, 0)
        pair = builder.cmpxchg(ptr, zero, args[2], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return sig, codegen


if nb.config.DISABLE_JIT:
    _lock = threading.Lock()

    def fetch_add(array, index, value):  # noqa: F811
        """Pure-Python mode (NUMBA_DISABLE_JIT=1): the same under a lock."""
        with _lock:
            old = int(array[index])
            array[index] += value
            return old

    def claim(array, index, value):  # noqa: F811
        """Pure-Python mode: the same under a lock."""
        with _lock:
            if array[index] != 0:
                return False
            array[index] = value
            return True
