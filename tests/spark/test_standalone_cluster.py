"""A real Spark standalone cluster on 127.0.0.1: master plus two workers from the pyspark package's own
launch classes, started and stopped by the test (bounded in time), and the real command line."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from invariants import PROPERTIES
from spark_explore.cluster import StandaloneCluster
from spark_explore.session import EXECUTOR_JVM

ARGS = ["check", "--preset", "default", "--set", "messages=1", "--set", "max_master_power_losses=0"]
#: the default selection but the eventually properties, which LIVE's runs decide (with a master that may stay
#: down, where they have lassos): ARGS's runs compare the exploration, without paying for the pass after it
EXPLORATION = [arg for name in PROPERTIES.without(["eventually"]).names() for arg in ("--property", name)]
#: the eventually properties with a master that may stay down: two lassos, decided by Spark jobs
LIVE = ["--property", "acked_message_eventually_consumed", "--property", "slaves_eventually_catch_up",
        "--property", "consumption_eventually_completes", "--unfair", "MasterRestart"]


@pytest.mark.timeout(600)
def test_check_on_a_standalone_cluster_matches_the_local_engine(tmp_path):
    local_json = tmp_path / "local.json"
    cmd = [sys.executable, "-m", "rmqcheck"]
    local = subprocess.run(cmd + ARGS + EXPLORATION + ["--json", str(local_json), "--quiet"], capture_output=True,
                           text=True, timeout=300)
    assert local.returncode == 1, local.stderr
    local_live = subprocess.run(cmd + ARGS + LIVE + ["--json", str(tmp_path / "local-live.json"), "--quiet"],
                                capture_output=True, text=True, timeout=300)
    assert local_live.returncode == 1, local_live.stderr
    with StandaloneCluster(workers=2, start_timeout=120) as cluster:
        assert cluster.alive_workers() == 2
        spark_json = tmp_path / "spark.json"
        run = subprocess.run(cmd + ARGS + EXPLORATION + ["--engine", "spark", "--spark-master", cluster.master_url,
                                                         "--driver-level-limit", "0", "--partitions", "4",
                                                         "--json", str(spark_json), "--quiet"],
                             capture_output=True, text=True, timeout=480)
        live = subprocess.run(cmd + ARGS + LIVE + ["--engine", "spark", "--spark-master", cluster.master_url,
                                                   "--driver-level-limit", "450", "--partitions", "4",
                                                   "--json", str(tmp_path / "spark-live.json"), "--quiet"],
                              capture_output=True, text=True, timeout=480)
        # each worker logs the command line of its executor JVM: the lean JVM options reached it
        commands = [line for f in (cluster.log_dir / "work").glob("app-*/*/stderr")
                    for line in f.read_text(errors="replace").splitlines() if "Spark Executor Command" in line]
    assert run.returncode == 1, run.stderr
    assert commands and all(all(opt in c for opt in EXECUTOR_JVM.split()) for c in commands), commands
    a, b = json.loads(local_json.read_text()), json.loads(spark_json.read_text())
    assert b["engine"] == "spark" and "cluster" in b["stats"]["level_engines"]
    for key in ("distinct_states", "transitions", "depth"):
        assert a["stats"][key] == b["stats"][key], key
    for pa, pb in zip(a["properties"], b["properties"]):
        assert pa["name"] == pb["name"]
        assert pa["status"] == pb["status"], pa["name"]
        assert [s["action"] for s in pa.get("trace", [])] == [s["action"] for s in pb.get("trace", [])]
    # the eventually properties: the same verdicts, notes, loop_start and lassos as the local engine
    assert live.returncode == 1, live.stderr
    a, b = (json.loads((tmp_path / f"{e}-live.json").read_text()) for e in ("local", "spark"))
    assert "cluster" in b["stats"]["level_engines"]
    assert [p["status"] for p in b["properties"]] == ["violated", "violated", "holds"]
    assert a["properties"] == b["properties"]


def test_an_unreachable_master_is_bad_input_from_the_command_line():
    run = subprocess.run([sys.executable, "-m", "rmqcheck"] + ARGS + ["--engine", "spark", "--spark-master",
                                                                     "spark://127.0.0.1:9"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1 and "cannot reach the Spark master" in run.stderr
