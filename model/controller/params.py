"""The parameter vector of a controller-mode configuration: its knobs, then the action table (each row the
kind code of an action and its arguments)."""
from __future__ import annotations

import numpy as np

P_BROKERS, P_MESSAGES, P_ALL_ACK, P_MIN_ISR, P_UNCLEAN, P_MAX_CRASH, P_MAX_POWER, P_MAX_OUTAGE, \
    P_MAX_LINK, P_MAX_HA, P_ISR, P_ACTIONS = range(12)
ACTION_STRIDE = 3   # kind, x, y


def build_params(cfg, codes: list[tuple[int, ...]]) -> np.ndarray:
    head = [cfg.brokers, cfg.messages, int(cfg.all_ack_in_sync_state_set), cfg.min_in_sync_replicas,
            int(cfg.enable_elect_unclean_master), cfg.max_broker_crashes, cfg.max_broker_power_losses,
            cfg.max_controller_outages, cfg.max_link_losses, cfg.max_ha_disconnects,
            cfg.in_sync_replicas, len(codes)]
    body = [x for code in codes for x in code]
    return np.array(head + body, dtype=np.int64)
