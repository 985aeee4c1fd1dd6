"""The version switches of the 5.x line (model/versions_5.py) in the controller kernel: each switch's pinned
configuration (tests/tooling/pinned.toml, the switch at its value before its first release) explores to
its pinned numbers, and the same configuration with the switch at 5.3.3's value explores differently; where
the older rule loses a message 5.3.3 keeps, the test says so with the shortest trace. Then the releases:
``rocketmq_version`` sets every switch, and the controller mode accepts every release of its line.
"""
from __future__ import annotations

import functools

import pytest

from model import ConfigError
from model.controller import preset
from model.modes import get_mode
from model.versions import release_line, with_release
from tests.tooling.pinned import load

LINE = release_line("controller")
TABLE = load(mode="controller")
LOSS = "acked_message_on_every_later_master"


@functools.lru_cache(maxsize=None)
def _explore(preset_name: str, knobs: tuple):
    from explore.local import explore
    from invariants.controller import PROPERTIES
    from model.controller.model import ControllerModel

    cfg = preset(preset_name).with_overrides([f"{k}={str(v).lower()}" for k, v in knobs])
    r = explore(ControllerModel(cfg), PROPERTIES)
    assert r.error is None and not r.incomplete_reason
    return ((r.stats.distinct_states, r.stats.transitions, r.stats.depth),
            {p.name: (p.status, len(p.trace) if p.trace is not None else None) for p in r.properties})


def both_ways(name: str):
    """The switch's pinned configuration explored at the switch's pre-fix value (checked against the pinned
    numbers) and at 5.3.3's value: ``(before, after)``, each ``(counts, {property: (verdict, trace length)})``."""
    switch = next(s for s in LINE.modelled() if s.name == name)
    entry = TABLE[switch.pinned]
    assert entry.knobs[switch.knob] == switch.values[0] is False
    before = _explore(entry.preset, tuple(sorted(entry.knobs.items())))
    assert before[0] == entry.counts
    assert {p: v for p, (v, _) in before[1].items()} == entry.verdicts
    after = _explore(entry.preset, tuple(sorted({**entry.knobs, switch.knob: True}.items())))
    assert after[0] != before[0]
    return before, after


def test_every_modelled_switch_has_a_test_here_and_a_pinned_configuration():
    names = {s.name for s in LINE.modelled()}
    assert names == {n[len("test_"):] for n in globals() if n.startswith("test_") and n[len("test_"):] in names}
    for s in LINE.modelled():
        assert s.test.endswith(f"::test_{s.name}") and s.pinned in TABLE and s.knob == s.name


def test_sss_union_while_synchronizing():
    """5.1.0 (#5663): the master proposes {1,2}, the controller applies it but the reply is lost, and the
    ack wait reads the master's local set {2}: SEND_OK with no slave ack, and the controller then elects
    broker 1, a member of the set it holds, without the message. 5.3.3 waits on local + proposed."""
    before, after = both_ways("sss_union_while_synchronizing")
    assert before[0] == (21614, 70604, 28) and after[0] == (26756, 91040, 29)
    assert before[1][LOSS] == ("violated", 11) and after[1][LOSS] == ("holds", None)


def test_confirm_offset_ignores_unacked_connection():
    """5.1.0 (#6728): a fresh connection's ack (-1, or 0 for an empty log) holds confirmOffset at 0, so the
    dispatch waits and more states are reachable; no verdict moves at these bounds."""
    before, after = both_ways("confirm_offset_ignores_unacked_connection")
    assert before[0] == (32082, 110018, 31) and after[0] == (26756, 91040, 29)
    assert {p: v for p, (v, _) in before[1].items()} == {p: v for p, (v, _) in after[1].items()}


def test_confirm_offset_frozen_when_member_disconnected():
    """5.1.0 (#6662): a member without a connection is skipped, so confirmOffset moves past it (fewer
    states); no verdict moves at these bounds."""
    before, after = both_ways("confirm_offset_frozen_when_member_disconnected")
    assert before[0] == (25752, 87276, 29) and after[0] == (26756, 91040, 29)


def test_confirm_offset_persisted_and_bounds_recovery():
    """5.1.0 (#6609): a restarted broker's consume queue ends where its commitlog does and its confirmOffset
    starts again from nothing (fewer states: the dispatch after a restart is settled at once)."""
    before, after = both_ways("confirm_offset_persisted_and_bounds_recovery")
    assert before[0] == (9512, 29178, 28) and after[0] == (12274, 38632, 31)


def test_change_to_master_uses_controller_sss():
    """5.1.0 (#6342): a master that crashes and restarts before the controller misses it gets its role back
    with the controller's set {1,2}, but takes {self} locally: its next put is SEND_OK with no slave ack, and
    a second crash elects broker 1 without it (14 steps). 5.3.3 takes the controller's set and keeps it."""
    before, after = both_ways("change_to_master_uses_controller_sss")
    assert before[0] == (202397, 689675, 40) and after[0] == (209855, 722353, 40)
    assert before[1][LOSS] == ("violated", 14) and after[1][LOSS] == ("holds", None)


def test_same_master_role_change_shortcut():
    """5.1.0 (#6344): a master cut off from the controller, declared dead and elected again after no
    candidate, runs the full changeToMaster (its slave's connection destroyed) instead of only recording the
    epoch; counts move, no verdict at these bounds."""
    before, after = both_ways("same_master_role_change_shortcut")
    assert before[0] == (17618, 60184, 29) and after[0] == (17464, 59234, 28)


def test_namesrv_epoch_fences_master():
    """5.1.0 (#6316): brokers register with stateVersion 0, so a deposed master's registration after the new
    master's takes brokerId 0 back on the name server (the last registrant wins); 5.1.1 rejects it (the new
    master's epoch is greater). More states up to 5.1.0, no verdict moves at these bounds: the deposed
    master's SEND_OK needs only its registration before the new master's, which both rules allow."""
    before, after = both_ways("namesrv_epoch_fences_master")
    assert before[0] == (74892, 288942, 39) and after[0] == (71494, 275742, 36)
    assert before[1][LOSS] == after[1][LOSS] == ("violated", 14)


def test_namesrv_epoch_fences_master_on_a_hand_built_state():
    """The rule itself: holder broker 1 live at epoch 3, newcomer broker 2 (live, as a slave before) a master
    at epoch 2. 5.3.3 (holder registered with stateVersion 3, newcomer with 2) keeps broker 1 and drops broker
    2's live entry; 5.1.0 (both registrations carry stateVersion 0) lists broker 2."""
    from model.controller import ControllerConfig
    from model.controller.model import ControllerModel, NsRegister
    from test_controller_actions import build, running
    brokers = {**running(1, master=1, masterEpoch=3, ctlAlive=1), **running(2, master=1, masterEpoch=2, ctlAlive=1)}
    for fences, held, listed in ((True, 3, (1, 3, [1])), (False, 0, (2, 0, [1, 2]))):
        m = ControllerModel(ControllerConfig(name_servers=1, messages=1, namesrv_epoch_fences_master=fences))
        s = build(m, controller_up=1, nameserver_master_0=1, nameserver_stateVersion_0=held, nameserver_live_0=0b11,
                  **brokers)
        after = m.view(m.next_state(s, NsRegister(broker=2, nameserver=1)))
        assert (after["nameserver1.master"], after["nameserver1.stateVersion"], after["nameserver1.live"]) == listed


def test_controller_scans_inactive_master():
    """5.1.0 (#6382): the controller elects only in the step that finds its master inactive, so it elects
    one step sooner (the shortest election and loss are one step shorter) and never later."""
    before, after = both_ways("controller_scans_inactive_master")
    assert before[0] == (26326, 90066, 28) and after[0] == (26756, 91040, 29)
    assert before[1]["new_master_elected"] == ("reached", 7) and after[1]["new_master_elected"] == ("reached", 8)


def test_confirm_offset_max_when_not_allack():
    """5.1.4 and older (#7657): with allAck off a master's confirmOffset is still the smallest ack of a larger
    set, so what is dispatched waits for the slave; SEND_OK does not (the loss stays, 11 steps)."""
    before, after = both_ways("confirm_offset_max_when_not_allack")
    assert before[0] == (12306, 37030, 28) and after[0] == (12274, 38632, 31)
    assert before[1][LOSS] == after[1][LOSS] == ("violated", 11)


def test_confirm_offset_init_only_when_negative():
    """5.1.4 and older (#7441): a master's stored confirmOffset of 0 is computed again at every read: once a
    set member reported, the next read moves it (fewer states)."""
    before, after = both_ways("confirm_offset_init_only_when_negative")
    assert before[0] == (22374, 76276, 29) and after[0] == (26756, 91040, 29)


# --- the releases -----------------------------------------------------------------------------------------
def test_every_release_of_the_line_is_accepted_and_sets_its_switches():
    mode = get_mode("controller")
    assert LINE.accepted() == LINE.versions()
    for version in LINE.versions():
        cfg = mode.from_mapping({"rocketmq_version": version}, base=mode.preset("controller"))
        assert cfg.rocketmq_version == version
        assert {s.knob: getattr(cfg, s.knob) for s in LINE.modelled()} == LINE.knob_values(version)
    assert mode.from_mapping({"rocketmq_version": "5.3.3"}, base=mode.preset("controller")) == mode.preset("controller")
    old = with_release(mode.preset("controller-allack"), "rocketmq-all-5.1.0")
    assert not any(getattr(old, s.knob) for s in LINE.modelled())
    assert old.short() == "controller mode, RocketMQ 5.1.0, all_ack_in_sync_state_set=true"
    # the release's own switch values are no difference: only the preset's knob is named
    assert with_release(old, "5.1.1").short() == "controller mode, RocketMQ 5.1.1, all_ack_in_sync_state_set=true"


def test_the_releases_group_by_their_switches():
    assert LINE.same_as("5.1.0") == "5.0.0"
    assert {LINE.same_as(v) for v in ("5.1.2", "5.1.3", "5.1.4")} == {"5.1.1"}
    assert {LINE.same_as(v) for v in ("5.3.0", "5.3.1", "5.3.2", "5.3.3")} == {"5.2.0"}


def test_an_explicit_switch_wins_over_the_release():
    cfg = preset("controller").from_mapping({"rocketmq_version": "5.1.0", "sss_union_while_synchronizing": True})
    assert cfg.sss_union_while_synchronizing and not cfg.change_to_master_uses_controller_sss
    assert cfg.short() == "controller mode, RocketMQ 5.1.0, sss_union_while_synchronizing=true"


@pytest.mark.parametrize("version, words", [
    ("4.9.4", "a release of mode 4.4"), ("5.4.0", "not a release rmqcheck knows"), ("5.x", "not a version")])
def test_an_unknown_or_other_line_version_lists_the_known_ones(version, words):
    with pytest.raises(ConfigError) as e:
        preset("controller").from_mapping({"rocketmq_version": version})
    assert words in str(e.value) and "5.0.0, 5.1.0, 5.1.1" in str(e.value) and "5.3.3" in str(e.value)
    assert "not modelled yet" not in str(e.value)


# --- every output names the release checked ---------------------------------------------------------------
def test_check_names_the_controller_release_in_every_output(tmp_path):
    import json

    from cli_driver import invoke

    json_path, report, itf = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "itf"
    r = invoke("check", "--preset", "controller-allack", "--set", "messages=1", "--rocketmq-version", "5.1.0",
               "--property", LOSS, "--json", str(json_path), "--report", str(report), "--itf", str(itf))
    assert r.exit_code == 1, r.output     # 5.1.0 loses the message 5.1.1 keeps (sss_union_while_synchronizing)
    assert "config  controller mode, RocketMQ 5.1.0, all_ack_in_sync_state_set=true, messages=1" in r.stdout
    assert "violated in 10 steps" in r.stdout   # all of 5.1.0's rules: the election is one step (11 with one switch)
    config = json.loads(json_path.read_text())["config"]
    assert config["rocketmq_version"] == "5.1.0" and config["sss_union_while_synchronizing"] is False
    text = report.read_text()
    assert "RocketMQ 5.1.0" in text and "--rocketmq-version 5.1.0" in text
    meta = json.loads((itf / f"{LOSS}.itf.json").read_text())["#meta"]
    assert meta["rocketmq_version"] == meta["config"]["rocketmq_version"] == "5.1.0"


BASELINE = """\
[[configuration]]
name = "before"
preset = "controller-allack"
rocketmq_version = "5.1.0"
properties = ["acked_message_on_every_later_master"]
[configuration.set]
messages = 1

[[configuration]]
name = "after"
preset = "controller-allack"
rocketmq_version = "5.1.1"
properties = ["acked_message_on_every_later_master"]
[configuration.set]
messages = 1
"""


def test_a_controller_baseline_entry_with_a_release_gates_it(tmp_path):
    import tomllib
    import xml.etree.ElementTree as ET

    from cli_driver import invoke

    path, junit = tmp_path / "baseline.toml", tmp_path / "junit.xml"
    path.write_text(BASELINE)
    assert invoke("gate", "--baseline", str(path), "--update").exit_code == 0
    expect = {c["name"]: c["expect"][LOSS] for c in tomllib.loads(path.read_text())["configuration"]}
    assert expect == {"before": "violated", "after": "holds"}
    r = invoke("gate", "--baseline", str(path), "--junit", str(junit))
    assert r.exit_code == 0, r.output
    assert "(controller mode, RocketMQ 5.1.0, " in r.stdout and "(controller mode, RocketMQ 5.1.1, " in r.stdout
    versions = {suite.get("name"): prop.get("value") for suite in ET.parse(junit).getroot()
                for prop in suite.iter("property") if prop.get("name") == "rocketmq_version"}
    assert versions == {"before": "5.1.0", "after": "5.1.1"}


def test_the_documented_counts_before_each_switch_are_the_pinned_ones():
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "versions.md").read_text()
    for s in LINE.modelled():
        row = next(ln for ln in page.splitlines() if ln.startswith(f"| `{s.name}` | "))
        states, transitions, _ = TABLE[s.pinned].counts
        assert row.split(" | ")[1].startswith(f"{states:,} ({transitions:,}) -> "), s.name


def test_config_names_the_controller_release_and_reads_back(tmp_path):
    import tomllib

    from cli_driver import invoke

    r = invoke("config", "--mode", "controller", "--rocketmq-version", "5.1.1", "--set", "messages=1")
    assert r.exit_code == 0, r.output
    cfg = tomllib.loads(r.stdout)
    assert cfg["rocketmq_version"] == "5.1.1"
    assert {s.knob: cfg[s.knob] for s in LINE.modelled()} == LINE.knob_values("5.1.1")
    path = tmp_path / "run.toml"
    path.write_text(r.stdout)
    assert invoke("config", "--config", str(path)).stdout == r.stdout


def test_matrix_versions_all_gives_a_column_per_controller_release(tmp_path):
    import json

    from cli_driver import invoke

    out = tmp_path / "m.json"
    r = invoke("matrix", "--preset", "controller-allack", "--versions", "all", "--set", "messages=1",
               "--property", LOSS, "--quiet", "--json", str(out))
    assert r.exit_code == 1, r.output
    columns = json.loads(out.read_text())["configurations"]
    assert [c["config"]["rocketmq_version"] for c in columns] == list(LINE.versions())
    verdicts = {c["name"]: c["properties"][0]["status"] for c in columns}
    assert {v for v, s in verdicts.items() if s == "violated"} == {"5.0.0", "5.1.0"}
