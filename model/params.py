"""The parameter vector handed to the compiled kernel: knobs, packed layout and action table.

The kernel's functions have one fixed signature for every configuration (so they are compiled and cached
once); everything that varies by configuration travels in this ``int64`` vector. Slots below
``LAYOUT_BASE`` are the knobs (``K_*``); the layout section follows (:mod:`model.layout`), then the same
layout indexed by field (``params[K_FIELDS_AT]``: ``(word, shift, width)`` per field slot, width 0 for a
field this configuration lacks); the action table sits at ``params[K_ACTIONS_AT]``: the number of
actions, then ``(kind, x, y, z)`` per action.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .config import Config
from .fields import NFIELDS
from .layout import LAYOUT_BASE, Layout

K_WORDS = 0
K_ACTIONS_AT = 1
K_SYNC_MASTER = 2
K_SYNC_FLUSH = 3
K_SLAVE_READ = 4
K_OFFSET_CHECK_IN_SLAVE = 5
K_GROUP_BROKER_ID = 6
K_WHICH_BROKER = 7
K_BACKLOG = 8
K_SLAVES = 9
K_CONSUMERS = 10
K_MESSAGES = 11
K_QUEUES = 12
K_QCAP = 13
K_MAX_MASTER_CRASHES = 14
K_MAX_MASTER_POWER = 15
K_MAX_SLAVE_CRASHES = 16
K_MAX_SLAVE_POWER = 17
K_MAX_CONSUMER_RESTARTS = 18
K_MAX_HA_DISCONNECTS = 19
K_MONOTONIC_COMMIT = 20
K_SYNC_OFFSETS_MAX = 21
K_REVERSE_OFFSET_SYNC = 22
K_OVERFLOW_TO_MAX = 23
K_VALIDATE_SLAVE_ACK = 24
K_STRICT = 25
# slot 26 is free (it held the seeded bug's code before mutants became kernels of their own)
K_FIELDS_AT = 27    # where the per-field table starts: (word, shift, width) for every field slot
K_PULL_BATCH_MEMORY = 28
K_PULL_BATCH_DISK = 29
K_FILE_MESSAGES = 30
K_MAX_FILE_DELETIONS = 31
K_HA_FALLBEHIND = 32

ACTION_STRIDE = 4
FIELD_STRIDE = 3


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
    params[K_SYNC_MASTER] = cfg.sync_master
    params[K_SYNC_FLUSH] = cfg.sync_flush
    params[K_SLAVE_READ] = cfg.slave_read_enable
    params[K_OFFSET_CHECK_IN_SLAVE] = cfg.offset_check_in_slave
    params[K_GROUP_BROKER_ID] = cfg.group_broker_id
    params[K_WHICH_BROKER] = cfg.which_broker_when_consume_slowly
    params[K_BACKLOG] = cfg.consume_slowly_backlog
    params[K_SLAVES] = cfg.slaves
    params[K_CONSUMERS] = cfg.consumers
    params[K_MESSAGES] = cfg.messages
    params[K_QUEUES] = cfg.queues
    params[K_QCAP] = cfg.queue_capacity
    params[K_MAX_MASTER_CRASHES] = cfg.max_master_crashes
    params[K_MAX_MASTER_POWER] = cfg.max_master_power_losses
    params[K_MAX_SLAVE_CRASHES] = cfg.max_slave_crashes
    params[K_MAX_SLAVE_POWER] = cfg.max_slave_power_losses
    params[K_MAX_CONSUMER_RESTARTS] = cfg.max_consumer_restarts
    params[K_MAX_HA_DISCONNECTS] = cfg.max_ha_disconnects
    params[K_MONOTONIC_COMMIT] = cfg.monotonic_commit
    params[K_SYNC_OFFSETS_MAX] = cfg.sync_offsets_max
    params[K_REVERSE_OFFSET_SYNC] = cfg.reverse_offset_sync
    params[K_OVERFLOW_TO_MAX] = cfg.overflow_to_max
    params[K_VALIDATE_SLAVE_ACK] = cfg.validate_slave_ack
    params[K_PULL_BATCH_MEMORY] = cfg.pull_batch_in_memory
    params[K_PULL_BATCH_DISK] = cfg.pull_batch_in_disk
    params[K_FILE_MESSAGES] = cfg.commitlog_file_messages
    params[K_MAX_FILE_DELETIONS] = cfg.max_file_deletions
    params[K_HA_FALLBEHIND] = cfg.ha_fallbehind_max
    params[K_STRICT] = strict
    params[LAYOUT_BASE:fields_at] = layout_part
    params[actions_at] = len(action_codes)
    for i, code in enumerate(action_codes):
        start = actions_at + 1 + ACTION_STRIDE * i
        params[start:start + ACTION_STRIDE] = code
    return params
