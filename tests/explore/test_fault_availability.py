"""``faults`` counts a change as closing a mode only while the broker still gives service.

A change that closes a mode by giving up an availability witness (``message_acked``: no SEND_OK is ever
given; ``message_consumed``) or by removing the slave is listed apart, with what it costs. The costs are
checked here against direct explorations of the changed configurations, on two configurations: under
SYNC_MASTER, ``slaves=0`` never acknowledges a send; under the 4.4 defaults it removes the replica the
offset modes need. The delivery guarantee ``acked_message_eventually_consumed`` is a witness too, kept
where it holds: a change under which an acknowledged message may never be delivered costs it.
"""
from __future__ import annotations

import functools

from explore import explore
from explore.run_control import Limits
from invariants import PROPERTIES, Fairness
from model import Config, RocketMQModel, preset
from explore.fault_search import FaultSearch, change_costs, faults_task

WITNESSES = PROPERTIES.select(["message_acked", "message_consumed"])

#: SYNC_MASTER loses an acknowledged message only if the master and the slave both lose power
SYNC_MASTER = preset("sync-master").with_overrides(["messages=1", "max_master_crashes=0",
                                                    "max_slave_power_losses=1"])
DEFAULT = preset("default").with_overrides(["messages=1"])


@functools.lru_cache(maxsize=None)
def search(cfg: Config, prop: str):
    # the ten single changes only (sets of changes are not needed here)
    return FaultSearch(cfg, PROPERTIES.select([prop]), jobs=1, max_configs=10, grow="none").run()


def reached(cfg: Config) -> dict[str, str]:
    return explore(RocketMQModel(cfg), WITNESSES).verdicts()


def test_sync_master_without_its_slave_closes_nothing_it_only_stops_acknowledging():
    report = search(SYNC_MASTER, "acked_message_never_lost")
    assert report.reached == ("message_acked", "message_consumed")
    rep = report.properties[0]
    assert rep.status == "violated" and rep.modes
    no_slave = Config.from_mapping({"slaves": 0}, base=SYNC_MASTER)
    # the change really buys "safety" by never acknowledging: exploration of the changed configuration
    assert reached(no_slave) == {"message_acked": "unreached", "message_consumed": "reached"}
    assert explore(RocketMQModel(no_slave), PROPERTIES.select(["acked_message_never_lost"])).verdicts() == \
        {"acked_message_never_lost": "holds"}
    for mode in rep.modes:
        assert {"slaves": 0} not in mode.closed_by
        costly = {tuple(c.change.items()): c.costs for c in mode.closed_at_a_cost}
        assert costly[(("slaves", 0),)] == ("no SEND_OK is ever given", "removes the slave")
    # what does close it keeps the service: every "holds with" set still acknowledges and delivers
    assert rep.holds_with
    for change in rep.holds_with:
        fixed = Config.from_mapping(change, base=SYNC_MASTER)
        assert reached(fixed) == {"message_acked": "reached", "message_consumed": "reached"}


def test_removing_the_slave_under_the_defaults_is_listed_apart():
    report = search(DEFAULT, "committed_offset_never_regresses")
    rep = report.properties[0]
    apart = [m for m in rep.modes if m.closed_at_a_cost]
    assert apart, "some offset mode closes only without the slave"
    no_slave = Config.from_mapping({"slaves": 0}, base=DEFAULT)
    assert reached(no_slave) == {"message_acked": "reached", "message_consumed": "reached"}
    for mode in rep.modes:
        assert {"slaves": 0} not in mode.closed_by
    for mode in apart:
        assert [(c.change, c.costs) for c in mode.closed_at_a_cost] == [({"slaves": 0}, ("removes the slave",))]


def test_costs_name_each_witness_lost_and_a_removed_slave():
    base = Config()
    both = ("message_acked", "message_consumed")
    assert change_costs(base, {"flush_disk_type": "SYNC_FLUSH"}, both, both) == []
    assert change_costs(base, {"broker_role": "SYNC_MASTER"}, both, ("message_consumed",)) == \
        ["no SEND_OK is ever given"]
    assert change_costs(base, {"slaves": 2}, both, both) == []
    assert change_costs(base.with_overrides(["slaves=2"]), {"slaves": 1}, both, both) == ["removes a slave"]
    # a witness the configuration itself never reaches is nothing to lose
    assert change_costs(base, {"slaves": 0}, ("message_consumed",), ("message_consumed",)) == ["removes the slave"]


def test_a_change_that_loses_the_delivery_guarantee_costs_it():
    """Under SYNC_FLUSH with one message no acknowledged message is lost and the consumer gets it: the
    delivery guarantee holds, and the closing explorations decide it. With ASYNC_FLUSH a master power loss
    erases the acknowledged message before the flush: that change would cost the guarantee."""
    base = preset("sync-flush").with_overrides(["messages=1"])
    change = {"flush_disk_type": "ASYNC_FLUSH"}
    lossy = Config.from_mapping(change, base=base)
    names = ("acked_message_never_lost",)
    kept, lost = (faults_task(cfg, names, Limits(), 1 << 30, False) for cfg in (base, lossy))
    away = "message_acked_while_slave_away"   # an ASYNC_MASTER acknowledges with its slave away
    assert kept.reached == ("message_acked", "message_consumed", "acked_message_eventually_consumed", away)
    assert lost.reached == ("message_acked", "message_consumed", away)
    # what the task decided is what a direct check of the property says
    live = PROPERTIES.select(["acked_message_eventually_consumed"])
    assert explore(RocketMQModel(base), live).verdicts() == {"acked_message_eventually_consumed": "holds"}
    assert explore(RocketMQModel(lossy), live).verdicts() == {"acked_message_eventually_consumed": "violated"}
    assert change_costs(base, change, kept.reached, lost.reached) == ["an acknowledged message may never be delivered"]
    # decided under the run's fairness: with none, the consumer may stop for ever, and nothing is kept
    stalled = faults_task(base, names, Limits(), 1 << 30, False, fairness=Fairness("none"))
    assert stalled.reached == ("message_acked", "message_consumed", away)
    # a task told to keep only the sometimes witnesses does not decide it (no eventually pass)
    assert faults_task(base, names, Limits(), 1 << 30, False, witnesses=("message_acked", "message_consumed")).reached \
        == ("message_acked", "message_consumed")


def test_sync_master_costs_the_sends_acknowledged_while_the_slave_is_away():
    """Availability weighed per failure: under the defaults (ASYNC_MASTER) a send is still answered SEND_OK
    while the slave is away (no HA connection: the master restarted and the slave has not reconnected, or
    its link is down); SYNC_MASTER answers SLAVE_NOT_AVAILABLE then. So SYNC_MASTER closes the power-loss
    mode of acked_message_never_lost only at that cost, while SYNC_FLUSH closes it for free. Both sides
    are checked against direct explorations of the witness (a faults-only property, not in ``check``)."""
    from invariants.rocketmq import AVAILABILITY_WITNESSES
    away = PROPERTIES.only([p for p in AVAILABILITY_WITNESSES if p.name == "message_acked_while_slave_away"])
    assert "message_acked_while_slave_away" not in PROPERTIES.names()
    report = search(DEFAULT, "acked_message_never_lost")
    assert "message_acked_while_slave_away" in report.reached
    sync_master = Config.from_mapping({"broker_role": "SYNC_MASTER"}, base=DEFAULT)
    sync_flush = Config.from_mapping({"flush_disk_type": "SYNC_FLUSH"}, base=DEFAULT)
    assert explore(RocketMQModel(DEFAULT), away).verdicts() == {"message_acked_while_slave_away": "reached"}
    assert explore(RocketMQModel(sync_master), away).verdicts() == {"message_acked_while_slave_away": "unreached"}
    assert explore(RocketMQModel(sync_flush), away).verdicts() == {"message_acked_while_slave_away": "reached"}
    rep = report.properties[0]
    assert rep.status == "violated"
    assert {"flush_disk_type": "SYNC_FLUSH"} in rep.holds_with
    assert {"broker_role": "SYNC_MASTER"} not in rep.holds_with
    costly = {tuple(c.change.items()): c.costs for c in rep.holds_at_a_cost}
    assert costly[(("broker_role", "SYNC_MASTER"),)] == ("no SEND_OK while the slave is away (sends are refused then)",)


def test_at_80_columns_nothing_a_user_types_is_cut():
    """The console at 80 columns (the modes stacked under their action kind): every property name, action
    kind and change (closing, at a cost, holds with) is whole on one line, and values read as typed."""
    from rich.console import Console

    from reports.faults import CODE_CHANGE, render_console
    from reports.faults import typed_text as change_text
    for report in (search(SYNC_MASTER, "acked_message_never_lost"),
                   search(DEFAULT, "committed_offset_never_regresses")):
        console = Console(width=80, record=True, color_system=None)
        render_console(console, report, "broker_role=SYNC_MASTER, messages=1", "violated")
        text = console.export_text()
        lines = text.splitlines()
        assert max(map(len, lines)) <= 80
        typed = {p.name for p in report.properties}
        for m in (m for p in report.properties for m in p.modes):
            typed |= {m.kind, *map(change_text, m.closed_by), *(change_text(c.change) for c in m.closed_at_a_cost)}
        typed |= {change_text(c) for p in report.properties for c in p.holds_with}
        assert len(typed) > 3
        for name in typed:
            assert any(name in line for line in lines), name
        assert "True" not in text and "False" not in text
        assert "why" in text and "last changed" in text
    assert CODE_CHANGE in " ".join(text.split())   # DEFAULT's regressions are closed by code changes only


def test_later_releases_are_closing_changes_labelled_as_upgrades():
    """Issue 46 item 4 / issue 45 item 7: faults explores each later release that behaves differently in the
    model as a closing change, and labels it an upgrade, apart from settings and code changes."""
    from explore.fault_profiles import UPGRADE
    from model.fault_profile import ROCKETMQ_44
    from model import Config
    from model.versions import release_line
    from reports.faults import change_text, closed_text

    line = release_line("4.4")
    base = Config.from_mapping({"messages": 1})
    upgrades = ROCKETMQ_44.upgrades(base)
    firsts = sorted({s.first for s in line.modelled()}, key=lambda v: tuple(map(int, v.split("."))))
    assert [u[UPGRADE] for u in upgrades] == firsts   # one per release where a modelled switch changes
    assert upgrades[-1] in ROCKETMQ_44.single_changes(base)
    assert ROCKETMQ_44.upgrades(Config.from_mapping({"messages": 1, "rocketmq_version": firsts[-1]})) == []
    assert ROCKETMQ_44.labelled(upgrades[0]) == {"upgrade": firsts[0]}
    assert ROCKETMQ_44.labelled({"monotonic_commit": True}) == {"monotonic_commit": True, "code_change": True}
    # a release's own rule is no code change (V4 is 4.9.4's rule)
    assert not set(ROCKETMQ_44.code_changes) & {s.knob for s in line.modelled()}
    assert change_text({"upgrade": "4.9.4"}) == "upgrade to RocketMQ 4.9.4"
    assert closed_text([{"monotonic_commit": True, "code_change": True}, {"upgrade": "4.9.4"},
                        {"broker_role": "SYNC_MASTER"}]).split("; ") == [
        "broker_role=SYNC_MASTER", "upgrade to RocketMQ 4.9.4",
        "monotonic_commit=true (code change: no RocketMQ release has it)"]
