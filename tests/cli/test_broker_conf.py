"""--broker-conf / --group-config: RocketMQ's own sample configurations give the configuration they describe;
malformed or contradictory files are refused with one line naming the file and the key, nothing explored.

The samples under examples/2m-2s-sync and examples/2m-2s-async are the files of the RocketMQ 4.4.0
distribution (distribution/conf/, tag rocketmq-all-4.4.0), unchanged.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_driver import TINY, assert_bad_input, invoke
from model import Config, load_toml
from rmqcheck.java_properties import parse_properties

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def sample(layout: str, name: str) -> str:
    return str(EXAMPLES / layout / f"{name}.properties")


@pytest.mark.parametrize("layout, role", [("2m-2s-sync", "SYNC_MASTER"), ("2m-2s-async", "ASYNC_MASTER")])
@pytest.mark.parametrize("group", ["broker-a", "broker-b"])
def test_distribution_samples_give_the_group_they_describe(tmp_path, layout, role, group):
    result = invoke("config", "--broker-conf", sample(layout, group), "--broker-conf", sample(layout, f"{group}-s"))
    assert result.exit_code == 0, result.stderr
    assert f'broker_role = "{role}"   # brokerRole in {group}.properties' in result.stdout
    assert "# not modelled: flushDiskType on a slave" in result.stdout
    assert "deleteWhen, fileReservedTime" in result.stdout
    saved = tmp_path / "cluster.toml"
    saved.write_text(result.stdout)
    # the printed TOML is a --config file for the very configuration the files describe
    assert load_toml(saved) == Config(broker_role=role, flush_disk_type="ASYNC_FLUSH", slaves=1)


def test_check_explores_the_configuration_the_files_give(tmp_path):
    out = tmp_path / "r.json"
    result = invoke("check", "--broker-conf", sample("2m-2s-sync", "broker-a"),
                    "--broker-conf", sample("2m-2s-sync", "broker-a-s"), *TINY, "--quiet", "--json", str(out))
    assert result.exit_code in (0, 1), result.stderr
    assert "not modelled (read, no effect on the check): flushDiskType on a slave" in result.stderr
    config = json.loads(out.read_text())["config"]
    assert (config["broker_role"], config["slaves"], config["messages"]) == ("SYNC_MASTER", 1, 1)


def test_group_config_as_mqadmin_prints_it(tmp_path):
    group = tmp_path / "group.txt"
    group.write_text("create subscription group to 127.0.0.1:10911 success.\n"
                     "SubscriptionGroupConfig [groupName=orders, consumeEnable=true, consumeFromMinEnable=true, "
                     "consumeBroadcastEnable=true, retryQueueNums=1, retryMaxTimes=16, brokerId=3, "
                     "whichBrokerWhenConsumeSlowly=0, notifyConsumerIdsChangedEnable=true]")
    master = tmp_path / "m.properties"
    master.write_text("brokerName=broker-a\nbrokerRole=ASYNC_MASTER\nslaveReadEnable=true\n")
    slave = tmp_path / "s.properties"
    slave.write_text("brokerName=broker-a\nbrokerId=3\nbrokerRole=SLAVE\nslaveReadEnable=true\n")
    result = invoke("config", "--broker-conf", str(master), "--broker-conf", str(slave), "--group-config", str(group))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    # brokerId 3 is the group's one slave: the model's slave 1
    assert "group_broker_id = 1   # brokerId in group.txt" in out
    assert "which_broker_when_consume_slowly = 0   # whichBrokerWhenConsumeSlowly in group.txt" in out
    assert "slave_read_enable = true" in out
    assert "retryMaxTimes" in out.splitlines()[2]


def _pair(tmp_path, master_extra: str = "slaveReadEnable=true\n", slave_extra: str = "") -> list[str]:
    """The --broker-conf options of a master's file and a slave's, each with its extra lines."""
    (tmp_path / "m.properties").write_text(MASTER + master_extra)
    (tmp_path / "s.properties").write_text(SLAVE + slave_extra)
    return ["--broker-conf", str(tmp_path / "m.properties"), "--broker-conf", str(tmp_path / "s.properties")]


def test_a_master_with_slave_read_enable_beside_a_slave_without_it_is_read_per_broker(tmp_path):
    """RocketMQ's default slaveReadEnable is false, so a master file with slaveReadEnable=true beside a slave
    file without it is the common pair: PullMessageProcessor#processRequest reads each broker's own value,
    so the master's is slave_read_enable and the slave's slave_read_enable_in_slaves."""
    result = invoke("config", *_pair(tmp_path))
    assert result.exit_code == 0, result.stderr
    assert "slave_read_enable = true   # slaveReadEnable in m.properties" in result.stdout
    assert ('slave_read_enable_in_slaves = "FALSE"   # no slaveReadEnable in s.properties: RocketMQ\'s default '
            "(false)") in result.stdout
    saved = tmp_path / "pair.toml"
    saved.write_text(result.stdout)
    assert load_toml(saved) == Config(broker_role="SYNC_MASTER", slave_read_enable=True,
                                      slave_read_enable_in_slaves="FALSE", slaves=1)
    # the reverse pair, written out in the slave's file
    result = invoke("config", *_pair(tmp_path, "", "slaveReadEnable=true\n"))
    assert result.exit_code == 0, result.stderr
    assert "slave_read_enable = false   # slaveReadEnable in m.properties" in result.stdout
    assert 'slave_read_enable_in_slaves = "TRUE"   # slaveReadEnable in s.properties' in result.stdout


@pytest.mark.parametrize("master, slave", [("slaveReadEnable=true\n", "slaveReadEnable=true\n"), ("", ""),
                                           ("slaveReadEnable=false\n", "")])
def test_brokers_alike_leave_the_slaves_value_to_the_master(tmp_path, master, slave):
    """Every broker with the same slaveReadEnable is the configuration of one value, as before."""
    result = invoke("config", *_pair(tmp_path, master, slave))
    assert result.exit_code == 0, result.stderr
    assert 'slave_read_enable_in_slaves = "AS_MASTER"   # slaveReadEnable alike in every file\n' in result.stdout


def test_check_explores_the_file_pair_with_each_brokers_own_slave_read_enable(tmp_path):
    """The pair, the group reading from its slave, one master power loss: checked (not refused), the
    configuration and its numbers are the pinned table's ``slave-read-master-only``, where the slave sends
    the consumer back to the master and a message is delivered twice."""
    from tests.tooling.pinned import pinned
    entry = pinned("slave-read-master-only")
    (tmp_path / "group.properties").write_text("brokerId=1\n")
    out = tmp_path / "r.json"
    result = invoke("check", *_pair(tmp_path), "--group-config", str(tmp_path / "group.properties"),
                    "--set", "brokerRole=ASYNC_MASTER", "--set", "messages=1", "--set", "max_master_crashes=0",
                    "--quiet", "--json", str(out))
    assert result.exit_code == 1, result.stderr
    doc = json.loads(out.read_text())
    assert Config.from_mapping({k: v for k, v in doc["config"].items()}) == entry.config()
    stats = doc["stats"]
    assert (stats["distinct_states"], stats["transitions"], stats["depth"]) == entry.counts
    assert {p["name"]: p["status"] for p in doc["properties"]} == entry.verdicts
    assert entry.verdicts["message_redelivered"] == "reached"


def test_java_properties_syntax_as_rocketmq_reads_it():
    text = ("# comment\n! also a comment\n  brokerName : broker-a\nbrokerRole SYNC_MASTER\n"
            "namesrvAddr=a:9876;\\\n    b:9876\nstorePathRootDir=C\\:\\\\store\nbrokerIP1=\\u0031.2.3.4\n")
    props = parse_properties(text, Path("x.properties"), "--broker-conf")
    assert props.values == {"brokerName": "broker-a", "brokerRole": "SYNC_MASTER", "namesrvAddr": "a:9876;b:9876",
                            "storePathRootDir": "C:\\store", "brokerIP1": "1.2.3.4"}
    assert props.lines["namesrvAddr"] == 5


MASTER = "brokerClusterName=DefaultCluster\nbrokerName=broker-a\nbrokerId=0\nbrokerRole=SYNC_MASTER\n"
SLAVE = "brokerClusterName=DefaultCluster\nbrokerName=broker-a\nbrokerId=1\nbrokerRole=SLAVE\n"
GOOD_GROUP = "brokerId=0\nwhichBrokerWhenConsumeSlowly=1\n"

#: (case, [(file name, text)], group file text or None, the key the one line must name, the file it names)
BAD = [
    ("role misspelt", [("m", MASTER.replace("SYNC_MASTER", "SYNC_MASTR")), ("s", SLAVE)], None, "brokerRole", "m"),
    ("role with a trailing blank", [("m", MASTER.replace("SYNC_MASTER", "SYNC_MASTER ")), ("s", SLAVE)], None,
     "brokerRole", "m"),
    ("flush type unknown", [("m", MASTER + "flushDiskType=SYNC\n"), ("s", SLAVE)], None, "flushDiskType", "m"),
    ("brokerId not a number", [("m", MASTER), ("s", SLAVE.replace("brokerId=1", "brokerId=one"))], None,
     "brokerId", "s"),
    ("boolean written yes", [("m", MASTER + "slaveReadEnable=yes\n"), ("s", SLAVE)], None, "slaveReadEnable", "m"),
    ("two masters", [("m", MASTER), ("m2", MASTER)], None, "brokerRole", "m2"),
    ("different brokerName", [("m", MASTER), ("s", SLAVE.replace("broker-a", "broker-b"))], None, "brokerName", "s"),
    ("different cluster", [("m", MASTER), ("s", SLAVE.replace("DefaultCluster", "Other"))], None,
     "brokerClusterName", "s"),
    ("a SLAVE with brokerId 0", [("m", MASTER), ("s", SLAVE.replace("brokerId=1", "brokerId=0"))], None,
     "brokerId", "s"),
    ("a master with brokerId 1", [("m", MASTER.replace("brokerId=0", "brokerId=1")), ("s", SLAVE)], None,
     "brokerId", "m"),
    ("no master", [("s", SLAVE)], None, "brokerRole", "s"),
    ("two slaves with one brokerId", [("m", MASTER), ("s", SLAVE), ("s2", SLAVE)], None, "brokerId", "s2"),
    ("four slaves", [("m", MASTER)] + [(f"s{i}", SLAVE.replace("brokerId=1", f"brokerId={i}")) for i in range(1, 5)],
     None, "brokerRole", "s4"),
    ("a slave's slaveReadEnable written yes", [("m", MASTER), ("s", SLAVE + "slaveReadEnable=yes\n")], None,
     "slaveReadEnable", "s"),
    ("offsetCheckInSlave differs", [("m", MASTER), ("s", SLAVE + "offsetCheckInSlave=true\n"),
                                    ("s2", SLAVE.replace("brokerId=1", "brokerId=2"))], None, "offsetCheckInSlave",
     "s2"),
    ("a key given twice", [("m", MASTER + "brokerRole=ASYNC_MASTER\n"), ("s", SLAVE)], None, "brokerRole", "m"),
    ("a key misspelt", [("m", MASTER + "slaveReadEnabel=true\n"), ("s", SLAVE)], None, "slaveReadEnabel", "m"),
    ("a key in the wrong case", [("m", MASTER + "FlushDiskType=SYNC_FLUSH\n"), ("s", SLAVE)], None,
     "FlushDiskType", "m"),
    ("a malformed unicode escape", [("m", MASTER + "brokerIP1=\\u00zz\n"), ("s", SLAVE)], None, "brokerIP1", "m"),
    ("group names no broker", [("m", MASTER), ("s", SLAVE)], "brokerId=2\n", "brokerId", "group"),
    ("group brokerId not a number", [("m", MASTER), ("s", SLAVE)], "whichBrokerWhenConsumeSlowly=slave\n",
     "whichBrokerWhenConsumeSlowly", "group"),
]


@pytest.mark.parametrize("case, files, group, key, culprit", BAD, ids=[b[0] for b in BAD])
def test_malformed_or_contradictory_files_exit_2_naming_file_and_key(tmp_path, no_exploration, case, files, group,
                                                                      key, culprit):
    args = []
    for name, text in files:
        (tmp_path / f"{name}.properties").write_text(text)
        args += ["--broker-conf", str(tmp_path / f"{name}.properties")]
    if group is not None:
        (tmp_path / "group.properties").write_text(group)
        args += ["--group-config", str(tmp_path / "group.properties")]
    result = invoke("check", *args, *TINY)
    assert_bad_input(result, f"{culprit}.properties'", key)


def test_reports_name_the_broker_group_not_the_default_preset(tmp_path):
    report = tmp_path / "r.md"
    result = invoke("check", "--broker-conf", sample("2m-2s-sync", "broker-a"),
                    "--broker-conf", sample("2m-2s-sync", "broker-a-s"), *TINY, "--quiet", "--report", str(report))
    assert result.exit_code in (0, 1), result.stderr
    assert report.read_text().startswith("# rmqcheck report: broker-a\n")


def test_two_slaves_with_different_slave_read_enable_are_read_per_slave(tmp_path):
    """Each slave's own slaveReadEnable, in brokerId order: a master and slave 2 with it, slave 1 without
    (the file set the model refused, holding one value for every slave)."""
    files = {"m": MASTER + "slaveReadEnable=true\n", "s2": SLAVE.replace("brokerId=1", "brokerId=2") +
             "slaveReadEnable=true\n", "s1": SLAVE}
    args = []
    for name, text in files.items():
        (tmp_path / f"{name}.properties").write_text(text)
        args += ["--broker-conf", str(tmp_path / f"{name}.properties")]
    result = invoke("config", *args)
    assert result.exit_code == 0, result.stderr
    assert ('slave_read_enable_in_slaves = "FALSE-TRUE"   # slaveReadEnable RocketMQ\'s default (false): none in '
            's1.properties; true in s2.properties') in result.stdout
    saved = tmp_path / "three.toml"
    saved.write_text(result.stdout)
    cfg = load_toml(saved)
    assert (cfg.slaves, cfg.slave_reads(1), cfg.slave_reads(2), cfg.slave_read_enable) == (2, False, True, True)
