"""Sequence diagrams (reports/sequence.py) of real traces: the arrows agree with the steps' actions,
outcomes and changed fields; the SVG parses as XML and the Mermaid text follows the sequenceDiagram grammar."""
from __future__ import annotations

import functools
import re
import xml.etree.ElementTree as ET

import pytest

from explore import Limits, LocalExplorer
from invariants import PROPERTIES
from model import Config, RocketMQModel
from model.drawings import broker_name
from reports.sequence import Mark, Message, diagram, interactions, mermaid, svg

CONFIGS = {
    "every-violation": {"max_master_crashes": 0},                       # power losses, HA, pulls, commits
    "crash-restart": {"messages": 1, "max_master_power_losses": 0},     # a master crash and restart
}


@functools.lru_cache(maxsize=None)
def traces(config: str):
    result = LocalExplorer(RocketMQModel(Config.from_mapping(CONFIGS[config])), PROPERTIES, Limits()).run()
    return [p for p in result.properties if p.trace is not None]


def all_traces():
    return [(config, p) for config in CONFIGS for p in traces(config)]


def test_the_configurations_give_traces_with_every_kind_of_interaction():
    labels = {s.action.split("(")[0] for _, p in all_traces() for s in p.trace.steps[1:]}
    assert {"SendMessage", "Pull", "MasterPushData", "SlaveReportOffset", "MasterPowerLoss", "MasterRestart",
            "MasterCrash", "RefreshRoute", "Consume"} <= labels, labels
    outcomes = {s.outcome.split(" ")[0] for _, p in all_traces() for s in p.trace.steps}
    assert {"SEND_OK", "FOUND", "committed"} <= outcomes, outcomes


def check_step(step, before: dict, events: list) -> None:
    """The events of one step against what the step did."""
    name = step.action.split("(")[0]
    after = step.view
    assert events, step.action
    if name == "SendMessage" and step.outcome == "SEND_OK":
        m = before["producer.nextMessage"]
        assert events == [Message("producer", "master", f"send m{m}"),
                          Message("master", "producer", "SEND_OK", reply=True)]
        assert m in after["master.commitlog"] and m in after["producer.sendOk"]
    if name == "Pull" and " from broker " in step.outcome:
        status, b = step.outcome.split(" from broker ")
        broker = broker_name(int(b))
        request, answer = events
        consumer = re.search(r"consumer=(\d+)", step.action).group(1)
        assert (request.sender, request.receiver) == (f"consumer{consumer}", broker)
        assert (answer.sender, answer.receiver, answer.reply) == (broker, f"consumer{consumer}", True)
        assert answer.label.startswith(status)
        if status == "FOUND":
            got = [int(x) for x in re.search(r"\[([\d,]+)\]", answer.label).group(1).split(",")]
            assert set(got) <= set(before[f"{broker}.commitlog"]), (got, before[f"{broker}.commitlog"])
    if name == "MasterPushData":
        slave = "slave" + re.search(r"slave=(\d+)", step.action).group(1)
        (push,) = events
        assert (push.sender, push.receiver) == ("master", slave)
        carried = sorted(set(after[f"{slave}.commitlog"]) - set(before[f"{slave}.commitlog"]))
        assert push.label.startswith(f"HA push [{','.join(map(str, carried))}]" if carried else "HA heartbeat")
    if name in ("MasterCrash", "MasterPowerLoss"):
        assert events == [Mark("master", events[0].label, "down")] and after["master.up"] is False
    if name == "MasterRestart":
        assert events == [Mark("master", "restart", "up")] and after["master.up"] is True
    if step.outcome.startswith("committed (broker "):
        broker = broker_name(int(step.outcome.rstrip(")").split()[-1]))
        commit = [e for e in events if isinstance(e, Message)]
        assert commit and commit[-1].receiver == broker and commit[-1].label.startswith("commit")


@pytest.mark.parametrize("config, p", all_traces(), ids=lambda x: getattr(x, "name", x))
def test_each_step_draws_the_interactions_it_performed(config, p):
    d = diagram(p.trace, witness=p.status != "violated")
    assert d.actors[:2] == ["producer", "master"] and "nameserver" in d.actors and "consumer1" in d.actors
    assert [r.step for r in d.rows] == list(range(1, len(p.trace) + 1))
    assert d.highlight == len(p.trace)
    for prev, step, row in zip(p.trace.steps, p.trace.steps[1:], d.rows):
        assert row.events == interactions(step, prev.view)
        for e in row.events:
            for actor in ([e.actor] if isinstance(e, Mark) else [e.sender, e.receiver]):
                assert actor in d.actors
        check_step(step, prev.view, row.events)


@pytest.mark.parametrize("config, p", all_traces(), ids=lambda x: getattr(x, "name", x))
def test_svg_parses_and_draws_every_step_with_the_last_highlighted(config, p):
    d = diagram(p.trace, witness=p.status != "violated")
    root = ET.fromstring(svg(d, p.name))
    assert root.tag == "svg" and int(root.get("width")) > 0 and int(root.get("height")) > 0
    steps = [g for g in root.iter("g") if g.get("class") == "step"]
    assert [int(g.get("data-step")) for g in steps] == [r.step for r in d.rows]
    band = "witness-step" if d.witness else "violating-step"
    assert len([r for r in root.iter("rect") if r.get("class") == band]) == 1
    texts = {t.text for t in root.iter("text")}
    assert set(d.actors) <= texts
    for row in d.rows:
        for e in row.events:
            assert e.label in texts
    down = any(isinstance(e, Mark) and e.kind == "down" for r in d.rows for e in r.events)
    assert any(line.get("class") == "lifeline down" for line in root.iter("line")) == down
    # nothing is drawn outside the picture
    width = int(root.get("width"))
    for rect in root.iter("rect"):
        assert 0 <= float(rect.get("x")) and float(rect.get("x")) + float(rect.get("width")) <= width


MERMAID_LINE = re.compile(
    r"^(sequenceDiagram"
    r"|    participant (?P<participant>\w+)"
    r"|\s+(?P<sender>\w+)(?P<arrow>->>|-->>|-x|--x)(?P<receiver>\w+): (?P<message>[^;#\n]+)"
    r"|\s+Note over (?P<note>\w+): [^;#\n]+"
    r"|    rect rgb\(\d+, \d+, \d+\)"
    r"|    end)$")


@pytest.mark.parametrize("config, p", all_traces(), ids=lambda x: getattr(x, "name", x))
def test_mermaid_block_follows_the_sequence_diagram_grammar(config, p):
    d = diagram(p.trace, witness=p.status != "violated")
    lines = mermaid(d).splitlines()
    parsed = [MERMAID_LINE.match(line) for line in lines]
    assert all(parsed), [line for line, m in zip(lines, parsed) if not m]
    assert lines[0] == "sequenceDiagram"
    assert [m.group("participant") for m in parsed if m.group("participant")] == d.actors
    messages = [e for r in d.rows for e in r.events if isinstance(e, Message)]
    assert len([m for m in parsed if m.group("arrow")]) == len(messages)
    numbers = [int(n) for n in re.findall(r": (\d+)\. ", "\n".join(lines))]
    assert numbers == [r.step for r in d.rows]
    # the highlighted step, and only it, sits in the rect block
    start = next(i for i, line in enumerate(lines) if line.startswith("    rect"))
    assert lines[-1] == "    end" and f": {d.highlight}. " in lines[start + 1]


def _drawn_modes() -> list[str]:
    from model.modes import MODES
    return [name for name, mode in MODES.items() if mode.drawings() is not None]


@pytest.mark.parametrize("mode", _drawn_modes())
def test_every_declared_action_has_one_drawing(mode):
    """A new action without a drawing would draw a bare note on the producer's lifeline: it must not land.
    Each mode's actions are drawn on the declaration or in the mode's table, not both."""
    from model.modes import get_mode
    drawings = get_mode(mode).drawings()
    names = {d.name for d in drawings.declarations()}
    declared = drawings.declared()
    assert sorted(names - set(drawings.drawn) - set(declared)) == []
    assert sorted(set(drawings.drawn) & set(declared)) == []   # drawn once: on the declaration, or here
    assert set(drawings.drawn) <= names


def test_both_modes_register_their_drawings():
    assert {"4.4", "controller"} <= set(_drawn_modes())


def test_a_declared_drawing_resolves_its_roles_for_the_step():
    from model.declare import Arrow, Note
    from model.drawings import DRAWINGS, Step44
    from reports.sequence import Mark, Message, resolve_declared

    class Done:   # a trace step, as much of it as a drawing reads
        action, outcome, changes, view = "NameServerExpireSlave(slave=2)", "", {}, {}

    s = Step44(Done(), {}, {"slave": 2, "consumer": 1, "broker": 0})
    items = (Note("nameserver", "expires {slave}"), Arrow("slave", "master", "x", reply=True))
    drawn = resolve_declared(items, s, DRAWINGS.roles(s))
    assert drawn == [Mark("nameserver", "expires slave2"), Message("slave2", "master", "x", reply=True)]


def test_a_drawing_naming_an_unknown_actor_is_refused_at_declaration():
    from model.declare import Note, action
    with pytest.raises(ValueError, match="'broker2'"):
        action("Toy", kind=99, actor="store", rocketmq="X#y", phrase="p", drawn=Note("broker2", "t"))


def test_a_file_deletion_is_drawn_on_the_broker_that_deleted():
    """DeleteExpiredFiles had no drawing and was drawn as a note on the producer's lifeline."""
    from explore.trace import replay
    m = RocketMQModel(Config.from_mapping(dict(messages=3, commitlog_file_messages=1, max_file_deletions=1,
                                               max_master_crashes=0, max_master_power_losses=0)))
    labels = ["SendMessage()", "FlushCommitLog(broker=0)", "SendMessage()", "DeleteExpiredFiles(broker=0)"]
    index = {str(a): i for i, a in enumerate(m.actions())}
    trace = replay(m, m.initial_states()[0], [index[label] for label in labels])
    events = interactions(trace.steps[-1], trace.steps[-2].view)
    assert events == [Mark("master", "delete oldest file [1]")]


def test_a_controller_counterexample_is_drawn_as_messages_between_its_lifelines():
    """A SEND_OK lost by a failover (controller preset): the put and its SEND_OK, the registrations and
    elections as messages between brokers and the controller, HA between brokers, the crash on a lifeline;
    no step falls back to its bare label."""
    from invariants.controller import PROPERTIES as CONTROLLER_PROPERTIES
    from model.controller import preset
    from model.controller.model import ControllerModel
    model = ControllerModel(preset("controller"))
    result = LocalExplorer(model, CONTROLLER_PROPERTIES.select(["acked_message_on_every_later_master"]),
                           Limits()).run()
    d = diagram(result.properties[0].trace)
    assert d.actors == ["producer", "broker1", "broker2", "controller", "consumer"]
    events = [e for r in d.rows for e in r.events]
    assert all(not (isinstance(e, Mark) and e.label == r.action) for r in d.rows for e in r.events)
    pairs = {(e.sender[:6], e.receiver[:6]) for e in events if isinstance(e, Message)}   # broker1 -> broker
    assert {("produc", "broker"), ("broker", "contro"), ("contro", "broker"), ("broker", "broker")} <= pairs, pairs
    assert any(isinstance(e, Mark) and e.kind == "down" for e in events)
    assert "SEND_OK" in {e.label for e in events if isinstance(e, Message)}
    ET.fromstring(svg(d))
    assert mermaid(d).count("->>") >= 4
