"""A model function passed to a kernel as addresses behaves as when numba unboxes it: same results, and an
exception raised inside it reaches the caller."""
import numba as nb
import numpy as np
import pytest
from numba import types

from explore.funcaddr import ADDRESSES, address_table, addresses, function_at
from explore.packed import STATE_CHECK_SIG

CHECK_T = types.FunctionType(STATE_CHECK_SIG)
_check_at = function_at(CHECK_T)


@nb.njit(STATE_CHECK_SIG)
def odd_words(state, params):
    n = 0
    for w in state:
        n += w & 1
    return np.uint64(n * params[0])


@nb.njit(STATE_CHECK_SIG)
def refuses_seven(state, params):
    if state[0] == 7:
        raise ValueError("seven")
    return np.uint64(state[0])


@nb.njit(types.uint64(CHECK_T, types.uint64[::1], types.int64[::1]))
def call_unboxed(check, state, params):
    return check(state, params)


@nb.njit(types.uint64(types.int64[::1], types.int64, types.uint64[::1], types.int64[::1]))
def call_at(table, i, state, params):
    return _check_at(table, i)(state, params)


def test_a_function_called_from_its_addresses_gives_what_it_gives_unboxed():
    table = address_table((refuses_seven, CHECK_T), (odd_words, CHECK_T))
    assert len(table) == 2 * ADDRESSES
    params = np.array([3], dtype=np.int64)
    for words in ([1, 2, 3], [5, 5, 5], [0]):
        state = np.array(words, dtype=np.uint64)
        assert call_at(table, ADDRESSES, state, params) == call_unboxed(odd_words, state, params) == \
            3 * sum(w & 1 for w in words)
    assert call_at(table, 0, np.array([4], dtype=np.uint64), params) == 4


def test_an_exception_in_the_function_reaches_the_caller():
    table = address_table((refuses_seven, CHECK_T))
    with pytest.raises(ValueError, match="seven"):
        call_at(table, 0, np.array([7], dtype=np.uint64), np.zeros(1, dtype=np.int64))


def test_only_numba_functions_are_taken():
    with pytest.raises(TypeError, match="not a numba-compiled function"):
        addresses(lambda state, params: 0, CHECK_T)
