"""The RocketMQ 5.3.3 controller-mode model of one configuration, as the engines see it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..declare import Action, actions_for
from explore.packed import PackedModel, State
from . import fields as F
from .config import ControllerConfig
from .declare import CONTROLLER
from .kernel import pack, successors, unpack
from .offsets_view import offset_encode, offset_view
from .quorum_view import quorum_encode, quorum_view
from .params import build_params


#: every action class, by kind (``SendMessage(broker=1)``, ``HAConnect(slave=2, master=1)``), from the
#: ``@action`` declarations of :mod:`model.controller.actions`
ACTION_TYPES: tuple[type[Action], ...] = CONTROLLER.types(__name__)
globals().update({cls.__name__: cls for cls in ACTION_TYPES})


def action_table(cfg: ControllerConfig) -> tuple[Action, ...]:
    """Every action of ``cfg`` in the kernel's fixed order (:mod:`model.controller.declare`)."""
    return actions_for(ACTION_TYPES, cfg)


class ControllerModel(PackedModel):
    """One controller, one broker group, a producer, a push consumer and failures, under one config."""

    name = "rocketmq-5.3.3-controller"

    def __init__(self, config: ControllerConfig | None = None, mutation: str | None = None) -> None:
        self.config = config if config is not None else ControllerConfig()
        self.mutation = mutation or ""
        self._actions = action_table(self.config)
        self.layout = F.layout_for(self.config)   # this configuration's packed layout (also in params)
        self.words = self.layout.words
        self.params = build_params(self.config, CONTROLLER.mutated_codes(self._actions, mutation))
        self.successors = successors

    def actions(self):
        return self._actions

    def initial_states(self) -> np.ndarray:
        """Every broker just started (fenced, §2.1), the controller up with an unknown group (masterEpoch
        0), nothing sent."""
        v = np.zeros(F.NFIELDS, dtype=np.int64)
        v[F.CTL_UP] = 1
        for b in range(self.config.brokers):
            v[F.BROKER_BASE + b * F.STRIDE + F.B_UP] = 1
            v[F.BROKER_BASE + b * F.STRIDE + F.B_FENCED] = 1
        if self.config.controllers > 1:   # three nodes up, node 1 the serving leader, every broker knows it
            v[F.Q_UP] = (1 << self.config.controllers) - 1
            v[F.Q_LEADER] = 1
            v[F.Q_SERVING] = 1
            for c in range(self.config.controllers):
                v[F.Q_BELIEF + c] = 1
            for b in range(self.config.brokers):
                v[F.Q_ADDR + b] = 1
        return self.pack_vector(v)[None, :]

    def describe_outcome(self, flags: int) -> str:
        """The outcome note of a fired action (``AckWaitDone``'s SEND_OK and what it rested on), or ""."""
        from .actions import NOTE_SHIFT, OUTCOME_TEXT
        return OUTCOME_TEXT.get((flags >> NOTE_SHIFT) & 0xFF, "")

    def vector(self, state: State) -> np.ndarray:
        v = np.zeros(F.NFIELDS, dtype=np.int64)
        unpack(np.asarray(state, dtype=np.uint64), self.params, v)
        return v

    def pack_vector(self, v: np.ndarray) -> np.ndarray:
        """The packed words of the field vector ``v`` in this configuration's layout (ValueError when a field
        does not fit its width here, or is set though this configuration does not use it)."""
        out = np.zeros(self.words, dtype=np.uint64)
        if not pack(np.asarray(v, dtype=np.int64), self.params, out):
            raise ValueError("a field value does not fit this configuration's layout")
        return out

    @property
    def state_bits(self) -> int:
        return self.layout.bits

    def parse_action(self, label: str) -> Action:
        """The action whose trace label is ``label`` (ValueError naming the known kinds otherwise)."""
        for action in self._actions:
            if str(action) == label:
                return action
        raise ValueError(f"action {label!r} is not in this configuration's table; kinds: "
                         f"{', '.join(dict.fromkeys(a.declaration.name for a in self._actions))}")

    def encode(self, view: dict[str, Any]) -> State:
        """The packed state of a readable view (the inverse of :meth:`view`)."""
        v = np.zeros(F.NFIELDS, dtype=np.int64)
        mask = lambda ids: sum(1 << (b - 1) for b in ids)  # noqa: E731
        v[F.CTL_UP] = int(view["controller.up"])
        v[F.CTL_MASTER] = view["controller.masterBrokerId"] or 0
        v[F.CTL_EPOCH] = view["controller.masterEpoch"]
        v[F.CTL_SSS] = mask(view["controller.syncStateSet"])
        v[F.CTL_SSS_EPOCH] = view["controller.syncStateSetEpoch"]
        v[F.P_NEXT] = view["producer.next"] - 1
        v[F.P_WAIT] = int(view["producer.waiting"])
        if view["producer.waiting"]:
            v[F.P_WAIT_BROKER] = view["producer.waitBroker"] - 1
            v[F.P_WAIT_END] = view["producer.waitEnd"]
        v[F.ACKED] = mask(view["producer.sendOk"])
        v[F.C_NEXT] = view["consumer.nextOffset"]
        for i, d in enumerate(view["consumer.delivered"]):
            v[F.DELIVERED + i] = d
        for key, field in (("budget.crashes", F.USED_CRASH), ("budget.powerLosses", F.USED_POWER),
                           ("budget.controllerOutages", F.USED_OUTAGE), ("budget.linkLosses", F.USED_LINK),
                           ("budget.haDisconnects", F.USED_HA)):
            v[field] = view[key]
        for b in range(self.config.brokers):
            p, base = f"broker{b + 1}.", F.BROKER_BASE + b * F.STRIDE
            log = [(int(m), int(e)) for m, _, e in (x.partition("@e") for x in view[p + "commitlog"])]
            flat = {F.B_UP: int(view[p + "up"]), F.B_FENCED: int(view[p + "fenced"]),
                    F.B_MASTER: int(view[p + "role"] == "MASTER"), F.B_EPOCH: view[p + "masterEpoch"],
                    F.B_LEN: len(log), F.B_FLUSHED: view[p + "flushed"], F.B_CONFIRM: view[p + "confirmOffset"],
                    F.B_REPUT: view[p + "dispatched"],
                    F.B_EF_N: len(view[p + "epochFile"]), F.B_SSS: mask(view[p + "syncStateSet"]),
                    F.B_SSS_EPOCH: view[p + "syncStateSetEpoch"], F.B_SYNCING: int(view[p + "synchronizing"]),
                    F.B_REMOTE: mask(view[p + "remoteSyncStateSet"]), F.B_PENDING: int(view[p + "alterPending"]),
                    F.B_CONN: view[p + "haMaster"] or 0, F.B_ACK: view[p + "slaveAckOffset"] + 1,
                    F.B_ALIVE: int(view[p + "controllerAlive"]), F.B_LINK_DOWN: int(view[p + "controllerLinkDown"])}
            for off, value in flat.items():
                v[base + off] = value
            for i, (m, e) in enumerate(log):
                v[base + F.B_LOG_MSG + i], v[base + F.B_LOG_EP + i] = m, e
            for i, (e, start) in enumerate(view[p + "epochFile"]):
                v[base + F.B_EF_EP + i], v[base + F.B_EF_START + i] = e, start
        if self.config.flush_disk_type == "SYNC_FLUSH":
            v[F.P_FLUSH_WAIT] = int(view["producer.flushWaiting"])
            v[F.P_REPLICAS_DONE] = int(view["producer.replicasAcked"])
        if self.config.queues > 1:
            v[F.C_NEXT1] = view["consumer.nextOffset1"]
            for i, d in enumerate(view["consumer.delivered1"]):
                v[F.DELIVERED1 + i] = d
            for b in range(self.config.brokers):
                for i, (q, offset) in enumerate(view[f"broker{b + 1}.queueOffsets"]):
                    v[F.LOG_QUEUE + b * F.MAX_MESSAGES + i], v[F.LOG_QOFF + b * F.MAX_MESSAGES + i] = q, offset
        offset_encode(view, v, self.config)   # consumer_offsets = on only
        quorum_encode(view, v, self.config)   # controllers = 3 only
        if self.config.name_servers > 0:
            v[F.P_ROUTE] = view["producer.route"] or 0
            v[F.C_ROUTE] = view["consumer.route"] or 0
            for n in range(self.config.name_servers):
                p = f"nameserver{n + 1}."
                v[F.NS_MASTER + n] = view[p + "master"] or 0
                v[F.NS_VERSION + n] = view[p + "stateVersion"]
                v[F.NS_LIVE + n] = mask(view[p + "live"])
            v[F.USED_NS_RESTART] = view["budget.nameserverRestarts"]
            v[F.USED_NS_CUTOFF] = view["budget.nameserverCutoffs"]
            for b in range(self.config.brokers):
                v[F.HA_ADDR + b] = view[f"broker{b + 1}.haMasterAddress"] or 0
        if self.config.stale_tail == "ON":   # model/controller/disk.py: the stale records from maxOffset on
            for b in range(self.config.brokers):
                p, base = f"broker{b + 1}.", F.BROKER_BASE + b * F.STRIDE
                n = int(v[base + F.B_LEN])
                stale = [(int(m), int(e)) for m, _, e in (x.partition("@e") for x in view[p + "staleTail"])]
                for i, (m, e) in enumerate(stale):
                    v[base + F.B_LOG_MSG + n + i], v[base + F.B_LOG_EP + n + i] = m, e
                v[F.STALE_END + b] = n + len(stale) if stale else 0
                v[F.STALE_CQ + b] = view[p + "staleDispatched"]
                v[F.CLEAN + b] = int(view[p + "cleanShutdown"])
        if self.config.election_ranking == "RANKED":
            for b in range(self.config.brokers):
                v[F.HB_EPOCH + b] = view[f"broker{b + 1}.controllerLiveEpoch"]
                v[F.HB_MAX + b] = view[f"broker{b + 1}.controllerLiveMaxOffset"]
        for b in range(self.config.brokers):
            end = view[f"broker{b + 1}.haTransferEpochEnd"]
            v[F.HA_TX_EPOCH + b] = view[f"broker{b + 1}.haTransferEpoch"] or 0
            v[F.HA_TX_END + b] = 0 if end is None else (F.TX_UNBOUNDED if end == -1 else end)
        return tuple(int(x) for x in self.pack_vector(v))

    def view(self, state: State) -> dict[str, Any]:
        """The readable state: the fields of :func:`model.controller.view.view_kinds`, in its order."""
        v = self.vector(state)
        ids = lambda mask: [b + 1 for b in range(self.config.brokers) if mask >> b & 1]  # noqa: E731
        out: dict[str, Any] = {
            "controller.up": bool(v[F.CTL_UP]), "controller.masterBrokerId": int(v[F.CTL_MASTER]) or None,
            "controller.masterEpoch": int(v[F.CTL_EPOCH]), "controller.syncStateSet": ids(v[F.CTL_SSS]),
            "controller.syncStateSetEpoch": int(v[F.CTL_SSS_EPOCH]),
            "producer.next": int(v[F.P_NEXT]) + 1, "producer.waiting": bool(v[F.P_WAIT]),
            # the waiting put's broker and end offset: no value while no put waits
            "producer.waitBroker": int(v[F.P_WAIT_BROKER]) + 1 if v[F.P_WAIT] else None,
            "producer.waitEnd": int(v[F.P_WAIT_END]) if v[F.P_WAIT] else None,
            "producer.sendOk": [m + 1 for m in range(self.config.messages) if v[F.ACKED] >> m & 1],
            "consumer.nextOffset": int(v[F.C_NEXT]),
            "consumer.delivered": [int(v[F.DELIVERED + i]) for i in range(self.config.messages)],
        }
        out.update({"budget.crashes": int(v[F.USED_CRASH]), "budget.powerLosses": int(v[F.USED_POWER]),
                    "budget.controllerOutages": int(v[F.USED_OUTAGE]), "budget.linkLosses": int(v[F.USED_LINK]),
                    "budget.haDisconnects": int(v[F.USED_HA])})
        for b in range(self.config.brokers):
            g = lambda off: int(v[F.BROKER_BASE + b * F.STRIDE + off])  # noqa: E731
            p = f"broker{b + 1}."
            n, k = g(F.B_LEN), g(F.B_EF_N)
            out.update({
                p + "up": bool(g(F.B_UP)), p + "fenced": bool(g(F.B_FENCED)),
                p + "role": "MASTER" if g(F.B_MASTER) else "SLAVE", p + "masterEpoch": g(F.B_EPOCH),
                p + "commitlog": [f"{g(F.B_LOG_MSG + i)}@e{g(F.B_LOG_EP + i)}" for i in range(n)],
                p + "flushed": g(F.B_FLUSHED), p + "confirmOffset": g(F.B_CONFIRM),
                p + "dispatched": g(F.B_REPUT),
                p + "epochFile": [(g(F.B_EF_EP + i), g(F.B_EF_START + i)) for i in range(k)],
                p + "syncStateSet": ids(g(F.B_SSS)), p + "syncStateSetEpoch": g(F.B_SSS_EPOCH),
                p + "synchronizing": bool(g(F.B_SYNCING)), p + "remoteSyncStateSet": ids(g(F.B_REMOTE)),
                p + "alterPending": bool(g(F.B_PENDING)), p + "haMaster": g(F.B_CONN) or None,
                p + "slaveAckOffset": g(F.B_ACK) - 1, p + "controllerAlive": bool(g(F.B_ALIVE)),
                p + "controllerLinkDown": bool(g(F.B_LINK_DOWN)),
            })
            if self.config.election_ranking == "RANKED":
                # the controller's heartbeat-table entry of this broker: its reported (epoch, maxOffset)
                out.update({p + "controllerLiveEpoch": int(v[F.HB_EPOCH + b]),
                            p + "controllerLiveMaxOffset": int(v[F.HB_MAX + b])})
            # the HA connection serving this broker as a slave: its transfer epoch and end (-1: unbounded)
            tx, end = int(v[F.HA_TX_EPOCH + b]), int(v[F.HA_TX_END + b])
            out.update({p + "haTransferEpoch": tx or None,
                        p + "haTransferEpochEnd": (-1 if end == F.TX_UNBOUNDED else end) if tx else None})
        if self.config.flush_disk_type == "SYNC_FLUSH":
            # a waiting put's flush future not yet complete / its replica future complete PUT_OK
            out.update({"producer.flushWaiting": bool(v[F.P_FLUSH_WAIT]),
                        "producer.replicasAcked": bool(v[F.P_REPLICAS_DONE])})
        if self.config.queues > 1:
            # queue 1's consumer offset and deliveries; each record's (queueId, queueOffset), by position
            out["consumer.nextOffset1"] = int(v[F.C_NEXT1])
            out["consumer.delivered1"] = [int(v[F.DELIVERED1 + i]) for i in range(self.config.messages)]
            for b in range(self.config.brokers):
                n = int(v[F.BROKER_BASE + b * F.STRIDE + F.B_LEN])
                n = max(n, int(v[F.STALE_END + b]))   # with stale_tail: the stale records' too
                out[f"broker{b + 1}.queueOffsets"] = [
                    (int(v[F.LOG_QUEUE + b * F.MAX_MESSAGES + i]), int(v[F.LOG_QOFF + b * F.MAX_MESSAGES + i]))
                    for i in range(n)]
        out.update(offset_view(v, self.config))   # consumer_offsets = on only
        out.update(quorum_view(v, self.config))   # controllers = 3 only
        if self.config.name_servers > 0:
            # the clients' route snapshots and each name server's brokerId-0 entry (model/controller/namesrv.py)
            out["producer.route"] = int(v[F.P_ROUTE]) or None
            out["consumer.route"] = int(v[F.C_ROUTE]) or None
            for n in range(self.config.name_servers):
                p = f"nameserver{n + 1}."
                out[p + "master"] = int(v[F.NS_MASTER + n]) or None
                out[p + "stateVersion"] = int(v[F.NS_VERSION + n])
                out[p + "live"] = ids(v[F.NS_LIVE + n])
            out["budget.nameserverRestarts"] = int(v[F.USED_NS_RESTART])
            out["budget.nameserverCutoffs"] = int(v[F.USED_NS_CUTOFF])
            for b in range(self.config.brokers):   # the HA address a name server's reply gave (None: none)
                out[f"broker{b + 1}.haMasterAddress"] = int(v[F.HA_ADDR + b]) or None
        if self.config.stale_tail == "ON":   # model/controller/disk.py
            for b in range(self.config.brokers):
                g = lambda off: int(v[F.BROKER_BASE + b * F.STRIDE + off])  # noqa: E731
                p = f"broker{b + 1}."
                out[p + "staleTail"] = [f"{g(F.B_LOG_MSG + i)}@e{g(F.B_LOG_EP + i)}"
                                        for i in range(g(F.B_LEN), int(v[F.STALE_END + b]))]
                out[p + "staleDispatched"] = int(v[F.STALE_CQ + b])
                out[p + "cleanShutdown"] = bool(v[F.CLEAN + b])
        return out
