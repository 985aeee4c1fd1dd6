"""How the RocketMQ 4.4 mode's traces are drawn as message sequences (:mod:`reports.sequence`).

Lifelines: the producer, the master, each slave, the name server, each consumer. The actions whose
picture reads the step's outcome or the fields it changed are drawn here (a send and its SEND_OK, an HA
push with the messages it carried, a slave's offset report, a pull and its answer from the broker that
served it, an offset commit, a route refresh, failures); every other action declares its drawing on its
``@action`` (``drawn=``). The registry names :data:`DRAWINGS` (``Mode.drawings_path``); this module is
loaded only when a diagram is drawn.
"""
from __future__ import annotations

import re
from typing import Any

from reports.sequence import Drawings, Drawing, Event, Mark, Message, Step, added, draws, erased, ids, numbered

PRODUCER = "producer"
MASTER = "master"
NAMESERVER = "nameserver"
_BROKER = re.compile(r"broker (\d+)")
DRAWN: dict[str, Drawing] = {}


def broker_name(b: int) -> str:
    return MASTER if b == 0 else f"slave{b}"


class Step44(Step):
    """A 4.4 step: the broker, slave, consumer and queue its arguments name."""

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


def _lifelines(view: dict[str, Any]) -> list[str] | None:
    if not any(k.startswith(f"{MASTER}.") for k in view):
        return None
    return [PRODUCER, MASTER, *numbered(view, "slave"), NAMESERVER, *numbered(view, "consumer")]


def _roles(s: Step44) -> dict[str, str]:
    return {"producer": PRODUCER, "master": MASTER, "nameserver": NAMESERVER, "broker": s.broker,
            "slave": s.slave, "consumer": s.consumer}


def _declarations() -> Any:
    from model.declare import ROCKETMQ_44
    return ROCKETMQ_44.declarations()


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


@draws("SendMessage", into=DRAWN)
def _send(s: Step44) -> list[Event]:
    m = s.before.get("producer.nextMessage")
    if s.outcome.startswith("send failed"):
        return [Message(PRODUCER, MASTER, f"send m{m}", lost=True)]
    if s.outcome.startswith("stored"):
        return [Message(PRODUCER, MASTER, f"send m{m}"), Mark(MASTER, "waits for a slave")]
    return [Message(PRODUCER, MASTER, f"send m{m}"), Message(MASTER, PRODUCER, s.outcome or "answer", reply=True)]


@draws("SyncMasterAck", "SyncMasterTimeout", into=DRAWN)
def _send_answer(s: Step44) -> list[Event]:
    return [Message(MASTER, PRODUCER, s.outcome or "answer", reply=True)]


@draws("DeleteExpiredFiles", into=DRAWN)
def _delete_file(s: Step44) -> list[Event]:
    gone = erased(s.step, f"{s.broker}.commitlog")
    return [Mark(s.broker, f"delete oldest file {ids(gone)}" if gone else "delete oldest file")]


@draws("SlaveReportOffset", into=DRAWN)
def _report(s: Step44) -> list[Event]:
    report = len(s.before.get(f"{s.slave}.commitlog") or [])
    return [Message(s.slave, MASTER, f"report offset {report}" + (f": {s.outcome}" if s.outcome else ""),
                    lost=bool(s.outcome))]


@draws("MasterPushData", into=DRAWN)
def _push(s: Step44) -> list[Event]:
    carried = added(s.step, f"{s.slave}.commitlog")
    text = f"HA push {ids(carried)}" if carried else "HA heartbeat"
    return [Message(MASTER, s.slave, text + (f": {s.outcome}" if s.outcome else ""), lost=bool(s.outcome))]


@draws("SlaveRegister", into=DRAWN)
def _register(s: Step44) -> list[Event]:
    listed = "master address" if s.after.get(f"{s.slave}.syncMasterAddress") else "no master"
    return [Message(s.slave, NAMESERVER, "register"), Message(NAMESERVER, s.slave, listed, reply=True)]


@draws("RefreshRoute", into=DRAWN)
def _refresh(s: Step44) -> list[Event]:
    route = f"route: {s.after.get(f'{s.consumer}.route', [])}"
    return [Message(s.consumer, NAMESERVER, "get route"), Message(NAMESERVER, s.consumer, route, reply=True)]


@draws("Pull", into=DRAWN)
def _pull(s: Step44) -> list[Event]:
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
    got = added(s.step, f"{consumer}.q{q}.inFlight")
    return [Message(consumer, broker, ask),
            Message(broker, consumer, f"{answer} {ids(got)}" if got else answer, reply=True)]


@draws("Consume", "ConsumeDropped", into=DRAWN)
def _consume(s: Step44) -> list[Event]:
    what = "consume" if s.kind == "Consume" else "consume dropped"
    return [Mark(s.consumer, f"{what} {ids(added(s.step, 'history.delivered'))}")]


@draws("PersistAllOffsets", "CorrectIllegalOffset", into=DRAWN)
def _commit(s: Step44) -> list[Event]:
    b = _served_by(s.outcome)
    correcting = s.kind == "CorrectIllegalOffset"
    events: list[Event] = [Mark(s.consumer, f"correct q{s.queue} offset")] if correcting else []
    if b is None:
        return events or [Mark(s.consumer, "persist offsets: none")]
    broker = broker_name(b)
    text = f"commit {_commits(s.step, s.consumer, broker, s.before)}".rstrip()
    return events + [Message(s.consumer, broker, text, lost=s.outcome.startswith("oneway"))]


@draws("MasterCrash", "MasterPowerLoss", "MasterRestart", "SlaveCrash", "SlavePowerLoss", "SlaveRestart",
       "ConsumerCrash", "ConsumerRestart", into=DRAWN)
def _failure(s: Step44) -> list[Event]:
    name = s.kind
    for prefix, actor in (("Master", MASTER), ("Slave", s.slave), ("Consumer", s.consumer)):
        if not name.startswith(prefix):
            continue
        what = name[len(prefix):]
        if what == "Restart":
            return [Mark(actor, "restart", "up")]
        lost = erased(s.step, f"{actor}.commitlog")
        text = "crash" if what == "Crash" else "power loss"
        return [Mark(actor, text + (f": lost {ids(lost)}" if lost else ""), "down")]
    return [Mark(PRODUCER, s.step.action)]


DRAWINGS = Drawings(_lifelines, DRAWN, _roles, _declarations, step=Step44, fallback=PRODUCER)
