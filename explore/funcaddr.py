"""The model's compiled functions passed to a kernel as addresses, looked up once.

A kernel that takes a first-class function argument (``types.FunctionType``) pays for it at every call:
numba's unboxing unpickles the signature and asks Python for the function's two entry points, 55-90 us a
function (numba issue #2952). The threaded rounds call their kernel on every thread for every round, and
the threads' unboxing takes turns on the GIL, so three functions cost a second thread about 0.8 ms of
every round. :func:`addresses` looks the entry points up once, as numba's unboxing would
(``numba.experimental.function_type``), and :func:`function_at` rebuilds the function value inside the
kernel from them: the same three addresses, the same call (through the numba entry point, so an
exception raised in model code still reaches the caller).
"""
from __future__ import annotations

import ctypes
from typing import Any, Callable

import numba as nb
import numpy as np
from numba import types
from numba.core import cgutils
from numba.experimental.function_type import _get_jit_address, _get_wrapper_address
from numba.extending import intrinsic

ADDRESSES = 3   # per function: its C wrapper, the Python object, its numba entry point


def addresses(fn: Any, ftype: types.FunctionType) -> list[int]:
    """The three addresses numba's unboxing of ``fn`` as ``ftype`` would find (the function compiled for
    its signature first, if it is not yet). ``fn`` must outlive every kernel call given them."""
    if nb.config.DISABLE_JIT:   # pure-Python mode: the plain function, by its object's address only
        return [0, id(fn), 0]
    sig = ftype.signature
    jit = _get_jit_address(fn, sig)
    if jit == 0:   # not a numba dispatcher: its calls could not raise, so refuse rather than differ
        raise TypeError(f"{fn!r} is not a numba-compiled function")
    return [_get_wrapper_address(fn, sig), id(fn), jit]


def address_table(*pairs: tuple[Any, types.FunctionType]) -> np.ndarray:
    """:func:`addresses` of each ``(fn, ftype)``, one after the other, as the kernel argument."""
    return np.array([a for fn, ftype in pairs for a in addresses(fn, ftype)], dtype=np.int64)


def function_at(ftype: types.FunctionType) -> Callable:
    """An intrinsic ``f(table, i)``: the function of type ``ftype`` whose :func:`addresses` start at
    ``table[i]``."""
    if nb.config.DISABLE_JIT:
        # pure-Python mode (NUMBA_DISABLE_JIT=1): the function itself, from its object's address
        return lambda table, index: ctypes.cast(int(table[index + 1]), ctypes.py_object).value

    @intrinsic
    def at(typingctx, table, index):
        def codegen(context, builder, signature, args):
            ary = context.make_array(signature.args[0])(context, builder, args[0])
            fn = cgutils.create_struct_proxy(ftype)(context, builder)
            voidptr = context.get_value_type(types.voidptr)
            for k, field in enumerate(("c_addr", "py_addr", "jit_addr")):
                at_k = builder.add(args[1], context.get_constant(types.int64, k))
                word = builder.load(cgutils.get_item_pointer(context, builder, signature.args[0], ary, [at_k]))
                setattr(fn, field, builder.inttoptr(word, voidptr))
            return fn._getvalue()

        return ftype(table, index), codegen

    return at
