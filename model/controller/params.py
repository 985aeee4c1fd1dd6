"""The parameter vector of a controller-mode configuration: its knobs, then the action table (each row the
kind code of an action and its arguments), then the configuration's packed layout (:func:`layout_at`:
``(word, shift, width)`` per field, :func:`model.controller.fields.layout_for`). The version switches (model/versions_5.py) are knobs: 1 is
5.3.3's rule, 0 the rule of the releases before the one that changed it."""
from __future__ import annotations

import numpy as np

from explore.native import kernel
from .fields import MAX_BROKERS, layout_for

P_BROKERS, P_MESSAGES, P_ALL_ACK, P_MIN_ISR, P_UNCLEAN, P_MAX_CRASH, P_MAX_POWER, P_MAX_OUTAGE, \
    P_MAX_LINK, P_MAX_HA, P_ISR, P_SYNC_FLUSH, P_QUEUES, P_SSS_UNION, P_CONFIRM_IGNORES_UNACKED, P_CONFIRM_FROZEN, P_CONFIRM_PERSISTED, \
    P_MASTER_TAKES_CONTROLLER_SSS, P_SAME_MASTER_SHORTCUT, P_SCAN_INACTIVE_MASTER, P_CONFIRM_MAX_NOT_ALLACK, \
    P_CONFIRM_INIT_NEGATIVE, P_NAMESRV_EPOCH, P_CONSUMER_OFFSETS, P_MAX_CONSUMER, P_NAMESRV, P_MAX_NS_RESTART, \
    P_MAX_NS_CUTOFF, P_STALE_TAIL, P_RANKED, P_PRIORITY, P_CONTROLLERS, P_JRAFT, P_ACTIONS = (*range(31), 34, 35, 36)
# P_PRIORITY: MAX_BROKERS slots (30-33); P_CONTROLLERS: the controller nodes (1 | 3), P_JRAFT: controller_type = jraft
ACTION_STRIDE = 3   # kind, x, y

#: the version switches' knobs, in their slots' order (P_SSS_UNION ... P_NAMESRV_EPOCH)
SWITCH_KNOBS = ("sss_union_while_synchronizing", "confirm_offset_ignores_unacked_connection",
                "confirm_offset_frozen_when_member_disconnected", "confirm_offset_persisted_and_bounds_recovery",
                "change_to_master_uses_controller_sss", "same_master_role_change_shortcut",
                "controller_scans_inactive_master", "confirm_offset_max_when_not_allack",
                "confirm_offset_init_only_when_negative", "namesrv_epoch_fences_master")


#: ``BrokerConfig.brokerElectionPriority``'s default (``Integer.MAX_VALUE``): every broker equal
DEFAULT_ELECTION_PRIORITY = 2**31 - 1


def election_params(cfg) -> list[int]:
    """The election ranking's slots (issue 48 item 6): P_RANKED (``election_ranking = ranked``), then
    P_PRIORITY .. P_PRIORITY + MAX_BROKERS - 1, each broker's ``brokerElectionPriority`` (lower ranks first)."""
    ranked = int(getattr(cfg, "election_ranking", "RANKED") == "RANKED")
    priorities = list(cfg.election_priorities()) if hasattr(cfg, "election_priorities") else []
    priorities += [DEFAULT_ELECTION_PRIORITY] * (MAX_BROKERS - len(priorities))
    return [ranked, *priorities[:MAX_BROKERS]]


@kernel(inline=True)
def layout_at(params):
    """Where the layout section starts: right after the action table (no slot of its own)."""
    return P_ACTIONS + 1 + ACTION_STRIDE * params[P_ACTIONS]


def build_params(cfg, codes: list[tuple[int, ...]]) -> np.ndarray:
    head = [cfg.brokers, cfg.messages, int(cfg.all_ack_in_sync_state_set), cfg.min_in_sync_replicas,
            int(cfg.enable_elect_unclean_master), cfg.max_broker_crashes, cfg.max_broker_power_losses,
            cfg.max_controller_outages, cfg.max_link_losses, cfg.max_ha_disconnects,
            cfg.in_sync_replicas, int(cfg.flush_disk_type == "SYNC_FLUSH"), cfg.queues,
            *(int(getattr(cfg, k)) for k in SWITCH_KNOBS),
            int(cfg.consumer_offsets == "ON"), cfg.max_consumer_restarts,
            cfg.name_servers, cfg.max_namesrv_restarts, cfg.max_namesrv_cutoffs,   # name servers (namesrv.py)
            int(cfg.stale_tail == "ON"),   # the disk under a truncation (disk.py)
            *election_params(cfg),
            getattr(cfg, "controllers", 1), int(getattr(cfg, "controller_type", "DLEDGER") == "JRAFT"),   # quorum.py
            len(codes)]
    body = [x for code in codes for x in code]
    return np.concatenate([np.array(head + body, dtype=np.int64), layout_for(cfg).encode()])
