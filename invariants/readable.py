"""Every property once more, in plain Python over the readable view (:meth:`model.RocketMQModel.view`).

A second reading of each predicate, in RocketMQ's names rather than field slots, that anyone can step
through in a debugger; tests compare it with the compiled checks on random walks
(tests/model/test_properties_of_model.py). ``STATE[name](view, config)`` answers the state question of
a state property (always: holds; sometimes: witnessed; graph: the goal holds); ``TRANSITION[name](before,
action, outcome, after, config)`` whether a transition witnesses a sometimes property, from the action,
the views around it and the outcome the kernel reports (the text of :func:`model.events.describe`).
"""
from __future__ import annotations

from typing import Any, Callable

View = dict[str, Any]


def brokers(cfg: Any) -> list[str]:
    return ["master"] + [f"slave{s}" for s in range(1, cfg.slaves + 1)]


def stored_anywhere(view: View, cfg: Any) -> set[int]:
    """Every message id some broker's commitlog holds, up or down."""
    return {m for b in brokers(cfg) for m in view[f"{b}.commitlog"]}


def expired(view: View) -> set[int]:
    """Messages retention deleted somewhere (``history.expired``; none without retention)."""
    return set(view.get("history.expired", []))


def acked_message_never_lost(view: View, cfg: Any) -> bool:
    return set(view["producer.sendOk"]) <= stored_anywhere(view, cfg) | expired(view)


def consumed_message_never_lost(view: View, cfg: Any) -> bool:
    return set(view["history.delivered"]) <= stored_anywhere(view, cfg) | expired(view)


def min_offset(view: View, broker: str) -> int:
    """The offset of the first entry ``broker``'s commitlog holds (0 with one unbounded file)."""
    return view.get(f"{broker}.minOffset", 0)


def by_offset(view: View, broker: str) -> dict[int, int]:
    """``{offset: message id}`` of what ``broker``'s commitlog holds."""
    first = min_offset(view, broker)
    return {first + i: m for i, m in enumerate(view[f"{broker}.commitlog"])}


def diverged_at(view: View, slave: str) -> int | None:
    """The first offset both the master and ``slave`` hold with different messages, or None."""
    master, log = by_offset(view, "master"), by_offset(view, slave)
    return next((o for o in sorted(master.keys() & log.keys()) if master[o] != log[o]), None)


def replicas_agree(view: View, cfg: Any) -> bool:
    return all(diverged_at(view, b) is None for b in brokers(cfg)[1:])


def log_end(view: View, broker: str) -> int:
    """``broker``'s max offset: its min offset plus the entries it holds."""
    return min_offset(view, broker) + len(view[f"{broker}.commitlog"])


def caught_up(view: View, slave: str) -> bool:
    """``slave`` holds exactly the master's commitlog from the master's min offset on."""
    if min_offset(view, slave) > min_offset(view, "master") or log_end(view, slave) != log_end(view, "master"):
        return False
    log = by_offset(view, slave)
    return all(log[o] == m for o, m in by_offset(view, "master").items())


def replication_can_catch_up(view: View, cfg: Any) -> bool:
    """The goal: every live slave holds exactly the master's commitlog from the master's min offset on."""
    return all(caught_up(view, b) for b in brokers(cfg)[1:] if view[f"{b}.up"])


def message_redelivered(view: View, cfg: Any) -> bool:
    return bool(view["history.redelivered"])


def message_acked(view: View, cfg: Any) -> bool:
    return bool(view["producer.sendOk"])


def message_consumed(view: View, cfg: Any) -> bool:
    return bool(view["history.delivered"])


def restart_broker(view: View, cfg: Any) -> str | None:
    """The broker a consumer starting now asks: the lowest brokerId of the name server's route (the master
    if registered, else the lowest registered slave); none when the topic has no route."""
    route = view["nameserver.route"] if view["nameserver.topicRoute"] else []
    if not route:
        return None
    return "master" if route[0] == 0 else f"slave{route[0]}"


def consume_queue(view: View, broker: str, q: int, cfg: Any) -> tuple[int, list[int]]:
    """``(min offset, message ids from it)`` of ``broker``'s queue ``q``: its messages in log order, a
    repeated queue offset dropped."""
    if cfg.queues == 1:
        return min_offset(view, broker), list(view[f"{broker}.commitlog"])
    entries: list[int] = []
    first = 0
    for m in view[f"{broker}.commitlog"]:
        if (m - 1) % cfg.queues != q:
            continue
        at = view[f"message{m}.queueOffset"]
        if not entries:
            first = at
        if at >= first + len(entries):
            entries.append(m)
    return first, entries


def query_consumer_offset(view: View, broker: str, q: int, cfg: Any) -> int | None:
    """What ``queryConsumerOffset`` answers: the stored offset; else 0 for a queue starting at 0 whose first
    message is still in memory; else None (QUERY_NOT_FOUND)."""
    stored = view[f"{broker}.consumerOffset[{q}]"]
    if stored is not None:
        return stored
    first, entries = consume_queue(view, broker, q, cfg)
    if first > 0:
        return None
    if not entries:
        return 0
    log = view[f"{broker}.commitlog"]
    behind = len(log) - log.index(entries[0]) - 1
    return None if behind > cfg.consume_slowly_backlog else 0


def committed_offset_never_regresses(view: View, cfg: Any) -> bool:
    broker = restart_broker(view, cfg)
    if broker is None or not view[f"{broker}.up"]:
        return True
    for q in range(cfg.queues):
        read = query_consumer_offset(view, broker, q, cfg)
        if read is not None and read < view[f"history.highestCommitted[{q}]"]:
            return False
    return True


def no_message_skipped(view: View, cfg: Any) -> bool:
    broker = restart_broker(view, cfg)
    if broker is None or not view[f"{broker}.up"]:
        return True
    delivered = set(view["history.delivered"]) | expired(view)
    for q in range(cfg.queues):
        start = query_consumer_offset(view, broker, q, cfg)
        if start is None:
            continue
        first, entries = consume_queue(view, broker, q, cfg)
        if not set(entries[:max(start - first, 0)]) <= delivered:
            return False
    return True


def slave_serves_pull(before: View, action: Any, outcome: str, after: View, cfg: Any) -> bool:
    return type(action).__name__ == "Pull" and outcome.startswith("FOUND from broker ") \
        and not outcome.endswith(" 0")


def offset_committed_to_slave(before: View, action: Any, outcome: str, after: View, cfg: Any) -> bool:
    """A client's offset commit (persistAll, a rebalance's persist, the OFFSET_ILLEGAL task) sent to a live
    slave: the consumer's route, after the action's own refresh, no longer lists the master, and a memory
    offset of one of its queues was there to send."""
    if type(action).__name__ not in ("PersistAllOffsets", "Rebalance", "CorrectIllegalOffset"):
        return False
    c = f"consumer{action.consumer}"
    route = after[f"{c}.route"]
    if not route or route[0] == 0 or not before[f"slave{route[0]}.up"]:
        return False
    if type(action).__name__ == "CorrectIllegalOffset":
        return True
    queues = range(cfg.queues)
    if type(action).__name__ == "PersistAllOffsets":
        return any(before[f"{c}.q{q}.owned"] and before[f"{c}.q{q}.offset"] is not None for q in queues)
    # a rebalance persists the queues it gives away
    return any(before[f"{c}.q{q}.owned"] and not after[f"{c}.q{q}.owned"] and before[f"{c}.q{q}.offset"]
               is not None for q in queues)


def master_recovers(before: View, action: Any, outcome: str, after: View, cfg: Any) -> bool:
    return not before["master.up"] and after["master.up"]


def slave_sync_overwrites_offset(before: View, action: Any, outcome: str, after: View, cfg: Any) -> bool:
    if type(action).__name__ != "SlaveSyncAll":
        return False
    b = f"slave{action.slave}"
    for q in range(cfg.queues):
        old, new = before[f"{b}.consumerOffset[{q}]"], after[f"{b}.consumerOffset[{q}]"]
        if old is not None and (new is None or new < old):
            return True
    return False


def message_acked_while_slave_away(before: View, action: Any, outcome: str, after: View, cfg: Any) -> bool:
    """A send answered SEND_OK at once (not after a SYNC_MASTER wait) while no slave's HA link is up."""
    return type(action).__name__ == "SendMessage" and outcome == "SEND_OK" \
        and all(after[f"slave{s}.haLink"] == "DOWN" for s in range(1, cfg.slaves + 1))


STATE: dict[str, Callable[[View, Any], bool]] = {f.__name__: f for f in (
    acked_message_never_lost, consumed_message_never_lost, replicas_agree, committed_offset_never_regresses,
    no_message_skipped, message_redelivered, message_acked, message_consumed, replication_can_catch_up)}
TRANSITION: dict[str, Callable[..., bool]] = {f.__name__: f for f in (
    slave_serves_pull, offset_committed_to_slave, master_recovers, slave_sync_overwrites_offset,
    message_acked_while_slave_away)}
