"""Message-sequence diagrams of traces: inline SVG for the HTML report, a Mermaid block for Markdown.

A trace is a list of actions; a person follows a distributed-system bug more easily as messages between
processes. Each step becomes interactions between lifelines (producer, master, each slave, name server,
each consumer), derived from the action's kind and arguments, its outcome note (``FOUND from broker 1``)
and the fields it changed: a send and its SEND_OK, an HA push with the messages it carried, a slave's
offset report, a pull and its answer from the broker that served it, an offset commit, a route refresh.
Crashes, power losses and restarts are marked on the lifelines (down: dashed red); the last step - the
violation, or the witnessed behaviour - is highlighted. Everything is drawn here in Python: no script, no
font or stylesheet from the network.

A controller-mode trace (RocketMQ 5.3.3) is drawn the same way on its own lifelines (producer, each broker,
the controller, the consumer): registrations, elections, metadata polls and SyncStateSet changes as
messages between a broker and the controller, HA as messages between brokers. Each action is drawn by its
declaration (``drawn=``) or, when the drawing reads the step's outcome or fields, by a function here
registered for its mode (:data:`DRAWINGS`, :data:`CONTROLLER_DRAWINGS`). A trace of any other model (its
view has neither mode's fields) is drawn as notes on the lifelines of its view's groups.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from html import escape
from typing import Any, Callable, Union

PRODUCER = "producer"
MASTER = "master"
NAMESERVER = "nameserver"
CONTROLLER = "controller"
CONSUMER = "consumer"

_LABEL = re.compile(r"^(\w+)\((.*)\)$")
_BROKER = re.compile(r"broker (\d+)")


@dataclass(frozen=True)
class Message:
    """An arrow from one lifeline to another; ``reply`` dashed, ``lost`` ends in a cross before the target."""

    sender: str
    receiver: str
    label: str
    reply: bool = False
    lost: bool = False


@dataclass(frozen=True)
class Mark:
    """Something on one lifeline: ``down`` (crash, power loss), ``up`` (restart) or a ``note``."""

    actor: str
    label: str
    kind: str = "note"


Event = Union[Message, Mark]


@dataclass
class Row:
    """One step of the trace: its index, the action label and what it drew."""

    step: int
    action: str
    events: list[Event] = field(default_factory=list)


@dataclass
class Diagram:
    actors: list[str]
    rows: list[Row]
    highlight: int          # the step to highlight (the trace's last)
    witness: bool = False   # highlighted as a reached behaviour, not a violation
    loop_start: int | None = None   # a lasso: the steps after this one repeat for ever (none: it stays there)


# -- from a trace to interactions ---------------------------------------------------------------------------
#: groups of a readable state that are bookkeeping, not processes: they get no lifeline
BOOKKEEPING = ("history", "failures", "budget")


def _numbered(view: dict[str, Any], prefix: str) -> list[str]:
    names = {k.split(".")[0] for k in view if re.fullmatch(rf"{prefix}\d+", k.split(".")[0])}
    return sorted(names, key=lambda n: int(n[len(prefix):]))


def actors_of(view: dict[str, Any]) -> list[str]:
    """Lifelines in a fixed order: producer, master, slaves, name server, consumers (from the view's fields);
    a controller-mode trace's producer, brokers, controller, consumer. A model of other processes has its
    view's own groups, in the view's order, bookkeeping left out."""
    groups = list(dict.fromkeys(k.split(".")[0] for k in view))
    if MASTER in groups:
        return [PRODUCER, MASTER, *_numbered(view, "slave"), NAMESERVER, *_numbered(view, "consumer")]
    if CONTROLLER in groups:
        return [PRODUCER, *_numbered(view, "broker"), CONTROLLER, CONSUMER]
    return [g for g in groups if g not in BOOKKEEPING]


def broker_name(b: int) -> str:
    return MASTER if b == 0 else f"slave{b}"


def _ids(values: Any) -> str:
    return "[" + ",".join(str(m) for m in values) + "]"


def _added(step: Any, name: str) -> list[int]:
    before, after = step.changes.get(name, [[], []])
    return sorted(set(after or []) - set(before or []))


def _erased(step: Any, name: str) -> list[int]:
    before, after = step.changes.get(name, [[], []])
    return sorted(set(before or []) - set(after or []))


def _parse(label: str) -> tuple[str, dict[str, int]]:
    m = _LABEL.match(label.replace(" ", ""))
    if not m:
        return label, {}
    args = {}
    for part in filter(None, m.group(2).split(",")):
        key, _, value = part.partition("=")
        args[key] = int(value) if value.isdigit() else value
    return m.group(1), args


def _served_by(outcome: str) -> int | None:
    m = _BROKER.search(outcome)
    return int(m.group(1)) if m else None


def _commits(step: Any, consumer: str, broker: str, before: dict[str, Any]) -> str:
    """The offsets a commit stored on ``broker`` (``q0=1``), from the fields it changed; else the consumer's."""
    changed = [f"q{k.split('[')[1].rstrip(']')}={after}" for k, (_, after) in step.changes.items()
               if k.startswith(f"{broker}.consumerOffset[")]
    if changed:
        return ", ".join(changed)
    offsets = [f"q{k.split('.')[1][1:]}={v}" for k, v in before.items()
               if k.startswith(f"{consumer}.q") and k.endswith(".offset") and v is not None]
    return ", ".join(offsets)


@dataclass(frozen=True)
class Step:
    """What a drawing reads of one trace step: the step, the view before it and the action's arguments."""

    step: Any
    before: dict[str, Any]
    args: dict[str, Any]

    @property
    def outcome(self) -> str:
        return self.step.outcome

    @property
    def after(self) -> dict[str, Any]:
        return self.step.view

    @property
    def slave(self) -> str:
        return f"slave{self.args.get('slave', 1)}"

    @property
    def consumer(self) -> str:
        return f"consumer{self.args.get('consumer', 1)}"

    @property
    def queue(self) -> int:
        return self.args.get("queue", 0)

    @property
    def broker(self) -> str:
        return broker_name(self.args.get("broker", 0))


Drawing = Callable[[Step], list[Event]]
#: how the action kinds whose drawing reads the step's outcome or fields are drawn, by declared name. Every
#: other action declares its drawing on its declaration (``@action(..., drawn=Note(...))``:
#: :func:`declared_drawings`); a test fails while an action has neither, or both, so a new action cannot
#: silently draw nothing. The 4.4 mode's here, the controller mode's in :data:`CONTROLLER_DRAWINGS`.
DRAWINGS: dict[str, Drawing] = {}
CONTROLLER_DRAWINGS: dict[str, Drawing] = {}


def _registry(mode: str) -> Any:
    """The action declarations of a mode's traces: ``"4.4"`` or ``"controller"``."""
    if mode == CONTROLLER:
        from model.controller.declare import CONTROLLER as declared
        return declared
    from model.declare import ROCKETMQ_44
    return ROCKETMQ_44


@functools.cache
def declared_drawings(mode: str = "4.4") -> dict[str, tuple[Any, ...]]:
    """The drawings declared on the actions (``drawn=``) of mode ``mode``, by name."""
    return {d.name: d.drawn for d in _registry(mode).declarations() if d.drawn}


def _roles(s: Step, mode: str = "4.4") -> dict[str, str]:
    """The lifeline each role of a declared drawing names in this step."""
    if mode == CONTROLLER:
        return {PRODUCER: PRODUCER, CONSUMER: CONSUMER, CONTROLLER: CONTROLLER,
                **{arg: f"broker{s.args[arg]}" for arg in ("broker", "elected", "slave", "master") if arg in s.args}}
    return {"producer": PRODUCER, "master": MASTER, "nameserver": NAMESERVER, "broker": s.broker,
            "slave": s.slave, "consumer": s.consumer}


def _declared(items: tuple[Any, ...], s: Step, mode: str = "4.4") -> list[Event]:
    """The events of a declared drawing, its roles resolved for this step."""
    from model.declare import Arrow
    roles = _roles(s, mode)
    return [Message(roles[i.src], roles[i.dst], i.text.format(**roles), reply=i.reply) if isinstance(i, Arrow)
            else Mark(roles[i.actor], i.text.format(**roles)) for i in items]


def draws(*names: str, into: dict[str, Drawing] = DRAWINGS) -> Callable[[Drawing], Drawing]:
    """Register the function below as the drawing of the actions ``names`` (of the 4.4 mode, or of the
    mode whose drawings are ``into``)."""
    def register(fn: Drawing) -> Drawing:
        for name in names:
            if name in into:
                raise ValueError(f"action {name} is drawn twice")
            into[name] = fn
        return fn
    return register


@draws("SendMessage")
def _send(s: Step) -> list[Event]:
    m = s.before.get("producer.nextMessage")
    if s.outcome.startswith("send failed"):
        return [Message(PRODUCER, MASTER, f"send m{m}", lost=True)]
    if s.outcome.startswith("stored"):
        return [Message(PRODUCER, MASTER, f"send m{m}"), Mark(MASTER, "waits for a slave")]
    return [Message(PRODUCER, MASTER, f"send m{m}"), Message(MASTER, PRODUCER, s.outcome or "answer", reply=True)]


@draws("SyncMasterAck", "SyncMasterTimeout")
def _send_answer(s: Step) -> list[Event]:
    return [Message(MASTER, PRODUCER, s.outcome or "answer", reply=True)]


@draws("DeleteExpiredFiles")
def _delete_file(s: Step) -> list[Event]:
    gone = _erased(s.step, f"{s.broker}.commitlog")
    return [Mark(s.broker, f"delete oldest file {_ids(gone)}" if gone else "delete oldest file")]


@draws("SlaveReportOffset")
def _report(s: Step) -> list[Event]:
    report = len(s.before.get(f"{s.slave}.commitlog") or [])
    return [Message(s.slave, MASTER, f"report offset {report}" + (f": {s.outcome}" if s.outcome else ""),
                    lost=bool(s.outcome))]


@draws("MasterPushData")
def _push(s: Step) -> list[Event]:
    carried = _added(s.step, f"{s.slave}.commitlog")
    text = f"HA push {_ids(carried)}" if carried else "HA heartbeat"
    return [Message(MASTER, s.slave, text + (f": {s.outcome}" if s.outcome else ""), lost=bool(s.outcome))]


@draws("SlaveRegister")
def _register(s: Step) -> list[Event]:
    listed = "master address" if s.after.get(f"{s.slave}.syncMasterAddress") else "no master"
    return [Message(s.slave, NAMESERVER, "register"), Message(NAMESERVER, s.slave, listed, reply=True)]


@draws("RefreshRoute")
def _refresh(s: Step) -> list[Event]:
    route = f"route: {s.after.get(f'{s.consumer}.route', [])}"
    return [Message(s.consumer, NAMESERVER, "get route"), Message(NAMESERVER, s.consumer, route, reply=True)]


@draws("Pull")
def _pull(s: Step) -> list[Event]:
    b = _served_by(s.outcome)
    if b is None:
        return [Mark(s.consumer, s.outcome or "pull")]
    broker, consumer, q = broker_name(b), s.consumer, s.queue
    ask = f"pull q{q}@{s.before.get(f'{consumer}.q{q}.nextOffset')}"
    stored = f"{broker}.consumerOffset[{q}]"
    commit = s.after.get(stored) if stored in s.step.changes else None
    if commit is not None:
        ask += f", commit {commit}"
    answer = s.outcome.split(" from ")[0]
    got = _added(s.step, f"{consumer}.q{q}.inFlight")
    return [Message(consumer, broker, ask),
            Message(broker, consumer, f"{answer} {_ids(got)}" if got else answer, reply=True)]


@draws("Consume", "ConsumeDropped")
def _consume(s: Step) -> list[Event]:
    what = "consume" if _parse(s.step.action)[0] == "Consume" else "consume dropped"
    return [Mark(s.consumer, f"{what} {_ids(_added(s.step, 'history.delivered'))}")]


@draws("PersistAllOffsets", "CorrectIllegalOffset")
def _commit(s: Step) -> list[Event]:
    b = _served_by(s.outcome)
    correcting = _parse(s.step.action)[0] == "CorrectIllegalOffset"
    events: list[Event] = [Mark(s.consumer, f"correct q{s.queue} offset")] if correcting else []
    if b is None:
        return events or [Mark(s.consumer, "persist offsets: none")]
    broker = broker_name(b)
    text = f"commit {_commits(s.step, s.consumer, broker, s.before)}".rstrip()
    return events + [Message(s.consumer, broker, text, lost=s.outcome.startswith("oneway"))]


@draws("MasterCrash", "MasterPowerLoss", "MasterRestart", "SlaveCrash", "SlavePowerLoss", "SlaveRestart",
       "ConsumerCrash", "ConsumerRestart")
def _failure(s: Step) -> list[Event]:
    name = _parse(s.step.action)[0]
    for prefix, actor in (("Master", MASTER), ("Slave", s.slave), ("Consumer", s.consumer)):
        if not name.startswith(prefix):
            continue
        what = name[len(prefix):]
        if what == "Restart":
            return [Mark(actor, "restart", "up")]
        lost = _erased(s.step, f"{actor}.commitlog")
        text = "crash" if what == "Crash" else "power loss"
        return [Mark(actor, text + (f": lost {_ids(lost)}" if lost else ""), "down")]
    return [Mark(PRODUCER, s.step.action)]


def interactions(step: Any, before: dict[str, Any], mode: str = "4.4") -> list[Event]:
    """What one step of a trace of ``mode`` draws, from its action, its outcome and the fields it changed
    (an action with no drawing is a note with its label)."""
    name, args = _parse(step.action)
    drawing = (CONTROLLER_DRAWINGS if mode == CONTROLLER else DRAWINGS).get(name)
    if drawing is not None:
        return drawing(Step(step, before, args))
    declared = declared_drawings(mode).get(name)
    if declared is not None:
        return _declared(declared, Step(step, before, args), mode)
    return [Mark(PRODUCER, step.action)]


def note_on_owner(step: Any, actors: list[str]) -> list[Event]:
    """How a step of a model with no drawings here (its lifelines are its view's groups) is drawn: its label
    and outcome as a note on the lifeline it names, by the label alone: the group the action's kind starts
    with (``ControllerDown()``: ``controller``), else the one its first argument numbers
    (``SendMessage(broker=1)``: ``broker1``), else the first."""
    name, args = _parse(step.action)
    first = next(iter(args.values()), None)
    owner = next((a for a in actors if name.lower().startswith(a.lower())), None) or next(
        (a for a in actors if first is not None and re.fullmatch(rf"[a-z]+{first}", a)), actors[0])
    return [Mark(owner, step.action + (f": {step.outcome}" if step.outcome else ""))]


def diagram(trace: Any, witness: bool = False, loop_start: int | None = None) -> Diagram:
    """The diagram of a trace; its last step is highlighted, or, for a lasso (``loop_start``), its cycle is
    drawn as a loop."""
    steps = trace.steps
    actors = actors_of(steps[0].view)
    if MASTER in actors:
        draw = interactions
    elif CONTROLLER in actors:
        def draw(s: Any, before: dict[str, Any]) -> list[Event]:
            return interactions(s, before, CONTROLLER)
    else:
        def draw(s: Any, before: dict[str, Any]) -> list[Event]:
            return note_on_owner(s, actors)
    rows = [Row(s.index, s.action, draw(s, prev.view)) for prev, s in zip(steps, steps[1:])]
    highlight = steps[-1].index if loop_start is None else -1
    return Diagram(actors, rows, highlight, witness, loop_start)


# -- the controller mode (RocketMQ 5.3.3) -------------------------------------------------------------------
def _broker(s: Step, arg: str = "broker") -> str:
    return f"broker{s.args.get(arg, 1)}"


def _ha_master(s: Step) -> str:
    """The broker a slave's HA connection goes to (before the step)."""
    slave = _broker(s, "slave")
    return f"broker{s.before.get(f'{slave}.haMaster') or 1}"


@draws("SendMessage", into=CONTROLLER_DRAWINGS)
def _ctl_send(s: Step) -> list[Event]:
    m, broker = s.before.get("producer.next"), _broker(s)
    send = Message(PRODUCER, broker, f"put m{m}")
    if s.after.get("producer.waiting"):
        return [send, Mark(broker, "waits for the in-sync acks")]
    return [send, Message(broker, PRODUCER, "SEND_OK", reply=True)]


@draws("AckWaitDone", "AckWaitTimeout", into=CONTROLLER_DRAWINGS)
def _ctl_ack(s: Step) -> list[Event]:
    broker = f"broker{s.before.get('producer.waitBroker') or 1}"
    answer = "SEND_OK" if _parse(s.step.action)[0] == "AckWaitDone" else "FLUSH_SLAVE_TIMEOUT"
    return [Message(broker, PRODUCER, answer, reply=True)]


@draws("PullMessage", "PullMessageQueue1", into=CONTROLLER_DRAWINGS)
def _ctl_pull(s: Step) -> list[Event]:
    queue1 = _parse(s.step.action)[0] == "PullMessageQueue1"   # queueId 1 (queues=2): its own offset
    suffix, where = ("1", "q1 ") if queue1 else ("", "")
    broker, offset = _broker(s), s.before.get(f"consumer.nextOffset{suffix}")
    got = [d for d, was in zip(s.after.get(f"consumer.delivered{suffix}", []),
                               s.before.get(f"consumer.delivered{suffix}", [])) if d != was]
    nxt = s.after.get(f"consumer.nextOffset{suffix}")
    answer = f"FOUND m{got[0]}" if got else "FOUND" if nxt == (offset or 0) + 1 else f"OFFSET_MOVED to {nxt}"
    return [Message(CONSUMER, broker, f"pull {where}@{offset}"), Message(broker, CONSUMER, answer, reply=True)]


@draws("BrokerCrash", "BrokerPowerLoss", "BrokerRestart", into=CONTROLLER_DRAWINGS)
def _ctl_failure(s: Step) -> list[Event]:
    name, broker = _parse(s.step.action)[0], _broker(s)
    if name == "BrokerRestart":
        return [Mark(broker, "restart (fenced)", "up")]
    lost = [m for m in s.before.get(f"{broker}.commitlog", []) if m not in s.after.get(f"{broker}.commitlog", [])]
    text = "crash" if name == "BrokerCrash" else "power loss"
    return [Mark(broker, text + (f": lost {_ids(lost)}" if lost else ""), "down")]


def _role_reply(s: Step, broker: str) -> str:
    """What the controller's reply made of ``broker``: its new role and epoch, else the SyncStateSet it
    applied, else nothing."""
    if f"{broker}.role" in s.step.changes or f"{broker}.masterEpoch" in s.step.changes:
        role = "changeToMaster" if s.after.get(f"{broker}.role") == "MASTER" else "changeToSlave"
        return f"{role}, epoch {s.after.get(f'{broker}.masterEpoch')}"
    if f"{broker}.syncStateSet" in s.step.changes:
        return f"SyncStateSet {_ids(s.after.get(f'{broker}.syncStateSet', []))}"
    return ""


@draws("RegisterBroker", into=CONTROLLER_DRAWINGS)
def _ctl_register(s: Step) -> list[Event]:
    broker = _broker(s)
    reply = _role_reply(s, broker) or "no live master: stays fenced"
    return [Message(broker, CONTROLLER, "register, heartbeat"), Message(CONTROLLER, broker, reply, reply=True)]


@draws("BrokerElect", into=CONTROLLER_DRAWINGS)
def _ctl_broker_elect(s: Step) -> list[Event]:
    broker = _broker(s)
    return [Message(broker, CONTROLLER, "elect master"),
            Message(CONTROLLER, broker, f"{_broker(s, 'elected')} elected: " + (_role_reply(s, broker) or "role kept"),
                    reply=True)]


@draws("ControllerElect", into=CONTROLLER_DRAWINGS)
def _ctl_elect(s: Step) -> list[Event]:
    return [Mark(CONTROLLER, f"elect {_broker(s, 'elected')}, epoch {s.after.get('controller.masterEpoch')}")]


@draws("SyncBrokerMetadata", into=CONTROLLER_DRAWINGS)
def _ctl_sync(s: Step) -> list[Event]:
    broker = _broker(s)
    return [Message(broker, CONTROLLER, "get replica info"),
            Message(CONTROLLER, broker, _role_reply(s, broker) or "no change", reply=True)]


@draws("AlterSyncStateSet", "AlterSyncStateSetReplyLost", into=CONTROLLER_DRAWINGS)
def _ctl_alter(s: Step) -> list[Event]:
    broker = _broker(s)
    ask = Message(broker, CONTROLLER, f"alter SyncStateSet {_ids(s.before.get(f'{broker}.remoteSyncStateSet', []))}")
    accepted = "controller.syncStateSet" in s.step.changes
    if _parse(s.step.action)[0] == "AlterSyncStateSetReplyLost":
        return [ask, Message(CONTROLLER, broker, "accepted", reply=True, lost=True)]
    answer = f"accepted, epoch {s.after.get('controller.syncStateSetEpoch')}" if accepted else "not applied"
    return [ask, Message(CONTROLLER, broker, answer, reply=True, lost=not accepted)]


@draws("SlaveReportOffset", into=CONTROLLER_DRAWINGS)
def _ctl_report(s: Step) -> list[Event]:
    slave = _broker(s, "slave")
    return [Message(slave, _ha_master(s), f"report offset {len(s.before.get(f'{slave}.commitlog') or [])}")]


@draws("PushData", "PushHeartbeat", into=CONTROLLER_DRAWINGS)
def _ctl_push(s: Step) -> list[Event]:
    slave = _broker(s, "slave")
    carried = s.after.get(f"{slave}.commitlog", [])[len(s.before.get(f"{slave}.commitlog") or []):]
    confirm = f"confirmOffset {s.after.get(f'{slave}.confirmOffset')}"
    return [Message(_ha_master(s), slave, f"push {_ids(carried)}, {confirm}" if carried else f"heartbeat, {confirm}")]


def loop_label(d: Diagram) -> str:
    """What a lasso's loop says: the steps that repeat for ever, or the state the run stays in."""
    last = d.rows[-1].step if d.rows else 0
    if d.loop_start is None:
        return ""
    if d.loop_start >= last:
        return f"for ever: the run stays in the state after step {d.loop_start} (no fair action enabled)"
    return f"repeats for ever: steps {d.loop_start + 1}-{last} (back to the state after step {d.loop_start})"


# -- SVG -------------------------------------------------------------------------------------------------
COLUMN = 128        # px between lifelines
GUTTER = 34         # left margin holding the step numbers
MARGIN = 72         # right margin: room for a label beside the last lifeline
HEAD = 40           # actor boxes
LINE = 26           # one event
FONT = 11
CHAR = 6.3          # average glyph width at FONT px (for sizing notes)


def _width(d: Diagram) -> int:
    return GUTTER + COLUMN * len(d.actors) + MARGIN


def _x(d: Diagram, actor: str) -> float:
    return GUTTER + COLUMN * d.actors.index(actor) + COLUMN / 2


def _text(x: float, y: float, text: str, anchor: str = "middle", cls: str = "") -> str:
    c = f" class='{cls}'" if cls else ""
    return f"<text x='{x:.0f}' y='{y:.0f}' text-anchor='{anchor}'{c}>{escape(text)}</text>"


def svg(d: Diagram, label: str = "") -> str:
    """The diagram as one inline ``<svg>`` element, sized in pixels (the page scrolls it on a narrow screen)."""
    width = _width(d)
    heights = [max(len(r.events), 1) * LINE for r in d.rows]
    height = HEAD + sum(heights) + LINE // 2
    out = [f"<svg class='sequence' width='{width}' height='{height}' "
           f"viewBox='0 0 {width} {height}' role='img' aria-label='{escape(label or 'sequence diagram')}' "
           f"font-family='system-ui, sans-serif' font-size='{FONT}'>"]
    # the highlighted step: a band behind everything
    y = HEAD
    for row, h in zip(d.rows, heights):
        if row.step == d.highlight:
            cls = "witness-step" if d.witness else "violating-step"
            out.append(f"<rect class='{cls}' x='0' y='{y}' width='{width}' height='{h}'/>")
        elif d.loop_start is not None and row.step > d.loop_start:   # a lasso's cycle
            out.append(f"<rect class='loop-step' x='0' y='{y}' width='{width}' height='{h}'/>")
        y += h
    out += _lifelines(d, heights, height)
    for i, actor in enumerate(d.actors):
        x = _x(d, actor)
        out.append(f"<rect class='actor' x='{x - COLUMN / 2 + 6:.0f}' y='4' width='{COLUMN - 12}' height='24' rx='4'/>")
        out.append(_text(x, 20, actor, cls="actor-name"))
    y = HEAD
    for row, h in zip(d.rows, heights):
        out.append(f"<g class='step' data-step='{row.step}'><title>{escape(f'{row.step}. {row.action}')}</title>")
        out.append(_text(GUTTER - 6, y + LINE * 0.65, str(row.step), anchor="end", cls="step-number"))
        for k, event in enumerate(row.events):
            out += _event(d, event, y + k * LINE)
        out.append("</g>")
        y += h
    out.append("</svg>")
    return "\n".join(out)


def _lifelines(d: Diagram, heights: list[int], bottom: int) -> list[str]:
    """Each actor's line: solid while up, dashed red while down (from a ``down`` mark to an ``up`` mark)."""
    out = []
    for actor in d.actors:
        x = _x(d, actor)
        y, start, down = HEAD, 28, False
        segments = []
        for row, h in zip(d.rows, heights):
            for k, e in enumerate(row.events):
                if isinstance(e, Mark) and e.actor == actor and e.kind in ("down", "up"):
                    at = y + k * LINE + LINE / 2
                    segments.append((start, at, down))
                    start, down = at, e.kind == "down"
            y += h
        segments.append((start, bottom, down))
        for y0, y1, is_down in segments:
            cls = "lifeline down" if is_down else "lifeline"
            out.append(f"<line class='{cls}' x1='{x:.0f}' y1='{y0:.0f}' x2='{x:.0f}' y2='{y1:.0f}'/>")
    return out


def _event(d: Diagram, e: Event, top: float) -> list[str]:
    mid = top + LINE * 0.68
    if isinstance(e, Mark):
        x = _x(d, e.actor)
        if e.kind == "down":
            s = 6
            return [f"<path class='crash' d='M{x - s:.0f},{mid - s:.0f} L{x + s:.0f},{mid + s:.0f} "
                    f"M{x + s:.0f},{mid - s:.0f} L{x - s:.0f},{mid + s:.0f}'/>",
                    _text(x + 10, mid - 2, e.label, anchor="start", cls="crash-label")]
        if e.kind == "up":
            return [f"<circle class='restart' cx='{x:.0f}' cy='{mid:.0f}' r='5'/>",
                    _text(x + 10, mid - 2, e.label, anchor="start", cls="restart-label")]
        w = len(e.label) * CHAR + 12
        left = max(2.0, min(x - w / 2, _width(d) - w - 2))   # kept inside the drawing
        return [f"<rect class='note' x='{left:.0f}' y='{mid - 13:.0f}' width='{w:.0f}' height='18' rx='3'/>",
                _text(left + w / 2, mid, e.label, cls="note-text")]
    x1, x2 = _x(d, e.sender), _x(d, e.receiver)
    direction = 1 if x2 > x1 else -1
    end = x2 - direction * (14 if e.lost else 2)
    cls = "msg reply" if e.reply else "msg"
    out = [f"<line class='{cls}' x1='{x1:.0f}' y1='{mid:.0f}' x2='{end:.0f}' y2='{mid:.0f}'/>"]
    if e.lost:
        s = 4
        out.append(f"<path class='lost' d='M{end - s:.0f},{mid - s:.0f} L{end + s:.0f},{mid + s:.0f} "
                   f"M{end + s:.0f},{mid - s:.0f} L{end - s:.0f},{mid + s:.0f}'/>")
    else:
        tip, back = end, end - direction * 7
        out.append(f"<path class='head' d='M{tip:.0f},{mid:.0f} L{back:.0f},{mid - 4:.0f} "
                   f"L{back:.0f},{mid + 4:.0f} Z'/>")
    out.append(_text((x1 + x2) / 2, mid - 4, e.label, cls="msg-label"))
    return out


#: the diagram's look, for the page's stylesheet (class names used above)
SVG_STYLE = """
svg.sequence { display: block; }
svg.sequence .actor { fill: #eef3f8; stroke: #5b7a99; }
svg.sequence .actor-name { font-weight: bold; fill: #223; }
svg.sequence .lifeline { stroke: #8a9bb0; stroke-width: 1.5; }
svg.sequence .lifeline.down { stroke: #c0392b; stroke-dasharray: 4 4; }
svg.sequence .msg { stroke: #223; stroke-width: 1.3; }
svg.sequence .msg.reply { stroke-dasharray: 5 3; }
svg.sequence .head { fill: #223; }
svg.sequence .lost, svg.sequence .crash { stroke: #c0392b; stroke-width: 2.2; fill: none; }
svg.sequence .crash-label { fill: #c0392b; font-weight: bold; }
svg.sequence .restart { fill: #2e8b57; }
svg.sequence .restart-label { fill: #2e8b57; font-weight: bold; }
svg.sequence .msg-label { fill: #111; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
svg.sequence .note { fill: #fffbe6; stroke: #c9b458; }
svg.sequence .step-number { fill: #666; }
svg.sequence .violating-step { fill: #fde2e1; }
svg.sequence .loop-step { fill: #fdf3d8; }
svg.sequence .witness-step { fill: #e1effd; }
"""


# -- Mermaid ---------------------------------------------------------------------------------------------
def _mermaid_text(text: str) -> str:
    """Text Mermaid takes literally in a message or note: no statement separator, no entity code."""
    return text.replace(";", ",").replace("#", "no.").replace("\n", " ")


def mermaid(d: Diagram) -> str:
    """The diagram as a Mermaid ``sequenceDiagram`` (the fenced block's body); the last step in a rect."""
    lines = ["sequenceDiagram"] + [f"    participant {a}" for a in d.actors]
    looping = d.loop_start is not None and d.rows and d.loop_start < d.rows[-1].step
    for row in d.rows:
        if looping and row.step == d.loop_start + 1:
            lines.append(f"    loop {_mermaid_text(loop_label(d))}")
        indent = "    " if not looping or row.step <= d.loop_start else "        "
        if row.step == d.highlight:
            colour = "rgb(225, 239, 253)" if d.witness else "rgb(253, 226, 225)"
            lines.append(f"    rect {colour}")
            indent = "        "
        for k, e in enumerate(row.events or [Mark(PRODUCER, row.action)]):
            prefix = f"{row.step}. " if k == 0 else ""
            if isinstance(e, Mark):
                mark = {"down": "✖ ", "up": "▲ "}.get(e.kind, "")
                lines.append(f"{indent}Note over {e.actor}: {_mermaid_text(prefix + mark + e.label)}")
            else:
                arrow = ("--" if e.reply else "-") + ("x" if e.lost else ">>")
                lines.append(f"{indent}{e.sender}{arrow}{e.receiver}: {_mermaid_text(prefix + e.label)}")
        if row.step == d.highlight:
            lines.append("    end")
    if looping:
        lines.append("    end")
    elif d.loop_start is not None:
        lines.append(f"    Note over {d.actors[0]},{d.actors[-1]}: {_mermaid_text(loop_label(d))}")
    return "\n".join(lines)
