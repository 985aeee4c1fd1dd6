"""The consumer-offset properties of the controller mode (:mod:`.offsets`) read in plain Python over a
state's view, as :mod:`.readable` reads the others: the random-walk tests compare them with the compiled
checks, and the explanations (:mod:`.explain_offsets`) are built on them."""
from __future__ import annotations

from typing import Any

from .readable import messages, queue_records, writers

NOT_FOUND = -1


def applies(cfg: Any) -> bool:
    """The properties apply with consumer_offsets=ON only (off: nothing to check)."""
    return getattr(cfg, "consumer_offsets", "OFF") == "ON"


def asked_at_restart(view: dict[str, Any], cfg: Any) -> list[int]:
    """The brokers a consumer (re)starting now may ask for its offset: the masters the route may list at
    brokerId 0, else every listed (running, unfenced) broker."""
    masters = writers(view, cfg.brokers)
    if masters:
        return masters
    return [b for b in range(1, cfg.brokers + 1) if view[f"broker{b}.up"] and not view[f"broker{b}.fenced"]]


def consume_queue(view: dict[str, Any], b: int) -> list[tuple[int, int, int]]:
    """Broker ``b``'s dispatched records as (message id, queueId, queueOffset)."""
    return queue_records(view, b)[:view[f"broker{b}.dispatched"]]


def committed_offset(view: dict[str, Any], b: int, q: int) -> int:
    """``queryConsumerOffset`` on broker ``b``: the stored offset, else 0 when queue ``q``'s entry 0 is
    dispatched, else -1 (QUERY_NOT_FOUND)."""
    stored = view[f"broker{b}.consumerOffset[{q}]"]
    if stored is not None:
        return stored
    return 0 if any(rq == q and ro == 0 for _, rq, ro in consume_queue(view, b)) else NOT_FOUND


def skipped(view: dict[str, Any], b: int, q: int) -> list[tuple[int, int]]:
    """(message, queue offset) of broker ``b``'s consume queue ``q`` below its committed offset that were
    never delivered."""
    start = committed_offset(view, b, q)
    return [(m, o) for m, rq, o in consume_queue(view, b)
            if rq == q and o < start and m not in view["history.delivered"]]


def stored_anywhere(view: dict[str, Any], cfg: Any) -> set[int]:
    return {m for b in range(1, cfg.brokers + 1) for m, _ in messages(view, b)}


def consumed_message_never_lost(view, cfg) -> bool:
    return not applies(cfg) or set(view["history.delivered"]) <= stored_anywhere(view, cfg)


def committed_offset_never_regresses(view, cfg) -> bool:
    if not applies(cfg):
        return True
    return all(not 0 <= committed_offset(view, b, q) < view[f"history.highestCommitted[{q}]"]
               for b in asked_at_restart(view, cfg) for q in range(cfg.queues))


def no_message_skipped(view, cfg) -> bool:
    return not applies(cfg) or not any(skipped(view, b, q) for b in asked_at_restart(view, cfg)
                                       for q in range(cfg.queues))


ALWAYS = {f.__name__: f for f in (consumed_message_never_lost, committed_offset_never_regresses,
                                  no_message_skipped)}
