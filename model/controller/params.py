"""The parameter vector of a controller-mode configuration: knobs, the seeded bug, the action table."""
from __future__ import annotations

import numpy as np

P_BROKERS, P_MESSAGES, P_ALL_ACK, P_MIN_ISR, P_UNCLEAN, P_MAX_CRASH, P_MAX_POWER, P_MAX_OUTAGE, \
    P_MAX_LINK, P_MAX_HA, P_ISR, P_MUTANT, P_ACTIONS = range(13)
ACTION_STRIDE = 3   # kind, x, y

#: seeded bugs (tests only): the code read at ``params[P_MUTANT]``
MUTANTS = {
    "": 0,
    "elect_outside_sync_state_set": 1,   # the controller elects any live broker, SyncStateSet ignored
    "election_keeps_epoch": 2,           # an election does not bump masterEpoch
    "read_uncommitted": 3,               # consumers read past confirmOffset (readUnCommitted=true)
    "queue_offset_reused": 4,            # a put takes the queue offset of the last message (overwrites it)
    "epoch_entry_past_max": 5,           # a new master's epoch entry starts one past its max offset
    "controller_skips_election": 6,      # the controller never elects when it finds the master inactive
}


def build_params(cfg, codes: list[tuple[int, int, int]], mutant: str = "") -> np.ndarray:
    head = [cfg.brokers, cfg.messages, int(cfg.all_ack_in_sync_state_set), cfg.min_in_sync_replicas,
            int(cfg.enable_elect_unclean_master), cfg.max_broker_crashes, cfg.max_broker_power_losses,
            cfg.max_controller_outages, cfg.max_link_losses, cfg.max_ha_disconnects,
            cfg.in_sync_replicas, MUTANTS[mutant], len(codes)]
    body = [x for code in codes for x in code]
    return np.array(head + body, dtype=np.int64)
