"""The per-role CPU accounting of the Spark benchmark (rmqcheck.cpu_roles), on a real process tree."""
from __future__ import annotations

import subprocess
import sys
import time

from rmqcheck.cpu_roles import ROLES, cpu_by_role, role, snapshot

BURN = ("import sys, time\nt = time.process_time()\nwhile time.process_time() - t < 0.6: pass\n"
        "print('done', flush=True)\nsys.stdin.read()")


def test_roles_from_spark_command_lines():
    java = "/usr/lib/jvm/java-17/bin/java -cp /x/jars/* -Xmx2g"
    assert role(f"{java} org.apache.spark.deploy.SparkSubmit pyspark-shell") == "driver_jvm"
    assert role(f"{java} org.apache.spark.executor.CoarseGrainedExecutorBackend --driver-url x") == "executor_jvms"
    assert role(f"{java} org.apache.spark.deploy.master.Master --host 127.0.0.1") == "cluster_daemons"
    assert role(f"{java} org.apache.spark.deploy.worker.Worker spark://127.0.0.1:7077") == "cluster_daemons"
    assert role("/venv/bin/python -m pyspark.daemon") == "python_workers"
    assert role("/bin/sh -c sleep 1") == "other"


def test_a_childs_cpu_is_counted_under_its_role_and_not_twice():
    before = snapshot()
    child = subprocess.Popen([sys.executable, "-c", BURN], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "done"   # it burnt 0.6 s of CPU and is still alive
        after = snapshot()
    finally:
        child.communicate("", timeout=30)
    spent = cpu_by_role(before, after)
    assert set(spent) == set(ROLES)
    assert child.pid in after and after[child.pid][0] == "other"
    assert 0.5 <= spent["other"] <= 5.0              # the child's own time (interpreter start included)
    assert spent["executor_jvms"] == spent["driver_jvm"] == spent["python_workers"] == 0
    # the driver (this process) only waited; a second pair of snapshots with nothing new counts ~nothing
    again = snapshot()
    assert sum(cpu_by_role(again, again).values()) == 0


def test_peak_memory_by_role_counts_each_live_process_once():
    from rmqcheck.cpu_roles import peak_rss_by_role
    child = subprocess.Popen([sys.executable, "-c", "import sys; b = bytearray(64 << 20); sys.stdin.read()"],
                             stdin=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:   # until the child has touched its 64 MiB
            peaks = peak_rss_by_role(snapshot())
            if peaks["other"] >= 64 << 20:
                break
            time.sleep(0.1)
    finally:
        child.communicate("", timeout=30)
    assert set(peaks) == set(ROLES)
    assert 64 << 20 <= peaks["other"] < 1 << 30
    assert peaks["driver_python"] > 0 and peaks["executor_jvms"] == 0
