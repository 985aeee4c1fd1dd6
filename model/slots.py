"""The slots of the parameter vector below the layout section, derived from the knob table.

The kernel reads every knob from the ``int64`` parameter vector (:mod:`model.params`), at a slot that is a
compile-time constant (``p[K_BACKLOG]``). The slots are numbered here, once: the run's own slots first
(:data:`RUN_SLOTS`), then every knob of :data:`model.config.KNOBS` in table order. A new knob therefore
gets its slot, and :func:`model.params.build_params` fills it, with no number written by hand; a kernel
that reads it names it ``K_<NAME> = SLOT["knob_key"]`` below. The layout section starts at
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
K_SYNC_MASTER = SLOT["broker_role"]          # 1 for SYNC_MASTER
K_SYNC_FLUSH = SLOT["flush_disk_type"]       # 1 for SYNC_FLUSH
K_SLAVE_READ = SLOT["slave_read_enable"]
K_OFFSET_CHECK_IN_SLAVE = SLOT["offset_check_in_slave"]
K_GROUP_BROKER_ID = SLOT["group_broker_id"]
K_WHICH_BROKER = SLOT["which_broker_when_consume_slowly"]
K_BACKLOG = SLOT["consume_slowly_backlog"]
K_SLAVES = SLOT["slaves"]
K_CONSUMERS = SLOT["consumers"]
K_MESSAGES = SLOT["messages"]
K_QUEUES = SLOT["queues"]
K_MAX_MASTER_CRASHES = SLOT["max_master_crashes"]
K_MAX_MASTER_POWER = SLOT["max_master_power_losses"]
K_MAX_SLAVE_CRASHES = SLOT["max_slave_crashes"]
K_MAX_SLAVE_POWER = SLOT["max_slave_power_losses"]
K_MAX_CONSUMER_RESTARTS = SLOT["max_consumer_restarts"]
K_MAX_HA_DISCONNECTS = SLOT["max_ha_disconnects"]
K_PULL_BATCH_MEMORY = SLOT["pull_batch_in_memory"]
K_PULL_BATCH_DISK = SLOT["pull_batch_in_disk"]
K_FILE_MESSAGES = SLOT["commitlog_file_messages"]
K_MAX_FILE_DELETIONS = SLOT["max_file_deletions"]
K_HA_FALLBEHIND = SLOT["ha_fallbehind_max"]
K_MONOTONIC_COMMIT = SLOT["monotonic_commit"]
K_SYNC_OFFSETS_MAX = SLOT["sync_offsets_max"]
K_REVERSE_OFFSET_SYNC = SLOT["reverse_offset_sync"]
K_OVERFLOW_TO_MAX = SLOT["overflow_to_max"]
K_VALIDATE_SLAVE_ACK = SLOT["validate_slave_ack"]

#: knobs whose kernel value is not the knob's own: the enums are read as flags
_KERNEL_VALUE = {"broker_role": "sync_master", "flush_disk_type": "sync_flush"}


def knob_value(cfg: Config, key: str) -> int:
    """The integer the kernel reads for knob ``key`` of ``cfg`` (a bool as 0/1, an enum as its flag)."""
    value: Any = getattr(cfg, _KERNEL_VALUE.get(key, key))
    return int(value)
