"""The slots of the parameter vector below the layout section, derived from the knob table.

The kernel reads every knob from the ``int64`` parameter vector (:mod:`model.params`), at a slot that is a
compile-time constant (``p[K_BACKLOG]``). The slots are numbered here, once: the run's own slots first
(:data:`RUN_SLOTS`), then every knob of :data:`model.config.KNOBS` in table order. A new knob therefore
gets its slot, and :func:`model.params.build_params` fills it, with nothing written here: the kernel
imports the slot under the name the knob table gives it (``Knob.slot_name``, e.g. ``K_BACKLOG`` for
``consume_slowly_backlog``, ``K_SLAVES`` for ``slaves``). The layout section starts at
``LAYOUT_BASE``, above every slot (an import-time check says so when the table outgrows it).
"""
from __future__ import annotations

from typing import Any

from .config import KNOBS, Config

#: slots that are not knobs: the packed width, where the action and per-field tables start, strict mode
#: (raise on a model error), and the capacity of a queue's in-flight window (derived from the knobs)
RUN_SLOTS = ("words", "actions_at", "fields_at", "strict", "queue_capacity")
#: slot of every run slot and knob, by name
SLOT: dict[str, int] = {name: i for i, name in enumerate(RUN_SLOTS + tuple(k.key for k in KNOBS))}
#: first slot of the layout section (:mod:`model.layout`)
LAYOUT_BASE = 64
#: words per row of the action table (``kind, x, y, z``) and of the per-field table (``word, shift, width``)
ACTION_STRIDE = 4
FIELD_STRIDE = 3
if len(SLOT) > LAYOUT_BASE:
    raise AssertionError(f"{len(SLOT)} parameter slots do not fit below LAYOUT_BASE={LAYOUT_BASE}")

K_WORDS = SLOT["words"]
K_ACTIONS_AT = SLOT["actions_at"]
K_FIELDS_AT = SLOT["fields_at"]     # where the per-field table starts: (word, shift, width) per field slot
K_STRICT = SLOT["strict"]
K_QCAP = SLOT["queue_capacity"]
# A knob's slot is named on its Knob (``slot=``; by default K_ and its key in capitals: K_SLAVES, K_QUEUES,
# K_MONOTONIC_COMMIT...), so a kernel imports it from here with nothing written in this module.
for _knob in KNOBS:
    if _knob.slot_name in globals():   # two knobs, or a knob and a run slot, under one name
        raise AssertionError(f"knob {_knob.key!r}: slot name {_knob.slot_name} is taken")
    globals()[_knob.slot_name] = SLOT[_knob.key]
del _knob

#: knobs whose kernel value is not the knob's own: these enums are read as flags
_KERNEL_VALUE = {"broker_role": "sync_master", "flush_disk_type": "sync_flush"}
_ALLOWED = {k.key: k.allowed for k in KNOBS if k.kind == "enum"}

#: ``slave_read_enable_in_slaves`` as the kernel reads it: 0 for AS_MASTER (the master's value), else
#: bit 0 set and bit ``s`` set where slave ``s`` reads true (:func:`slaves_read_bits`)
SLAVES_READ_AS_MASTER = 0


def slaves_read_bits(cfg: Config) -> int:
    """``slave_read_enable_in_slaves`` as the kernel's parameter (see :data:`SLAVES_READ_AS_MASTER`)."""
    if cfg.slave_read_enable_in_slaves == "AS_MASTER":
        return SLAVES_READ_AS_MASTER
    return 1 | sum(1 << s for s in range(1, cfg.slaves + 1) if cfg.slave_reads(s))


def knob_value(cfg: Config, key: str) -> int:
    """The integer the kernel reads for knob ``key`` of ``cfg``: a bool as 0/1, ``broker_role`` and
    ``flush_disk_type`` as their flag, another enum as its index in the allowed values."""
    if key == "slave_read_enable_in_slaves":
        return slaves_read_bits(cfg)
    value: Any = getattr(cfg, _KERNEL_VALUE.get(key, key))
    if isinstance(value, str):
        return _ALLOWED[key].index(value)
    return int(value)
