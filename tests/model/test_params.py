"""The parameter vector's slots come from the knob table (model/slots.py): every knob has one slot of its
own, below the layout section, and build_params writes each knob's kernel value there and nowhere else."""
from __future__ import annotations

import numpy as np

from model import KNOBS, Config, RocketMQModel
from model import slots


def _params(**knobs) -> np.ndarray:
    return RocketMQModel(Config.from_mapping(knobs)).params


def test_every_knob_has_its_own_slot_below_the_layout():
    numbers = [slots.SLOT[k.key] for k in KNOBS] + [slots.SLOT[name] for name in slots.RUN_SLOTS]
    assert sorted(numbers) == list(range(len(numbers)))
    assert max(numbers) < slots.LAYOUT_BASE


def test_each_knob_changes_its_own_slot_only():
    """Set each knob away from its default (a small configuration, so every other knob stays valid): the
    vector differs exactly at that knob's slot, which holds the knob's kernel value."""
    base = dict(messages=2, commitlog_file_messages=1)
    plain = _params(**base)
    changed = {"broker_role": "SYNC_MASTER", "flush_disk_type": "SYNC_FLUSH", "slaves": 2, "consumers": 2,
               "messages": 3, "queues": 2, "commitlog_file_messages": 2, "slave_read_enable_in_slaves": "TRUE"}
    for knob in KNOBS:
        if knob.key in changed:
            value = changed[knob.key]
        elif knob.kind == "bool":
            value = not knob.default
        else:
            value = knob.default + 1 if knob.default == 0 else knob.default - 1
        p = _params(**{**base, knob.key: value})
        slot = slots.SLOT[knob.key]
        below = np.flatnonzero(p[:slots.LAYOUT_BASE] != plain[:slots.LAYOUT_BASE]).tolist()
        assert slot in below, knob.key
        cfg = Config.from_mapping({**base, knob.key: value})
        assert p[slot] == slots.knob_value(cfg, knob.key)
        # no other knob's slot moves (the run's own slots may: the layout, the action table, the capacity)
        others = {slots.SLOT[k.key] for k in KNOBS} - {slot}
        assert not others & set(below), (knob.key, below)
