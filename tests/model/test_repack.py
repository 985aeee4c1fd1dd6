"""``repack`` (re-encoding only the fields an action wrote) against ``pack`` (re-encoding all of them),
including more writes than the written-field list holds."""
from __future__ import annotations

import numpy as np
import pytest

from model import RocketMQModel, preset
from model.fields import NFIELDS
from model.layout import K_FIELDS_AT, pack, repack, unpack
from model.writes import DIRTY_COUNT, MAX_DIRTY, WORK_SIZE, put


def _setup():
    model = RocketMQModel(preset("default"))
    state = np.asarray(model.initial_states()[0], dtype=np.uint64)
    params = model.params
    v = np.zeros(NFIELDS, np.int64)
    unpack(state, params, v)
    table = int(params[K_FIELDS_AT])
    widths = {f: int(params[table + 3 * f + 2]) for f in range(NFIELDS)}
    present = [f for f, width in widths.items() if width > 0]
    return state, params, v, widths, present


@pytest.mark.parametrize("writes", [3, MAX_DIRTY, MAX_DIRTY + 1, 4 * MAX_DIRTY])
def test_repack_equals_pack_of_the_written_vector(writes):
    state, params, v, widths, present = _setup()
    w = np.zeros(WORK_SIZE, np.int64)
    w[:NFIELDS] = v
    rng = np.random.default_rng(writes)
    for _ in range(writes):
        f = present[int(rng.integers(len(present)))]
        put(w, f, int(rng.integers(1 << min(widths[f], 8))))
    expected = np.zeros_like(state)
    assert pack(w[:NFIELDS].copy(), params, expected)
    out = np.zeros_like(state)
    changed = repack(v, w, state, params, out)
    assert list(out) == list(expected)
    assert changed == (1 if list(expected) != list(state) else 0)
    assert list(w[:NFIELDS]) == list(v) and w[DIRTY_COUNT] == 0   # the work vector is put back


def test_repack_reports_a_value_too_wide_for_its_field():
    state, params, v, widths, present = _setup()
    w = np.zeros(WORK_SIZE, np.int64)
    w[:NFIELDS] = v
    f = present[0]
    put(w, f, 1 << widths[f])
    assert repack(v, w, state, params, np.zeros_like(state)) == -1
