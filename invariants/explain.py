"""Why a property fails: its sub-conditions on the last state of a trace, with the values that decide them,
and the steps at which those values last changed.

Each always property (and the goal of the graph property) is written here as a list of conditions whose
conjunction is the property: ``acked_message_never_lost`` has one condition per message the producer was
told SEND_OK ("message 1 got SEND_OK at step 1; it is still in some commitlog"). A condition reads the
readable view (:mod:`model.view`), and for the broker-side decisions it cites (the broker a restarting
consumer asks, ``ConsumerManageProcessor#queryConsumerOffset``, the consume queue) it calls the properties'
own observations (:mod:`invariants.observations`) on the encoded state, so an explanation cannot disagree
with the compiled check: the tests compare the two on every state of an exploration.

The explanation of a violation keeps every condition (``holds`` says which failed), and names the fields of
the failed ones with the step at which each last changed (0: never since the initial state).

Every model mode explains its properties the same way: the module ``explain`` of the package that holds
its property set (this module for 4.4, :mod:`invariants.controller.explain` for the controller mode)
defines ``EXPLAINED``, an :class:`Explainers`: its conditions per property, how it reads a state, and the
prefixes of its graph and lasso summaries. :func:`explain`, :func:`conditions` and :func:`explain_result`
choose the mode's from the model or the configuration.
"""
from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numpy as np

from model.bits import lowest
from .observations import committed_offset, queue_entries, restart_broker
from .readable import by_offset, caught_up, diverged_at, expired, min_offset
from model.view import encode_vector

if TYPE_CHECKING:   # the 4.4 model's module compiles its kernel at import: a controller run does not need it
    from model import RocketMQModel


@dataclass(frozen=True)
class Condition:
    """One sub-condition of a property on one state: what it says, whether it holds, and the view fields
    (with their values) that decide it."""

    text: str
    holds: bool
    fields: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "holds": self.holds, "fields": self.fields}


@dataclass(frozen=True)
class Explanation:
    """Why a trace's last state violates a property (``properties[].explanation`` in the JSON)."""

    summary: str
    conditions: list[Condition]
    last_changed: dict[str, int] = field(default_factory=dict)

    @property
    def failed(self) -> list[Condition]:
        return [c for c in self.conditions if not c.holds]

    def to_dict(self) -> dict[str, Any]:
        return {"summary": self.summary, "conditions": [c.to_dict() for c in self.conditions],
                "last_changed": self.last_changed}


class History:
    """A trace read field by field: when a field last changed, and by which action."""

    def __init__(self, steps: list[Any]) -> None:
        self.steps = steps

    def last_change(self, name: str) -> int:
        """The step at which ``name`` last changed (0 when it still has its initial value)."""
        for step in reversed(self.steps[1:]):
            if name in step.changes:
                return step.index
        return 0

    def first_gain(self, name: str, m: int) -> int:
        """The step at which message ``m`` entered the id list ``name`` for the last time (0: initially)."""
        for step in reversed(self.steps[1:]):
            if name in step.changes:
                before, after = step.changes[name]
                if m in after and m not in (before or []):
                    return step.index
        return 0

    def origin(self, name: str) -> str:
        """How ``name`` got its current value: for a message-id list every step that erased ids and the last
        change (``MasterPowerLoss() at step 2 erased [1]; SendMessage() at step 3 added [2]``), for any other
        field the last change (``set by MasterCrash() at step 5``); empty when it never changed."""
        last = self.last_change(name)
        if last == 0:
            return ""
        if not isinstance(self.steps[last].changes[name][1], list):
            return f"set by {self.steps[last].action} at step {last}"
        parts = []
        for step in self.steps[1:]:
            if name not in step.changes:
                continue
            # an entry may be a pair ((epoch, offset) of an epoch file): a list once read back from JSON
            before, after = ({tuple(e) if isinstance(e, list) else e for e in x or []} for x in step.changes[name])
            if before - after or step.index == last:
                what = [f"{verb} {ids(sorted(d))}" for verb, d in (("erased", before - after),
                                                                   ("added", after - before)) if d]
                parts.append(f"{step.action} at step {step.index} {' and '.join(what)}")
        return "; ".join(parts)

    def annotated(self, name: str, value: Any) -> str:
        """``value`` followed by its origin in parentheses, when it changed during the trace."""
        how = self.origin(name)
        return f"{text(value)} ({how})" if how else text(value)


def text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ids(value)
    return str(value)


def ids(values: list[Any]) -> str:
    """``[1, 2]``; a pair entry as a tuple, ``[(1, 0)]``, whether the trace is live or read back from JSON
    (which turns it into a list)."""
    return "[" + ", ".join(str(tuple(m) if isinstance(m, list) else m) for m in values) + "]"


class Reading:
    """One state of a trace as the conditions read it: the view, the configuration, the kernel's field
    vector and parameters (for the broker-side functions), and the trace's history."""

    def __init__(self, model: RocketMQModel, view: dict[str, Any], history: History) -> None:
        self.model = model
        self.cfg = model.config
        self.view = view
        self.history = history
        self.p = model.params

    @functools.cached_property
    def v(self) -> np.ndarray:
        """The kernel's field vector of the state (encoded only for the conditions that call the kernel)."""
        return encode_vector(self.view, self.cfg)

    def broker(self, b: int) -> str:
        return "master" if b == 0 else f"slave{b}"

    def logs(self) -> list[str]:
        """The commitlog fields of every broker: master first."""
        return ["master.commitlog"] + [f"slave{s}.commitlog" for s in range(1, self.cfg.slaves + 1)]

    def admin_broker(self) -> int:
        return int(restart_broker(self.v, self.p))

    def offset_read(self, b: int, q: int) -> int:
        return int(committed_offset(self.v, b, q, self.p))

    def passed_messages(self, b: int, q: int, start: int) -> list[int]:
        """The messages of broker ``b``'s queue ``q`` at positions below ``start``."""
        first, entries = queue_entries(self.v, b, q, self.p)
        mask = int(lowest(int(entries), max(start - int(first), 0)))
        return [m for m in range(1, 64) if mask >> (m - 1) & 1]


# -- the properties ---------------------------------------------------------------------------------------
def _stored_somewhere(r: Reading, id_field: str, what: str) -> list[Condition]:
    """One condition per message of ``id_field``: it is still in the commitlog of some broker."""
    out = []
    logs = {name: r.view[name] for name in r.logs()}
    gone_by_age = expired(r.view)
    for m in r.view[id_field]:
        where = [name.split(".")[0] for name, log in logs.items() if m in log]
        when = r.history.first_gain(id_field, m)
        head = f"message {m} {what}" + (f" at step {when}" if when else "")
        if where:
            said = f"{head}; it is in the commitlog of {', '.join(where)}"
        elif m in gone_by_age:
            said = f"{head}; retention deleted it (DeleteExpiredFiles, history.expired): by design, not a loss"
            where = ["retention"]
        else:
            said = f"{head}; it is in no commitlog: " + ", ".join(
                f"{name.split('.')[0]} {r.history.annotated(name, log)}" for name, log in logs.items())
        fields = {id_field: r.view[id_field], **logs}
        if "history.expired" in r.view:
            fields["history.expired"] = r.view["history.expired"]
        out.append(Condition(said, bool(where), fields))
    return out


def acked_message_never_lost(r: Reading) -> list[Condition]:
    return _stored_somewhere(r, "producer.sendOk", "got SEND_OK")


def consumed_message_never_lost(r: Reading) -> list[Condition]:
    return _stored_somewhere(r, "history.delivered", "was delivered to the application")


def _from_offset(r: Reading, broker: str) -> str:
    first = min_offset(r.view, broker)
    return f" from offset {first}" if first else ""


def _slave_logs(r: Reading) -> Iterator[tuple[int, str, list[int], list[int]]]:
    """``(slave number, its commitlog field, its log, the master's log)`` for each slave."""
    for s in range(1, r.cfg.slaves + 1):
        yield s, f"slave{s}.commitlog", r.view[f"slave{s}.commitlog"], r.view["master.commitlog"]


def replicas_agree(r: Reading) -> list[Condition]:
    out = []
    for s, name, log, master in _slave_logs(r):
        fields = {name: log, "master.commitlog": master}
        at = diverged_at(r.view, f"slave{s}")
        if at is None:
            out.append(Condition(f"slave{s}'s commitlog {ids(log)}{_from_offset(r, f'slave{s}')} and the master's "
                                 f"{ids(master)}{_from_offset(r, 'master')} agree on every offset both hold",
                                 True, fields))
            continue
        out.append(Condition(
            f"slave{s}'s commitlog {r.history.annotated(name, log)} and the master's "
            f"{r.history.annotated('master.commitlog', master)} have diverged: at offset {at} the slave "
            f"holds message {by_offset(r.view, f'slave{s}')[at]}, the master message "
            f"{by_offset(r.view, 'master')[at]}", False, fields))
    return out


def _asks(r: Reading, b: int) -> str:
    """Which broker a consumer (re)starting now asks, and why (``observations.restart_broker``)."""
    how = r.history.origin("nameserver.route")
    how = f", {how}" if how else ""
    route = r.view["nameserver.route"]
    if b == 0:
        return f"asks the master (the name server lists it{how})"
    if b > 0:
        return f"asks {r.broker(b)} (the name server's route is {route}{how}: no master)"
    if not r.view["nameserver.topicRoute"]:
        return f"has no broker to ask (the topic has no route: its queue data went with the group's last broker{how})"
    return f"has no broker to ask (the name server's route is empty{how})"


def _offset_source(r: Reading, b: int, q: int, read: int) -> str:
    """Where ``queryConsumerOffset`` on broker ``b`` found ``read``."""
    name = f"{r.broker(b)}.consumerOffset[{q}]"
    if r.view[name] is not None:
        how = r.history.origin(name)
        return f"{name}" + (f", {how}" if how else ", as initially")
    if read == 0:
        return f"{name} is null and the queue is young: 0"
    return f"{name} is null: QUERY_NOT_FOUND"


def _queue_conditions(r: Reading, check: Callable[[int, int, int, str, dict[str, Any]], Condition]) -> list[Condition]:
    """The offset properties' frame: the broker a restarting consumer asks (none or down: no claim), then one
    condition per queue from ``check(b, q, offset read, "queue q: a consumer ... asks ...", fields)``."""
    b = r.admin_broker()
    fields: dict[str, Any] = {"nameserver.route": r.view["nameserver.route"],
                              "nameserver.topicRoute": r.view["nameserver.topicRoute"]}
    if b < 0:
        return [Condition(f"a consumer restarting now {_asks(r, b)}: no offset to compare", True, fields)]
    up = f"{r.broker(b)}.up"
    fields[up] = r.view[up]
    if not r.view[up]:
        return [Condition(f"a consumer restarting now {_asks(r, b)}, which is down: no offset to compare",
                          True, fields)]
    return [check(b, q, r.offset_read(b, q), f"queue {q}: a consumer restarting now {_asks(r, b)}", fields)
            for q in range(r.cfg.queues)]


def committed_offset_never_regresses(r: Reading) -> list[Condition]:
    def check(b: int, q: int, read: int, head: str, fields: dict[str, Any]) -> Condition:
        high_name = f"history.highestCommitted[{q}]"
        high = r.view[high_name]
        offset_name = f"{r.broker(b)}.consumerOffset[{q}]"
        fields = {**fields, offset_name: r.view[offset_name], high_name: high}
        if read < 0:
            return Condition(f"{head}, which answers QUERY_NOT_FOUND: no offset to compare", True, fields)
        said = f"{head} and reads offset {read} ({_offset_source(r, b, q, read)})"
        how = r.history.origin(high_name)
        committed = f"the {high} the group had committed ({high_name}" + (f", {how})" if how else ")")
        if read >= high:
            return Condition(f"{said}, not below {committed}", True, fields)
        return Condition(f"{said}, below {committed}", False, fields)
    return _queue_conditions(r, check)


def no_message_skipped(r: Reading) -> list[Condition]:
    def check(b: int, q: int, read: int, head: str, fields: dict[str, Any]) -> Condition:
        offset_name = f"{r.broker(b)}.consumerOffset[{q}]"
        log_name = f"{r.broker(b)}.commitlog"
        delivered = r.view["history.delivered"]
        fields = {**fields, offset_name: r.view[offset_name], log_name: r.view[log_name],
                  "history.delivered": delivered}
        if read < 0:
            return Condition(f"{head}, which answers QUERY_NOT_FOUND: no offset to compare yet (the consumer "
                             "starts at the queue's end, CONSUME_FROM_LAST_OFFSET)", True, fields)
        passed = r.passed_messages(b, q, read)
        gone_by_age = expired(r.view)
        missed = [m for m in passed if m not in delivered and m not in gone_by_age]
        said = (f"{head} and starts at offset {read} ({_offset_source(r, b, q, read)}), past messages "
                f"{ids(passed)} of {log_name} {r.history.annotated(log_name, r.view[log_name])}")
        if not missed:
            also = f", or deleted by retention (history.expired {ids(sorted(gone_by_age))})" if gone_by_age else ""
            return Condition(f"{said}; all were delivered (history.delivered {ids(delivered)}){also}", True,
                             fields)
        return Condition(f"{said}; never delivered: {ids(missed)} (history.delivered {ids(delivered)})",
                         False, fields)
    return _queue_conditions(r, check)


def _out_of_reach(r: Reading, slave: str) -> int:
    """The offset below which ``slave`` can hold nothing: its min offset, or for an empty slave the start
    of the master's last commitlog file, where the push after its first report of 0 starts."""
    if r.view[f"{slave}.commitlog"] or min_offset(r.view, slave) or not r.cfg.commitlog_file_messages:
        return min_offset(r.view, slave)
    end = min_offset(r.view, "master") + len(r.view["master.commitlog"])
    return end - end % r.cfg.commitlog_file_messages


def replication_can_catch_up(r: Reading) -> list[Condition]:
    """The goal, on a state from which no path reaches it: every live slave holds exactly the master's log."""
    out = []
    for s, name, log, master in _slave_logs(r):
        fields = {f"slave{s}.up": r.view[f"slave{s}.up"], name: log, "master.commitlog": master}
        slave = f"slave{s}"
        if not r.view[f"slave{s}.up"]:
            out.append(Condition(f"slave{s} is down: the goal does not count it", True, fields))
        elif caught_up(r.view, slave):
            out.append(Condition(f"slave{s} holds exactly the master's commitlog {ids(master)}"
                                 f"{_from_offset(r, 'master')}", True, fields))
        else:
            out_of_reach = _out_of_reach(r, slave)
            why = ("; they have diverged, and 4.4 never truncates a slave" if diverged_at(r.view, slave) is not None
                   else "" if out_of_reach <= min_offset(r.view, "master")
                   else f"; it holds nothing below offset {out_of_reach}, and HA pushes only forward" if log
                   else f"; an empty slave's first report of 0 is pushed from offset {out_of_reach}, the start of "
                        "the master's last commitlog file, and HA pushes only forward")
            out.append(Condition(
                f"slave{s} holds {r.history.annotated(name, log)}, not the master's "
                f"{r.history.annotated('master.commitlog', master)}{why}", False, fields))
    return out


def acked_message_eventually_consumed(r: Reading) -> list[Condition]:
    """The goal of each SEND_OK message, on the state a lasso repeats from: delivered, or removed by
    retention from every broker."""
    logs = {name: r.view[name] for name in r.logs()}
    delivered = r.view["history.delivered"]
    gone_by_age = expired(r.view)
    out = []
    for m in r.view["producer.sendOk"]:
        where = [name.split(".")[0] for name, log in logs.items() if m in log]
        when = r.history.first_gain("producer.sendOk", m)
        head = f"message {m} got SEND_OK" + (f" at step {when}" if when else "")
        fields = {"producer.sendOk": r.view["producer.sendOk"], "history.delivered": delivered, **logs}
        if m in delivered:
            out.append(Condition(f"{head} and was delivered to the application", True, fields))
        elif m in gone_by_age and not where:
            out.append(Condition(f"{head}; retention removed every copy before anyone consumed it", True, fields))
        else:
            stored = f"it is in the commitlog of {', '.join(where)}" if where else "it is in no commitlog any more"
            out.append(Condition(f"{head} and is never delivered to the application; {stored}", False, fields))
    return out


def consumption_eventually_completes(r: Reading) -> list[Condition]:
    """The goal on the state a lasso repeats from: the broker a restarting consumer asks is up, and every
    queue's committed offset there has reached the queue's max offset."""
    b = r.admin_broker()
    fields: dict[str, Any] = {"nameserver.route": r.view["nameserver.route"]}
    if b < 0:
        return [Condition(f"a consumer restarting now {_asks(r, b)}", False, fields)]
    up = f"{r.broker(b)}.up"
    fields[up] = r.view[up]
    if not r.view[up]:
        return [Condition(f"a consumer restarting now {_asks(r, b)}, which is down", False, fields)]
    out = []
    for q in range(r.cfg.queues):
        read = r.offset_read(b, q)
        first, entries = queue_entries(r.v, b, q, r.p)
        end = int(first) + bin(int(entries)).count("1")
        name = f"{r.broker(b)}.consumerOffset[{q}]"
        queue = {**fields, name: r.view[name], f"{r.broker(b)}.commitlog": r.view[f"{r.broker(b)}.commitlog"]}
        if read < 0:
            out.append(Condition(f"queue {q}: {r.broker(b)} has no offset for the group (QUERY_NOT_FOUND): a "
                                 "restarting consumer starts at the queue's end", True, queue))
        else:
            out.append(Condition(f"queue {q}: the committed offset on {r.broker(b)} is {read} "
                                 f"({_offset_source(r, b, q, read)}), the queue's max offset {end}",
                                 read >= end, queue))
    return out


#: property name -> its conditions on a state (the graph property: its goal; an eventually property: its
#: goal on the state its lasso repeats from)
EXPLAINERS: dict[str, Callable[[Reading], list[Condition]]] = {
    "acked_message_never_lost": acked_message_never_lost,
    "consumed_message_never_lost": consumed_message_never_lost,
    "replicas_agree": replicas_agree,
    "committed_offset_never_regresses": committed_offset_never_regresses,
    "no_message_skipped": no_message_skipped,
    "replication_can_catch_up": replication_can_catch_up,
    "acked_message_eventually_consumed": acked_message_eventually_consumed,
    "slaves_eventually_catch_up": replication_can_catch_up,
    "consumption_eventually_completes": consumption_eventually_completes,
}

#: what the summary of a graph violation starts with: the goal fails, and no path leads back to it
GRAPH_PREFIX = {
    "replication_can_catch_up": "from this state no path leads to one where every live slave holds exactly "
                                "the master's commitlog; here ",
}
#: what the summary of an eventually property's violation starts with: its lasso never reaches the goal again
LASSO_PREFIX = "on this run, from the state it repeats for ever (the last one) the goal never holds again; there "
GRAPH_PREFIX.update(dict.fromkeys(("acked_message_eventually_consumed", "slaves_eventually_catch_up",
                                   "consumption_eventually_completes"), LASSO_PREFIX))


@dataclass(frozen=True)
class Explainers:
    """How one model mode explains its properties: ``conditions`` maps a property to its conditions on a
    reading (a graph or eventually property: its goal), ``reading`` makes the reading of a state
    (``reading(model, view, history)``), ``prefix`` starts the summary of a graph or lasso violation."""

    conditions: dict[str, Callable[[Any], list[Condition]]]
    reading: Callable[[Any, dict[str, Any], History], Any]
    prefix: dict[str, str] = field(default_factory=dict)


#: the RocketMQ 4.4 mode's explanations
EXPLAINED = Explainers(EXPLAINERS, Reading, GRAPH_PREFIX)


@functools.lru_cache(maxsize=8)
def explainers(mode_name: str) -> Explainers:
    """The explanations of mode ``mode_name``: ``EXPLAINED`` of the module ``explain`` beside its property
    set (the package that holds it)."""
    from model.modes import get_mode
    module = importlib.import_module(get_mode(mode_name).properties_path.partition(":")[0])
    package = module.__name__ if hasattr(module, "__path__") else module.__name__.rpartition(".")[0]
    return importlib.import_module(f"{package}.explain").EXPLAINED


def _explainers_of(model: Any) -> Explainers:
    from model.modes import mode_of
    return explainers(mode_of(model.config).name)


@functools.lru_cache(maxsize=32)
def model_for(config: Any) -> Any:
    """The model of ``config`` (a configuration of any mode), built once."""
    from model.modes import mode_of
    return mode_of(config).model(config)


def conditions(name: str, model: Any, view: dict[str, Any], trace: Any = None) -> list[Condition]:
    """The conditions of property ``name`` on the state ``view`` (``trace``, when given, the path that led
    there: it dates the values); empty for a property without an explanation."""
    known = _explainers_of(model)
    explainer = known.conditions.get(name)
    if explainer is None:
        return []
    return explainer(known.reading(model, view, History(trace.steps if trace is not None else [])))


def explain(name: str, trace: Any, model: Any) -> Explanation | None:
    """Why the last state of ``trace`` violates property ``name``; None when the property has no explainer
    or every condition holds there (a trace that does not end in a violation)."""
    conds = conditions(name, model, trace.steps[-1].view, trace)
    failed = [c for c in conds if not c.holds]
    if not failed:
        return None
    history = History(trace.steps)
    deciding = dict.fromkeys(f for c in failed for f in c.fields)
    summary = _explainers_of(model).prefix.get(name, "") + "; ".join(c.text for c in failed)
    return Explanation(summary, conds, {f: history.last_change(f) for f in deciding})


def explain_result(prop: Any, config: dict[str, Any]) -> Explanation | None:
    """The explanation of a :class:`~explore.result.PropertyResult` whose status is ``violated`` (None for
    any other status, or a property without an explainer), for the configuration dict of its result (of
    any mode: its ``mode`` key, 4.4 without one)."""
    from model.modes import DEFAULT_MODE, get_mode
    if prop.status != "violated" or prop.trace is None or not config:
        return None
    mode = get_mode(config.get("mode", DEFAULT_MODE))
    if prop.name not in explainers(mode.name).conditions:
        return None
    cfg = mode.from_mapping({k: v for k, v in config.items() if k != "mode"})
    return explain(prop.name, prop.trace, model_for(cfg))
