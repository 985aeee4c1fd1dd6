"""Issue 44 item 3: --broker-conf reads RocketMQ 5.3.3 controller-mode files and chooses the mode from them.

The samples under examples/controller and examples/dledger are the files of the RocketMQ 5.3.3 distribution
(distribution/conf/controller and distribution/conf/dledger, tag rocketmq-all-5.3.3), unchanged. Each
reproduction of the issue is a test here: the quick-start broker files were refused ("a SLAVE needs brokerId
> 0, not -1"), --mode controller --broker-conf said "read for mode 4.4 only", a 4.4 file with
enableControllerMode=true was checked as 4.4, and a DLedger file was checked as a lone 4.4 master.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_driver import assert_bad_input, invoke
from model.controller.config import ControllerConfig
from rmqcheck.broker_conf import read_broker_group

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QUICK = EXAMPLES / "controller" / "quick-start"
N0, N1 = str(QUICK / "broker-n0.conf"), str(QUICK / "broker-n1.conf")
SAMPLE_44 = EXAMPLES / "2m-2s-sync"
#: one message, no failure: a small controller-mode space
TINY = ("--set", "messages=1", "--set", "max_broker_crashes=0")


def config_of(*args: str) -> str:
    r = invoke("config", *args)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def test_the_quick_start_samples_give_the_controller_configuration_they_describe(tmp_path):
    out = config_of("--broker-conf", N0, "--broker-conf", N1)
    lines = out.splitlines()
    assert 'mode = "controller"' in lines
    assert "all_ack_in_sync_state_set = true   # allAckInSyncStateSet in broker-n0.conf" in lines
    assert "brokers = 2   # 2 broker files" in lines
    assert "in_sync_replicas = 1   # no inSyncReplicas in the files: RocketMQ's default" in lines
    notice = next(line for line in lines if line.startswith("# not modelled:"))
    assert "brokerId (the controller assigns it)" in notice and "controllerAddr (the model has one controller)" in notice
    saved = tmp_path / "cluster.toml"
    saved.write_text(out)
    # the printed TOML is a --config file for the very configuration the files describe
    assert config_of("--config", str(saved)) == config_of("--preset", "controller-allack")


def test_check_explores_the_files_configuration_as_the_preset_it_equals(tmp_path):
    """RocketMQ's own 5.x sample, checked as a user would (issue 44: it was refused): the same exploration
    as the preset with the same knobs (allAckInSyncStateSet=true, two brokers)."""
    runs = {}
    for name, args in (("files", ("--broker-conf", N0, "--broker-conf", N1)), ("preset", ("--preset", "controller-allack"))):
        out = tmp_path / f"{name}.json"
        r = invoke("check", *args, *TINY, "--quiet", "--traces", "none", "--json", str(out))
        assert r.exit_code in (0, 1), r.stderr
        runs[name] = json.loads(out.read_text())
    assert runs["files"]["config"] == runs["preset"]["config"]
    assert runs["files"]["config"]["mode"] == "controller"
    assert runs["files"]["stats"]["distinct_states"] == runs["preset"]["stats"]["distinct_states"] > 0
    assert ({p["name"]: p["status"] for p in runs["files"]["properties"]}
            == {p["name"]: p["status"] for p in runs["preset"]["properties"]})


def test_mode_controller_reads_the_broker_files():
    out = config_of("--mode", "controller", "--broker-conf", N0, "--broker-conf", N1, "--set", "messages=1")
    assert "all_ack_in_sync_state_set = true   # allAckInSyncStateSet in broker-n0.conf" in out


def test_enable_controller_mode_in_a_4_4_file_chooses_the_controller_mode(tmp_path):
    files = []
    for name in ("broker-a", "broker-a-s"):
        path = tmp_path / f"{name}.properties"
        path.write_text((SAMPLE_44 / f"{name}.properties").read_text() + "enableControllerMode=true\n")
        files += ["--broker-conf", str(path)]
    out = config_of(*files)
    assert 'mode = "controller"' in out.splitlines() and "brokers = 2   # 2 broker files" in out


def test_a_dledger_commitlog_file_is_refused(no_exploration):
    dledger = [a for n in range(3) for a in ("--broker-conf", str(EXAMPLES / "dledger" / f"broker-n{n}.conf"))]
    r = invoke("check", *dledger, *TINY)
    assert_bad_input(r, "broker-n0.conf'", "enableDLegerCommitLog", "DLedger commitlog mode is not modelled")
    assert_bad_input(invoke("check", "--broker-conf", dledger[1]), "DLedger commitlog mode is not modelled")


@pytest.mark.parametrize("args, culprit, key", [
    (("--mode", "4.4", "--broker-conf", N0, "--broker-conf", N1), "broker-n0.conf'", "enableControllerMode"),
    (("--preset", "sync-master", "--broker-conf", N0, "--broker-conf", N1), "broker-n0.conf'", "enableControllerMode"),
    (("--mode", "controller", "--broker-conf", str(SAMPLE_44 / "broker-a.properties"),
      "--broker-conf", str(SAMPLE_44 / "broker-a-s.properties")), "broker-a.properties'", "enableControllerMode"),
    (("--preset", "controller", "--broker-conf", str(SAMPLE_44 / "broker-a.properties")), "broker-a.properties'",
     "enableControllerMode"),
])
def test_a_mode_the_files_contradict_is_bad_input_naming_file_and_key(no_exploration, args, culprit, key):
    assert_bad_input(invoke("check", *args, "--set", "messages=1"), culprit, key)


def test_a_config_files_mode_line_the_files_contradict(tmp_path, no_exploration):
    run = tmp_path / "run.toml"
    run.write_text('mode = "4.4"\nmessages = 1\n')
    assert_bad_input(invoke("check", "--config", str(run), "--broker-conf", N0, "--broker-conf", N1),
                     "broker-n0.conf'", "enableControllerMode", "mode = '4.4'")


BROKER = ("brokerClusterName = DefaultCluster\nbrokerName = broker-a\nbrokerId = -1\nbrokerRole = SLAVE\n"
          "enableControllerMode = true\ncontrollerAddr = 127.0.0.1:9878\n")

#: (case, [(file name, text)], the key the one line must name, the file it names)
BAD = [
    ("allAck differs", [("n0", BROKER + "allAckInSyncStateSet=true\n"), ("n1", BROKER)], "allAckInSyncStateSet", "n1"),
    ("inSyncReplicas differs", [("n0", BROKER + "inSyncReplicas=2\n"), ("n1", BROKER)], "inSyncReplicas", "n1"),
    ("inSyncReplicas above the brokers", [("n0", BROKER + "inSyncReplicas=3\n"), ("n1", BROKER + "inSyncReplicas=3\n")],
     "inSyncReplicas", "n0"),
    ("minInSyncReplicas 0", [("n0", BROKER + "minInSyncReplicas=0\n"), ("n1", BROKER + "minInSyncReplicas=0\n")],
     "minInSyncReplicas", "n0"),
    ("a boolean with a trailing blank", [("n0", BROKER + "allAckInSyncStateSet=true \n"), ("n1", BROKER)],
     "allAckInSyncStateSet", "n0"),
    ("a boolean written yes", [("n0", BROKER + "allAckInSyncStateSet=yes\n"), ("n1", BROKER)],
     "allAckInSyncStateSet", "n0"),
    ("flushDiskType differs", [("n0", BROKER + "flushDiskType=SYNC_FLUSH\n"), ("n1", BROKER)], "flushDiskType", "n1"),
    ("flushDiskType misspelt", [("n0", BROKER + "flushDiskType=SYNC\n"), ("n1", BROKER + "flushDiskType=SYNC\n")],
     "flushDiskType", "n0"),
    ("slaveReadEnable", [("n0", BROKER + "slaveReadEnable=true\n"), ("n1", BROKER + "slaveReadEnable=true\n")],
     "slaveReadEnable", "n0"),
    ("the controller's setting in a broker file", [("n0", BROKER + "enableElectUncleanMaster=true\n"), ("n1", BROKER)],
     "enableElectUncleanMaster", "n0"),
    ("one broker", [("n0", BROKER)], "enableControllerMode", "n0"),
    ("five brokers", [(f"n{i}", BROKER) for i in range(5)], "enableControllerMode", "n4"),
    ("one broker not in controller mode", [("n0", BROKER), ("n1", BROKER.replace("true", "false"))],
     "enableControllerMode", "n1"),
    ("brokerName differs", [("n0", BROKER), ("n1", BROKER.replace("broker-a", "broker-b"))], "brokerName", "n1"),
    ("a role misspelt", [("n0", BROKER.replace("SLAVE", "SLAV")), ("n1", BROKER)], "brokerRole", "n0"),
    ("a key misspelt", [("n0", BROKER + "allAckInSyncStateSett=true\n"), ("n1", BROKER)], "allAckInSyncStateSett",
     "n0"),
    ("a name server that runs no controller", [("n0", BROKER), ("n1", BROKER),
                                              ("ns", "listenPort=9876\nenableControllerInNamesrv=false\nenableElectUncleanMaster=true\n"
                                                     "controllerDLegerGroup=group1\n")],
     "enableControllerInNamesrv", "ns"),
    ("a negative brokerElectionPriority", [("n0", BROKER + "brokerElectionPriority=-1\n"), ("n1", BROKER)],
     "brokerElectionPriority", "n0"),
    ("a brokerElectionPriority beyond an int", [("n0", BROKER), ("n1", BROKER + "brokerElectionPriority=2147483648\n")],
     "brokerElectionPriority", "n1"),
    ("a brokerElectionPriority that is no number", [("n0", BROKER + "brokerElectionPriority=high\n"), ("n1", BROKER)],
     "brokerElectionPriority", "n0"),
    ("a brokerElectionPriority with a trailing blank", [("n0", BROKER), ("n1", BROKER + "brokerElectionPriority=1 \n")],
     "brokerElectionPriority", "n1"),
    ("controllers disagree", [("n0", BROKER), ("n1", BROKER),
                              ("c0", "controllerDLegerGroup=g\nenableElectUncleanMaster=true\n"),
                              ("c1", "controllerDLegerGroup=g\n")], "enableElectUncleanMaster", "c1"),
]


@pytest.mark.parametrize("case, files, key, culprit", BAD, ids=[b[0] for b in BAD])
def test_malformed_or_contradictory_controller_files_exit_2_naming_file_and_key(tmp_path, no_exploration, case,
                                                                                files, key, culprit):
    args = []
    for name, text in files:
        (tmp_path / f"{name}.conf").write_text(text)
        args += ["--broker-conf", str(tmp_path / f"{name}.conf")]
    assert_bad_input(invoke("check", *args, "--set", "messages=1"), f"{culprit}.conf'", key)


def test_the_controllers_own_file_gives_enable_elect_unclean_master(tmp_path):
    controller = tmp_path / "controller.conf"
    controller.write_text((EXAMPLES / "controller" / "controller-standalone.conf").read_text()
                          + "enableElectUncleanMaster=true\n")
    out = config_of("--broker-conf", N0, "--broker-conf", N1, "--broker-conf", str(controller))
    assert "enable_elect_unclean_master = true   # enableElectUncleanMaster in controller.conf" in out
    from rmqcheck.broker_conf import read_broker_group
    settings = read_broker_group([N0, N1, str(controller)])
    assert settings.not_modelled["controllerDLegerPeers"] == "the model has one controller"
    assert (settings.mode, settings.mode_source) == ("controller", (N0, "enableControllerMode"))
    namesrv = EXAMPLES / "controller" / "cluster-3n-namesrv-plugin" / "namesrv-n0.conf"
    assert 'mode = "controller"' in config_of("--broker-conf", N0, "--broker-conf", N1, "--broker-conf", str(namesrv))


def test_5_x_trims_a_role_and_three_brokers_are_read(tmp_path):
    """MixAll#properties2Object (5.3.3) trims a value its setter takes as a string (brokerRole), not a number."""
    args = []
    for n in range(3):
        path = tmp_path / f"n{n}.conf"
        path.write_text(BROKER.replace("brokerRole = SLAVE", "brokerRole = SLAVE ") + "inSyncReplicas=3\n")
        args += ["--broker-conf", str(path)]
    out = config_of(*args)
    assert "brokers = 3   # 3 broker files" in out and "in_sync_replicas = 3   # inSyncReplicas in n0.conf" in out


def test_a_group_config_is_refused_in_the_controller_mode(tmp_path, no_exploration):
    group = tmp_path / "group.txt"
    group.write_text("brokerId=0\n")
    assert_bad_input(invoke("check", "--broker-conf", N0, "--broker-conf", N1, "--group-config", str(group)),
                     "--group-config", "mode 4.4 only")


def test_a_controller_run_file_with_broker_files_runs(tmp_path):
    out = tmp_path / "r.json"
    r = invoke("check", "--config", str(EXAMPLES / "controller-run.toml"), "--set", "max_broker_crashes=0",
               "--quiet", "--json", str(out))
    assert r.exit_code in (0, 1), r.stderr
    doc = json.loads(out.read_text())
    assert doc["config"] == {**ControllerConfig(all_ack_in_sync_state_set=True, messages=1,
                                                max_broker_crashes=0).as_dict(), "rocketmq_version": "5.3.3"}
    assert [p["name"] for p in doc["properties"]] == ["acked_message_on_every_later_master", "one_master_per_epoch"]


def test_flush_disk_type_is_read_from_every_broker_file(tmp_path):
    """Issue 48 item 5: flushDiskType (the same in every broker's file: any may become master) sets the
    controller mode's flush_disk_type."""
    files = []
    for name in ("n0", "n1"):
        path = tmp_path / f"broker-{name}.conf"
        path.write_text(BROKER + "flushDiskType=SYNC_FLUSH\n")
        files += ["--broker-conf", str(path)]
    lines = config_of(*files).splitlines()
    assert 'flush_disk_type = "SYNC_FLUSH"   # flushDiskType in broker-n0.conf' in lines
    assert ControllerConfig().flush_disk_type == "ASYNC_FLUSH"


def _brokers(tmp_path, *extra: str) -> list[str]:
    """One controller-mode broker file per ``extra`` (its added lines), named n0.conf, n1.conf...: the
    ``--broker-conf`` arguments in that order."""
    args = []
    for n, lines in enumerate(extra):
        path = tmp_path / f"n{n}.conf"
        path.write_text(BROKER + lines)
        args += ["--broker-conf", str(path)]
    return args


def test_broker_election_priority_is_read_per_broker_in_the_files_order(tmp_path):
    """Issue 48 item 6: each broker's own brokerElectionPriority (it differs between files, unlike the
    master's settings) is broker_election_priority, one value per broker in the order the files are given
    (controller ids 1..n); a file without it has RocketMQ's default, Integer.MAX_VALUE."""
    lines = config_of(*_brokers(tmp_path, "", "brokerElectionPriority=1\n", "brokerElectionPriority=+5\n"))
    assert ('broker_election_priority = "2147483647-1-5"   # brokerElectionPriority per broker: RocketMQ\'s default '
            "(2147483647): none in n0.conf; 1 in n1.conf; 5 in n2.conf") in lines.splitlines()
    settings = read_broker_group(_brokers(tmp_path, "brokerElectionPriority=3\n", "")[1::2])
    assert settings.values["broker_election_priority"] == "3-2147483647"
    assert "brokerElectionPriority" not in settings.not_modelled
    cfg = ControllerConfig.from_mapping({k: v for k, v in settings.values.items()})
    assert cfg.election_priorities() == (3, 2147483647)


def test_broker_election_priority_alike_in_every_file_is_one_value(tmp_path):
    lines = config_of(*_brokers(tmp_path, "brokerElectionPriority=2\n", "brokerElectionPriority=2\n")).splitlines()
    assert 'broker_election_priority = "2"   # brokerElectionPriority in n0.conf' in lines
    lines = config_of(*_brokers(tmp_path, "", "")).splitlines()
    assert ('broker_election_priority = "2147483647"   # no brokerElectionPriority in the files: RocketMQ\'s default'
            in lines)
    # RocketMQ's own samples set none: the default, as before the knob
    assert 'broker_election_priority = "2147483647"' in config_of("--broker-conf", N0, "--broker-conf", N1)
