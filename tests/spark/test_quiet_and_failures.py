"""Spark speaks in rmqcheck's voice: its own output goes to a log file, a failure is one line with the
root cause and the way to resume, and losing a worker never yields a false verdict."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import pytest

from spark_explore.cluster import StandaloneCluster
from spark_explore.errors import root_cause

from spark_compare import MASTER

# holds, so every run is exhaustive: 351 states, depth 13 (one cluster level per BFS level)
TINY = ["--set", "messages=1", "--set", "max_master_crashes=0", "--set", "max_master_power_losses=0",
        "--property", "acked_message_never_lost"]


def _rmqcheck(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rmqcheck", "check", *args], capture_output=True, text=True,
                          timeout=timeout)


class _Java:
    """A stand-in for a py4j JavaObject exception chain."""

    def __init__(self, text: str, cause: "_Java | None" = None) -> None:
        self.text, self.cause = text, cause

    def getCause(self):
        return self.cause

    def toString(self):
        return self.text


def test_root_cause_is_the_innermost_java_exception_on_one_line():
    exc = Exception("An error occurred while calling o123.parquet.\n: org.apache.spark.SparkException: ...")
    exc.java_exception = _Java("org.apache.spark.SparkException: Job aborted\n\tat org.apache...",
                               _Java("org.apache.spark.SparkException: Checkpoint block rdd_12_3 not found! "
                                     "(executor 1 lost)\n\tat org.apache.spark.rdd..."))
    assert root_cause(exc) == ("org.apache.spark.SparkException: Checkpoint block rdd_12_3 not found! "
                               "(executor 1 lost)")


def test_root_cause_of_a_python_error_follows_its_causes():
    try:
        try:
            raise OSError("No space left on device")
        except OSError as inner:
            raise RuntimeError("write failed") from inner
    except RuntimeError as exc:
        assert root_cause(exc) == "OSError: No space left on device"


def test_a_quiet_spark_run_prints_one_line_and_nothing_on_stderr(tmp_path):
    r = _rmqcheck(*TINY, "--engine", "spark", "--spark-master", MASTER, "--driver-level-limit", "0", "--quiet",
                  "--work-dir", str(tmp_path / "w"))
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    assert re.fullmatch(r"passed: 351 states, [\d,]+ transitions, depth 13, [\d.]+ s; within 1 message, [^\n]+\n",
                        r.stdout)
    assert "Setting default log level" in (tmp_path / "w" / "spark.log").read_text()


def _wait_for_level(meta_path, level: int, proc: subprocess.Popen, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if json.loads(meta_path.read_text())["expanded_levels"] >= level:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.2)
    raise AssertionError(f"the run did not reach level {level} (exit {proc.poll()})")


@pytest.mark.slow
@pytest.mark.timeout(1500)
def test_losing_a_worker_mid_run_costs_a_recomputation_not_the_run(tmp_path):
    """Kill one of two workers (with its executor and Python workers) mid-run: Spark runs its tasks again
    on the other, from the files in the work directory, and the run finishes with the exact result, with
    no Java or py4j trace."""
    local = _rmqcheck(*TINY, "--quiet", "--json", str(tmp_path / "local.json"))
    assert local.returncode == 0, local.stdout + local.stderr
    work, result = tmp_path / "work", tmp_path / "spark.json"
    with StandaloneCluster(workers=2, start_timeout=180) as cluster:
        args = [*TINY, "--engine", "spark", "--spark-master", cluster.master_url, "--driver-level-limit", "0",
                "--partitions", "4", "--work-dir", str(work), "--json", str(result)]
        run = subprocess.Popen([sys.executable, "-m", "rmqcheck", "check", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        _wait_for_level(work / "meta.json", 5, run, timeout=900)
        cluster.kill_worker(1)
        out, err = run.communicate(timeout=900)
    assert "Traceback" not in err and "py4j" not in err and "\tat " not in err, err
    assert run.returncode == 0, (out, err)
    a, b = json.loads((tmp_path / "local.json").read_text()), json.loads(result.read_text())
    assert b["outcome"] == "passed" and b["engine"] == "spark"
    assert b["stats"]["level_engines"].count("cluster") > 5     # levels ran after the loss
    for key in ("distinct_states", "transitions", "depth", "levels"):
        assert a["stats"][key] == b["stats"][key], key
    assert [p["status"] for p in a["properties"]] == [p["status"] for p in b["properties"]]


# a task that failed in its Python worker, as the JVM reports it (Spark 4's PythonException text)
WORKER_FAILURE = """org.apache.spark.api.python.PythonException: [PYTHON_EXCEPTION] An exception was thrown from the \
Python worker: Traceback (most recent call last):
  File "/x/pyspark/worker.py", line 4327, in invoke_udf
    run_process()
  File "/work/spark_explore/level_job.py", line 445, in read_bucket
    raise ExchangeFileError(f"exchange file {path} is missing "
ERROR
 SQLSTATE: 38000"""


def _worker_failure(error: str) -> Exception:
    exc = Exception("An error occurred while calling o88.collectAndServe.")
    exc.java_exception = _Java("org.apache.spark.SparkException: Job aborted due to stage failure: Task 0 in "
                               "stage 3.0 failed 1 times, most recent failure: ...",
                               _Java(WORKER_FAILURE.replace("ERROR", error)))
    return exc


def test_a_task_failure_is_the_python_workers_exception_type_and_message():
    exc = _worker_failure("spark_explore.errors.ExchangeFileError: exchange file /w/shuffle/level=2/"
                          "to-00001-from-00000.bin is missing (2 states)")
    assert root_cause(exc) == ("ExchangeFileError: exchange file /w/shuffle/level=2/to-00001-from-00000.bin is "
                               "missing (2 states)")


def test_a_full_disk_in_a_task_is_named_as_such():
    from spark_explore.errors import failure_cause
    exc = _worker_failure("OSError: [Errno 28] No space left on device: '/w/levels/level=7/.part-00001.tmp'")
    assert failure_cause(exc, "/w") == ("the disk is full (no space left on device under the work directory "
                                        "/w): OSError: [Errno 28] No space left on device: "
                                        "'/w/levels/level=7/.part-00001.tmp'")
    java = Exception("o1.collect")
    java.java_exception = _Java("java.io.IOException: No space left on device\n\tat java.base/...")
    assert failure_cause(java, "/w") == ("the disk is full (no space left on device): java.io.IOException: No "
                                         "space left on device")


@pytest.mark.timeout(600)
@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_a_signal_mid_run_ends_in_one_line_and_nothing_from_py4j(tmp_path, signal_name):
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) or SIGTERM to the driver while
    Spark runs a level: the 'incomplete ... --resume' line, exit 3, and nothing on stderr (PySpark's own
    handler used to print 44 lines of py4j tracebacks after it)."""
    import os
    import signal
    work = tmp_path / "w"
    run = subprocess.Popen([sys.executable, "-m", "rmqcheck", "check", *TINY, "--engine", "spark",
                            "--spark-master", MASTER, "--driver-level-limit", "0", "--quiet", "--work-dir", str(work)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        _wait_for_level(work / "meta.json", 2, run, timeout=400)
        t = time.monotonic()
        if signal_name == "SIGINT":
            os.killpg(run.pid, signal.SIGINT)
        else:
            run.send_signal(signal.SIGTERM)
        out, err = run.communicate(timeout=300)
        print(f"ended {time.monotonic() - t:.1f} s after the signal")
    finally:
        if run.poll() is None:
            run.kill()
    assert err == "", err
    assert run.returncode == 3, out
    line = " ".join(out.split())   # the console may wrap the line
    assert re.fullmatch(rf"incomplete: [\d,]+ states, .*\(interrupted \({signal_name}\) the levels done so far are "
                        rf"in '{re.escape(str(work))}': add --work-dir {re.escape(str(work))} --resume to continue\)"
                        r"; within 1 message, .*",
                        line), out
