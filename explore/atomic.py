"""Atomic steps for compiled loops, on one word of an array.

- :func:`fetch_add` (LLVM's ``atomicrmw add``): the threads of a round take its slices one by one from a
  shared counter, so a thread that meets cheaper states takes more of them, and take each new state's index.
- :func:`claim` (``cmpxchg`` from 0): a thread takes an empty slot of the shared hash table.
- :func:`compare_swap` (``cmpxchg``): lowers a new state's smallest (source, action) so far.
- :func:`store_release`: a slot's index word is published only after what it points at is written;
  :func:`load_acquire` (a waiting thread's reads of a claimed slot) and :func:`acquire_fence` (after a
  plain read of a one-word state's index word) keep what it points at read after it. On x86 all three
  are plain moves or nothing, but the compiler may not reorder around them.
"""
from __future__ import annotations

import threading

import numba as nb
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def _pointer(context, builder, aryty, array, index):
    ary = context.make_array(aryty)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, aryty, ary, [index])


@intrinsic
def fetch_add(typingctx, array, index, value):
    """``array[index] += value`` as one atomic step (sequentially consistent); returns the old value."""
    sig = types.int64(array, index, value)

    def codegen(context, builder, signature, args):
        ptr = _pointer(context, builder, signature.args[0], args[0], args[1])
        return builder.atomic_rmw("add", ptr, args[2], "seq_cst")

    return sig, codegen


@intrinsic
def claim(typingctx, array, index, value):
    """Set ``array[index]`` to ``value`` if it is 0, as one atomic step (sequentially consistent); returns
    whether it was 0."""
    sig = types.boolean(array, index, value)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ptr = _pointer(context, builder, aryty, args[0], args[1])
        zero = context.get_constant(aryty.dtype, 0)
        pair = builder.cmpxchg(ptr, zero, args[2], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 1)

    return sig, codegen


@intrinsic
def compare_swap(typingctx, array, index, expected, value):
    """Set ``array[index]`` to ``value`` if it is ``expected``, as one atomic step (sequentially consistent);
    returns the value it held."""
    sig = array.dtype(array, index, expected, value)

    def codegen(context, builder, signature, args):
        aryty, _, ety, vty = signature.args
        ptr = _pointer(context, builder, aryty, args[0], args[1])
        old = context.cast(builder, args[2], ety, aryty.dtype)
        new = context.cast(builder, args[3], vty, aryty.dtype)
        return builder.extract_value(builder.cmpxchg(ptr, old, new, "seq_cst", "seq_cst"), 0)

    return sig, codegen


@intrinsic
def load_acquire(typingctx, array, index):
    """``array[index]``, read before any later read of this thread (an acquire load)."""
    sig = array.dtype(array, index)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ptr = _pointer(context, builder, aryty, args[0], args[1])
        return builder.load_atomic(ptr, "acquire", aryty.dtype.bitwidth // 8)

    return sig, codegen


@intrinsic
def store_release(typingctx, array, index, value):
    """``array[index] = value``, seen by other threads only after every earlier write of this thread (a
    release store)."""
    sig = types.void(array, index, value)

    def codegen(context, builder, signature, args):
        aryty, _, vty = signature.args
        ptr = _pointer(context, builder, aryty, args[0], args[1])
        builder.store_atomic(context.cast(builder, args[2], vty, aryty.dtype), ptr, "release",
                             aryty.dtype.bitwidth // 8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def acquire_fence(typingctx):
    """The reads before it happen before the reads after it (``fence acquire``): no instruction on x86,
    whose loads keep their order, but the compiler may not move a read across it; a barrier elsewhere."""
    sig = types.void()

    def codegen(context, builder, signature, args):
        builder.fence("acquire")
        return context.get_dummy_value()

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

    def compare_swap(array, index, expected, value):  # noqa: F811
        """Pure-Python mode: the same under a lock."""
        with _lock:
            old = array[index]
            if old == expected:
                array[index] = value
            return old

    def load_acquire(array, index):  # noqa: F811
        """Pure-Python mode: a plain read (the GIL orders it)."""
        return array[index]

    def store_release(array, index, value):  # noqa: F811
        """Pure-Python mode: a plain write."""
        array[index] = value

    def acquire_fence():  # noqa: F811
        """Pure-Python mode: nothing to order."""
