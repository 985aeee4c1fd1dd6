"""``rmqcheck check``: exit codes per outcome, the console report, conflicting options, Spark wiring."""
from __future__ import annotations

import json

import pytest

from explore.result import ERROR, CheckResult, ModelError, Stats
from rmqcheck.engines import SparkOptions
from spark_explore.errors import SparkRefused, SparkUnavailable

from cli_driver import SMALL, TINY, TINY_ALWAYS, assert_bad_input, invoke


def test_passes_with_exit_0_when_every_checked_property_holds():
    r = invoke("check", *TINY_ALWAYS)
    assert r.exit_code == 0, r.output
    assert "PASSED" in r.stdout
    assert "351 (exact)" in r.stdout
    for name in ("acked_message_never_lost", "replicas_agree", "no_message_skipped"):
        assert name in r.stdout
    assert "holds" in r.stdout and "violated" not in r.stdout


def test_violation_exits_1_and_prints_the_shortest_trace_in_rocketmq_terms():
    r = invoke("check", *SMALL, "--property", "acked_message_never_lost")
    assert r.exit_code == 1, r.output
    out = r.stdout
    assert "VIOLATED" in out
    assert "acked_message_never_lost: violated in 2 steps" in out
    # the trace: INIT, then the send (with its outcome) and the power loss, only changed fields
    for text in ("INIT", "SendMessage()", "SEND_OK", "MasterPowerLoss()", "master.commitlog: [1] -> []",
                 "failures.masterPowerLosses: 0 -> 1"):
        assert text in out, text
    assert "slave1.up" not in out  # unchanged fields are not shown


def test_pull_outcome_names_the_broker():
    r = invoke("check", *SMALL, "--property", "consumed_message_never_lost")
    assert r.exit_code == 1
    assert "FOUND from broker 0" in r.stdout


def test_state_limit_gives_incomplete_exit_3():
    r = invoke("check", *SMALL, "--max-states", "10")
    assert r.exit_code == 3, r.output
    assert "INCOMPLETE" in r.stdout and "state limit 10 reached" in r.stdout


def test_depth_limit_gives_incomplete_exit_3_quietly():
    r = invoke("check", *TINY_ALWAYS, "--max-depth", "2", "--quiet")
    assert r.exit_code == 3
    assert r.stdout.startswith("incomplete: ") and len(r.stdout.strip().splitlines()) == 1


def test_model_error_exits_4_with_the_action(monkeypatch):
    def failing(job, engine, quiet, spark=None):
        return CheckResult("local", ERROR, Stats(distinct_states=3), [], job.config.as_dict(),
                           error=ModelError("a field value does not fit", "Pull(consumer=1, queue=0)", {})), None
    monkeypatch.setattr("rmqcheck.check.run_check", failing)
    r = invoke("check", *TINY)
    assert r.exit_code == 4
    assert "model error" in r.stdout and "Pull(consumer=1, queue=0)" in r.stdout


def test_config_file_and_set_override(tmp_path):
    f = tmp_path / "small.toml"
    f.write_text('preset = "sync-master"\nmessages = 1\nmax_master_crashes = 0\nmax_master_power_losses = 0\n')
    r = invoke("check", "--config", str(f), "--set", "consumers=2", "--property", "replicas_agree", "--quiet")
    assert r.exit_code == 0, r.output
    j = tmp_path / "r.json"
    r = invoke("check", "--config", str(f), "--property", "replicas_agree", "--json", str(j), "--quiet")
    cfg = json.loads(j.read_text())["config"]
    assert cfg["broker_role"] == "SYNC_MASTER" and cfg["messages"] == 1 and cfg["slaves"] == 1


def test_set_slaves_zero_alone_is_accepted(tmp_path):
    """The broker-id knobs not given follow --set slaves=0 (whichBrokerWhenConsumeSlowly 1 -> 0)."""
    j = tmp_path / "r.json"
    r = invoke("check", *TINY, "--set", "slaves=0", "--property", "replicas_agree", "--json", str(j), "--quiet")
    assert r.exit_code == 0, r.output
    cfg = json.loads(j.read_text())["config"]
    assert (cfg["slaves"], cfg["group_broker_id"], cfg["which_broker_when_consume_slowly"]) == (0, 0, 0)


def test_not_utf8_config_file_is_bad_input(tmp_path, no_exploration):
    f = tmp_path / "latin.toml"
    f.write_bytes(b"# caf\xe9\nmessages = 1\n")
    assert_bad_input(invoke("check", "--config", str(f)), str(f), "not UTF-8")


# -- bad input: one line, exit 2, nothing explored, nothing written ---------------------------------------
@pytest.mark.parametrize("args, words", [
    (("--preset", "nope"), ("unknown preset 'nope'", "sync-master")),
    (("--set", "colour=red"), ("unknown knob 'colour'", "broker_role")),
    (("--set", "slaves=9"), ("knob 'slaves'", "0..3")),
    (("--set", "slaves=two"), ("knob 'slaves'", "0..3")),
    (("--set", "broker_role=SLAVE"), ("knob 'broker_role'", "ASYNC_MASTER, SYNC_MASTER")),
    (("--set", "slave_read_enable=maybe"), ("slave_read_enable", "true, false")),
    (("--set", "slaves"), ("expected key=value",)),
    (("--set", "slaves=0", "--set", "group_broker_id=1"), ("group_broker_id", "0..0")),
    (("--property", "never_fails"), ("unknown property 'never_fails'", "replicas_agree")),
    (("--max-states", "0"), ("--max-states 0", "> 0")),
    (("--max-states", "lots"), ("--max-states", "integer")),
    (("--engine", "gpu"), ("--engine", "local", "spark")),
    (("--preset", "default", "--config", "x.toml"), ("--preset and --config",)),
    (("--config", "/nonexistent/x.toml"), ("cannot read config file",)),
    (("--bogus",), ("No such option", "rmqcheck check --help")),
    (("--partitions", "4"), ("--partitions", "--engine spark")),
    (("--spark-master", "spark://h:7077"), ("--spark-master", "--engine spark")),
    (("--resume",), ("--resume", "--engine spark")),
    (("--engine", "spark", "--graph", "g.graphml"), ("--graph", "--engine local")),
    (("--engine", "spark", "--partitions", "0"), ("--partitions 0",)),
    (("--engine", "spark", "--resume"), ("--resume needs --work-dir",)),
    (("--report", "r.pdf"), ("unknown report format '.pdf'", ".md", ".html")),
    (("--graph", "g.png"), ("unknown graph format '.png'", ".graphml", ".dot")),
    (("--json", "/nonexistent-dir/r.json"), ("--json", "does not exist")),
    (("--report", "/nonexistent-dir/r.md"), ("--report", "does not exist")),
    (("--json", "same.md", "--report", "same.md"), ("same file",)),
])
def test_bad_input_is_one_line_exit_2_before_exploring(args, words, no_exploration, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_bad_input(invoke("check", *args), *words)
    assert list(tmp_path.iterdir()) == []


def test_malformed_toml_is_bad_input(tmp_path, no_exploration):
    f = tmp_path / "bad.toml"
    f.write_text("messages = = 2\n")
    assert_bad_input(invoke("check", "--config", str(f)), "not valid TOML")
    f.write_text("messages = 'many'\n")
    assert_bad_input(invoke("check", "--config", str(f)), "knob 'messages'", "1..8")


@pytest.mark.parametrize("target", ["/proc/r.json", "/sys/r.json"])
def test_unwritable_output_directory_is_refused_before_exploring(target, no_exploration):
    assert_bad_input(invoke("check", "--json", target), "--json", "not writable")


def test_read_only_directory_is_refused_for_an_ordinary_user(tmp_path, no_exploration):
    import os
    d = tmp_path / "ro"
    d.mkdir()
    d.chmod(0o500)
    try:
        if os.access(d, os.W_OK):
            pytest.skip("root can write into a read-only directory; the /proc and /sys cases cover root")
        assert_bad_input(invoke("check", "--json", str(d / "r.json")), "not writable")
    finally:
        d.chmod(0o700)


def test_output_under_a_file_is_refused(tmp_path, no_exploration):
    (tmp_path / "file.txt").write_text("x")
    assert_bad_input(invoke("check", "--graph", str(tmp_path / "file.txt" / "g.dot")), "is not a directory")


def test_output_path_that_is_a_directory_is_refused(tmp_path, no_exploration):
    assert_bad_input(invoke("check", "--report", str(tmp_path / "x.md"), "--json", str(tmp_path)), "is a directory")


# -- the Spark engine, wired but replaced here (a real Spark run belongs to spark_explore's tests) ----------
def test_spark_options_reach_explore_on_spark(monkeypatch):
    seen = {}

    def fake(model, properties, limits, listener, **options):
        from explore.local import explore
        seen.update(options, limits=limits, properties=properties.names())
        result = explore(model, properties, limits, listener)
        result.engine = "spark"
        return result

    monkeypatch.setattr("spark_explore.engine.explore_on_spark", fake)
    r = invoke("check", *TINY_ALWAYS, "--engine", "spark", "--spark-master", "spark://h:7077", "--partitions", "8",
               "--work-dir", "/tmp/ckpt", "--resume", "--max-depth", "50")
    assert r.exit_code == 0, r.output
    assert seen["master"] == "spark://h:7077" and seen["partitions"] == 8
    assert seen["work_dir"] == "/tmp/ckpt" and seen["resume"] is True
    assert seen["limits"].max_depth == 50 and len(seen["properties"]) == 5
    assert "spark" in r.stdout


def test_spark_defaults(monkeypatch):
    seen = {}

    def fake(model, properties, limits, listener, **options):
        seen.update(options)
        raise SparkUnavailable("Java not found: install Java 17 or use --engine local")

    monkeypatch.setattr("spark_explore.engine.explore_on_spark", fake)
    assert_bad_input(invoke("check", *TINY, "--engine", "spark"), "Java not found")
    assert seen == {"master": "local[*]", "partitions": None, "work_dir": None, "resume": False}
    assert SparkOptions() == SparkOptions("local[*]", None, None, False)


def test_spark_refusal_is_bad_input(monkeypatch):
    def fake(*a, **k):
        raise SparkRefused("graph property replication_can_catch_up needs --engine local")
    monkeypatch.setattr("spark_explore.engine.explore_on_spark", fake)
    assert_bad_input(invoke("check", *TINY, "--engine", "spark"), "replication_can_catch_up")


def test_missing_spark_engine_is_one_line(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_spark_engine(name, *args, **kwargs):
        if name == "spark_explore.engine":
            raise ImportError("No module named 'spark_explore.engine'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_spark_engine)
    assert_bad_input(invoke("check", *TINY, "--engine", "spark"), "--engine spark", "--engine local")


def test_list_shows_presets_knobs_and_properties():
    r = invoke("list")
    assert r.exit_code == 0
    for text in ("read-from-slave", "all-switches", "bench", "broker_role", "ASYNC_MASTER, SYNC_MASTER",
                 "max_ha_disconnects", "0..3", "validate_slave_ack", "replication_can_catch_up", "sometimes"):
        assert text in r.stdout, text


def test_an_unreached_sometimes_property_is_explained_as_the_exit_code():
    """Exit 1 with every always property holding: the console says it is the vacuity warning of the
    unreached sometimes properties, not a violation found."""
    for args in ((), ("--quiet",)):
        result = invoke("check", *TINY, *args, "--traces", "none")
        out = " ".join(result.stdout.split())
        assert result.exit_code == 1
        assert "unreached: slave_serves_pull, offset_committed_to_slave" in out
        assert "vacuity warning, exit code 1" in out and "No property is violated" in out
    violated = " ".join(invoke("check", *TINY, "--set", "max_master_power_losses=1", "--quiet").stdout.split())
    assert "unreached:" in violated and "No property is violated" not in violated
