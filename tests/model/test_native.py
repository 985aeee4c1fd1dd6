"""explore.native.scratch: stack work vectors for allocation-free kernels."""
import numba as nb
import numpy as np
import pytest
from numba.core.errors import TypingError

from explore.native import kernel, scratch


@kernel
def _fill_two(x, out):
    a = scratch(5)
    b = scratch(3)
    for i in range(len(a)):
        a[i] = x * 10 + i
    for i in range(len(b)):
        b[i] = -i
    out[0] = len(a)
    out[1] = len(b)
    out[2] = a[0] + a[4]
    out[3] = b[2]


def test_scratch_arrays_are_distinct_and_sized():
    out = np.zeros(4, np.int64)
    _fill_two(7, out)
    assert out.tolist() == [5, 3, 70 + 74, -2]


def test_scratch_is_fresh_per_call():
    out = np.zeros(4, np.int64)
    _fill_two(1, out)
    _fill_two(2, out)
    assert out[2] == 20 + 24


def test_scratch_length_must_be_a_constant():
    @nb.njit(_nrt=False)
    def bad(n):
        a = scratch(n)
        return len(a)

    with pytest.raises(TypingError):
        bad(4)


def test_hot_kernels_are_compiled_without_reference_counting():
    from invariants.rocketmq import state_check, transition_check
    from model.successors import successors
    from spark_explore.batch import expand_batch

    for fn in (successors, state_check, transition_check, expand_batch):
        assert fn.targetoptions.get("_nrt") is False, fn.py_func.__name__
