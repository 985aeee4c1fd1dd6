"""The parameter vector handed to the compiled kernel: knobs, packed layout and action table.

The kernel's functions have one fixed signature for every configuration (so they are compiled and cached
once); everything that varies by configuration travels in this ``int64`` vector. Slots below
``LAYOUT_BASE`` are the run's own slots and the knobs (``K_*``, numbered from the knob table by
:mod:`model.slots`); the layout section follows (:mod:`model.layout`), then the same
layout indexed by field (``params[K_FIELDS_AT]``: ``(word, shift, width)`` per field slot, width 0 for a
field this configuration lacks); the action table sits at ``params[K_ACTIONS_AT]``: the number of
actions, then ``(kind, x, y, z)`` per action.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .config import KNOBS, Config
from .fields import NFIELDS
from .layout import Layout
from .slots import (ACTION_STRIDE, FIELD_STRIDE, K_ACTIONS_AT, K_FIELDS_AT, K_QCAP, K_STRICT, K_WORDS, LAYOUT_BASE,
                    SLOT, knob_value)


def build_params(cfg: Config, layout: Layout, action_codes: Sequence[tuple[int, int, int, int]],
                 strict: bool = False) -> np.ndarray:
    """Encode a configuration, its layout and its action table into one ``int64`` vector."""
    layout_part = layout.encode()
    fields_at = LAYOUT_BASE + len(layout_part)
    actions_at = fields_at + FIELD_STRIDE * NFIELDS
    params = np.zeros(actions_at + 1 + ACTION_STRIDE * len(action_codes), dtype=np.int64)
    params[K_FIELDS_AT] = fields_at
    for slot in layout.slots:
        start = fields_at + FIELD_STRIDE * slot.field
        params[start:start + FIELD_STRIDE] = (slot.word, slot.shift, slot.width)
    params[K_WORDS] = layout.words
    params[K_ACTIONS_AT] = actions_at
    params[K_STRICT] = strict
    params[K_QCAP] = cfg.queue_capacity
    for knob in KNOBS:
        params[SLOT[knob.key]] = knob_value(cfg, knob.key)
    params[LAYOUT_BASE:fields_at] = layout_part
    params[actions_at] = len(action_codes)
    for i, code in enumerate(action_codes):
        start = actions_at + 1 + ACTION_STRIDE * i
        params[start:start + ACTION_STRIDE] = code
    return params
