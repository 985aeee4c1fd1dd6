"""A software prefetch for compiled loops (LLVM's ``llvm.prefetch``): hash lookups of all successors of a
state are started before any of them is probed, so their cache misses overlap instead of queueing."""
from __future__ import annotations

import numba as nb
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, array, index):
    """Hint the CPU to fetch ``array[index]`` into cache (read, high locality); no effect on results."""
    sig = types.void(array, index)

    def codegen(context, builder, signature, args):
        aryty, _ = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), ir.Constant(i32, 0), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()

    return sig, codegen


if nb.config.DISABLE_JIT:
    def prefetch(array, index):  # noqa: F811
        """Pure-Python mode (NUMBA_DISABLE_JIT=1): a hint with no Python meaning, so nothing."""
