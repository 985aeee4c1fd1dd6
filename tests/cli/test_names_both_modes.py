"""Issue 44 item 3: RocketMQ's camelCase names are knob aliases in both modes, and "did you mean" knows both
modes' names, saying when the name meant belongs to the other mode."""
from __future__ import annotations

import pytest

from cli_driver import assert_bad_input, invoke
from rmqcheck.suggest import suggestion, with_suggestion


def config_of(*args: str) -> str:
    r = invoke("config", *args)
    assert r.exit_code == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("args, line", [
    (("--set", "brokerRole=SYNC_MASTER"), 'broker_role = "SYNC_MASTER"'),
    (("--set", "flushDiskType=SYNC_FLUSH"), 'flush_disk_type = "SYNC_FLUSH"'),
    (("--set", "slaveReadEnable=true"), "slave_read_enable = true"),
    (("--mode", "controller", "--set", "allAckInSyncStateSet=true"), "all_ack_in_sync_state_set = true"),
    (("--preset", "controller", "--set", "inSyncReplicas=2"), "in_sync_replicas = 2"),
    (("--mode", "controller", "--set", "minInSyncReplicas=2"), "min_in_sync_replicas = 2"),
    (("--mode", "controller", "--set", "enableElectUncleanMaster=true"), "enable_elect_unclean_master = true"),
    (("--mode", "controller", "--set", "brokerElectionPriority=1-2"), 'broker_election_priority = "1-2"'),
])
def test_set_takes_rocketmq_names_in_both_modes(args, line):
    assert line in config_of(*args).splitlines()


def test_a_knob_of_the_other_mode_by_its_rocketmq_name(no_exploration):
    assert_bad_input(invoke("check", "--set", "allAckInSyncStateSet=true"),
                     "'allAckInSyncStateSet' (all_ack_in_sync_state_set)", "belongs to mode controller", "not to mode 4.4")
    assert_bad_input(invoke("check", "--mode", "controller", "--set", "brokerRole=SYNC_MASTER"),
                     "'brokerRole' (broker_role)", "belongs to mode 4.4", "not to mode controller")


def test_a_property_of_the_other_mode_is_said_to_be_one(no_exploration):
    r = invoke("check", "--mode", "controller", "--property", "replication_can_catch_up")
    assert_bad_input(r, "'replication_can_catch_up' is a property of mode 4.4, not of mode controller")
    assert "did you mean 'replication_can_catch_up'" not in r.stderr
    assert_bad_input(invoke("check", "--property", "one_master_per_epoch"),
                     "'one_master_per_epoch' is a property of mode controller, not of mode 4.4")


@pytest.mark.parametrize("args, hint", [
    (("--mode", "controller", "--property", "one_master_per_epok"), "did you mean 'one_master_per_epoch'?"),
    (("--mode", "controller", "--set", "mesages=1"), "did you mean 'messages'?"),
    (("--mode", "controller", "--set", "allAckInSyncStateSe=true"), "did you mean 'allAckInSyncStateSet'?"),
    (("--set", "brokerRol=SYNC_MASTER"), "did you mean 'brokerRole'?"),
    (("--mode", "controller", "--preset", "controler"), "did you mean 'controller'?"),
    # closer to a name of the other mode than to any of its own
    (("--property", "acked_message_on_every_later_mastr"),
     "did you mean 'acked_message_on_every_later_master' (a property of mode controller"),
    (("--preset", "controler-allack"), "did you mean 'controller-allack' (a preset of mode controller"),
])
def test_did_you_mean_in_both_modes(no_exploration, args, hint):
    assert_bad_input(invoke("check", *args), hint)


def test_the_mode_of_a_refusal_is_read_from_its_message():
    message = "unknown knob 'max_master_crashs' (value '1') in mode controller; known knobs: brokers"
    out = with_suggestion(message)
    assert "'max_master_crashes' (a knob of mode 4.4" in out, out
    assert out.endswith("known knobs: brokers")
    assert suggestion("property", "replicas_agree", "controller").startswith(
        "; 'replicas_agree' is a property of mode 4.4")
    assert suggestion("knob", "x" * 10, "4.4") == ""
    assert with_suggestion("unknown knob '" + "y" * 500 + "' (value '1')") .count("did you mean") == 0
