"""How the controller mode's traces (RocketMQ 5.3.3) are drawn as message sequences (:mod:`reports.sequence`).

Lifelines: the producer, each broker, the controller, the name servers (with ``name_servers`` >= 1), the
consumer. Registrations, elections, metadata
polls and SyncStateSet changes are messages between a broker and the controller, HA messages between
brokers. The actions whose picture reads the step's outcome or the fields it changed are drawn here; every
other action declares its drawing on its ``@action`` (``drawn=``). The registry names :data:`DRAWINGS`
(``Mode.drawings_path``); this module is loaded only when a diagram is drawn.
"""
from __future__ import annotations

from typing import Any

from reports.sequence import Drawings, Drawing, Event, Mark, Message, Step, draws, ids, numbered

PRODUCER = "producer"
CONTROLLER = "controller"
CONSUMER = "consumer"
DRAWN: dict[str, Drawing] = {}


def _lifelines(view: dict[str, Any]) -> list[str] | None:
    if not any(k.startswith(f"{CONTROLLER}.") for k in view):
        return None
    # with name servers (name_servers >= 1, model/controller/namesrv.py) their lifelines after the controller
    return [PRODUCER, *numbered(view, "broker"), CONTROLLER, *numbered(view, "nameserver"), CONSUMER]


def _roles(s: Step) -> dict[str, str]:
    return {PRODUCER: PRODUCER, CONSUMER: CONSUMER, CONTROLLER: CONTROLLER,
            **{arg: f"broker{s.args[arg]}" for arg in ("broker", "elected", "slave", "master") if arg in s.args},
            **({"nameserver": f"nameserver{s.args['nameserver']}"} if "nameserver" in s.args else {})}


def _declarations() -> Any:
    from .declare import CONTROLLER as declared
    return declared.declarations()


def _broker(s: Step, arg: str = "broker") -> str:
    return f"broker{s.args.get(arg, 1)}"


def _ha_master(s: Step) -> str:
    """The broker a slave's HA connection goes to (before the step)."""
    slave = _broker(s, "slave")
    return f"broker{s.before.get(f'{slave}.haMaster') or 1}"


@draws("SendMessage", into=DRAWN)
def _ctl_send(s: Step) -> list[Event]:
    m, broker = s.before.get("producer.next"), _broker(s)
    send = Message(PRODUCER, broker, f"put m{m}")
    if s.after.get("producer.waiting"):
        return [send, Mark(broker, "waits for the in-sync acks")]
    return [send, Message(broker, PRODUCER, "SEND_OK", reply=True)]


@draws("AckWaitDone", "AckWaitTimeout", into=DRAWN)
def _ctl_ack(s: Step) -> list[Event]:
    broker = f"broker{s.before.get('producer.waitBroker') or 1}"
    answer = "SEND_OK" if s.kind == "AckWaitDone" else "FLUSH_SLAVE_TIMEOUT"
    return [Message(broker, PRODUCER, answer, reply=True)]


@draws("PullMessage", "PullMessageQueue1", into=DRAWN)
def _ctl_pull(s: Step) -> list[Event]:
    queue1 = s.kind == "PullMessageQueue1"   # queueId 1 (queues=2): its own offset
    suffix, where = ("1", "q1 ") if queue1 else ("", "")
    broker, offset = _broker(s), s.before.get(f"consumer.nextOffset{suffix}")
    got = [d for d, was in zip(s.after.get(f"consumer.delivered{suffix}", []),
                               s.before.get(f"consumer.delivered{suffix}", [])) if d != was]
    nxt = s.after.get(f"consumer.nextOffset{suffix}")
    answer = f"FOUND m{got[0]}" if got else "FOUND" if nxt == (offset or 0) + 1 else f"OFFSET_MOVED to {nxt}"
    return [Message(CONSUMER, broker, f"pull {where}@{offset}"), Message(broker, CONSUMER, answer, reply=True)]


@draws("BrokerCrash", "BrokerPowerLoss", "BrokerRestart", into=DRAWN)
def _ctl_failure(s: Step) -> list[Event]:
    name, broker = s.kind, _broker(s)
    if name == "BrokerRestart":
        return [Mark(broker, "restart (fenced)", "up")]
    lost = [m for m in s.before.get(f"{broker}.commitlog", []) if m not in s.after.get(f"{broker}.commitlog", [])]
    text = "crash" if name == "BrokerCrash" else "power loss"
    return [Mark(broker, text + (f": lost {ids(lost)}" if lost else ""), "down")]


def _role_reply(s: Step, broker: str) -> str:
    """What the controller's reply made of ``broker``: its new role and epoch, else the SyncStateSet it
    applied, else nothing."""
    if f"{broker}.role" in s.step.changes or f"{broker}.masterEpoch" in s.step.changes:
        role = "changeToMaster" if s.after.get(f"{broker}.role") == "MASTER" else "changeToSlave"
        return f"{role}, epoch {s.after.get(f'{broker}.masterEpoch')}"
    if f"{broker}.syncStateSet" in s.step.changes:
        return f"SyncStateSet {ids(s.after.get(f'{broker}.syncStateSet', []))}"
    return ""


@draws("RegisterBroker", into=DRAWN)
def _ctl_register(s: Step) -> list[Event]:
    broker = _broker(s)
    reply = _role_reply(s, broker) or "no live master: stays fenced"
    return [Message(broker, CONTROLLER, "register, heartbeat"), Message(CONTROLLER, broker, reply, reply=True)]


@draws("BrokerElect", into=DRAWN)
def _ctl_broker_elect(s: Step) -> list[Event]:
    broker = _broker(s)
    return [Message(broker, CONTROLLER, "elect master"),
            Message(CONTROLLER, broker, f"{_broker(s, 'elected')} elected: " + (_role_reply(s, broker) or "role kept"),
                    reply=True)]


@draws("ControllerElect", into=DRAWN)
def _ctl_elect(s: Step) -> list[Event]:
    return [Mark(CONTROLLER, f"elect {_broker(s, 'elected')}, epoch {s.after.get('controller.masterEpoch')}")]


@draws("SyncBrokerMetadata", into=DRAWN)
def _ctl_sync(s: Step) -> list[Event]:
    broker = _broker(s)
    return [Message(broker, CONTROLLER, "get replica info"),
            Message(CONTROLLER, broker, _role_reply(s, broker) or "no change", reply=True)]


@draws("AlterSyncStateSet", "AlterSyncStateSetReplyLost", into=DRAWN)
def _ctl_alter(s: Step) -> list[Event]:
    broker = _broker(s)
    ask = Message(broker, CONTROLLER, f"alter SyncStateSet {ids(s.before.get(f'{broker}.remoteSyncStateSet', []))}")
    accepted = "controller.syncStateSet" in s.step.changes
    if s.kind == "AlterSyncStateSetReplyLost":
        return [ask, Message(CONTROLLER, broker, "accepted", reply=True, lost=True)]
    answer = f"accepted, epoch {s.after.get('controller.syncStateSetEpoch')}" if accepted else "not applied"
    return [ask, Message(CONTROLLER, broker, answer, reply=True, lost=not accepted)]


@draws("SlaveReportOffset", into=DRAWN)
def _ctl_report(s: Step) -> list[Event]:
    slave = _broker(s, "slave")
    return [Message(slave, _ha_master(s), f"report offset {len(s.before.get(f'{slave}.commitlog') or [])}")]


@draws("PushData", "PushHeartbeat", into=DRAWN)
def _ctl_push(s: Step) -> list[Event]:
    slave = _broker(s, "slave")
    carried = s.after.get(f"{slave}.commitlog", [])[len(s.before.get(f"{slave}.commitlog") or []):]
    confirm = f"confirmOffset {s.after.get(f'{slave}.confirmOffset')}"
    return [Message(_ha_master(s), slave, f"push {ids(carried)}, {confirm}" if carried else f"heartbeat, {confirm}")]


# the name servers (name_servers >= 1, model/controller/namesrv.py)
@draws("NsRegister", into=DRAWN)
def _ctl_ns_register(s: Step) -> list[Event]:
    broker, ns = _broker(s), f"nameserver{s.args.get('nameserver', 1)}"
    master = s.before.get(f"{broker}.role") == "MASTER"
    ask = f"register brokerId 0, stateVersion {s.before.get(f'{broker}.masterEpoch')}" if master else \
        f"register brokerId {s.args.get('broker', 1)}"
    listed = s.after.get(f"{ns}.master") == s.args.get("broker", 1)
    ha = s.after.get(f"{broker}.haMasterAddress")
    answer = "listed at 0" if listed else "rejected: a live holder's stateVersion is greater" if master else \
        f"ok, master broker{ha}" if ha else "ok, no master"
    return [Message(broker, ns, ask), Message(ns, broker, answer, reply=True)]


@draws("ProducerRouteRefresh", "ConsumerRouteRefresh", into=DRAWN)
def _ctl_route_refresh(s: Step) -> list[Event]:
    client = PRODUCER if s.kind == "ProducerRouteRefresh" else CONSUMER
    ns = f"nameserver{s.args.get('nameserver', 1)}"
    route = s.after.get(f"{client}.route")
    return [Message(client, ns, "get route"),
            Message(ns, client, f"brokerId 0: broker{route}" if route else "no brokerId 0", reply=True)]


DRAWINGS = Drawings(_lifelines, DRAWN, _roles, _declarations, fallback=PRODUCER)
