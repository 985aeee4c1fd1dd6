"""The readable view of a state: named fields in RocketMQ terms, for traces and reports only.

The view is a flat, ordered mapping from a dotted name (``slave1.nextTransferFromWhere``,
``consumer1.q0.nextOffset``) to a JSON value: booleans, ints, ``null`` for "no entry", lists of message ids
for commitlogs and message sets, lists of brokerIds for routes, and words for enumerations (``STREAMING``). :func:`encode` turns a view
back into the same packed state, so a trace written as JSON can be replayed exactly.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import fields as F
from .config import Config

LINK_NAMES = ("DOWN", "CONNECTED", "STREAMING")
WAIT_NAMES = ("none", "HA ack (PUT_OK)", "HA ack (FLUSH_DISK_TIMEOUT)")


def _set_codec(first: int, last: int, what: str) -> "_Codec":
    """A set of small ints ``first..last`` held as bits (bit ``x - first``), shown as a sorted list."""
    def decode(mask: int) -> list[int]:
        return [x for x in range(first, last + 1) if mask >> (x - first) & 1]

    def encode(values: Any) -> int:
        if not isinstance(values, (list, tuple)):
            raise ValueError(f"expected a list of {what}s, got {values!r}")
        mask = 0
        for x in values:
            if not isinstance(x, int) or isinstance(x, bool) or not first <= x <= last:
                raise ValueError(f"bad {what} {x!r}")
            mask |= 1 << (x - first)
        return mask

    return _Codec(decode, encode)


def _bool(x: Any) -> int:
    if not isinstance(x, bool):
        raise ValueError(f"expected true/false, got {x!r}")
    return int(x)


def _int(x: Any) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x < 0:
        raise ValueError(f"expected a non-negative int, got {x!r}")
    return x


def _opt(x: Any) -> int:
    return 0 if x is None else _int(x) + 1


def _name(names: tuple[str, ...]) -> Callable[[Any], int]:
    def parse(x: Any) -> int:
        if x not in names:
            raise ValueError(f"expected one of {', '.join(names)}, got {x!r}")
        return names.index(x)
    return parse


@dataclass(frozen=True)
class _Codec:
    decode: Callable[[int], Any]
    encode: Callable[[Any], int]


BOOL = _Codec(bool, _bool)
INT = _Codec(int, _int)
IDS = _set_codec(1, F.MAX_MESSAGES, "message id")
BROKERS = _set_codec(0, F.MAX_SLAVES, "brokerId")   # a route: the listed brokerIds
OPTIONAL = _Codec(lambda x: None if x == 0 else x - 1, _opt)   # offset + 1, 0 = absent
LINK = _Codec(lambda x: LINK_NAMES[x], _name(LINK_NAMES))
WAIT = _Codec(lambda x: WAIT_NAMES[x], _name(WAIT_NAMES))


def view_fields(cfg: Config) -> list[tuple[str, int, _Codec]]:
    """``(name, field slot, codec)`` for every field of ``cfg``'s states, in display order."""
    out: list[tuple[str, int, _Codec]] = []
    qs = range(cfg.queues)
    files = cfg.commitlog_file_messages > 0
    out += [("master.up", F.M_UP, BOOL), ("master.commitlog", F.M_LOG, IDS)]
    if files:
        out.append(("master.minOffset", F.M_MIN, INT))
    out += [("master.flushed", F.M_FLUSHED, INT), ("master.push2SlaveMaxOffset", F.P2S, INT)]
    out += [(f"master.consumerOffset[{q}]", F.M_OFF_MEM + q, OPTIONAL) for q in qs]
    out += [(f"master.consumerOffsetJson[{q}]", F.M_OFF_DISK + q, OPTIONAL) for q in qs]
    out += [("nameserver.route", F.NS_ROUTE, BROKERS), ("nameserver.topicRoute", F.NS_TOPIC, BOOL)]
    for s in range(cfg.slaves):
        n = f"slave{s + 1}"
        out += [(f"{n}.up", F.S_UP + s, BOOL), (f"{n}.commitlog", F.S_LOG + s, IDS)]
        if files:
            out.append((f"{n}.minOffset", F.S_MIN + s, INT))
        out += [(f"{n}.flushed", F.S_FLUSHED + s, INT), (f"{n}.haLink", F.S_LINK + s, LINK),
                (f"{n}.nextTransferFromWhere", F.S_TRANSFER + s, INT),
                (f"{n}.haMasterAddress", F.S_HA_ADDR + s, BOOL),
                (f"{n}.syncMasterAddress", F.S_SYNC_ADDR + s, BOOL)]
        out += [(f"{n}.consumerOffset[{q}]", F.S_OFF_MEM + s * F.MAX_QUEUES + q, OPTIONAL) for q in qs]
        out += [(f"{n}.consumerOffsetJson[{q}]", F.S_OFF_DISK + s * F.MAX_QUEUES + q, OPTIONAL) for q in qs]
    out += [("producer.nextMessage", F.P_NEXT, INT), ("producer.sendOk", F.P_ACKED, IDS)]
    if cfg.sync_master:
        out.append(("producer.waitingFor", F.P_WAIT, WAIT))
    if cfg.queues > 1:
        out += [(f"message{m}.queueOffset", F.MSG_QO + m - 1, INT) for m in range(1, cfg.messages + 1)]
    for c in range(cfg.consumers):
        n = f"consumer{c + 1}"
        out += [(f"{n}.up", F.C_UP + c, BOOL), (f"{n}.route", F.C_ROUTE + c, BROKERS)]
        for q in qs:
            k = c * F.MAX_QUEUES + q
            out += [(f"{n}.q{q}.owned", F.MQ_OWNED + k, BOOL), (f"{n}.q{q}.dropped", F.MQ_DROPPED + k, BOOL),
                    (f"{n}.q{q}.nextOffset", F.MQ_NEXT + k, INT), (f"{n}.q{q}.offset", F.MQ_MEM + k, OPTIONAL),
                    (f"{n}.q{q}.inFlight", F.MQ_INFLIGHT + k, IDS),
                    (f"{n}.q{q}.queueOffsetMax", F.MQ_PQ_MAX + k, OPTIONAL),
                    (f"{n}.q{q}.suggestWhichBrokerId", F.MQ_SUGGEST + k, INT),
                    (f"{n}.q{q}.pendingCorrection", F.MQ_CORRECTION + k, OPTIONAL),
                    (f"{n}.q{q}.laterCorrection", F.MQ_CORRECTION2 + k, OPTIONAL),
                    (f"{n}.q{q}.droppedInFlight", F.MQ_ORPHANS + k, IDS)]
    out += [("history.delivered", F.H_DELIVERED, IDS), ("history.redelivered", F.H_REDELIVERED, BOOL)]
    out += [(f"history.highestCommitted[{q}]", F.H_HIGH + q, INT) for q in qs]
    if cfg.max_file_deletions:
        out += [("history.expired", F.H_EXPIRED, IDS), ("retention.fileDeletions", F.B_FILE_DELETIONS, INT)]
    budgets = [("masterCrashes", F.B_MASTER_CRASH, cfg.max_master_crashes),
               ("masterPowerLosses", F.B_MASTER_POWER, cfg.max_master_power_losses),
               ("slaveCrashes", F.B_SLAVE_CRASH, cfg.max_slave_crashes),
               ("slavePowerLosses", F.B_SLAVE_POWER, cfg.max_slave_power_losses),
               ("consumerRestarts", F.B_CONSUMER_RESTART, cfg.max_consumer_restarts),
               ("haDisconnects", F.B_HA_DISCONNECT, cfg.max_ha_disconnects)]
    out += [(f"failures.{name}", slot, INT) for name, slot, budget in budgets if budget]
    return out


def view_kinds(cfg: Config) -> dict[str, str]:
    """Every readable field of ``cfg``'s states, in display order, with the kind of its values: ``ids``
    (a set of message ids or brokerIds), ``optional`` (an offset or nothing) or ``plain``."""
    kinds = {id(IDS): "ids", id(BROKERS): "ids", id(OPTIONAL): "optional"}
    return {name: kinds.get(id(codec), "plain") for name, _, codec in view_fields(cfg)}


def decode_vector(v: np.ndarray, cfg: Config) -> dict[str, Any]:
    """The view of an unpacked field vector."""
    return {name: codec.decode(int(v[slot])) for name, slot, codec in view_fields(cfg)}


def encode_vector(view: dict[str, Any], cfg: Config) -> np.ndarray:
    """The field vector of a view; ValueError naming the field on a missing, unknown or bad value."""
    spec = view_fields(cfg)
    known = {name for name, _, _ in spec}
    unknown = sorted(set(view) - known)
    if unknown:
        raise ValueError(f"unknown state field '{unknown[0]}'")
    v = np.zeros(F.NFIELDS, dtype=np.int64)
    for name, slot, codec in spec:
        if name not in view:
            raise ValueError(f"state field '{name}' is missing")
        try:
            v[slot] = codec.encode(view[name])
        except ValueError as exc:
            raise ValueError(f"state field '{name}': {exc}") from None
    return v
