"""The RocketMQ 5.3.3 controller-mode model of one configuration, as the engines see it."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..packed import PackedModel, State
from . import actions as A
from . import fields as F
from .config import ControllerConfig
from .kernel import KIND, pack, successors, unpack
from .params import MUTANTS, build_params


#: the part of the cluster each action kind belongs to, in the 4.4 model's words (the explorer shows it
#: beside the action)
ACTORS = {
    "producer": ("SendMessage", "AckWaitDone", "AckWaitTimeout"),
    "client": ("PullMessage",),
    "store": ("ReputMessage", "FlushCommitLog"),
    "controller": ("RegisterBroker", "BrokerElect", "ControllerElect", "ControllerElectNone", "ControllerDeclareDead",
                   "BrokerHeartbeat", "SyncBrokerMetadata", "AlterSyncStateSet", "AlterSyncStateSetReplyLost",
                   "CheckSyncStateSet"),
    "ha": ("HAConnect", "SlaveReportOffset", "PushData", "PushHeartbeat"),
    "failure": ("BrokerCrash", "BrokerPowerLoss", "BrokerRestart", "ControllerDown", "ControllerUp",
                "ControllerLinkLoss", "ControllerLinkHeal", "HADisconnect"),
}
ACTOR = {kind: actor for actor, kinds in ACTORS.items() for kind in kinds}

#: the kernel function each action kind runs (its docstring says what the action models)
FUNCTIONS = {
    "ControllerDown": A.controller_down, "ControllerUp": A.controller_up, "SendMessage": A.send_message,
    "AckWaitDone": A.ack_wait_done, "AckWaitTimeout": A.ack_wait_timeout, "PullMessage": A.pull_message,
    "BrokerCrash": A.broker_crash, "BrokerPowerLoss": A.broker_power_loss, "BrokerRestart": A.broker_restart,
    "FlushCommitLog": A.flush_commitlog, "RegisterBroker": A.register_broker, "BrokerElect": A.broker_elect,
    "ControllerElect": A.controller_elect, "ControllerElectNone": A.controller_elect_none,
    "ControllerDeclareDead": A.controller_declare_dead, "BrokerHeartbeat": A.broker_heartbeat,
    "SyncBrokerMetadata": A.sync_broker_metadata, "ControllerLinkLoss": A.link_loss,
    "ControllerLinkHeal": A.link_heal, "AlterSyncStateSet": A.alter_sync_state_set,
    "AlterSyncStateSetReplyLost": A.alter_sync_state_set_reply_lost, "CheckSyncStateSet": A.check_sync_state_set,
    "HAConnect": A.ha_connect, "SlaveReportOffset": A.slave_report, "PushData": A.push_data,
    "PushHeartbeat": A.push_heartbeat, "HADisconnect": A.ha_disconnect, "ReputMessage": A.reput_message,
}


@dataclass(frozen=True)
class ControllerAction:
    """One action of the table: its kind and 0-based arguments; ``str`` is its trace label."""

    name: str
    args: tuple[tuple[str, int], ...] = ()

    @property
    def actor(self) -> str:
        """The part of the cluster the action belongs to (``controller``, ``ha``, ``failure``...)."""
        return ACTOR[self.name]

    @property
    def doc(self) -> str:
        """What the action models: the docstring of its kernel function, naming the 5.3.3 ``Class#method``."""
        return FUNCTIONS[self.name].__doc__ or ""

    @property
    def code(self) -> tuple[int, int, int]:
        values = [v - 1 for _, v in self.args] + [0, 0]
        return KIND[self.name], values[0], values[1]

    def __str__(self) -> str:
        return f"{self.name}(" + ", ".join(f"{k}={v}" for k, v in self.args) + ")"


def action_table(cfg: ControllerConfig) -> tuple[ControllerAction, ...]:
    """Every action of ``cfg`` in the kernel's fixed order (brokers by controller id)."""
    ids = range(1, cfg.brokers + 1)
    acts: list[ControllerAction] = []
    if cfg.max_controller_outages:
        acts += [ControllerAction("ControllerDown"), ControllerAction("ControllerUp")]
    acts += [ControllerAction("SendMessage", (("broker", b),)) for b in ids]
    if cfg.all_ack_in_sync_state_set or cfg.in_sync_replicas > 1:
        acts += [ControllerAction("AckWaitDone"), ControllerAction("AckWaitTimeout")]
    acts += [ControllerAction("PullMessage", (("broker", b),)) for b in ids]
    for b in ids:
        one = (("broker", b),)
        if cfg.max_broker_crashes:
            acts.append(ControllerAction("BrokerCrash", one))
        if cfg.max_broker_power_losses:
            acts += [ControllerAction("BrokerPowerLoss", one), ControllerAction("FlushCommitLog", one)]
        if cfg.max_broker_crashes or cfg.max_broker_power_losses:
            acts.append(ControllerAction("BrokerRestart", one))
        acts += [ControllerAction("ReputMessage", one), ControllerAction("RegisterBroker", one)]
        acts += [ControllerAction("BrokerElect", (("broker", b), ("elected", c))) for c in ids]
        acts += [ControllerAction("ControllerDeclareDead", one), ControllerAction("BrokerHeartbeat", one),
                 ControllerAction("SyncBrokerMetadata", one)]
        if cfg.max_link_losses:
            acts += [ControllerAction("ControllerLinkLoss", one), ControllerAction("ControllerLinkHeal", one)]
        acts += [ControllerAction("AlterSyncStateSet", one), ControllerAction("AlterSyncStateSetReplyLost", one),
                 ControllerAction("CheckSyncStateSet", one)]
        acts += [ControllerAction("HAConnect", (("slave", b), ("master", m))) for m in ids if m != b]
        acts += [ControllerAction(name, (("slave", b),)) for name in ("SlaveReportOffset", "PushData", "PushHeartbeat")]
        if cfg.max_ha_disconnects:
            acts.append(ControllerAction("HADisconnect", (("slave", b),)))
    acts += [ControllerAction("ControllerElect", (("elected", c),)) for c in ids]
    acts.append(ControllerAction("ControllerElectNone"))
    return tuple(acts)


class ControllerModel(PackedModel):
    """One controller, one broker group, a producer, a push consumer and failures, under one config."""

    name = "rocketmq-5.3.3-controller"
    words = F.WORDS

    def __init__(self, config: ControllerConfig | None = None, mutation: str | None = None) -> None:
        self.config = config if config is not None else ControllerConfig()
        if (mutation or "") not in MUTANTS:
            raise ValueError(f"unknown mutation '{mutation}'; known: {', '.join(m for m in MUTANTS if m)}")
        self._actions = action_table(self.config)
        self.params = build_params(self.config, [a.code for a in self._actions], mutation or "")
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
        out = np.zeros((1, F.WORDS), dtype=np.uint64)
        assert pack(v, out[0])
        return out

    def vector(self, state: State) -> np.ndarray:
        v = np.zeros(F.NFIELDS, dtype=np.int64)
        unpack(np.asarray(state, dtype=np.uint64), v)
        return v

    def parse_action(self, label: str) -> ControllerAction:
        """The action whose trace label is ``label`` (ValueError naming the known kinds otherwise)."""
        for action in self._actions:
            if str(action) == label:
                return action
        raise ValueError(f"action {label!r} is not in this configuration's table; kinds: "
                         f"{', '.join(dict.fromkeys(a.name for a in self._actions))}")

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
        out = np.zeros(F.WORDS, dtype=np.uint64)
        if not pack(v, out):
            raise ValueError("a field of the view does not fit its bit width")
        return tuple(int(x) for x in out)

    def view(self, state: State) -> dict[str, Any]:
        v = self.vector(state)
        ids = lambda mask: [b + 1 for b in range(self.config.brokers) if mask >> b & 1]  # noqa: E731
        out: dict[str, Any] = {
            "controller.up": bool(v[F.CTL_UP]), "controller.masterBrokerId": int(v[F.CTL_MASTER]) or None,
            "controller.masterEpoch": int(v[F.CTL_EPOCH]), "controller.syncStateSet": ids(v[F.CTL_SSS]),
            "controller.syncStateSetEpoch": int(v[F.CTL_SSS_EPOCH]),
            "producer.next": int(v[F.P_NEXT]) + 1, "producer.waiting": bool(v[F.P_WAIT]),
            "producer.sendOk": [m + 1 for m in range(self.config.messages) if v[F.ACKED] >> m & 1],
            "consumer.nextOffset": int(v[F.C_NEXT]),
            "consumer.delivered": [int(v[F.DELIVERED + i]) for i in range(self.config.messages)],
        }
        out.update({"budget.crashes": int(v[F.USED_CRASH]), "budget.powerLosses": int(v[F.USED_POWER]),
                    "budget.controllerOutages": int(v[F.USED_OUTAGE]), "budget.linkLosses": int(v[F.USED_LINK]),
                    "budget.haDisconnects": int(v[F.USED_HA])})
        if v[F.P_WAIT]:
            out["producer.waitBroker"] = int(v[F.P_WAIT_BROKER]) + 1
            out["producer.waitEnd"] = int(v[F.P_WAIT_END])
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
        return out
