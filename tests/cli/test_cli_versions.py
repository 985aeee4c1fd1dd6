"""``--rocketmq-version`` on the commands that read a configuration, TOML ``rocketmq_version``, a gate baseline
entry's ``rocketmq_version``, and every output naming the release checked."""
from __future__ import annotations

import json
import tomllib
import xml.etree.ElementTree as ET

import pytest

from model.versions import release_line, version_key

from cli_driver import TINY, assert_bad_input, invoke

LINE = release_line("4.4")


def config_of(*args: str) -> dict:
    r = invoke("config", *args)
    assert r.exit_code == 0, r.output
    return tomllib.loads(r.stdout)


def test_every_release_of_the_line_is_accepted_and_sets_its_switches():
    for version in LINE.versions():
        cfg = config_of("--rocketmq-version", version)
        assert cfg["rocketmq_version"] == version
        assert {s.knob: cfg[s.knob] for s in LINE.modelled()} == LINE.knob_values(version)


def test_the_default_is_the_reference_release_and_set_still_wins():
    assert config_of()["rocketmq_version"] == "4.4.0"
    assert config_of("--mode", "controller")["rocketmq_version"] == "5.3.3"
    cfg = config_of("--rocketmq-version", "4.9.8", "--set", "overflow_to_max=false")
    assert (cfg["overflow_to_max"], cfg["ha_close_on_ack_beyond_master_max"]) == (False, True)


def test_a_config_file_names_the_release(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('rocketmq_version = "4.9.3"\nmessages = 1\n')
    cfg = config_of("--config", str(path))
    assert (cfg["rocketmq_version"], cfg["ha_close_on_ack_beyond_master_max"], cfg["overflow_to_max"]) == \
           ("4.9.3", True, False)
    # the command line's release comes after the file's, --set after both
    cfg = config_of("--config", str(path), "--rocketmq-version", "4.4.0")
    assert (cfg["rocketmq_version"], cfg["ha_close_on_ack_beyond_master_max"]) == ("4.4.0", False)
    # config's own output, read back, is the same configuration
    again = tmp_path / "again.toml"
    again.write_text(invoke("config", "--rocketmq-version", "4.9.8", "--set", "overflow_to_max=false").stdout)
    assert config_of("--config", str(again)) == config_of("--rocketmq-version", "4.9.8", "--set",
                                                          "overflow_to_max=false")


@pytest.mark.parametrize("args, words", [
    ((*TINY, "--rocketmq-version", "5.1.0"), ("'5.1.0'", "a release of mode controller", "4.4.0", "4.9.8")),
    ((*TINY, "--rocketmq-version", "4.3.2"), ("not a release rmqcheck knows", "4.5.0", "4.9.8")),
    ((*TINY, "--rocketmq-version", "four"), ("not a version", "4.4.0")),
    (("--mode", "controller", "--set", "messages=1", "--rocketmq-version", "5.4.0"),
     ("not a release rmqcheck knows", "5.0.0", "5.3.3")),
    (("--preset", "controller", "--rocketmq-version", "4.9.4"), ("a release of mode 4.4", "5.3.3")),
    ((*TINY, "--set", "rocketmq_version=4.9.4"), ("not a knob", "--rocketmq-version 4.9.4")),
])
def test_an_unknown_other_line_or_unmodelled_release_is_bad_input(args, words):
    assert_bad_input(invoke("check", *args), *words)


def test_check_names_the_release_in_every_output(tmp_path):
    json_path, report, itf = tmp_path / "r.json", tmp_path / "r.md", tmp_path / "itf"
    r = invoke("check", *TINY, "--rocketmq-version", "4.9.4", "--property", "message_acked",
               "--json", str(json_path), "--report", str(report), "--itf", str(itf))
    assert r.exit_code == 0, r.output
    assert "config  RocketMQ 4.9.4, " in r.stdout
    assert json.loads(json_path.read_text())["config"]["rocketmq_version"] == "4.9.4"
    assert "RocketMQ 4.9.4" in report.read_text() and "--rocketmq-version 4.9.4" in report.read_text()
    meta = json.loads((itf / "message_acked.itf.json").read_text())["#meta"]
    assert meta["rocketmq_version"] == meta["config"]["rocketmq_version"] == "4.9.4"


BASELINE = """\
[[configuration]]
name = "before"
rocketmq_version = "4.9.3"
properties = ["message_redelivered"]
[configuration.set]
slaves = 0
max_master_crashes = 0

[[configuration]]
name = "after"
rocketmq_version = "4.9.4"
properties = ["message_redelivered"]
[configuration.set]
slaves = 0
max_master_crashes = 0
"""


def test_a_baseline_entry_with_a_release_gates_it(tmp_path):
    path, junit = tmp_path / "baseline.toml", tmp_path / "junit.xml"
    path.write_text(BASELINE)
    assert invoke("gate", "--baseline", str(path), "--update").exit_code == 0
    expect = {c["name"]: c["expect"]["message_redelivered"] for c in tomllib.loads(path.read_text())["configuration"]}
    # 4.9.4 moves a consumer past a shrunken queue to its end (overflow_to_max): no redelivery there
    assert expect == {"before": "reached", "after": "unreached"}
    r = invoke("gate", "--baseline", str(path), "--junit", str(junit))
    assert r.exit_code == 0, r.output
    assert "(RocketMQ 4.9.3, " in r.stdout and "(RocketMQ 4.9.4, " in r.stdout
    versions = {suite.get("name"): prop.get("value") for suite in ET.parse(junit).getroot()
                for prop in suite.iter("property") if prop.get("name") == "rocketmq_version"}
    assert versions == {"before": "4.9.3", "after": "4.9.4"}
    # a changed release is a changed configuration: the recorded verdict no longer holds
    path.write_text(path.read_text().replace('rocketmq_version = "4.9.4"', 'rocketmq_version = "4.9.3"'))
    assert invoke("gate", "--baseline", str(path)).exit_code == 1


def test_a_baseline_refuses_a_release_in_its_set_table_or_of_another_line(tmp_path):
    path = tmp_path / "baseline.toml"
    path.write_text('[[configuration]]\nname = "x"\n[configuration.set]\nrocketmq_version = "4.9.4"\n')
    assert_bad_input(invoke("gate", "--baseline", str(path), "--update"), "configuration x", "not a knob")
    path.write_text('[[configuration]]\nname = "x"\nrocketmq_version = "5.2.0"\n')
    assert_bad_input(invoke("gate", "--baseline", str(path), "--update"), "configuration x", "mode controller")


# --- rmqcheck versions, list --versions ------------------------------------------------------------------
@pytest.mark.parametrize("args", [("versions",), ("list", "--versions")])
def test_versions_lists_every_release_and_each_switch_with_its_commit(args, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    r = invoke(*args)
    assert r.exit_code == 0, r.output
    for version in LINE.versions():
        assert f"│ {version} " in r.stdout
    for s in LINE.switches:
        assert s.name in r.stdout and s.commit[:10] in r.stdout
    assert "checked as 4.4.0" in r.stdout and "knob overflow_to_max" in r.stdout


def test_versions_of_the_controller_mode_lists_its_switches(monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    r = invoke("versions", "--mode", "controller")
    assert r.exit_code == 0, r.output
    line = release_line("controller")
    assert all(f"│ {v} " in r.stdout for v in line.versions()) and "not modelled yet" not in r.stdout
    assert all(s.commit[:10] in r.stdout for s in line.switches)
    assert "checked as 5.0.0" in r.stdout and "knob sss_union_while_synchronizing" in r.stdout
    assert "the model has no configured brokerRole" in r.stdout
    assert_bad_input(invoke("versions", "--mode", "5.x"), "unknown mode '5.x'")


# --- matrix --versions ------------------------------------------------------------------------------------
SLAVELESS = ("--set", "slaves=0", "--set", "max_master_crashes=0", "--property", "message_redelivered")


def test_matrix_versions_all_gives_a_column_per_release_exploring_each_behaviour_once(tmp_path):
    out = tmp_path / "m.json"
    r = invoke("matrix", "--versions", "all", *SLAVELESS, "--quiet", "--json", str(out))
    assert r.exit_code == 1, r.output     # message_redelivered is unreached from 4.9.4 on: a vacuity warning
    columns = json.loads(out.read_text())["configurations"]
    assert [c["name"] for c in columns] == list(LINE.versions())
    assert [c["config"]["rocketmq_version"] for c in columns] == list(LINE.versions())
    verdicts = {c["name"]: c["properties"][0]["status"] for c in columns}
    assert {v for v, s in verdicts.items() if s == "unreached"} == {v for v in LINE.versions()
                                                                    if version_key(v) >= (4, 9, 4)}
    # one exploration per distinct switch setting: 4.4.0 ... 4.7.1 share the 4.4.0 result
    assert columns[0]["stats"] == columns[7]["stats"]


def test_matrix_versions_with_several_presets_and_bad_releases():
    r = invoke("matrix", "--preset", "default", "--preset", "sync-master", "--versions", "4.4.0,4.9.4",
               *SLAVELESS, "--set", "messages=1", "--quiet")
    assert r.exit_code in (0, 1), r.output
    assert all(name in r.stdout for name in ("default@4.4.0", "default@4.9.4", "sync-master@4.9.4"))
    assert_bad_input(invoke("matrix", "--versions", "4.4.0,5.1.0", *SLAVELESS), "--versions '5.1.0'",
                     "mode controller")
    assert_bad_input(invoke("matrix", "--versions", "4.4.0,", *SLAVELESS), "empty release")
    assert_bad_input(invoke("matrix", "--preset", "controller", "--versions", "5.2.0,4.9.4", "--set", "messages=1"),
                     "--versions '4.9.4'", "a release of mode 4.4", "5.3.3")
