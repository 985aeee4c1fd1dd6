"""The controller properties read in plain Python over a state's view (``ControllerModel.view``): a second,
independent reading that the random-walk test compares with the compiled checks on every state."""
from __future__ import annotations

from typing import Any


def messages(view: dict[str, Any], b: int) -> list[tuple[int, int]]:
    """Broker ``b``'s commitlog as (message id, epoch) pairs ("2@e1" in the view)."""
    return [(int(m), int(e)) for m, _, e in (x.partition("@e") for x in view[f"broker{b}.commitlog"])]


def writers(view: dict[str, Any], brokers: int) -> list[int]:
    """The brokers that accept writes: running, unfenced, in the master role."""
    return [b for b in range(1, brokers + 1) if view[f"broker{b}.up"] and not view[f"broker{b}.fenced"]
            and view[f"broker{b}.role"] == "MASTER"]


def current_master(view: dict[str, Any], brokers: int) -> int | None:
    """The controller's master once it has taken the role (a writer at the controller's epoch), else None."""
    b = view["controller.masterBrokerId"]
    if b and b in writers(view, brokers) and view[f"broker{b}.masterEpoch"] == view["controller.masterEpoch"]:
        return b
    return None


def acked_message_on_every_later_master(view, cfg) -> bool:
    b = current_master(view, cfg.brokers)
    return b is None or all(m in [x for x, _ in messages(view, b)] for m in view["producer.sendOk"])


def queue_records(view: dict[str, Any], b: int) -> list[tuple[int, int, int]]:
    """Broker ``b``'s commitlog as (message id, queueId, queueOffset), by position (one queue: queue 0, the
    position)."""
    offsets = view.get(f"broker{b}.queueOffsets")
    log = messages(view, b)
    if offsets is None:
        return [(m, 0, i) for i, (m, _) in enumerate(log)]
    return [(m, q, o) for (m, _), (q, o) in zip(log, offsets)]


def delivered_at(view: dict[str, Any]) -> dict[tuple[int, int], int]:
    """What the consumer was given, by (queueId, queueOffset)."""
    out = {(0, o): d for o, d in enumerate(view["consumer.delivered"]) if d}
    out.update({(1, o): d for o, d in enumerate(view.get("consumer.delivered1", [])) if d})
    return out


def queue_offset_names_one_message(view, cfg) -> bool:
    if cfg.queues > 1:
        given = delivered_at(view)
        return all(given.get((q, o), m) == m for b in writers(view, cfg.brokers)
                   for m, q, o in queue_records(view, b)[:view[f"broker{b}.dispatched"]])
    for b in writers(view, cfg.brokers):
        log = messages(view, b)
        for i, d in enumerate(view["consumer.delivered"][:view[f"broker{b}.dispatched"]]):
            if d and log[i][0] != d:
                return False
    return True


def delivered_message_stays_on_master(view, cfg) -> bool:
    b = current_master(view, cfg.brokers)
    if b is None:
        return True
    if cfg.queues > 1:
        held = set(queue_records(view, b))
        return all((d, q, o) in held for (q, o), d in delivered_at(view).items())
    log = messages(view, b)
    return all(not d or (i < len(log) and log[i][0] == d) for i, d in enumerate(view["consumer.delivered"]))


def one_master_per_epoch(view, cfg) -> bool:
    epochs = [view[f"broker{b}.masterEpoch"] for b in writers(view, cfg.brokers)]
    return len(epochs) == len(set(epochs))


def epoch_file_agrees_with_log(view, cfg) -> bool:
    for b in range(1, cfg.brokers + 1):
        if not view[f"broker{b}.up"]:
            continue
        entries = view[f"broker{b}.epochFile"]
        for i, (_, epoch) in enumerate(messages(view, b)):
            for j, (e, start) in enumerate(entries):
                end = entries[j + 1][1] if j + 1 < len(entries) else float("inf")
                if e == epoch and not start <= i < end:
                    return False
    return True


ALWAYS = {f.__name__: f for f in (acked_message_on_every_later_master, queue_offset_names_one_message,
                                  delivered_message_stays_on_master, one_master_per_epoch,
                                  epoch_file_agrees_with_log)}


# the consumer-offset properties (consumer_offsets = ON): their own module
from .readable_offsets import ALWAYS as _OFFSETS  # noqa: E402

ALWAYS.update(_OFFSETS)
