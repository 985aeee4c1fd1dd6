"""Why a consumer-offset property of the controller mode fails (:mod:`.offsets`): its conditions on the
last state of a trace, read with :mod:`.readable_offsets`, added to the mode's explanations
(:data:`.explain.EXPLAINED`)."""
from __future__ import annotations

from typing import Any

from ..explain import Condition
from .readable import messages   # first: readable loads readable_offsets, which imports it back
from .readable_offsets import applies, asked_at_restart, committed_offset, skipped, stored_anywhere

OFF = "consumer_offsets is OFF: no offset is committed, nothing to check"


def _off(r: Any) -> list[Condition]:
    return [Condition(OFF, True, {})]


def _asked_fields(r: Any, b: int) -> dict[str, Any]:
    p = f"broker{b}"
    out = {f"{p}.{k}": r.view[f"{p}.{k}"] for k in ("up", "fenced", "role", "dispatched")}
    out.update({f"{p}.consumerOffset[{q}]": r.view[f"{p}.consumerOffset[{q}]"] for q in range(r.cfg.queues)})
    return out


def _nobody(r: Any) -> list[Condition]:
    return [Condition("no broker is listed (none runs unfenced): a consumer starting now reads no offset",
                      True, {f"broker{b}.up": r.view[f"broker{b}.up"] for b in r.brokers()})]


def consumed_message_never_lost(r: Any) -> list[Condition]:
    if not applies(r.cfg):
        return _off(r)
    held = stored_anywhere(r.view, r.cfg)
    logs = {f"broker{b}.commitlog": r.view[f"broker{b}.commitlog"] for b in r.brokers()}
    fields = {"history.delivered": r.view["history.delivered"], **logs}
    out = []
    for m in r.view["history.delivered"]:
        when = r.history.first_gain("history.delivered", m)
        head = f"message {m} was delivered to the application" + (f" at step {when}" if when else "")
        where = [f"broker{b}" for b in r.brokers() if m in [x for x, _ in messages(r.view, b)]]
        if m in held:
            out.append(Condition(f"{head}; it is in the commitlog of {', '.join(where)}", True, fields))
        else:
            out.append(Condition(f"{head}; it is in no broker's commitlog any more (" + "; ".join(
                f"{name} {r.annotated(name)}" for name in logs) + ")", False, fields))
    return out or [Condition("no message was delivered yet", True, fields)]


def committed_offset_never_regresses(r: Any) -> list[Condition]:
    if not applies(r.cfg):
        return _off(r)
    out = []
    for b in asked_at_restart(r.view, r.cfg):
        for q in range(r.cfg.queues):
            high_name = f"history.highestCommitted[{q}]"
            high = r.view[high_name]
            read = committed_offset(r.view, b, q)
            fields = {**_asked_fields(r, b), high_name: high}
            head = f"a consumer starting now may ask broker{b} for queue {q}'s offset"
            if read < 0:
                out.append(Condition(f"{head}; it answers QUERY_NOT_FOUND: no offset to compare", True, fields))
            elif read >= high:
                out.append(Condition(f"{head}; it answers {read}, not below the highest the group committed, {high}",
                                     True, fields))
            else:
                stored = f"broker{b}.consumerOffset[{q}]"
                out.append(Condition(
                    f"{head}; it answers {read} ({stored} {r.annotated(stored)}), below the {high} the group had "
                    f"committed ({high_name} {r.annotated(high_name)}): the group consumes again what it had "
                    "acknowledged", False, fields))
    return out or _nobody(r)


def no_message_skipped(r: Any) -> list[Condition]:
    if not applies(r.cfg):
        return _off(r)
    out = []
    for b in asked_at_restart(r.view, r.cfg):
        for q in range(r.cfg.queues):
            read = committed_offset(r.view, b, q)
            fields = {**_asked_fields(r, b), "history.delivered": r.view["history.delivered"],
                      f"broker{b}.commitlog": r.view[f"broker{b}.commitlog"]}
            head = f"broker{b} (a consumer starting now may ask it) answers queue {q}'s offset"
            if read < 0:
                out.append(Condition(f"{head} with QUERY_NOT_FOUND: no claim", True, fields))
                continue
            missed = skipped(r.view, b, q)
            if not missed:
                out.append(Condition(f"{head} {read}; every message of its consume queue below it was delivered",
                                     True, fields))
            else:
                what = ", ".join(f"message {m} at queue offset {o}" for m, o in missed)
                out.append(Condition(
                    f"{head} {read} (broker{b}.consumerOffset[{q}] {r.annotated(f'broker{b}.consumerOffset[{q}]')}), "
                    f"past {what} of its consume queue, never delivered (history.delivered "
                    f"{r.annotated('history.delivered')})", False, fields))
    return out or _nobody(r)


def acked_message_eventually_consumed(r: Any) -> list[Condition]:
    """The goal of each SEND_OK message, on the state a lasso repeats from: delivered to the application."""
    if not applies(r.cfg):
        return _off(r)
    delivered = r.view["history.delivered"]
    held = stored_anywhere(r.view, r.cfg)
    fields = {"producer.sendOk": r.view["producer.sendOk"], "history.delivered": delivered,
              "consumer.nextOffset": r.view["consumer.nextOffset"]}
    out = []
    for m in r.view["producer.sendOk"]:
        when = r.history.first_gain("producer.sendOk", m)
        head = f"message {m} got SEND_OK" + (f" at step {when}" if when else "")
        if m in delivered:
            out.append(Condition(f"{head} and was delivered to the application", True, fields))
        else:
            where = "it is still in some broker's commitlog" if m in held else "it is in no commitlog any more"
            out.append(Condition(f"{head} and is never delivered on this run; {where} (consumer.nextOffset "
                                 f"{r.annotated('consumer.nextOffset')})", False, fields))
    return out


CONDITIONS = {f.__name__: f for f in (consumed_message_never_lost, committed_offset_never_regresses,
                                      no_message_skipped, acked_message_eventually_consumed)}
