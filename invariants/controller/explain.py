"""Why a controller property fails: its sub-conditions on the last state of a trace, with the readable
fields that decide them, as :mod:`invariants.explain` does for the 4.4 properties (the same
:class:`~invariants.explain.Condition`, the same "why" and "last changed" in the console, the reports and
the explorer).

Each always property is written as conditions whose conjunction is the property, read from the view
(``ControllerModel.view``) with the helpers of the plain-Python reading (:mod:`.readable`), so an
explanation cannot disagree with the compiled check (tests/controller/test_controller_explain.py compares
them on every state of explorations): ``acked_message_on_every_later_master`` has one condition per
message the producer was told SEND_OK ("message 1 got SEND_OK at step 3; the controller's master broker2
does not have it"). The eventually property's conditions are its goal, on the state its lasso repeats from.
"""
from __future__ import annotations

from typing import Any

from ..explain import LASSO_PREFIX, Condition, Explainers, History, text
from .readable import current_master, delivered_at, messages, queue_records, writers


class Reading:
    """One state of a controller-mode trace as the conditions read it: the view, the configuration and the
    trace's history."""

    def __init__(self, model: Any, view: dict[str, Any], history: History) -> None:
        self.model = model
        self.cfg = model.config
        self.view = view
        self.history = history

    def brokers(self) -> range:
        return range(1, self.cfg.brokers + 1)

    def writers(self) -> list[int]:
        return writers(self.view, self.cfg.brokers)

    def master(self) -> int | None:
        return current_master(self.view, self.cfg.brokers)

    def annotated(self, name: str) -> str:
        """Field ``name``'s value, with how it got it when it changed during the trace."""
        return self.history.annotated(name, self.view[name])

    def log(self, b: int) -> list[int]:
        return [m for m, _ in messages(self.view, b)]

    def controller_fields(self) -> dict[str, Any]:
        return {k: self.view[k] for k in ("controller.masterBrokerId", "controller.masterEpoch")}

    def role_fields(self, b: int) -> dict[str, Any]:
        return {f"broker{b}.{k}": self.view[f"broker{b}.{k}"] for k in ("up", "fenced", "role", "masterEpoch")}

    def no_master(self) -> str:
        """Why the controller has no master that took the role, in words."""
        b, epoch = self.view["controller.masterBrokerId"], self.view["controller.masterEpoch"]
        if b is None:
            return f"the controller names no master (masterEpoch {epoch})"
        p = f"broker{b}"
        if not self.view[f"{p}.up"]:
            state = "is down"
        elif self.view[f"{p}.fenced"]:
            state = "is fenced (restarted, not registered)"
        elif self.view[f"{p}.role"] != "MASTER":
            state = f"is still in the {self.view[f'{p}.role']} role"
        else:
            state = f"is master at epoch {self.view[f'{p}.masterEpoch']}"
        return f"the controller names {p} master at epoch {epoch}, but {p} {state}"


def _master_frame(r: Reading) -> tuple[int | None, list[Condition]]:
    """The controller's current master, or a holding condition saying there is none to compare with."""
    b = r.master()
    if b is not None:
        return b, []
    fields = r.controller_fields()
    b = r.view["controller.masterBrokerId"]
    if b is not None:
        fields.update(r.role_fields(b))
    return None, [Condition(f"{r.no_master()}: no master to compare with", True, fields)]


def acked_message_on_every_later_master(r: Reading) -> list[Condition]:
    b, frame = _master_frame(r)
    if b is None:
        return frame
    log, name = r.log(b), f"broker{b}.commitlog"
    fields = {"producer.sendOk": r.view["producer.sendOk"], **r.controller_fields(), **r.role_fields(b),
              name: r.view[name]}
    master = f"the controller's master broker{b} (controller.masterBrokerId {r.annotated('controller.masterBrokerId')})"
    out = []
    for m in r.view["producer.sendOk"]:
        when = r.history.first_gain("producer.sendOk", m)
        head = f"message {m} got SEND_OK" + (f" at step {when}" if when else "")
        if m in log:
            out.append(Condition(f"{head}; it is in the commitlog of {master}", True, fields))
        else:
            out.append(Condition(f"{head}; {master} does not have it: its commitlog is {r.annotated(name)}",
                                 False, fields))
    return out


def queue_offset_names_one_message(r: Reading) -> list[Condition]:
    if r.cfg.queues > 1:
        return _queue_offsets_name_one_message(r)
    delivered = r.view["consumer.delivered"]
    out = []
    for b in r.writers():
        p = f"broker{b}"
        log, dispatched = r.log(b), r.view[f"{p}.dispatched"]
        fields = {"consumer.delivered": delivered, f"{p}.commitlog": r.view[f"{p}.commitlog"],
                  f"{p}.dispatched": dispatched, **r.role_fields(b)}
        for i, d in enumerate(delivered[:dispatched]):
            if not d:
                continue
            head = f"{p} serves pulls (a master) and offers queue offset {i} (dispatched up to {dispatched})"
            if log[i] == d:
                out.append(Condition(f"{head} with message {d}, the one the consumer was given there", True, fields))
            else:
                out.append(Condition(
                    f"{head} with message {log[i]}, but the consumer was given message {d} there "
                    f"(consumer.delivered {r.annotated('consumer.delivered')}; {p}.commitlog "
                    f"{r.annotated(f'{p}.commitlog')})", False, fields))
    return out


def delivered_message_stays_on_master(r: Reading) -> list[Condition]:
    b, frame = _master_frame(r)
    if b is None:
        return frame
    if r.cfg.queues > 1:
        return _delivered_on(r, b)
    log, name = r.log(b), f"broker{b}.commitlog"
    delivered = r.view["consumer.delivered"]
    fields = {"consumer.delivered": delivered, **r.controller_fields(), **r.role_fields(b), name: r.view[name]}
    out = []
    for i, d in enumerate(delivered):
        if not d:
            continue
        head = f"the consumer was given message {d} at queue offset {i}"
        if i < len(log) and log[i] == d:
            out.append(Condition(f"{head}; the controller's master broker{b} holds it there", True, fields))
        else:
            held = f"message {log[i]}" if i < len(log) else "nothing"
            out.append(Condition(f"{head}; the controller's master broker{b} holds {held} there (its commitlog "
                                 f"{r.annotated(name)}; controller.masterBrokerId "
                                 f"{r.annotated('controller.masterBrokerId')})", False, fields))
    return out


def one_master_per_epoch(r: Reading) -> list[Condition]:
    by_epoch: dict[int, list[int]] = {}
    for b in r.writers():
        by_epoch.setdefault(r.view[f"broker{b}.masterEpoch"], []).append(b)
    fields = {k: v for b in r.writers() for k, v in r.role_fields(b).items()}
    if not by_epoch:
        return [Condition("no broker accepts writes", True, fields)]
    out = []
    for epoch, brokers in by_epoch.items():
        names = " and ".join(f"broker{b} ({r.annotated(f'broker{b}.role')})" for b in brokers)
        if len(brokers) == 1:
            out.append(Condition(f"broker{brokers[0]} is the only broker accepting writes at master epoch {epoch}",
                                 True, fields))
        else:
            out.append(Condition(f"{names} all accept writes at master epoch {epoch}", False, fields))
    return out


def epoch_file_agrees_with_log(r: Reading) -> list[Condition]:
    out = []
    for b in r.brokers():
        p = f"broker{b}"
        if not r.view[f"{p}.up"]:
            continue
        entries = r.view[f"{p}.epochFile"]
        fields = {f"{p}.up": True, f"{p}.epochFile": entries, f"{p}.commitlog": r.view[f"{p}.commitlog"]}
        wrong = []
        for i, (m, epoch) in enumerate(messages(r.view, b)):
            for j, (e, start) in enumerate(entries):
                end = entries[j + 1][1] if j + 1 < len(entries) else None
                if e == epoch and not (start <= i and (end is None or i < end)):
                    span = f"offsets {start}-{end - 1}" if end is not None and end > start else \
                        f"offsets from {start}" if end is None else "no offset"
                    wrong.append(f"message {m} at offset {i} was written at epoch {epoch}, but the entry of epoch "
                                 f"{epoch} covers {span}")
        if wrong:
            out.append(Condition(f"{p}'s epoch file {r.annotated(f'{p}.epochFile')} disagrees with its commitlog "
                                 f"{r.annotated(f'{p}.commitlog')}: " + "; ".join(wrong), False, fields))
        else:
            out.append(Condition(f"{p}'s epoch file {text(entries)} covers each message of its commitlog "
                                 f"{text(r.view[f'{p}.commitlog'])} with the entry of its epoch, when it has one",
                                 True, fields))
    return out


def master_eventually_elected(r: Reading) -> list[Condition]:
    """The goal on the state a lasso repeats from: a broker is master at the controller's master epoch and
    accepts writes."""
    b = r.master()
    fields = r.controller_fields()
    named = r.view["controller.masterBrokerId"]
    if named is not None:
        fields.update(r.role_fields(named))
    if b is not None:
        return [Condition(f"broker{b} is master at the controller's master epoch "
                          f"{r.view['controller.masterEpoch']} and accepts writes", True, fields)]
    return [Condition(f"{r.no_master()} (controller.masterBrokerId {r.annotated('controller.masterBrokerId')}, "
                      f"masterEpoch {r.annotated('controller.masterEpoch')})", False, fields)]


#: the controller mode's explanations (:class:`~invariants.explain.Explainers`)
EXPLAINED = Explainers(
    {f.__name__: f for f in (acked_message_on_every_later_master, queue_offset_names_one_message,
                             delivered_message_stays_on_master, one_master_per_epoch, epoch_file_agrees_with_log,
                             master_eventually_elected)},
    Reading,
    {"master_eventually_elected": LASSO_PREFIX})
# the consumer-offset properties (consumer_offsets = ON): their own module
from .explain_offsets import CONDITIONS as _OFFSETS  # noqa: E402

EXPLAINED.conditions.update(_OFFSETS)
EXPLAINED.prefix["acked_message_eventually_consumed"] = LASSO_PREFIX


# -- two queues (queues = 2): a message is named by (queueId, queueOffset), not by its position ------------
def _queue_fields(r: Reading, b: int) -> dict[str, Any]:
    p = f"broker{b}"
    return {"consumer.delivered": r.view["consumer.delivered"], "consumer.delivered1": r.view["consumer.delivered1"],
            f"{p}.commitlog": r.view[f"{p}.commitlog"], f"{p}.queueOffsets": r.view[f"{p}.queueOffsets"]}


def _queue_offsets_name_one_message(r: Reading) -> list[Condition]:
    given = delivered_at(r.view)
    out = []
    for b in r.writers():
        p = f"broker{b}"
        dispatched = r.view[f"{p}.dispatched"]
        fields = {**_queue_fields(r, b), f"{p}.dispatched": dispatched, **r.role_fields(b)}
        for i, (m, q, o) in enumerate(queue_records(r.view, b)[:dispatched]):
            d = given.get((q, o))
            if not d:
                continue
            head = (f"{p} serves pulls (a master) and offers queue {q} offset {o} (position {i}, dispatched up "
                    f"to {dispatched})")
            if m == d:
                out.append(Condition(f"{head} with message {d}, the one the consumer was given there", True, fields))
            else:
                out.append(Condition(
                    f"{head} with message {m}, but the consumer was given message {d} there "
                    f"({p}.commitlog {r.annotated(f'{p}.commitlog')}; {p}.queueOffsets "
                    f"{r.annotated(f'{p}.queueOffsets')})", False, fields))
    return out


def _delivered_on(r: Reading, b: int) -> list[Condition]:
    records = queue_records(r.view, b)
    fields = {**_queue_fields(r, b), **r.controller_fields(), **r.role_fields(b)}
    out = []
    for (q, o), d in sorted(delivered_at(r.view).items()):
        head = f"the consumer was given message {d} at queue {q} offset {o}"
        if (d, q, o) in records:
            out.append(Condition(f"{head}; the controller's master broker{b} holds it there", True, fields))
        else:
            held = [m for m, q2, o2 in records if (q2, o2) == (q, o)]
            what = f"message {held[-1]}" if held else "nothing"
            out.append(Condition(f"{head}; the controller's master broker{b} holds {what} there (its commitlog "
                                 f"{r.annotated(f'broker{b}.commitlog')}, queueOffsets "
                                 f"{r.annotated(f'broker{b}.queueOffsets')}; controller.masterBrokerId "
                                 f"{r.annotated('controller.masterBrokerId')})", False, fields))
    return out
