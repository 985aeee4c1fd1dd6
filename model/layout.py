"""Bit layout of a packed state, and packing between the field vector and the packed words.

A packed state is a fixed number of ``uint64`` words per configuration, each field a bit range inside one
word (fields never straddle words). The packed words are the canonical encoding of a state: equal states
have equal words, so the words themselves are the key of the visited set and the result is exact.

The layout lives inside the parameter vector handed to the kernel (:mod:`model.params`), at
``LAYOUT_BASE``: the number of active fields, then ``(field, word, shift, width)`` per active field.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import fields as F
from .config import Config
from explore.native import kernel
from .slots import K_FIELDS_AT, LAYOUT_BASE
from .writes import DIRTY_BASE, DIRTY_COUNT, MAX_DIRTY

LAYOUT_STRIDE = 4


@dataclass(frozen=True)
class FieldSlot:
    """Where one field lives in the packed state."""

    field: int
    name: str
    word: int
    shift: int
    width: int


def _active(family: F.FieldFamily, i: int, cfg: Config) -> bool:
    dim = family.dim
    if dim == F.DIM_ONE:
        return True
    if dim == F.DIM_QUEUE:
        return i < cfg.queues
    if dim == F.DIM_SLAVE:
        return i < cfg.slaves
    if dim == F.DIM_SLAVE_QUEUE:
        return i // F.MAX_QUEUES < cfg.slaves and i % F.MAX_QUEUES < cfg.queues
    if dim == F.DIM_CONSUMER:
        return i < cfg.consumers
    if dim == F.DIM_MQ:
        return i // F.MAX_QUEUES < cfg.consumers and i % F.MAX_QUEUES < cfg.queues
    if dim == F.DIM_MESSAGE:
        return cfg.queues == 2 and i < cfg.messages
    raise AssertionError(dim)


def _width(family: F.FieldFamily, cfg: Config) -> int:
    n, cap = cfg.messages, cfg.queue_capacity
    kind = family.kind
    if kind == F.KIND_BOOL:
        return 1
    if kind == F.KIND_MSGSET:
        return n
    if kind == F.KIND_COUNT:
        return n.bit_length()
    if kind == F.KIND_NEXT_MSG:
        return (n + 1).bit_length()
    if kind == F.KIND_LINK:
        return 2
    if kind == F.KIND_WAIT:
        return 2 if cfg.sync_master else 0
    if kind == F.KIND_QOFF:
        return cap.bit_length()
    if kind == F.KIND_QOFF1:
        return (cap + 1).bit_length()
    if kind == F.KIND_BROKER:
        return cfg.slaves.bit_length()
    if kind == F.KIND_BROKERS:
        return cfg.slaves + 1
    if kind == F.KIND_FILE_OFFSET:
        return n.bit_length() if cfg.commitlog_file_messages else 0
    if kind == F.KIND_EXPIRED:
        return n if cfg.max_file_deletions else 0
    if kind == F.KIND_BUDGET:
        return getattr(cfg, family.budget_knob).bit_length()
    raise AssertionError(kind)


def field_name(field: int) -> str:
    """Readable name of a field slot, e.g. ``slave.commitlog[1]``."""
    for family in F.FAMILIES:
        if family.base <= field < family.base + family.count:
            if family.count == 1:
                return family.name
            return f"{family.name}[{field - family.base}]"
    raise KeyError(field)


@dataclass(frozen=True)
class Layout:
    """The packed layout of one configuration."""

    slots: tuple[FieldSlot, ...]
    words: int

    @property
    def bits(self) -> int:
        return sum(s.width for s in self.slots)

    @classmethod
    def for_config(cls, cfg: Config) -> "Layout":
        slots: list[FieldSlot] = []
        word, used = 0, 0
        for family in F.FAMILIES:
            width = _width(family, cfg)
            if width == 0:
                continue
            for i in range(family.count):
                if not _active(family, i, cfg):
                    continue
                if used + width > 64:
                    word, used = word + 1, 0
                field = family.base + i
                slots.append(FieldSlot(field, field_name(field), word, used, width))
                used += width
        return cls(tuple(slots), word + 1)

    def encode(self) -> np.ndarray:
        """The layout section of the parameter vector: active slots, then the inactive field indices."""
        active = {s.field for s in self.slots}
        inactive = [f for f in range(F.NFIELDS) if f not in active]
        out = np.zeros(2 + LAYOUT_STRIDE * len(self.slots) + len(inactive), dtype=np.int64)
        out[0] = len(self.slots)
        for i, s in enumerate(self.slots):
            out[1 + LAYOUT_STRIDE * i: 1 + LAYOUT_STRIDE * (i + 1)] = (s.field, s.word, s.shift, s.width)
        tail = 1 + LAYOUT_STRIDE * len(self.slots)
        out[tail] = len(inactive)
        out[tail + 1:] = inactive
        return out


@kernel
def unpack(state, params, v):
    """Fill the field vector ``v`` (zeroed first) from the packed ``state`` words."""
    for i in range(len(v)):  # explicit loops: numba's slice assignment is several times slower here
        v[i] = 0
    n = params[LAYOUT_BASE]
    for i in range(n):
        base = LAYOUT_BASE + 1 + LAYOUT_STRIDE * i
        word = state[params[base + 1]]
        shift = np.uint64(params[base + 2])
        mask = (np.uint64(1) << np.uint64(params[base + 3])) - np.uint64(1)
        v[params[base]] = np.int64((word >> shift) & mask)


@kernel
def pack(v, params, out, strict=False):
    """Write the field vector ``v`` into the packed words ``out``.

    Returns False when a field holds a value its bit width cannot represent: the caller reports that as
    a model error rather than storing a wrong state. With ``strict`` it also checks that every field
    absent from this configuration is still 0 (used by the tests; the kernel keeps them 0 by construction).
    """
    for i in range(len(out)):
        out[i] = 0
    n = params[LAYOUT_BASE]
    for i in range(n):
        base = LAYOUT_BASE + 1 + LAYOUT_STRIDE * i
        value = v[params[base]]
        width = params[base + 3]
        if value < 0 or value >= (np.int64(1) << width):
            return False
        w = params[base + 1]
        out[w] = out[w] | (np.uint64(value) << np.uint64(params[base + 2]))
    if strict:
        tail = LAYOUT_BASE + 1 + LAYOUT_STRIDE * n
        for i in range(params[tail]):
            if v[params[tail + 1 + i]] != 0:
                return False
    return True


@kernel
def repack(v, w, state, params, out):
    """``out`` = ``state`` with the fields an action wrote into ``w`` re-encoded, then ``w`` put back to
    ``v`` (see :mod:`model.writes`): only the written fields are touched, which is much cheaper than
    :func:`pack`. Returns 1 when some field changed, 0 when none did, -1 when a value does not fit its
    width or a field absent from this configuration was set (a model error)."""
    for i in range(len(out)):
        out[i] = state[i]
    table = params[K_FIELDS_AT]
    full = w[DIRTY_COUNT] > MAX_DIRTY   # more writes than the list holds: visit every field instead
    changed = 0
    for k in range(len(v) if full else w[DIRTY_COUNT]):
        f = k if full else w[DIRTY_BASE + k]
        x = w[f]
        if x == v[f]:
            continue
        w[f] = v[f]
        base = table + 3 * f
        width = params[base + 2]
        if changed < 0 or width == 0 or x < 0 or x >= (np.int64(1) << width):
            changed = -1
            continue
        shift = np.uint64(params[base + 1])
        mask = ((np.uint64(1) << np.uint64(width)) - np.uint64(1)) << shift
        word = params[base]
        out[word] = (out[word] & ~mask) | (np.uint64(x) << shift)
        changed = 1
    w[DIRTY_COUNT] = 0
    return changed
