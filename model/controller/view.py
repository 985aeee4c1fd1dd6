"""How the controller mode's readable state (``ControllerModel.view``) is typed: every field of a
configuration's view, in order, with the kind of its values - a set of broker or message ids, a value that
may be absent (None), or a plain value. Every state has every field, each always of its kind, so a trace
written with these types (ITF, ``--itf``) gives each field one type in every state."""
from __future__ import annotations

from typing import Any

IDS, OPTIONAL, PLAIN = "ids", "optional", "plain"

_GLOBAL = (("controller.up", PLAIN), ("controller.masterBrokerId", OPTIONAL), ("controller.masterEpoch", PLAIN),
           ("controller.syncStateSet", IDS), ("controller.syncStateSetEpoch", PLAIN), ("producer.next", PLAIN),
           ("producer.waiting", PLAIN), ("producer.waitBroker", OPTIONAL), ("producer.waitEnd", OPTIONAL),
           ("producer.sendOk", IDS), ("consumer.nextOffset", PLAIN), ("consumer.delivered", PLAIN),
           ("budget.crashes", PLAIN), ("budget.powerLosses", PLAIN), ("budget.controllerOutages", PLAIN),
           ("budget.linkLosses", PLAIN), ("budget.haDisconnects", PLAIN))
_BROKER = (("up", PLAIN), ("fenced", PLAIN), ("role", PLAIN), ("masterEpoch", PLAIN), ("commitlog", PLAIN),
           ("flushed", PLAIN), ("confirmOffset", PLAIN), ("dispatched", PLAIN), ("epochFile", PLAIN),
           ("syncStateSet", IDS), ("syncStateSetEpoch", PLAIN), ("synchronizing", PLAIN),
           ("remoteSyncStateSet", IDS), ("alterPending", PLAIN), ("haMaster", OPTIONAL), ("slaveAckOffset", PLAIN),
           ("controllerAlive", PLAIN), ("controllerLinkDown", PLAIN))
#: a waiting put's two futures, only with flushDiskType=SYNC_FLUSH (CommitLog#handleDiskFlushAndHA)
_SYNC_FLUSH = (("producer.flushWaiting", PLAIN), ("producer.replicasAcked", PLAIN))
#: with queues = 2 only: the consumer's queue 1, and per broker each record's (queueId, queueOffset)
_QUEUES = (("consumer.nextOffset1", PLAIN), ("consumer.delivered1", PLAIN))
#: with name_servers >= 1 only (model/controller/namesrv.py): each client's route snapshot (the broker it lists
#: at brokerId 0), per name server its brokerId-0 broker, that registration's stateVersion and its live
#: brokers, and the name-server failure budgets used
_ROUTES = (("producer.route", OPTIONAL), ("consumer.route", OPTIONAL))
_NAMESERVER = (("master", OPTIONAL), ("stateVersion", PLAIN), ("live", IDS))
_NS_BUDGETS = (("budget.nameserverRestarts", PLAIN), ("budget.nameserverCutoffs", PLAIN))
#: with stale_tail = on only, per broker (model/controller/disk.py): the stale records past the write position
#: ("message@eEpoch", by position from maxOffset on), the consume queue's stale entries' end, and whether the
#: last stop was a clean shutdown
_STALE = (("staleTail", PLAIN), ("staleDispatched", PLAIN), ("cleanShutdown", PLAIN))
#: with election_ranking = ranked only: per broker its heartbeat-table entry's reported (epoch, maxOffset),
#: 0 and 0 while it has none (DefaultBrokerHeartbeatManager's BrokerLiveInfo)
_RANKED = (("controllerLiveEpoch", PLAIN), ("controllerLiveMaxOffset", PLAIN))
#: per broker as a slave: its master's HA connection's currentTransferEpoch and its end offset (-1:
#: unbounded), None before the first transfer (reading §6.4)
_TRANSFER = (("haTransferEpoch", OPTIONAL), ("haTransferEpochEnd", OPTIONAL))


def view_kinds(cfg: Any) -> dict[str, str]:
    """Every readable field of ``cfg``'s states, in the view's order, with the kind of its values."""
    out = dict(_GLOBAL)
    ranked = getattr(cfg, "election_ranking", "RANKED") == "RANKED"
    for b in range(1, cfg.brokers + 1):
        out.update({f"broker{b}.{name}": kind for name, kind in _BROKER + (_RANKED if ranked else ()) + _TRANSFER})
    if getattr(cfg, "flush_disk_type", "ASYNC_FLUSH") == "SYNC_FLUSH":
        out.update(_SYNC_FLUSH)
    if getattr(cfg, "queues", 1) > 1:
        out.update(_QUEUES)
        out.update({f"broker{b}.queueOffsets": PLAIN for b in range(1, cfg.brokers + 1)})
    from .offsets_view import offset_kinds   # consumer_offsets = on only
    out.update(offset_kinds(cfg))
    if getattr(cfg, "name_servers", 0) > 0:
        out.update(_ROUTES)
        for n in range(1, cfg.name_servers + 1):
            out.update({f"nameserver{n}.{name}": kind for name, kind in _NAMESERVER})
        out.update(_NS_BUDGETS)
        out.update({f"broker{b}.haMasterAddress": OPTIONAL for b in range(1, cfg.brokers + 1)})
    if getattr(cfg, "stale_tail", "OFF") == "ON":
        for b in range(1, cfg.brokers + 1):
            out.update({f"broker{b}.{name}": kind for name, kind in _STALE})
    from .quorum_view import quorum_kinds   # controllers = 3 only
    out.update(quorum_kinds(cfg))
    return out
